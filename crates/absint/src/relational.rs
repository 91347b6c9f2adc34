//! The relational analysis: the reduced product of intervals
//! ([`IntervalState`]) and affine equalities ([`Affine`]) over the integer
//! SSA values of a function and one counter per loop.
//!
//! **Loop counters.** Every loop (component of the weak topological order)
//! gets a counter: on an edge into its head from outside the loop it is
//! set to 0, on a back edge (from inside) it is incremented. A counter is an
//! analysis-only mathematical integer (never wraps), at least 0.
//!
//! **Input symbols.** The result of a `nondet` outside every loop is
//! executed once per call of the function and, being an SSA value, never
//! changes afterwards: the value itself is the input's symbol
//! (`in_k`, listed by [`RelAnalysis::input_symbols`]), equal to the input
//! wherever it is available. A `nondet` inside a loop gets no symbol: its
//! result is an ordinary value, forgotten (fresh) at every read.
//!
//! **Machine integers.** The equalities are over the *canonical* values
//! (signed for widths 8 to 64, as in [`crate::interval`]) as mathematical
//! integers, never modulo `2^w`. An assignment records an equality only when
//! the intervals prove that the operation cannot wrap: `v = a + b` gives
//! `v == a + b` only when the exact range of `a + b` from the operands'
//! intervals lies in `v`'s signed range; otherwise `v` is forgotten. The same
//! holds for `sub`, `mul` and `shl` by a constant, `trunc` (the operand fits
//! in the smaller type) and `zext` (the operand is non-negative); `sext`
//! preserves the canonical value always. Booleans (`i1`), pointers and
//! floats are not variables of the equality domain. Since every equality
//! holds over the integers, it may also refine the intervals.
//!
//! **Reduction.** After a guard is assumed (branch edges, `assume`,
//! `check`), each equality bounds each of its variables by the interval of
//! the rest (two rounds), and the interval part refines what that value was
//! computed from. The product is otherwise a plain product: widening widens
//! the intervals and joins the equalities (Karr's domain has finite
//! ascending chains), and states at loop heads are not reduced after
//! widening, which keeps the iteration terminating.
//!
//! **Guards.** A branch on `cmp eq a, b` (or the false side of `cmp ne`),
//! possibly under `and`/`or`/`not` of booleans, and a switch case add the
//! equality `a == b` (`v == k`).

use crate::affine::{Affine, Linear, Var};
use crate::analysis::{reached_callees, roots};
use crate::domain::Domain;
use crate::fixpoint::{solve, wto, Cfg, FixpointOptions, Solution, Transfer, WtoElem};
use crate::interval::{from_bits, norm, smax, smin, Interval};
use crate::octagon::Octagon;
use crate::state::IntervalState;
use crate::transfer::IntervalTransfer;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::time::{Duration, Instant};
use walkdown_ir::{
    BinOp, Block, Body, CastOp, CmpPred, FuncId, InstKind, Operand, Program, Terminator, Type, Value, ValueDef,
};

/// How deep a guard's equalities are looked for under boolean operators.
const GUARD_DEPTH: u32 = 4;

/// How many values passed on a back edge get their interval-implied
/// differences stated (pairs grow with the square).
const MAX_SEEDED_ARGS: usize = 8;

/// The widest difference a back edge states: seeds are for the small
/// differences counters keep; a wide one says little beyond the intervals
/// and, combined with other constraints, crowds the octagon with more.
const MAX_SEEDED_BOUND: i128 = 1 << 20;

/// The state of a program point: intervals and affine equalities.
#[derive(Clone, PartialEq, Debug)]
pub struct RelState {
    /// The interval part.
    pub iv: IntervalState,
    /// The equality part.
    pub eq: Affine,
    /// The octagonal inequalities between two variables.
    pub oct: Octagon,
}

impl RelState {
    fn sync(&mut self) {
        if self.iv.is_bottom() || self.eq.is_bottom() || self.oct.is_bottom() {
            self.iv = IntervalState::bottom();
            self.eq = Affine::bottom();
            self.oct = Octagon::bottom();
        }
    }

    /// The octagon's constraints that say more than the intervals (a
    /// bound below the one the two intervals imply, a value's interval
    /// clamped to its type in `body`).
    pub fn stated_octagon(&self, body: &Body, dm: walkdown_ir::DataModel) -> Vec<(crate::octagon::Key, i128)> {
        let width = |x: Value| body.values.get(x).filter(|d| d.ty.is_int()).map(|d| d.ty.bits(dm));
        let iv = |v: Var| match v {
            Var::Val(x) => width(x).map_or(Interval::TOP, |w| norm(self.iv.get(x), w)),
            _ => self.var_iv(v),
        };
        self.oct
            .constraints()
            .filter(|(k, c)| crate::octagon::implied(k, &iv).is_none_or(|i| *c < i))
            .map(|(k, c)| (*k, c))
            .collect()
    }

