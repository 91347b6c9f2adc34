//! Soundness of the model checker's claims on the benchmark corpus: for
//! every seed and public task under `../shared/bench`, the checker runs
//! alone for 2 s, and no goal it proves unreachable is covered by any of up
//! to 10,000 seeded random input vectors run in the interpreter (1,000,000
//! steps per run, 1.5 s per program; `WALKDOWN_SOUNDNESS_BUDGET_S` raises
//! that for a full run). Every kept test replays to the goals recorded.
//! Prints a line per program. Skips with a message when `../shared` is
//! absent.

mod soundness;

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use walkdown_cegar::{run_cegar, CegarSettings};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_ir::goals::Goals;

fn check_program(prog: &walkdown_testsupport::CorpusProgram, failures: &Mutex<Vec<String>>) -> String {
    let fs = FrontendSettings { data_model: prog.data_model, ..Default::default() };
    let Ok(ir) = compile_c(&prog.path, &fs) else {
        return format!("{:<50} skipped: frontend", prog.name);
    };
    let goals = Goals::compute(&ir);
    let t0 = Instant::now();
    let (snap, engine) =
        match run_cegar(&ir, &goals, CegarSettings::default(), Duration::from_secs(2), &AtomicBool::new(false)) {
            Ok(r) => r,
            Err(e) => return format!("{:<50} skipped: {e}", prog.name),
        };
    let took = t0.elapsed();
    let claimed = soundness::claimed(&goals, &snap, "cegar");
    let (found, runs) = soundness::check_claims(&prog.name, &ir, &goals, &snap, &claimed, "cegar");
    failures.lock().unwrap().extend(found);
    soundness::summary(&prog.name, &goals, &snap, claimed.len(), took, runs, &engine.end)
}

#[test]
fn cegar_unreachable_claims_are_never_covered_on_the_corpus() {
    soundness::over_corpus("cegar_unreachable_claims_are_never_covered_on_the_corpus", "cegar", check_program);
}
