//! Soundness tests of the constant folder and the rewriting constructors.
//!
//! The folder is checked against a bit-serial reference written without
//! `u128` arithmetic tricks; the rewrites are checked by building random
//! terms both as plain trees (evaluated directly) and through the pool
//! (simplified, then evaluated), on random assignments.

use super::*;
use crate::eval::{ArrayValue, Assignment};
use crate::fold::{self, BvBinOp, BvUnOp, CmpOp};

/// splitmix64: small, seedable, good enough to spread test inputs.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A value of `width` bits, often one of the boundary values.
    pub(crate) fn value(&mut self, width: u32) -> u128 {
        let m = mask(width);
        let smin = 1u128 << (width - 1);
        let r = (u128::from(self.next()) << 64) | u128::from(self.next());
        let v = match self.below(12) {
            0 => 0,
            1 => 1,
            2 => m,
            3 => smin,
            4 => smin.wrapping_sub(1),
            5 => u128::from(self.below(u64::from(width) + 3)),
            6 => m.wrapping_sub(u128::from(self.below(4))),
            7 => smin.wrapping_add(u128::from(self.below(3))),
            _ => r,
        };
        v & m
    }
}

// ----- reference semantics, one bit at a time ------------------------------

fn bit(v: u128, i: u32) -> bool {
    i < 128 && (v >> i) & 1 == 1
}

fn from_bits(w: u32, f: impl Fn(u32) -> bool) -> u128 {
    (0..w).fold(0u128, |acc, i| if f(i) { acc | (1u128 << i) } else { acc })
}

fn r_add(w: u32, a: u128, b: u128) -> u128 {
    let mut carry = false;
    let mut out = 0u128;
    for i in 0..w {
        let (x, y) = (bit(a, i), bit(b, i));
        if x ^ y ^ carry {
            out |= 1u128 << i;
        }
        carry = (x && y) || (carry && (x ^ y));
    }
    out
}

fn r_not(w: u32, a: u128) -> u128 {
    from_bits(w, |i| !bit(a, i))
}

fn r_neg(w: u32, a: u128) -> u128 {
    r_add(w, r_not(w, a), 1)
}

fn r_sub(w: u32, a: u128, b: u128) -> u128 {
    r_add(w, a, r_neg(w, b))
}

fn r_mul(w: u32, a: u128, b: u128) -> u128 {
    let mut acc = 0;
    for i in 0..w {
        if bit(b, i) {
            acc = r_add(w, acc, from_bits(w, |j| j >= i && bit(a, j - i)));
        }
    }
    acc
}

fn r_ult(w: u32, a: u128, b: u128) -> bool {
    for i in (0..w).rev() {
        if bit(a, i) != bit(b, i) {
            return bit(b, i);
        }
    }
    false
}

// Restoring long division.
fn r_udivrem(w: u32, a: u128, b: u128) -> (u128, u128) {
    if b == 0 {
        return (from_bits(w, |_| true), a);
    }
    let mut q = 0u128;
    let mut r = 0u128;
    for i in (0..w).rev() {
        // r < b fits in w bits, so 2r + 1 fits in w + 1 <= 129 bits;
        // keep the overflow bit apart.
        let top = bit(r, w - 1);
        r = from_bits(w, |j| if j == 0 { bit(a, i) } else { bit(r, j - 1) });
        if top || !r_ult(w, r, b) {
            r = r_sub(w, r, b);
            q |= 1u128 << i;
        }
    }
    (q, r)
}

fn r_signed(w: u32, a: u128) -> i128 {
    if w == 128 {
        a as i128
    } else if bit(a, w - 1) {
        (a as i128) - (1i128 << w)
    } else {
        a as i128
    }
}

fn r_unsigned(w: u32, v: i128) -> u128 {
    (v as u128) & mask(w)
}

fn r_bin(op: BvBinOp, w: u32, a: u128, b: u128) -> u128 {
    match op {
        BvBinOp::Add => r_add(w, a, b),
        BvBinOp::Sub => r_sub(w, a, b),
        BvBinOp::Mul => r_mul(w, a, b),
        BvBinOp::UDiv => r_udivrem(w, a, b).0,
        BvBinOp::URem => r_udivrem(w, a, b).1,
        BvBinOp::SDiv => {
            let (x, y) = (r_signed(w, a), r_signed(w, b));
            if y == 0 {
                // SMT-LIB: -(x / 0) for negative x, i.e. -(all ones) = 1.
                if x < 0 {
                    1
                } else {
                    mask(w)
                }
            } else {
                r_unsigned(w, x.wrapping_div(y))
            }
        }
        BvBinOp::SRem => {
            let (x, y) = (r_signed(w, a), r_signed(w, b));
            if y == 0 {
                a
            } else {
                r_unsigned(w, x.wrapping_rem(y))
            }
        }
        BvBinOp::Shl => from_bits(w, |i| b < u128::from(w) && i >= b as u32 && bit(a, i - b as u32)),
        BvBinOp::LShr => from_bits(w, |i| b < u128::from(w) && i as u128 + b < u128::from(w) && bit(a, i + b as u32)),
        BvBinOp::AShr => from_bits(w, |i| {
            if b < u128::from(w) && i as u128 + b < u128::from(w) {
                bit(a, i + b as u32)
            } else {
                bit(a, w - 1)
            }
        }),
        BvBinOp::And => from_bits(w, |i| bit(a, i) && bit(b, i)),
        BvBinOp::Or => from_bits(w, |i| bit(a, i) || bit(b, i)),
        BvBinOp::Xor => from_bits(w, |i| bit(a, i) != bit(b, i)),
    }
}

