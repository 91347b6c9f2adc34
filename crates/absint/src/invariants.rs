//! Invariants for the concolic engine: the affine equalities of the
//! relational analysis at loop heads, at the targets of loop exit edges and
//! at branch blocks after loops, expressed over IR values available at the
//! block (no loop counter), and their instrumentation as `assume`s.
//!
//! **Which values.** A fact at the entry of block `B` mentions only values
//! that exist there: parameters of `B` or of a block dominating it, and
//! results of instructions in blocks strictly dominating `B` whose
//! definition is not itself linear (`nondet` inputs, loads, calls, ...).
//! Results of `add`/`sub`/`mul`/`shl`/casts are projected out like the loop
//! counters: their operands dominate them too, so nothing is lost but
//! tautologies. Counters are eliminated by projection (Fourier-Motzkin for
//! equalities: Gaussian elimination), so `x0 == counter + p` and
//! `i == counter` become `i + p - x0 == 0`.
//!
//! **Why the facts hold.** The entry state of `B` joins every path into
//! `B`, and its equalities hold over the canonical (signed) values as
//! integers (see [`crate::relational`]).
//!
//! **Why instrumenting them is safe.** The concolic engine solves an
//! `assume` in bit-vector arithmetic. A fact is instrumented only when a
//! type `T` (`i32` or `i64`) exists in which, by the intervals at `B`, every
//! sign-extended value, every product `coef * value` and every partial sum
//! lies in `T`'s signed range ([`LinearFact::eval_ty`]): then the
//! bit-vector sum equals the integer sum and the `assume` is true in every
//! run that reaches `B`.

use crate::affine::Var;
use crate::domain::Domain;
use crate::interval::{norm, smax, smin, Interval};
use crate::relational::RelAnalysis;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use walkdown_ir::verify::Dominators;
use walkdown_ir::{
    BinOp, Block, Body, CastOp, CmpPred, Const, DataModel, FuncId, Inst, InstKind, Loc, Operand, Program, Terminator,
    Type, Value, ValueDef,
};

/// Where a fact is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FactKind {
    /// At a loop head (holds on every iteration).
    LoopHead,
    /// At the target of a loop exit edge.
    LoopExit,
    /// At a block with a branch or switch reachable from a loop exit.
    AfterLoop,
}

/// `sum(coef * value) + constant == 0` on entry to `block` of `func`, over
/// the values' canonical (signed) integer values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearFact {
    /// The function.
    pub func: FuncId,
    /// The block at whose entry it holds.
    pub block: Block,
    /// Why the block was chosen.
    pub kind: FactKind,
    /// `(coefficient, value)`, values available on entry to `block`.
    pub terms: Vec<(i64, Value)>,
    /// The constant term.
    pub constant: i64,
    /// The smallest of `i32`, `i64` in which the sum of sign-extended
    /// values cannot wrap (by the intervals at the block); `None`: the fact
    /// is not instrumented.
    pub eval_ty: Option<Type>,
}

impl fmt::Display for LinearFact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.block)?;
        for (i, &(c, v)) in self.terms.iter().enumerate() {
            let a = c.unsigned_abs();
            match (i, c < 0) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            if a != 1 {
                write!(f, "{a}*")?;
            }
            write!(f, "{v}")?;
        }
        match self.constant {
            0 => {}
            c if c < 0 => write!(f, " - {}", c.unsigned_abs())?,
            c => write!(f, " + {c}")?,
        }
        f.write_str(" == 0")
    }
}

fn is_linear_def(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Bin { op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl, .. }
            | InstKind::Cast { op: CastOp::SExt | CastOp::ZExt | CastOp::Trunc, .. }
    )
}

/// The blocks that get facts in one function, with their kind.
fn fact_blocks(body: &Body, loops: &[crate::relational::LoopInfo]) -> BTreeMap<Block, FactKind> {
    let mut out: BTreeMap<Block, FactKind> = BTreeMap::new();
    let put = |b: Block, k: FactKind, out: &mut BTreeMap<Block, FactKind>| {
        let e = out.entry(b).or_insert(k);
        *e = (*e).min(k);
    };
    for l in loops {
        put(l.head, FactKind::LoopHead, &mut out);
        let mut seen: BTreeSet<Block> = BTreeSet::new();
        let mut queue = VecDeque::new();
        for &b in &l.blocks {
            for c in body.blocks[b].term.successors() {
                if !l.blocks.contains(&c.block) && body.blocks.is_valid(c.block) {
                    put(c.block, FactKind::LoopExit, &mut out);
                    if seen.insert(c.block) {
                        queue.push_back(c.block);
                    }
                }
            }
        }
        while let Some(b) = queue.pop_front() {
            if matches!(body.blocks[b].term, Terminator::Branch { .. } | Terminator::Switch { .. }) {
                put(b, FactKind::AfterLoop, &mut out);
            }
            for c in body.blocks[b].term.successors() {
                if !l.blocks.contains(&c.block) && body.blocks.is_valid(c.block) && seen.insert(c.block) {
                    queue.push_back(c.block);
                }
            }
        }
    }
    out
}

