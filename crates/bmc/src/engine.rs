//! The bounded engine: transforms `main` (inline, localize, unwind), encodes
//! it, covers the goals with the chosen algorithm, replays every model's
//! vector in the interpreter (the judge) and keeps the tests that cover
//! something new, like the concolic engine's ledger. Goals no model could
//! reach get a verdict that keeps its bound: *infeasible within unwinding
//! k*, or *unreachable* when one more query shows that no execution
//! reaches a cut point (then the unwound program has every execution of
//! the original, and the claim holds without bound).
//!
//! Only branch outcomes and failing `check`s get verdicts: memory and
//! `free` error sites are not encoded as errors (an invalid access
//! continues in the encoding), so they stay open unless a test hits them.

use crate::cover::{cover, CoverAlgorithm, CoverSettings, CoverStats, GroupStatus, Target};
use crate::inline::InlineSettings;
use crate::localize::localize;
use crate::origin::Provenance;
use crate::unwind::{unwind, UnwindSettings};
use crate::vc::{encode, Termination, Vc, VcSettings};
use crate::BmcError;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use walkdown_campaign::work;
use walkdown_campaign::{
    Campaign, CampaignSettings, Engine, EngineCtx, EngineEnd, EngineError, ErrorFound, GoalClosure, KeptTest,
    PortfolioSettings, TestSink,
};
use walkdown_interp::ExecLimits;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::{Body, Loc, Program};
use walkdown_smt::{Answer, Query, Solver, SolverSettings, SolverStack};

/// Settings of [`run_bmc`].
#[derive(Clone, Debug)]
pub struct BmcSettings {
    /// Loop unwinding and recursion bound. Default 2.
    pub unwind: u32,
    /// Cover algorithm, budget and solver limit.
    pub cover: CoverSettings,
    /// Encoding settings (the engine always uses [`Termination::Prefix`]).
    /// Default: float terms on ([`VcSettings::float_terms`]).
    pub vc: VcSettings,
    /// Limits of each replay. Default: the interpreter's own.
    pub replay: ExecLimits,
    /// Blocks the transformed `main` may have. Default 100,000.
    pub max_blocks: usize,
    /// First cover with calls replaced by procedure summaries (up to half
    /// the budget), then the rest with calls inlined. Default off.
    pub summaries: bool,
}

impl Default for BmcSettings {
    fn default() -> Self {
        BmcSettings {
            unwind: 2,
            cover: CoverSettings::default(),
            // Float instructions as exact IEEE-754 terms: float branches
            // can be covered, and claims stay sound either way.
            vc: VcSettings { float_terms: true, ..VcSettings::default() },
            replay: ExecLimits::default(),
            max_blocks: 100_000,
            summaries: false,
        }
    }
}

/// What the engine says about a goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalVerdict {
    /// Covered by this test (its index), confirmed by replay.
    Covered(usize),
    /// No execution that runs each loop at most `k` times (and nests
    /// recursion at most `k` deep) reaches it.
    InfeasibleWithin(u32),
    /// No execution at all reaches it: infeasible within the bound, and no
    /// execution reaches a cut point.
    Unreachable,
    /// Nothing known.
    Open,
}

/// The result of [`run_bmc`].
#[derive(Debug)]
pub struct BmcResult {
    /// Kept tests.
    pub tests: Vec<KeptTest>,
    /// Per goal.
    pub verdicts: Vec<GoalVerdict>,
    /// Errors reached, with their tests.
    pub errors: Vec<(ErrorFound, usize)>,
    /// The cover's figures.
    pub cover: CoverStats,
    /// Whether the cover ran to its end.
    pub complete: bool,
    /// Whether some execution reaches a cut point (`None`: not asked or
    /// unknown).
    pub cut_reachable: Option<bool>,
    /// Cut points in the unwound program.
    pub cuts: usize,
    /// Blocks of the unwound `main`.
    pub blocks: usize,
    /// Terms of the formula.
    pub vc_terms: usize,
    /// Where the encoding over-approximates.
    pub approximations: Vec<(String, Loc)>,
    /// Why the program could not be encoded (then every goal is open).
    pub unsupported: Option<BmcError>,
    /// Replays whose goals were not all claimed by the model (divergences).
    pub divergences: u64,
    /// Replays.
    pub replays: u64,
    /// Elapsed.
    pub elapsed: Duration,
    /// Of which building the formula (transform and encode), which no
    /// stop signal interrupts.
    pub encode_time: Duration,
    /// With summaries: what the summary phase did.
    pub summaries: Option<crate::summary::SummaryFigures>,
}

