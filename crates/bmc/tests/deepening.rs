//! The bounded engine as a campaign member (`BmcEngine`): iterative
//! deepening ends with unbounded verdicts once no cut point is reachable,
//! and goals infeasible within a bound behind a loop whose trip count is
//! an input are proved unreachable by the 1-induction step case. The
//! programs are in `tests/deepening/`, with the goals they expect marked.

mod common;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_bmc::{BmcEngine, DeepeningSettings};
use walkdown_campaign::{
    run_portfolio, Campaign, CampaignSettings, KeptTest, PortfolioSettings, Snapshot, TestSink, Verdict,
};
use walkdown_ir::goals::Goals;
use walkdown_ir::DataModel;

struct Discard;
impl TestSink for Discard {
    fn test(&mut self, _: &KeptTest) -> Result<(), String> {
        Ok(())
    }
}

/// Runs the engine alone for at most `secs`; returns the goals (with their
/// lines and descriptions) and the final snapshot.
fn run(file: &str, secs: u64) -> (Vec<(u32, String)>, Snapshot) {
    run_strengthened(file, secs, Strengthen::None)
}

/// What the induction step's loop heads assume.
#[derive(Clone, Copy, PartialEq)]
enum Strengthen {
    None,
    /// The relational equalities alone (what `walkdown gen` assumed before
    /// the intervals and octagons were added).
    Equalities,
    /// [`walkdown_absint::strengthen_loop_heads`].
    All,
    /// That and the candidate equalities to check, as `walkdown gen` does.
    AllAndCandidates,
}

fn run_strengthened(file: &str, secs: u64, strengthen: Strengthen) -> (Vec<(u32, String)>, Snapshot) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepening").join(file);
    let program = common::load(&path, DataModel::LP64);
    let goals = Goals::compute(&program);
    let intervals = walkdown_absint::analyze(&program);
    let relational = walkdown_absint::analyze_relational(&program);
    let strengthened = match strengthen {
        Strengthen::None => None,
        Strengthen::Equalities => Some(walkdown_absint::strengthen_loop_heads(&program, None, Some(&relational))),
        Strengthen::All | Strengthen::AllAndCandidates => {
            Some(walkdown_absint::strengthen_loop_heads(&program, Some(&intervals), Some(&relational)))
        }
    };
    let candidates = match strengthen {
        Strengthen::AllAndCandidates => walkdown_absint::candidate_loop_equalities(&program, Default::default()),
        _ => Vec::new(),
    };
    if let Some(p) = &strengthened {
        walkdown_ir::verify::verify_program(p).unwrap_or_else(|e| panic!("the strengthened program: {e}"));
        assert_eq!(Goals::compute(p).len(), goals.len(), "the assumes make no goal");
    }
    let stop = AtomicBool::new(false);
    let settings = CampaignSettings { time: Duration::from_secs(secs), ..CampaignSettings::default() };
    let campaign = Campaign::new(&program, &goals, settings, Box::new(Discard), &stop).expect("campaign");
    let mut engine = BmcEngine::new(DeepeningSettings { strengthened, candidates, ..DeepeningSettings::default() });
    let portfolio = PortfolioSettings { jobs: 1, ..PortfolioSettings::default() };
    let ends = run_portfolio(&campaign, vec![Box::new(&mut engine)], &[], &portfolio, &mut |_| {});
    assert!(ends[0].is_ok(), "{ends:?}");
    let described = goals.goals.iter().map(|(id, g)| (g.loc.line, goals.describe(id))).collect();
    (described, campaign.snapshot())
}

fn line_of(file: &str, mark: &str) -> u32 {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepening").join(file)).unwrap();
    text.lines().position(|l| l.contains(&format!("/* {mark} */"))).map(|i| i as u32 + 1).expect("mark")
}

fn verdict<'a>(goals: &[(u32, String)], snap: &'a Snapshot, line: u32, kind: &str) -> &'a Verdict {
    let i = goals
        .iter()
        .position(|(l, k)| *l == line && k == kind)
        .unwrap_or_else(|| panic!("no goal `{kind}` at line {line}"));
    &snap.goals[i].verdict
}

#[test]
fn a_loop_bounded_by_an_input_yields_proofs_by_induction() {
    let file = "input_bound.c";
    let (goals, snap) = run(file, 4);
    for mark in ["INSIDE", "AFTER"] {
        match verdict(&goals, &snap, line_of(file, mark), "error reach_error") {
            Verdict::Unreachable(p) => assert!(p.method.contains("1-induction"), "{mark}: {p}"),
            v => panic!("{mark}: expected unreachable by induction, got {v:?}"),
        }
    }
    match verdict(&goals, &snap, line_of(file, "EVEN"), "error reach_error") {
        Verdict::Infeasible(b) => assert!(b.depth >= 8, "{b}"),
        v => panic!("EVEN: expected infeasible within a bound, got {v:?}"),
    }
    assert!(snap.conflicts.is_empty());
}

