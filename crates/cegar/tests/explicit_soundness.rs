//! Soundness of the explicit-state engine's claims on the benchmark
//! corpus: for every seed and public task under `../shared/bench`, the
//! engine runs alone for 10 s, and
//! - no goal it proves unreachable is covered by one of its own replayed
//!   tests (a proof conflict) or by any of up to 10,000 seeded random
//!   input vectors run in the interpreter (1,000,000 steps per run, 1.5 s
//!   per program; `WALKDOWN_SOUNDNESS_BUDGET_S` raises that);
//! - on a task whose `unreach-call` verdict is `false`, `reach_error` is
//!   never proved unreachable;
//! - every kept test replays to the goals recorded.
//!
//! Prints a line per program (how the search ended). Skips with a message
//! when `../shared` is absent (CI sets `WALKDOWN_REQUIRE_SHARED=1`, so it
//! fails there instead).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use walkdown_campaign::Verdict;
use walkdown_cegar::{run_explicit, ExplicitSettings};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::CheckKind;

const VECTORS: usize = 10_000;

fn random_budget() -> Duration {
    std::env::var("WALKDOWN_SOUNDNESS_BUDGET_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_millis(1500), Duration::from_secs_f64)
}

/// The `unreach-call` verdict of the task whose input file is `file`, from
/// the task definitions beside it (`None`: a seed, or no such property).
fn unreach_call_verdict(file: &Path) -> Option<bool> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let dir = std::fs::read_dir(file.parent()?).ok()?;
    for entry in dir.flatten() {
        let p = entry.path();
        if p.extension().is_none_or(|e| e != "yml") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let input = text.lines().find_map(|l| l.trim().strip_prefix("input_files:"));
        if input.map(|i| i.trim().trim_matches('\'').trim_matches('"')) != Some(name.as_str()) {
            continue;
        }
        let mut lines = text.lines().skip_while(|l| !l.contains("unreach-call.prp"));
        lines.next()?;
        let verdict = lines.next()?.trim().strip_prefix("expected_verdict:")?.trim().to_string();
        return Some(verdict == "true");
    }
    None
}

fn check_program(prog: &walkdown_testsupport::CorpusProgram, failures: &Mutex<Vec<String>>) -> String {
    let fs = FrontendSettings { data_model: prog.data_model, ..Default::default() };
    let Ok(ir) = compile_c(&prog.path, &fs) else {
        return format!("{:<50} skipped: frontend", prog.name);
    };
    let goals = Goals::compute(&ir);
    let t0 = Instant::now();
    let stop = AtomicBool::new(false);
    let (snap, engine) = match run_explicit(&ir, &goals, ExplicitSettings::default(), Duration::from_secs(10), &stop) {
        Ok(r) => r,
        Err(e) => return format!("{:<50} skipped: {e}", prog.name),
    };
    let took = t0.elapsed();
    let claimed: BTreeSet<GoalId> = goals
        .goals
        .keys()
        .filter(|g| matches!(&snap.goals[g.index()].verdict, Verdict::Unreachable(p) if p.engine == "explicit"))
        .collect();
    let mut found = Vec::new();
    for c in &snap.conflicts {
        found.push(format!("{}: proof conflict on goal {} ({})", prog.name, c.goal, goals.describe(c.goal)));
    }
    if unreach_call_verdict(&prog.path) == Some(false) {
        for &g in &claimed {
            if matches!(goals.goals[g].kind, GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. }) {
                found.push(format!("{}: reach_error proved unreachable on an unsafe task", prog.name));
            }
        }
    }
    let interp = Interpreter::new(&ir, &goals).expect("interpretable");
    for t in &snap.tests {
        if interp.run(&t.vector, &RunOptions::default()).covered != t.covered {
            found.push(format!("{}: test {} replays to other goals", prog.name, t.index));
        }
    }
    let mut runs = 0;
    if !claimed.is_empty() {
        let opts =
            RunOptions { limits: ExecLimits { max_steps: 1_000_000, ..Default::default() }, ..Default::default() };
        let start = Instant::now();
        let mut seen = BTreeSet::new();
        for tv in walkdown_testsupport::input_vectors(&prog.name, VECTORS) {
            if start.elapsed() > random_budget() {
                break;
            }
            runs += 1;
            for g in interp.run(&tv, &opts).covered {
                if claimed.contains(&g) && seen.insert(g) {
                    found.push(format!(
                        "{}: goal {g} ({}) claimed unreachable by explicit but covered by a run",
                        prog.name,
                        goals.describe(g)
                    ));
                }
            }
        }
    }
    failures.lock().unwrap().extend(found);
    format!(
        "{:<50} goals {:>4} covered {:>4} unreachable {:>4} {:>7.2?} vectors {runs}  {}",
        prog.name,
        goals.len(),
        snap.count("covered"),
        claimed.len(),
        took,
        engine.end
    )
}

#[test]
fn explicit_unreachable_claims_are_never_covered_on_the_corpus() {
    let Some(corpus) = walkdown_testsupport::corpus("explicit_unreachable_claims_are_never_covered_on_the_corpus")
    else {
        return;
    };
    let failures = Mutex::new(Vec::new());
    let lines = walkdown_testsupport::map_corpus(&corpus, |prog| check_program(prog, &failures));
    for l in &lines {
        eprintln!("{l}");
    }
    let claims: usize = lines
        .iter()
        .filter_map(|l| l.split("unreachable").nth(1))
        .filter_map(|r| r.split_whitespace().next()?.parse::<usize>().ok())
        .sum();
    eprintln!("total: {claims} goals claimed unreachable by explicit");
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
