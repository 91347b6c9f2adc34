//! Formulas over the values of a function at one point: what an engine
//! claims always holds there (a loop invariant), written in the IR's own
//! integer operations so it can be checked by running it (see
//! [`instrument_checks`]) and printed as C by a writer.
//!
//! Only operations C can state without undefined behaviour are terms:
//! wrapping addition, subtraction, multiplication, bitwise operations,
//! width changes. Division and shifts are left out (a C expression must
//! not fault or be undefined where it is evaluated).

use crate::{
    BinOp, Block, Body, CastOp, CheckKind, CmpPred, Const, FuncId, Inst, InstKind, Loc, Operand, Program, Type, Value,
};

/// An integer term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A value of the function, or a constant.
    Operand(Operand),
    /// A wrapping operation on `ty` (`Add`, `Sub`, `Mul`, `And`, `Or`,
    /// `Xor`).
    Bin {
        /// The operation.
        op: BinOp,
        /// The operands' type.
        ty: Type,
        /// Left operand.
        lhs: Box<Term>,
        /// Right operand.
        rhs: Box<Term>,
    },
    /// `Trunc`, `ZExt` or `SExt` from `from` to `to`.
    Cast {
        /// The conversion.
        op: CastOp,
        /// The operand's type.
        from: Type,
        /// The result's type.
        to: Type,
        /// The operand.
        arg: Box<Term>,
    },
}

/// A Boolean formula.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// A constant.
    Bool(bool),
    /// An integer comparison on `ty`.
    Cmp {
        /// The predicate (not a floating-point one).
        pred: CmpPred,
        /// The operands' type.
        ty: Type,
        /// Left operand.
        lhs: Term,
        /// Right operand.
        rhs: Term,
    },
    /// Negation.
    Not(Box<Formula>),
    /// Conjunction (empty: true).
    And(Vec<Formula>),
    /// Disjunction (empty: false).
    Or(Vec<Formula>),
}

/// Whether `op` may appear in a [`Term::Bin`].
pub fn is_term_op(op: BinOp) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor)
}

impl Term {
    /// A value.
    pub fn value(v: Value) -> Term {
        Term::Operand(Operand::Value(v))
    }

    /// Every value the term reads, in order of appearance.
    pub fn values(&self, out: &mut Vec<Value>) {
        match self {
            Term::Operand(Operand::Value(v)) => out.push(*v),
            Term::Operand(_) => {}
            Term::Bin { lhs, rhs, .. } => {
                lhs.values(out);
                rhs.values(out);
            }
            Term::Cast { arg, .. } => arg.values(out),
        }
    }

    /// The term with every value read as `rename` says.
    pub fn rename(&self, rename: &dyn Fn(Value) -> Value) -> Term {
        match self {
            Term::Operand(Operand::Value(v)) => Term::value(rename(*v)),
            Term::Operand(o) => Term::Operand(*o),
            Term::Bin { op, ty, lhs, rhs } => {
                Term::Bin { op: *op, ty: *ty, lhs: Box::new(lhs.rename(rename)), rhs: Box::new(rhs.rename(rename)) }
            }
            Term::Cast { op, from, to, arg } => {
                Term::Cast { op: *op, from: *from, to: *to, arg: Box::new(arg.rename(rename)) }
            }
        }
    }
}

