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
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use walkdown_concolic::{ErrorFound, KeptTest, Stats, TestSink};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::testvec::TestVector;
use walkdown_ir::{Body, CheckKind, Loc, Program};
use walkdown_smt::{Answer, Query, Solver, SolverSettings, SolverStack};

/// Settings of [`run_bmc`].
#[derive(Clone, Debug)]
pub struct BmcSettings {
    /// Loop unwinding and recursion bound. Default 2.
    pub unwind: u32,
    /// Cover algorithm, budget and solver limit.
    pub cover: CoverSettings,
    /// Encoding settings (the engine always uses [`Termination::Prefix`]).
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
            vc: VcSettings::default(),
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

/// Whether the engine gives verdicts for this goal (see the module doc).
fn claimable(kind: &GoalKind) -> bool {
    match kind {
        GoalKind::Edge { .. } => true,
        GoalKind::Error { site, .. } => matches!(site, ErrorSite::Check(_)),
    }
}

/// Generates tests for `program` with the bounded engine.
pub fn run_bmc(
    program: &Program,
    goals: &Goals,
    settings: &BmcSettings,
    sink: &mut dyn TestSink,
    stop: &AtomicBool,
) -> Result<BmcResult, BmcError> {
    let start = Instant::now();
    let interp = Interpreter::new(program, goals)?;
    let mut result = BmcResult {
        tests: Vec::new(),
        verdicts: vec![GoalVerdict::Open; goals.len()],
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
        summaries: None,
    };
    let k = settings.unwind.max(1);
    let unwound = match transform(program, k, settings.max_blocks) {
        Ok(u) => u,
        Err(e @ (BmcError::Unsupported { .. } | BmcError::TooLarge { .. })) => {
            result.unsupported = Some(e);
            result.elapsed = start.elapsed();
            return Ok(result);
        }
        Err(e) => return Err(e),
    };
    result.blocks = unwound.body.blocks.len();
    result.cuts = unwound.prov.cuts.len();
    let vc_settings = VcSettings { termination: Termination::Prefix, ..settings.vc };
    let gaddr = |g| interp.global_address(g).unwrap_or(0);
    let faddr = |f| interp.func_address(f).unwrap_or(0);
    let mut vc = match encode(&unwound.program, &unwound.body, &unwound.prov, goals, &gaddr, &faddr, &vc_settings) {
        Ok(vc) => vc,
        Err(e @ BmcError::Unsupported { .. }) => {
            result.unsupported = Some(e);
            result.elapsed = start.elapsed();
            return Ok(result);
        }
        Err(e) => return Err(e),
    };
    result.approximations = vc.approximations.clone();
    if std::env::var_os("WALKDOWN_BMC_DEBUG").is_some() {
        eprintln!(
            "bmc: {} blocks, {} cuts, {} terms, {} assertions, encoded after {:.2}s",
            result.blocks,
            result.cuts,
            vc.size(),
            vc.assertions.len(),
            start.elapsed().as_secs_f64()
        );
    }

    let (targets, groups) = goal_targets(&mut vc, goals)?;
    let path_vars: Vec<_> = vc.blocks.iter().map(|b| (b.reach_sym, b.reach)).collect();
    let path_succs: Vec<Vec<usize>> =
        vc.blocks.iter().map(|b| b.out_edges.iter().map(|&e| vc.edges[e].to.index()).collect()).collect();

    let mut ledger = Ledger {
        interp: &interp,
        covered: vec![false; goals.len()],
        errors_seen: HashSet::new(),
        sink,
        sink_error: None,
        opts: RunOptions { limits: settings.replay, record_lines: false },
        dm: program.data_model,
        replays: 0,
        divergences: 0,
        tests: Vec::new(),
        errors: Vec::new(),
        start,
    };
    let stop_check = || stop.load(Ordering::Relaxed);
    let mut summary_figures = None;
    if settings.summaries {
        // Phase 1: calls replaced by summaries; finds tests, proves nothing.
        let mut cs = settings.cover;
        cs.time = settings.cover.time / 2;
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
    // The goals covered so far need no query.
    let targets: Vec<Target> = targets.into_iter().filter(|t| t.group >= goals.len() || !ledger.covered[t.group]).collect();
    let mut cover_settings = settings.cover;
    cover_settings.time = settings.cover.time.saturating_sub(start.elapsed());
    let outcome = cover(
        &mut vc,
        &targets,
        groups,
        &path_vars,
        &path_succs,
        &cover_settings,
        &stop_check,
        &mut |vc: &Vc, m: &walkdown_smt::Model| ledger.on_model(vc, m),
    );
    if let Some(e) = ledger.sink_error.take() {
        return Err(BmcError::Sink(e));
    }
    let sink = ledger.sink;
    result.tests = ledger.tests;
    result.errors = ledger.errors;
    result.replays = ledger.replays;
    result.divergences = ledger.divergences;
    result.cover = outcome.stats;
    result.complete = outcome.complete;
    result.summaries = summary_figures;

    // One more query: can any execution reach a cut point?
    let cut_controls: Vec<_> = vc.blocks.iter().filter(|b| b.cut).map(|b| b.control).collect();
    result.cut_reachable = if cut_controls.is_empty() {
        Some(false)
    } else {
        let any = vc.pool.or(&cut_controls).map_err(|x| BmcError::Expr(x.to_string()))?;
        let mut q = vc.assertions.clone();
        q.push(any);
        let mut solver = SolverStack::build(&SolverSettings {
            cache: false,
            slicing: false,
            cex_cache: false,
            // At least a second, at most what is left of the budget.
            timeout_ms: Some(settings.cover.timeout_ms.min(
                (settings.cover.time.saturating_sub(start.elapsed()).as_millis() as u32).max(1000),
            )),
        });
        match solver.check(&vc.pool, &Query::new(&q)) {
            Ok(Answer::Sat(_)) => Some(true),
            Ok(Answer::Unsat) => Some(false),
            _ => None,
        }
    };
    let unbounded = result.cut_reachable == Some(false);
    let mut first_test: Vec<Option<usize>> = vec![None; goals.len()];
    for t in &result.tests {
        for g in &t.new_goals {
            first_test[g.index()].get_or_insert(t.index);
        }
    }
    let mut has_target = vec![false; groups];
    for t in &targets {
        has_target[t.group] = true;
    }
    for (id, g) in goals.goals.iter() {
        let i = id.index();
        result.verdicts[i] = if let Some(t) = first_test[i] {
            GoalVerdict::Covered(t)
        } else if !claimable(&g.kind) {
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
    let stats = Stats {
        replays: result.replays,
        queries: result.cover.queries,
        sat: result.cover.sat,
        unsat: result.cover.unsat,
        unknown: result.cover.unknown,
        divergences: result.divergences,
        solver_time: result.cover.solver_time,
        elapsed: result.elapsed,
        covered: first_test.iter().filter(|t| t.is_some()).count(),
        goals: goals.len(),
        tests: result.tests.len(),
        expressions: result.vc_terms,
        ..Stats::default()
    };
    sink.progress(&stats);
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
    let errs: Vec<(GoalId, walkdown_smt::ExprId)> = vc.errors.iter().filter_map(|e| e.goal.map(|g| (g, e.fails))).collect();
    for (g, fails) in errs {
        let (sym, var) = vc.pool.new_symbol(&format!("err{}", g.index()), 1).map_err(|x| BmcError::Expr(x.to_string()))?;
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

/// The judge and the suite: replays each model's vector and keeps the
/// tests that cover a new goal or reach a new error.
struct Ledger<'a, 's> {
    interp: &'a Interpreter,
    covered: Vec<bool>,
    errors_seen: HashSet<(CheckKind, Loc)>,
    sink: &'s mut dyn TestSink,
    sink_error: Option<String>,
    opts: RunOptions,
    dm: walkdown_ir::DataModel,
    replays: u64,
    divergences: u64,
    tests: Vec<KeptTest>,
    errors: Vec<(ErrorFound, usize)>,
    start: Instant,
}

impl Ledger<'_, '_> {
    /// Replays the model's inputs; returns the goals the replay covers.
    fn on_model(&mut self, vc: &Vc, model: &walkdown_smt::Model) -> Vec<usize> {
        let dm = self.dm;
        let inputs = vc.inputs(model);
        let vector = TestVector { values: inputs.iter().map(|(s, bits)| walkdown_ir::testvec::InputValue::from_bits(s.ty, s.signed, *bits, dm)).collect() };
        let replay = self.interp.run(&vector, &self.opts);
        self.replays += 1;
        let claimed = vc.edges.iter().filter(|e| Vc::holds(model, e.taken_sym)).filter_map(|e| e.goal);
        if claimed.into_iter().any(|g| replay.covered.binary_search(&g).is_err()) {
            self.divergences += 1;
        }
        let new_goals: Vec<GoalId> = replay.covered.iter().copied().filter(|g| !self.covered[g.index()]).collect();
        let error = match replay.outcome {
            Outcome::Error { kind, loc, goal, .. } => Some(ErrorFound { kind, loc, goal }),
            _ => None,
        };
        let new_error = error.is_some_and(|e| self.errors_seen.insert((e.kind, e.loc)));
        if !new_goals.is_empty() || new_error {
            for g in &new_goals {
                self.covered[g.index()] = true;
            }
            let index = self.tests.len();
            if let (Some(e), true) = (error, new_error) {
                self.errors.push((e, index));
            }
            // Write the inputs the replay consumed (its own types), so the
            // test file is exactly what ran.
            let vector = if replay.inputs_exhausted {
                vector
            } else {
                TestVector { values: replay.inputs.iter().map(|i| walkdown_ir::testvec::InputValue::from_bits(i.ty, i.signed, i.bits, dm)).collect() }
            };
            let types = replay.inputs.iter().map(|i| i.ty.c_name(i.signed, dm)).collect();
            let kept = KeptTest {
                index,
                vector,
                types,
                new_goals,
                covered: replay.covered.clone(),
                error,
                outcome: replay.outcome.clone(),
                at: self.start.elapsed().as_secs_f64(),
            };
            if let Err(e) = self.sink.test(&kept) {
                self.sink_error.get_or_insert(e);
            }
            self.tests.push(kept);
        }
        replay.covered.iter().map(|g| g.index()).collect()
    }
}


/// Default-algorithm shorthand for tests.
pub fn settings_with(algorithm: CoverAlgorithm, unwind: u32) -> BmcSettings {
    BmcSettings { unwind, cover: CoverSettings { algorithm, ..CoverSettings::default() }, ..BmcSettings::default() }
}
