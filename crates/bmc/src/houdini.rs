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

use std::collections::BTreeMap;

use crate::induction::prove_in;
use crate::{BmcError, BmcSettings};
use walkdown_campaign::EngineCtx;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::formula::{BlockInvariant, LinearEquality};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::{Block, BlockCall, CheckKind, FuncId, Inst, InstKind, Loc, Operand, Program, Terminator, Value};

/// Rounds of checking before giving up.
pub const MAX_ROUNDS: u32 = 4;

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
    let mut out = Checked::default();
    let mut cands = candidates.to_vec();
    while !cands.is_empty() && out.rounds < MAX_ROUNDS && !ctx.stopped() {
        out.rounds += 1;
        let (program, checks) = check_program(base, &cands);
        let goals = Goals::compute(&program);
        let ids: Option<Vec<GoalId>> = checks.iter().map(|&(_, f, i)| goals.error_site(f, i)).collect();
        let Some(ids) = ids else { return Ok(Checked { kept: Vec::new(), ..out }) };
        let (step, proved) = prove_in(ctx, settings, &program, &goals, &ids)?;
        out.queries += step.queries;
        if step.skipped.is_some() || ctx.stopped() {
            break;
        }
        let mut holds = vec![true; cands.len()];
        for (&(k, _, _), id) in checks.iter().zip(&ids) {
            if !proved.get(id.index()).copied().unwrap_or(false) {
                holds[k] = false;
            }
        }
        if holds.iter().all(|&h| h) {
            out.kept = cands;
            return Ok(out);
        }
        cands = cands.into_iter().zip(holds).filter_map(|(c, h)| h.then_some(c)).collect();
    }
    out.kept.clear();
    Ok(out)
}

/// `program` with the candidates kept, as `assume`s at their heads.
pub fn assume_kept(program: &Program, kept: &[LinearEquality]) -> Program {
    let dm = program.data_model;
    let invariants: Vec<BlockInvariant> = kept
        .iter()
        .map(|c| BlockInvariant { func: c.func, block: c.block, formula: c.formula(dm, &|v| v), loc: Loc::UNKNOWN })
        .collect();
    walkdown_ir::formula::instrument_assumes(program, &invariants)
}

/// The copy that assumes each candidate at its head and checks it on every
/// edge into the head; the checks, as (candidate, function, instruction).
fn check_program(base: &Program, cands: &[LinearEquality]) -> (Program, Vec<(usize, FuncId, Inst)>) {
    let mut p = assume_kept(base, cands);
    let dm = p.data_model;
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
                let cond = cands[k].formula(dm, &rename).emit(body, edge, Loc::UNKNOWN);
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
    (p, checks)
}
