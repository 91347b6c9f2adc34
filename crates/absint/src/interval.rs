//! Integer intervals and their machine-integer arithmetic.
//!
//! **Representation.** An [`Interval`] is a pair of `i128` bounds over the
//! value's *canonical* interpretation: the **signed** (two's complement)
//! value for widths 8 to 64, and the unsigned value (0 or 1) for `i1`, so
//! booleans read naturally. Signed was chosen because C code is mostly
//! `int` arithmetic and loop counters, whose ranges are intervals in the
//! signed view; unsigned operations convert to the unsigned view
//! ([`uview`]), where a signed interval that straddles zero is the whole
//! range, and convert back ([`wrap`]).
//!
//! `Interval` itself is width-free (its top is the whole `i128` range, which
//! widening also jumps to); functions that know a width clamp to it
//! ([`norm`]). Every operation computes the exact mathematical result range
//! in `i128` (checked; an overflow of `i128` gives top) and then reduces it
//! modulo `2^w` with [`wrap`]: a range shorter than `2^w` whose residues do
//! not cross the signed boundary stays exact, anything else is top. This is
//! sound for wrap-around because residues of a sum (difference, product) do
//! not depend on which representatives were added.

use crate::domain::Domain;
use std::fmt;
use walkdown_ir::{BinOp, CmpPred};

/// A set of integers `lo..=hi`; empty when `lo > hi`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Interval {
    /// Least element.
    pub lo: i128,
    /// Greatest element.
    pub hi: i128,
}

impl Interval {
    /// Every integer (and, once clamped, every value of a type).
    pub const TOP: Interval = Interval { lo: i128::MIN, hi: i128::MAX };
    /// The empty set.
    pub const BOTTOM: Interval = Interval { lo: 1, hi: 0 };
    /// The booleans `{0, 1}`.
    pub const BOOL: Interval = Interval { lo: 0, hi: 1 };

    /// `lo..=hi` (bottom when `lo > hi`).
    pub fn new(lo: i128, hi: i128) -> Interval {
        if lo > hi {
            Interval::BOTTOM
        } else {
            Interval { lo, hi }
        }
    }
    /// The single value `c`.
    pub fn constant(c: i128) -> Interval {
        Interval { lo: c, hi: c }
    }
    /// The only element, if there is exactly one.
    pub fn singleton(self) -> Option<i128> {
        (self.lo == self.hi).then_some(self.lo)
    }
    /// Whether `x` is an element.
    pub fn contains(self, x: i128) -> bool {
        self.lo <= x && x <= self.hi
    }
    /// The intersection.
    pub fn meet(self, o: Interval) -> Interval {
        Interval::new(self.lo.max(o.lo), self.hi.min(o.hi))
    }
}

impl Domain for Interval {
    fn bottom() -> Self {
        Interval::BOTTOM
    }
    fn top() -> Self {
        Interval::TOP
    }
    fn is_bottom(&self) -> bool {
        self.lo > self.hi
    }
    fn join(&self, o: &Self) -> Self {
        if self.is_bottom() {
            return *o;
        }
        if o.is_bottom() {
            return *self;
        }
        Interval { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }
    fn leq(&self, o: &Self) -> bool {
        self.is_bottom() || (!o.is_bottom() && o.lo <= self.lo && self.hi <= o.hi)
    }
    fn widen(&self, o: &Self) -> Self {
        if self.is_bottom() {
            return *o;
        }
        if o.is_bottom() {
            return *self;
        }
        // Thresholds at -1, 0 and 1 keep sign information that loop
        // guards such as `x > 0` or `x >= 0` need, before jumping to the
        // extremes (which clamping turns into the type's bounds).
        let lo =
            if o.lo < self.lo { [1, 0, -1].into_iter().find(|&t| t <= o.lo).unwrap_or(i128::MIN) } else { self.lo };
        let hi =
            if o.hi > self.hi { [-1, 0, 1].into_iter().find(|&t| t >= o.hi).unwrap_or(i128::MAX) } else { self.hi };
        Interval { lo, hi }
    }
    fn narrow(&self, o: &Self) -> Self {
        if self.is_bottom() || o.is_bottom() {
            return Interval::BOTTOM;
        }
        // Only bounds that widening pushed to the extremes are replaced, as
        // in the classic interval narrowing; the others are already sound
        // and finite.
        let lo = if self.lo == i128::MIN { o.lo } else { self.lo };
        let hi = if self.hi == i128::MAX { o.hi } else { self.hi };
        Interval::new(lo, hi)
    }
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_bottom() {
            return f.write_str("⊥");
        }
        let b = |x: i128| {
            if x == i128::MIN {
                "-oo".to_string()
            } else if x == i128::MAX {
                "+oo".to_string()
            } else {
                x.to_string()
            }
        };
        write!(f, "[{}, {}]", b(self.lo), b(self.hi))
    }
}