#[test]
fn a_constant_loop_is_settled_by_deepening() {
    let file = "const_bound.c";
    let (goals, snap) = run(file, 20);
    match verdict(&goals, &snap, line_of(file, "DEAD"), "branch true") {
        Verdict::Unreachable(p) => assert!(p.method.contains("no cut point"), "{p}"),
        v => panic!("DEAD: expected unreachable, got {v:?}"),
    }
    assert!(matches!(verdict(&goals, &snap, line_of(file, "TEN"), "branch true"), Verdict::Covered { .. }));
    let bmc = snap.engines.iter().find(|e| e.name == "bmc").unwrap();
    assert!(bmc.status.starts_with("complete"), "{}", bmc.status);
    assert_eq!(bmc.counter("unwinding"), Some(16.0), "10 iterations need unwinding 16 of 1, 2, 4, …");
}

/// The induction step proves `level == start + moves` after the transfer
/// loop only with the intervals at its head (`left >= 0`) beside the
/// relational equality; without them the goal stays infeasible within a
/// bound.
#[test]
fn loop_head_intervals_let_induction_prove_the_transfer() {
    let file = "transfer.c";
    let line = line_of(file, "SUM");
    for strengthen in [Strengthen::None, Strengthen::Equalities] {
        let (goals, snap) = run_strengthened(file, 3, strengthen);
        assert!(
            !matches!(verdict(&goals, &snap, line, "error reach_error"), Verdict::Unreachable(_)),
            "proved without the intervals"
        );
    }
    let (goals, snap) = run_strengthened(file, 20, Strengthen::All);
    match verdict(&goals, &snap, line, "error reach_error") {
        Verdict::Unreachable(p) => assert!(p.method.contains("1-induction"), "{p}"),
        v => panic!("expected unreachable by induction, got {v:?}"),
    }
    assert!(snap.conflicts.is_empty());
}

/// Unsigned counters: the sound analyses know nothing that proves
/// `done == total` after the loop; the candidate `left + done == total`
/// (mod 2^32) is proved inductive and then proves it.
#[test]
fn checked_candidates_prove_the_unsigned_transfer() {
    let file = "unsigned_transfer.c";
    let line = line_of(file, "SUM");
    let (goals, snap) = run_strengthened(file, 3, Strengthen::All);
    assert!(
        !matches!(verdict(&goals, &snap, line, "error reach_error"), Verdict::Unreachable(_)),
        "proved without the candidates"
    );
    let (goals, snap) = run_strengthened(file, 20, Strengthen::AllAndCandidates);
    match verdict(&goals, &snap, line, "error reach_error") {
        Verdict::Unreachable(p) => assert!(p.method.contains("1-induction"), "{p}"),
        v => panic!("expected unreachable by induction, got {v:?}"),
    }
    let bmc = snap.engines.iter().find(|e| e.name == "bmc").unwrap();
    assert!(bmc.counter("invariants_kept").is_some_and(|k| k >= 1.0), "{:?}", bmc.counter("invariants_kept"));
    assert!(snap.conflicts.is_empty());
}

/// A candidate that wrapping breaks (`j == i` with `j` a signed char copy
/// of `i`) is dropped, and the error it would hide stays unproved.
#[test]
fn a_candidate_wrapping_breaks_is_dropped() {
    let file = "char_copy.c";
    let program =
        common::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepening").join(file), DataModel::LP64);
    assert!(
        !walkdown_absint::candidate_loop_equalities(&program, Default::default()).is_empty(),
        "no candidate to drop"
    );
    let (goals, snap) = run_strengthened(file, 5, Strengthen::AllAndCandidates);
    assert!(
        !matches!(verdict(&goals, &snap, line_of(file, "COPY"), "error reach_error"), Verdict::Unreachable(_)),
        "a reachable error proved unreachable"
    );
    let bmc = snap.engines.iter().find(|e| e.name == "bmc").unwrap();
    // The induction step ran (the check comes first), and kept nothing.
    assert!(bmc.counter("induction_queries").is_some_and(|q| q >= 1.0), "{:?}", bmc.counter("induction_queries"));
    assert_eq!(bmc.counter("invariants_kept"), Some(0.0));
}
