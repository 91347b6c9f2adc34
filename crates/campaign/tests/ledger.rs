//! The campaign's ledger and portfolio on a small textual IR program: tests
//! are kept only for new goals, verdicts follow the rules (a test beats a
//! bounded proof; a test that covers a proved goal is a conflict), and
//! engines on one worker take turns.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use walkdown_campaign::{
    run_portfolio, Campaign, CampaignSettings, Claim, Engine, EngineCtx, EngineEnd, EngineError, GoalClosure, KeptTest,
    OpenReason, PortfolioSettings, StopCause, TestSink, Verdict,
};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::Program;

/// `if (x > 10) { if (x < 5) DEAD } `: goals g0 (x > 10 true), g1 (false),
/// g2 (x < 5 true: dead), g3 (false).
const PROGRAM: &str = r#"datamodel LP64
file "t.c"

define @main() -> i32 !1:0 {
b0:
  v0 = nondet i32 !2:1
  v1 = cmp sgt i32 v0, i32 10 !3:1
  br v1, b1, b3 !3:1
b1:
  v2 = cmp slt i32 v0, i32 5 !4:1
  br v2, b2, b3 !4:1
b2:
  ret i32 1 !5:1
b3:
  ret i32 0 !6:1
}
"#;

fn program() -> Program {
    walkdown_ir_reader::parse_and_verify(PROGRAM).expect("the test program parses")
}

#[derive(Clone, Default)]
struct Collect(Arc<Mutex<Vec<usize>>>);

impl TestSink for Collect {
    fn test(&mut self, test: &KeptTest) -> Result<(), String> {
        self.0.lock().unwrap().push(test.index);
        Ok(())
    }
}

fn vector(x: i128) -> TestVector {
    TestVector { values: vec![InputValue::Int(x)] }
}

fn goal(i: usize) -> GoalId {
    walkdown_ir::entity::EntityRef::new(i)
}

#[test]
fn the_ledger_keeps_only_tests_with_new_goals_and_writes_them_at_once() {
    let p = program();
    let goals = Goals::compute(&p);
    assert_eq!(goals.len(), 4);
    let sink = Collect::default();
    let stop = AtomicBool::new(false);
    let c = Campaign::new(&p, &goals, CampaignSettings::default(), Box::new(sink.clone()), &stop).unwrap();
    let first = c.submit("e", &vector(0));
    assert_eq!(first.kept, Some(0));
    assert_eq!(c.submit("e", &vector(1)).kept, None, "same path, nothing new");
    assert_eq!(c.submit("e", &vector(20)).kept, Some(1));
    assert_eq!(*sink.0.lock().unwrap(), vec![0, 1], "kept tests reach the sink at once");
    let snap = c.snapshot();
    assert_eq!(snap.tests[1].engine, "e");
    assert_eq!(snap.count("covered"), 3);
    assert_eq!(snap.goals[2].verdict, Verdict::Open);
}