impl Formula {
    /// The conjunction of `parts`, flattened, without `true`s; `false` if
    /// one part is.
    pub fn and(parts: Vec<Formula>) -> Formula {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Formula::Bool(true) => {}
                Formula::Bool(false) => return Formula::Bool(false),
                Formula::And(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        dedup_in_order(&mut out);
        match out.len() {
            0 => Formula::Bool(true),
            1 => out.pop().unwrap(),
            _ => Formula::And(out),
        }
    }

    /// The disjunction of `parts`, flattened, without `false`s; `true` if
    /// one part is.
    pub fn or(parts: Vec<Formula>) -> Formula {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Formula::Bool(false) => {}
                Formula::Bool(true) => return Formula::Bool(true),
                Formula::Or(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        dedup_in_order(&mut out);
        match out.len() {
            0 => Formula::Bool(false),
            1 => out.pop().unwrap(),
            _ => Formula::Or(out),
        }
    }

    /// The negation, pushed into comparisons.
    pub fn negate(self) -> Formula {
        match self {
            Formula::Bool(b) => Formula::Bool(!b),
            Formula::Cmp { pred, ty, lhs, rhs } => Formula::Cmp { pred: pred.negate(), ty, lhs, rhs },
            Formula::Not(f) => *f,
            other => Formula::Not(Box::new(other)),
        }
    }

    /// A weaker formula reading only values `keep` accepts: each
    /// comparison reading another value becomes `true` where it occurs
    /// positively (negations are pushed into comparisons first, so every
    /// comparison occurs positively).
    pub fn restrict(&self, keep: &dyn Fn(Value) -> bool) -> Formula {
        match self {
            Formula::Bool(b) => Formula::Bool(*b),
            Formula::Cmp { .. } => {
                if self.values().into_iter().all(keep) {
                    self.clone()
                } else {
                    Formula::Bool(true)
                }
            }
            Formula::Not(f) => match &**f {
                Formula::Not(g) => g.restrict(keep),
                Formula::And(fs) => Formula::or(fs.iter().map(|g| g.clone().negate().restrict(keep)).collect()),
                Formula::Or(fs) => Formula::and(fs.iter().map(|g| g.clone().negate().restrict(keep)).collect()),
                other => other.clone().negate().restrict(keep),
            },
            Formula::And(fs) => Formula::and(fs.iter().map(|f| f.restrict(keep)).collect()),
            Formula::Or(fs) => Formula::or(fs.iter().map(|f| f.restrict(keep)).collect()),
        }
    }

    /// The formula with every value read as `rename` says (a head's
    /// parameters as the values an edge into it passes).
    pub fn rename(&self, rename: &dyn Fn(Value) -> Value) -> Formula {
        match self {
            Formula::Bool(b) => Formula::Bool(*b),
            Formula::Cmp { pred, ty, lhs, rhs } => {
                Formula::Cmp { pred: *pred, ty: *ty, lhs: lhs.rename(rename), rhs: rhs.rename(rename) }
            }
            Formula::Not(f) => Formula::Not(Box::new(f.rename(rename))),
            Formula::And(fs) => Formula::And(fs.iter().map(|f| f.rename(rename)).collect()),
            Formula::Or(fs) => Formula::Or(fs.iter().map(|f| f.rename(rename)).collect()),
        }
    }

    /// Every value the formula reads, each once, in order of appearance.
    pub fn values(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.collect_values(&mut out);
        let mut seen = std::collections::HashSet::new();
        out.retain(|v| seen.insert(*v));
        out
    }

    fn collect_values(&self, out: &mut Vec<Value>) {
        match self {
            Formula::Bool(_) => {}
            Formula::Cmp { lhs, rhs, .. } => {
                lhs.values(out);
                rhs.values(out);
            }
            Formula::Not(f) => f.collect_values(out),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|f| f.collect_values(out)),
        }
    }

    /// Appends instructions computing the formula to `block` of `body` and
    /// returns the `i1` operand holding it.
    pub fn emit(&self, body: &mut Body, block: Block, loc: Loc) -> Operand {
        match self {
            Formula::Bool(b) => Operand::Const(Const::bool(*b)),
            Formula::Cmp { pred, ty, lhs, rhs } => {
                let lhs = emit_term(lhs, body, block, loc);
                let rhs = emit_term(rhs, body, block, loc);
                append(body, block, InstKind::Cmp { pred: *pred, ty: *ty, lhs, rhs }, loc)
            }
            Formula::Not(f) => {
                let arg = f.emit(body, block, loc);
                append(
                    body,
                    block,
                    InstKind::Bin { op: BinOp::Xor, ty: Type::I1, lhs: arg, rhs: Operand::Const(Const::bool(true)) },
                    loc,
                )
            }
            Formula::And(fs) | Formula::Or(fs) => {
                let (op, unit) = if matches!(self, Formula::And(_)) { (BinOp::And, true) } else { (BinOp::Or, false) };
                let mut acc = Operand::Const(Const::bool(unit));
                for (k, f) in fs.iter().enumerate() {
                    let x = f.emit(body, block, loc);
                    acc = if k == 0 {
                        x
                    } else {
                        append(body, block, InstKind::Bin { op, ty: Type::I1, lhs: acc, rhs: x }, loc)
                    };
                }
                acc
            }
        }
    }
}

fn dedup_in_order(v: &mut Vec<Formula>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|f| seen.insert(f.clone()));
}

