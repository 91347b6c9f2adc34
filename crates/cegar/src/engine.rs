//! The model checker as a campaign engine: builds the [`Model`] of the
//! program, runs the [`Checker`] with every open goal it can encode as a
//! target, submits each feasible path's inputs to the campaign's ledger
//! (the interpreter replays them there), and claims the goals a complete
//! graph never reaches as unreachable, with the number of predicates it
//! took.

use std::cell::RefCell;

use crate::certificate::Certificate;
use crate::checker::{Checker, CheckerFigures, CheckerSettings, Driver, Outcome};
use crate::model::{Model, ModelSettings};
use crate::CegarError;
use walkdown_campaign::{work, Claim, Engine, EngineCtx, EngineEnd, EngineError, GoalClosure, OpenReason};
use walkdown_encode::vc::InputSite;
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_smt::{SolverSettings, SolverStack};

/// Settings of the engine.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CegarSettings {
    /// How the program is transformed.
    pub model: ModelSettings,
    /// The checker's limits.
    pub checker: CheckerSettings,
    /// The solver stack; each query is also limited by the campaign's
    /// per-query limit on a shared worker. Default: every layer, 10 s.
    pub solver: SolverSettings,
}

/// Whether the engine aims at (and may claim) goals of this kind: branch
/// outcomes and failing checks (memory and `free` errors are not encoded).
pub fn aimed(kind: &GoalKind) -> bool {
    match kind {
        GoalKind::Edge { .. } => true,
        GoalKind::Error { site, .. } => matches!(site, ErrorSite::Check(_)),
    }
}

/// The model checker engine.
#[derive(Default)]
pub struct CegarEngine {
    /// Its settings.
    pub settings: CegarSettings,
    /// What the checker did (after [`Engine::run`]).
    pub figures: CheckerFigures,
    /// Blocks of the transformed `main`.
    pub blocks: usize,
    /// How the last run ended, in words.
    pub end: String,
    /// What a complete run proved, with the graph's invariants (for
    /// correctness witnesses).
    pub certificate: Option<Certificate>,
}

impl CegarEngine {
    /// An engine with these settings.
    pub fn new(settings: CegarSettings) -> CegarEngine {
        CegarEngine { settings, ..CegarEngine::default() }
    }

    fn publish(&self, ctx: &EngineCtx<'_, '_>, status: &str) {
        let f = &self.figures;
        ctx.publish(
            status,
            vec![
                ("blocks", self.blocks as f64),
                ("rounds", f.rounds as f64),
                ("refinements", f.refinements as f64),
                ("failed_refinements", f.failed_refinements as f64),
                ("interpolations", f.interpolations as f64),
                ("interpolation_failures", f.interpolation_failures as f64),
                ("predicates", f.predicates as f64),
                ("nodes", f.nodes as f64),
                ("covered_nodes", f.covered as f64),
                ("queries", f.queries as f64),
                ("unknown", f.unknown as f64),
                ("tests", f.tests as f64),
                ("divergences", f.divergences as f64),
                ("useless_edges", f.useless_edges as f64),
                ("monitor_states", f.monitor_states as f64),
            ],
        );
    }
}

struct CtxDriver<'a, 'k, 'p> {
    ctx: &'a EngineCtx<'k, 'p>,
    closures: RefCell<(u64, Vec<GoalClosure>)>,
    dm: walkdown_ir::DataModel,
}

impl Driver for CtxDriver<'_, '_, '_> {
    fn keep_going(&mut self) -> bool {
        self.ctx.checkpoint()
    }

    fn is_open(&mut self, goal: GoalId) -> bool {
        let mut c = self.closures.borrow_mut();
        let epoch = self.ctx.epoch();
        if c.0 != epoch {
            *c = (epoch, self.ctx.closures());
        }
        c.1.get(goal.index()).is_some_and(|g| *g == GoalClosure::Open)
    }

    fn test(&mut self, inputs: &[(InputSite, u64)], goal: GoalId) -> bool {
        let values = inputs.iter().map(|(s, bits)| InputValue::from_bits(s.ty, s.signed, *bits, self.dm)).collect();
        let replay = self.ctx.submit(&TestVector { values }).replay;
        replay.covered.binary_search(&goal).is_ok()
    }

    fn charge(&mut self, solver_units: u64, terms: u64) {
        self.ctx.charge(1 + work::solver(solver_units) + work::asserted(terms));
    }

    fn share_guidance(&mut self, edges: std::collections::HashSet<GoalId>, monitor: walkdown_campaign::Monitor) {
        self.ctx.share_guidance(edges, Some(monitor));
    }
}

use walkdown_ir::entity::EntityRef;

