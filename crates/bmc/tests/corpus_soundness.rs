//! Soundness of the bounded engine's unbounded claims on the benchmark
//! corpus: for every seed and public task under `../shared/bench`, the
//! engine runs with unwinding 2 (statement cover, 2 s per task, 2 s per
//! query), and no goal it reports *unreachable* (infeasible within the
//! bound with no cut point reachable) is covered by any of up to 10,000
//! seeded random input vectors run in the interpreter (1,000,000 steps per
//! run, 1.5 s per task, so slow programs run fewer vectors; the count is
//! printed; `WALKDOWN_SOUNDNESS_BUDGET_S` raises that budget for a full
//! run). Every kept test replays to the goals the engine recorded.
//! Prints a line per program. Skips with a message when `../shared` is
//! absent.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use walkdown_bmc::cover::CoverSettings;
use walkdown_bmc::{BmcSettings, CoverAlgorithm, GoalVerdict};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalId;

/// Records a failure for each goal of `claimed` one of the program's
/// seeded random vectors covers; returns how many vectors ran.
fn random_runs_covering(
    name: &str,
    interp: &Interpreter,
    goals: &walkdown_ir::goals::Goals,
    claimed: &BTreeSet<GoalId>,
    claim: &str,
    failures: &mut Vec<String>,
) -> usize {
    let (covered, runs) = walkdown_testsupport::random_runs_covering(interp, name, claimed);
    for g in covered {
        failures.push(format!("{name}: goal {g} ({}) {claim} but covered by a run", goals.describe(g)));
    }
    runs
}

