//! `--annotations`: the verification annotations of a program (from its
//! source and from walkdown's own proofs), their status per error goal as
//! `report.json` and `walkdown analyze` show it, and the instrumented
//! program the concolic engine runs under `--verification`.

use anyhow::{bail, Result};
use walkdown_annot::{Annotations, Config, Premise, Source};
use walkdown_formats::report::{AnnotationsEntry, CheckAnnotation};
use walkdown_ir::goals::{GoalId, GoalKind, Goals};
use walkdown_ir::Program;

/// `--annotations`: a source of verification results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceArg {
    /// `__VERIFIER_assumed` / `__VERIFIER_assert_verified` in the program.
    Source,
    /// walkdown's static proofs: an error site it proves unreachable is
    /// verified without condition.
    #[value(name = "self")]
    SelfProof,
}

/// `--verification`: which of the paper's configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ConfigArg {
    /// No annotations used (plain dynamic symbolic execution).
    Uv,
    /// Runs stop at an annotated assertion whose premise holds.
    Pv,
    /// Prune executions that are verified from a point on.
    May,
    /// Try first the inputs whose executions must be unverified.
    Must,
    /// Both.
    #[value(name = "may+must")]
    MayMust,
}

impl ConfigArg {
    /// The library's configuration.
    pub fn config(self) -> Config {
        match self {
            ConfigArg::Uv => Config::Uv,
            ConfigArg::Pv => Config::Pv,
            ConfigArg::May => Config::May,
            ConfigArg::Must => Config::Must,
            ConfigArg::MayMust => Config::MayMust,
        }
    }
}

/// The annotations of `program` from `sources`; `proved` are the error
/// goals walkdown's static pass proved unreachable (for `self`).
pub fn read(program: &Program, goals: &Goals, sources: &[SourceArg], proved: &[GoalId]) -> Result<Annotations> {
    let mut a = Annotations::unverified(goals);
    for s in sources {
        match s {
            SourceArg::Source => {
                if let Err(e) = a.read_source(program, goals) {
                    bail!("{e}");
                }
            }
            SourceArg::SelfProof => {
                for &g in proved {
                    if matches!(goals.goals[g].kind, GoalKind::Error { .. }) {
                        a.verify(g, Premise::True, Source::SelfProof);
                    }
                }
            }
        }
    }
    Ok(a)
}

/// A goal's status in words.
pub fn status_words(p: &Premise) -> &'static str {
    match p {
        Premise::True => "verified",
        Premise::False => "unverified",
        _ => "verified under a premise",
    }
}

/// The report's entry.
pub fn entry(
    program: &Program,
    goals: &Goals,
    a: &Annotations,
    sources: &[SourceArg],
    config: Config,
    instrumentation: std::collections::BTreeMap<String, String>,
) -> AnnotationsEntry {
    AnnotationsEntry {
        sources: sources.iter().map(|s| if *s == SourceArg::Source { "source".into() } else { "self".into() }).collect(),
        configuration: config.name().into(),
        assumptions: a.assumptions.iter().map(|x| x.name.clone()).collect(),
        checks: a
            .checks
            .iter()
            .map(|(g, s)| CheckAnnotation {
                goal: g.to_string(),
                kind: goals.describe(*g),
                location: program.describe_loc(goals.goals[*g].loc),
                status: status_words(&s.premise).into(),
                premise: a.premise_text(*g),
                sources: s.sources.iter().map(|x| x.name().into()).collect(),
            })
            .collect(),
        instrumentation,
    }
}