/// `2^w` for `w <= 64`.
fn modulus(w: u32) -> i128 {
    1i128 << w.min(126)
}

/// Least signed value of width `w`.
pub fn smin(w: u32) -> i128 {
    -(modulus(w) / 2)
}
/// Greatest signed value of width `w`.
pub fn smax(w: u32) -> i128 {
    modulus(w) / 2 - 1
}
/// Greatest unsigned value of width `w`.
pub fn umax(w: u32) -> i128 {
    modulus(w) - 1
}

/// The canonical range of width `w`: `{0, 1}` for `i1`, the signed range
/// otherwise.
pub fn crange(w: u32) -> Interval {
    if w <= 1 {
        Interval::BOOL
    } else {
        Interval { lo: smin(w), hi: smax(w) }
    }
}

/// `iv` clamped to the canonical range of width `w`.
pub fn norm(iv: Interval, w: u32) -> Interval {
    iv.meet(crange(w))
}

/// Whether `iv` is the whole canonical range of width `w`.
pub fn is_full(iv: Interval, w: u32) -> bool {
    crange(w).leq(&iv)
}

/// The canonical value of the `w`-bit pattern `bits`.
pub fn from_bits(bits: u64, w: u32) -> i128 {
    if w <= 1 {
        i128::from(bits & 1)
    } else if w >= 64 {
        i128::from(bits as i64)
    } else {
        let sh = 64 - w;
        i128::from(((bits << sh) as i64) >> sh)
    }
}

/// The signed interpretation of a canonical interval of width `w`.
pub fn sview(iv: Interval, w: u32) -> Interval {
    let iv = norm(iv, w);
    if w <= 1 && !iv.is_bottom() {
        // The i1 pattern 1 is -1 when read as signed.
        Interval { lo: -iv.hi, hi: -iv.lo }
    } else {
        iv
    }
}

/// The unsigned interpretation of a canonical interval of width `w`; a
/// signed interval that straddles zero is the whole unsigned range.
pub fn uview(iv: Interval, w: u32) -> Interval {
    let iv = norm(iv, w);
    if w <= 1 || iv.is_bottom() || iv.lo >= 0 {
        iv
    } else if iv.hi < 0 {
        Interval { lo: iv.lo + modulus(w), hi: iv.hi + modulus(w) }
    } else {
        Interval { lo: 0, hi: umax(w) }
    }
}

/// The canonical interval of the residues modulo `2^w` of `lo..=hi`
/// (exact integers, any representatives): exact when they form one
/// interval in the canonical view, the whole range otherwise.
pub fn wrap(lo: i128, hi: i128, w: u32) -> Interval {
    if lo > hi {
        return Interval::BOTTOM;
    }
    let m = modulus(w);
    let Some(span) = hi.checked_sub(lo) else { return crange(w) };
    if span >= m - 1 {
        return crange(w);
    }
    let base = crange(w).lo;
    let Some(off) = lo.checked_sub(base) else { return crange(w) };
    let lo2 = off.rem_euclid(m) + base;
    let hi2 = lo2 + span;
    if hi2 <= crange(w).hi {
        Interval { lo: lo2, hi: hi2 }
    } else {
        crange(w)
    }
}

/// Converts an interval of the signed view back to canonical.
pub fn from_sview(iv: Interval, w: u32) -> Interval {
    if iv.is_bottom() {
        return iv;
    }
    if w <= 1 {
        let iv = iv.meet(Interval::new(-1, 0));
        if iv.is_bottom() {
            return iv;
        }
        return Interval { lo: -iv.hi, hi: -iv.lo };
    }
    wrap(iv.lo, iv.hi, w)
}

/// Converts an interval of the unsigned view back to canonical.
pub fn from_uview(iv: Interval, w: u32) -> Interval {
    if iv.is_bottom() {
        return iv;
    }
    wrap(iv.lo, iv.hi, w)
}

fn checked_corners(a: Interval, b: Interval, f: impl Fn(i128, i128) -> Option<i128>) -> Option<Interval> {
    let c = [f(a.lo, b.lo)?, f(a.lo, b.hi)?, f(a.hi, b.lo)?, f(a.hi, b.hi)?];
    Some(Interval { lo: *c.iter().min()?, hi: *c.iter().max()? })
}