impl Engine for CegarEngine {
    fn name(&self) -> &'static str {
        "cegar"
    }

    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        let _label = walkdown_smt::dump::engine_scope("cegar");
        let campaign = ctx.campaign();
        let program = campaign.program();
        let goals = campaign.goals();
        let interp = campaign.interpreter();
        for (id, g) in goals.goals.iter() {
            if !aimed(&g.kind) {
                ctx.note_open(id, OpenReason::NotAttempted("cegar does not encode memory and free errors".into()));
            }
        }
        self.publish(ctx, "running: building the model");
        let gaddr = |g| interp.global_address(g).unwrap_or(0);
        let faddr = |f| interp.func_address(f).unwrap_or(0);
        let mut model = match Model::build(program, goals, &gaddr, &faddr, &self.settings.model) {
            Ok(m) => m,
            Err(e) => {
                for (id, g) in goals.goals.iter() {
                    if aimed(&g.kind) {
                        ctx.note_open(id, OpenReason::Unsupported(e.to_string()));
                    }
                }
                self.end = format!("cannot encode the program: {e}");
                self.publish(ctx, &self.end.clone());
                return Ok(EngineEnd::new(self.end.clone()));
            }
        };
        self.blocks = model.body.blocks.len();
        ctx.charge(work::formula(model.pool.len() as u64));
        let mut solver_settings = self.settings.solver;
        if ctx.shared() {
            let cap = ctx.query_limit().as_millis().clamp(1, u128::from(u32::MAX)) as u32;
            solver_settings.timeout_ms = Some(solver_settings.timeout_ms.map_or(cap, |t| t.min(cap)));
            solver_settings.work_limit = ctx.query_work_limit();
        }
        let mut solver = SolverStack::build(&solver_settings);
        walkdown_smt::Solver::set_deadline(&mut solver, Some(ctx.deadline()));
        let aimed_goals: Vec<GoalId> = goals.goals.iter().filter(|(_, g)| aimed(&g.kind)).map(|(id, _)| id).collect();
        let mut driver = CtxDriver { ctx, closures: RefCell::new((u64::MAX, Vec::new())), dm: program.data_model };
        self.publish(ctx, "running");
        let (outcome, figures, abandoned, states) = {
            let mut checker = Checker::new(&mut model, solver, self.settings.checker)
                .with_interpolation_limits(solver_settings.backend(), Some(ctx.deadline()));
            let outcome = checker.run(&aimed_goals, &mut driver);
            let states = matches!(outcome, Outcome::Complete { .. }).then(|| checker.location_states());
            (outcome, checker.figures, checker.abandoned(), states)
        };
        for (g, why) in abandoned {
            if driver.is_open(g) {
                ctx.note_open(g, OpenReason::NotAttempted(why.into()));
            }
        }
        self.figures = figures;
        let end = match outcome {
            Outcome::Complete { unreachable } => {
                let method = format!("predicate abstraction, {} predicates", figures.predicates);
                for g in &unreachable {
                    ctx.claim(*g, Claim::Unreachable { method: method.clone() });
                }
                if let Some((states, values)) = states {
                    self.certificate = Some(Certificate::new(model, states, values, unreachable.clone()));
                }
                format!("complete: {} goals proved unreachable", unreachable.len())
            }
            Outcome::CompleteWithCuts => {
                let why = "the graph reaches recursion deeper than the inlining bound; no proof";
                for &g in &aimed_goals {
                    if driver.is_open(g) {
                        ctx.note_open(g, OpenReason::NotAttempted(why.into()));
                    }
                }
                format!("complete but {why}")
            }
            Outcome::Budget => {
                for &g in &aimed_goals {
                    if driver.is_open(g) {
                        ctx.note_open(g, OpenReason::Budget);
                    }
                }
                "budget".to_string()
            }
            Outcome::TooLarge => {
                let why =
                    format!("the abstract reachability graph grew past {} nodes", self.settings.checker.max_nodes);
                for &g in &aimed_goals {
                    if driver.is_open(g) {
                        ctx.note_open(g, OpenReason::Unsupported(why.clone()));
                    }
                }
                why
            }
        };
        self.end = end.clone();
        self.publish(ctx, &end);
        Ok(EngineEnd::new(end))
    }
}

