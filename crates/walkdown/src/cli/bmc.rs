//! `walkdown gen --engine bmc`: the bounded engine (issue 4). Writes the
//! suite like the concolic engine (Test-Comp XML as tests are kept) and a
//! `report.json` whose goals are `covered`, `unreachable` (no execution
//! reaches them and none is cut by the unwinding: an unbounded proof),
//! `infeasible` (no execution within the unwinding bound reaches them; the
//! bound is in `proved_by`) or `open`.

use super::ProgramArgs;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use walkdown_bmc::cover::CoverSettings;
use walkdown_bmc::{run_bmc, BmcResult, BmcSettings, CoverAlgorithm, GoalVerdict};
use walkdown_concolic::{KeptTest, Stats, TestSink};
use walkdown_formats::report::{EngineFigures, ErrorEntry, GoalEntry, LayerFigures, Report, TestEntry};
use walkdown_formats::{Metadata, Specification, TestCase};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalKind, Goals};
use walkdown_ir::Program;

/// Which engine `gen` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// Concolic search (the default).
    Concolic,
    /// Bounded infeasible-code detection: unwinding, one formula, solver cover.
    Bmc,
}

/// `--cover`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CoverArg {
    /// Statement cover with enabling clauses.
    Statements,
    /// Path cover with blocking clauses.
    Paths,
    /// One query per goal.
    PerBlock,
    /// Greedy: each query asks for the path covering the most open goals.
    Greedy,
}

/// The options of `gen` for the bounded engine.
#[derive(clap::Args, Debug)]
pub struct BmcFlags {
    /// Engine: concolic (default) or bmc (bounded infeasible-code detection).
    #[arg(long, value_enum, default_value = "concolic")]
    pub engine: EngineArg,
    /// bmc: loops run at most K times and recursion nests at most K deep.
    #[arg(long, default_value_t = 2)]
    pub unwind: u32,
    /// bmc: covering algorithm.
    #[arg(long, value_enum, default_value = "statements")]
    pub cover: CoverArg,
    /// bmc: first cover with calls of memory- and input-free functions replaced by procedure summaries (up to half the time), then inline.
    #[arg(long)]
    pub summaries: bool,
}

struct Writer<'a> {
    suite_dir: PathBuf,
    tests: Vec<KeptTest>,
    program: &'a Program,
}

impl TestSink for Writer<'_> {
    fn test(&mut self, test: &KeptTest) -> Result<(), String> {
        let mut case = TestCase::new(test.vector.clone()).with_types(&test.types);
        case.covers_error = test.error.is_some_and(|e| e.kind == walkdown_ir::CheckKind::ReachError);
        if case.annotations.len() != case.vector.values.len() {
            case.annotations.clear();
        }
        let path = self.suite_dir.join(file_name(test.index));
        walkdown_formats::write_testcase(&path, &case).map_err(|e| e.to_string())?;
        self.tests.push(test.clone());
        let _ = self.program;
        Ok(())
    }
    fn progress(&mut self, _: &Stats) {}
}

fn file_name(index: usize) -> String {
    format!("test-{index:05}.xml")
}

