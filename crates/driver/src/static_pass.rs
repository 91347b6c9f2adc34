//! The static pass: the abstract interpretation as a member of the
//! campaign that runs once, before the portfolio. It claims the branch
//! outcomes and error sites it proves unreachable (so no engine searches
//! for them), publishes its figures under the name `absint` like any
//! engine, and keeps its analyses for what reads them later: the concolic
//! engine's trip-count forms, the bounded engine's strengthened loop heads
//! and candidate invariants, the annotations' `self` source and the
//! witness.
//!
//! Both analyses get a share of the budget ([`static_share`]); one cut
//! short by it proves nothing and is dropped, since functions it did not
//! reach would count as unreachable.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use walkdown_absint::{Analysis, FixpointOptions, RelAnalysis};
use walkdown_campaign::{Campaign, Claim, EngineFigures};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::Program;

use crate::outcome::{Handler, Notice};
use crate::plan::Plan;

/// How the report names proofs by the interval analysis (unbounded: they
/// hold for every execution).
const PROOF_INTERVALS: &str = "interval invariant contradicts the branch guard";

/// How the report names proofs that need the relational product
/// (intervals, affine equalities, octagonal inequalities).
const PROOF_RELATIONAL: &str = "relational invariant (intervals, equalities, octagon) contradicts the branch guard";

/// The time the static analyses may take: a quarter of the budget, but
/// at least a second (or half the budget, if less), so the small programs
/// of short runs keep their proofs.
pub fn static_share(budget: Duration) -> Duration {
    (budget / 4).max(Duration::from_secs(1).min(budget / 2))
}

/// The analyses of a finished static pass (each only if it completed).
pub struct StaticPass<'p> {
    /// The relational product (intervals, equalities, octagon), run
    /// unless both `--no-static` and `--no-invariants` are given.
    pub relational: Option<RelAnalysis<'p>>,
    /// The interval analysis, run unless `--no-static`.
    pub intervals: Option<Analysis<'p>>,
    /// The options both ran with (their deadline), for later analyses.
    pub opts: FixpointOptions,
}

impl<'p> StaticPass<'p> {
    /// Runs the analyses `plan` asks for on `campaign`'s clock and claims
    /// what they prove.
    pub fn run(
        plan: &Plan,
        campaign: &Campaign<'_>,
        program: &'p Program,
        goals: &Goals,
        handler: &mut dyn Handler,
    ) -> StaticPass<'p> {
        let o = &plan.options;
        let opts = FixpointOptions {
            deadline: Some(campaign.start() + static_share(plan.budget)),
            ..FixpointOptions::default()
        };
        let relational = (!o.no_static || !o.no_invariants)
            .then(|| walkdown_absint::analyze_relational_with(program, opts))
            .filter(|r| {
                if !r.complete {
                    handler.notice(Notice::Info(format!(
                        "walkdown: the relational analysis did not end within its share of the budget ({:.1}s): no proofs or loop invariants from it",
                        static_share(plan.budget).as_secs_f64()
                    )));
                }
                r.complete
            });
        let intervals = match o.no_static {
            true => None,
            false => claim_proofs(campaign, program, goals, relational.as_ref(), opts, handler),
        };
        StaticPass { relational, intervals, opts }
    }
}

/// Runs the interval analysis and claims the branch outcomes and error
/// sites it (and `relational`) prove unreachable; the analysis, if it
/// completed.
fn claim_proofs<'p>(
    campaign: &Campaign<'_>,
    program: &'p Program,
    goals: &Goals,
    relational: Option<&RelAnalysis<'_>>,
    opts: FixpointOptions,
    handler: &mut dyn Handler,
) -> Option<Analysis<'p>> {
    let start = Instant::now();
    let analysis = walkdown_absint::analyze_with(program, opts);
    if !analysis.complete {
        campaign.publish(figures("stopped: budget (its share)", start.elapsed(), 0));
        handler.notice(Notice::Info(
            "walkdown: static analysis did not end within its share of the budget: no proofs from it".into(),
        ));
        return None;
    }
    let claims = proofs(&analysis, relational, goals);
    let proved = claims.len();
    for (g, method) in claims {
        campaign.claim("absint", g, Claim::Unreachable { method: method.into() });
    }
    let elapsed = start.elapsed() + relational.map_or(Duration::ZERO, |r| r.elapsed);
    campaign.publish(figures("finished", elapsed, proved));
    handler.notice(Notice::Info(format!(
        "walkdown: static analysis ({:.1} ms): {proved} goals proved unreachable",
        elapsed.as_secs_f64() * 1e3
    )));
    Some(analysis)
}

/// The goals the analyses prove unreachable, each with its method. Edge
/// goals (intervals, then the relational product) and error sites are
/// disjoint lists but for the edges both analyses prove: the first proof
/// is kept.
fn proofs<'a>(
    analysis: &'a Analysis<'_>,
    relational: Option<&RelAnalysis<'_>>,
    goals: &Goals,
) -> BTreeMap<GoalId, &'a str> {
    let mut claims: BTreeMap<GoalId, &str> = BTreeMap::new();
    for g in analysis.dead_goals(goals) {
        claims.entry(g).or_insert(PROOF_INTERVALS);
    }
    for (g, why) in analysis.safe_error_sites(goals) {
        claims.entry(g).or_insert(why.trim_start_matches("interval analysis: "));
    }
    for g in relational.into_iter().flat_map(|rel| rel.dead_edges()).filter_map(|(f, b, s)| goals.edge(f, b, s)) {
        claims.entry(g).or_insert(PROOF_RELATIONAL);
    }
    claims
}

/// The static pass's figures in the campaign.
fn figures(status: &str, time: Duration, proved: usize) -> EngineFigures {
    EngineFigures { name: "absint", status: status.into(), time, counters: vec![("proved_unreachable", proved as f64)] }
}
