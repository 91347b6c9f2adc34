//! Candidate loop invariants made sound by the induction step (Houdini):
//! the equalities a relational run that ignores wrapping finds at loop
//! heads (`walkdown_absint::candidate_loop_equalities`) are kept only if
//! they are inductive in the program's own (wrapping) arithmetic.
//!
//! **The check.** A copy of the program assumes every candidate at the
//! start of its loop head and checks it (an assertion, a goal of the copy)
//! on every edge into the head, in a block of its own that receives the
//! edge's values. The induction step's abstraction (each loop entered in
//! an arbitrary state, one iteration) is asked whether any check can fail.
//! If none can, the candidates hold on every execution: by induction over
//! the visits of loop heads, each visit's values passed a check whose
//! states were restricted only by assumptions made at earlier visits. If
//! some can, those candidates are dropped and the rest checked again (the
//! dropped ones no longer help), at most [`MAX_ROUNDS`] times; a run that
//! does not settle keeps none.
//!
//! **Witnesses.** [`check_witness`] runs the same check outside the
//! campaign on the loop invariants a correctness witness would state (any
//! formula C can print, not only equalities), with the program's
//! `reach_error` checks asked in the same step case: once no candidate
//! fails, the kept ones are inductive, and the answer for those checks says
//! whether they exclude the error within one iteration of every loop.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::induction::{prove_in, Alone, InCampaign, StepBudget};
use crate::{BmcError, BmcSettings};
use walkdown_campaign::EngineCtx;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::formula::{BlockInvariant, LinearEquality};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::{Block, BlockCall, CheckKind, FuncId, Inst, InstKind, Loc, Operand, Program, Terminator, Value};

/// Rounds of checking before giving up, in the campaign.
pub const MAX_ROUNDS: u32 = 4;

/// Rounds of checking a witness's candidates before giving up (each drops
/// at least one candidate; the deadline usually ends it first).
pub const WITNESS_ROUNDS: u32 = 16;

/// What the check kept.
#[derive(Debug, Default)]
pub struct Checked {
    /// The candidates proved inductive.
    pub kept: Vec<LinearEquality>,
    /// Rounds run.
    pub rounds: u32,
    /// Solver queries.
    pub queries: u64,
}

/// The candidates of `candidates` that are inductive invariants of `base`
/// (the program the induction step uses, with what the analyses proved
/// already assumed).
pub fn inductive_subset(
    ctx: &EngineCtx<'_, '_>,
    settings: &BmcSettings,
    base: &Program,
    candidates: &[LinearEquality],
) -> Result<Checked, BmcError> {
    let dm = base.data_model;
    let as_invariants: Vec<BlockInvariant> = candidates.iter().map(|c| c.invariant(dm)).collect();
    let run = houdini(&InCampaign::new(ctx), settings, base, &as_invariants, &[], MAX_ROUNDS)?;
    Ok(Checked { kept: run.kept_of(candidates), rounds: run.rounds, queries: run.queries })
}

/// The outcome of [`check_witness`].
#[derive(Debug, Default)]
pub struct WitnessCheck {
    /// The candidates kept: inductive, each one.
    pub kept: Vec<BlockInvariant>,
    /// Whether the check settled (no candidate left failing); else `kept`
    /// is empty.
    pub settled: bool,
    /// Whether, under the kept candidates, no `reach_error` check of
    /// `targets` can fail (only when settled).
    pub excluded: bool,
    /// Why no step case could be run, if none could.
    pub skipped: Option<String>,
    /// Rounds run.
    pub rounds: u32,
    /// Solver queries.
    pub queries: u64,
}

/// Houdini over `candidates` (formulas at loop heads, over each head's
/// values) on `program`, outside a campaign, until `deadline`; the error
/// checks of `targets` (goals of `goals`, the program's own table) are
/// asked in each step case too. The encoding's addresses are `interp`'s.
pub fn check_witness(
    program: &Program,
    goals: &Goals,
    interp: &walkdown_interp::Interpreter,
    settings: &BmcSettings,
    candidates: &[BlockInvariant],
    targets: &[GoalId],
    deadline: Instant,
) -> Result<WitnessCheck, BmcError> {
    let sites: Vec<(FuncId, Inst)> = targets
        .iter()
        .filter_map(|g| match goals.goals[*g].kind {
            walkdown_ir::goals::GoalKind::Error { func, inst, .. } => Some((func, inst)),
            _ => None,
        })
        .collect();
    let run = houdini(&Alone { interp, deadline }, settings, program, candidates, &sites, WITNESS_ROUNDS)?;
    Ok(WitnessCheck {
        kept: run.kept_of(candidates),
        settled: run.settled,
        excluded: run.settled && run.sites_excluded,
        skipped: run.skipped,
        rounds: run.rounds,
        queries: run.queries,
    })
}

/// One Houdini run: the indices of the candidates kept.
#[derive(Debug, Default)]
struct Run {
    kept: Vec<usize>,
    settled: bool,
    sites_excluded: bool,
    skipped: Option<String>,
    rounds: u32,
    queries: u64,
}

impl Run {
    /// The candidates kept, once the run settled (none before).
    fn kept_of<T: Clone>(&self, candidates: &[T]) -> Vec<T> {
        if self.settled {
            self.kept.iter().map(|&k| candidates[k].clone()).collect()
        } else {
            Vec::new()
        }
    }
}

