//! Explicit-state search, as CPAchecker's value analysis does it, over
//! the model checker's [`Model`] (every call inlined into `main`, blocks
//! self-contained, memory a byte array): for programs whose reachable
//! state is small, such as the eca-rers state machines (inputs from a
//! small set, state in globals).
//!
//! A state is a loop head with concrete values of its parameters and its
//! memory; from each, the paths of one step (to the next loop head) are
//! explored with that step's inputs symbolic, and the states each path
//! may end in are enumerated: usually its path condition determines one,
//! a few valuations are each kept, more end the search ([`search`]). States
//! are hashed; when the frontier is empty every goal that no feasible step
//! reached is unreachable. Goals reached get a test from the inputs of one
//! run there (the campaign's replay decides whether it covers them).
//!
//! Why this is sound: each step's formulas over-approximate the
//! program's executions of its block (the model's guarantee, on which the
//! model checker's and the Horn engine's proofs also rest); every path of
//! a step feasible from a state is followed, and every state its path
//! condition allows at the next loop head is kept (the enumeration ends
//! only when the solver says no other valuation exists), so the explored
//! states include every state an execution reaches at a loop head.
//! Whatever breaks that (a state with too many valuations, unknown
//! memory, a recursion cut,
//! the solver's `unknown`, a state or path limit, the budget) ends the
//! search with no proof, and the goals' open reasons say which.

pub mod search;

use std::collections::HashSet;

use walkdown_campaign::{work, Claim, Engine, EngineCtx, EngineEnd, EngineError, GoalClosure, OpenReason};
use walkdown_encode::vc::InputSite;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, GoalKind};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_smt::{SolverSettings, SolverStack};

use crate::certificate::Certificate;
use crate::engine::aimed;
use crate::model::{Model, ModelSettings};
pub use search::{GiveUp, Hooks, Search, SearchEnd, SearchSettings};

/// Settings of the explicit-state engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExplicitSettings {
    /// How the program is transformed (as for the model checker).
    pub model: ModelSettings,
    /// The search's limits.
    pub search: SearchSettings,
    /// The solver's limit per query, in milliseconds. Default 1,000: the
    /// queries from concrete states are small, and an `unknown` ends the
    /// search anyway, so a long wait only takes time from other engines.
    pub timeout_ms: u32,
}

impl Default for ExplicitSettings {
    fn default() -> Self {
        ExplicitSettings { model: ModelSettings::default(), search: SearchSettings::default(), timeout_ms: 1_000 }
    }
}

/// The explicit-state engine.
#[derive(Default)]
pub struct ExplicitEngine {
    /// Its settings.
    pub settings: ExplicitSettings,
    /// States the last run explored.
    pub states: usize,
    /// How the last run ended, in words.
    pub end: String,
    /// After a complete search: its states at each loop head (values of
    /// the head's parameters; memory is not stated), as the invariants of
    /// a certificate, for the witness's candidates.
    pub certificate: Option<Certificate>,
}

impl ExplicitEngine {
    /// An engine with these settings.
    pub fn new(settings: ExplicitSettings) -> ExplicitEngine {
        ExplicitEngine { settings, ..ExplicitEngine::default() }
    }
}

/// The search's hooks into the campaign: a run to a reached goal is
/// made once per goal, submitted at once for an error and after the
/// search for a branch outcome (replays of long runs would otherwise eat
/// the search's budget).
struct CtxHooks<'a, 'k, 'p> {
    ctx: &'a EngineCtx<'k, 'p>,
    closures: (u64, Vec<GoalClosure>),
    tried: HashSet<GoalId>,
    pending: Vec<(GoalId, TestVector)>,
    dm: walkdown_ir::DataModel,
}