/// Runs `gen` with the bounded engine; exit code 1 when a test reaches an error.
pub fn gen(program_args: &ProgramArgs, time: f64, out: &Path, solver_timeout_ms: u32, quiet: bool, flags: &BmcFlags) -> Result<i32> {
    if !(time > 0.0 && time.is_finite()) {
        bail!("--time must be a positive number of seconds");
    }
    if flags.unwind == 0 {
        bail!("--unwind must be at least 1");
    }
    let program = super::load(program_args)?;
    let goals = Goals::compute(&program);
    let suite_dir = out.join("test-suite");
    prepare_out_dir(&suite_dir)?;
    let producer = concat!("walkdown ", env!("CARGO_PKG_VERSION"));
    let metadata = Metadata::for_program(&program_args.file, Specification::CoverBranches, program.data_model, producer)?;
    walkdown_formats::write_metadata(&suite_dir.join("metadata.xml"), &metadata)?;
    let algorithm = match flags.cover {
        CoverArg::Statements => CoverAlgorithm::Statements,
        CoverArg::Paths => CoverAlgorithm::Paths,
        CoverArg::PerBlock => CoverAlgorithm::PerBlock,
        CoverArg::Greedy => CoverAlgorithm::Greedy,
    };
    let settings = BmcSettings {
        unwind: flags.unwind,
        cover: CoverSettings {
            algorithm,
            time: Duration::from_secs_f64(time),
            timeout_ms: solver_timeout_ms,
            ..CoverSettings::default()
        },
        summaries: flags.summaries,
        ..BmcSettings::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let mut writer = Writer { suite_dir: suite_dir.clone(), tests: Vec::new(), program: &program };
    let result = run_bmc(&program, &goals, &settings, &mut writer, &stop)?;
    let report = make_report(&program, &goals, &result, program_args, flags, producer, stop.load(Ordering::Relaxed));
    walkdown_formats::report::write_report(&out.join("report.json"), &report)?;
    if let Some(e) = &result.unsupported {
        eprintln!("walkdown: bmc cannot encode the program ({e}); every goal is open");
    }
    if !quiet && !result.approximations.is_empty() {
        eprintln!(
            "walkdown: bmc over-approximates {} operations (first: {} at line {})",
            result.approximations.len(),
            result.approximations[0].0,
            result.approximations[0].1.line
        );
    }
    println!(
        "walkdown: {} of {} goals covered, {} unreachable, {} infeasible within unwinding {} by {} tests in {:.1}s (bmc, {} cover: {} queries, {:.1}s in the solver, {} blocks unwound, cut points {})",
        report.goals_covered,
        report.goals_total,
        report.goals_unreachable,
        report.goals_infeasible,
        flags.unwind,
        result.tests.len(),
        result.elapsed.as_secs_f64(),
        algorithm.name(),
        result.cover.queries,
        result.cover.solver_time.as_secs_f64(),
        result.blocks,
        match result.cut_reachable {
            Some(true) => "reachable",
            Some(false) => "unreachable",
            None => "unknown",
        }
    );
    if let Some(f) = &result.summaries {
        println!(
            "summaries: {} functions, {} input/output pairs, {} re-covers under a caller's constants, {} callee queries, {} queries with summaries, {:.1}s in the solver{}",
            f.functions,
            f.pairs,
            f.refinements,
            f.callee_queries,
            f.queries,
            f.solver_time.as_secs_f64(),
            f.note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default()
        );
    }
    for (e, t) in &result.errors {
        println!("error {} at {} (test {})", e.kind.name(), program.describe_loc(e.loc), file_name(*t));
    }
    println!("suite: {}", suite_dir.display());
    Ok(if result.errors.is_empty() { 0 } else { 1 })
}

fn make_report(
    program: &Program,
    goals: &Goals,
    r: &BmcResult,
    program_args: &ProgramArgs,
    flags: &BmcFlags,
    producer: &str,
    interrupted: bool,
) -> Report {
    let k = flags.unwind;
    let mut report = Report {
        program: program_args.file.display().to_string(),
        producer: producer.into(),
        property: "coverage-branches".into(),
        data_model: program.data_model.to_string(),
        search: format!("bmc {:?} unwind {k}", flags.cover).to_lowercase(),
        status: if interrupted { "interrupted" } else { "finished" }.into(),
        stop_reason: if r.unsupported.is_some() {
            "Unsupported".into()
        } else if r.complete {
            "Exhausted".into()
        } else {
            "Time".into()
        },
        ..Report::default()
    };
    report.goals = goals
        .goals
        .iter()
        .map(|(id, g)| {
            let func = match g.kind {
                GoalKind::Edge { func, .. } | GoalKind::Error { func, .. } => func,
            };
            let (status, proved_by, test) = match r.verdicts[id.index()] {
                GoalVerdict::Covered(t) => ("covered", None, Some(file_name(t))),
                GoalVerdict::Unreachable => (
                    "unreachable",
                    Some(format!("bmc: no execution within unwinding {k} reaches it and none needs more (unbounded)")),
                    None,
                ),
                GoalVerdict::InfeasibleWithin(b) => ("infeasible", Some(format!("bmc: infeasible within unwinding {b}")), None),
                GoalVerdict::Open => ("open", None, None),
            };
            GoalEntry {
                id: id.to_string(),
                kind: goals.describe(id),
                location: program.describe_loc(g.loc),
                function: program.funcs[func].name.clone(),
                status: status.into(),
                proved_by,
                test,
            }
        })
        .collect();
    report.goals_total = goals.len();
    report.goals_covered = report.goals.iter().filter(|g| g.status == "covered").count();
    report.goals_unreachable = report.goals.iter().filter(|g| g.status == "unreachable").count();
    report.goals_infeasible = report.goals.iter().filter(|g| g.status == "infeasible").count();
    report.errors = r
        .tests
        .iter()
        .filter_map(|t| {
            t.error.map(|e| ErrorEntry { kind: e.kind.name().into(), location: program.describe_loc(e.loc), test: file_name(t.index) })
        })
        .collect();
    report.tests = r
        .tests
        .iter()
        .map(|t| TestEntry {
            file: file_name(t.index),
            new_goals: t.new_goals.iter().map(|g| g.to_string()).collect(),
            covers: t.covered.iter().map(|g| g.to_string()).collect(),
            outcome: super::run::describe_outcome(program, &t.outcome),
            found_at_s: t.at,
        })
        .collect();
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    report.engine = EngineFigures {
        replays: r.replays,
        queries: r.cover.queries,
        sat: r.cover.sat,
        unsat: r.cover.unsat,
        unknown: r.cover.unknown,
        divergences: r.divergences,
        expressions: r.vc_terms,
        elapsed_s: r.elapsed.as_secs_f64(),
        solver_s: r.cover.solver_time.as_secs_f64(),
        queries_per_s: r.cover.queries as f64 / secs,
        solver_share: r.cover.solver_time.as_secs_f64() / secs,
        layers: vec![LayerFigures {
            layer: "z3".into(),
            queries: r.cover.queries,
            hits: 0,
            time_s: r.cover.solver_time.as_secs_f64(),
        }],
        ..EngineFigures::default()
    };
    report
}

/// Creates the suite directory, removing the tests of an earlier run (as
/// the concolic engine does).
fn prepare_out_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        for e in std::fs::read_dir(dir)?.filter_map(|e| e.ok()) {
            if e.path().extension().is_some_and(|x| x == "xml") {
                std::fs::remove_file(e.path()).with_context(|| format!("cannot clear {}", dir.display()))?;
            }
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}