#[test]
fn verdicts_follow_the_rules_and_conflicts_are_recorded() {
    let p = program();
    let goals = Goals::compute(&p);
    let stop = AtomicBool::new(false);
    let c = Campaign::new(&p, &goals, CampaignSettings::default(), Box::new(Collect::default()), &stop).unwrap();
    let epoch = c.epoch();
    // A bounded claim does not close a goal; a deeper one replaces it; a
    // test beats it without a conflict.
    c.claim("b", goal(0), Claim::Infeasible { bound: "unwinding 1".into(), depth: 1 });
    c.claim("b", goal(0), Claim::Infeasible { bound: "unwinding 4".into(), depth: 4 });
    c.claim("b", goal(0), Claim::Infeasible { bound: "unwinding 2".into(), depth: 2 });
    match &c.snapshot().goals[0].verdict {
        Verdict::Infeasible(b) => assert_eq!(b.depth, 4),
        v => panic!("expected infeasible, got {v:?}"),
    }
    assert_eq!(c.closures()[0], GoalClosure::Open);
    assert_eq!(c.epoch(), epoch, "bounded claims close nothing");
    c.submit("t", &vector(20));
    assert!(matches!(c.snapshot().goals[0].verdict, Verdict::Covered { .. }));
    assert!(c.snapshot().conflicts.is_empty());

    // The dead goal: proved, closed; open reasons dropped.
    c.note_open("b", goal(2), OpenReason::SolverUnknown);
    assert_eq!(c.snapshot().goals[2].open_reasons.len(), 1);
    c.claim("p", goal(2), Claim::Unreachable { method: "m".into() });
    assert_eq!(c.closures()[2], GoalClosure::Proved);
    assert!(c.snapshot().goals[2].open_reasons.is_empty());
    assert!(c.epoch() > epoch);

    // A wrong proof of a covered goal is a conflict, and so is a test that
    // covers a goal after a wrong proof.
    c.claim("liar", goal(3), Claim::Unreachable { method: "wrong".into() });
    c.submit("t", &vector(11)); // x > 10 and not x < 5: covers g3
    c.claim("liar", goal(0), Claim::Unreachable { method: "also wrong".into() });
    let snap = c.snapshot();
    assert_eq!(snap.conflicts.len(), 2, "{:?}", snap.conflicts);
    assert_eq!(snap.conflicts[0].goal, goal(3));
    assert_eq!(snap.conflicts[0].proof.engine, "liar");
    assert!(matches!(snap.goals[3].verdict, Verdict::Covered { .. }), "the test wins");

    // The timeline followed every change: it starts with every goal open,
    // ends at the snapshot's counts, and its times never go back.
    let first = snap.timeline[0];
    assert_eq!((first.at_s, first.counts.open), (0.0, 4));
    let last = snap.timeline.last().unwrap().counts;
    let counts = [last.covered, last.unreachable, last.infeasible, last.open];
    let want = ["covered", "unreachable", "infeasible", "open"].map(|w| snap.count(w));
    assert_eq!(counts, want, "{:?}", snap.timeline);
    assert!(snap.timeline.windows(2).all(|w| w[0].at_s <= w[1].at_s));
}

#[test]
fn the_campaign_stops_when_every_goal_is_settled() {
    let p = program();
    let goals = Goals::compute(&p);
    let stop = AtomicBool::new(false);
    let c = Campaign::new(&p, &goals, CampaignSettings::default(), Box::new(Collect::default()), &stop).unwrap();
    c.claim("p", goal(2), Claim::Unreachable { method: "m".into() });
    c.submit("t", &vector(0));
    assert!(!c.stopped());
    c.submit("t", &vector(20));
    assert!(c.stopped());
    assert_eq!(c.stop_cause(), Some(StopCause::AllClosed));
}

/// An engine that charges a fixed amount of work per step until told to
/// stop, and records each step's engine.
struct Spinner {
    name: &'static str,
    ticks_per_step: u64,
    steps: Arc<Mutex<Vec<&'static str>>>,
}

impl Engine for Spinner {
    fn name(&self) -> &'static str {
        self.name
    }
    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        while ctx.checkpoint() {
            self.steps.lock().unwrap().push(self.name);
            ctx.charge(self.ticks_per_step);
            std::thread::sleep(Duration::from_micros(300));
        }
        Ok(EngineEnd::new("stopped"))
    }
}