fn emit_term(t: &Term, body: &mut Body, block: Block, loc: Loc) -> Operand {
    match t {
        Term::Operand(o) => *o,
        Term::Bin { op, ty, lhs, rhs } => {
            let lhs = emit_term(lhs, body, block, loc);
            let rhs = emit_term(rhs, body, block, loc);
            append(body, block, InstKind::Bin { op: *op, ty: *ty, lhs, rhs }, loc)
        }
        Term::Cast { op, from, to, arg } => {
            let arg = emit_term(arg, body, block, loc);
            append(body, block, InstKind::Cast { op: *op, from: *from, to: *to, arg }, loc)
        }
    }
}

fn append(body: &mut Body, block: Block, kind: InstKind, loc: Loc) -> Operand {
    let (_, v) = body.append(block, kind, loc);
    Operand::Value(v.expect("comparisons and arithmetic have a result"))
}

/// A formula claimed to hold on every entry to `block` of `func`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockInvariant {
    /// The function.
    pub func: FuncId,
    /// The block, on whose entry (after its parameters) the formula holds.
    pub block: Block,
    /// The formula, over values available on entry to the block.
    pub formula: Formula,
    /// Where a failing check is reported.
    pub loc: Loc,
}

/// `program` with a check of each invariant first thing in its block: an
/// [`CheckKind::Assertion`] that fails where the invariant does not hold.
/// Running tests on it tells whether they respect the invariants. Also
/// returns each invariant's check instruction (`None` where its block does
/// not exist).
pub fn instrument_checks(program: &Program, invariants: &[BlockInvariant]) -> (Program, Vec<Option<Inst>>) {
    let out = instrument_first(program, invariants, |cond| InstKind::Check { kind: CheckKind::Assertion, cond });
    crate::verify::verify_after("instrument_checks", &out.0);
    out
}

/// `program` with each invariant `assume`d first thing in its block, for
/// engines that may restrict their states to what holds on every execution
/// (invariants an analysis proved). The instructions take the invariant's
/// `loc`: with [`Loc::UNKNOWN`] they count no line and make no goal, so
/// the program's goal ids are unchanged.
pub fn instrument_assumes(program: &Program, invariants: &[BlockInvariant]) -> Program {
    let out = instrument_first(program, invariants, |cond| InstKind::Assume { cond }).0;
    crate::verify::verify_after("instrument_assumes", &out);
    out
}

/// Puts the formula of each invariant, then `stmt` of its value, before
/// the existing instructions of its block.
fn instrument_first(
    program: &Program,
    invariants: &[BlockInvariant],
    stmt: impl Fn(Operand) -> InstKind,
) -> (Program, Vec<Option<Inst>>) {
    let mut p = program.clone();
    let mut added = Vec::with_capacity(invariants.len());
    for inv in invariants {
        let body = if p.funcs.is_valid(inv.func) { p.funcs[inv.func].body.as_mut() } else { None };
        let Some(body) = body.filter(|b| b.blocks.is_valid(inv.block)) else {
            added.push(None);
            continue;
        };
        let old = std::mem::take(&mut body.blocks[inv.block].insts);
        let cond = inv.formula.emit(body, inv.block, inv.loc);
        let (inst, _) = body.append(inv.block, stmt(cond), inv.loc);
        body.blocks[inv.block].insts.extend(old);
        added.push(Some(inst));
    }
    (p, added)
}

/// `sum(coef * value) + constant == 0` modulo 2^w at the entry of a block,
/// every value of the integer type `ty` (w bits): a candidate loop
/// invariant, which holds only once an engine has checked it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearEquality {
    /// The function.
    pub func: FuncId,
    /// The block (a loop head).
    pub block: Block,
    /// `(coefficient, value)`.
    pub terms: Vec<(i64, Value)>,
    /// The constant term.
    pub constant: i64,
    /// The values' type.
    pub ty: Type,
}

impl LinearEquality {
    /// The equality as the invariant it states at its block.
    pub fn invariant(&self, dm: crate::DataModel) -> BlockInvariant {
        BlockInvariant { func: self.func, block: self.block, formula: self.formula(dm, &|v| v), loc: Loc::UNKNOWN }
    }