/// Smallest `2^k - 1` not below `x` (`x >= 0`).
fn all_ones_above(x: i128) -> i128 {
    if x <= 0 {
        return 0;
    }
    let bits = 128 - x.leading_zeros();
    if bits >= 127 {
        i128::MAX
    } else {
        (1i128 << bits) - 1
    }
}

/// Shift amounts modulo `w` (the IR's semantics) of an amount interval.
fn shift_amounts(amount: Interval, w: u32) -> Interval {
    let a = uview(amount, w);
    let wi = i128::from(w.max(1));
    if a.is_bottom() {
        return a;
    }
    if a.lo / wi == a.hi / wi {
        Interval { lo: a.lo % wi, hi: a.hi % wi }
    } else {
        Interval { lo: 0, hi: wi - 1 }
    }
}

/// A conversion between the canonical form and a view.
type ViewFn = fn(Interval, u32) -> Interval;

/// `x op y` for `add`, `sub` or `mul` over the integers, kept to the signed
/// range of `w` bits: the result of the executions that do not overflow
/// (bottom when none), and whether the range cut anything (the site then
/// assumed no overflow). Operands are read as signed.
pub fn binop_no_signed_overflow(op: BinOp, x: Interval, y: Interval, w: u32) -> (Interval, bool) {
    let (x, y) = (norm(x, w), norm(y, w));
    if x.is_bottom() || y.is_bottom() {
        return (Interval::BOTTOM, false);
    }
    let (a, b) = (sview(x, w), sview(y, w));
    let exact = match op {
        BinOp::Add => a.lo.checked_add(b.lo).zip(a.hi.checked_add(b.hi)).map(|(l, h)| Interval::new(l, h)),
        BinOp::Sub => a.lo.checked_sub(b.hi).zip(a.hi.checked_sub(b.lo)).map(|(l, h)| Interval::new(l, h)),
        BinOp::Mul => checked_corners(a, b, i128::checked_mul),
        _ => None,
    };
    let Some(exact) = exact else { return (binop(op, x, y, w), true) };
    let kept = exact.meet(Interval::new(smin(w), smax(w)));
    if kept.is_bottom() {
        return (Interval::BOTTOM, true);
    }
    (from_sview(kept, w), kept != exact)
}

