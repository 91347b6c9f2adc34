//! Engine tests: small C programs whose expected results are written in
//! the file (`//! error KIND at LINE`: some test reaches that error there;
//! `//! branches all`: every branch outcome is covered). Every kept test
//! is replayed in the interpreter and must cover exactly the goals the
//! engine recorded for it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_concolic::{generate, GenSettings, SearchKind};
use walkdown_frontend::FrontendSettings;
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::goals::{GoalKind, Goals};
use walkdown_ir::Program;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

fn lower(path: &Path) -> Program {
    walkdown_frontend::compile_c(path, &FrontendSettings::default()).expect("fixture lowers")
}

fn settings(search: SearchKind, program: &Program) -> GenSettings {
    // No mutants: these fixtures test what the symbolic reasoning finds.
    // Trip-count forms as `walkdown gen` computes them by default.
    let loop_forms = walkdown_absint::trip_count_forms(&walkdown_absint::analyze_relational(program));
    GenSettings {
        time: Duration::from_secs(20),
        search,
        random_fallback: false,
        mutation_share: 0.0,
        loop_forms,
        ..GenSettings::default()
    }
}

/// Checks one fixture's expectations; returns a list of failures.
fn check(path: &Path, search: &SearchKind) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("fixture readable");
    let program = lower(path);
    let goals = Goals::compute(&program);
    let result = generate(&program, &goals, &settings(search.clone(), &program), &AtomicBool::new(false))
        .expect("generation runs");
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut failures = Vec::new();

    // Replays agree with the ledger.
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let mut covered = vec![false; goals.len()];
    for t in &result.tests {
        let r = interp.run(&t.vector, &RunOptions::default());
        if r.covered != t.covered {
            failures.push(format!("{name}: test {} replays to other goals", t.index));
        }
        for g in &r.covered {
            covered[walkdown_ir::entity::EntityRef::index(*g)] = true;
        }
    }

    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("//! ") else { continue };
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            ["error", kind, "at", at] => {
                let at: u32 = at.parse().expect("line number");
                if !result.errors.iter().any(|(e, _)| e.kind.name() == *kind && e.loc.line == at) {
                    failures.push(format!("{name}: no test reaches {kind} at line {at} ({:?})", result.errors));
                }
            }
            ["branches", "all"] => {
                for (id, g) in goals.goals.iter() {
                    if matches!(g.kind, GoalKind::Edge { .. }) && !covered[walkdown_ir::entity::EntityRef::index(id)] {
                        failures.push(format!("{name}: {} at line {} not covered", goals.describe(id), g.loc.line));
                    }
                }
            }
            _ => panic!("{name}: unknown expectation `{rest}`"),
        }
    }
    failures
}

#[test]
fn fixtures_meet_their_expectations() {
    let mut failures = Vec::new();
    for path in fixtures() {
        failures.extend(check(&path, &GenSettings::default().search));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_search_order_finds_the_magic_error() {
    let magic = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/magic.c");
    for s in ["dfs", "bfs", "random-branch", "uniform-random", "cfg-distance", "dfs+random-branch"] {
        let failures = check(&magic, &SearchKind::parse(s).unwrap());
        assert!(failures.is_empty(), "--search {s}: {}", failures.join("\n"));
    }
}

/// The trip-count symbols are what reaches the targets of the two trip
/// fixtures: with them a handful of executions suffice; without them (and
/// without loop acceleration) 200 executions do not.
#[test]
fn trip_count_symbols_reach_loop_dependent_targets() {
    for name in ["trip_counter.c", "trip_nested.c"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let program = lower(&path);
        let goals = Goals::compute(&program);
        let reached = |loop_forms: bool| {
            let mut s = settings(SearchKind::Bfs, &program);
            if !loop_forms {
                s.loop_forms.clear();
            }
            s.trace.accelerate = false;
            s.max_executions = Some(200);
            let result = generate(&program, &goals, &s, &AtomicBool::new(false)).expect("runs");
            (!result.errors.is_empty(), result.stats.executions, result.stats.queries)
        };
        let (with, execs, queries) = reached(true);
        assert!(with, "{name}: not reached with trip counts ({execs} executions, {queries} queries)");
        assert!(execs <= 20, "{name}: {execs} executions with trip counts");
        let (without, execs, _) = reached(false);
        assert!(!without, "{name}: reached without trip counts in {execs} executions (the fixture no longer tests them)");
    }
}
