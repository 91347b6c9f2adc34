//! The bounded engine as a member of a campaign: iterative deepening.
//!
//! It covers the campaign's open goals at unwinding 1, 2, 4, 8, … (or at
//! one fixed unwinding), hands every model to the campaign's ledger, and
//! claims what each depth proves: *infeasible within unwinding k* for the
//! goals no execution within the bound reaches, and *unreachable* once one
//! more query shows that no execution reaches a cut point (then the unwound
//! program has every execution of the original). It stops at that point,
//! when the unwound program grows past its budget, or when the campaign
//! stops; goals it could not settle get the reason in the campaign. Goals
//! found infeasible within a bound are also tried once with the loop
//! abstraction of [`crate::induction`] (the 1-induction step case), which
//! proves them unreachable without a bound when loops are not the reason.

use crate::engine::{claimable, run_depth, BmcResult, BmcSettings, GoalVerdict};
use crate::{induction, BmcError};
use walkdown_campaign::{work, Claim, Engine, EngineCtx, EngineEnd, EngineError, GoalClosure, OpenReason};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalId;

/// Settings of [`BmcEngine`], with their defaults.
#[derive(Clone, Debug)]
pub struct DeepeningSettings {
    /// Settings of each depth's cover (its `unwind` is ignored).
    pub bmc: BmcSettings,
    /// The unwindings to try: from `first`, doubled until `last`. Default
    /// 1 to 1024; `first == last` gives one fixed depth.
    pub first: u32,
    /// See `first`.
    pub last: u32,
    /// The program with loop-head invariants as `assume`s, for the
    /// induction step (see [`induction::prove_unreachable`]). Default none.
    pub strengthened: Option<walkdown_ir::Program>,
    /// Candidate loop invariants: before its first attempt, the induction
    /// step keeps those it proves inductive ([`crate::houdini`]) and
    /// assumes them too. Default none.
    pub candidates: Vec<walkdown_ir::formula::LinearEquality>,
    /// Where the engine leaves the candidates the induction step kept, for
    /// whoever states the proof afterwards (the correctness witness): a
    /// proof by induction holds under them.
    pub kept: KeptInvariants,
}

/// The candidate loop invariants the induction step proved inductive,
/// shared with the engine's owner (the engine itself is moved into the
/// portfolio).
pub type KeptInvariants = std::sync::Arc<std::sync::Mutex<Vec<walkdown_ir::formula::LinearEquality>>>;

impl Default for DeepeningSettings {
    fn default() -> Self {
        DeepeningSettings {
            bmc: BmcSettings::default(),
            first: 1,
            last: 1024,
            strengthened: None,
            candidates: Vec::new(),
            kept: KeptInvariants::default(),
        }
    }
}

/// Figures of the last depth and of all depths together.
#[derive(Debug, Default)]
pub struct DeepeningFigures {
    /// The deepest unwinding whose cover ran.
    pub unwinding: u32,
    /// Depths covered.
    pub depths: u32,
    /// Queries over all depths.
    pub queries: u64,
    /// Of which unknown.
    pub unknown: u64,
    /// Replays over all depths.
    pub replays: u64,
    /// Divergences over all depths.
    pub divergences: u64,
    /// Seconds in the solver over all depths.
    pub solver_s: f64,
    /// Blocks of the deepest unwound `main`.
    pub blocks: usize,
    /// Goals the loop abstraction (1-induction step) proved unreachable.
    pub induction_proved: u64,
    /// Its queries.
    pub induction_queries: u64,
    /// Candidate loop invariants proved inductive (and assumed).
    pub invariants_kept: u64,
    /// Depths asked again with fresh values for float results after a
    /// query over float terms ended unknown (at most once a run).
    pub float_fallbacks: u64,
    /// The last depth's result.
    pub last: Option<BmcResult>,
}

/// The bounded engine with iterative deepening.
pub struct BmcEngine {
    /// Its settings.
    pub settings: DeepeningSettings,
    /// What it did (after [`Engine::run`]).
    pub figures: DeepeningFigures,
}

impl BmcEngine {
    /// An engine with these settings.
    pub fn new(settings: DeepeningSettings) -> BmcEngine {
        BmcEngine { settings, figures: DeepeningFigures::default() }
    }

