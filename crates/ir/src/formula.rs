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
    /// The equality in wrapping arithmetic of `ty`, each value read as
    /// `rename` says (the block's parameters as the values an edge passes).
    pub fn formula(&self, dm: crate::DataModel, rename: &dyn Fn(Value) -> Value) -> Formula {
        let k = |c: i64| Term::Operand(Operand::Const(Const::int(self.ty, c, dm)));
        let mut sum: Option<Term> = None;
        for &(c, v) in &self.terms {
            let x = Term::value(rename(v));
            let x = if c == 1 {
                x
            } else {
                Term::Bin { op: BinOp::Mul, ty: self.ty, lhs: Box::new(k(c)), rhs: Box::new(x) }
            };
            sum = Some(match sum {
                None => x,
                Some(s) => Term::Bin { op: BinOp::Add, ty: self.ty, lhs: Box::new(s), rhs: Box::new(x) },
            });
        }
        match sum {
            Some(lhs) => Formula::Cmp { pred: CmpPred::Eq, ty: self.ty, lhs, rhs: k(self.constant.wrapping_neg()) },
            None => Formula::Bool(self.constant == 0),
        }
    }
}
