//! The concolic loop: trace a run, turn its branch points into candidates,
//! let the searcher pick one, solve its path condition with the branch
//! negated, replay the new vector in the interpreter (the judge), keep it
//! when it covers a new goal or reaches a new error, and repeat until the
//! budget ends or nothing is left to try.
//!
//! Candidates follow SAGE's generational search: a run derived by flipping
//! branch point `j` of its parent only offers alternatives after `j` (its
//! bound), so no path prefix is explored twice. Candidates whose goal is
//! already covered are deferred, not dropped: they are tried once no
//! candidate for an open goal is left, since going through covered
//! branches is often the way to deeper ones. That and the other scheduling
//! policies (slow-query retry, try-first, monitor order) are decorators
//! around the search order, composed in [`crate::schedule::compose`]; this
//! loop only adds candidates to the composed searcher, asks it for the
//! next, and tells it what came of the query.
//!
//! The engine is one member of a campaign ([`ConcolicEngine`] implements
//! [`walkdown_campaign::Engine`]): the campaign's ledger replays and keeps
//! tests, goals another engine closes stop being targets (proved ones are
//! dropped, covered ones deferred), and tests other engines keep are traced
//! here too, so their paths become candidates. [`generate`] runs the engine
//! alone.

use crate::distance::Distances;
use crate::schedule::{Asked, ScheduleFigures, ScheduleSettings};
use crate::search::{Candidate, QueryLimit, Rng, SearchContext, SearchKind, Searcher};
use crate::sym::vector_from_model;
use crate::symex::{AltKind, Trace, TraceLimits, Tracer, TripLoop};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use walkdown_campaign::work;
use walkdown_campaign::{
    Campaign, CampaignSettings, Claim, EngineCtx, EngineEnd, EngineError, ErrorFound, GoalClosure, KeptTest,
    PortfolioSettings, Property, StopCause, TestSink,
};
use walkdown_interp::ExecLimits;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::Program;
use walkdown_smt::{Answer, ExprPool, LayerStats, Query, Solver, SolverSettings, SolverStack};

/// Settings of the concolic engine, with their defaults. `time`,
/// `property`, `replay` and `unreachable` are for [`generate`], which runs
/// the engine alone; in a portfolio the campaign's settings rule.
#[derive(Clone, Debug)]
pub struct GenSettings {
    /// Wall-clock budget. Default 60 s.
    pub time: Duration,
    /// Search order. Default `bfs` (SAGE's generations): on the public
    /// tasks at 10 s it covered most without mutants (77.5% mean gcov
    /// branch coverage over the 43 tasks that read inputs, against 75.6% to
    /// 77.5% for the others), and all orders tie with mutants on.
    pub search: SearchKind,
    /// Seed of the random choices. Default 1.
    pub seed: u64,
    /// What the suite is for. Default branch coverage.
    pub property: Property,
    /// Offer the failures of runtime checks (division by zero, overflow
    /// checks the frontend emits, out-of-bounds accesses) as goals. Default
    /// on.
    pub runtime_checks: bool,
    /// Limits of each traced run.
    pub trace: TraceLimits,
    /// Limits of each replay in the interpreter. Default: the interpreter's
    /// own (50,000,000 steps), so `walkdown run` replays a test to exactly
    /// the goals the report claims.
    pub replay: ExecLimits,
    /// The solver stack.
    pub solver: SolverSettings,
    /// Stop after this many executions (for tests). Default none.
    pub max_executions: Option<u64>,
    /// Random vectors to run when no candidate is left. Default on.
    pub random_fallback: bool,
    /// Candidates kept waiting at most; beyond it, new candidates that aim
    /// at no open goal are dropped (memory stays bounded on long runs).
    /// Default 50,000 (each candidate keeps its run's path condition alive).
    pub max_waiting: usize,
    /// Share of the work (in `walkdown_campaign::work` ticks) spent replaying mutations of kept tests (values
    /// from kept tests appended, replaced, truncated) in the interpreter
    /// alone; a mutant that covers something new is traced and joins the
    /// search. Cheap runs that reach states a path-by-path search reaches
    /// slowly (long input sequences). Default 0.3; 0 turns it off.
    pub mutation_share: f64,
    /// Goals a static analysis proved unreachable: the engine does not aim
    /// at them and does not wait for them to end the run. A test that
    /// covers one anyway is counted in [`Stats::proof_conflicts`]. Default
    /// none.
    pub unreachable: Vec<GoalId>,
    /// Loops whose exits get trip-count symbols (from
    /// [`walkdown_absint::trip_count_forms`]; see [`crate::symex::TripLoop`]).
    /// Default none.
    pub loop_forms: Vec<walkdown_absint::LoopForms>,
    /// Keep every query the engine asks, with the expression pool, in
    /// [`GenResult::query_log`] (for tests of the solver layers). Default off.
    pub log_queries: bool,
    /// With a model checker's monitor: candidates of covered edges the
    /// monitor places at a known distance from an open goal are tried
    /// nearest first, taking turns with the others. Default off: on the
    /// Crabs programs (`bench/crabs`) it did not reach the final coverage
    /// sooner, and trying them before all others was 2 to 4 times slower.
    pub monitor_order: bool,
    /// The program the tracer runs instead of the campaign's, with the
    /// same blocks, goals and instruction ids: the campaign's program with
    /// the annotation pass's `prune`/`tryfirst` instrumentation
    /// (`walkdown-annot`). Runs a `prune` stops are not submitted as tests
    /// (their executions are verified); the campaign still replays every
    /// other vector on its own program. Default none.
    pub instrumented: Option<std::sync::Arc<Program>>,
    /// Candidates of `tryfirst` points solved before every other candidate,
    /// at most (the paper's bound on interrupts); later ones wait like any
    /// other. Default 100.
    pub max_tryfirst: u64,
    /// Per-query limit (milliseconds) of queries over float inputs, below
    /// the solver's own: bit-blasted IEEE-754 terms can take Z3 long. A
    /// query that hits it is asked again with the float inputs fixed to
    /// the run's values (the concrete fallback, counted in
    /// [`Stats::fp_fallbacks`]). Default 2,000.
    pub fp_timeout_ms: u32,
    /// First limit (milliseconds) of a query: one that hits it waits in a
    /// queue of slow candidates and is asked again under four times the
    /// limit (and so on, up to the solver's own), taking at most half the
    /// time while other candidates wait. One slow query (an unsatisfiable
    /// path condition over memory that takes Z3 seconds) then no longer
    /// holds up the quick ones behind it. `None`: every query gets the
    /// solver's limit at once. Default 500.
    pub quick_query_ms: Option<u32>,
}