/// The transformed `main`: inlined, self-contained per block, unwound.
pub struct Unwound {
    /// The program with `main` replaced.
    pub program: Program,
    /// The unwound body of `main`.
    pub body: Body,
    /// Its provenance.
    pub prov: Provenance,
}

/// Runs the three passes on `program`'s `main` with bound `k`.
pub fn transform(program: &Program, k: u32, max_blocks: usize) -> Result<Unwound, BmcError> {
    let main = program.entry().ok_or(BmcError::NoEntry)?;
    transform_function(program, main, k, max_blocks, &[])
}

/// Runs the three passes on function `main` (any defined function),
/// keeping the direct calls of the functions in `keep`.
pub fn transform_function(
    program: &Program,
    main: walkdown_ir::FuncId,
    k: u32,
    max_blocks: usize,
    keep: &[walkdown_ir::FuncId],
) -> Result<Unwound, BmcError> {
    let (mut p, prov) =
        crate::inline::inline_function(program, main, &InlineSettings { recursion_bound: k.max(1), max_blocks }, keep)?;
    let name = p.funcs[main].name.clone();
    let body = p.funcs[main].body.as_mut().unwrap();
    localize(body, &name)?;
    let (unwound, prov) = unwind(body, &name, main, &prov, &UnwindSettings { k: k.max(1), max_blocks })?;
    p.funcs[main].body = Some(unwound.clone());
    Ok(Unwound { program: p, body: unwound, prov })
}

/// `program` unwound `k` times and encoded. The inner error says why the
/// program cannot be encoded (an unsupported construct, or too large):
/// a result for the engine, not a failure.
#[allow(clippy::type_complexity)]
pub(crate) fn encode_unwound(
    program: &Program,
    goals: &Goals,
    interp: &walkdown_interp::Interpreter,
    k: u32,
    max_blocks: usize,
    vc_settings: &VcSettings,
) -> Result<Result<(Unwound, Vc), BmcError>, BmcError> {
    let unwound = match transform(program, k, max_blocks) {
        Ok(u) => u,
        Err(e @ (BmcError::Unsupported { .. } | BmcError::TooLarge { .. } | BmcError::OutOfTime)) => return Ok(Err(e)),
        Err(e) => return Err(e),
    };
    let gaddr = |g| interp.global_address(g).unwrap_or(0);
    let faddr = |f| interp.func_address(f).unwrap_or(0);
    match encode(&unwound.program, &unwound.body, &unwound.prov, goals, &gaddr, &faddr, vc_settings)
        .map_err(BmcError::from)
    {
        Ok(vc) => Ok(Ok((unwound, vc))),
        Err(e @ (BmcError::Unsupported { .. } | BmcError::TooLarge { .. } | BmcError::OutOfTime)) => Ok(Err(e)),
        Err(e) => Err(e),
    }
}

/// Whether the engine gives verdicts for this goal (see the module doc).
pub fn claimable(kind: &GoalKind) -> bool {
    match kind {
        GoalKind::Edge { .. } => true,
        GoalKind::Error { site, .. } => matches!(site, ErrorSite::Check(_)),
    }
}

