//! Soundness of the model checker's claims on the benchmark corpus: for
//! every seed and public task under `../shared/bench`, the checker runs
//! alone for 2 s, and no goal it proves unreachable is covered by any of up
//! to 10,000 seeded random input vectors run in the interpreter (1,000,000
//! steps per run, 1.5 s per program; `WALKDOWN_SOUNDNESS_BUDGET_S` raises
//! that for a full run). Spacer's solution, read back, is also checked
//! for inductiveness under our own encoding (printed per program: `inductive`
//! or why not; a reader that drops what it cannot read may weaken it).
//! Prints a line per program. Skips with a message when `../shared` is
//! absent.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use walkdown_campaign::Verdict;
use walkdown_cegar::{run_horn, HornEngineSettings};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, RunOptions};
use walkdown_ir::goals::{GoalId, Goals};

const VECTORS: usize = 10_000;

fn random_budget() -> Duration {
    std::env::var("WALKDOWN_SOUNDNESS_BUDGET_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_millis(1500), Duration::from_secs_f64)
}

fn check_program(prog: &walkdown_testsupport::CorpusProgram, failures: &Mutex<Vec<String>>) -> String {
    let fs = FrontendSettings { data_model: prog.data_model, ..Default::default() };
    let Ok(ir) = compile_c(&prog.path, &fs) else {
        return format!("{:<50} skipped: frontend", prog.name);
    };
    let goals = Goals::compute(&ir);
    let t0 = Instant::now();
    let (snap, mut engine) =
        match run_horn(&ir, &goals, HornEngineSettings::default(), Duration::from_secs(2), &AtomicBool::new(false)) {
            Ok(r) => r,
            Err(e) => return format!("{:<50} skipped: {e}", prog.name),
        };
    let took = t0.elapsed();
    let claimed: BTreeSet<GoalId> = goals
        .goals
        .keys()
        .filter(|g| matches!(&snap.goals[g.index()].verdict, Verdict::Unreachable(p) if p.engine == "horn"))
        .collect();
    let interp = Interpreter::new(&ir, &goals).expect("interpretable");
    let mut found = Vec::new();
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
                        "{}: goal {g} ({}) claimed unreachable by horn but covered by a run",
                        prog.name,
                        goals.describe(g)
                    ));
                }
            }
        }
    }
    failures.lock().unwrap().extend(found);
    let certificate = match engine.certificate.as_mut() {
        Some(c) => {
            let r = c.check(&[], &[], Duration::from_secs(5));
            if r.valid {
                "inductive".to_string()
            } else {
                format!("not inductive: {}", r.failure)
            }
        }
        None => "no certificate".to_string(),
    };
    format!(
        "{:<50} goals {:>4} covered {:>4} unreachable {:>3} {:>7.2?} vectors {runs}  {}; {certificate}",
        prog.name,
        goals.len(),
        snap.count("covered"),
        claimed.len(),
        took,
        engine.end
    )
}

use walkdown_ir::entity::EntityRef;

#[test]
fn horn_unreachable_claims_are_never_covered_on_the_corpus() {
    let Some(corpus) = walkdown_testsupport::corpus("horn_unreachable_claims_are_never_covered_on_the_corpus") else {
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
    eprintln!("total: {claims} goals claimed unreachable by horn");
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