/// Runs the model checker alone on `program` for at most `time` (one
/// worker) and returns the campaign's final state and the engine; the
/// kept tests are in the snapshot. For tests and experiments.
pub fn run_cegar(
    program: &walkdown_ir::Program,
    goals: &walkdown_ir::goals::Goals,
    settings: CegarSettings,
    time: std::time::Duration,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(walkdown_campaign::Snapshot, CegarEngine), EngineError> {
    let mut engine = CegarEngine::new(settings);
    let snapshot = run_alone(program, goals, Box::new(&mut engine), time, stop)?;
    Ok((snapshot, engine))
}

/// Runs `engine` alone on `program` for at most `time` on one worker,
/// with a campaign that discards the tests it keeps, and returns the
/// campaign's final state (what `run_cegar` and `run_horn` share).
pub(crate) fn run_alone(
    program: &walkdown_ir::Program,
    goals: &walkdown_ir::goals::Goals,
    engine: Box<dyn Engine + '_>,
    time: std::time::Duration,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<walkdown_campaign::Snapshot, EngineError> {
    use walkdown_campaign::{Campaign, CampaignSettings, KeptTest, PortfolioSettings, TestSink};
    struct Discard;
    impl TestSink for Discard {
        fn test(&mut self, _: &KeptTest) -> Result<(), String> {
            Ok(())
        }
    }
    let campaign_settings = CampaignSettings { time, ..CampaignSettings::default() };
    let campaign = Campaign::new(program, goals, campaign_settings, Box::new(Discard), stop)
        .map_err(|e| EngineError(e.to_string()))?;
    let portfolio = PortfolioSettings { jobs: 1, ..PortfolioSettings::default() };
    walkdown_campaign::run_portfolio(&campaign, vec![engine], &[], &portfolio, &mut |_| {});
    Ok(campaign.snapshot())
}

/// Runs the model checker outside any campaign with `targets` as its only
/// goals (addresses as the interpreter lays them out), for at most `time`, and returns the certificate of a complete
/// graph that proves all of them unreachable (`None` otherwise: the budget
/// ended, a path reached one, or the graph reached a cut). For goals other
/// engines already proved, when their proof has no invariants to show
/// (correctness witnesses).
pub fn certify(
    program: &walkdown_ir::Program,
    goals: &walkdown_ir::goals::Goals,
    global_addr: &dyn Fn(walkdown_ir::GlobalId) -> u64,
    func_addr: &dyn Fn(walkdown_ir::FuncId) -> u64,
    targets: &[GoalId],
    settings: &CegarSettings,
    time: std::time::Duration,
) -> Result<Option<Certificate>, CegarError> {
    struct Alone<'t> {
        deadline: std::time::Instant,
        targets: &'t [GoalId],
        reached: bool,
    }
    impl Driver for Alone<'_> {
        fn keep_going(&mut self) -> bool {
            std::time::Instant::now() < self.deadline
        }
        fn is_open(&mut self, goal: GoalId) -> bool {
            self.targets.contains(&goal)
        }
        fn test(&mut self, _inputs: &[(InputSite, u64)], _goal: GoalId) -> bool {
            // A feasible path to a target: no proof of it (and no test is
            // kept outside a campaign).
            self.reached = true;
            false
        }
        fn charge(&mut self, _: u64, _: u64) {}
    }
    let deadline = std::time::Instant::now() + time;
    let mut model = Model::build(program, goals, global_addr, func_addr, &settings.model)?;
    let mut solver = SolverStack::build(&settings.solver);
    walkdown_smt::Solver::set_deadline(&mut solver, Some(deadline));
    let mut driver = Alone { deadline, targets, reached: false };
    let (outcome, states) = {
        let mut checker = Checker::new(&mut model, solver, settings.checker)
            .with_interpolation_limits(settings.solver.backend(), Some(deadline));
        let outcome = checker.run(targets, &mut driver);
        let states = matches!(outcome, Outcome::Complete { .. }).then(|| checker.location_states());
        (outcome, states)
    };
    match (outcome, states) {
        (Outcome::Complete { unreachable }, Some((states, values)))
            if !driver.reached && targets.iter().all(|t| unreachable.contains(t)) =>
        {
            Ok(Some(Certificate::new(model, states, values, unreachable)))
        }
        _ => Ok(None),
    }
}

/// The certificate that `formula_of` (per original block; `None`: no
/// execution gets there) proves `proved` unreachable, over the model of
/// `program` (addresses as the interpreter lays them out); to be confirmed
/// by [`Certificate::check`].
pub fn certificate_from_formulas(
    program: &walkdown_ir::Program,
    goals: &walkdown_ir::goals::Goals,
    global_addr: &dyn Fn(walkdown_ir::GlobalId) -> u64,
    func_addr: &dyn Fn(walkdown_ir::FuncId) -> u64,
    settings: &CegarSettings,
    formula_of: &dyn Fn(walkdown_ir::FuncId, walkdown_ir::Block) -> Option<walkdown_ir::formula::Formula>,
    proved: Vec<GoalId>,
) -> Result<Certificate, CegarError> {
    let model = Model::build(program, goals, global_addr, func_addr, &settings.model)?;
    if model.cuts.iter().any(|c| c.is_some()) {
        // Recursion deeper than the inlining bound: the model does not
        // have every execution, so a check over it proves nothing.
        return Err(CegarError::Unsupported { construct: "recursion deeper than the inlining bound".into(), line: 0 });
    }
    Ok(Certificate::from_formulas(model, formula_of, proved))
}