/// The result of the integer binary operator `op` on operands of width `w`
/// (canonical intervals in, canonical interval out; the overflow predicates
/// yield `i1`). Float operators give top.
pub fn binop(op: BinOp, x: Interval, y: Interval, w: u32) -> Interval {
    let x = norm(x, w);
    let y = norm(y, w);
    let out_w = if op.yields_bool() { 1 } else { w };
    if x.is_bottom() || y.is_bottom() {
        return Interval::BOTTOM;
    }
    if op.is_float() {
        return Interval::TOP;
    }
    let full = crange(out_w);
    let or_top = |r: Option<Interval>| r.map(|r| wrap(r.lo, r.hi, w)).unwrap_or(full);
    match op {
        BinOp::Add => {
            let (a, b) = (sview(x, w), sview(y, w));
            or_top(a.lo.checked_add(b.lo).zip(a.hi.checked_add(b.hi)).map(|(l, h)| Interval::new(l, h)))
        }
        BinOp::Sub => {
            let (a, b) = (sview(x, w), sview(y, w));
            or_top(a.lo.checked_sub(b.hi).zip(a.hi.checked_sub(b.lo)).map(|(l, h)| Interval::new(l, h)))
        }
        BinOp::Mul => {
            let (a, b) = (sview(x, w), sview(y, w));
            or_top(checked_corners(a, b, i128::checked_mul))
        }
        BinOp::UDiv => {
            let (a, b) = (uview(x, w), uview(y, w));
            // x / 0 == 0 in the IR.
            let mut r = if b.contains(0) { Interval::constant(0) } else { Interval::BOTTOM };
            if b.hi >= 1 {
                let d = Interval { lo: b.lo.max(1), hi: b.hi };
                r = r.join(&Interval { lo: a.lo / d.hi, hi: a.hi / d.lo });
            }
            from_uview(r, w)
        }
        BinOp::SDiv => {
            let (a, b) = (sview(x, w), sview(y, w));
            let mut r = if b.contains(0) { Interval::constant(0) } else { Interval::BOTTOM };
            // Truncating division is monotone in each argument while the
            // divisor keeps its sign, so each sign part is bounded by its
            // corners.
            for part in [b.meet(Interval::new(i128::MIN, -1)), b.meet(Interval::new(1, i128::MAX))] {
                if part.is_bottom() {
                    continue;
                }
                if let Some(c) = checked_corners(a, part, i128::checked_div) {
                    r = r.join(&c);
                }
            }
            let max = smax(w);
            if r.hi > max {
                // Only MIN / -1 exceeds the range; the IR defines it as MIN.
                r = Interval::new(r.lo, r.hi.min(max)).join(&Interval::constant(smin(w)));
            }
            from_sview(r, w)
        }
        BinOp::URem => {
            let (a, b) = (uview(x, w), uview(y, w));
            // x % 0 == x in the IR.
            let mut r = if b.contains(0) { a } else { Interval::BOTTOM };
            if b.hi >= 1 {
                let d = Interval { lo: b.lo.max(1), hi: b.hi };
                r = r.join(&if a.hi < d.lo { a } else { Interval { lo: 0, hi: a.hi.min(d.hi - 1) } });
            }
            from_uview(r, w)
        }
        BinOp::SRem => {
            let (a, b) = (sview(x, w), sview(y, w));
            let mut r = if b.contains(0) { a } else { Interval::BOTTOM };
            let nz = [b.meet(Interval::new(i128::MIN, -1)), b.meet(Interval::new(1, i128::MAX))];
            if nz.iter().any(|p| !p.is_bottom()) {
                // |x % y| < |y|, |x % y| <= |x|, and the sign is x's
                // (MIN % -1 == 0 fits too).
                let m = nz.iter().filter(|p| !p.is_bottom()).map(|p| p.lo.abs().max(p.hi.abs()) - 1).max().unwrap_or(0);
                let lo = if a.lo < 0 { a.lo.max(-m) } else { 0 };
                let hi = if a.hi > 0 { a.hi.min(m) } else { 0 };
                r = r.join(&Interval::new(lo, hi));
            }
            from_sview(r, w)
        }
        BinOp::And | BinOp::Or | BinOp::Xor => {
            if let (Some(p), Some(q)) = (x.singleton(), y.singleton()) {
                let (p, q) = (uview(Interval::constant(p), w).lo, uview(Interval::constant(q), w).lo);
                let v = match op {
                    BinOp::And => p & q,
                    BinOp::Or => p | q,
                    _ => p ^ q,
                };
                return from_uview(Interval::constant(v), w);
            }
            let (a, b) = (uview(x, w), uview(y, w));
            let r = match op {
                BinOp::And => Interval { lo: 0, hi: a.hi.min(b.hi) },
                BinOp::Or => Interval { lo: a.lo.max(b.lo), hi: all_ones_above(a.hi.max(b.hi)) },
                _ => Interval { lo: 0, hi: all_ones_above(a.hi.max(b.hi)) },
            };
            let r = from_uview(r, w);
            // In the signed view, `and` with a non-negative operand is
            // non-negative and below it even when the other is negative.
            if op == BinOp::And && w > 1 {
                let (sa, sb) = (sview(x, w), sview(y, w));
                let mut s = crange(w);
                if sa.lo >= 0 {
                    s = s.meet(Interval::new(0, sa.hi));
                }
                if sb.lo >= 0 {
                    s = s.meet(Interval::new(0, sb.hi));
                }
                return r.meet(s);
            }
            r
        }
        BinOp::Shl => {
            let s = shift_amounts(y, w);
            let (a, f) = (sview(x, w), Interval::new(1i128 << s.lo, 1i128 << s.hi));
            or_top(checked_corners(a, f, i128::checked_mul))
        }
        BinOp::LShr => {
            let s = shift_amounts(y, w);
            let a = uview(x, w);
            from_uview(Interval { lo: a.lo >> s.hi, hi: a.hi >> s.lo }, w)
        }
        BinOp::AShr => {
            let s = shift_amounts(y, w);
            let a = sview(x, w);
            let lo = (a.lo >> s.lo).min(a.lo >> s.hi);
            let hi = (a.hi >> s.lo).max(a.hi >> s.hi);
            from_sview(Interval { lo, hi }, w)
        }
        BinOp::SAddO | BinOp::SSubO | BinOp::SMulO | BinOp::UAddO | BinOp::USubO | BinOp::UMulO => {
            let signed = matches!(op, BinOp::SAddO | BinOp::SSubO | BinOp::SMulO);
            let (a, b, range) = if signed {
                (sview(x, w), sview(y, w), Interval { lo: smin(w), hi: smax(w) })
            } else {
                (uview(x, w), uview(y, w), Interval { lo: 0, hi: umax(w) })
            };
            let exact = match op {
                BinOp::SAddO | BinOp::UAddO => {
                    a.lo.checked_add(b.lo).zip(a.hi.checked_add(b.hi)).map(|(l, h)| Interval::new(l, h))
                }
                BinOp::SSubO | BinOp::USubO => {
                    a.lo.checked_sub(b.hi).zip(a.hi.checked_sub(b.lo)).map(|(l, h)| Interval::new(l, h))
                }
                _ => checked_corners(a, b, i128::checked_mul),
            };
            match exact {
                Some(e) if e.leq(&range) => Interval::constant(0),
                Some(e) if e.meet(range).is_bottom() => Interval::constant(1),
                _ => Interval::BOOL,
            }
        }
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => Interval::TOP,
    }
}

