//! Engine fixtures: small C files (`tests/fixtures/*.c`) stating what the
//! model checker must report, alone, within 20 s. In the file:
//!
//! - `//! expect LINE LABEL STATUS`: the goal at LINE with that label
//!   (`true`, `false`, `case N`, `case default`, `error KIND`) has that
//!   verdict (`covered`, `unreachable`, `open`); LINE is a number or
//!   `@MARK` for the line holding the comment `/* MARK */`;
//! - `//! others covered`: every other branch outcome is covered.
//!
//! Every kept test is replayed once more by the interpreter and must cover
//! what the campaign recorded.

use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_campaign::Verdict;
use walkdown_cegar::{run_cegar, CegarSettings};
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::goals::{GoalKind, Goals};

fn check(path: &std::path::Path, settings: &CegarSettings) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let line_of = |tok: &str| walkdown_testsupport::fixture_line(&text, tok);
    let program = walkdown_frontend::compile_c(path, &walkdown_frontend::FrontendSettings::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    walkdown_ir::verify::verify_program(&program).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let goals = Goals::compute(&program);
    let (snap, engine) = run_cegar(&program, &goals, settings.clone(), Duration::from_secs(20), &AtomicBool::new(false))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {} ({:?})", engine.end, engine.figures);
    let mut failures = Vec::new();
    let mut expected = std::collections::HashSet::new();
    for l in text.lines().filter_map(|l| l.strip_prefix("//! expect ")) {
        let parts: Vec<&str> = l.split_whitespace().collect();
        let line = line_of(parts[0]);
        let status = *parts.last().unwrap();
        let label = parts[1..parts.len() - 1].join(" ");
        let label = if label == "true" || label == "false" { format!("branch {label}") } else { label };
        let found: Vec<_> = goals.goals.iter().filter(|(id, g)| g.loc.line == line && goals.describe(*id) == label).collect();
        if found.is_empty() {
            failures.push(format!("{name}: no goal `{label}` at line {line}"));
        }
        for (id, _) in found {
            expected.insert(id);
            let got = snap.goals[id.index()].verdict.word();
            if got != status {
                failures.push(format!("{name}: line {line} {label}: expected {status}, got {got}"));
            }
            if let Verdict::Unreachable(p) = &snap.goals[id.index()].verdict {
                if p.engine != "cegar" {
                    failures.push(format!("{name}: line {line} {label}: proved by {} instead of cegar", p.engine));
                }
            }
        }
    }
    if text.contains("//! others covered") {
        for (id, g) in goals.goals.iter() {
            if matches!(g.kind, GoalKind::Edge { .. }) && !expected.contains(&id) && snap.goals[id.index()].verdict.word() != "covered" {
                failures.push(format!("{name}: line {} {}: not covered", g.loc.line, goals.describe(id)));
            }
        }
    }
    let interp = Interpreter::new(&program, &goals).unwrap();
    for t in &snap.tests {
        if interp.run(&t.vector, &RunOptions::default()).covered != t.covered {
            failures.push(format!("{name}: test {} replays to other goals", t.index));
        }
    }
    failures
}

use walkdown_ir::entity::EntityRef;

fn fixture_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    assert!(files.len() >= 3, "fixtures are missing");
    files
}

#[test]
fn fixtures_get_their_verdicts() {
    let settings = CegarSettings::default();
    let failures: Vec<String> = fixture_files().iter().flat_map(|f| check(f, &settings)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same verdicts when predicates come from unsatisfiable cores.
#[test]
fn fixtures_get_their_verdicts_with_core_refinement() {
    let mut settings = CegarSettings::default();
    settings.checker.refinement = walkdown_cegar::Refinement::Core;
    let failures: Vec<String> = fixture_files().iter().flat_map(|f| check(f, &settings)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
