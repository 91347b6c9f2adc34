//! Engine fixtures: small C files (`tests/fixtures/*.c`) stating what the
//! bounded engine must report. In the file:
//!
//! - `//! unwind K`: the bound;
//! - `//! expect LINE LABEL STATUS`: the goal at LINE with that label
//!   (`true`, `false`, `case N`, `case default`, `error KIND`) has that
//!   verdict (`covered`, `unreachable`, `infeasible`, `open`); LINE is a
//!   number or `@MARK` for the line holding the comment `/* MARK */`;
//! - `//! others covered`: every other branch outcome is covered.
//!
//! Every test the engine keeps is replayed here once more by the
//! interpreter and must cover what the engine says it covers. Each file
//! runs with every algorithm, and with statement cover after a summary
//! phase (`summaries.c` checks that phase did its work).

mod common;

use walkdown_bmc::engine::settings_with;
use walkdown_bmc::{BmcSettings, CoverAlgorithm, GoalVerdict};
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalKind;
use walkdown_ir::DataModel;

fn verdict_name(v: GoalVerdict) -> &'static str {
    match v {
        GoalVerdict::Covered(_) => "covered",
        GoalVerdict::Unreachable => "unreachable",
        GoalVerdict::InfeasibleWithin(_) => "infeasible",
        GoalVerdict::Open => "open",
    }
}

fn check(path: &std::path::Path, alg: CoverAlgorithm, summaries: bool) -> Vec<String> {
    let name = format!(
        "{} ({}{})",
        path.file_name().unwrap().to_string_lossy(),
        alg.name(),
        if summaries { ", summaries" } else { "" }
    );
    let text = std::fs::read_to_string(path).unwrap();
    let line_of = |tok: &str| walkdown_testsupport::fixture_line(&text, tok);
    let k: u32 = text.lines().find_map(|l| l.strip_prefix("//! unwind ")).map_or(2, |v| v.trim().parse().unwrap());
    let program = common::load(path, DataModel::LP64);
    let settings = BmcSettings { summaries, ..settings_with(alg, k) };
    let (goals, r) = common::run(&program, &settings);
    if summaries && path.ends_with("summaries.c") {
        let f = r.summaries.clone().unwrap_or_default();
        if f.functions != 1 || f.pairs < 2 || f.refinements < 1 {
            failures_early(&name, &f);
        }
    }
    let mut failures = Vec::new();
    if let Some(e) = &r.unsupported {
        return vec![format!("{name}: unsupported: {e}")];
    }
    let mut listed = vec![false; goals.len()];
    for l in text.lines() {
        let Some(rest) = l.strip_prefix("//! expect ") else { continue };
        let toks: Vec<&str> = rest.split_whitespace().collect();
        let line = line_of(toks[0]);
        let status = *toks.last().unwrap();
        let label = toks[1..toks.len() - 1].join(" ");
        let want = if label == "true" || label == "false" { format!("branch {label}") } else { label.clone() };
        let found: Vec<_> = goals.goals.iter().filter(|(id, g)| g.loc.line == line && goals.describe(*id) == want).collect();
        if found.is_empty() {
            failures.push(format!("{name}: no goal `{want}` at line {line}"));
        }
        for (id, _) in found {
            listed[id.index()] = true;
            let got = verdict_name(r.verdicts[id.index()]);
            if got != status {
                failures.push(format!("{name}: {want} at line {line}: expected {status}, got {got}"));
            }
        }
    }
    if text.contains("//! others covered") {
        for (id, g) in goals.goals.iter() {
            if listed[id.index()] || !matches!(g.kind, GoalKind::Edge { .. }) {
                continue;
            }
            if !matches!(r.verdicts[id.index()], GoalVerdict::Covered(_)) {
                failures.push(format!(
                    "{name}: {} at line {} is {}, expected covered",
                    goals.describe(id),
                    g.loc.line,
                    verdict_name(r.verdicts[id.index()])
                ));
            }
        }
    }
    // The judge again: each kept test covers what the engine claims.
    let interp = Interpreter::new(&program, &goals).unwrap();
    for t in &r.tests {
        let replay = interp.run(&t.vector, &RunOptions::default());
        if replay.covered != t.covered {
            failures.push(format!("{name}: test {} replays to other goals", t.index));
        }
    }
    failures
}

fn failures_early(name: &str, f: &walkdown_bmc::summary::SummaryFigures) {
    panic!("{name}: expected one summarized function with at least two pairs and a refinement, got {f:?}");
}

#[test]
fn fixtures_report_what_they_state() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        for alg in CoverAlgorithm::ALL {
            failures.extend(check(f, alg, false));
        }
        failures.extend(check(f, CoverAlgorithm::Statements, true));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