impl Default for GenSettings {
    fn default() -> Self {
        GenSettings {
            time: Duration::from_secs(60),
            search: SearchKind::Bfs,
            seed: 1,
            property: Property::CoverBranches,
            runtime_checks: true,
            trace: TraceLimits::default(),
            replay: ExecLimits::default(),
            solver: SolverSettings::default(),
            max_executions: None,
            random_fallback: true,
            mutation_share: 0.3,
            max_waiting: 50_000,
            unreachable: Vec::new(),
            loop_forms: Vec::new(),
            log_queries: false,
            monitor_order: false,
            instrumented: None,
            max_tryfirst: 100,
            fp_timeout_ms: 2_000,
            quick_query_ms: Some(500),
        }
    }
}

/// Engine figures.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Traced runs.
    pub executions: u64,
    /// Interpreter replays.
    pub replays: u64,
    /// Candidates solved.
    pub queries: u64,
    /// Of which satisfiable / unsatisfiable / unknown.
    pub sat: u64,
    /// See `sat`.
    pub unsat: u64,
    /// See `sat`.
    pub unknown: u64,
    /// Candidates skipped as duplicates.
    pub duplicates: u64,
    /// Candidates dropped because too many were waiting.
    pub dropped: u64,
    /// Candidates not solved for because a model checker's graph shows
    /// their branch edge leads to no open goal (the monitor's pruning).
    pub monitor_pruned: u64,
    /// Candidates of covered edges tried in the order of the monitor's
    /// distance to an open goal.
    pub monitor_ordered: u64,
    /// Expressions in the pool.
    pub expressions: usize,
    /// Goals covered by a test although proved unreachable (a soundness
    /// bug of the proof; should stay 0).
    pub proof_conflicts: u64,
    /// Replays that did not take the branch the solver aimed for.
    pub divergences: u64,
    /// Random vectors run.
    pub random_runs: u64,
    /// Tests of other engines traced here.
    pub adopted: u64,
    /// Mutants of kept tests replayed.
    pub mutations: u64,
    /// Mutants kept.
    pub mutations_kept: u64,
    /// Of the mutants, those with a float value made for a float input
    /// (see [`crate::floatmut`]).
    pub float_mutations: u64,
    /// Mutants that put one of the program's words into its environment
    /// (see [`crate::words`]).
    pub word_mutations: u64,
    /// Mutants that put a part of another kept test's environment into
    /// one's (see [`crate::splice`]).
    pub splice_mutations: u64,
    /// Mutants that change the shape of a kept test's environment (see
    /// [`crate::shape`]).
    pub shape_mutations: u64,
    /// Traced runs cut at their limit of terms built
    /// (`TraceLimits::max_built`).
    pub over_built: u64,
    /// Traced runs a `prune` of the annotation pass stopped (not submitted).
    pub pruned: u64,
    /// `tryfirst` candidates solved ahead of the others.
    pub tryfirst: u64,
    /// Queries cut at a limit below the solver's own (see
    /// [`GenSettings::quick_query_ms`]) and queued to be asked again.
    pub slow_queued: u64,
    /// Of those asked again, the satisfiable ones.
    pub slow_sat: u64,
    /// Slow candidates not asked again: their goal was settled meanwhile.
    pub slow_dropped: u64,
    /// Time in the solver stack.
    pub solver_time: Duration,
    /// Queries over float inputs (a part of `queries`), of which
    /// satisfiable, and unknown (mostly the float time limit).
    pub fp_queries: u64,
    /// See `fp_queries`.
    pub fp_sat: u64,
    /// See `fp_queries`.
    pub fp_unknown: u64,
    /// Unknown float queries asked again with the float inputs fixed to
    /// their values in the run, and of those, satisfiable.
    pub fp_fallbacks: u64,
    /// See `fp_fallbacks`.
    pub fp_fallback_sat: u64,
    /// Time in float queries (including the fallbacks).
    pub fp_time: Duration,
    /// Time tracing.
    pub trace_time: Duration,
    /// Time replaying.
    pub replay_time: Duration,
    /// Elapsed.
    pub elapsed: Duration,
    /// Candidates waiting.
    pub waiting: usize,
    /// Goals covered.
    pub covered: usize,
    /// Goals in all.
    pub goals: usize,
    /// Tests this engine submitted that the campaign kept.
    pub tests: usize,
    /// Per solver layer.
    pub layers: Vec<LayerStats>,
}

/// The result of a generation run.
#[derive(Debug)]
pub struct GenResult {
    /// Kept tests.
    pub tests: Vec<KeptTest>,
    /// For each goal, the test that covered it first.
    pub goal_tests: HashMap<GoalId, usize>,
    /// Errors reached, with their tests.
    pub errors: Vec<(ErrorFound, usize)>,
    /// Figures.
    pub stats: Stats,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// With [`GenSettings::log_queries`]: the pool and every query asked.
    pub query_log: Option<QueryLog>,
}