impl Hooks for CtxHooks<'_, '_, '_> {
    fn keep_going(&mut self) -> bool {
        self.ctx.checkpoint()
    }
    fn wants(&mut self, goal: GoalId) -> bool {
        !self.tried.contains(&goal) && self.wants_open(goal)
    }
    fn reached(&mut self, goal: GoalId, inputs: &[(InputSite, u64)]) {
        self.tried.insert(goal);
        let values = inputs.iter().map(|(s, bits)| InputValue::from_bits(s.ty, s.signed, *bits, self.dm)).collect();
        let vector = TestVector { values };
        match self.ctx.campaign().goals().goals[goal].kind {
            GoalKind::Error { .. } => {
                self.ctx.submit(&vector);
            }
            GoalKind::Edge { .. } => self.pending.push((goal, vector)),
        }
    }
    fn charge(&mut self, blocks: u64, queries: u64) {
        self.ctx.charge(1 + work::formula(blocks) + work::solver(queries * 1_000));
    }
}

impl Engine for ExplicitEngine {
    fn name(&self) -> &'static str {
        "explicit"
    }

    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        let campaign = ctx.campaign();
        let (program, goals, interp) = (campaign.program(), campaign.goals(), campaign.interpreter());
        let targets: Vec<GoalId> = goals.goals.iter().filter(|(_, g)| aimed(&g.kind)).map(|(id, _)| id).collect();
        for (id, g) in goals.goals.iter() {
            if !aimed(&g.kind) {
                ctx.note_open(id, OpenReason::NotAttempted("explicit does not encode memory and free errors".into()));
            }
        }
        ctx.publish("running: building the model", Vec::new());
        let gaddr = |g| interp.global_address(g).unwrap_or(0);
        let faddr = |f| interp.func_address(f).unwrap_or(0);
        let mut model = match Model::build(program, goals, &gaddr, &faddr, &self.settings.model) {
            Ok(m) => m,
            Err(e) => {
                self.end = format!("cannot encode the program: {e}");
                for &g in &targets {
                    ctx.note_open(g, OpenReason::Unsupported(e.to_string()));
                }
                ctx.publish(&self.end.clone(), Vec::new());
                return Ok(EngineEnd::new(self.end.clone()));
            }
        };
        ctx.charge(work::formula(model.pool.len() as u64));
        let mut timeout = self.settings.timeout_ms;
        if ctx.shared() {
            timeout = timeout.min(ctx.query_limit().as_millis().clamp(1, u128::from(u32::MAX)) as u32);
        }
        // No slicing: the search evaluates terms under the models it gets.
        let solver_settings = SolverSettings { slicing: false, timeout_ms: Some(timeout), ..SolverSettings::default() };
        let mut solver = SolverStack::build(&solver_settings);
        walkdown_smt::Solver::set_deadline(&mut solver, Some(ctx.deadline()));
        let mut hooks = CtxHooks {
            ctx,
            closures: (u64::MAX, Vec::new()),
            tried: HashSet::new(),
            pending: Vec::new(),
            dm: program.data_model,
        };
        ctx.publish("running", Vec::new());
        let mut search = Search::new(&mut model, solver, self.settings.search);
        let end = search.run(&mut hooks).map_err(|e| EngineError(e.to_string()))?;
        let queries = search.total_queries;
        // The goals a complete search proves: those no feasible step reached.
        let proved: Option<Vec<GoalId>> = match &end {
            SearchEnd::Complete { reached, .. } => {
                Some(targets.iter().copied().filter(|g| !reached.contains(g)).collect())
            }
            SearchEnd::GaveUp { .. } => None,
        };
        let complete = proved.is_some();
        let head_states: Vec<(walkdown_ir::Block, Vec<u128>)> =
            if complete { search.head_states().map(|(b, v)| (b, v.to_vec())).collect() } else { Vec::new() };
        drop(search);
        let (states, end) = settle(end, &targets, &mut hooks);
        if let Some(proved) = proved.filter(|_| head_states.len() <= MAX_CERTIFIED_STATES) {
            self.certificate = state_certificate(model, &head_states, proved).ok();
        }
        self.states = states;
        self.end = end;
        let figures = vec![("states", self.states as f64), ("queries", queries as f64)];
        ctx.publish(&self.end.clone(), figures);
        Ok(EngineEnd::new(self.end.clone()))
    }
}

