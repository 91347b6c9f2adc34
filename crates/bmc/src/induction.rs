//! Unbounded proofs for goals the bounded engine found infeasible within
//! its bound: the step case of 1-induction, as a loop abstraction.
//!
//! The program is unwound once, and at the first header copy of every loop
//! entry the values the loop changes (header parameters it does not pass
//! around unchanged) and, if the loop writes memory, memory take arbitrary
//! values ([`crate::vc::VcSettings::havoc_loop_entries`]); an execution
//! that wants a second iteration is cut there. Every execution of the
//! program is represented: take the last iteration of each loop entry
//! before the goal is first reached (or before the loop exits); its header
//! state is one of the arbitrary ones, and from there the goal is reached
//! within one iteration. So a goal no execution of the abstraction reaches
//! is unreachable, without a bound. Models of the abstraction are not
//! executions and are never submitted as tests.
//!
//! The arbitrary states may be restricted by invariants of the abstract
//! interpretation instrumented as `assume`s at loop heads (they hold on
//! every execution, so no execution is lost).
//!
//! Recursion is cut at a depth, not abstracted: programs whose inlining
//! cuts recursion get no proof here.

use crate::cover::{cover, CoverAlgorithm, GroupStatus, Target};
use crate::engine::{encode_unwound, goal_targets, BmcSettings};
use crate::origin::CutReason;
use crate::vc::{Termination, VcSettings};
use crate::BmcError;
use std::time::Instant;
use walkdown_campaign::{work, EngineCtx, GoalClosure};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalId;

/// What one attempt proved.
#[derive(Debug, Default)]
pub struct InductionOutcome {
    /// Goals proved unreachable.
    pub proved: Vec<GoalId>,
    /// Solver queries.
    pub queries: u64,
    /// Why no proof was attempted (recursion, an unsupported construct).
    pub skipped: Option<String>,
}

/// The method's name in proofs.
pub const METHOD: &str =
    "1-induction step case: every loop entered in an arbitrary state (what it changes), one iteration; no bound";

/// Tries to prove each of `candidates` unreachable with the loop
/// abstraction. `strengthened`, when given, is the campaign's program with
/// invariants that hold on every execution added as `assume`s at loop
/// heads (same blocks, instructions and goals; `walkdown_absint::instrument`
/// makes one): they restrict the arbitrary loop states to those the
/// invariants allow.
pub fn prove_unreachable(
    ctx: &EngineCtx<'_, '_>,
    settings: &BmcSettings,
    candidates: &[GoalId],
    strengthened: Option<&walkdown_ir::Program>,
) -> Result<InductionOutcome, BmcError> {
    let campaign = ctx.campaign();
    let program = strengthened.unwrap_or(campaign.program());
    let (mut out, status) = prove_in(&InCampaign::new(ctx), settings, program, campaign.goals(), candidates)?;
    let closures = ctx.closures();
    for &g in candidates {
        if status.get(g.index()).copied().unwrap_or(false) && closures[g.index()] == GoalClosure::Open {
            out.proved.push(g);
        }
    }
    Ok(out)
}

/// What the step case runs under: an engine of the campaign (its
/// interpreter, deadline, query limits and work accounting), or a check
/// of its own after the campaign ([`Alone`]).
pub(crate) trait StepBudget {
    /// The interpreter whose addresses the encoding uses.
    fn interpreter(&self) -> &walkdown_interp::Interpreter;
    /// When the step case must end.
    fn deadline(&self) -> Instant;
    /// The longest one query may take.
    fn query_limit(&self) -> std::time::Duration;
    /// The solver work one query may take, when work is counted.
    fn query_work_limit(&self) -> Option<u32>;
    /// Accounts for a formula of `terms` terms being built.
    fn charge_formula(&self, terms: u64);
    /// The cover's stop check, asked before each query: accounts for
    /// `units` of solver work so far on a formula of `terms` terms (so a
    /// shared worker changes hands by work, reproducibly); whether to stop.
    fn stop(&self, units: u64, terms: usize) -> bool;
    /// Whether the run must stop (never blocks).
    fn stopped(&self) -> bool;
}

/// An engine of the campaign.
pub(crate) struct InCampaign<'a, 'c, 'p> {
    pub(crate) ctx: &'a EngineCtx<'c, 'p>,
    charged: std::cell::Cell<u64>,
}

impl<'a, 'c, 'p> InCampaign<'a, 'c, 'p> {
    pub(crate) fn new(ctx: &'a EngineCtx<'c, 'p>) -> Self {
        InCampaign { ctx, charged: std::cell::Cell::new(0) }
    }
}