/// The queries of a run, for replaying them through other solver stacks.
pub struct QueryLog {
    /// The pool the queries' expressions live in.
    pub pool: ExprPool,
    /// Each query's constraints, in the order asked.
    pub queries: Vec<Vec<walkdown_smt::ExprId>>,
}

impl std::fmt::Debug for QueryLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "QueryLog({} queries)", self.queries.len())
    }
}

/// Why generation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The time budget ran out.
    Time,
    /// Every goal is covered.
    AllCovered,
    /// Nothing left to try (and random fallback off).
    Exhausted,
    /// `coverage-error`: the error was reached.
    ErrorReached,
    /// Interrupted (Ctrl-C).
    Interrupted,
    /// `max_executions` reached.
    ExecutionLimit,
}

/// Errors that end generation.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// The interpreter cannot lay out the program.
    #[error(transparent)]
    Interp(#[from] walkdown_interp::InterpError),
    /// The engine failed.
    #[error("{0}")]
    Engine(String),
}

/// The concolic engine as a member of a campaign. `stats` and `query_log`
/// hold the figures of its last run.
pub struct ConcolicEngine {
    /// Its settings.
    pub settings: GenSettings,
    /// Figures of the last run.
    pub stats: Stats,
    /// Why the last run ended.
    pub stop_reason: StopReason,
    /// With [`GenSettings::log_queries`]: the last run's queries.
    pub query_log: Option<QueryLog>,
}

impl ConcolicEngine {
    /// An engine with these settings.
    pub fn new(settings: GenSettings) -> ConcolicEngine {
        ConcolicEngine { settings, stats: Stats::default(), stop_reason: StopReason::Exhausted, query_log: None }
    }
}

impl walkdown_campaign::Engine for ConcolicEngine {
    fn name(&self) -> &'static str {
        "concolic"
    }

    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        let _label = walkdown_smt::dump::engine_scope("concolic");
        let campaign = ctx.campaign();
        let program = campaign.program();
        let goals = campaign.goals();
        let settings = &self.settings;
        let instrumented_interp = match &settings.instrumented {
            Some(p) => Some(
                walkdown_interp::Interpreter::new(p, goals)
                    .map_err(|e| EngineError(format!("the instrumented program: {e}")))?,
            ),
            None => None,
        };
        let interp = instrumented_interp.as_ref().unwrap_or(campaign.interpreter());
        let traced: &Program = settings.instrumented.as_deref().unwrap_or(program);
        let trip_loops = settings
            .loop_forms
            .iter()
            .filter_map(|f| Some(TripLoop::new(f.clone(), program.funcs.get(f.func)?.body.as_ref()?)))
            .collect();
        let mut tracer = Tracer::new(traced, goals, interp.prepared()).with_trip_loops(trip_loops);
        let start = Instant::now();
        if !settings.runtime_checks {
            for (id, g) in goals.goals.iter() {
                if let walkdown_ir::goals::GoalKind::Error { site: walkdown_ir::goals::ErrorSite::Check(k), .. } =
                    g.kind
                {
                    if !k.is_user_property() {
                        ctx.note_open(id, walkdown_campaign::OpenReason::NotAttempted("runtime checks are off".into()));
                    }
                }
            }
        }
        let closures = ctx.closures();
        let mut solver_settings = settings.solver;
        if ctx.shared() {
            // A query holds the shared worker until it ends.
            let cap = ctx.query_limit().as_millis().clamp(1, u128::from(u32::MAX)) as u32;
            solver_settings.timeout_ms = Some(solver_settings.timeout_ms.map_or(cap, |t| t.min(cap)));
            solver_settings.work_limit = ctx.query_work_limit();
        }
        let mut e = Search {
            program,
            goals,
            settings,
            ctx,
            pool: concolic_pool(),
            solver: {
                // No query may outlive the budget the user gave.
                let mut stack = SolverStack::build(&solver_settings);
                stack.set_deadline(Some(ctx.deadline()));
                stack
            },
            fp_solver: {
                let mut fp = solver_settings;
                fp.timeout_ms = Some(fp.timeout_ms.map_or(settings.fp_timeout_ms, |t| t.min(settings.fp_timeout_ms)));
                let mut stack = SolverStack::build(&fp);
                stack.set_deadline(Some(ctx.deadline()));
                stack
            },
            distances: Distances::compute(program, goals, &closed_flags(&closures)),
            closures,
            epoch: ctx.epoch(),
            distances_epoch: ctx.epoch(),
            stats: Stats { goals: goals.len(), ..Stats::default() },
            bases: Vec::new(),
            adopted: 0,
            searcher: crate::schedule::compose(&ScheduleSettings {
                search: settings.search.clone(),
                max_tryfirst: settings.max_tryfirst,
                monitor_order: settings.monitor_order,
            }),
            tried: HashSet::new(),
            rng: Rng::new(settings.seed),
            seq: 0,
            start,
            last_progress: Instant::now(),
            logged: Vec::new(),
            mutation_work: 0,
            solver_work: 0,
            dictionary: Vec::new(),
            dictionary_seen: HashSet::new(),
            words: crate::words::EnvWords::of(program),
            env: program.environment.clone().filter(|e| !e.is_empty()),
            float_inputs: Default::default(),
            float_constants: crate::floatmut::program_constants(program),
            guidance_version: 0,
            waiting_cap: settings.max_waiting,
            sheds: 0,
            retrace_below: 0,
        };
        let reason = e.run(&mut tracer);
        e.finish_stats();
        e.publish(reason.words());
        self.stats = e.stats.clone();
        self.stop_reason = reason;
        if settings.log_queries {
            self.query_log =
                Some(QueryLog { pool: std::mem::take(&mut e.pool), queries: std::mem::take(&mut e.logged) });
        }
        Ok(EngineEnd::new(reason.words()))
    }
}