    fn publish(&self, ctx: &EngineCtx<'_, '_>, status: &str) {
        let f = &self.figures;
        ctx.publish(
            status,
            vec![
                ("unwinding", f64::from(f.unwinding)),
                ("depths", f64::from(f.depths)),
                ("queries", f.queries as f64),
                ("unknown", f.unknown as f64),
                ("replays", f.replays as f64),
                ("divergences", f.divergences as f64),
                ("solver_s", f.solver_s),
                ("blocks", f.blocks as f64),
                ("induction_proved", f.induction_proved as f64),
                ("induction_queries", f.induction_queries as f64),
                ("invariants_kept", f.invariants_kept as f64),
                ("float_fallbacks", f.float_fallbacks as f64),
            ],
        );
    }
}

impl Engine for BmcEngine {
    fn name(&self) -> &'static str {
        "bmc"
    }

    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        let _label = walkdown_smt::dump::engine_scope("bmc");
        let goals = ctx.campaign().goals();
        for (id, g) in goals.goals.iter() {
            if !claimable(&g.kind) {
                ctx.note_open(id, OpenReason::NotAttempted("bmc does not encode memory and free errors".into()));
            }
        }
        let mut k = self.settings.first.max(1);
        let last = self.settings.last.max(k);
        // Goals the loop abstraction was asked about: its answer does not
        // depend on the depth, so each goal is asked once.
        let mut tried_induction = vec![false; goals.len()];
        // The induction step's program, once the candidates are checked.
        let mut strengthened = self.settings.strengthened.take();
        let mut invariant_candidates = std::mem::take(&mut self.settings.candidates);
        // Float terms until a query over them ends unknown; then fresh
        // values for float results (over-approximate, so claims stay
        // sound), from that depth on.
        let mut bmc = self.settings.bmc.clone();
        let has_floats = bmc.vc.float_terms && program_has_float_ops(ctx.campaign().program());
        // Queries over float terms get a shorter limit, as in the concolic
        // engine: a bit-blasted 64-bit division can take Z3 minutes.
        let plain_timeout = bmc.cover.timeout_ms;
        if has_floats {
            bmc.cover.timeout_ms = bmc.cover.timeout_ms.min(FLOAT_QUERY_MS);
        }
        loop {
            self.publish(ctx, &format!("running: unwinding {k}"));
            let r = match run_depth(ctx, &bmc, k) {
                Ok(r) => r,
                Err(e) => return Err(EngineError(e.to_string())),
            };
            self.figures.unwinding = k;
            self.figures.depths += 1;
            self.figures.queries += r.cover.queries;
            self.figures.unknown += r.cover.unknown;
            self.figures.replays += r.replays;
            self.figures.divergences += r.divergences;
            self.figures.solver_s += r.cover.solver_time.as_secs_f64();
            self.figures.blocks = r.blocks;
            if let Some(e) = &r.unsupported {
                let end = match e {
                    BmcError::TooLarge { .. } | BmcError::OutOfTime if self.figures.depths > 1 => {
                        format!("stopped: unwinding {k}: {e}")
                    }
                    _ => format!("cannot encode the program: {e}"),
                };
                let reason = match e {
                    BmcError::TooLarge { .. } | BmcError::OutOfTime => {
                        OpenReason::Unsupported(format!("unwinding {k}: {e}"))
                    }
                    _ => OpenReason::Unsupported(e.to_string()),
                };
                note_open_goals(ctx, &reason);
                self.figures.last = Some(r);
                self.publish(ctx, &end);
                return Ok(EngineEnd::new(end));
            }
            claim_verdicts(ctx, &r, k);
            if has_floats && bmc.vc.float_terms && r.cover.unknown > 0 && !ctx.stopped() {
                bmc.vc.float_terms = false;
                bmc.cover.timeout_ms = plain_timeout;
                self.figures.float_fallbacks += 1;
                self.figures.last = Some(r);
                continue;
            }
            let complete = r.cut_reachable == Some(false) && r.complete;
            if !complete && !ctx.stopped() {
                // The invariant check and the induction step label their
                // queries apart from the bounded ones.
                let _label = walkdown_smt::dump::engine_scope("induction");
                let candidates: Vec<GoalId> = r
                    .verdicts
                    .iter()
                    .enumerate()
                    .filter(|(i, v)| matches!(v, GoalVerdict::InfeasibleWithin(_)) && !tried_induction[*i])
                    .map(|(i, _)| GoalId::new(i))
                    .collect();
                for g in &candidates {
                    tried_induction[g.index()] = true;
                }
                if !invariant_candidates.is_empty() {
                    let base = strengthened.clone().unwrap_or_else(|| ctx.campaign().program().clone());
                    let checked = crate::houdini::inductive_subset(ctx, &bmc, &base, &invariant_candidates)
                        .map_err(|e| EngineError(e.to_string()))?;
                    invariant_candidates.clear();
                    self.figures.induction_queries += checked.queries;
                    self.figures.invariants_kept = checked.kept.len() as u64;
                    if !checked.kept.is_empty() {
                        strengthened = Some(crate::houdini::assume_kept(&base, &checked.kept));
                    }
                    if let Ok(mut kept) = self.settings.kept.lock() {
                        kept.clone_from(&checked.kept);
                    }
                }
                let step = induction::prove_unreachable(ctx, &bmc, &candidates, strengthened.as_ref())
                    .map_err(|e| EngineError(e.to_string()))?;
                self.figures.induction_queries += step.queries;
                self.figures.induction_proved += step.proved.len() as u64;
                for g in step.proved {
                    ctx.claim(g, Claim::Unreachable { method: induction::METHOD.into() });
                }
            }
            let unknown = r.cover.unknown > 0 || (r.cut_reachable.is_none() && !ctx.stopped());
            self.figures.last = Some(r);
            if complete {
                let end = format!("complete: no execution needs more than unwinding {k}");
                self.publish(ctx, &end);
                return Ok(EngineEnd::new(end));
            }
            if ctx.stopped() {
                note_open_goals(ctx, &OpenReason::Budget);
                let end = format!("stopped at unwinding {k}");
                self.publish(ctx, &end);
                return Ok(EngineEnd::new(end));
            }
            if unknown {
                note_open_goals(ctx, &OpenReason::SolverUnknown);
            }
            if k >= last {
                let end = format!("stopped: unwinding limit {last} reached");
                note_open_goals(ctx, &OpenReason::Budget);
                self.publish(ctx, &end);
                return Ok(EngineEnd::new(end));
            }
            // Building the next formula cannot be interrupted: start it only
            // if it should end within the budget, and, on a shared worker,
            // within a second (doubling the unwinding doubles the formula;
            // building it was seen to take 3 to 5 times as long).
            // On a shared worker the decision is taken in work (the
            // formula's size), so it is the same on every run.
            let last_run = self.figures.last.as_ref();
            let next_build = last_run.map_or(std::time::Duration::ZERO, |r| r.encode_time).mul_f64(5.0);
            let next_build_work = 5 * work::formula(last_run.map_or(0, |r| r.vc_terms as u64));
            let too_long = ctx.shared() && next_build_work > work::of_duration(std::time::Duration::from_secs(1));
            if too_long || std::time::Instant::now() + next_build >= ctx.deadline() {
                let end = format!("stopped at unwinding {k}: the next unwinding would not be built within the budget");
                note_open_goals(ctx, &OpenReason::Budget);
                self.publish(ctx, &end);
                return Ok(EngineEnd::new(end));
            }
            k = k.saturating_mul(2).min(last);
        }
    }
}