impl StepBudget for InCampaign<'_, '_, '_> {
    fn interpreter(&self) -> &walkdown_interp::Interpreter {
        self.ctx.campaign().interpreter()
    }
    fn deadline(&self) -> Instant {
        self.ctx.deadline()
    }
    fn query_limit(&self) -> std::time::Duration {
        self.ctx.query_limit()
    }
    fn query_work_limit(&self) -> Option<u32> {
        self.ctx.query_work_limit()
    }
    fn charge_formula(&self, terms: u64) {
        self.ctx.charge(work::formula(terms));
    }
    fn stop(&self, units: u64, terms: usize) -> bool {
        let charged = &self.charged;
        self.ctx.charge(1 + work::solver(units.saturating_sub(charged.get())) + work::asserted(terms as u64));
        charged.set(units.max(charged.get()));
        !self.ctx.checkpoint()
    }
    fn stopped(&self) -> bool {
        self.ctx.stopped()
    }
}

/// A check of its own, outside any campaign: a deadline, no work counted.
pub(crate) struct Alone<'a> {
    pub(crate) interp: &'a walkdown_interp::Interpreter,
    pub(crate) deadline: Instant,
}

impl StepBudget for Alone<'_> {
    fn interpreter(&self) -> &walkdown_interp::Interpreter {
        self.interp
    }
    fn deadline(&self) -> Instant {
        self.deadline
    }
    fn query_limit(&self) -> std::time::Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
    fn query_work_limit(&self) -> Option<u32> {
        None
    }
    fn charge_formula(&self, _terms: u64) {}
    fn stop(&self, _units: u64, _terms: usize) -> bool {
        Instant::now() >= self.deadline
    }
    fn stopped(&self) -> bool {
        Instant::now() >= self.deadline
    }
}

/// The step case on `program` with its own goal table `goals` (it adds
/// blocks or checks to the campaign's program, but neither globals nor
/// functions): for each goal id, whether it was proved unreachable.
pub(crate) fn prove_in(
    budget: &dyn StepBudget,
    settings: &BmcSettings,
    program: &walkdown_ir::Program,
    goals: &walkdown_ir::goals::Goals,
    candidates: &[GoalId],
) -> Result<(InductionOutcome, Vec<bool>), BmcError> {
    let mut out = InductionOutcome::default();
    if candidates.is_empty() {
        return Ok((out, Vec::new()));
    }
    let interp = budget.interpreter();
    let vc_settings = VcSettings { termination: Termination::Prefix, havoc_loop_entries: true, ..settings.vc };
    let (unwound, mut vc) = match encode_unwound(program, goals, interp, 1, settings.max_blocks, &vc_settings)? {
        Ok(built) => built,
        Err(e) => {
            out.skipped = Some(e.to_string());
            return Ok((out, Vec::new()));
        }
    };
    budget.charge_formula(vc.size() as u64);
    if unwound.prov.cuts.iter().any(|c| matches!(c.reason, CutReason::Recursion { .. })) {
        out.skipped = Some("recursion is cut, not abstracted".into());
        return Ok((out, Vec::new()));
    }
    let (all, groups) = goal_targets(&mut vc, goals)?;
    let mut wanted = vec![false; groups];
    for g in candidates {
        wanted[g.index()] = true;
    }
    let targets: Vec<Target> = all.into_iter().filter(|t| wanted[t.group]).collect();
    let mut has_target = vec![false; groups];
    for t in &targets {
        has_target[t.group] = true;
    }
    let (path_vars, path_succs) = vc.path_graph();
    let mut cs = settings.cover;
    cs.algorithm = CoverAlgorithm::Statements;
    // The abstraction's queries are often harder than the bounded ones
    // (nonlinear loop bodies over arbitrary states); deepening should not
    // wait long for them.
    cs.timeout_ms =
        cs.timeout_ms.min(3000).min(budget.query_limit().as_millis().clamp(100, u128::from(u32::MAX)) as u32);
    cs.time = budget.deadline().saturating_duration_since(Instant::now());
    cs.work_limit = budget
        .query_work_limit()
        .map(|w| w.min(work::solver_limit(work::of_duration(std::time::Duration::from_secs(3)))));
    let terms = vc.size();
    let stop = |units: u64| budget.stop(units, terms);
    let outcome = cover(
        &mut vc,
        &targets,
        groups,
        &path_vars,
        &path_succs,
        &cs,
        &stop,
        &|_| false,
        // The abstraction's models are not executions: nothing is covered.
        &mut |_, _| Vec::new(),
    );
    out.queries = outcome.stats.queries;
    let status = (0..groups)
        .map(|i| wanted[i] && (outcome.status[i] == GroupStatus::Infeasible || (!has_target[i] && outcome.complete)))
        .collect();
    Ok((out, status))
}