impl StopReason {
    /// The reason in the words of `report.json`.
    pub fn words(self) -> &'static str {
        match self {
            StopReason::Time => "stopped: budget",
            StopReason::AllCovered => "stopped: every goal settled",
            StopReason::Exhausted => "exhausted: no candidate left",
            StopReason::ErrorReached => "stopped: error reached",
            StopReason::Interrupted => "stopped",
            StopReason::ExecutionLimit => "stopped: execution limit",
        }
    }
}

/// What a mutant changed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mutant {
    /// Input values, from the kept tests' or small ones.
    Values,
    /// A float input, to a float value.
    Float,
    /// The environment, with one of the program's words.
    Word,
    /// The environment, with a part of another kept test's.
    Splice,
    /// The environment's shape: a line or an argument ended, a piece
    /// repeated or removed.
    Shape,
}

fn closed_flags(closures: &[GoalClosure]) -> Vec<bool> {
    closures.iter().map(|c| *c != GoalClosure::Open).collect()
}

struct Search<'a, 's, 'k, 'p> {
    program: &'a Program,
    goals: &'a Goals,
    settings: &'s GenSettings,
    ctx: &'a EngineCtx<'k, 'p>,
    pool: ExprPool,
    solver: SolverStack,
    /// The stack for queries over float inputs (a shorter time limit).
    fp_solver: SolverStack,
    /// Where each goal stands in the campaign, as of `epoch`.
    closures: Vec<GoalClosure>,
    epoch: u64,
    stats: Stats,
    /// Vectors of every kept test (this engine's and adopted ones): the
    /// bases of mutants.
    bases: Vec<TestVector>,
    /// Tests of the campaign seen so far (own and other engines').
    adopted: usize,
    /// The search order with the scheduling decorators around it (see
    /// [`crate::schedule`]).
    searcher: Box<dyn Searcher>,
    tried: HashSet<u64>,
    distances: Distances,
    distances_epoch: u64,
    rng: Rng,
    seq: u64,
    start: Instant,
    last_progress: Instant,
    logged: Vec<Vec<walkdown_smt::ExprId>>,
    /// Ticks spent on mutation rounds (see `walkdown_campaign::work`): the
    /// mutation share is a share of work, so runs are reproducible.
    mutation_work: u64,
    /// The solver's work already charged.
    solver_work: u64,
    dictionary: Vec<InputValue>,
    dictionary_seen: HashSet<u64>,
    /// The program's words for its environment (see [`crate::words`]).
    words: Option<crate::words::EnvWords>,
    /// The program's environment, for splices (see [`crate::splice`]).
    env: Option<walkdown_ir::env::Environment>,
    /// Input positions traced runs read as floats, with their type.
    float_inputs: std::collections::BTreeMap<usize, walkdown_ir::Type>,
    /// The program's float constants (see [`crate::floatmut`]).
    float_constants: Vec<f64>,
    /// The version of the campaign's guidance the tracer steps along.
    guidance_version: u64,
    /// Candidates aiming at no open goal kept waiting at most:
    /// `max_waiting`, lowered when the memory bound asks to shed.
    waiting_cap: usize,
    /// Times the memory bound asked to shed.
    sheds: u32,
    /// Tests of the campaign below this index are traced again even when
    /// this engine found them (after a restart, see [`Search::restart`]).
    retrace_below: usize,
}

/// A pool for the engine's traces: comparisons' bits folded (see
/// [`ExprPool::fold_comparison_bits`]).
fn concolic_pool() -> ExprPool {
    let mut pool = ExprPool::new();
    pool.fold_comparison_bits();
    pool
}

/// Generates tests for `program` with the concolic engine alone, until the
/// budget ends, `stop` is set, or nothing is left to do.
pub fn generate(
    program: &Program,
    goals: &Goals,
    settings: &GenSettings,
    stop: &AtomicBool,
) -> Result<GenResult, GenError> {
    struct Discard;
    impl TestSink for Discard {
        fn test(&mut self, _: &KeptTest) -> Result<(), String> {
            Ok(())
        }
    }
    let campaign_settings =
        CampaignSettings { time: settings.time, property: settings.property, replay: settings.replay };
    let campaign = Campaign::new(program, goals, campaign_settings, Box::new(Discard), stop)?;
    for g in &settings.unreachable {
        campaign.claim("static", *g, Claim::Unreachable { method: "given".into() });
    }
    let mut engine = ConcolicEngine::new(settings.clone());
    let portfolio = PortfolioSettings { jobs: 1, ..PortfolioSettings::default() };
    let ends = walkdown_campaign::run_portfolio(&campaign, vec![Box::new(&mut engine)], &[], &portfolio, &mut |_| {});
    if let Some(Err(e)) = ends.into_iter().next() {
        return Err(GenError::Engine(e.0));
    }
    let snap = campaign.snapshot();
    let mut stats = engine.stats.clone();
    stats.proof_conflicts = snap.conflicts.len() as u64;
    let goal_tests = snap
        .goals
        .iter()
        .enumerate()
        .filter_map(|(i, g)| match g.verdict {
            walkdown_campaign::Verdict::Covered { test } => Some((GoalId::new(i), test)),
            _ => None,
        })
        .collect();
    Ok(GenResult {
        tests: snap.tests,
        goal_tests,
        errors: snap.errors,
        stats,
        stop_reason: match snap.stop {
            Some(StopCause::ErrorReached) => StopReason::ErrorReached,
            Some(StopCause::AllClosed) => StopReason::AllCovered,
            Some(StopCause::Interrupted) => StopReason::Interrupted,
            Some(StopCause::Time) => StopReason::Time,
            _ => engine.stop_reason,
        },
        query_log: engine.query_log.take(),
    })
}

