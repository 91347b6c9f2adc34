//! The bounded engine with float instructions as IEEE-754 terms: the float
//! window and the error behind it in `tests/floats/window.c` are covered
//! by the engine alone (with fresh values for float results, its models
//! do not replay into the window), and no goal is claimed infeasible or
//! unreachable that a test covers. Where a query over float terms ends
//! unknown (`tests/floats/hard.c`: a double division), the engine asks
//! again with fresh values for float results.

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

fn run(file: &str, float_terms: bool) -> (Goals, Snapshot) {
    let (goals, snap, _) = run_counting(file, float_terms);
    (goals, snap)
}

fn run_counting(file: &str, float_terms: bool) -> (Goals, Snapshot, u64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/floats").join(file);
    let program = common::load(&path, DataModel::LP64);
    let goals = Goals::compute(&program);
    let stop = AtomicBool::new(false);
    let settings = CampaignSettings { time: Duration::from_secs(20), ..CampaignSettings::default() };
    let campaign = Campaign::new(&program, &goals, settings, Box::new(Discard), &stop).expect("campaign");
    let mut deepening = DeepeningSettings::default();
    deepening.bmc.vc.float_terms = float_terms;
    let mut engine = BmcEngine::new(deepening);
    let portfolio = PortfolioSettings { jobs: 1, ..PortfolioSettings::default() };
    let ends = run_portfolio(&campaign, vec![Box::new(&mut engine)], &[], &portfolio, &mut |_| {});
    assert!(ends[0].is_ok(), "{ends:?}");
    let snap = campaign.snapshot();
    drop(campaign);
    (goals, snap, engine.figures.float_fallbacks)
}

fn error_covered(goals: &Goals, snap: &Snapshot) -> bool {
    goals.goals.iter().any(|(id, g)| {
        matches!(g.kind, walkdown_ir::goals::GoalKind::Error { .. })
            && matches!(snap.goals[walkdown_ir::entity::EntityRef::index(id)].verdict, Verdict::Covered { .. })
    })
}

#[test]
fn float_terms_cover_a_narrow_window() {
    let (goals, snap) = run("window.c", true);
    assert!(error_covered(&goals, &snap), "{:?}", snap.goals.iter().map(|g| &g.verdict).collect::<Vec<_>>());
    assert!(snap.conflicts.is_empty());
    let (goals, snap) = run("window.c", false);
    assert!(!error_covered(&goals, &snap), "fresh values do not reach it");
}

#[test]
fn an_unknown_float_query_falls_back_to_fresh_values() {
    let (goals, snap, fallbacks) = run_counting("hard.c", true);
    assert!(snap.conflicts.is_empty());
    // Z3 gives up on the division (docs/solvers.md); Bitwuzla answers it,
    // and then there is nothing to fall back from: the error is covered.
    if walkdown_smt::backend::selected() == walkdown_smt::Backend::Z3 {
        assert_eq!(fallbacks, 1);
    } else if fallbacks == 0 {
        assert!(error_covered(&goals, &snap), "answered, so covered");
        return;
    }
    for (id, g) in goals.goals.iter() {
        let v = &snap.goals[walkdown_ir::entity::EntityRef::index(id)].verdict;
        if matches!(g.kind, walkdown_ir::goals::GoalKind::Error { .. }) {
            assert!(matches!(v, Verdict::Open | Verdict::Covered { .. }), "the error is feasible: {v:?}");
        }
    }
    // Both ways of the integer branch (line 11) are covered all the same.
    let line11: Vec<&Verdict> = goals
        .goals
        .iter()
        .filter(|(_, g)| g.loc.line == 11 && matches!(g.kind, walkdown_ir::goals::GoalKind::Edge { .. }))
        .map(|(id, _)| &snap.goals[walkdown_ir::entity::EntityRef::index(id)].verdict)
        .collect();
    assert_eq!(line11.len(), 2);
    assert!(line11.iter().all(|v| matches!(v, Verdict::Covered { .. })), "{line11:?}");
}