fn r_cmp(op: CmpOp, w: u32, a: u128, b: u128) -> bool {
    match op {
        CmpOp::Ult => r_ult(w, a, b),
        CmpOp::Ule => !r_ult(w, b, a),
        CmpOp::Slt => r_signed(w, a) < r_signed(w, b),
        CmpOp::Sle => r_signed(w, a) <= r_signed(w, b),
    }
}

const FOLD_WIDTHS: [u32; 9] = [1, 2, 3, 7, 8, 16, 32, 64, 128];

#[test]
fn folder_matches_reference_on_random_constants() {
    let mut rng = Rng::new(1);
    for &w in &FOLD_WIDTHS {
        for _ in 0..400 {
            let (a, b) = (rng.value(w), rng.value(w));
            for op in BvBinOp::ALL {
                assert_eq!(fold::bin(op, w, a, b), r_bin(op, w, a, b), "{op:?} width {w} a={a:#x} b={b:#x}");
            }
            for op in CmpOp::ALL {
                assert_eq!(fold::cmp(op, w, a, b), r_cmp(op, w, a, b), "{op:?} w{w} {a:#x} {b:#x}");
            }
            assert_eq!(fold::un(BvUnOp::Not, w, a), r_not(w, a));
            assert_eq!(fold::un(BvUnOp::Neg, w, a), r_neg(w, a));
            for to in [w, (w + 1).min(128), 128] {
                let want = from_bits(to, |i| if i < w { bit(a, i) } else { bit(a, w - 1) });
                assert_eq!(fold::sext(w, to, a), want, "sext {w}->{to} {a:#x}");
            }
            let lo = rng.below(u64::from(w)) as u32;
            let hi = lo + rng.below(u64::from(w - lo)) as u32;
            assert_eq!(fold::extract(hi, lo, a), from_bits(hi - lo + 1, |i| bit(a, i + lo)));
            if w < 128 {
                let wl = 128 - w;
                let c = rng.value(wl);
                let want = from_bits(128, |i| if i < wl { bit(c, i) } else { bit(a, i - wl) });
                assert_eq!(fold::concat(wl, a, c), want);
            }
        }
    }
}

#[test]
fn smt_lib_division_corner_cases() {
    for &w in &FOLD_WIDTHS {
        let m = mask(w);
        let smin = 1u128 << (w - 1);
        assert_eq!(fold::bin(BvBinOp::UDiv, w, 5 & m, 0), m, "udiv by 0 is all ones");
        assert_eq!(fold::bin(BvBinOp::URem, w, 5 & m, 0), 5 & m, "urem by 0 is the dividend");
        assert_eq!(fold::bin(BvBinOp::SRem, w, m, 0), m, "srem by 0 is the dividend");
        if w > 1 {
            assert_eq!(fold::bin(BvBinOp::SDiv, w, m, 0), 1, "negative / 0 is 1");
            assert_eq!(fold::bin(BvBinOp::SDiv, w, 1, 0), m, "positive / 0 is -1");
            assert_eq!(fold::bin(BvBinOp::SDiv, w, smin, m), smin, "MIN / -1 wraps");
            assert_eq!(fold::bin(BvBinOp::SRem, w, smin, m), 0);
        }
        assert_eq!(fold::bin(BvBinOp::Shl, w, 1, u128::from(w)), 0);
        assert_eq!(fold::bin(BvBinOp::LShr, w, m, u128::from(w)), 0);
        assert_eq!(fold::bin(BvBinOp::AShr, w, smin, u128::from(w)), m);
        assert_eq!(fold::bin(BvBinOp::AShr, w, smin, m), m);
    }
}

#[test]
fn constructors_fold_constants() {
    let mut p = ExprPool::new();
    let mut rng = Rng::new(2);
    for &w in &FOLD_WIDTHS {
        for _ in 0..50 {
            let (a, b) = (rng.value(w), rng.value(w));
            let (ca, cb) = (p.bv_const(w, a).unwrap(), p.bv_const(w, b).unwrap());
            for op in BvBinOp::ALL {
                let e = p.binop(op, ca, cb).unwrap();
                assert_eq!(p.as_bv_const(e), Some(r_bin(op, w, a, b)), "{op:?}");
            }
            for op in CmpOp::ALL {
                let e = p.cmp(op, ca, cb).unwrap();
                assert_eq!(p.as_bool_const(e), Some(r_cmp(op, w, a, b)));
            }
        }
    }
}

// ----- identities, one by one ---------------------------------------------

struct Fx {
    p: ExprPool,
    x: ExprId,
    y: ExprId,
    z16: ExprId,
    b: ExprId,
    arr: ExprId,
}

fn fx() -> Fx {
    let mut p = ExprPool::new();
    let x = p.new_symbol("x", 8).unwrap().1;
    let y = p.new_symbol("y", 8).unwrap().1;
    let z16 = p.new_symbol("z", 16).unwrap().1;
    let c = p.new_symbol("c", 8).unwrap().1;
    let one = p.bv_const(8, 1).unwrap();
    let b = p.eq(c, one).unwrap();
    let arr = p.new_array("mem", 32).unwrap().1;
    Fx { p, x, y, z16, b, arr }
}