    /// The equality in wrapping arithmetic of `ty`, each value read as
    /// `rename` says (the block's parameters as the values an edge passes).
    pub fn formula(&self, dm: crate::DataModel, rename: &dyn Fn(Value) -> Value) -> Formula {
        let k = |c: i64| Term::Operand(Operand::Const(Const::int(self.ty, c, dm)));
        // Terms with a positive coefficient first, so that `-1 * x` after
        // them reads as a subtraction (the same in wrapping arithmetic).
        let mut terms = self.terms.clone();
        terms.sort_by_key(|&(c, _)| c < 0);
        let mut sum: Option<Term> = None;
        for (c, v) in terms {
            let x = Term::value(rename(v));
            let (op, x) = match (c, &sum) {
                (1, _) => (BinOp::Add, x),
                (-1, Some(_)) => (BinOp::Sub, x),
                _ => (BinOp::Add, Term::Bin { op: BinOp::Mul, ty: self.ty, lhs: Box::new(k(c)), rhs: Box::new(x) }),
            };
            sum = Some(match sum {
                None => x,
                Some(s) => Term::Bin { op, ty: self.ty, lhs: Box::new(s), rhs: Box::new(x) },
            });
        }
        match sum {
            Some(lhs) => Formula::Cmp { pred: CmpPred::Eq, ty: self.ty, lhs, rhs: k(self.constant.wrapping_neg()) },
            None => Formula::Bool(self.constant == 0),
        }
    }
}

/// Equalities over values `keep` accepts that follow from `equalities`
/// (all holding at one point): each value `keep` rejects is eliminated by
/// substitution, through an equality where its coefficient is 1 or -1 (so
/// the step is exact in wrapping arithmetic); equalities still reading a
/// rejected value are left out. A witness states a loop head's equalities
/// over the C variables in scope there, where an analysis found them over
/// earlier loops' values.
pub fn restate_equalities(
    equalities: &[LinearEquality],
    dm: crate::DataModel,
    keep: &dyn Fn(Value) -> bool,
) -> Vec<LinearEquality> {
    let mut rows: Vec<LinearEquality> = equalities.to_vec();
    loop {
        // A rejected value with a unit coefficient in some row: the pivot.
        let pivot = rows.iter().enumerate().find_map(|(r, e)| {
            e.terms.iter().find(|&&(c, v)| (c == 1 || c == -1) && !keep(v)).map(|&(c, v)| (r, c, v))
        });
        let Some((r, c, u)) = pivot else { break };
        let p = rows.swap_remove(r);
        for e in rows.iter_mut().filter(|e| e.ty == p.ty) {
            // e - (e_u / c) * p, with 1/c == c for c = ±1.
            let Some(k) = e.terms.iter().find(|t| t.1 == u).map(|t| t.0.wrapping_mul(c)) else { continue };
            for &(pc, pv) in &p.terms {
                let d = k.wrapping_mul(pc);
                match e.terms.iter_mut().find(|t| t.1 == pv) {
                    Some(t) => t.0 = t.0.wrapping_sub(d),
                    None => e.terms.push((d.wrapping_neg(), pv)),
                }
            }
            e.constant = e.constant.wrapping_sub(k.wrapping_mul(p.constant));
            let mask = if p.ty.bits(dm) >= 64 { u64::MAX } else { (1u64 << p.ty.bits(dm)) - 1 };
            e.terms.retain(|t| (t.0 as u64) & mask != 0);
        }
    }
    rows.retain(|e| !e.terms.is_empty() && e.terms.iter().all(|t| keep(t.1)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(terms: &[(i64, u32)], constant: i64) -> LinearEquality {
        LinearEquality {
            func: FuncId::from_u32(0),
            block: Block::from_u32(0),
            terms: terms.iter().map(|&(c, v)| (c, Value::from_u32(v))).collect(),
            constant,
            ty: Type::I32,
        }
    }

    #[test]
    fn an_earlier_loops_value_is_eliminated() {
        // n - y1 - x1 == 0 and x + z - x1 - y1 == 0, with x1 unnamed:
        // x + z - n == 0.
        let named = |v: Value| v.as_u32() != 1;
        let out = restate_equalities(
            &[eq(&[(1, 0), (-1, 2), (-1, 1)], 0), eq(&[(1, 3), (1, 4), (-1, 1), (-1, 2)], 0)],
            crate::DataModel::LP64,
            &named,
        );
        assert_eq!(out.len(), 1);
        let mut terms = out[0].terms.clone();
        terms.sort_by_key(|t| t.1);
        assert_eq!(terms, vec![(-1, Value::from_u32(0)), (1, Value::from_u32(3)), (1, Value::from_u32(4))]);
        assert_eq!(out[0].constant, 0);
    }

    #[test]
    fn a_value_without_a_unit_coefficient_stays_out() {
        let named = |v: Value| v.as_u32() != 1;
        let out =
            restate_equalities(&[eq(&[(2, 1), (1, 0)], 3), eq(&[(1, 2), (1, 0)], 0)], crate::DataModel::LP64, &named);
        assert_eq!(out, vec![eq(&[(1, 2), (1, 0)], 0)]);
    }
}