impl<'a, 's, 'k, 'p> Search<'a, 's, 'k, 'p> {
    /// Drops what the memory bound can have (see
    /// `walkdown_campaign::memory`). The first time: the solvers' caches
    /// and the record of vectors tried (a vector may then be tried twice),
    /// and the cap on waiting candidates that aim at no open goal is
    /// halved, so the queue stops growing; the candidates waiting stay
    /// (each may be the way to a goal). Every later time, a [restart]
    /// (Self::restart).
    fn shed(&mut self, tracer: &mut Tracer<'a>) {
        self.sheds += 1;
        if self.sheds > 1 {
            return self.restart(tracer);
        }
        let cached = self.solver.shed() + self.fp_solver.shed();
        let tried = std::mem::take(&mut self.tried).len();
        self.waiting_cap = (self.searcher.capped_len() / 2).min(self.waiting_cap);
        self.ctx.note_dropped(&format!(
            "{cached} cached solver answers and models, {tried} tried vectors; at most {} waiting candidates aiming at no open goal from now on",
            self.waiting_cap
        ));
    }

    /// Starts the search over from the campaign's tests: the expression
    /// pool (which only grows), every waiting candidate and the solvers'
    /// caches go; the kept tests are traced again, so their alternatives
    /// become candidates anew (without the generational bounds they had:
    /// some paths may be tried twice).
    fn restart(&mut self, tracer: &mut Tracer<'a>) {
        let expressions = self.pool.len();
        let candidates = self.searcher.len();
        let cached = self.solver.shed() + self.fp_solver.shed();
        tracer.forget_pool();
        self.pool = concolic_pool();
        self.searcher = crate::schedule::compose(&ScheduleSettings {
            search: self.settings.search.clone(),
            max_tryfirst: self.settings.max_tryfirst,
            monitor_order: self.settings.monitor_order,
        });
        self.tried.clear();
        self.logged.clear();
        self.retrace_below = self.ctx.campaign().test_count();
        self.adopted = 0;
        self.ctx.note_dropped(&format!(
            "restarted from the campaign's tests: {expressions} expressions, {candidates} waiting candidates, {cached} cached solver answers and models"
        ));
    }

    fn run(&mut self, tracer: &mut Tracer<'a>) -> StopReason {
        let first = TestVector::default();
        self.execute(tracer, first, 0);
        loop {
            if !self.ctx.checkpoint() {
                return match self.ctx.campaign().stop_cause() {
                    Some(StopCause::ErrorReached) => StopReason::ErrorReached,
                    Some(StopCause::AllClosed) => StopReason::AllCovered,
                    Some(StopCause::Interrupted) => StopReason::Interrupted,
                    _ => StopReason::Time,
                };
            }
            if self.settings.max_executions.is_some_and(|m| self.stats.executions >= m) {
                return StopReason::ExecutionLimit;
            }
            if self.ctx.shed() {
                self.shed(tracer);
            }
            self.refresh_closures();
            let guidance = self.ctx.campaign().guidance();
            if guidance.version != self.guidance_version {
                self.guidance_version = guidance.version;
                tracer.set_monitor(guidance.monitor.clone());
            }
            self.adopt_tests(tracer);
            if self.last_progress.elapsed() >= Duration::from_secs(1) {
                self.last_progress = Instant::now();
                self.finish_stats();
                self.publish("running");
            }
            let share = self.settings.mutation_share;
            if share > 0.0 && !self.bases.is_empty() && (self.mutation_work as f64) < share * self.ctx.work() as f64 {
                self.mutation_round(tracer);
                continue;
            }
            let Some(candidate) = self.next_candidate() else {
                if !self.settings.random_fallback {
                    return StopReason::Exhausted;
                }
                if !self.bases.is_empty() && share > 0.0 {
                    self.mutation_round(tracer);
                    continue;
                }
                let v = self.random_vector();
                self.stats.random_runs += 1;
                self.execute(tracer, v, 0);
                continue;
            };
            let Some(vector) = self.solve(&candidate) else { continue };
            let bound = candidate.point + 1;
            let target = candidate.alternative().goal;
            self.execute(tracer, vector, bound);
            if let Some(g) = target {
                if self.closures[g.index()] != GoalClosure::Covered {
                    self.stats.divergences += 1;
                }
            }
        }
    }

    /// Charges a traced run's work (steps and the terms it built) and
    /// counts a run cut at its build limit.
    fn charge_trace(&mut self, trace: &Trace) {
        self.ctx.charge(work::traced(trace.steps) + work::built(trace.built));
        self.stats.over_built += u64::from(trace.over_built);
    }

    /// Takes in the goals other engines (or this one) closed.
    fn refresh_closures(&mut self) {
        let epoch = self.ctx.epoch();
        if epoch != self.epoch {
            self.epoch = epoch;
            self.closures = self.ctx.closures();
        }
    }

    /// Traces the tests other engines kept, so their paths offer
    /// candidates here too; and learns every kept test's values.
    fn adopt_tests(&mut self, tracer: &mut Tracer<'a>) {
        if self.ctx.campaign().test_count() == self.adopted {
            return;
        }
        for (index, vector, engine) in self.ctx.campaign().tests_since(self.adopted) {
            self.adopted = index + 1;
            self.learn(&vector);
            if engine != "concolic" || index < self.retrace_below {
                let deadline = self.ctx.deadline();
                let t = Instant::now();
                let trace = tracer.run(&mut self.pool, &vector.values, &self.settings.trace, deadline);
                self.stats.trace_time += t.elapsed();
                self.charge_trace(&trace);
                self.stats.executions += 1;
                self.stats.adopted += 1;
                let run_no = self.stats.executions;
                self.expand(trace, vector, 0, run_no);
            }
        }
    }

    /// A kept test's vector joins the mutation bases and its values the
    /// dictionary.
    fn learn(&mut self, vector: &TestVector) {
        for v in &vector.values {
            let key = match v {
                InputValue::Int(i) => *i as u64,
                InputValue::Float(f) => f.to_bits(),
            };
            if self.dictionary.len() < 256 && self.dictionary_seen.insert(key) {
                self.dictionary.push(*v);
            }
        }
        self.bases.push(vector.clone());
    }