/// Generates tests for `program` with the bounded engine alone, at the
/// one unwinding of `settings`.
pub fn run_bmc(
    program: &Program,
    goals: &Goals,
    settings: &BmcSettings,
    stop: &AtomicBool,
) -> Result<BmcResult, BmcError> {
    struct Discard;
    impl TestSink for Discard {
        fn test(&mut self, _: &KeptTest) -> Result<(), String> {
            Ok(())
        }
    }
    struct OneDepth<'s> {
        settings: &'s BmcSettings,
        result: Option<Result<BmcResult, BmcError>>,
    }
    impl Engine for OneDepth<'_> {
        fn name(&self) -> &'static str {
            "bmc"
        }
        fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
            self.result = Some(run_depth(ctx, self.settings, self.settings.unwind.max(1)));
            Ok(EngineEnd::new("done"))
        }
    }
    let campaign_settings =
        CampaignSettings { time: settings.cover.time, replay: settings.replay, ..CampaignSettings::default() };
    let campaign = Campaign::new(program, goals, campaign_settings, Box::new(Discard), stop)?;
    let mut engine = OneDepth { settings, result: None };
    let portfolio = PortfolioSettings { jobs: 1, ..PortfolioSettings::default() };
    let engines: Vec<Box<dyn Engine + '_>> = vec![Box::new(&mut engine)];
    walkdown_campaign::run_portfolio(&campaign, engines, &[], &portfolio, &mut |_| {});
    let mut result = engine.result.take().unwrap_or_else(|| Ok(BmcResult::empty(goals.len())))?;
    let snap = campaign.snapshot();
    result.tests = snap.tests;
    result.errors = snap.errors;
    Ok(result)
}

impl BmcResult {
    fn empty(goals: usize) -> BmcResult {
        BmcResult {
            tests: Vec::new(),
            verdicts: vec![GoalVerdict::Open; goals],
            errors: Vec::new(),
            cover: CoverStats::default(),
            complete: false,
            cut_reachable: None,
            cuts: 0,
            blocks: 0,
            vc_terms: 0,
            approximations: Vec::new(),
            unsupported: None,
            divergences: 0,
            replays: 0,
            elapsed: Duration::ZERO,
            encode_time: Duration::ZERO,
            summaries: None,
        }
    }
}