#[test]
fn identities_fire() {
    let Fx { mut p, x, y, z16, b, arr } = fx();
    let c = |p: &mut ExprPool, w: u32, v: u128| p.bv_const(w, v).unwrap();
    let zero = c(&mut p, 8, 0);
    let one = c(&mut p, 8, 1);
    let ones = c(&mut p, 8, 0xff);
    let (tt, ff) = (p.tt(), p.ff());

    assert_eq!(p.add(x, zero).unwrap(), x, "x+0");
    assert_eq!(p.add(zero, x).unwrap(), x, "0+x");
    assert_eq!(p.sub(x, zero).unwrap(), x, "x-0");
    assert_eq!(p.mul(x, one).unwrap(), x, "x*1");
    assert_eq!(p.mul(x, zero).unwrap(), zero, "x*0");
    assert_eq!(p.bvand(x, zero).unwrap(), zero, "x&0");
    assert_eq!(p.bvand(x, ones).unwrap(), x, "x&ones");
    assert_eq!(p.bvor(x, zero).unwrap(), x, "x|0");
    assert_eq!(p.bvor(x, ones).unwrap(), ones, "x|ones");
    assert_eq!(p.bvxor(x, x).unwrap(), zero, "x^x");
    assert_eq!(p.sub(x, x).unwrap(), zero, "x-x");
    assert_eq!(p.udiv(x, zero).unwrap(), ones, "x udiv 0");
    assert_eq!(p.urem(x, zero).unwrap(), x, "x urem 0");
    assert_eq!(p.srem(x, zero).unwrap(), x, "x srem 0");
    let eight = c(&mut p, 8, 8);
    assert_eq!(p.shl(x, eight).unwrap(), zero, "x << 8");
    assert_eq!(p.lshr(x, eight).unwrap(), zero, "x >> 8");
    assert_eq!(p.eq(x, x).unwrap(), tt, "x == x");
    let nb = p.not(b).unwrap();
    assert_eq!(p.not(nb).unwrap(), b, "not not");
    let nx = p.bvnot(x).unwrap();
    assert_eq!(p.bvnot(nx).unwrap(), x, "bvnot bvnot");
    assert_eq!(p.and2(b, tt).unwrap(), b);
    assert_eq!(p.and2(b, ff).unwrap(), ff);
    assert_eq!(p.or2(b, tt).unwrap(), tt);
    assert_eq!(p.or2(b, ff).unwrap(), b);
    assert_eq!(p.and2(b, nb).unwrap(), ff, "b ∧ ¬b");
    assert_eq!(p.or2(b, nb).unwrap(), tt, "b ∨ ¬b");
    assert_eq!(p.and(&[]).unwrap(), tt);
    assert_eq!(p.or(&[]).unwrap(), ff);
    assert_eq!(p.ite(tt, x, y).unwrap(), x);
    assert_eq!(p.ite(ff, x, y).unwrap(), y);
    assert_eq!(p.ite(b, x, x).unwrap(), x);
    assert_eq!(p.ite(b, tt, ff).unwrap(), b);
    assert_eq!(p.extract(x, 7, 0).unwrap(), x, "full extract");
    let xy = p.concat(x, y).unwrap();
    assert_eq!(p.extract(xy, 7, 0).unwrap(), y, "extract low of concat");
    assert_eq!(p.extract(xy, 15, 8).unwrap(), x, "extract high of concat");
    assert_eq!(p.zext(x, 8).unwrap(), x);
    assert_eq!(p.sext(x, 8).unwrap(), x);
    let (c1, c2) = (c(&mut p, 8, 3), c(&mut p, 8, 4));
    assert_eq!(p.eq(c1, c2).unwrap(), ff, "different constants");
    let i1 = c(&mut p, 32, 1);
    let i2 = c(&mut p, 32, 2);
    let st = p.store(arr, i1, x).unwrap();
    assert_eq!(p.select(st, i1).unwrap(), x, "select over store, same index");
    let direct = p.select(arr, i2).unwrap();
    assert_eq!(p.select(st, i2).unwrap(), direct, "select over store, other index");
    let hi = p.extract(z16, 15, 8).unwrap();
    let lo = p.extract(z16, 7, 0).unwrap();
    assert_eq!(p.concat(hi, lo).unwrap(), z16, "adjacent extracts");
    let x_hi = p.extract(x, 7, 4).unwrap();
    let x_lo = p.extract(x, 3, 0).unwrap();
    assert_eq!(p.concat(x_hi, x_lo).unwrap(), x);
    // Canonical forms that make caches hit.
    assert_eq!(p.add(x, y).unwrap(), p.add(y, x).unwrap(), "commutative");
    assert_eq!(p.and2(b, nb), p.and2(nb, b));
    let lt = p.ult(x, y).unwrap();
    let ge = p.uge(x, y).unwrap();
    assert_eq!(p.not(lt).unwrap(), ge, "¬(x<y) is y<=x");
    let two = c(&mut p, 8, 2);
    let x1 = p.add(x, one).unwrap();
    let x11 = p.add(x1, one).unwrap();
    assert_eq!(x11, p.add(x, two).unwrap(), "constant chains merge");
    let five = c(&mut p, 8, 5);
    let e = p.eq(x1, five).unwrap();
    let four = c(&mut p, 8, 4);
    assert_eq!(e, p.eq(x, four).unwrap(), "x+1 == 5 is x == 4");
}

