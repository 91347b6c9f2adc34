//! What a complete abstract reachability graph proves, kept so others can
//! check it and print it. Per location of the model, the disjunction of the
//! graph's node states there is an inductive invariant that excludes the
//! proved error sites; at the heads of source loops it is translated into a
//! [`Formula`] over the original function's values (dropping the atoms it
//! cannot say that way: memory, values of other functions, values a writer
//! cannot name), which is what a correctness witness states.
//!
//! [`Certificate::check`] re-checks such a set of loop-head formulas, one
//! step at a time under the same encoding the checker and the bounded
//! engine use: from the formula at a head (the graph's invariant
//! elsewhere), every step stays within the invariant of its target, and no
//! proved check can fail. Only formulas that pass are worth writing: a
//! weakened formula may lose inductiveness.

use std::collections::{HashMap, HashSet};

use crate::model::Model;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::formula::{is_term_op, Formula, Term};
use walkdown_ir::goals::GoalId;
use walkdown_ir::{BinOp, Block, CastOp, CmpPred, Const, FuncId, Operand, Type, Value};
use walkdown_smt::{BvBinOp, BvUnOp, CmpOp, ExprId, Node, Solver, SolverSettings, SolverStack, Sort, SymId};

/// A formula claimed to hold on every entry to a loop head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadInvariant {
    /// The original function.
    pub func: FuncId,
    /// The loop's head in it.
    pub head: Block,
    /// Over the function's values available at the head.
    pub formula: Formula,
}

/// The outcome of [`Certificate::check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Every step and check passed.
    pub valid: bool,
    /// Steps and checks asked about.
    pub queries: u64,
    /// What failed first, in words (empty when valid).
    pub failure: String,
}

/// A complete graph's invariants over its model.
pub struct Certificate {
    model: Model,
    /// Per location: the node states, each a conjunction of literals.
    states: Vec<Vec<Vec<ExprId>>>,
    /// The goals the graph proved unreachable.
    proved: Vec<GoalId>,
    /// Per state symbol: its location and parameter number.
    sym_param: HashMap<SymId, (Block, usize)>,
    /// The literals that state a tracked value (`param == constant`).
    value_literals: HashSet<ExprId>,
}

fn int_type(width: u32) -> Option<Type> {
    Some(match width {
        1 => Type::I1,
        8 => Type::I8,
        16 => Type::I16,
        32 => Type::I32,
        64 => Type::I64,
        _ => return None,
    })
}

impl Certificate {
    /// The certificate of a complete run over `model` whose node states
    /// per location are `states`, of which `value_literals` state tracked
    /// values ([`crate::Checker::location_states`]).
    pub fn new(model: Model, states: Vec<Vec<Vec<ExprId>>>, value_literals: HashSet<ExprId>, proved: Vec<GoalId>) -> Certificate {
        let mut sym_param = HashMap::new();
        for (b, st) in model.states.iter().enumerate() {
            for (j, &p) in st.params.iter().enumerate() {
                if let Node::Var { sym, .. } = model.pool.get(p) {
                    sym_param.insert(*sym, (Block::new(b), j));
                }
            }
        }
        Certificate { model, states, proved, sym_param, value_literals }
    }

    /// The goals the graph proved unreachable.
    pub fn proved(&self) -> &[GoalId] {
        &self.proved
    }

    /// The model blocks that are copies of the start of `head` of `func`.
    fn copies(&self, func: FuncId, head: Block) -> Vec<Block> {
        self.model
            .body
            .blocks
            .keys()
            .filter(|&b| matches!(self.model.prov.blocks.get(b), Some(o) if o.func == func && o.block == head && o.start))
            .collect()
    }

    /// The original value state symbol `sym` stands for, if it is a
    /// parameter of a copy of a block of `func`.
    fn original(&self, sym: SymId, func: FuncId) -> Option<Value> {
        let &(b, j) = self.sym_param.get(&sym)?;
        let param = self.model.body.blocks[b].params[j];
        match *self.model.prov.values.get(param) {
            Some((f, v)) if f == func => Some(v),
            _ => None,
        }
    }