/// One cover of the campaign's open goals at unwinding `k`: models go to
/// the campaign's ledger (replayed there), and the result says what the
/// cover proved of each goal. `result.tests` stays empty (the campaign
/// keeps the tests).
pub fn run_depth(ctx: &EngineCtx<'_, '_>, settings: &BmcSettings, k: u32) -> Result<BmcResult, BmcError> {
    let start = Instant::now();
    let campaign = ctx.campaign();
    let program = campaign.program();
    let goals = campaign.goals();
    let interp = campaign.interpreter();
    let mut result = BmcResult::empty(goals.len());
    let k = k.max(1);
    // A third of the time left: the engine's share when the three
    // engines take turns on one worker (see `VcSettings::deadline`).
    let share = ctx.deadline().saturating_duration_since(start) / 3;
    let vc_settings = VcSettings { termination: Termination::Prefix, deadline: Some(start + share), ..settings.vc };
    let gaddr = |g| interp.global_address(g).unwrap_or(0);
    let faddr = |f| interp.func_address(f).unwrap_or(0);
    let (unwound, mut vc) = match encode_unwound(program, goals, interp, k, settings.max_blocks, &vc_settings)? {
        Ok(built) => built,
        Err(e) => {
            result.unsupported = Some(e);
            result.elapsed = start.elapsed();
            return Ok(result);
        }
    };
    result.blocks = unwound.body.blocks.len();
    result.cuts = unwound.prov.cuts.len();
    result.approximations = vc.approximations.clone();
    result.encode_time = start.elapsed();
    ctx.charge(work::formula(vc.size() as u64));
    if std::env::var_os("WALKDOWN_BMC_DEBUG").is_some() {
        eprintln!(
            "bmc: unwinding {k}: {} blocks, {} cuts, {} terms, {} assertions, encoded after {:.2}s",
            result.blocks,
            result.cuts,
            vc.size(),
            vc.assertions.len(),
            start.elapsed().as_secs_f64()
        );
    }

    let (targets, groups) = goal_targets(&mut vc, goals)?;
    let (path_vars, path_succs) = vc.path_graph();

    let mut ledger = Ledger { ctx, dm: program.data_model, replays: 0, divergences: 0 };
    // A query at a time holds the worker; between queries the engine
    // yields and learns what other engines closed.
    let in_campaign = crate::induction::InCampaign::new(ctx);
    let terms = vc.size();
    let stop_check = |units: u64| crate::induction::StepBudget::stop(&in_campaign, units, terms);
    let closures = std::cell::RefCell::new((ctx.epoch(), ctx.closures()));
    let dropped = |g: usize| {
        if g >= goals.len() {
            return false;
        }
        let mut c = closures.borrow_mut();
        let epoch = ctx.epoch();
        if c.0 != epoch {
            *c = (epoch, ctx.closures());
        }
        c.1[g] != GoalClosure::Open
    };
    let mut cover_settings = settings.cover;
    cover_settings.timeout_ms =
        cover_settings.timeout_ms.min(ctx.query_limit().as_millis().clamp(100, u128::from(u32::MAX)) as u32);
    cover_settings.work_limit = ctx.query_work_limit();
    let mut summary_figures = None;
    if settings.summaries {
        // Phase 1: calls replaced by summaries; finds tests, proves nothing.
        let mut cs = cover_settings;
        cs.time = ctx.deadline().saturating_duration_since(Instant::now()) / 2;
        let f = crate::summary::cover_with_summaries(
            program,
            goals,
            k,
            settings.max_blocks,
            &vc_settings,
            &cs,
            &gaddr,
            &faddr,
            &stop_check,
            &mut |vc: &Vc, m: &walkdown_smt::Model| ledger.on_model(vc, m),
        );
        summary_figures = Some(f);
    }
    // The goals closed so far (by any engine) need no query.
    let targets: Vec<Target> = targets.into_iter().filter(|t| !dropped(t.group)).collect();
    cover_settings.time = ctx.deadline().saturating_duration_since(Instant::now());
    let cover_started = Instant::now();
    let outcome = cover(
        &mut vc,
        &targets,
        groups,
        &path_vars,
        &path_succs,
        &cover_settings,
        &stop_check,
        &dropped,
        &mut |vc: &Vc, m: &walkdown_smt::Model| ledger.on_model(vc, m),
    );
    result.replays = ledger.replays;
    result.divergences = ledger.divergences;
    result.cover = outcome.stats;
    result.complete = outcome.complete;
    result.summaries = summary_figures;

    // One more query: can any execution reach a cut point?
    let cut_controls: Vec<_> = vc.blocks.iter().filter(|b| b.cut).map(|b| b.control).collect();
    // A query on this formula costs about what one of the cover's did,
    // and translating the formula to the solver cannot be interrupted: a
    // query that would not end within the budget is not started (seen:
    // 1.8 s past a 1.5 s budget on a 20,000-line program).
    let per_query = cover_started.elapsed() / u32::try_from(result.cover.queries.max(1)).unwrap_or(u32::MAX);
    result.cut_reachable = if cut_controls.is_empty() {
        Some(false)
    } else if !ctx.checkpoint() || Instant::now() + per_query >= ctx.deadline() {
        None
    } else {
        let any = vc.pool.or(&cut_controls).map_err(|x| BmcError::Expr(x.to_string()))?;
        let mut q = vc.assertions.clone();
        q.push(any);
        let mut solver = SolverStack::build(&SolverSettings {
            cache: false,
            slicing: false,
            cex_cache: false,
            // At least a second, at most what is left of the budget.
            timeout_ms: Some(cover_settings.timeout_ms.max(1000)),
            work_limit: ctx.query_work_limit(),
        });
        solver.set_deadline(Some(ctx.deadline()));
        let answer = solver.check(&vc.pool, &Query::new(&q));
        ctx.charge(1 + work::solver(solver.work()) + work::asserted(vc.size() as u64));
        match answer {
            Ok(Answer::Sat(_)) => Some(true),
            Ok(Answer::Unsat) => Some(false),
            _ => None,
        }
    };
    let unbounded = result.cut_reachable == Some(false);
    let mut has_target = vec![false; groups];
    for t in &targets {
        has_target[t.group] = true;
    }
    let snap = campaign.snapshot();
    for (id, g) in goals.goals.iter() {
        let i = id.index();
        result.verdicts[i] = if let walkdown_campaign::Verdict::Covered { test } = snap.goals[i].verdict {
            GoalVerdict::Covered(test)
        } else if !claimable(&g.kind) || dropped(i) {
            GoalVerdict::Open
        } else {
            // No copy in the unwound program: no execution within the
            // bound reaches it, once the cover is complete.
            let infeasible = outcome.status[i] == GroupStatus::Infeasible || (!has_target[i] && outcome.complete);
            match (infeasible, unbounded) {
                (true, true) => GoalVerdict::Unreachable,
                (true, false) => GoalVerdict::InfeasibleWithin(k),
                _ => GoalVerdict::Open,
            }
        };
    }
    result.vc_terms = vc.size();
    result.elapsed = start.elapsed();
    Ok(result)
}

