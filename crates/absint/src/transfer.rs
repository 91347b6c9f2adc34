//! Transfer functions of the interval analysis over IR instructions and
//! branch edges.
//!
//! Instructions: integer arithmetic, comparisons, casts and selects use the
//! machine-integer interval operations of [`crate::interval`]; loads are
//! top but for reads of tables that never change ([`crate::tables`]);
//! floats and pointers are top. A direct call returns its callee's
//! [`ReturnSummary`] when one is known (top otherwise; a callee that never
//! returns makes the state unreachable). Calls are assumed not to change any SSA value (which they cannot) — sound because
//! memory is not tracked at all (every load is top), so nothing a callee
//! writes can be missed. Calls that end the run (`exit`, `abort`,
//! `reach_error`, `__VERIFIER_error`) make the state unreachable, and
//! `assume`, `check` and `__VERIFIER_assume` refine by their condition
//! (a run where it fails stops there).
//!
//! Edges: the guard is assumed on each side. Assuming that a value lies in
//! an interval also refines what it was computed from (comparisons, `and`
//! / `or` / `not` of booleans, extensions, addition or subtraction of a
//! constant), a few levels deep; this is sound in SSA because the operands
//! of a definition still hold the values it read wherever the definition's
//! result is available. Then the edge's arguments are bound to the target's
//! parameters, so a refined value flows into the parameter it is passed to.

use crate::domain::Domain;
use crate::fixpoint::Transfer;
use crate::interval::{
    self, binop, compare, crange, from_bits, from_sview, from_uview, is_full, norm, refine_compare, uview, Interval,
};
use crate::state::IntervalState;
use walkdown_ir::{
    BinOp, Block, BlockCall, Body, Builtin, Callee, CastOp, CmpPred, DataModel, InstKind, Operand, Program, Terminator,
    Type, UnOp, Value, ValueDef,
};

/// What calls to a function may return, from the function's own analysis
/// under unconstrained parameters (so it holds for every caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnSummary {
    /// No return is reachable: every call ends the run or never ends.
    Never,
    /// It may return; the returned value lies in the interval (top for
    /// `void` and for untracked types).
    Returns(Interval),
}

/// Return summaries by function; a function without one returns top.
pub type Summaries = std::collections::BTreeMap<walkdown_ir::FuncId, ReturnSummary>;

/// How deep assuming a value refines the values it was computed from.
const REFINE_DEPTH: u32 = 6;

/// The interval transfer functions of one function body.
pub struct IntervalTransfer<'a> {
    pub(crate) program: &'a Program,
    pub(crate) body: &'a Body,
    dm: DataModel,
    summaries: Option<&'a Summaries>,
    no_signed_overflow: bool,
    tables: crate::tables::Tables,
}

impl<'a> IntervalTransfer<'a> {
    /// Transfer functions for `body`, a function of `program`.
    pub fn new(program: &'a Program, body: &'a Body) -> Self {
        IntervalTransfer {
            program,
            body,
            dm: program.data_model,
            summaries: None,
            no_signed_overflow: false,
            tables: crate::tables::Tables::of(program, body),
        }
    }

    /// The same, assuming (or not) that no `add`, `sub` or `mul` overflows
    /// (see [`crate::fixpoint::FixpointOptions::no_signed_overflow`]).
    pub fn assuming_no_signed_overflow(mut self, on: bool) -> Self {
        self.no_signed_overflow = on;
        self
    }

    /// Whether `add`, `sub` and `mul` are assumed not to overflow.
    pub fn assumes_no_signed_overflow(&self) -> bool {
        self.no_signed_overflow
    }

    /// The same, with calls returning their callees' summaries.
    pub fn with_summaries(mut self, summaries: &'a Summaries) -> Self {
        self.summaries = Some(summaries);
        self
    }

    /// The width of an integer type, `None` for floats and pointers (which
    /// the analysis does not track).
    pub(crate) fn int_width(&self, ty: Type) -> Option<u32> {
        ty.is_int().then(|| ty.bits(self.dm))
    }