    fn publish(&self, status: &str) {
        let s = &self.stats;
        let secs = s.elapsed.as_secs_f64().max(1e-9);
        let mut counters = vec![
            ("executions", s.executions as f64),
            ("replays", s.replays as f64),
            ("adopted_tests", s.adopted as f64),
            ("random_runs", s.random_runs as f64),
            ("mutations", s.mutations as f64),
            ("mutations_kept", s.mutations_kept as f64),
            ("float_mutations", s.float_mutations as f64),
            ("word_mutations", s.word_mutations as f64),
            ("splice_mutations", s.splice_mutations as f64),
            ("shape_mutations", s.shape_mutations as f64),
            ("runs_over_built", s.over_built as f64),
            ("pruned", s.pruned as f64),
            ("tryfirst", s.tryfirst as f64),
            ("slow_queued", s.slow_queued as f64),
            ("slow_sat", s.slow_sat as f64),
            ("slow_dropped", s.slow_dropped as f64),
            ("queries", s.queries as f64),
            ("sat", s.sat as f64),
            ("unsat", s.unsat as f64),
            ("unknown", s.unknown as f64),
            ("duplicates", s.duplicates as f64),
            ("divergences", s.divergences as f64),
            ("waiting", s.waiting as f64),
            ("dropped", s.dropped as f64),
            ("monitor_pruned", s.monitor_pruned as f64),
            ("monitor_ordered", s.monitor_ordered as f64),
            ("expressions", s.expressions as f64),
            ("solver_s", s.solver_time.as_secs_f64()),
            ("fp_queries", s.fp_queries as f64),
            ("fp_sat", s.fp_sat as f64),
            ("fp_unknown", s.fp_unknown as f64),
            ("fp_fallbacks", s.fp_fallbacks as f64),
            ("fp_fallback_sat", s.fp_fallback_sat as f64),
            ("fp_s", s.fp_time.as_secs_f64()),
            ("trace_s", s.trace_time.as_secs_f64()),
            ("replay_s", s.replay_time.as_secs_f64()),
            ("executions_per_s", s.executions as f64 / secs),
        ];
        for l in &s.layers {
            counters.push((l.layer, l.queries as f64));
        }
        self.ctx.publish(status, counters);
    }

    /// The next candidate worth solving (its [`Candidate::limit`] says
    /// under which limit).
    fn next_candidate(&mut self) -> Option<Candidate> {
        if self.distances_epoch != self.epoch {
            self.distances = Distances::compute(self.program, self.goals, &closed_flags(&self.closures));
            self.distances_epoch = self.epoch;
        }
        let guidance = self.ctx.campaign().guidance();
        let ctx = SearchContext {
            distances: &self.distances,
            coverage_epoch: self.epoch,
            closures: &self.closures,
            useless_edges: &guidance.useless_edges,
        };
        self.searcher.next(&ctx, &mut self.rng)
    }

