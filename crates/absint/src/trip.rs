//! Trip-count closed forms: for each loop, the values of its head
//! parameters as affine functions of the loop counter and of values
//! defined before the loop, read off the relational analysis's equalities
//! at the head (`p == x0 - counter`, `k == 2*counter`).
//!
//! The concolic engine uses them at a loop exit: it replaces the counter
//! by a fresh symbol `N`, so the head parameters (often concrete in a run,
//! like a counter `i` that depends on the input only through control flow)
//! become terms in `N` and the inputs, and the exit condition at `N` (and
//! its negation at `N - 1`) ties `N` to the inputs. A later branch on `i`
//! then asks the solver for inputs that make the loop run long enough, in
//! one query instead of one iteration per run (the seed of Alatawi et al.).
//!
//! **Why the forms hold bit-exactly.** The equalities hold over the
//! canonical (signed) values as integers; reducing both sides modulo
//! `2^w` (`w` the parameter's width) is a ring homomorphism, so evaluating
//! the form in `w`-bit arithmetic, with every term sign-extended or
//! truncated to `w` bits, gives the parameter's bits exactly.

use crate::affine::Var;
use crate::relational::RelAnalysis;
use std::collections::BTreeSet;
use walkdown_ir::verify::Dominators;
use walkdown_ir::{Block, FuncId, Value, ValueDef};

/// `value == per_iteration * counter + sum(coef * term) + constant` on
/// every visit of the loop head, modulo `2^width(value)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedForm {
    /// A parameter of the loop head.
    pub value: Value,
    /// The coefficient of the loop counter (0 for a loop invariant).
    pub per_iteration: i64,
    /// `(coefficient, value)`, values defined before the loop (they dominate
    /// its head and lie outside it).
    pub terms: Vec<(i64, Value)>,
    /// The constant term.
    pub constant: i64,
}

/// A loop with the exits the concolic engine may summarize and the closed
/// forms of its head parameters.
#[derive(Clone, Debug)]
pub struct LoopForms {
    /// The function.
    pub func: FuncId,
    /// The loop head (counter 0 on entry, +1 per back edge).
    pub head: Block,
    /// The loop's blocks, the head included.
    pub blocks: BTreeSet<Block>,
    /// Exit edges `(block, successor index)` whose block dominates every
    /// latch, so each iteration that did not leave passed the same branch
    /// the other way.
    pub exits: Vec<(Block, u32)>,
    /// Closed forms of the head parameters that have one.
    pub forms: Vec<ClosedForm>,
}

/// The loops of every analyzed function that have at least one closed form
/// with a non-zero counter coefficient and at least one summarizable exit.
pub fn trip_count_forms(a: &RelAnalysis) -> Vec<LoopForms> {
    let program = a.program();
    let mut out = Vec::new();
    for (fid, f) in program.funcs.iter() {
        let (Some(body), Some(rf)) = (&f.body, a.func(fid)) else { continue };
        if rf.loops.is_empty() {
            continue;
        }
        let dom = Dominators::compute(body);
        let block_of = body.inst_blocks();
        for (k, l) in rf.loops.iter().enumerate() {
            let latches: Vec<Block> = l
                .blocks
                .iter()
                .copied()
                .filter(|&b| body.blocks[b].term.successors().any(|c| c.block == l.head))
                .collect();
            let mut exits = Vec::new();
            for &b in &l.blocks {
                if !latches.iter().all(|&latch| dom.dominates(b, latch)) {
                    continue;
                }
                for (i, c) in body.blocks[b].term.successors().enumerate() {
                    if !l.blocks.contains(&c.block) {
                        exits.push((b, i as u32));
                    }
                }
            }
            if exits.is_empty() {
                continue;
            }
            let st = &rf.sol.entry[l.head];
            if st.eq.rows().is_empty() {
                continue;
            }
            let before_loop = |v: Value| -> bool {
                let def_block = match body.values.get(v).map(|d| d.def) {
                    Some(ValueDef::Param(d, _)) => Some(d),
                    Some(ValueDef::Inst(i)) => block_of[i],
                    None => None,
                };
                def_block.is_some_and(|d| !l.blocks.contains(&d) && dom.dominates(d, l.head))
            };
            let counter = Var::Counter(k as u32);
            let mut forms = Vec::new();
            for &p in &body.blocks[l.head].params {
                let target = Var::Val(p);
                let proj = st.eq.project(|v| v == target || v == counter || matches!(v, Var::Val(x) if before_loop(x)));
                if let Some(form) = proj.rows().iter().find_map(|row| closed_form(row, p, counter)) {
                    forms.push(form);
                }
            }
            if forms.iter().any(|f| f.per_iteration != 0) {
                out.push(LoopForms { func: fid, head: l.head, blocks: l.blocks.clone(), exits, forms });
            }
        }
    }
    out
}

/// Solves `row == 0` for `value` when its coefficient is ±1.
fn closed_form(row: &crate::affine::Linear, value: Value, counter: Var) -> Option<ClosedForm> {
    let c = row.coef(Var::Val(value));
    if c != 1 && c != -1 {
        return None;
    }
    // value = -(rest) / c = -c * rest, since c is ±1.
    let flip = |x: i128| i64::try_from(-c * x).ok();
    let mut terms = Vec::new();
    let mut per_iteration = 0;
    for &(v, k) in &row.terms {
        match v {
            Var::Val(x) if x == value => {}
            Var::Val(x) => terms.push((flip(k)?, x)),
            v if v == counter => per_iteration = flip(k)?,
            _ => return None,
        }
    }
    Some(ClosedForm { value, per_iteration, terms, constant: flip(row.constant)? })
}