#[test]
fn unreachable_claims_are_never_covered_on_the_corpus() {
    let Some(corpus) = walkdown_testsupport::corpus("unreachable_claims_are_never_covered_on_the_corpus") else {
        return;
    };
    let settings = BmcSettings {
        unwind: 2,
        cover: CoverSettings {
            algorithm: CoverAlgorithm::Statements,
            time: Duration::from_secs(2),
            timeout_ms: 2000,
            ..CoverSettings::default()
        },
        ..BmcSettings::default()
    };
    let mut failures = Vec::new();
    let (mut total_unreachable, mut total_infeasible, mut total_covered) = (0, 0, 0);
    for prog in &corpus {
        let fs = FrontendSettings { data_model: prog.data_model, ..Default::default() };
        let Ok(ir) = compile_c(&prog.path, &fs) else {
            eprintln!("{:<50} skipped: frontend", prog.name);
            continue;
        };
        let t0 = Instant::now();
        let (goals, r) = common::run(&ir, &settings);
        let took = t0.elapsed();
        let unreachable: BTreeSet<GoalId> =
            goals.goals.keys().filter(|g| r.verdicts[g.index()] == GoalVerdict::Unreachable).collect();
        let infeasible = r.verdicts.iter().filter(|v| matches!(v, GoalVerdict::InfeasibleWithin(_))).count();
        let covered = r.verdicts.iter().filter(|v| matches!(v, GoalVerdict::Covered(_))).count();
        total_unreachable += unreachable.len();
        total_infeasible += infeasible;
        total_covered += covered;
        let interp = Interpreter::new(&ir, &goals).expect("interpretable");
        for t in &r.tests {
            if interp.run(&t.vector, &RunOptions::default()).covered != t.covered {
                failures.push(format!("{}: test {} replays to other goals", prog.name, t.index));
            }
        }
        let runs =
            random_runs_covering(&prog.name, &interp, &goals, &unreachable, "claimed unreachable", &mut failures);
        eprintln!(
            "{:<50} goals {:>4} covered {:>4} unreachable {:>3} infeasible {:>4} {:>7.2?}  vectors {runs}{}",
            prog.name,
            goals.len(),
            covered,
            unreachable.len(),
            infeasible,
            took,
            r.unsupported.as_ref().map(|e| format!("  ({e})")).unwrap_or_default()
        );
    }
    eprintln!(
        "total: {total_covered} covered, {total_unreachable} unreachable, {total_infeasible} infeasible within 2"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The loop abstraction (1-induction step case, strengthened with the
/// static analyses' loop-head invariants as `walkdown gen` does) asked
/// about every goal it can claim, on every program of the corpus (2 s per program, 2 s per
/// query): no goal it proves unreachable is covered by the seeded random
/// vectors.
#[test]
fn induction_claims_are_never_covered_on_the_corpus() {
    use std::sync::atomic::AtomicBool;
    use walkdown_campaign::{
        Campaign, CampaignSettings, Engine, EngineCtx, EngineEnd, EngineError, KeptTest, TestSink,
    };

    struct Discard;
    impl TestSink for Discard {
        fn test(&mut self, _: &KeptTest) -> Result<(), String> {
            Ok(())
        }
    }
    struct Prover {
        settings: BmcSettings,
        candidates: Vec<GoalId>,
        strengthened: Option<walkdown_ir::Program>,
        invariant_candidates: Vec<walkdown_ir::formula::LinearEquality>,
        kept: Vec<walkdown_ir::formula::LinearEquality>,
        outcome: Option<walkdown_bmc::induction::InductionOutcome>,
    }
    impl Engine for Prover {
        fn name(&self) -> &'static str {
            "bmc"
        }
        fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
            // As the engine does: the candidates it proves inductive are
            // assumed too.
            if !self.invariant_candidates.is_empty() {
                let base = self.strengthened.clone().unwrap_or_else(|| ctx.campaign().program().clone());
                let checked =
                    walkdown_bmc::houdini::inductive_subset(ctx, &self.settings, &base, &self.invariant_candidates)
                        .map_err(|e| EngineError(e.to_string()))?;
                if !checked.kept.is_empty() {
                    self.strengthened = Some(walkdown_bmc::houdini::assume_kept(&base, &checked.kept));
                }
                self.kept = checked.kept;
            }
            let o = walkdown_bmc::induction::prove_unreachable(
                ctx,
                &self.settings,
                &self.candidates,
                self.strengthened.as_ref(),
            )
            .map_err(|e| EngineError(e.to_string()))?;
            self.outcome = Some(o);
            Ok(EngineEnd::new("done"))
        }
    }

    let Some(corpus) = walkdown_testsupport::corpus("induction_claims_are_never_covered_on_the_corpus") else { return };
    let settings =
        BmcSettings { cover: CoverSettings { timeout_ms: 2000, ..CoverSettings::default() }, ..BmcSettings::default() };
    let mut failures = Vec::new();
    let (mut total, mut total_kept) = (0, 0);
    for prog in &corpus {
        let fs = FrontendSettings { data_model: prog.data_model, ..Default::default() };
        let Ok(ir) = compile_c(&prog.path, &fs) else {
            eprintln!("{:<50} skipped: frontend", prog.name);
            continue;
        };
        let goals = walkdown_ir::goals::Goals::compute(&ir);
        let candidates: Vec<GoalId> =
            goals.goals.iter().filter(|(_, g)| walkdown_bmc::engine::claimable(&g.kind)).map(|(id, _)| id).collect();
        let stop = AtomicBool::new(false);
        let cs = CampaignSettings { time: Duration::from_secs(2), ..CampaignSettings::default() };
        let campaign = Campaign::new(&ir, &goals, cs, Box::new(Discard), &stop).expect("campaign");
        // Strengthened as `walkdown gen` does: what the interval analysis
        // and the relational product know at loop heads, as assumes.
        let intervals = walkdown_absint::analyze(&ir);
        let relational = walkdown_absint::analyze_relational(&ir);
        let strengthened = Some(walkdown_absint::strengthen_loop_heads(&ir, Some(&intervals), Some(&relational)));
        let invariant_candidates = walkdown_absint::candidate_loop_equalities(&ir, Default::default());
        let mut prover = Prover {
            settings: settings.clone(),
            candidates,
            strengthened,
            invariant_candidates,
            kept: Vec::new(),
            outcome: None,
        };
        let portfolio = walkdown_campaign::PortfolioSettings { jobs: 1, ..Default::default() };
        walkdown_campaign::run_portfolio(&campaign, vec![Box::new(&mut prover)], &[], &portfolio, &mut |_| {});
        let outcome = prover.outcome.unwrap_or_default();
        let proved: BTreeSet<GoalId> = outcome.proved.iter().copied().collect();
        total += proved.len();
        let interp = Interpreter::new(&ir, &goals).expect("interpretable");
        let runs = random_runs_covering(
            &prog.name,
            &interp,
            &goals,
            &proved,
            "proved unreachable by induction",
            &mut failures,
        );
        // The candidates kept as inductive, checked as assertions.
        let kept = prover.kept.len();
        total_kept += kept;
        if kept > 0 {
            let invariants: Vec<_> = prover
                .kept
                .iter()
                .map(|c| walkdown_ir::formula::BlockInvariant {
                    func: c.func,
                    block: c.block,
                    formula: c.formula(ir.data_model, &|v| v),
                    loc: ir.funcs[c.func].loc,
                })
                .collect();
            let (checked, checks) = walkdown_ir::formula::instrument_checks(&ir, &invariants);
            walkdown_ir::verify::verify_program(&checked).expect("the checked program verifies");
            let check_goals = walkdown_ir::goals::Goals::compute(&checked);
            let claimed: BTreeSet<GoalId> = invariants
                .iter()
                .zip(&checks)
                .filter_map(|(inv, c)| c.and_then(|c| check_goals.error_site(inv.func, c)))
                .collect();
            assert_eq!(claimed.len(), kept, "{}: every kept invariant is a goal", prog.name);
            let check_interp = Interpreter::new(&checked, &check_goals).expect("interpretable");
            random_runs_covering(
                &prog.name,
                &check_interp,
                &check_goals,
                &claimed,
                "a kept invariant fails",
                &mut failures,
            );
        }
        eprintln!(
            "{:<50} goals {:>4} proved {:>4} invariants {kept:>2} queries {:>3} vectors {runs}{}",
            prog.name,
            goals.len(),
            proved.len(),
            outcome.queries,
            outcome.skipped.map(|s| format!("  (skipped: {s})")).unwrap_or_default()
        );
    }
    eprintln!("total: {total} goals proved unreachable by the loop abstraction; {total_kept} candidate invariants kept as inductive, none failed by a vector");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