fn houdini(
    budget: &dyn StepBudget,
    settings: &BmcSettings,
    base: &Program,
    candidates: &[BlockInvariant],
    sites: &[(FuncId, Inst)],
    max_rounds: u32,
) -> Result<Run, BmcError> {
    let mut out = Run::default();
    let mut live: Vec<usize> = (0..candidates.len()).collect();
    while out.rounds < max_rounds && !budget.stopped() {
        out.rounds += 1;
        let cands: Vec<BlockInvariant> = live.iter().map(|&k| candidates[k].clone()).collect();
        let (program, checks) = check_program(base, &cands);
        let goals = Goals::compute(&program);
        let ids: Option<Vec<GoalId>> = checks.iter().map(|&(_, f, i)| goals.error_site(f, i)).collect();
        let site_ids: Option<Vec<GoalId>> = sites.iter().map(|&(f, i)| goals.error_site(f, i)).collect();
        let (Some(ids), Some(site_ids)) = (ids, site_ids) else {
            out.skipped = Some("a check did not become a goal".into());
            return Ok(out);
        };
        if ids.is_empty() && site_ids.is_empty() {
            out.settled = true;
            out.sites_excluded = true;
            return Ok(out);
        }
        let asked: Vec<GoalId> = ids.iter().chain(&site_ids).copied().collect();
        let (step, proved) = prove_in(budget, settings, &program, &goals, &asked)?;
        out.queries += step.queries;
        if step.skipped.is_some() || budget.stopped() {
            out.skipped = step.skipped;
            break;
        }
        let is_proved = |id: &GoalId| proved.get(id.index()).copied().unwrap_or(false);
        let mut holds = vec![true; live.len()];
        for (&(k, _, _), id) in checks.iter().zip(&ids) {
            if !is_proved(id) {
                holds[k] = false;
            }
        }
        if holds.iter().all(|&h| h) {
            out.kept = live;
            out.settled = true;
            out.sites_excluded = site_ids.iter().all(is_proved);
            return Ok(out);
        }
        live = live.into_iter().zip(holds).filter_map(|(c, h)| h.then_some(c)).collect();
    }
    Ok(out)
}

/// `program` with the candidates kept, as `assume`s at their heads.
pub fn assume_kept(program: &Program, kept: &[LinearEquality]) -> Program {
    let dm = program.data_model;
    let invariants: Vec<BlockInvariant> = kept.iter().map(|c| c.invariant(dm)).collect();
    walkdown_ir::formula::instrument_assumes(program, &invariants)
}

/// The copy that assumes each candidate at its head and checks it on every
/// edge into the head; the checks, as (candidate, function, instruction).
fn check_program(base: &Program, cands: &[BlockInvariant]) -> (Program, Vec<(usize, FuncId, Inst)>) {
    let assumed: Vec<BlockInvariant> =
        cands.iter().map(|c| BlockInvariant { loc: Loc::UNKNOWN, ..c.clone() }).collect();
    let mut p = walkdown_ir::formula::instrument_assumes(base, &assumed);
    let mut by_head: BTreeMap<(FuncId, Block), Vec<usize>> = BTreeMap::new();
    for (k, c) in cands.iter().enumerate() {
        by_head.entry((c.func, c.block)).or_default().push(k);
    }
    let mut checks = Vec::new();
    for ((f, head), ks) in by_head {
        if !p.funcs.is_valid(f) {
            continue;
        }
        let Some(body) = p.funcs[f].body.as_mut() else { continue };
        if !body.blocks.is_valid(head) {
            continue;
        }
        // A check needs a location to be a goal: the head's.
        let data = &body.blocks[head];
        let loc = data.insts.iter().map(|&i| body.insts[i].loc).find(|l| *l != Loc::UNKNOWN).unwrap_or(data.term_loc);
        let params = data.params.clone();
        let edges: Vec<(Block, usize)> = body
            .blocks
            .iter()
            .flat_map(|(b, d)| {
                d.term
                    .successors()
                    .enumerate()
                    .filter(|(_, c)| c.block == head)
                    .map(move |(slot, _)| (b, slot))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (pred, slot) in edges {
            let edge = body.add_block();
            let fresh: Vec<Value> = params.iter().map(|&v| body.add_param(edge, body.values[v].ty)).collect();
            let rename = |v: Value| params.iter().position(|&q| q == v).map_or(v, |i| fresh[i]);
            for &k in &ks {
                let cond = cands[k].formula.rename(&rename).emit(body, edge, Loc::UNKNOWN);
                let (check, _) = body.append(edge, InstKind::Check { kind: CheckKind::Assertion, cond }, loc);
                checks.push((k, f, check));
            }
            let args = fresh.iter().map(|&v| Operand::Value(v)).collect();
            body.set_term(edge, Terminator::Jump(BlockCall { block: head, args }), Loc::UNKNOWN);
            if let Some(c) = body.blocks[pred].term.successors_mut().into_iter().nth(slot) {
                c.block = edge;
            }
        }
    }
    walkdown_ir::verify::verify_after("the invariant check's copy", &p);
    (p, checks)
}