/// The type in which `terms` (sign-extended) sum without wrapping, given
/// the values' intervals.
pub(crate) fn eval_type(
    body: &Body,
    dm: DataModel,
    iv: impl Fn(Value) -> Interval,
    terms: &[(i64, Value)],
    constant: i64,
) -> Option<Type> {
    'ty: for ty in [Type::I32, Type::I64] {
        let tw = ty.bits(dm);
        let fits = |x: i128| (smin(tw)..=smax(tw)).contains(&x);
        if !fits(-i128::from(constant)) {
            continue;
        }
        let (mut lo, mut hi) = (0i128, 0i128);
        for &(c, v) in terms {
            let w = body.values[v].ty.bits(dm);
            if w > tw || !fits(i128::from(c)) {
                continue 'ty;
            }
            let x = norm(iv(v), w);
            if x.is_bottom() {
                return None;
            }
            let c = i128::from(c);
            let (a, b) = (x.lo.checked_mul(c)?, x.hi.checked_mul(c)?);
            let (tl, th) = (a.min(b), a.max(b));
            // Both c * x and -c * x (a negative coefficient may be applied
            // as a subtraction of |c| * x).
            if !fits(tl) || !fits(th) || !fits(-tl) || !fits(-th) || !fits(c.abs()) {
                continue 'ty;
            }
            lo += tl;
            hi += th;
            if !fits(lo) || !fits(hi) {
                continue 'ty;
            }
        }
        return Some(ty);
    }
    None
}

/// The facts at loop heads, loop exits and branch blocks after loops of
/// every analyzed function, in function, block and row order.
pub fn invariants_at_exits(a: &RelAnalysis) -> Vec<LinearFact> {
    let program = a.program();
    let dm = program.data_model;
    let mut out = Vec::new();
    for (fid, f) in program.funcs.iter() {
        let (Some(body), Some(rf)) = (&f.body, a.func(fid)) else { continue };
        if rf.loops.is_empty() {
            continue;
        }
        let dom = Dominators::compute(body);
        let block_of = body.inst_blocks();
        for (b, kind) in fact_blocks(body, &rf.loops) {
            let st = &rf.sol.entry[b];
            if st.eq.rows().is_empty() {
                continue;
            }
            let keep = |v: Var| -> bool {
                let Var::Val(v) = v else { return false };
                match body.values.get(v).map(|d| d.def) {
                    Some(ValueDef::Param(d, _)) => dom.dominates(d, b),
                    Some(ValueDef::Inst(i)) => {
                        let Some(ib) = block_of[i] else { return false };
                        ib != b && dom.dominates(ib, b) && !is_linear_def(&body.insts[i].kind)
                    }
                    None => false,
                }
            };
            let proj = st.eq.project(keep);
            for row in proj.rows() {
                let terms: Option<Vec<(i64, Value)>> = row
                    .terms
                    .iter()
                    .rev()
                    .map(|&(v, c)| match v {
                        Var::Val(v) => i64::try_from(c).ok().map(|c| (c, v)),
                        _ => None,
                    })
                    .collect();
                let (Some(terms), Ok(constant)) = (terms, i64::try_from(row.constant)) else { continue };
                let eval_ty = eval_type(body, dm, |v| st.iv.get(v), &terms, constant);
                out.push(LinearFact { func: fid, block: b, kind, terms, constant, eval_ty });
            }
        }
    }
    out
}