/// Runs two spinners on one worker for 1.2 s, `b`'s steps three times as
/// expensive as `a`'s; returns the engine of each step.
fn take_turns(shares: &[f64]) -> Vec<&'static str> {
    let p = program();
    let goals = Goals::compute(&p);
    let stop = AtomicBool::new(false);
    let budget = Duration::from_millis(1200);
    let settings = CampaignSettings { time: budget, ..CampaignSettings::default() };
    let c = Campaign::new(&p, &goals, settings, Box::new(Collect::default()), &stop).unwrap();
    let steps = Arc::new(Mutex::new(Vec::new()));
    let engines: Vec<Box<dyn Engine>> = vec![
        Box::new(Spinner { name: "a", ticks_per_step: 1_000, steps: Arc::clone(&steps) }),
        Box::new(Spinner { name: "b", ticks_per_step: 3_000, steps: Arc::clone(&steps) }),
    ];
    // A turn is worth 30,000 ticks: 30 steps of a, 10 of b.
    let portfolio = PortfolioSettings { jobs: 1, slice: Duration::from_millis(30), ..PortfolioSettings::default() };
    let ends = run_portfolio(&c, engines, shares, &portfolio, &mut |_| {});
    assert!(ends.iter().all(|e| e.is_ok()));
    let snap = c.snapshot();
    let time = |n: &str| snap.engines.iter().find(|e| e.name == n).unwrap().time.as_secs_f64();
    let (a, b) = (time("a"), time("b"));
    assert!(
        a + b < budget.as_secs_f64() + 0.3,
        "one worker: the times add up to the budget, not twice it: {a:.2} + {b:.2}"
    );
    let steps = steps.lock().unwrap().clone();
    steps
}

/// Work charged by each spinner, and the order of turns.
fn work_and_turns(steps: &[&'static str]) -> (u64, u64, Vec<&'static str>) {
    let a = steps.iter().filter(|s| **s == "a").count() as u64 * 1_000;
    let b = steps.iter().filter(|s| **s == "b").count() as u64 * 3_000;
    let mut turns = steps.to_vec();
    turns.dedup();
    (a, b, turns)
}

#[test]
fn engines_on_one_worker_take_turns_by_work_reproducibly() {
    let steps = take_turns(&[]);
    let (a, b, turns) = work_and_turns(&steps);
    assert!(turns.len() >= 6, "engines should alternate many times: {turns:?}");
    // Equal shares of work, within a turn, though b's steps cost more.
    assert!(a.abs_diff(b) <= 33_000, "work a {a}, b {b}");
    // The same steps on a second run, up to where the budget cut either.
    let again = take_turns(&[]);
    let common = steps.len().min(again.len());
    assert_eq!(steps[..common], again[..common], "turns are decided by work, not wall time");
    // Shares weigh the work: b gets three times a's.
    let (a, b, _) = work_and_turns(&take_turns(&[1.0, 3.0]));
    assert!(b.abs_diff(3 * a) <= 66_000, "shares 1:3: work a {a}, b {b}");
}

#[test]
fn a_panicking_engine_fails_alone() {
    struct Panics;
    impl Engine for Panics {
        fn name(&self) -> &'static str {
            "panics"
        }
        fn run(&mut self, _: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
            panic!("boom")
        }
    }
    struct Covers;
    impl Engine for Covers {
        fn name(&self) -> &'static str {
            "covers"
        }
        fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
            ctx.submit(&vector(20));
            Ok(EngineEnd::new("done"))
        }
    }
    let p = program();
    let goals = Goals::compute(&p);
    let stop = AtomicBool::new(false);
    let c = Campaign::new(&p, &goals, CampaignSettings::default(), Box::new(Collect::default()), &stop).unwrap();
    let ends =
        run_portfolio(&c, vec![Box::new(Panics), Box::new(Covers)], &[], &PortfolioSettings::default(), &mut |_| {});
    assert!(ends[0].as_ref().unwrap_err().0.contains("boom"));
    assert!(ends[1].is_ok());
    assert_eq!(c.snapshot().tests.len(), 1);
    assert_eq!(c.stop_cause(), Some(StopCause::EnginesDone));
}

/// `if (x > 10) reach_error();` with a second branch after it, so a later
/// test reaching the error can cover a new goal: `if (x > 20)`.
const ERROR_PROGRAM: &str = r#"datamodel LP64
file "e.c"

declare @reach_error()

define @main() -> i32 !1:0 {
b0:
  v0 = nondet i32 !2:1
  v1 = cmp sgt i32 v0, i32 20 !3:1
  br v1, b1, b2 !3:1
b1:
  br v1, b2, b2 !4:1
b2:
  v2 = cmp sgt i32 v0, i32 10 !5:1
  br v2, b3, b4 !5:1
b3:
  call void @reach_error() !6:1
  ret i32 1 !6:1
b4:
  ret i32 0 !7:1
}
"#;