    pub(crate) fn value_width(&self, v: Value) -> Option<u32> {
        self.body.values.get(v).and_then(|d| self.int_width(d.ty))
    }

    /// The interval of an operand (clamped to its type when integer).
    pub fn operand(&self, s: &IntervalState, op: &Operand) -> Interval {
        match op {
            Operand::Value(v) => match self.value_width(*v) {
                Some(w) => norm(s.get(*v), w),
                None => Interval::TOP,
            },
            Operand::Const(c) => match self.int_width(c.ty) {
                Some(w) => Interval::constant(from_bits(c.bits, w)),
                None => Interval::TOP,
            },
            Operand::Global(_) | Operand::Func(_) => Interval::TOP,
        }
    }

    pub(crate) fn assign(&self, s: &mut IntervalState, v: Value, iv: Interval) {
        match self.value_width(v) {
            Some(w) => {
                let iv = norm(iv, w);
                s.set(v, iv, is_full(iv, w));
            }
            None => s.set(v, Interval::TOP, true),
        }
    }

    /// Restricts `op` to `iv`; unreachable when they are disjoint.
    pub fn assume_operand(&self, s: &mut IntervalState, op: &Operand, iv: Interval, depth: u32) {
        match op {
            Operand::Value(v) => self.assume_value(s, *v, iv, depth),
            Operand::Const(_) if self.operand(s, op).meet(iv).is_bottom() => *s = IntervalState::bottom(),
            _ => {}
        }
    }

    /// Restricts `v` to `iv`, and what `v` was computed from.
    pub fn assume_value(&self, s: &mut IntervalState, v: Value, iv: Interval, depth: u32) {
        let Some(w) = self.value_width(v) else { return };
        if s.is_bottom() {
            return;
        }
        let old = norm(s.get(v), w);
        let new = old.meet(norm(iv, w));
        if new == old {
            return;
        }
        self.assign(s, v, new);
        if new.is_bottom() || depth == 0 {
            return;
        }
        let Some(ValueDef::Inst(def)) = self.body.values.get(v).map(|d| d.def) else { return };
        let Some(data) = self.body.insts.get(def) else { return };
        let d = depth - 1;
        match &data.kind {
            InstKind::Cmp { pred, ty, lhs, rhs } if !pred.is_float() => {
                let (Some(cw), Some(outcome)) = (self.int_width(*ty), new.singleton()) else { return };
                let (x, y) = (self.operand(s, lhs), self.operand(s, rhs));
                let (x2, y2) = refine_compare(*pred, outcome != 0, x, y, cw);
                if x2.is_bottom() || y2.is_bottom() {
                    *s = IntervalState::bottom();
                    return;
                }
                self.assume_operand(s, lhs, x2, d);
                self.assume_operand(s, rhs, y2, d);
            }
            InstKind::Bin { op, ty: Type::I1, lhs, rhs } => match (op, new.singleton()) {
                (BinOp::And, Some(1)) | (BinOp::Or, Some(0)) => {
                    self.assume_operand(s, lhs, new, d);
                    self.assume_operand(s, rhs, new, d);
                }
                (BinOp::Xor, Some(b)) => {
                    // `not c` is `xor c, 1`.
                    for (a, other) in [(lhs, rhs), (rhs, lhs)] {
                        if let Some(k) = self.operand(s, other).singleton() {
                            self.assume_operand(s, a, Interval::constant(b ^ k), d);
                            return;
                        }
                    }
                }
                _ => {}
            },
            InstKind::Bin { op: op @ (BinOp::Add | BinOp::Sub), ty, lhs, rhs } => {
                let Some(bw) = self.int_width(*ty) else { return };
                let (x, y) = (self.operand(s, lhs), self.operand(s, rhs));
                // v = x + y  =>  x = v - y, y = v - x; v = x - y  =>  x = v + y, y = x - v.
                let (xr, yr) = if *op == BinOp::Add {
                    (binop(BinOp::Sub, new, y, bw), binop(BinOp::Sub, new, x, bw))
                } else {
                    (binop(BinOp::Add, new, y, bw), binop(BinOp::Sub, x, new, bw))
                };
                self.assume_operand(s, lhs, xr, d);
                self.assume_operand(s, rhs, yr, d);
            }
            InstKind::Cast { op: CastOp::ZExt, from, arg, .. } => {
                let Some(fw) = self.int_width(*from) else { return };
                // The result's value is the operand's unsigned value.
                self.assume_operand(s, arg, from_uview(new.meet(Interval::new(0, interval::umax(fw))), fw), d);
            }
            InstKind::Cast { op: CastOp::SExt, from, arg, .. } => {
                let Some(fw) = self.int_width(*from) else { return };
                let r = new.meet(Interval::new(interval::smin(fw), interval::smax(fw)));
                self.assume_operand(s, arg, from_sview(r, fw), d);
            }
            _ => {}
        }
    }