/// A copy of `program` with every fact whose [`LinearFact::eval_ty`] is
/// known inserted as an `assume` at the start of its block: values are
/// sign-extended to that type, multiplied by their coefficients, summed,
/// and compared with the negated constant. The new instructions have no
/// source location (they count no line and make no goal, so goal ids are
/// unchanged). Facts naming unknown functions or blocks are ignored.
pub fn instrument(program: &Program, facts: &[LinearFact]) -> Program {
    let mut p = program.clone();
    let dm = p.data_model;
    let mut by_block: BTreeMap<(FuncId, Block), Vec<&LinearFact>> = BTreeMap::new();
    for f in facts.iter().filter(|f| f.eval_ty.is_some() && !f.terms.is_empty()) {
        by_block.entry((f.func, f.block)).or_default().push(f);
    }
    for ((fid, b), fs) in by_block {
        if !p.funcs.is_valid(fid) {
            continue;
        }
        let Some(body) = p.funcs[fid].body.as_mut() else { continue };
        if !body.blocks.is_valid(b) {
            continue;
        }
        let mut new: Vec<Inst> = Vec::new();
        for fact in fs {
            let Some(ty) = fact.eval_ty else { continue };
            let tw = ty.bits(dm);
            let mut push = |body: &mut Body, kind: InstKind| -> Option<Value> {
                let i = body.create_inst(kind, Loc::UNKNOWN);
                new.push(i);
                body.insts[i].result
            };
            let mut acc: Option<Operand> = None;
            for &(c, v) in &fact.terms {
                let vt = body.values[v].ty;
                let mut x = Operand::Value(v);
                if vt.bits(dm) < tw {
                    let Some(r) = push(body, InstKind::Cast { op: CastOp::SExt, from: vt, to: ty, arg: x }) else {
                        continue;
                    };
                    x = Operand::Value(r);
                }
                // After the first term, a negative coefficient subtracts
                // |c| * x (eval_type checked that both signs fit).
                let (k, op) = match acc {
                    Some(_) if c < 0 => (c.wrapping_neg(), BinOp::Sub),
                    _ => (c, BinOp::Add),
                };
                if k != 1 {
                    let kc = Operand::Const(Const::int(ty, k, dm));
                    let Some(r) = push(body, InstKind::Bin { op: BinOp::Mul, ty, lhs: x, rhs: kc }) else { continue };
                    x = Operand::Value(r);
                }
                acc = Some(match acc {
                    None => x,
                    Some(a) => match push(body, InstKind::Bin { op, ty, lhs: a, rhs: x }) {
                        Some(r) => Operand::Value(r),
                        None => a,
                    },
                });
            }
            let Some(acc) = acc else { continue };
            let rhs = Operand::Const(Const::int(ty, fact.constant.wrapping_neg(), dm));
            let Some(cond) = push(body, InstKind::Cmp { pred: CmpPred::Eq, ty, lhs: acc, rhs }) else { continue };
            push(body, InstKind::Assume { cond: Operand::Value(cond) });
        }
        let old = std::mem::take(&mut body.blocks[b].insts);
        new.extend(old);
        body.blocks[b].insts = new;
    }
    walkdown_ir::verify::verify_after("absint's invariant instrumentation", &p);
    p
}

/// A copy of `program` whose loop heads `assume` what the analyses know
/// there, for the loop abstraction of the bounded engine's induction step
/// (which enters each loop in an arbitrary state): the interval bounds,
/// equalities and octagonal inequalities of [`crate::entry_formula`] over
/// values available at the head (defined in a block dominating it), then
/// the counter-free equalities of [`invariants_at_exits`] at loop heads,
/// which project away values defined by linear arithmetic inside the loop.
/// Both hold on every execution, so restricting the arbitrary states to
/// them loses none. The new instructions have no source location: goal
/// ids are unchanged. Without the interval analysis (`None`), only the
/// equalities.
pub fn strengthen_loop_heads(
    program: &Program,
    intervals: Option<&crate::Analysis<'_>>,
    relational: Option<&RelAnalysis<'_>>,
) -> Program {
    let mut invariants = Vec::new();
    for (fid, f) in program.funcs.iter() {
        let (Some(body), Some(iv)) = (&f.body, intervals) else { continue };
        let heads = iv.loop_heads(fid);
        if heads.is_empty() {
            continue;
        }
        let dom = Dominators::compute(body);
        let block_of = body.inst_blocks();
        for head in heads {
            let Some(formula) = crate::entry_formula(iv, relational, fid, head) else { continue };
            let available = |v: Value| match body.values.get(v).map(|d| d.def) {
                Some(ValueDef::Param(d, _)) => dom.dominates(d, head),
                Some(ValueDef::Inst(i)) => block_of[i].is_some_and(|ib| ib != head && dom.dominates(ib, head)),
                None => false,
            };
            let formula = formula.restrict(&available);
            if formula != walkdown_ir::formula::Formula::Bool(true) {
                invariants.push(walkdown_ir::formula::BlockInvariant {
                    func: fid,
                    block: head,
                    formula,
                    loc: Loc::UNKNOWN,
                });
            }
        }
    }
    let with_states = walkdown_ir::formula::instrument_assumes(program, &invariants);
    let facts: Vec<LinearFact> = relational
        .map(invariants_at_exits)
        .unwrap_or_default()
        .into_iter()
        .filter(|f| f.kind == FactKind::LoopHead)
        .collect();
    instrument(&with_states, &facts)
}