#[test]
fn sort_errors_are_values() {
    let Fx { mut p, x, z16, b, arr, .. } = fx();
    assert!(matches!(p.add(x, z16), Err(ExprError::Mismatch { .. })));
    assert!(matches!(p.add(x, b), Err(ExprError::SortMismatch { .. })));
    assert!(matches!(p.not(x), Err(ExprError::SortMismatch { .. })));
    assert!(matches!(p.extract(x, 8, 0), Err(ExprError::BadExtract { .. })));
    assert!(matches!(p.extract(x, 2, 3), Err(ExprError::BadExtract { .. })));
    assert!(matches!(p.zext(z16, 8), Err(ExprError::BadExtend { .. })));
    assert!(matches!(p.zext(x, 129), Err(ExprError::BadExtend { .. })));
    assert!(matches!(p.bv_const(0, 0), Err(ExprError::BadWidth { .. })));
    assert!(matches!(p.bv_const(129, 0), Err(ExprError::BadWidth { .. })));
    assert!(matches!(p.new_array("a", 16), Err(ExprError::BadIndexWidth { .. })));
    assert!(matches!(p.select(arr, x), Err(ExprError::Mismatch { .. })));
    assert!(p.eq(arr, arr).is_ok(), "identical terms are equal whatever their sort");
    let arr2 = p.new_array("b", 32).unwrap().1;
    assert!(matches!(p.eq(arr, arr2), Err(ExprError::SortMismatch { .. })));
    let wide = p.new_symbol("w", 120).unwrap().1;
    assert!(matches!(p.concat(wide, z16), Err(ExprError::BadWidth { .. })));
}

#[test]
fn symbols_of_is_shared_and_sorted() {
    let mut p = ExprPool::new();
    let (sx, x) = p.new_symbol("x", 8).unwrap();
    let (sy, y) = p.new_symbol("y", 8).unwrap();
    let (am, m) = p.new_array("m", 32).unwrap();
    let s = p.add(y, x).unwrap();
    assert_eq!(p.symbols_of(s), &[Leaf::Sym(sx), Leaf::Sym(sy)]);
    let i = p.zext(x, 32).unwrap();
    let r = p.select(m, i).unwrap();
    assert_eq!(p.symbols_of(r), &[Leaf::Sym(sx), Leaf::Array(am)]);
    let k = p.bv_const(8, 1).unwrap();
    assert!(p.symbols_of(k).is_empty());
    // Same name, different symbols.
    let (sx2, _) = p.new_symbol("x", 8).unwrap();
    assert_ne!(sx, sx2);
}

#[test]
fn eval_handles_deep_chains_and_arrays() {
    let mut p = ExprPool::new();
    let (sx, x) = p.new_symbol("x", 32).unwrap();
    let three = p.bv_const(32, 3).unwrap();
    let one = p.bv_const(32, 1).unwrap();
    let mut e = x;
    for _ in 0..100_000 {
        e = p.mul(e, three).unwrap();
        e = p.add(e, one).unwrap();
    }
    let mut a = Assignment::new();
    a.set_sym(sx, 7);
    let mut want: u32 = 7;
    for _ in 0..100_000 {
        want = want.wrapping_mul(3).wrapping_add(1);
    }
    assert_eq!(p.eval(e, &a).as_bv(), Some(u128::from(want)));
    assert!(!p.display(e).to_string().is_empty());

    let (am, m) = p.new_array("m", 32).unwrap();
    let i = p.bv_const(32, 10).unwrap();
    let v = p.bv_const(8, 0xab).unwrap();
    let st = p.store(m, x, v).unwrap();
    let r = p.select(st, i).unwrap();
    let mut mem = ArrayValue { default: 5, ..ArrayValue::default() };
    mem.bytes.insert(10, 0x11);
    a.set_array(am, mem);
    assert_eq!(p.eval(r, &a).as_bv(), Some(0x11), "x = 7 misses index 10");
    a.set_sym(sx, 10);
    assert_eq!(p.eval(r, &a).as_bv(), Some(0xab), "x = 10 hits it");
    match p.eval(st, &a) {
        crate::Value::Array(av) => {
            assert_eq!(av.read(10), 0xab);
            assert_eq!(av.read(11), 5);
        }
        other => panic!("not an array: {other:?}"),
    }
}

#[test]
fn display_is_smt_lib_like() {
    let mut p = ExprPool::new();
    let x = p.new_symbol("x", 8).unwrap().1;
    let c = p.bv_const(8, 0x2a).unwrap();
    let s = p.add(x, c).unwrap();
    let sq = p.mul(s, s).unwrap();
    let e = p.ult(sq, c).unwrap();
    assert_eq!(p.display(e).to_string(), "(let ((e4 (bvadd x!0 #x2a))) (bvult (bvmul e4 e4) #x2a))");
    let b = p.bv_const(3, 5).unwrap();
    assert_eq!(p.display(b).to_string(), "#b101");
}

// ----- random terms: rewrites against plain evaluation ---------------------

