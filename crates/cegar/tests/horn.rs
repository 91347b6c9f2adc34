//! The Horn-clause engine on small programs: a loop whose safety needs an
//! invariant relating two counters is proved, with a certificate that our
//! own encoding confirms inductive; an error reached after a few
//! iterations is never claimed.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use walkdown_campaign::Verdict;
use walkdown_cegar::{run_horn, HornEngineSettings};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{ErrorSite, GoalKind, Goals};
use walkdown_ir::CheckKind;

fn reach_error_verdicts(file: &str, secs: u64) -> (Vec<Verdict>, walkdown_cegar::HornEngine) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/horn").join(file);
    let program = walkdown_frontend::compile_c(&path, &walkdown_frontend::FrontendSettings::default()).unwrap();
    let goals = Goals::compute(&program);
    let stop = AtomicBool::new(false);
    let (snap, engine) =
        run_horn(&program, &goals, HornEngineSettings::default(), Duration::from_secs(secs), &stop).unwrap();
    let verdicts = goals
        .goals
        .iter()
        .filter(|(_, g)| matches!(g.kind, GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. }))
        .map(|(id, _)| snap.goals[id.index()].verdict.clone())
        .collect();
    (verdicts, engine)
}

#[test]
fn a_relational_loop_invariant_proves_the_error_dead() {
    let (verdicts, mut engine) = reach_error_verdicts("sum.c", 20);
    assert!(!verdicts.is_empty());
    for v in &verdicts {
        assert!(matches!(v, Verdict::Unreachable(p) if p.engine == "horn"), "{v:?} ({})", engine.end);
    }
    let certificate = engine.certificate.as_mut().expect("a certificate of the proof");
    let report = certificate.check(&[], &[], Duration::from_secs(10));
    assert!(report.valid, "Spacer's solution is not inductive under our encoding: {}", report.failure);
    assert!(report.queries > 0);
}

#[test]
fn a_reachable_error_is_not_claimed() {
    let (verdicts, engine) = reach_error_verdicts("reachable.c", 4);
    assert!(!verdicts.is_empty());
    for v in &verdicts {
        assert!(!matches!(v, Verdict::Unreachable(_)), "claimed a reachable error: {v:?} ({})", engine.end);
    }
    eprintln!("{}", engine.end);
}
