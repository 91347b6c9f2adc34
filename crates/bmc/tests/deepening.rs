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
use walkdown_campaign::{run_portfolio, Campaign, CampaignSettings, KeptTest, PortfolioSettings, Snapshot, TestSink, Verdict};
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepening").join(file);
    let program = common::load(&path, DataModel::LP64);
    let goals = Goals::compute(&program);
    let stop = AtomicBool::new(false);
    let settings = CampaignSettings { time: Duration::from_secs(secs), ..CampaignSettings::default() };
    let campaign = Campaign::new(&program, &goals, settings, Box::new(Discard), &stop).expect("campaign");
    let mut engine = BmcEngine::new(DeepeningSettings::default());
    let portfolio = PortfolioSettings { jobs: 1, ..PortfolioSettings::default() };
    let ends = run_portfolio(&campaign, vec![Box::new(&mut engine)], &[], &portfolio, &mut |_| {});
    assert!(ends[0].is_ok(), "{ends:?}");
    let described = goals.goals.iter().map(|(id, g)| (g.loc.line, goals.describe(id))).collect();
    (described, campaign.snapshot())
}

fn line_of(file: &str, mark: &str) -> u32 {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepening").join(file)).unwrap();
    text.lines().position(|l| l.contains(&format!("/* {mark} */"))).map(|i| i as u32 + 1).expect("mark")
}

fn verdict<'a>(goals: &[(u32, String)], snap: &'a Snapshot, line: u32, kind: &str) -> &'a Verdict {
    let i = goals.iter().position(|(l, k)| *l == line && k == kind).unwrap_or_else(|| panic!("no goal `{kind}` at line {line}"));
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