#[derive(Clone, Debug)]
enum TB {
    Const(u32, u128),
    Var(usize),
    Bin(BvBinOp, Box<TB>, Box<TB>),
    Un(BvUnOp, Box<TB>),
    Ite(Box<TP>, Box<TB>, Box<TB>),
    ZExt(Box<TB>, u32),
    SExt(Box<TB>, u32),
    Extract(Box<TB>, u32, u32),
    Concat(Box<TB>, Box<TB>),
    Select(Box<TA>, Box<TB>),
}

#[derive(Clone, Debug)]
enum TP {
    Const(bool),
    Not(Box<TP>),
    And(Vec<TP>),
    Or(Vec<TP>),
    Xor(Box<TP>, Box<TP>),
    Implies(Box<TP>, Box<TP>),
    Ite(Box<TP>, Box<TP>, Box<TP>),
    EqP(Box<TP>, Box<TP>),
    EqB(Box<TB>, Box<TB>),
    Cmp(CmpOp, Box<TB>, Box<TB>),
    Ugt(Box<TB>, Box<TB>),
    Sge(Box<TB>, Box<TB>),
}

#[derive(Clone, Debug)]
enum TA {
    Var,
    Const(u8),
    Store(Box<TA>, Box<TB>, Box<TB>),
}

const VAR_WIDTHS: [u32; 5] = [1, 4, 8, 8, 32];

struct Gen {
    rng: Rng,
}

