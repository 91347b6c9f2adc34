//! The explicit-state engine on small programs that carry their
//! expectations: a state machine over globals with inputs from {1..6}
//! whose error is unreachable is proved (every branch outcome settled);
//! one whose error is reachable gets a test that the interpreter replays
//! to it; a state that grows with the inputs, and a global that keeps a
//! 32-bit input, make the engine give up with no proof.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use walkdown_campaign::{Snapshot, Verdict};
use walkdown_cegar::explicit::SearchSettings;
use walkdown_cegar::{run_explicit, ExplicitEngine, ExplicitSettings};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{ErrorSite, GoalKind, Goals};
use walkdown_ir::CheckKind;

fn run(file: &str, settings: ExplicitSettings) -> (Goals, Snapshot, ExplicitEngine) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/explicit").join(file);
    let program = walkdown_frontend::compile_c(&path, &walkdown_frontend::FrontendSettings::default()).unwrap();
    let goals = Goals::compute(&program);
    let stop = AtomicBool::new(false);
    let (snap, engine) = run_explicit(&program, &goals, settings, Duration::from_secs(20), &stop).unwrap();
    (goals, snap, engine)
}

fn reach_error_verdicts(goals: &Goals, snap: &Snapshot) -> Vec<Verdict> {
    let verdicts: Vec<Verdict> = goals
        .goals
        .iter()
        .filter(|(_, g)| matches!(g.kind, GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. }))
        .map(|(id, _)| snap.goals[id.index()].verdict.clone())
        .collect();
    assert!(!verdicts.is_empty());
    verdicts
}

fn proofs(snap: &Snapshot) -> usize {
    snap.goals.iter().filter(|g| matches!(&g.verdict, Verdict::Unreachable(_))).count()
}

#[test]
fn a_state_machine_whose_error_is_unreachable_is_proved() {
    let (goals, snap, engine) = run("machine_safe.c", ExplicitSettings::default());
    assert!(engine.end.starts_with("complete"), "{}", engine.end);
    for v in reach_error_verdicts(&goals, &snap) {
        let Verdict::Unreachable(p) = &v else { panic!("not proved: {v:?} ({})", engine.end) };
        assert_eq!(p.engine, "explicit");
        assert!(p.method.contains("explicit-state search") && p.method.contains("frontier empty"), "{}", p.method);
    }
    // Every branch outcome is settled: covered by a replayed test or proved.
    for (id, g) in goals.goals.iter() {
        if matches!(g.kind, GoalKind::Edge { .. }) {
            let v = &snap.goals[id.index()].verdict;
            assert!(matches!(v, Verdict::Covered { .. } | Verdict::Unreachable(_)), "{}: {v:?}", goals.describe(id));
        }
    }
    assert!(snap.conflicts.is_empty(), "{:?}", snap.conflicts);
}

#[test]
fn a_reachable_error_gets_a_replayed_test() {
    let (goals, snap, engine) = run("machine_unsafe.c", ExplicitSettings::default());
    for v in reach_error_verdicts(&goals, &snap) {
        assert!(matches!(v, Verdict::Covered { .. }), "not covered: {v:?} ({})", engine.end);
    }
    assert!(snap.conflicts.is_empty(), "{:?}", snap.conflicts);
}

#[test]
fn state_that_grows_with_the_inputs_makes_the_engine_give_up() {
    let settings = ExplicitSettings {
        search: SearchSettings { max_states: 2_000, ..SearchSettings::default() },
        ..ExplicitSettings::default()
    };
    let (_, snap, engine) = run("growth.c", settings);
    assert!(engine.end.contains("gave up") && engine.end.contains("more than 2000 states"), "{}", engine.end);
    assert_eq!(proofs(&snap), 0, "{}", engine.end);
}

#[test]
fn a_global_that_keeps_an_input_makes_the_engine_give_up() {
    let (_, snap, engine) = run("keeps_input.c", ExplicitSettings::default());
    assert!(engine.end.contains("gave up") && engine.end.contains("depends on the inputs"), "{}", engine.end);
    assert_eq!(proofs(&snap), 0, "{}", engine.end);
}
