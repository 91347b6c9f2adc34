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

mod soundness;

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use walkdown_cegar::{run_horn, HornEngineSettings};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_ir::goals::Goals;

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
    let claimed = soundness::claimed(&goals, &snap, "horn");
    let (found, runs) = soundness::check_claims(&prog.name, &ir, &goals, &snap, &claimed, "horn");
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
    format!("{}; {certificate}", soundness::summary(&prog.name, &goals, &snap, claimed.len(), took, runs, &engine.end))
}

#[test]
fn horn_unreachable_claims_are_never_covered_on_the_corpus() {
    soundness::over_corpus("horn_unreachable_claims_are_never_covered_on_the_corpus", "horn", check_program);
}