/// Claims what one depth proved.
fn claim_verdicts(ctx: &EngineCtx<'_, '_>, r: &BmcResult, k: u32) {
    for (i, v) in r.verdicts.iter().enumerate() {
        let goal = GoalId::new(i);
        match v {
            GoalVerdict::Unreachable => ctx.claim(
                goal,
                Claim::Unreachable {
                    method: format!(
                        "no execution within unwinding {k} reaches it, and none needs more (no cut point reachable)"
                    ),
                },
            ),
            GoalVerdict::InfeasibleWithin(b) => {
                ctx.claim(goal, Claim::Infeasible { bound: format!("unwinding {b}"), depth: *b })
            }
            GoalVerdict::Covered(_) | GoalVerdict::Open => {}
        }
    }
}

/// Says why the goals still open are open, for this engine.
fn note_open_goals(ctx: &EngineCtx<'_, '_>, reason: &OpenReason) {
    let goals = ctx.campaign().goals();
    for (i, c) in ctx.closures().into_iter().enumerate() {
        let id = GoalId::new(i);
        if c == GoalClosure::Open && claimable(&goals.goals[id].kind) {
            ctx.note_open(id, reason.clone());
        }
    }
}

/// The limit (milliseconds) of a cover query over float terms.
const FLOAT_QUERY_MS: u32 = 2_000;

/// Whether some defined function of `program` computes with floats.
fn program_has_float_ops(program: &walkdown_ir::Program) -> bool {
    use walkdown_ir::InstKind;
    program.funcs.iter().filter_map(|(_, f)| f.body.as_ref()).any(|body| {
        body.insts.iter().any(|(_, d)| match &d.kind {
            InstKind::Bin { op, .. } => op.is_float(),
            InstKind::Cmp { pred, .. } => pred.is_float(),
            InstKind::Cast { from, to, .. } => from.is_float() || to.is_float(),
            _ => false,
        })
    })
}