/// The targets of the engine's cover: every copy of every branch-outcome
/// goal and failing check (grouped by goal), then the cut points (a group
/// each, after the goals). Returns them and the number of groups.
pub(crate) fn goal_targets(vc: &mut Vc, goals: &Goals) -> Result<(Vec<Target>, usize), BmcError> {
    let mut targets = Vec::new();
    for ed in &vc.edges {
        if let Some(g) = ed.goal {
            targets.push(Target { var: ed.taken, sym: ed.taken_sym, group: g.index() });
        }
    }
    let errs: Vec<(GoalId, walkdown_smt::ExprId)> =
        vc.errors.iter().filter_map(|e| e.goal.map(|g| (g, e.fails))).collect();
    for (g, fails) in errs {
        let (sym, var) =
            vc.pool.new_symbol(&format!("err{}", g.index()), 1).map_err(|x| BmcError::Expr(x.to_string()))?;
        let one = vc.pool.bv_const(1, 1).unwrap();
        let v = vc.pool.eq(var, one).unwrap();
        let def = vc.pool.eq(v, fails).unwrap();
        vc.assertions.push(def);
        targets.push(Target { var: v, sym, group: g.index() });
    }
    // The cut points are targets too: a model that reaches one is a real
    // execution prefix, and its replay, which runs on past the bound, often
    // covers more. Their status is no verdict.
    let mut groups = goals.len();
    for b in vc.blocks.iter().filter(|b| b.cut) {
        targets.push(Target { var: b.reach, sym: b.reach_sym, group: groups });
        groups += 1;
    }
    Ok((targets, groups))
}

/// The engine's side of the ledger: each model's vector goes to the
/// campaign, which replays and maybe keeps it.
struct Ledger<'a, 'k, 'p> {
    ctx: &'a EngineCtx<'k, 'p>,
    dm: walkdown_ir::DataModel,
    replays: u64,
    divergences: u64,
}

impl Ledger<'_, '_, '_> {
    /// Submits the model's inputs; returns the goals the replay covers.
    fn on_model(&mut self, vc: &Vc, model: &walkdown_smt::Model) -> Vec<usize> {
        let dm = self.dm;
        let inputs = vc.inputs(model);
        // A NaN is written `nan` in a test file and reads back as the
        // positive quiet NaN: the vector holds that one, as the file says.
        let value = |s: &crate::vc::InputSite, bits: u64| match InputValue::from_bits(s.ty, s.signed, bits, dm) {
            InputValue::Float(f) if f.is_nan() => InputValue::Float(f64::NAN),
            v => v,
        };
        let vector = TestVector { values: inputs.iter().map(|(s, bits)| value(s, *bits)).collect() };
        let replay = self.ctx.submit(&vector).replay;
        self.replays += 1;
        let claimed = vc.edges.iter().filter(|e| Vc::holds(model, e.taken_sym)).filter_map(|e| e.goal);
        if claimed.into_iter().any(|g| replay.covered.binary_search(&g).is_err()) {
            self.divergences += 1;
        }
        replay.covered.iter().map(|g| g.index()).collect()
    }
}

/// Default-algorithm shorthand for tests.
pub fn settings_with(algorithm: CoverAlgorithm, unwind: u32) -> BmcSettings {
    BmcSettings { unwind, cover: CoverSettings { algorithm, ..CoverSettings::default() }, ..BmcSettings::default() }
}