    /// Solves the candidate's path prefix with its alternative; the new
    /// vector, if satisfiable.
    fn solve(&mut self, c: &Candidate) -> Option<TestVector> {
        let alt = c.alternative();
        let limit = c.limit;
        let mut constraints: Vec<walkdown_smt::ExprId> = c.path[..c.prefix].to_vec();
        constraints.push(alt.cond);
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            constraints.hash(&mut h);
            h.finish()
        };
        if limit == QueryLimit::First && !self.tried.insert(key) {
            self.stats.duplicates += 1;
            return None;
        }
        self.stats.queries += 1;
        if self.settings.log_queries {
            self.logged.push(constraints.clone());
        }
        let t = Instant::now();
        let floats = self.float_symbols(c, &constraints);
        // Float queries have their own, shorter limit and fallback.
        let full_ms = self.settings.solver.timeout_ms.unwrap_or(u32::MAX);
        let quick_ms = match (limit, self.settings.quick_query_ms) {
            _ if !floats.is_empty() => None,
            (QueryLimit::First, first) => first,
            (QueryLimit::Again(ms), _) => ms,
        }
        .filter(|&ms| ms < full_ms);
        let quick = quick_ms.map(|ms| Duration::from_millis(u64::from(ms)));
        let mut answer = if floats.is_empty() {
            if let Some(q) = quick {
                self.solver.set_deadline(Some(self.ctx.deadline().min(t + q)));
            }
            let a = self.solver.check(&self.pool, &Query { constraints: &constraints });
            if quick.is_some() {
                self.solver.set_deadline(Some(self.ctx.deadline()));
            }
            a
        } else {
            self.stats.fp_queries += 1;
            let a = self.fp_solver.check(&self.pool, &Query { constraints: &constraints });
            match &a {
                Ok(Answer::Sat(_)) => self.stats.fp_sat += 1,
                Ok(Answer::Unknown(_)) | Err(_) => self.stats.fp_unknown += 1,
                Ok(Answer::Unsat) => {}
            }
            a
        };
        if !floats.is_empty() && matches!(answer, Ok(Answer::Unknown(_)) | Err(_)) {
            // The concrete fallback: float inputs keep the run's values
            // and the solver looks for the rest. First only those the
            // alternative's condition does not read (they satisfy the
            // path prefix as they are), then all of them.
            self.stats.fp_fallbacks += 1;
            let in_alt: HashSet<walkdown_smt::Leaf> = self.pool.symbols_of(alt.cond).iter().copied().collect();
            let outside: Vec<_> = floats
                .iter()
                .filter(|(e, _)| !self.pool.symbols_of(*e).iter().any(|l| in_alt.contains(l)))
                .copied()
                .collect();
            let mut tries = vec![floats.clone()];
            if !outside.is_empty() && outside.len() < floats.len() {
                tries.insert(0, outside);
            }
            for fix in tries {
                let mut fixed = constraints.clone();
                for (e, bits) in &fix {
                    let w = self.pool.width(*e).unwrap_or(64);
                    if let Ok(eq) = self.pool.bv_const(w, u128::from(*bits)).and_then(|k| self.pool.eq(*e, k)) {
                        fixed.push(eq);
                    }
                }
                let s = if fix.len() < floats.len() { &mut self.fp_solver } else { &mut self.solver };
                answer = s.check(&self.pool, &Query { constraints: &fixed });
                if matches!(answer, Ok(Answer::Sat(_))) {
                    self.stats.fp_fallback_sat += 1;
                    break;
                }
            }
        }
        if !floats.is_empty() {
            self.stats.fp_time += t.elapsed();
        }
        self.stats.solver_time += t.elapsed();
        let solver_work = self.solver.work() + self.fp_solver.work();
        // Every query costs something, even one a cache answers.
        self.ctx.charge(1 + work::solver(solver_work - self.solver_work));
        self.solver_work = solver_work;
        let cut_short = matches!((quick, &answer), (Some(q), Ok(Answer::Unknown(_))) if t.elapsed() + Duration::from_millis(10) >= q);
        let outcome = Asked { elapsed: t.elapsed(), cut_short, sat: matches!(answer, Ok(Answer::Sat(_))) };
        self.searcher.asked(c, &outcome);
        if cut_short && Instant::now() < self.ctx.deadline() {
            // Back to the searcher, whose slow-query retry holds it.
            let again = Candidate { limit: QueryLimit::after(quick_ms.unwrap_or(full_ms), full_ms), ..c.clone() };
            self.searcher.add(again);
            return None;
        }
        match answer {
            Ok(Answer::Sat(model)) => {
                self.stats.sat += 1;
                Some(vector_from_model(&c.inputs, &c.vector, &model, self.program.data_model))
            }
            Ok(Answer::Unsat) => {
                self.stats.unsat += 1;
                None
            }
            Ok(Answer::Unknown(_)) | Err(_) => {
                self.stats.unknown += 1;
                None
            }
        }
    }

    /// The float input symbols `constraints` read, with their bits in the
    /// candidate's run.
    fn float_symbols(&self, c: &Candidate, constraints: &[walkdown_smt::ExprId]) -> Vec<(walkdown_smt::ExprId, u64)> {
        let floats: Vec<_> = c.inputs.iter().filter(|i| i.ty.is_float() && i.sym.is_some()).collect();
        if floats.is_empty() {
            return Vec::new();
        }
        let leaves: HashSet<walkdown_smt::Leaf> =
            constraints.iter().flat_map(|&e| self.pool.symbols_of(e).iter().copied()).collect();
        floats
            .into_iter()
            .filter_map(|i| {
                let s = i.sym?;
                leaves.contains(&walkdown_smt::Leaf::Sym(s)).then(|| (self.pool.symbol_expr(s), i.bits))
            })
            .collect()
    }

    /// Traces `vector`, submits it to the campaign (which replays and
    /// maybe keeps it), and adds its candidates after `bound`.
    fn execute(&mut self, tracer: &mut Tracer<'a>, vector: TestVector, bound: usize) {
        let t = Instant::now();
        let trace = tracer.run(&mut self.pool, &vector.values, &self.settings.trace, self.ctx.deadline());
        self.stats.trace_time += t.elapsed();
        self.charge_trace(&trace);
        self.stats.executions += 1;
        let run_no = self.stats.executions;
        if trace.end == crate::symex::TraceEnd::Pruned {
            // Verified from the prune on: no test (as in the paper, an
            // aborted run is none), but its way on is a candidate.
            self.stats.pruned += 1;
        } else {
            self.submit(&vector);
        }
        self.expand(trace, vector, bound, run_no);
    }

    /// Has the campaign replay `vector`; says whether it kept it.
    fn submit(&mut self, vector: &TestVector) -> bool {
        let t = Instant::now();
        let submission = self.ctx.submit(vector);
        self.stats.replay_time += t.elapsed();
        self.stats.replays += 1;
        if submission.kept.is_some() {
            self.stats.tests += 1;
        }
        // Our own keeps close goals: see them at once, not a round later.
        self.refresh_closures();
        submission.kept.is_some()
    }

    /// Replays mutants of kept tests; traces those that cover something new.
    fn mutation_round(&mut self, tracer: &mut Tracer<'a>) {
        let work_before = self.ctx.work();
        for _ in 0..16 {
            // A replay can take up to the step limit; the budget wins.
            if self.ctx.stopped() {
                break;
            }
            let (vector, kind) = self.mutate();
            self.stats.mutations += 1;
            self.stats.float_mutations += u64::from(kind == Mutant::Float);
            self.stats.word_mutations += u64::from(kind == Mutant::Word);
            self.stats.splice_mutations += u64::from(kind == Mutant::Splice);
            self.stats.shape_mutations += u64::from(kind == Mutant::Shape);
            if self.submit(&vector) {
                self.stats.mutations_kept += 1;
                let trace = tracer.run(&mut self.pool, &vector.values, &self.settings.trace, self.ctx.deadline());
                self.charge_trace(&trace);
                self.stats.executions += 1;
                let run_no = self.stats.executions;
                self.expand(trace, vector, 0, run_no);
            }
        }
        self.mutation_work += self.ctx.work() - work_before;
    }

    /// A mutant of a random kept test, and what kind of mutant it is.
    fn mutate(&mut self) -> (TestVector, Mutant) {
        let base = &self.bases[self.rng.below(self.bases.len() as u64) as usize];
        if let Some(env) = &self.env {
            // Of the mutants of a program with an environment, a quarter
            // get a word, an eighth a splice and an eighth a new shape.
            match (self.rng.below(8), &self.words) {
                (0 | 1, Some(words)) => {
                    return (TestVector { values: words.mutate(env, &mut self.rng, &base.values) }, Mutant::Word);
                }
                (2, _) => {
                    let donor = &self.bases[self.rng.below(self.bases.len() as u64) as usize];
                    let values = crate::splice::splice(env, &mut self.rng, &base.values, &donor.values);
                    return (TestVector { values }, Mutant::Splice);
                }
                (3, _) => {
                    let values = crate::shape::reshape(env, &mut self.rng, &base.values);
                    return (TestVector { values }, Mutant::Shape);
                }
                _ => {}
            }
        }
        let mut values = base.values.clone();
        let ops = 1 + self.rng.below(3);
        let mut float_mutant = false;
        for _ in 0..ops {
            // Half the time, a float input (as traced runs read them) gets
            // a float value.
            if !self.float_inputs.is_empty() && self.rng.below(2) == 0 {
                let k = self.rng.below(self.float_inputs.len() as u64) as usize;
                let (&i, &ty) = self.float_inputs.iter().nth(k).expect("k is below the length");
                while values.len() <= i {
                    values.push(InputValue::Float(0.0));
                }
                let current = values[i].to_f64();
                values[i] = crate::floatmut::mutate_float(&mut self.rng, ty, current, &self.float_constants);
                float_mutant = true;
                continue;
            }
            match self.rng.below(4) {
                0 => {
                    let n = 1 + self.rng.below(8);
                    for _ in 0..n {
                        let v = self.pick_value();
                        values.push(v);
                    }
                }
                1 if !values.is_empty() => {
                    let i = self.rng.below(values.len() as u64) as usize;
                    values[i] = self.pick_value();
                }
                2 if !values.is_empty() => {
                    let i = self.rng.below(values.len() as u64) as usize;
                    values[i] = match self.rng.below(4) {
                        0 => InputValue::Int(0),
                        1 => InputValue::Int(1),
                        2 => InputValue::Int(-1),
                        _ => InputValue::Int(self.rng.below(256) as i128 - 128),
                    };
                }
                _ if !values.is_empty() => {
                    let i = self.rng.below(values.len() as u64) as usize;
                    values.truncate(i);
                    let v = self.pick_value();
                    values.push(v);
                }
                _ => values.push(self.pick_value()),
            }
        }
        (TestVector { values }, if float_mutant { Mutant::Float } else { Mutant::Values })
    }

    /// A value from the kept tests (or a small random one).
    fn pick_value(&mut self) -> InputValue {
        if self.dictionary.is_empty() || self.rng.below(8) == 0 {
            InputValue::Int(self.rng.below(64) as i128 - 16)
        } else {
            self.dictionary[self.rng.below(self.dictionary.len() as u64) as usize]
        }
    }

    /// Adds the candidates of a traced run after its bound.
    fn expand(&mut self, trace: Trace, vector: TestVector, bound: usize, run_no: u64) {
        for (k, i) in trace.inputs.iter().enumerate() {
            if i.ty.is_float() && self.float_inputs.len() < 4096 {
                self.float_inputs.insert(k, i.ty);
            }
        }
        let path: Rc<[walkdown_smt::ExprId]> = Rc::from(trace.path);
        let inputs: Rc<[crate::symex::TracedInput]> = Rc::from(trace.inputs);
        let vector = Rc::new(vector);
        for (i, p) in trace.points.iter().enumerate().skip(bound) {
            for alt in &p.alternatives {
                if !self.settings.runtime_checks {
                    if let AltKind::Check(k) = alt.kind {
                        if !k.is_user_property() {
                            continue;
                        }
                    }
                }
                let aims_at_open_goal = alt.goal.is_some_and(|g| self.closures[g.index()] == GoalClosure::Open);
                if let AltKind::Check(_) = alt.kind {
                    if !aims_at_open_goal {
                        continue;
                    }
                }
                if !aims_at_open_goal && self.searcher.capped_len() >= self.waiting_cap {
                    self.stats.dropped += 1;
                    continue;
                }
                self.seq += 1;
                let candidate = Candidate {
                    path: Rc::clone(&path),
                    inputs: Rc::clone(&inputs),
                    vector: Rc::clone(&vector),
                    point: i,
                    prefix: p.prefix,
                    alt: *alt,
                    seq: self.seq,
                    run: run_no,
                    site: p.site,
                    limit: QueryLimit::First,
                };
                self.searcher.add(candidate);
            }
        }
    }

    fn random_vector(&mut self) -> TestVector {
        let n = 16 + self.rng.below(48) as usize;
        let values = (0..n)
            .map(|_| {
                let v = match self.rng.below(4) {
                    0 => self.rng.below(3) as i128 - 1,
                    1 => (self.rng.next_u64() as i8) as i128,
                    2 => (self.rng.next_u64() as i32) as i128,
                    _ => (self.rng.below(200) as i128) - 100,
                };
                InputValue::Int(v)
            })
            .collect();
        TestVector { values }
    }

    fn finish_stats(&mut self) {
        let s = &mut self.stats;
        s.elapsed = self.start.elapsed();
        s.waiting = self.searcher.len();
        let mut f = ScheduleFigures::default();
        self.searcher.figures(&mut f);
        s.tryfirst = f.tryfirst.taken;
        s.slow_queued = f.slow.queued;
        s.slow_sat = f.slow.sat;
        s.slow_dropped = f.slow.dropped;
        s.monitor_pruned = f.deferred.pruned + f.nearest.pruned;
        s.monitor_ordered = f.nearest.ordered;
        s.covered = self.closures.iter().filter(|&&c| c == GoalClosure::Covered).count();
        s.expressions = self.pool.len();
        s.layers = self.solver.report();
    }
}