    /// The interval of a variable as the octagon sees it (stored bounds;
    /// counters are non-negative).
    fn var_iv(&self, v: Var) -> Interval {
        match v {
            Var::Val(x) => self.iv.get(x),
            Var::Counter(_) => Interval::new(0, i128::MAX),
            Var::Temp(_) => Interval::TOP,
        }
    }
}

impl Domain for RelState {
    fn bottom() -> Self {
        RelState { iv: IntervalState::bottom(), eq: Affine::bottom(), oct: Octagon::bottom() }
    }
    fn top() -> Self {
        RelState { iv: IntervalState::top(), eq: Affine::top(), oct: Octagon::top() }
    }
    fn is_bottom(&self) -> bool {
        self.iv.is_bottom() || self.eq.is_bottom() || self.oct.is_bottom()
    }
    fn join(&self, o: &Self) -> Self {
        if self.is_bottom() {
            return o.clone();
        }
        if o.is_bottom() {
            return self.clone();
        }
        let oct = self.oct.join(&|v| self.var_iv(v), &o.oct, &|v| o.var_iv(v));
        RelState { iv: self.iv.join(&o.iv), eq: self.eq.join(&o.eq), oct }
    }
    fn leq(&self, o: &Self) -> bool {
        if self.is_bottom() {
            return true;
        }
        if o.is_bottom() {
            return false;
        }
        self.iv.leq(&o.iv) && self.eq.leq(&o.eq) && self.oct.leq(&|v| self.var_iv(v), &o.oct)
    }
    fn widen(&self, o: &Self) -> Self {
        if self.is_bottom() {
            return o.clone();
        }
        if o.is_bottom() {
            return self.clone();
        }
        let oct = self.oct.widen(&|v| self.var_iv(v), &o.oct, &|v| o.var_iv(v));
        RelState { iv: self.iv.widen(&o.iv), eq: self.eq.widen(&o.eq), oct }
    }
    fn narrow(&self, o: &Self) -> Self {
        if self.is_bottom() || o.is_bottom() {
            return Self::bottom();
        }
        // The octagon is not narrowed: its widening only drops
        // constraints, and keeping the older ones is sound.
        let mut s = RelState { iv: self.iv.narrow(&o.iv), eq: self.eq.narrow(&o.eq), oct: self.oct.clone() };
        s.sync();
        s
    }
}

/// A loop of a function: a component of the weak topological order.
#[derive(Clone, Debug)]
pub struct LoopInfo {
    /// Its head.
    pub head: Block,
    /// Its blocks, the head included.
    pub blocks: BTreeSet<Block>,
    /// The enclosing loop's number.
    pub parent: Option<usize>,
}