    fn cast(&self, op: CastOp, from: Type, to: Type, x: Interval) -> Interval {
        let (Some(fw), Some(tw)) = (self.int_width(from), self.int_width(to)) else { return Interval::TOP };
        match op {
            CastOp::ZExt => from_uview(uview(x, fw), tw),
            CastOp::SExt => from_sview(interval::sview(x, fw), tw),
            // Truncation keeps the residue modulo 2^tw.
            CastOp::Trunc => {
                let s = interval::sview(x, fw);
                interval::wrap(s.lo, s.hi, tw)
            }
            _ => Interval::TOP,
        }
    }

    /// Applies one instruction.
    pub fn inst(&self, s: &mut IntervalState, kind: &InstKind, result: Option<Value>) {
        let val = match kind {
            InstKind::Bin { op: op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), ty, lhs, rhs }
                if self.no_signed_overflow && self.int_width(*ty).is_some_and(|w| w > 1) =>
            {
                let w = self.int_width(*ty).unwrap_or(1);
                let (v, _) = interval::binop_no_signed_overflow(*op, self.operand(s, lhs), self.operand(s, rhs), w);
                if v.is_bottom() {
                    *s = IntervalState::bottom();
                    return;
                }
                v
            }
            InstKind::Bin { op, ty, lhs, rhs } => match self.int_width(*ty) {
                Some(w) => binop(*op, self.operand(s, lhs), self.operand(s, rhs), w),
                None => Interval::TOP,
            },
            InstKind::Un { op, ty, arg } => match (self.int_width(*ty), op) {
                (Some(w), UnOp::Ctpop | UnOp::Ctlz | UnOp::Cttz) => Interval::new(0, i128::from(w)),
                (Some(w), UnOp::Bswap) => {
                    let x = self.operand(s, arg);
                    if x.singleton() == Some(0) {
                        x
                    } else {
                        crange(w)
                    }
                }
                _ => Interval::TOP,
            },
            InstKind::Cmp { pred, ty, lhs, rhs } => match self.int_width(*ty) {
                Some(w) if !pred.is_float() => compare(*pred, self.operand(s, lhs), self.operand(s, rhs), w),
                _ => Interval::BOOL,
            },
            InstKind::Cast { op, from, to, arg } => self.cast(*op, *from, *to, self.operand(s, arg)),
            InstKind::Select { cond, if_true, if_false, .. } => {
                let c = self.operand(s, cond);
                let (t, f) = (self.operand(s, if_true), self.operand(s, if_false));
                match c.singleton() {
                    Some(1) => t,
                    Some(0) => f,
                    _ => t.join(&f),
                }
            }
            InstKind::Assume { cond } | InstKind::Check { cond, .. } => {
                self.assume_operand(s, cond, Interval::constant(1), REFINE_DEPTH);
                return;
            }
            InstKind::Load { ty, ptr } => result
                .and_then(|r| self.tables.load(self.program, self.body, r, *ty, ptr, &|o| self.operand(s, o)))
                .unwrap_or(Interval::TOP),
            InstKind::Call { callee: Callee::Direct(f), args, .. } => {
                if let Some(fd) = self.program.funcs.get(*f) {
                    let ends = matches!(fd.builtin, Some(Builtin::Exit | Builtin::Abort))
                        || (fd.name == "reach_error" || fd.name == "__VERIFIER_error");
                    if ends {
                        *s = IntervalState::bottom();
                        return;
                    }
                    if fd.name == "__VERIFIER_assume" && fd.body.is_none() {
                        if let Some(a) = args.first() {
                            let w = self.int_width(self.body.operand_type(a)).unwrap_or(32);
                            let (x, _) =
                                refine_compare(CmpPred::Ne, true, self.operand(s, a), Interval::constant(0), w);
                            self.assume_operand(s, a, x, REFINE_DEPTH);
                        }
                    }
                }
                match self.summaries.and_then(|m| m.get(f)) {
                    Some(ReturnSummary::Never) => {
                        *s = IntervalState::bottom();
                        return;
                    }
                    Some(ReturnSummary::Returns(iv)) => *iv,
                    None => Interval::TOP,
                }
            }
            _ => Interval::TOP,
        };
        if let Some(v) = result {
            self.assign(s, v, val);
        }
    }
}

