//! The bounded engine with float instructions as IEEE-754 terms: the float
//! window and the error behind it in `tests/floats/window.c` are covered
//! by the engine alone (with fresh values for float results, its models
//! do not replay into the window), and no goal is claimed infeasible or
//! unreachable that a test covers.

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

fn run(file: &str, float_terms: bool) -> (Goals, Snapshot) {
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
    (goals, snap)
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