/// The loops of a weak topological order, outermost first (loop `k` has
/// counter [`Var::Counter`]`(k)`).
pub fn loops_of(order: &[WtoElem]) -> Vec<LoopInfo> {
    fn blocks(els: &[WtoElem], out: &mut BTreeSet<Block>) {
        for e in els {
            match e {
                WtoElem::Vertex(b) => {
                    out.insert(*b);
                }
                WtoElem::Component(h, body) => {
                    out.insert(*h);
                    blocks(body, out);
                }
            }
        }
    }
    fn walk(els: &[WtoElem], parent: Option<usize>, out: &mut Vec<LoopInfo>) {
        for e in els {
            if let WtoElem::Component(h, body) = e {
                let mut bs = BTreeSet::new();
                bs.insert(*h);
                blocks(body, &mut bs);
                let k = out.len();
                out.push(LoopInfo { head: *h, blocks: bs, parent });
                walk(body, Some(k), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(order, None, &mut out);
    out
}

/// The transfer functions of the product for one function body.
pub struct RelTransfer<'a> {
    it: IntervalTransfer<'a>,
    loops: Vec<LoopInfo>,
    head_of: BTreeMap<Block, usize>,
    /// Records equalities as if no operation wrapped (unsound: for
    /// candidate invariants that are checked afterwards).
    ignore_wrap: bool,
}

/// Bounds of a range (`None` is unbounded).
#[derive(Clone, Copy, Debug)]
struct Range {
    lo: Option<i128>,
    hi: Option<i128>,
}

impl Range {
    fn of(iv: Interval) -> Range {
        Range { lo: (iv.lo != i128::MIN).then_some(iv.lo), hi: (iv.hi != i128::MAX).then_some(iv.hi) }
    }
    fn scale(self, k: i128) -> Range {
        let m = |x: Option<i128>| x.and_then(|x| x.checked_mul(k));
        if k >= 0 {
            Range { lo: m(self.lo), hi: m(self.hi) }
        } else {
            Range { lo: m(self.hi), hi: m(self.lo) }
        }
    }
    fn add(self, o: Range) -> Range {
        let a = |x: Option<i128>, y: Option<i128>| x.zip(y).and_then(|(x, y)| x.checked_add(y));
        Range { lo: a(self.lo, o.lo), hi: a(self.hi, o.hi) }
    }
}

impl<'a> RelTransfer<'a> {
    /// Transfer functions for `body`, a function of `program`.
    pub fn new(program: &'a Program, body: &'a Body) -> Self {
        let cfg = Cfg::new(body);
        let loops = loops_of(&wto(body, &cfg));
        let head_of = loops.iter().enumerate().map(|(k, l)| (l.head, k)).collect();
        RelTransfer { it: IntervalTransfer::new(program, body), loops, head_of, ignore_wrap: false }
    }

    /// The same, with calls returning their callees' summaries.
    pub fn with_summaries(mut self, summaries: &'a crate::transfer::Summaries) -> Self {
        self.it = self.it.with_summaries(summaries);
        self
    }

    /// The loops, outermost first.
    pub fn loops(&self) -> &[LoopInfo] {
        &self.loops
    }

    /// The interval transfer functions used by the product.
    pub fn intervals(&self) -> &IntervalTransfer<'a> {
        &self.it
    }

    /// Whether `v` is a variable of the equality domain (an integer of at
    /// least 8 bits).
    fn tracked(&self, v: Value) -> bool {
        self.it.value_width(v).is_some_and(|w| w >= 8)
    }

    /// The operand as a linear expression, if it is a tracked value or an
    /// integer constant of at least 8 bits.
    fn lin(&self, op: &Operand) -> Option<Linear> {
        match op {
            Operand::Value(v) if self.tracked(*v) => Some(Linear::var(Var::Val(*v))),
            Operand::Const(c) => match self.it.int_width(c.ty) {
                Some(w) if w >= 8 => Some(Linear::constant(from_bits(c.bits, w))),
                _ => None,
            },
            _ => None,
        }
    }

    fn var_interval(&self, s: &IntervalState, extra: &BTreeMap<Var, Interval>, v: Var) -> Interval {
        match v {
            Var::Val(x) => match self.it.value_width(x) {
                Some(w) => norm(s.get(x), w),
                None => Interval::TOP,
            },
            Var::Counter(_) => extra.get(&v).copied().unwrap_or(Interval::new(0, i128::MAX)),
            Var::Temp(_) => Interval::TOP,
        }
    }

    fn range(&self, s: &IntervalState, e: &Linear) -> Range {
        let extra = BTreeMap::new();
        e.terms.iter().fold(Range { lo: Some(e.constant), hi: Some(e.constant) }, |r, &(v, c)| {
            r.add(Range::of(self.var_interval(s, &extra, v)).scale(c))
        })
    }

    /// `e` if its exact range fits the signed range of width `w`.
    fn exact(&self, s: &IntervalState, e: Option<Linear>, w: u32) -> Option<Linear> {
        let e = e?;
        if self.ignore_wrap {
            return Some(e);
        }
        let r = self.range(s, &e);
        (r.lo? >= smin(w) && r.hi? <= smax(w)).then_some(e)
    }

    /// The linear expression an instruction assigns to its (tracked)
    /// result, `None` when it is not linear or may wrap.
    fn inst_expr(&self, s: &IntervalState, kind: &InstKind, w: u32) -> Option<Linear> {
        match kind {
            InstKind::Bin { op, lhs, rhs, .. } => {
                let (a, b) = (self.lin(lhs), self.lin(rhs));
                let e = match op {
                    BinOp::Add => a?.add(&b?),
                    BinOp::Sub => a?.sub(&b?),
                    BinOp::Mul => {
                        let (a, b) = (a?, b?);
                        if a.terms.is_empty() {
                            b.scale(a.constant)
                        } else if b.terms.is_empty() {
                            a.scale(b.constant)
                        } else {
                            None
                        }
                    }
                    BinOp::Shl => {
                        let (a, b) = (a?, b?);
                        if b.terms.is_empty() && (0..i128::from(w)).contains(&b.constant) {
                            a.scale(1i128 << b.constant)
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                self.exact(s, e, w)
            }
            InstKind::Cast { op, arg, .. } => {
                let a = self.lin(arg)?;
                match op {
                    CastOp::SExt => Some(a),
                    CastOp::ZExt => (self.range(s, &a).lo? >= 0).then_some(a),
                    CastOp::Trunc => self.exact(s, Some(a), w),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Adds the equalities that `op == outcome` implies.
    fn guard_eq(&self, s: &mut RelState, op: &Operand, outcome: bool, depth: u32) {
        let Operand::Value(v) = op else { return };
        let body = self.it.body;
        let Some(ValueDef::Inst(def)) = body.values.get(*v).map(|d| d.def) else { return };
        let Some(data) = body.insts.get(def) else { return };
        match &data.kind {
            InstKind::Cmp { pred: pred @ (CmpPred::Eq | CmpPred::Ne), lhs, rhs, .. }
                if (*pred == CmpPred::Eq) == outcome =>
            {
                if let Some(r) = self.lin(lhs).zip(self.lin(rhs)).and_then(|(a, b)| a.sub(&b)) {
                    s.eq.add_eq(r);
                }
            }
            InstKind::Bin { op, ty: Type::I1, lhs, rhs } if depth > 0 => match op {
                BinOp::And if outcome => {
                    self.guard_eq(s, lhs, true, depth - 1);
                    self.guard_eq(s, rhs, true, depth - 1);
                }
                BinOp::Or if !outcome => {
                    self.guard_eq(s, lhs, false, depth - 1);
                    self.guard_eq(s, rhs, false, depth - 1);
                }
                BinOp::Xor => {
                    for (a, k) in [(lhs, rhs), (rhs, lhs)] {
                        if let Operand::Const(c) = k {
                            self.guard_eq(s, a, outcome ^ (c.bits & 1 == 1), depth - 1);
                            return;
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// Tightens intervals with the octagon's constraints (one round):
    /// `sx*x + sy*y <= c` bounds `sx*x` by `c` minus the least `sy*y`.
    fn reduce_oct(&self, s: &mut RelState) {
        let cons: Vec<_> = s.oct.constraints().map(|(k, c)| (*k, c)).collect();
        let extra = BTreeMap::new();
        for ((x, sx, y, sy), c) in cons {
            for (a, sa, b, sb) in [(x, sx, y, sy), (y, sy, x, sx)] {
                let Var::Val(av) = a else { continue };
                let ib = self.var_interval(&s.iv, &extra, b);
                let max_other_neg = if sb { ib.lo.checked_neg() } else { Some(ib.hi) };
                let Some(bound) =
                    max_other_neg.filter(|m| *m != i128::MAX && *m != i128::MIN).and_then(|m| c.checked_add(m))
                else {
                    continue;
                };
                let old = self.var_interval(&s.iv, &extra, a);
                let new = if sa {
                    old.meet(Interval::new(i128::MIN, bound))
                } else {
                    old.meet(Interval::new(-bound, i128::MAX))
                };
                if new != old {
                    self.it.assume_value(&mut s.iv, av, new, 2);
                    if s.iv.is_bottom() {
                        s.sync();
                        return;
                    }
                }
            }
        }
    }

    /// Adds `sx*x + sy*y <= c` to the octagon and the single-variable
    /// bounds it implies to the intervals.
    fn add_oct(&self, s: &mut RelState, x: Var, sx: bool, y: Var, sy: bool, c: i128) {
        let extra = BTreeMap::new();
        for (u, sign, bound) in s.oct.add(x, sx, y, sy, c) {
            if let Var::Val(uv) = u {
                let iv = if sign { Interval::new(i128::MIN, bound) } else { Interval::new(-bound, i128::MAX) };
                let old = self.var_interval(&s.iv, &extra, u);
                self.it.assume_value(&mut s.iv, uv, old.meet(iv), 2);
            }
        }
    }

    /// The octagon after `r := ca*a + cb*b + k` (exact; coefficients ±1):
    /// `r - ca*a` lies in the range of `cb*b + k`, and `r - cb*b` in that
    /// of `ca*a + k`, as far as the intervals bound them (`i + j` with
    /// `j` in `[1, 9]` gives `i + 1 <= r <= i + 9`).
    fn assign_sum(&self, s: &mut RelState, r: Var, (a, ca): (Var, i128), (b, cb): (Var, i128), k: i128) {
        s.oct.forget(r);
        let extra = BTreeMap::new();
        for ((kept, ck), (other, co)) in [((a, ca), (b, cb)), ((b, cb), (a, ca))] {
            let Var::Val(ov) = other else { continue };
            let Some(w) = self.it.value_width(ov) else { continue };
            let iv = self.var_interval(&s.iv, &extra, other);
            if iv.is_bottom() || crate::interval::is_full(iv, w) {
                continue;
            }
            let (lo, hi) = if co > 0 { (iv.lo, iv.hi) } else { (-iv.hi, -iv.lo) };
            // r - ck*kept <= hi + k and -(r - ck*kept) <= -(lo + k).
            self.add_oct(s, r, true, kept, ck < 0, hi + k);
            self.add_oct(s, r, false, kept, ck > 0, -(lo + k));
        }
    }

    /// On a back edge, makes the differences between the values passed to
    /// the head that the intervals bound explicit constraints. The sparse
    /// octagon joins only constraints one side states; on the first
    /// iteration the values are often constants of the intervals alone
    /// (`k = 0`, `i = 0`, then `k + 1` and `i + j`), so `k - i <= 0` would
    /// be stated by neither side and never become an invariant.
    fn seed_back_edge_differences(&self, s: &mut RelState, args: &[Operand]) {
        let mut vars: Vec<Var> = args
            .iter()
            .filter_map(|a| match a {
                Operand::Value(v) if self.tracked(*v) => Some(Var::Val(*v)),
                _ => None,
            })
            .filter(|&v| {
                let Var::Val(x) = v else { return false };
                let iv = s.var_iv(v);
                !iv.is_bottom() && self.it.value_width(x).is_some_and(|w| !crate::interval::is_full(iv, w))
            })
            .collect();
        vars.sort();
        vars.dedup();
        vars.truncate(MAX_SEEDED_ARGS);
        for (i, &x) in vars.iter().enumerate() {
            for &y in &vars[i + 1..] {
                for (sx, sy) in [(true, false), (false, true)] {
                    let k = crate::octagon::key(x, sx, y, sy);
                    let Some(bound) = crate::octagon::implied(&k, &|v| s.var_iv(v)) else { continue };
                    if bound.abs() <= MAX_SEEDED_BOUND && s.oct.bound(&k).is_none_or(|b| bound < b) {
                        self.add_oct(s, x, sx, y, sy, bound);
                    }
                }
            }
        }
    }

    /// Adds the octagonal constraints that `op == outcome` implies: signed
    /// comparisons of two tracked values (unsigned ones when both are
    /// non-negative), under `and`/`or`/`xor` of booleans as for equalities.
    fn guard_oct(&self, s: &mut RelState, op: &Operand, outcome: bool, depth: u32) {
        let Operand::Value(v) = op else { return };
        let body = self.it.body;
        let Some(ValueDef::Inst(def)) = body.values.get(*v).map(|d| d.def) else { return };
        let Some(data) = body.insts.get(def) else { return };
        match &data.kind {
            InstKind::Cmp { pred, lhs, rhs, .. } => {
                let (Operand::Value(a), Operand::Value(b)) = (lhs, rhs) else { return };
                if !self.tracked(*a) || !self.tracked(*b) {
                    return;
                }
                let extra = BTreeMap::new();
                let nonneg = |x: Value| self.var_interval(&s.iv, &extra, Var::Val(x)).lo >= 0;
                let pred = match pred {
                    CmpPred::Ult | CmpPred::Ule | CmpPred::Ugt | CmpPred::Uge if !(nonneg(*a) && nonneg(*b)) => return,
                    CmpPred::Ult => CmpPred::Slt,
                    CmpPred::Ule => CmpPred::Sle,
                    CmpPred::Ugt => CmpPred::Sgt,
                    CmpPred::Uge => CmpPred::Sge,
                    p => *p,
                };
                let pred = if outcome { Some(pred) } else { negate(pred) };
                let (a, b) = (Var::Val(*a), Var::Val(*b));
                // (x, y, c): x - y <= c.
                let cons: &[(Var, Var, i128)] = match pred {
                    Some(CmpPred::Slt) => &[(a, b, -1)],
                    Some(CmpPred::Sle) => &[(a, b, 0)],
                    Some(CmpPred::Sgt) => &[(b, a, -1)],
                    Some(CmpPred::Sge) => &[(b, a, 0)],
                    Some(CmpPred::Eq) => &[(a, b, 0), (b, a, 0)],
                    _ => &[],
                };
                for &(x, y, c) in cons {
                    self.add_oct(s, x, true, y, false, c);
                }
            }
            InstKind::Bin { op, ty: Type::I1, lhs, rhs } if depth > 0 => match op {
                BinOp::And if outcome => {
                    self.guard_oct(s, lhs, true, depth - 1);
                    self.guard_oct(s, rhs, true, depth - 1);
                }
                BinOp::Or if !outcome => {
                    self.guard_oct(s, lhs, false, depth - 1);
                    self.guard_oct(s, rhs, false, depth - 1);
                }
                BinOp::Xor => {
                    for (a, k) in [(lhs, rhs), (rhs, lhs)] {
                        if let Operand::Const(c) = k {
                            self.guard_oct(s, a, outcome ^ (c.bits & 1 == 1), depth - 1);
                            return;
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// Tightens intervals with the equalities (two rounds) and the
    /// octagon.
    pub fn reduce(&self, s: &mut RelState) {
        s.sync();
        if s.is_bottom() {
            return;
        }
        self.reduce_oct(s);
        if s.is_bottom() {
            return;
        }
        let mut extra: BTreeMap<Var, Interval> = BTreeMap::new();
        for _ in 0..2 {
            let rows: Vec<Linear> = s.eq.rows().to_vec();
            for row in &rows {
                let ranges: Vec<Range> =
                    row.terms.iter().map(|&(v, c)| Range::of(self.var_interval(&s.iv, &extra, v)).scale(c)).collect();
                for (j, &(v, c)) in row.terms.iter().enumerate() {
                    // c * v = -(constant + sum of the others).
                    let mut rest = Range { lo: Some(row.constant), hi: Some(row.constant) };
                    for (i, r) in ranges.iter().enumerate() {
                        if i != j {
                            rest = rest.add(*r);
                        }
                    }
                    let rhs = rest.scale(-1);
                    let (lo, hi) = if c > 0 {
                        (rhs.lo, rhs.hi)
                    } else {
                        (rhs.hi.and_then(|x| x.checked_neg()), rhs.lo.and_then(|x| x.checked_neg()))
                    };
                    let a = c.abs();
                    let lo = lo.map(|x| x.div_euclid(a) + i128::from(x.rem_euclid(a) != 0)).unwrap_or(i128::MIN);
                    let hi = hi.map(|x| x.div_euclid(a)).unwrap_or(i128::MAX);
                    let bound = Interval::new(lo, hi);
                    let old = self.var_interval(&s.iv, &extra, v);
                    let new = old.meet(bound);
                    if new == old {
                        continue;
                    }
                    match v {
                        Var::Val(x) => self.it.assume_value(&mut s.iv, x, new, 2),
                        Var::Counter(_) => {
                            if new.is_bottom() {
                                s.iv = IntervalState::bottom();
                            }
                            extra.insert(v, new);
                        }
                        Var::Temp(_) => {}
                    }
                    if s.iv.is_bottom() {
                        s.sync();
                        return;
                    }
                }
            }
        }
    }

    /// Applies one instruction.
    pub fn inst(&self, s: &mut RelState, kind: &InstKind, result: Option<Value>) {
        let tracked = result.filter(|r| self.tracked(*r));
        let e = match (tracked, result.and_then(|r| self.it.value_width(r))) {
            (Some(_), Some(w)) => self.inst_expr(&s.iv, kind, w),
            _ => None,
        };
        self.it.inst(&mut s.iv, kind, result);
        if let Some(r) = tracked {
            let r = Var::Val(r);
            match e.as_ref().map(|e| (e.terms.as_slice(), e.constant)) {
                Some((&[(y, 1)], k)) if y != r => s.oct.assign_offset(r, y, k),
                Some((&[(y, cy), (z, cz)], k)) if y != r && z != r && cy.abs() == 1 && cz.abs() == 1 => {
                    self.assign_sum(s, r, (y, cy), (z, cz), k)
                }
                _ => s.oct.forget(r),
            }
            s.eq.assign(r, e);
        }
        if let InstKind::Assume { cond } | InstKind::Check { cond, .. } = kind {
            self.guard_eq(s, cond, true, GUARD_DEPTH);
            self.guard_oct(s, cond, true, GUARD_DEPTH);
            self.reduce(s);
        }
        s.sync();
    }
}

impl Transfer for RelTransfer<'_> {
    type State = RelState;

    fn initial(&self) -> RelState {
        RelState::top()
    }

    fn block(&self, block: Block, entry: &RelState) -> RelState {
        let mut s = entry.clone();
        let body = self.it.body;
        let Some(data) = body.blocks.get(block) else { return s };
        for &i in &data.insts {
            if s.is_bottom() {
                break;
            }
            if let Some(inst) = body.insts.get(i) {
                self.inst(&mut s, &inst.kind, inst.result);
            }
        }
        s
    }

    fn edge(&self, block: Block, out: &RelState, succ: u32) -> RelState {
        let mut s = out.clone();
        let Some(target) = self.it.guard(&mut s.iv, block, succ) else { return RelState::bottom() };
        let body = self.it.body;
        match &body.blocks[block].term {
            Terminator::Branch { cond, .. } => {
                self.guard_eq(&mut s, cond, succ == 0, GUARD_DEPTH);
                self.guard_oct(&mut s, cond, succ == 0, GUARD_DEPTH);
            }
            Terminator::Switch { ty, value, cases, .. } => {
                if let (Some((k, _)), Some(w)) = (cases.get(succ as usize), self.it.int_width(*ty)) {
                    if let Some(r) = self.lin(value).and_then(|v| v.sub(&Linear::constant(from_bits(*k, w)))) {
                        s.eq.add_eq(r);
                    }
                }
            }
            _ => {}
        }
        self.reduce(&mut s);
        if s.is_bottom() {
            return RelState::bottom();
        }
        if let Some(&k) = self.head_of.get(&target.block) {
            let c = Var::Counter(k as u32);
            if self.loops[k].blocks.contains(&block) {
                s.eq.shift(c, 1);
                s.oct.shift(c, 1);
                self.seed_back_edge_differences(&mut s, &target.args);
            } else {
                s.eq.assign(c, Some(Linear::constant(0)));
                s.oct.forget(c);
            }
        }
        let Some(tdata) = body.blocks.get(target.block) else { return RelState::bottom() };
        let assigns: Vec<(Var, Option<Linear>)> = tdata
            .params
            .iter()
            .zip(&target.args)
            .filter(|(p, _)| self.tracked(**p))
            .map(|(p, a)| (Var::Val(*p), self.lin(a)))
            .collect();
        let oct_assigns: Vec<(Var, Option<Var>)> = assigns
            .iter()
            .map(|(p, e)| {
                let copy = e.as_ref().and_then(|e| match (e.terms.as_slice(), e.constant) {
                    (&[(y, 1)], 0) => Some(y),
                    _ => None,
                });
                (*p, copy)
            })
            .collect();
        s.eq.assign_parallel(&assigns);
        s.oct.assign_parallel(&oct_assigns);

        self.it.bind(&mut s.iv, target);
        s.sync();
        s
    }
}

/// Per analyzed function: the states and the loops.
pub struct RelFunc {
    /// The block states.
    pub sol: Solution<RelState>,
    /// The loops, outermost first.
    pub loops: Vec<LoopInfo>,
}

/// The result of [`analyze_relational`].
pub struct RelAnalysis<'p> {
    pub(crate) program: &'p Program,
    pub(crate) funcs: BTreeMap<FuncId, RelFunc>,
    /// The interval return summaries calls use.
    pub summaries: crate::transfer::Summaries,
    /// Wall-clock time of the analysis.
    pub elapsed: Duration,
    /// Whether it ran to its end (not cut by [`FixpointOptions::deadline`]).
    pub complete: bool,
}

/// Runs the relational analysis on every function reachable from `main`
/// (the same functions and interprocedural strategy as
/// [`crate::analyze`]: each function once with unconstrained parameters).
pub fn analyze_relational(program: &Program) -> RelAnalysis<'_> {
    analyze_relational_with(program, FixpointOptions::default())
}

/// [`analyze_relational`] with explicit iteration settings.
pub fn analyze_relational_with(program: &Program, opts: FixpointOptions) -> RelAnalysis<'_> {
    analyze_relational_impl(program, opts, false)
}

/// Equalities at loop heads that would hold if no operation wrapped, each
/// over values of one integer type and read modulo its width: candidate
/// invariants, sound only once checked (`x - 1` and `y + 1` on unsigned
/// counters wrap in the signed reading, so the sound analysis records
/// nothing, while `x + y == n` holds modulo 2^32).
pub fn candidate_loop_equalities(
    program: &Program,
    opts: FixpointOptions,
) -> Vec<walkdown_ir::formula::LinearEquality> {
    let a = analyze_relational_impl(program, opts, true);
    if !a.complete {
        return Vec::new();
    }
    let dm = program.data_model;
    let mut out = Vec::new();
    for f in crate::invariants_at_exits(&a).into_iter().filter(|f| f.kind == crate::FactKind::LoopHead) {
        let Some(body) = program.funcs.get(f.func).and_then(|d| d.body.as_ref()) else { continue };
        let tys: BTreeSet<Type> = f.terms.iter().map(|&(_, v)| body.values[v].ty).collect();
        let [ty] = tys.into_iter().collect::<Vec<_>>()[..] else { continue };
        if !ty.is_int() || ty.bits(dm) < 8 {
            continue;
        }
        out.push(walkdown_ir::formula::LinearEquality {
            func: f.func,
            block: f.block,
            terms: f.terms,
            constant: f.constant,
            ty,
        });
    }
    out
}

fn analyze_relational_impl(program: &Program, opts: FixpointOptions, ignore_wrap: bool) -> RelAnalysis<'_> {
    let start = Instant::now();
    let summaries = crate::analysis::return_summaries(program, opts);
    let mut funcs = BTreeMap::new();
    let mut work: Vec<FuncId> = roots(program).into_iter().rev().collect();
    while let Some(f) = work.pop() {
        if funcs.contains_key(&f) {
            continue;
        }
        if opts.over() {
            break;
        }
        let Some(body) = program.funcs.get(f).and_then(|d| d.body.as_ref()) else { continue };
        let mut t = RelTransfer::new(program, body).with_summaries(&summaries);
        t.ignore_wrap = ignore_wrap;
        let sol = solve(body, &t, opts);
        for c in reached_callees(body, t.intervals(), |b| sol.entry[b].iv.clone()) {
            if !funcs.contains_key(&c) {
                work.push(c);
            }
        }
        funcs.insert(f, RelFunc { sol, loops: t.loops });
    }
    let complete = !opts.over();
    RelAnalysis { program, funcs, summaries, elapsed: start.elapsed(), complete }
}

impl<'p> RelAnalysis<'p> {
    /// The analyzed program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The result for `func`, if it was analyzed.
    pub fn func(&self, func: FuncId) -> Option<&RelFunc> {
        self.funcs.get(&func)
    }

    /// The state on entry to `block` (bottom when unreachable).
    pub fn entry_state(&self, func: FuncId, block: Block) -> RelState {
        self.funcs.get(&func).map(|s| s.sol.entry[block].clone()).unwrap_or_else(RelState::bottom)
    }

    /// The states on the edges into `block` when it only branches on a
    /// parameter (see [`crate::fixpoint::edge_states_into`]).
    pub fn edge_states_into(&self, func: FuncId, block: Block) -> Option<Vec<RelState>> {
        let rf = self.funcs.get(&func)?;
        let body = self.program.funcs.get(func)?.body.as_ref()?;
        let t = RelTransfer::new(self.program, body).with_summaries(&self.summaries);
        crate::fixpoint::edge_states_into(body, &t, &rf.sol, block)
    }

    /// The input symbols of `func`: results of `nondet` instructions
    /// outside every loop, in id order.
    pub fn input_symbols(&self, func: FuncId) -> Vec<Value> {
        let (Some(rf), Some(body)) =
            (self.funcs.get(&func), self.program.funcs.get(func).and_then(|f| f.body.as_ref()))
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (b, data) in body.blocks.iter() {
            if rf.loops.iter().any(|l| l.blocks.contains(&b)) {
                continue;
            }
            for &i in &data.insts {
                if let (InstKind::Nondet { .. }, Some(v)) = (&body.insts[i].kind, body.insts[i].result) {
                    out.push(v);
                }
            }
        }
        out.sort();
        out
    }

    /// Branch and switch outcomes no execution takes (as
    /// [`crate::Analysis::dead_edges`], with the relational states).
    pub fn dead_edges(&self) -> Vec<(FuncId, Block, u32)> {
        let mut out = Vec::new();
        let mut edges = Vec::new();
        for (fid, f) in self.program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            let t = RelTransfer::new(self.program, body).with_summaries(&self.summaries);
            edges.clear();
            crate::fixpoint::dead_edges_of(body, &t, self.funcs.get(&fid).map(|rf| &rf.sol), &mut edges);
            out.extend(edges.iter().map(|&(b, succ)| (fid, b, succ)));
        }
        out
    }

    /// The equalities at every loop head, with the counters (`counterK`
    /// is loop K's), one line per head.
    pub fn report(&self) -> String {
        let p = self.program;
        let mut s = String::new();
        for (fid, rf) in &self.funcs {
            let f = &p.funcs[*fid];
            let Some(body) = &f.body else { continue };
            if walkdown_ir::goals::is_foreign_code(f) {
                continue; // walkdown's own code, not the program's
            }
            for (k, l) in rf.loops.iter().enumerate() {
                let data = &body.blocks[l.head];
                let loc = data.insts.first().map(|i| body.insts[*i].loc).unwrap_or(data.term_loc);
                let st = &rf.sol.entry[l.head];
                let _ = writeln!(s, "loop {k} head @{} {} ({}): {}", f.name, l.head, p.describe_loc(loc), st.eq);
                let stated = st.stated_octagon(body, p.data_model);
                if !stated.is_empty() {
                    let all: Vec<String> = stated.iter().map(|(k, c)| crate::octagon::describe(k, *c)).collect();
                    let _ = writeln!(s, "  octagon: {}", all.join(", "));
                }
            }
        }
        s
    }
}

/// The predicate of the other outcome (`None` for float predicates).
fn negate(p: CmpPred) -> Option<CmpPred> {
    Some(match p {
        CmpPred::Eq => CmpPred::Ne,
        CmpPred::Ne => CmpPred::Eq,
        CmpPred::Slt => CmpPred::Sge,
        CmpPred::Sle => CmpPred::Sgt,
        CmpPred::Sgt => CmpPred::Sle,
        CmpPred::Sge => CmpPred::Slt,
        _ => return None,
    })
}