impl Transfer for IntervalTransfer<'_> {
    type State = IntervalState;

    fn initial(&self) -> IntervalState {
        IntervalState::top()
    }

    fn block(&self, block: Block, entry: &IntervalState) -> IntervalState {
        let mut s = entry.clone();
        let Some(data) = self.body.blocks.get(block) else { return s };
        for &i in &data.insts {
            if s.is_bottom() {
                break;
            }
            if let Some(inst) = self.body.insts.get(i) {
                self.inst(&mut s, &inst.kind, inst.result);
            }
        }
        s
    }

    fn edge(&self, block: Block, out: &IntervalState, succ: u32) -> IntervalState {
        let mut s = out.clone();
        let Some(target) = self.guard(&mut s, block, succ) else { return IntervalState::bottom() };
        if s.is_bottom() {
            return s;
        }
        self.bind(&mut s, target);
        s
    }
}

impl<'a> IntervalTransfer<'a> {
    /// Assumes the guard of successor `succ` of `block`'s terminator in
    /// `s`; returns the successor (`None` when there is none).
    pub fn guard(&self, s: &mut IntervalState, block: Block, succ: u32) -> Option<&'a BlockCall> {
        let body: &'a Body = self.body;
        let data = body.blocks.get(block)?;
        match &data.term {
            Terminator::Jump(c) => (succ == 0).then_some(c),
            Terminator::Branch { cond, if_true, if_false } => {
                let taken = succ == 0;
                self.assume_operand(s, cond, Interval::constant(i128::from(taken)), REFINE_DEPTH);
                match succ {
                    0 => Some(if_true),
                    1 => Some(if_false),
                    _ => None,
                }
            }
            Terminator::Switch { ty, value, cases, default } => {
                let w = self.int_width(*ty).unwrap_or(64);
                if let Some((k, c)) = cases.get(succ as usize) {
                    self.assume_operand(s, value, Interval::constant(from_bits(*k, w)), REFINE_DEPTH);
                    Some(c)
                } else if succ as usize == cases.len() {
                    // The default: the value differs from every case; only
                    // an endpoint can be cut from an interval.
                    let mut x = self.operand(s, value);
                    loop {
                        let before = x;
                        for (k, _) in cases {
                            x = refine_compare(CmpPred::Ne, true, x, Interval::constant(from_bits(*k, w)), w).0;
                        }
                        if x == before || x.is_bottom() {
                            break;
                        }
                    }
                    self.assume_operand(s, value, x, REFINE_DEPTH);
                    Some(default)
                } else {
                    None
                }
            }
            Terminator::Return(_) | Terminator::Unreachable => None,
        }
    }

    /// Binds the arguments of `target` to its block's parameters.
    pub fn bind(&self, s: &mut IntervalState, target: &BlockCall) {
        let Some(tdata) = self.body.blocks.get(target.block) else {
            *s = IntervalState::bottom();
            return;
        };
        // Arguments are read before any parameter is written: a block may
        // pass its own parameters around (parallel assignment).
        let vals: Vec<Interval> = target.args.iter().map(|a| self.operand(s, a)).collect();
        for (p, iv) in tdata.params.iter().zip(vals) {
            self.assign(s, *p, iv);
        }
    }
}