    /// The graph's invariant at each of `heads` as a formula over the
    /// original function's values: the disjunction over the head's copies
    /// and their nodes of the conjunction of the literals it can translate
    /// (values `keep` accepts, integer operations C can state); the others
    /// are dropped, so the formula is weaker but still holds at the head.
    /// Heads the graph never reached get `false`. Without `with_values`,
    /// the literals of values the graph tracked explicitly are left out
    /// too (a loop unrolled by value gives one disjunct per iteration; the
    /// predicates alone are often enough, and readable).
    pub fn head_invariants(&self, heads: &[(FuncId, Block)], keep: &dyn Fn(FuncId, Block, Value) -> bool, with_values: bool) -> Vec<HeadInvariant> {
        let mut out = Vec::new();
        for &(func, head) in heads {
            let mut disjuncts = Vec::new();
            for b in self.copies(func, head) {
                for lits in &self.states[b.index()] {
                    let mut conj = Vec::new();
                    for &l in lits {
                        if !with_values && self.value_literals.contains(&l) {
                            continue;
                        }
                        let t = Translate { c: self, func, head, keep };
                        let f = t.formula(l);
                        if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                            eprintln!("certificate: block {}: {} -> {f:?}", b.as_u32(), self.model.pool.display(l));
                        }
                        if let Some(f) = f {
                            conj.push(f);
                        }
                    }
                    disjuncts.push(Formula::and(conj));
                }
            }
            out.push(HeadInvariant { func, head, formula: Formula::or(disjuncts) });
        }
        out
    }

    /// Checks that `invariants` at their heads, with the graph's own
    /// invariant everywhere else, are inductive under the model's steps
    /// and exclude every check the graph proved and every check of
    /// `exclude`; at most `time` is spent.
    pub fn check(&mut self, invariants: &[HeadInvariant], exclude: &[GoalId], time: std::time::Duration) -> CheckReport {
        let deadline = std::time::Instant::now() + time;
        let n = self.model.body.blocks.len();
        let mut inv: Vec<ExprId> = Vec::with_capacity(n);
        for b in 0..n {
            let parts: Vec<ExprId> = self.states[b].iter().map(|lits| self.model.pool.and(lits).expect("Boolean")).collect();
            inv.push(self.model.pool.or(&parts).expect("Boolean"));
        }
        for hi in invariants {
            for b in self.copies(hi.func, hi.head) {
                let mut fresh = HashMap::new();
                inv[b.index()] = self.encode_formula(&hi.formula, b, hi.func, &mut fresh);
            }
        }
        let mut solver = SolverStack::build(&SolverSettings::default());
        solver.set_deadline(Some(deadline));
        let proved: HashSet<GoalId> = self.proved.iter().chain(exclude).copied().collect();
        let mut report = CheckReport { valid: true, queries: 0, failure: String::new() };
        let f = self.model.pool.bool_const(false);
        for b in 0..n {
            if inv[b] == f {
                continue;
            }
            for k in 0..self.model.steps[b].len() {
                let (to, guard, post_params, post_mem) = {
                    let s = &self.model.steps[b][k];
                    (s.to, s.guard, s.post_params.clone(), s.post_mem)
                };
                let map = self.model.state_map(to, &post_params, Some(post_mem));
                let post = self.model.pool.substitute(inv[to.index()], &map, &mut HashMap::new()).expect("substitution keeps sorts");
                let not_post = self.model.pool.not(post).expect("Boolean");
                let q = self.model.pool.and(&[inv[b], guard, not_post]).expect("Boolean");
                report.queries += 1;
                match solver.is_sat(&self.model.pool, &[q]) {
                    Ok(Some(false)) => {}
                    answer => {
                        report.valid = false;
                        report.failure = format!(
                            "the step from {} to {} {}",
                            self.describe(Block::new(b)),
                            self.describe(to),
                            if matches!(answer, Ok(Some(true))) { "leaves the invariant" } else { "could not be decided" }
                        );
                        return report;
                    }
                }
            }
            for k in 0..self.model.errors[b].len() {
                let (goal, fails) = (self.model.errors[b][k].goal, self.model.errors[b][k].fails);
                if !proved.contains(&goal) {
                    continue;
                }
                let q = self.model.pool.and(&[inv[b], fails]).expect("Boolean");
                report.queries += 1;
                match solver.is_sat(&self.model.pool, &[q]) {
                    Ok(Some(false)) => {}
                    _ => {
                        report.valid = false;
                        report.failure = format!("the proved check {goal} may fail at {} under the invariant", self.describe(Block::new(b)));
                        return report;
                    }
                }
            }
        }
        report
    }

    fn describe(&self, b: Block) -> String {
        let loc = self.model.body.blocks[b].insts.first().map(|&i| self.model.body.insts[i].loc).unwrap_or(self.model.body.blocks[b].term_loc);
        format!("block {} (line {})", b.as_u32(), loc.line)
    }

    /// `formula` over the state symbols of copy `b`; a value that is not
    /// a parameter there becomes a fresh symbol (nothing known of it).
    fn encode_formula(&mut self, formula: &Formula, b: Block, func: FuncId, fresh: &mut HashMap<Value, ExprId>) -> ExprId {
        let pool_err = "formula terms have matching sorts";
        match formula {
            Formula::Bool(v) => self.model.pool.bool_const(*v),
            Formula::Cmp { pred, ty, lhs, rhs } => {
                let l = self.encode_term(lhs, *ty, b, func, fresh);
                let r = self.encode_term(rhs, *ty, b, func, fresh);
                let p = &mut self.model.pool;
                match pred {
                    CmpPred::Eq => p.eq(l, r).expect(pool_err),
                    CmpPred::Ne => {
                        let e = p.eq(l, r).expect(pool_err);
                        p.not(e).expect(pool_err)
                    }
                    CmpPred::Ult => p.cmp(CmpOp::Ult, l, r).expect(pool_err),
                    CmpPred::Ule => p.cmp(CmpOp::Ule, l, r).expect(pool_err),
                    CmpPred::Slt => p.cmp(CmpOp::Slt, l, r).expect(pool_err),
                    CmpPred::Sle => p.cmp(CmpOp::Sle, l, r).expect(pool_err),
                    CmpPred::Ugt => p.cmp(CmpOp::Ult, r, l).expect(pool_err),
                    CmpPred::Uge => p.cmp(CmpOp::Ule, r, l).expect(pool_err),
                    CmpPred::Sgt => p.cmp(CmpOp::Slt, r, l).expect(pool_err),
                    CmpPred::Sge => p.cmp(CmpOp::Sle, r, l).expect(pool_err),
                    _ => p.bool_const(true),
                }
            }
            Formula::Not(f) => {
                let x = self.encode_formula(f, b, func, fresh);
                self.model.pool.not(x).expect(pool_err)
            }
            Formula::And(fs) | Formula::Or(fs) => {
                let xs: Vec<ExprId> = fs.iter().map(|f| self.encode_formula(f, b, func, fresh)).collect();
                if matches!(formula, Formula::And(_)) {
                    self.model.pool.and(&xs).expect(pool_err)
                } else {
                    self.model.pool.or(&xs).expect(pool_err)
                }
            }
        }
    }

    fn encode_term(&mut self, term: &Term, ty: Type, b: Block, func: FuncId, fresh: &mut HashMap<Value, ExprId>) -> ExprId {
        let pool_err = "formula terms have matching sorts";
        // Formulas are over integers (pointers are never translated).
        let bits = |ty: Type| ty.bits(walkdown_ir::DataModel::LP64);
        match term {
            Term::Operand(Operand::Value(v)) => {
                let params = &self.model.body.blocks[b].params;
                if let Some(j) = params.iter().position(|p| *self.model.prov.values.get(*p) == Some((func, *v))) {
                    return self.model.states[b.index()].params[j];
                }
                if let Some(&e) = fresh.get(v) {
                    return e;
                }
                let name = format!("unbound_{}_{}", b.as_u32(), v.as_u32());
                let e = self.model.pool.new_symbol(&name, bits(ty)).expect(pool_err).1;
                fresh.insert(*v, e);
                e
            }
            Term::Operand(Operand::Const(c)) => self.model.pool.bv_const(bits(ty), u128::from(c.bits)).expect(pool_err),
            Term::Operand(_) => {
                let name = format!("address_{}_{}", b.as_u32(), fresh.len());
                self.model.pool.new_symbol(&name, bits(ty)).expect(pool_err).1
            }
            Term::Bin { op, ty, lhs, rhs } => {
                let l = self.encode_term(lhs, *ty, b, func, fresh);
                let r = self.encode_term(rhs, *ty, b, func, fresh);
                let bop = match op {
                    BinOp::Add => BvBinOp::Add,
                    BinOp::Sub => BvBinOp::Sub,
                    BinOp::Mul => BvBinOp::Mul,
                    BinOp::And => BvBinOp::And,
                    BinOp::Or => BvBinOp::Or,
                    _ => BvBinOp::Xor,
                };
                self.model.pool.binop(bop, l, r).expect(pool_err)
            }
            Term::Cast { op, from, to, arg } => {
                let a = self.encode_term(arg, *from, b, func, fresh);
                let w = bits(*to);
                match op {
                    CastOp::ZExt => self.model.pool.zext(a, w).expect(pool_err),
                    CastOp::SExt => self.model.pool.sext(a, w).expect(pool_err),
                    _ => self.model.pool.extract(a, w - 1, 0).expect(pool_err),
                }
            }
        }
    }
}