/// The `i1` result of the integer comparison `pred` on operands of width
/// `w`: `[1, 1]` when it holds for every pair, `[0, 0]` when for none.
pub fn compare(pred: CmpPred, x: Interval, y: Interval, w: u32) -> Interval {
    let (x, y) = (norm(x, w), norm(y, w));
    if x.is_bottom() || y.is_bottom() {
        return Interval::BOTTOM;
    }
    let verdict = |always: bool, never: bool| {
        if always {
            Interval::constant(1)
        } else if never {
            Interval::constant(0)
        } else {
            Interval::BOOL
        }
    };
    use CmpPred::*;
    match pred {
        Eq => verdict(x.singleton().is_some() && x == y, x.meet(y).is_bottom()),
        Ne => verdict(x.meet(y).is_bottom(), x.singleton().is_some() && x == y),
        Slt | Sle | Sgt | Sge | Ult | Ule | Ugt | Uge => {
            let signed = matches!(pred, Slt | Sle | Sgt | Sge);
            let view = |i| if signed { sview(i, w) } else { uview(i, w) };
            let (a, b) = match pred {
                Sgt | Sge | Ugt | Uge => (view(y), view(x)),
                _ => (view(x), view(y)),
            };
            // Now the question is a < b (strict) or a <= b.
            if matches!(pred, Slt | Sgt | Ult | Ugt) {
                verdict(a.hi < b.lo, a.lo >= b.hi)
            } else {
                verdict(a.hi <= b.lo, a.lo > b.hi)
            }
        }
        _ => Interval::BOOL,
    }
}

/// Restricts `x` and `y` (canonical, width `w`) to the pairs for which
/// `pred(x, y)` is `outcome`; bottom in either means no such pair.
pub fn refine_compare(pred: CmpPred, outcome: bool, x: Interval, y: Interval, w: u32) -> (Interval, Interval) {
    let (x, y) = (norm(x, w), norm(y, w));
    if x.is_bottom() || y.is_bottom() {
        return (Interval::BOTTOM, Interval::BOTTOM);
    }
    let pred = if outcome { pred } else { pred.negate() };
    use CmpPred::*;
    match pred {
        Eq => {
            let m = x.meet(y);
            (m, m)
        }
        Ne => {
            let cut = |a: Interval, b: Interval| match b.singleton() {
                Some(c) if a.lo == c => Interval::new(a.lo + 1, a.hi),
                Some(c) if a.hi == c => Interval::new(a.lo, a.hi - 1),
                _ => a,
            };
            (cut(x, y), cut(y, x))
        }
        Slt | Sle | Ult | Ule | Sgt | Sge | Ugt | Uge => {
            let signed = matches!(pred, Slt | Sle | Sgt | Sge);
            let swap = matches!(pred, Sgt | Sge | Ugt | Uge);
            let strict = i128::from(matches!(pred, Slt | Sgt | Ult | Ugt));
            let (l, r) = if swap { (y, x) } else { (x, y) };
            let (view, back): (ViewFn, ViewFn) = if signed { (sview, from_sview) } else { (uview, from_uview) };
            let (a, b) = (view(l, w), view(r, w));
            // a < b (or a <= b): a below b's maximum, b above a's minimum.
            let a2 = a.meet(Interval::new(i128::MIN, b.hi - strict));
            let b2 = b.meet(Interval::new(a.lo + strict, i128::MAX));
            if a2.is_bottom() || b2.is_bottom() {
                return (Interval::BOTTOM, Interval::BOTTOM);
            }
            let (l2, r2) = (back(a2, w).meet(l), back(b2, w).meet(r));
            if swap {
                (r2, l2)
            } else {
                (l2, r2)
            }
        }
        _ => (x, y),
    }
}