/// A native check that refutes the error for the values in `refuted`
/// (one counter of runs).
struct FakeNative {
    refuted: Vec<i128>,
    runs: Arc<Mutex<usize>>,
}

impl walkdown_campaign::ErrorCheck for FakeNative {
    fn check(&self, vector: &TestVector, _: &walkdown_campaign::ErrorFound) -> walkdown_campaign::NativeVerdict {
        *self.runs.lock().unwrap() += 1;
        match vector.values.first() {
            Some(InputValue::Int(x)) if self.refuted.contains(x) => {
                walkdown_campaign::NativeVerdict::Refuted("exit 0 natively".into())
            }
            _ => walkdown_campaign::NativeVerdict::Confirmed,
        }
    }
}

/// An error the native run does not reproduce is kept, marked
/// unconfirmed with the native outcome, and does not stop a
/// `coverage-error` campaign; the first later test that confirms it takes
/// its place and stops it; tests of a settled error site are not run
/// natively again.
#[test]
fn unconfirmed_errors_are_kept_marked_and_replaced_by_confirmed_ones() {
    let p = walkdown_ir_reader::parse_and_verify(ERROR_PROGRAM).expect("the test program parses");
    let goals = Goals::compute(&p);
    let stop = AtomicBool::new(false);
    let settings = CampaignSettings { property: walkdown_campaign::Property::CoverError, ..Default::default() };
    let runs = Arc::new(Mutex::new(0));
    let check = FakeNative { refuted: vec![11, 12], runs: runs.clone() };
    let c = Campaign::new(&p, &goals, settings, Box::new(Collect::default()), &stop)
        .unwrap()
        .with_error_check(Box::new(check));
    assert_eq!(c.submit("e", &vector(0)).kept, Some(0), "no error: not run natively");
    assert_eq!(*runs.lock().unwrap(), 0);
    assert_eq!(c.submit("e", &vector(11)).kept, Some(1));
    let snap = c.snapshot();
    assert_eq!(snap.errors.len(), 1);
    assert_eq!(snap.native(1), walkdown_campaign::NativeVerdict::Refuted("exit 0 natively".into()));
    assert_eq!(snap.counted_errors().count(), 0);
    assert!(!c.stopped(), "an unconfirmed error does not stop coverage-error");
    assert_eq!(c.submit("e", &vector(12)).kept, None, "refuted again, nothing new");
    assert_eq!(c.submit("e", &vector(21)).kept, Some(2), "confirmed: replaces the unconfirmed test");
    let snap = c.snapshot();
    assert_eq!(snap.errors.len(), 1, "one error per site");
    assert_eq!(snap.errors[0].1, 2);
    assert_eq!(snap.native(2), walkdown_campaign::NativeVerdict::Confirmed);
    assert_eq!((snap.confirmed_count, snap.unconfirmed_count), (1, 2));
    assert_eq!(c.stop_cause(), Some(StopCause::ErrorReached));
    let before = *runs.lock().unwrap();
    c.submit("e", &vector(30));
    assert_eq!(*runs.lock().unwrap(), before, "a confirmed site is not run natively again");
}

/// Without a native check (unit mode, embedders) errors are unchecked and
/// count: the campaign stops at the first `reach_error` as it always did.
#[test]
fn without_a_native_check_errors_are_unchecked_and_count() {
    let p = walkdown_ir_reader::parse_and_verify(ERROR_PROGRAM).expect("the test program parses");
    let goals = Goals::compute(&p);
    let stop = AtomicBool::new(false);
    let settings = CampaignSettings { property: walkdown_campaign::Property::CoverError, ..Default::default() };
    let c = Campaign::new(&p, &goals, settings, Box::new(Collect::default()), &stop).unwrap();
    assert_eq!(c.submit("e", &vector(11)).kept, Some(0));
    let snap = c.snapshot();
    assert_eq!(snap.native(0).word(), "unchecked");
    assert_eq!(snap.counted_errors().count(), 1);
    assert_eq!(c.stop_cause(), Some(StopCause::ErrorReached));
}