impl Gen {
    fn pick(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    fn bv(&mut self, w: u32, depth: u32) -> TB {
        let leaf = depth == 0 || self.pick(4) == 0;
        if leaf {
            let vars: Vec<usize> = (0..VAR_WIDTHS.len()).filter(|&i| VAR_WIDTHS[i] == w).collect();
            if !vars.is_empty() && self.pick(3) != 0 {
                return TB::Var(vars[self.pick(vars.len() as u64) as usize]);
            }
            if self.pick(2) == 0 {
                // A slice or extension of a variable, so leaves of every
                // width are symbolic.
                let src = VAR_WIDTHS[self.pick(VAR_WIDTHS.len() as u64) as usize];
                let v = TB::Var(VAR_WIDTHS.iter().position(|&x| x == src).unwrap_or(0));
                return if src >= w {
                    let lo = self.pick(u64::from(src - w + 1)) as u32;
                    TB::Extract(Box::new(v), lo + w - 1, lo)
                } else if self.pick(2) == 0 {
                    TB::ZExt(Box::new(v), w)
                } else {
                    TB::SExt(Box::new(v), w)
                };
            }
            return TB::Const(w, self.rng.value(w));
        }
        let d = depth - 1;
        match self.pick(11) {
            0..=2 => {
                let op = BvBinOp::ALL[self.pick(13) as usize];
                let a = self.bv(w, d);
                let b = match self.pick(4) {
                    0 => a.clone(),
                    1 => TB::Const(w, self.rng.value(w)),
                    _ => self.bv(w, d),
                };
                // Nest same-operator constants to reach reassociation.
                if self.pick(4) == 0 {
                    let inner = TB::Bin(op, Box::new(a), Box::new(TB::Const(w, self.rng.value(w))));
                    return TB::Bin(op, Box::new(inner), Box::new(b));
                }
                TB::Bin(op, Box::new(a), Box::new(b))
            }
            3 => {
                let op = if self.pick(2) == 0 { BvUnOp::Not } else { BvUnOp::Neg };
                let a = self.bv(w, d);
                if self.pick(3) == 0 {
                    return TB::Un(op, Box::new(TB::Un(op, Box::new(a))));
                }
                TB::Un(op, Box::new(a))
            }
            4 => TB::Ite(Box::new(self.pred(d)), Box::new(self.bv(w, d)), Box::new(self.bv(w, d))),
            5 if w > 1 => {
                let from = 1 + self.pick(u64::from(w - 1)) as u32;
                let a = self.bv(from, d);
                if self.pick(2) == 0 {
                    TB::ZExt(Box::new(a), w)
                } else {
                    TB::SExt(Box::new(a), w)
                }
            }
            6 => {
                let src = (w + self.pick(9) as u32).min(40);
                let lo = self.pick(u64::from(src - w + 1)) as u32;
                TB::Extract(Box::new(self.bv(src, d)), lo + w - 1, lo)
            }
            7 if w > 1 => {
                let wl = 1 + self.pick(u64::from(w - 1)) as u32;
                if self.pick(3) == 0 {
                    // Two adjacent slices of one term.
                    let src_w = (w + self.pick(4) as u32).min(40);
                    let base = self.bv(src_w, d);
                    let lo = self.pick(u64::from(src_w - w + 1)) as u32;
                    TB::Concat(
                        Box::new(TB::Extract(Box::new(base.clone()), lo + w - 1, lo + wl)),
                        Box::new(TB::Extract(Box::new(base), lo + wl - 1, lo)),
                    )
                } else {
                    TB::Concat(Box::new(self.bv(w - wl, d)), Box::new(self.bv(wl, d)))
                }
            }
            8 | 9 if w == 8 => TB::Select(Box::new(self.array(d)), Box::new(self.index(d))),
            8 | 9 if w <= 16 => {
                // An extract of a loaded byte, or several bytes concatenated.
                let byte = TB::Select(Box::new(self.array(d)), Box::new(self.index(d)));
                if w < 8 {
                    TB::Extract(Box::new(byte), w - 1, 0)
                } else {
                    TB::ZExt(Box::new(byte), w)
                }
            }
            _ => self.bv(w, d),
        }
    }

    fn index(&mut self, depth: u32) -> TB {
        if self.pick(2) == 0 {
            TB::Const(32, u128::from(self.pick(4)))
        } else {
            self.bv(32, depth.min(1))
        }
    }

    fn array(&mut self, depth: u32) -> TA {
        if depth == 0 || self.pick(3) == 0 {
            return if self.pick(4) == 0 { TA::Const(self.pick(256) as u8) } else { TA::Var };
        }
        let d = depth - 1;
        let inner = self.array(d);
        let i = self.index(d);
        let v =
            if self.pick(4) == 0 { TB::Select(Box::new(inner.clone()), Box::new(i.clone())) } else { self.bv(8, d) };
        TA::Store(Box::new(inner), Box::new(i), Box::new(v))
    }

    fn pred(&mut self, depth: u32) -> TP {
        if depth == 0 || self.pick(5) == 0 {
            return if self.pick(3) == 0 {
                TP::Const(self.pick(2) == 0)
            } else {
                let w = [1, 4, 8, 32][self.pick(4) as usize];
                TP::Cmp(CmpOp::ALL[self.pick(4) as usize], Box::new(self.bv(w, 0)), Box::new(self.bv(w, 0)))
            };
        }
        let d = depth - 1;
        let w = [1, 3, 4, 8, 16, 32][self.pick(6) as usize];
        match self.pick(11) {
            0 => {
                let a = self.pred(d);
                if self.pick(2) == 0 {
                    TP::Not(Box::new(TP::Not(Box::new(a))))
                } else {
                    TP::Not(Box::new(a))
                }
            }
            1 | 2 => {
                let n = 1 + self.pick(3) as usize;
                let mut xs: Vec<TP> = (0..n).map(|_| self.pred(d)).collect();
                if self.pick(3) == 0 {
                    // Include a negated copy to reach the x ∧ ¬x rule.
                    let first = xs[0].clone();
                    xs.push(TP::Not(Box::new(first)));
                }
                if self.pick(2) == 0 {
                    TP::And(xs)
                } else {
                    TP::Or(xs)
                }
            }
            3 => TP::Xor(Box::new(self.pred(d)), Box::new(self.pred(d))),
            4 => TP::Implies(Box::new(self.pred(d)), Box::new(self.pred(d))),
            5 => TP::Ite(Box::new(self.pred(d)), Box::new(self.pred(d)), Box::new(self.pred(d))),
            6 => TP::EqP(Box::new(self.pred(d)), Box::new(self.pred(d))),
            7 | 8 => {
                let a = self.bv(w, d);
                let b = if self.pick(2) == 0 { TB::Const(w, self.rng.value(w)) } else { self.bv(w, d) };
                TP::EqB(Box::new(a), Box::new(b))
            }
            9 => {
                let a = self.bv(w, d);
                let b = if self.pick(3) == 0 { a.clone() } else { self.bv(w, d) };
                TP::Cmp(CmpOp::ALL[self.pick(4) as usize], Box::new(a), Box::new(b))
            }
            _ => {
                let (a, b) = (self.bv(w, d), self.bv(w, d));
                if self.pick(2) == 0 {
                    TP::Ugt(Box::new(a), Box::new(b))
                } else {
                    TP::Sge(Box::new(a), Box::new(b))
                }
            }
        }
    }
}

struct World {
    syms: Vec<(SymId, ExprId)>,
    arr: (ArrayId, ExprId),
}

fn build_bv(p: &mut ExprPool, wd: &World, t: &TB) -> ExprId {
    match t {
        TB::Const(w, v) => p.bv_const(*w, *v).unwrap(),
        TB::Var(i) => wd.syms[*i].1,
        TB::Bin(op, a, b) => {
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.binop(*op, a, b).unwrap()
        }
        TB::Un(op, a) => {
            let a = build_bv(p, wd, a);
            p.unop(*op, a).unwrap()
        }
        TB::Ite(c, a, b) => {
            let c = build_pred(p, wd, c);
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.ite(c, a, b).unwrap()
        }
        TB::ZExt(a, w) => {
            let a = build_bv(p, wd, a);
            p.zext(a, *w).unwrap()
        }
        TB::SExt(a, w) => {
            let a = build_bv(p, wd, a);
            p.sext(a, *w).unwrap()
        }
        TB::Extract(a, hi, lo) => {
            let a = build_bv(p, wd, a);
            p.extract(a, *hi, *lo).unwrap()
        }
        TB::Concat(a, b) => {
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.concat(a, b).unwrap()
        }
        TB::Select(a, i) => {
            let a = build_array(p, wd, a);
            let i = build_bv(p, wd, i);
            p.select(a, i).unwrap()
        }
    }
}

fn build_array(p: &mut ExprPool, wd: &World, t: &TA) -> ExprId {
    match t {
        TA::Var => wd.arr.1,
        TA::Const(b) => p.const_array(32, *b).unwrap(),
        TA::Store(a, i, v) => {
            let a = build_array(p, wd, a);
            let i = build_bv(p, wd, i);
            let v = build_bv(p, wd, v);
            p.store(a, i, v).unwrap()
        }
    }
}

fn build_pred(p: &mut ExprPool, wd: &World, t: &TP) -> ExprId {
    match t {
        TP::Const(b) => p.bool_const(*b),
        TP::Not(a) => {
            let a = build_pred(p, wd, a);
            p.not(a).unwrap()
        }
        TP::And(xs) | TP::Or(xs) => {
            let ids: Vec<ExprId> = xs.iter().map(|x| build_pred(p, wd, x)).collect();
            if matches!(t, TP::And(_)) {
                p.and(&ids).unwrap()
            } else {
                p.or(&ids).unwrap()
            }
        }
        TP::Xor(a, b) => {
            let (a, b) = (build_pred(p, wd, a), build_pred(p, wd, b));
            p.xor(a, b).unwrap()
        }
        TP::Implies(a, b) => {
            let (a, b) = (build_pred(p, wd, a), build_pred(p, wd, b));
            p.implies(a, b).unwrap()
        }
        TP::Ite(c, a, b) => {
            let c = build_pred(p, wd, c);
            let (a, b) = (build_pred(p, wd, a), build_pred(p, wd, b));
            p.ite(c, a, b).unwrap()
        }
        TP::EqP(a, b) => {
            let (a, b) = (build_pred(p, wd, a), build_pred(p, wd, b));
            p.eq(a, b).unwrap()
        }
        TP::EqB(a, b) => {
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.eq(a, b).unwrap()
        }
        TP::Cmp(op, a, b) => {
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.cmp(*op, a, b).unwrap()
        }
        TP::Ugt(a, b) => {
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.ugt(a, b).unwrap()
        }
        TP::Sge(a, b) => {
            let (a, b) = (build_bv(p, wd, a), build_bv(p, wd, b));
            p.sge(a, b).unwrap()
        }
    }
}

struct Env {
    syms: Vec<u128>,
    mem: ArrayValue,
}

fn width_of(t: &TB) -> u32 {
    match t {
        TB::Const(w, _) => *w,
        TB::Var(i) => VAR_WIDTHS[*i],
        TB::Bin(_, a, _) | TB::Un(_, a) | TB::Ite(_, a, _) => width_of(a),
        TB::ZExt(_, w) | TB::SExt(_, w) => *w,
        TB::Extract(_, hi, lo) => hi - lo + 1,
        TB::Concat(a, b) => width_of(a) + width_of(b),
        TB::Select(..) => 8,
    }
}

// Direct evaluation with the reference operators, no rewriting involved.
fn ev_bv(e: &Env, t: &TB) -> u128 {
    match t {
        TB::Const(_, v) => *v,
        TB::Var(i) => e.syms[*i],
        TB::Bin(op, a, b) => r_bin(*op, width_of(a), ev_bv(e, a), ev_bv(e, b)),
        TB::Un(BvUnOp::Not, a) => r_not(width_of(a), ev_bv(e, a)),
        TB::Un(BvUnOp::Neg, a) => r_neg(width_of(a), ev_bv(e, a)),
        TB::Ite(c, a, b) => {
            if ev_pred(e, c) {
                ev_bv(e, a)
            } else {
                ev_bv(e, b)
            }
        }
        TB::ZExt(a, _) => ev_bv(e, a),
        TB::SExt(a, w) => {
            let (wa, v) = (width_of(a), ev_bv(e, a));
            from_bits(*w, |i| if i < wa { bit(v, i) } else { bit(v, wa - 1) })
        }
        TB::Extract(a, hi, lo) => {
            let v = ev_bv(e, a);
            from_bits(hi - lo + 1, |i| bit(v, i + lo))
        }
        TB::Concat(a, b) => {
            let wl = width_of(b);
            let (h, l) = (ev_bv(e, a), ev_bv(e, b));
            from_bits(width_of(a) + wl, |i| if i < wl { bit(l, i) } else { bit(h, i - wl) })
        }
        TB::Select(a, i) => u128::from(ev_array(e, a, ev_bv(e, i))),
    }
}

fn ev_array(e: &Env, t: &TA, index: u128) -> u8 {
    match t {
        TA::Var => e.mem.read(index),
        TA::Const(b) => *b,
        TA::Store(a, i, v) => {
            if ev_bv(e, i) == index {
                ev_bv(e, v) as u8
            } else {
                ev_array(e, a, index)
            }
        }
    }
}

fn ev_pred(e: &Env, t: &TP) -> bool {
    match t {
        TP::Const(b) => *b,
        TP::Not(a) => !ev_pred(e, a),
        TP::And(xs) => xs.iter().all(|x| ev_pred(e, x)),
        TP::Or(xs) => xs.iter().any(|x| ev_pred(e, x)),
        TP::Xor(a, b) => ev_pred(e, a) != ev_pred(e, b),
        TP::Implies(a, b) => !ev_pred(e, a) || ev_pred(e, b),
        TP::Ite(c, a, b) => {
            if ev_pred(e, c) {
                ev_pred(e, a)
            } else {
                ev_pred(e, b)
            }
        }
        TP::EqP(a, b) => ev_pred(e, a) == ev_pred(e, b),
        TP::EqB(a, b) => ev_bv(e, a) == ev_bv(e, b),
        TP::Cmp(op, a, b) => r_cmp(*op, width_of(a), ev_bv(e, a), ev_bv(e, b)),
        TP::Ugt(a, b) => r_ult(width_of(a), ev_bv(e, b), ev_bv(e, a)),
        TP::Sge(a, b) => r_cmp(CmpOp::Sle, width_of(a), ev_bv(e, b), ev_bv(e, a)),
    }
}

#[test]
fn rewrites_preserve_meaning_on_random_terms() {
    let mut p = ExprPool::new();
    let syms: Vec<(SymId, ExprId)> =
        VAR_WIDTHS.iter().enumerate().map(|(i, &w)| p.new_symbol(&format!("v{i}"), w).unwrap()).collect();
    let arr = p.new_array("mem", 32).unwrap();
    let world = World { syms, arr };
    let mut gen = Gen { rng: Rng::new(3) };
    let mut envs_rng = Rng::new(4);
    let mut simplified = 0;
    for round in 0..4000 {
        let (pred, bvt) = (gen.pred(4), gen.bv([1, 5, 8, 13, 32][round % 5], 4));
        let pe = build_pred(&mut p, &world, &pred);
        let be = build_bv(&mut p, &world, &bvt);
        if p.symbols_of(pe).is_empty() || p.symbols_of(be).is_empty() {
            simplified += 1;
        }
        for _ in 0..8 {
            let env = Env {
                syms: VAR_WIDTHS.iter().map(|&w| envs_rng.value(w)).collect(),
                mem: ArrayValue {
                    default: envs_rng.below(256) as u8,
                    bytes: (0..4u128)
                        .filter_map(|i| {
                            let keep = envs_rng.below(2) == 0;
                            let byte = envs_rng.below(256) as u8;
                            keep.then_some((i, byte))
                        })
                        .collect(),
                },
            };
            let mut a = Assignment::new();
            for (i, &(s, _)) in world.syms.iter().enumerate() {
                a.set_sym(s, env.syms[i]);
            }
            a.set_array(world.arr.0, env.mem.clone());
            assert_eq!(
                p.eval(pe, &a).as_bool(),
                Some(ev_pred(&env, &pred)),
                "predicate {pred:?}\nbuilt as {}\nunder {:?}",
                p.display(pe),
                a
            );
            assert_eq!(
                p.eval(be, &a).as_bv(),
                Some(ev_bv(&env, &bvt)),
                "term {bvt:?}\nbuilt as {}\nunder {:?}",
                p.display(be),
                a
            );
        }
    }
    // The generator must exercise folding, not only build opaque terms.
    assert!(simplified > 100, "only {simplified} terms folded to constants");
}

/// A wide disjunction's leaf set is the sorted union of its children's,
/// symbols before arrays, as pairwise unions give it.
#[test]
fn wide_junction_leaf_sets() {
    let mut p = ExprPool::new();
    let (a, arr) = p.new_array("m", 32).unwrap();
    let syms: Vec<(SymId, ExprId)> = (0..30).map(|i| p.new_symbol(&format!("s{i}"), 8).unwrap()).collect();
    let zero = p.bv_const(8, 0).unwrap();
    let mut children = Vec::new();
    // Children over overlapping symbol ranges, one reading the array.
    for k in 0..12 {
        let x = syms[(3 * k) % 30].1;
        let y = syms[(3 * k + 7) % 30].1;
        let s = p.add(x, y).unwrap();
        children.push(p.eq(s, zero).unwrap());
    }
    let idx = p.bv_const(32, 4).unwrap();
    let byte = p.select(arr, idx).unwrap();
    children.push(p.eq(byte, zero).unwrap());
    let wide = p.or(&children).unwrap();
    let mut expected: Vec<Leaf> = children.iter().flat_map(|&c| p.symbols_of(c).to_vec()).collect();
    expected.sort();
    expected.dedup();
    assert_eq!(p.symbols_of(wide), expected.as_slice());
    assert_eq!(*p.symbols_of(wide).last().unwrap(), Leaf::Array(a));
    // Pairwise for few children gives the same shape.
    let narrow = p.or(&children[..3]).unwrap();
    let mut e3: Vec<Leaf> = children[..3].iter().flat_map(|&c| p.symbols_of(c).to_vec()).collect();
    e3.sort();
    e3.dedup();
    assert_eq!(p.symbols_of(narrow), e3.as_slice());
}

#[test]
fn a_comparisons_bit_compared_with_a_constant_is_the_comparison_when_asked() {
    let Fx { mut p, b, .. } = fx();
    let bit = |p: &mut ExprPool, v: u128| p.bv_const(1, v).unwrap();
    let (zero, one) = (bit(&mut p, 0), bit(&mut p, 1));
    let ne = p.ite(b, zero, one).unwrap(); // `x != c` as an i1 over `b = (x = c)`
    let unfolded = p.eq(ne, zero).unwrap();
    assert_ne!(unfolded, b, "off by default");
    p.fold_comparison_bits();
    let not_b = p.not(b).unwrap();
    assert_eq!(p.eq(ne, one).unwrap(), not_b);
    let w8 = p.bv_const(8, 7).unwrap();
    let w8b = p.bv_const(8, 9).unwrap();
    let sel = p.ite(b, w8, w8b).unwrap();
    let other = p.bv_const(8, 3).unwrap();
    assert_eq!(p.eq(sel, other).unwrap(), p.ff(), "neither arm");
}