/// Translation of one literal of a node state into a [`Formula`] over the
/// original values of `func` at `head`.
struct Translate<'a> {
    c: &'a Certificate,
    func: FuncId,
    head: Block,
    keep: &'a dyn Fn(FuncId, Block, Value) -> bool,
}

impl Translate<'_> {
    fn formula(&self, e: ExprId) -> Option<Formula> {
        let pool = &self.c.model.pool;
        match pool.get(e) {
            Node::Bool(b) => Some(Formula::Bool(*b)),
            Node::Not(a) => Some(self.formula(*a)?.negate()),
            Node::And(xs) => Some(Formula::and(xs.iter().map(|&x| self.formula(x)).collect::<Option<Vec<_>>>()?)),
            Node::Or(xs) => Some(Formula::or(xs.iter().map(|&x| self.formula(x)).collect::<Option<Vec<_>>>()?)),
            Node::Eq(a, b) if matches!(pool.sort(*a), Sort::BitVec(_)) => self.compare(CmpPred::Eq, *a, *b),
            Node::Eq(a, b) => {
                // Two Booleans: both or neither.
                let (x, y) = (self.formula(*a)?, self.formula(*b)?);
                Some(Formula::or(vec![Formula::and(vec![x.clone(), y.clone()]), Formula::and(vec![x.negate(), y.negate()])]))
            }
            Node::Ite { cond, then, els } if pool.sort(e) == Sort::Bool => {
                let c = self.formula(*cond)?;
                let (t, f) = (self.formula(*then)?, self.formula(*els)?);
                Some(Formula::or(vec![Formula::and(vec![c.clone(), t]), Formula::and(vec![c.negate(), f])]))
            }
            Node::Cmp(op, a, b) => {
                let pred = match op {
                    CmpOp::Ult => CmpPred::Ult,
                    CmpOp::Ule => CmpPred::Ule,
                    CmpOp::Slt => CmpPred::Slt,
                    CmpOp::Sle => CmpPred::Sle,
                };
                self.compare(pred, *a, *b)
            }
            _ => None,
        }
    }

    /// `a pred b`; an `ite` operand is split into its two cases (branch
    /// conditions compare `ite`s of flags), and a comparison of constants
    /// is decided.
    fn compare(&self, pred: CmpPred, a: ExprId, b: ExprId) -> Option<Formula> {
        let pool = &self.c.model.pool;
        for (x, other, x_left) in [(a, b, true), (b, a, false)] {
            if let Node::Ite { cond, then, els } = pool.get(x) {
                let c = self.formula(*cond)?;
                let arm = |v: ExprId| if x_left { self.compare(pred, v, other) } else { self.compare(pred, other, v) };
                let (t, f) = (arm(*then)?, arm(*els)?);
                return Some(Formula::or(vec![Formula::and(vec![c.clone(), t]), Formula::and(vec![c.negate(), f])]));
            }
        }
        let w = pool.width(a)?;
        if let (Node::Bv { value: x, .. }, Node::Bv { value: y, .. }) = (pool.get(a), pool.get(b)) {
            let signed = |v: u128| -> i128 { if w < 128 && (v >> (w - 1)) & 1 == 1 { v as i128 - (1i128 << w) } else { v as i128 } };
            let holds = match pred {
                CmpPred::Eq => x == y,
                CmpPred::Ult => x < y,
                CmpPred::Ule => x <= y,
                CmpPred::Slt => signed(*x) < signed(*y),
                CmpPred::Sle => signed(*x) <= signed(*y),
                _ => return None,
            };
            return Some(Formula::Bool(holds));
        }
        // C has no 1-bit integers to compare.
        let ty = int_type(w).filter(|t| *t != Type::I1)?;
        Some(Formula::Cmp { pred, ty, lhs: self.term(a)?, rhs: self.term(b)? })
    }

    fn term(&self, e: ExprId) -> Option<Term> {
        let pool = &self.c.model.pool;
        let width = pool.width(e)?;
        let ty = int_type(width)?;
        match pool.get(e) {
            Node::Bv { value, .. } => Some(Term::Operand(Operand::Const(Const { ty, bits: *value as u64 }))),
            Node::Var { sym, .. } => {
                let v = self.c.original(*sym, self.func)?;
                (self.keep)(self.func, self.head, v).then(|| Term::value(v))
            }
            Node::BvBin(op, a, b) => {
                let op = match op {
                    BvBinOp::Add => BinOp::Add,
                    BvBinOp::Sub => BinOp::Sub,
                    BvBinOp::Mul => BinOp::Mul,
                    BvBinOp::And => BinOp::And,
                    BvBinOp::Or => BinOp::Or,
                    BvBinOp::Xor => BinOp::Xor,
                    _ => return None,
                };
                debug_assert!(is_term_op(op));
                Some(Term::Bin { op, ty, lhs: Box::new(self.term(*a)?), rhs: Box::new(self.term(*b)?) })
            }
            Node::BvUn(op, a) => {
                let x = self.term(*a)?;
                let (op, k) = match op {
                    BvUnOp::Neg => (BinOp::Sub, 0u64),
                    BvUnOp::Not => (BinOp::Xor, if width >= 64 { u64::MAX } else { (1u64 << width) - 1 }),
                };
                let c = Term::Operand(Operand::Const(Const { ty, bits: k }));
                Some(match op {
                    BinOp::Sub => Term::Bin { op, ty, lhs: Box::new(c), rhs: Box::new(x) },
                    _ => Term::Bin { op, ty, lhs: Box::new(x), rhs: Box::new(c) },
                })
            }
            Node::ZExt { arg, .. } | Node::SExt { arg, .. } => {
                let from = int_type(pool.width(*arg)?)?;
                let op = if matches!(pool.get(e), Node::ZExt { .. }) { CastOp::ZExt } else { CastOp::SExt };
                Some(Term::Cast { op, from, to: ty, arg: Box::new(self.term(*arg)?) })
            }
            Node::Extract { arg, hi, lo: 0 } if *hi + 1 == width => {
                let from = int_type(pool.width(*arg)?)?;
                Some(Term::Cast { op: CastOp::Trunc, from, to: ty, arg: Box::new(self.term(*arg)?) })
            }
            _ => None,
        }
    }
}