/// States beyond which a certificate is not made: a witness states each.
const MAX_CERTIFIED_STATES: usize = 4096;

/// The certificate whose invariant at each loop head is the disjunction of
/// the search's states there, each the conjunction of `param == value`.
fn state_certificate(
    mut model: Model,
    head_states: &[(walkdown_ir::Block, Vec<u128>)],
    proved: Vec<GoalId>,
) -> Result<Certificate, walkdown_smt::ExprError> {
    let mut states: Vec<Vec<Vec<walkdown_smt::ExprId>>> = vec![Vec::new(); model.body.blocks.len()];
    for (block, values) in head_states {
        let params = model.states[block.index()].params.clone();
        let mut lits = Vec::with_capacity(params.len());
        for (&p, &v) in params.iter().zip(values) {
            let lit = match model.pool.width(p) {
                Some(w) => {
                    let c = model.pool.bv_const(w, v)?;
                    model.pool.eq(p, c)?
                }
                None if v != 0 => p,
                None => model.pool.not(p)?,
            };
            lits.push(lit);
        }
        states[block.index()].push(lits);
    }
    Ok(Certificate::new(model, states, HashSet::new(), proved))
}

/// Claims or notes every target by how the search ended; returns the
/// states explored and the end in words.
fn settle(end: SearchEnd, targets: &[GoalId], hooks: &mut CtxHooks<'_, '_, '_>) -> (usize, String) {
    let ctx = hooks.ctx;
    match end {
        SearchEnd::Complete { states, reached } => {
            let method = format!("explicit-state search, {states} states, frontier empty");
            let mut proved = 0;
            for &g in targets.iter().filter(|g| !reached.contains(g)) {
                ctx.claim(g, Claim::Unreachable { method: method.clone() });
                proved += 1;
            }
            hooks.submit_pending();
            for &g in targets.iter().filter(|g| reached.contains(g)) {
                if hooks.wants_open(g) {
                    let why = "the explicit-state search reaches it; its run did not replay there";
                    ctx.note_open(g, OpenReason::NotAttempted(why.into()));
                }
            }
            (states, format!("complete: {states} states, {proved} goals proved unreachable"))
        }
        SearchEnd::GaveUp { why, states } => {
            hooks.submit_pending();
            let reason = match &why {
                GiveUp::Budget => OpenReason::Budget,
                GiveUp::Unknown(_) => OpenReason::SolverUnknown,
                other => OpenReason::NotAttempted(format!("explicit-state search not applicable: {other}")),
            };
            for &g in targets {
                if hooks.wants_open(g) {
                    ctx.note_open(g, reason.clone());
                }
            }
            (states, format!("gave up after {states} states: {why}"))
        }
    }
}

impl CtxHooks<'_, '_, '_> {
    /// Submits the runs to branch outcomes still open, while the budget
    /// lasts.
    fn submit_pending(&mut self) {
        for (goal, vector) in std::mem::take(&mut self.pending) {
            if !self.ctx.checkpoint() {
                return;
            }
            if self.wants_open(goal) {
                self.ctx.submit(&vector);
            }
        }
    }

    /// Whether the goal is open in the campaign.
    fn wants_open(&mut self, goal: GoalId) -> bool {
        let epoch = self.ctx.epoch();
        if self.closures.0 != epoch {
            self.closures = (epoch, self.ctx.closures());
        }
        self.closures.1.get(goal.index()).is_some_and(|c| *c == GoalClosure::Open)
    }
}

/// Runs the explicit-state engine alone on `program` for at most `time`
/// (one worker) and returns the campaign's final state and the engine.
/// For tests and experiments.
pub fn run_explicit(
    program: &walkdown_ir::Program,
    goals: &walkdown_ir::goals::Goals,
    settings: ExplicitSettings,
    time: std::time::Duration,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(walkdown_campaign::Snapshot, ExplicitEngine), EngineError> {
    let mut engine = ExplicitEngine::new(settings);
    let snapshot = crate::engine::run_alone(program, goals, Box::new(&mut engine), time, stop)?;
    Ok((snapshot, engine))
}
