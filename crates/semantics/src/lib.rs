//! The IR's integer semantics as solver terms: the exact bit-vector meaning
//! of every integer instruction (including the overflow predicates and bit
//! counting), over the solver facade's expression pool. Every symbolic
//! engine (the concolic tracer, the bounded engine, and later ones) builds
//! its terms here, so they agree with each other and with the interpreter;
//! no engine depends on another for them.
//!
//! Floating-point values are bit-vectors of their IEEE bits (32 bits for
//! `f32`, 64 for `f64`), read by the pool's IEEE-754 nodes, whose meaning
//! is the x86 instruction the interpreter runs (`walkdown_smt::float`);
//! this module maps each float instruction of the IR onto them the way
//! the interpreter computes it (conversions to unsigned integers go
//! through the signed ones, as gcc compiles them).
//!
//! IR values of type `i1` are 1-bit vectors; conditions are booleans. The
//! pool's constructors check sorts; the tracer only builds well-sorted
//! terms, so a sort error here is a bug in this module, reported loudly.

use walkdown_ir::{BinOp, CastOp, CmpPred, DataModel, UnOp};
use walkdown_smt::{BvBinOp, CmpOp, ExprId, ExprPool, FpBinOp, FpCmpOp, Node};

/// Builds expressions for the tracer.
pub struct Sym<'a> {
    pool: &'a mut ExprPool,
}

fn ok(r: Result<ExprId, walkdown_smt::ExprError>) -> ExprId {
    r.unwrap_or_else(|e| panic!("ill-sorted symbolic term (a bug in walkdown-semantics): {e}"))
}

impl<'a> Sym<'a> {
    /// A builder over `pool`.
    pub fn new(pool: &'a mut ExprPool) -> Self {
        Sym { pool }
    }

    /// The pool.
    pub fn pool(&mut self) -> &mut ExprPool {
        self.pool
    }

    /// A bit-vector constant of `width` bits (`bits` truncated).
    pub fn bv(&mut self, bits: u64, width: u32) -> ExprId {
        let v = if width >= 64 { u128::from(bits) } else { u128::from(bits & ((1u64 << width) - 1)) };
        ok(self.pool.bv_const(width, v))
    }

    /// A boolean constant.
    pub fn bool(&mut self, b: bool) -> ExprId {
        self.pool.bool_const(b)
    }

    /// Whether `e` is the constant true.
    pub fn is_true(&self, e: ExprId) -> bool {
        self.pool.as_bool_const(e) == Some(true)
    }

    /// Whether `e` is the constant false.
    pub fn is_false(&self, e: ExprId) -> bool {
        self.pool.as_bool_const(e) == Some(false)
    }

    /// The value of a bit-vector constant.
    pub fn const_value(&self, e: ExprId) -> Option<u128> {
        self.pool.as_bv_const(e)
    }

    /// Width of a bit-vector expression.
    pub fn width(&self, e: ExprId) -> u32 {
        self.pool.width(e).unwrap_or(1)
    }

    /// `a == b`.
    pub fn eq(&mut self, a: ExprId, b: ExprId) -> ExprId {
        ok(self.pool.eq(a, b))
    }

    /// `!a`.
    pub fn not(&mut self, a: ExprId) -> ExprId {
        ok(self.pool.not(a))
    }

    /// `a && b`.
    pub fn and(&mut self, a: ExprId, b: ExprId) -> ExprId {
        ok(self.pool.and2(a, b))
    }

    /// `c ? t : f`.
    pub fn ite(&mut self, c: ExprId, t: ExprId, f: ExprId) -> ExprId {
        ok(self.pool.ite(c, t, f))
    }

    /// `hi ++ lo`.
    pub fn concat(&mut self, hi: ExprId, lo: ExprId) -> ExprId {
        ok(self.pool.concat(hi, lo))
    }

    /// Bits `hi..=lo`.
    pub fn extract(&mut self, e: ExprId, hi: u32, lo: u32) -> ExprId {
        ok(self.pool.extract(e, hi, lo))
    }

    /// A boolean as an `i1`.
    pub fn bool_to_bv1(&mut self, b: ExprId) -> ExprId {
        let one = self.bv(1, 1);
        let zero = self.bv(0, 1);
        self.ite(b, one, zero)
    }

    /// An `i1` as a boolean (undoing `bool_to_bv1` where it can).
    pub fn bv1_to_bool(&mut self, e: ExprId) -> ExprId {
        if let Node::Ite { cond, then, els } = *self.pool.get(e) {
            if self.pool.as_bv_const(then) == Some(1) && self.pool.as_bv_const(els) == Some(0) {
                return cond;
            }
        }
        let w = self.width(e);
        let zero = self.bv(0, w);
        let z = self.eq(e, zero);
        self.not(z)
    }

    /// `e` (of `from` bits) truncated or extended to `to` bits.
    pub fn resize(&mut self, e: ExprId, from: u32, to: u32, signed: bool) -> ExprId {
        use std::cmp::Ordering::*;
        match to.cmp(&from) {
            Equal => e,
            Less => self.extract(e, to - 1, 0),
            Greater if signed => ok(self.pool.sext(e, to)),
            Greater => ok(self.pool.zext(e, to)),
        }
    }

    /// An integer binary operation of width `w` (overflow predicates give
    /// an `i1`).
    pub fn bin(&mut self, op: BinOp, w: u32, a: ExprId, b: ExprId) -> ExprId {
        let plain = match op {
            BinOp::Add => Some(BvBinOp::Add),
            BinOp::Sub => Some(BvBinOp::Sub),
            BinOp::Mul => Some(BvBinOp::Mul),
            BinOp::UDiv => Some(BvBinOp::UDiv),
            BinOp::SDiv => Some(BvBinOp::SDiv),
            BinOp::URem => Some(BvBinOp::URem),
            BinOp::SRem => Some(BvBinOp::SRem),
            BinOp::And => Some(BvBinOp::And),
            BinOp::Or => Some(BvBinOp::Or),
            BinOp::Xor => Some(BvBinOp::Xor),
            _ => None,
        };
        if let Some(o) = plain {
            return ok(self.pool.binop(o, a, b));
        }
        match op {
            // The IR's shifts take the amount modulo the width (as the
            // interpreter and x86 do), SMT-LIB's saturate: reduce first.
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let amount = if w.is_power_of_two() {
                    let m = self.bv(u64::from(w - 1), w);
                    ok(self.pool.binop(BvBinOp::And, b, m))
                } else {
                    let m = self.bv(u64::from(w), w);
                    ok(self.pool.binop(BvBinOp::URem, b, m))
                };
                let o = match op {
                    BinOp::Shl => BvBinOp::Shl,
                    BinOp::LShr => BvBinOp::LShr,
                    _ => BvBinOp::AShr,
                };
                ok(self.pool.binop(o, a, amount))
            }
            BinOp::SAddO | BinOp::SSubO | BinOp::SMulO
                if let Some(over) = self.signed_overflow_cheaply(op, w, a, b) =>
            {
                self.bool_to_bv1(over)
            }
            BinOp::SAddO | BinOp::SSubO | BinOp::SMulO => {
                let wa = self.resize(a, w, 2 * w, true);
                let wb = self.resize(b, w, 2 * w, true);
                let o = match op {
                    BinOp::SAddO => BvBinOp::Add,
                    BinOp::SSubO => BvBinOp::Sub,
                    _ => BvBinOp::Mul,
                };
                let wide = ok(self.pool.binop(o, wa, wb));
                let low = self.extract(wide, w - 1, 0);
                let back = self.resize(low, w, 2 * w, true);
                let fits = self.eq(wide, back);
                let over = self.not(fits);
                self.bool_to_bv1(over)
            }
            BinOp::UAddO | BinOp::UMulO => {
                let wa = self.resize(a, w, 2 * w, false);
                let wb = self.resize(b, w, 2 * w, false);
                let o = if op == BinOp::UAddO { BvBinOp::Add } else { BvBinOp::Mul };
                let wide = ok(self.pool.binop(o, wa, wb));
                let high = self.extract(wide, 2 * w - 1, w);
                let zero = self.bv(0, w);
                let fits = self.eq(high, zero);
                let over = self.not(fits);
                self.bool_to_bv1(over)
            }
            BinOp::USubO => {
                let lt = ok(self.pool.cmp(CmpOp::Ult, a, b));
                self.bool_to_bv1(lt)
            }
            _ => unreachable!("float operators are filtered by the tracer"),
        }
    }

    /// Signed overflow of `a op b` without a double-width operation, where
    /// a cheaper form says the same: for add and sub from the signs of the
    /// operands and the result, for a product by a constant a range of
    /// `a` (a chain of doubled-width products is what made queries over
    /// loops of `x = x * 10 + d` time out). `None`: no such form.
    fn signed_overflow_cheaply(&mut self, op: BinOp, w: u32, a: ExprId, b: ExprId) -> Option<ExprId> {
        if !(2..=64).contains(&w) {
            return None;
        }
        let zero = self.bv(0, w);
        match op {
            BinOp::SAddO | BinOp::SSubO => {
                let o = if op == BinOp::SAddO { BvBinOp::Add } else { BvBinOp::Sub };
                let r = ok(self.pool.binop(o, a, b));
                let sa = self.cmp(CmpPred::Slt, a, zero);
                let sb = self.cmp(CmpPred::Slt, b, zero);
                let sr = self.cmp(CmpPred::Slt, r, zero);
                // add: operands of one sign, result of the other; sub:
                // operands of different signs, result of b's sign.
                let same = self.eq(sa, sb);
                let operands = if op == BinOp::SAddO { same } else { self.not(same) };
                let kept = self.eq(sr, sa);
                let flipped = self.not(kept);
                Some(self.and(operands, flipped))
            }
            BinOp::SMulO => {
                let (x, c) = match (self.const_value(a), self.const_value(b)) {
                    (_, Some(c)) => (a, c),
                    (Some(c), None) => (b, c),
                    _ => return None,
                };
                let c = (c as i128) << (128 - w) >> (128 - w);
                let (min, max) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
                if c == 0 || c == 1 {
                    return Some(self.bool(false));
                }
                if c < 0 {
                    return None;
                }
                // x * c fits iff ceil(min / c) <= x <= floor(max / c).
                let hi = max / c;
                let lo = -((-min) / c);
                let hi_e = self.bv(hi as u64, w);
                let lo_e = self.bv(lo as u64, w);
                let above = self.cmp(CmpPred::Sgt, x, hi_e);
                let below = self.cmp(CmpPred::Slt, x, lo_e);
                let not_above = self.not(above);
                let not_below = self.not(below);
                let fits = self.and(not_above, not_below);
                Some(self.not(fits))
            }
            _ => None,
        }
    }

    /// A unary integer operation of width `w`; `None` for float ones.
    pub fn un(&mut self, op: UnOp, w: u32, a: ExprId) -> Option<ExprId> {
        Some(match op {
            UnOp::Bswap => {
                let bytes = w / 8;
                let mut acc = self.extract(a, 7, 0);
                for i in 1..bytes {
                    let byte = self.extract(a, 8 * i + 7, 8 * i);
                    acc = self.concat(acc, byte);
                }
                acc
            }
            UnOp::Ctpop => {
                let mut acc = self.bv(0, w);
                for i in 0..w {
                    let bit = self.extract(a, i, i);
                    let bit = self.resize(bit, 1, w, false);
                    acc = ok(self.pool.binop(BvBinOp::Add, acc, bit));
                }
                acc
            }
            UnOp::Ctlz | UnOp::Cttz => {
                // The position of the first set bit from the chosen end.
                let mut acc = self.bv(u64::from(w), w);
                let order: Vec<u32> = if op == UnOp::Ctlz { (0..w).collect() } else { (0..w).rev().collect() };
                for i in order {
                    let bit = self.extract(a, i, i);
                    let one = self.bv(1, 1);
                    let set = self.eq(bit, one);
                    let count = if op == UnOp::Ctlz { w - 1 - i } else { i };
                    let n = self.bv(u64::from(count), w);
                    acc = self.ite(set, n, acc);
                }
                acc
            }
            UnOp::FNeg => return None,
        })
    }

    /// An integer comparison, as a boolean.
    pub fn cmp(&mut self, pred: CmpPred, a: ExprId, b: ExprId) -> ExprId {
        let (op, x, y) = match pred {
            CmpPred::Eq => return self.eq(a, b),
            CmpPred::Ne => {
                let e = self.eq(a, b);
                return self.not(e);
            }
            CmpPred::Ult => (CmpOp::Ult, a, b),
            CmpPred::Ule => (CmpOp::Ule, a, b),
            CmpPred::Ugt => (CmpOp::Ult, b, a),
            CmpPred::Uge => (CmpOp::Ule, b, a),
            CmpPred::Slt => (CmpOp::Slt, a, b),
            CmpPred::Sle => (CmpOp::Sle, a, b),
            CmpPred::Sgt => (CmpOp::Slt, b, a),
            CmpPred::Sge => (CmpOp::Sle, b, a),
            _ => unreachable!("float predicates are filtered by the tracer"),
        };
        ok(self.pool.cmp(op, x, y))
    }

    /// An integer or pointer cast from `from` to `to` bits.
    pub fn cast(&mut self, op: CastOp, from: u32, to: u32, a: ExprId) -> ExprId {
        let signed = op == CastOp::SExt;
        self.resize(a, from, to, signed)
    }

    // ----- floating point --------------------------------------------------

    /// A float binary operation on `w`-bit floats (`fadd` .. `frem`).
    pub fn fbin(&mut self, op: BinOp, a: ExprId, b: ExprId) -> ExprId {
        let o = match op {
            BinOp::FAdd => FpBinOp::Add,
            BinOp::FSub => FpBinOp::Sub,
            BinOp::FMul => FpBinOp::Mul,
            BinOp::FDiv => FpBinOp::Div,
            BinOp::FRem => FpBinOp::Rem,
            _ => unreachable!("integer operators go to `bin`"),
        };
        ok(self.pool.fp_bin(o, a, b))
    }

    /// `fneg`: the sign bit flipped (NaNs too, as x86 `xorps` does).
    pub fn fneg(&mut self, w: u32, a: ExprId) -> ExprId {
        let sign = ok(self.pool.bv_const(w, 1u128 << (w - 1)));
        ok(self.pool.binop(BvBinOp::Xor, a, sign))
    }

    /// `fabs`: the sign bit cleared.
    pub fn fabs(&mut self, w: u32, a: ExprId) -> ExprId {
        let rest = ok(self.pool.bv_const(w, (1u128 << (w - 1)) - 1));
        ok(self.pool.binop(BvBinOp::And, a, rest))
    }

    /// Whether the `w`-bit float `a` is a NaN.
    pub fn is_nan(&mut self, w: u32, a: ExprId) -> ExprId {
        let magnitude = self.fabs(w, a);
        let inf = if w == 32 { 0x7f80_0000 } else { 0x7ff0_0000_0000_0000 };
        let inf = self.bv(inf, w);
        ok(self.pool.cmp(CmpOp::Ult, inf, magnitude))
    }

    /// A float comparison of two `w`-bit floats, as a boolean (ordered
    /// predicates are false on NaN, unordered ones true).
    pub fn fcmp(&mut self, pred: CmpPred, w: u32, a: ExprId, b: ExprId) -> ExprId {
        let c = |p: &mut ExprPool, op, x, y| ok(p.fp_cmp(op, x, y));
        match pred {
            CmpPred::FOeq | CmpPred::Eq => c(self.pool, FpCmpOp::Eq, a, b),
            CmpPred::FOlt | CmpPred::Ult | CmpPred::Slt => c(self.pool, FpCmpOp::Lt, a, b),
            CmpPred::FOle | CmpPred::Ule | CmpPred::Sle => c(self.pool, FpCmpOp::Le, a, b),
            CmpPred::FOgt | CmpPred::Ugt | CmpPred::Sgt => c(self.pool, FpCmpOp::Lt, b, a),
            CmpPred::FOge | CmpPred::Uge | CmpPred::Sge => c(self.pool, FpCmpOp::Le, b, a),
            CmpPred::FOne => {
                let lt = c(self.pool, FpCmpOp::Lt, a, b);
                let gt = c(self.pool, FpCmpOp::Lt, b, a);
                ok(self.pool.or2(lt, gt))
            }
            CmpPred::FOrd => {
                let uno = self.fcmp(CmpPred::FUno, w, a, b);
                self.not(uno)
            }
            CmpPred::FUno => {
                let na = self.is_nan(w, a);
                let nb = self.is_nan(w, b);
                ok(self.pool.or2(na, nb))
            }
            CmpPred::Ne => {
                let e = self.fcmp(CmpPred::FOeq, w, a, b);
                self.not(e)
            }
            // Each unordered predicate is the negation of an ordered one.
            CmpPred::FUeq | CmpPred::FUne | CmpPred::FUlt | CmpPred::FUle | CmpPred::FUgt | CmpPred::FUge => {
                let o = self.fcmp(pred.negate(), w, a, b);
                self.not(o)
            }
        }
    }

    /// A conversion involving a float, from `from` to `to` bits, as the
    /// interpreter's `eval_cast` computes it under `dm`; integer-to-integer
    /// casts go to `cast`.
    pub fn fcast(&mut self, op: CastOp, from: u32, to: u32, a: ExprId, dm: DataModel) -> ExprId {
        match op {
            // `gcc -m32`: a 16-bit x87 conversion, 0x8000 out of range.
            CastOp::FpToSi | CastOp::FpToUi
                if dm == DataModel::ILP32 && (to <= 8 || (to <= 16 && op == CastOp::FpToSi)) =>
            {
                let r = ok(self.pool.fp_to_sbv(a, 32));
                let lo = self.bv((-32768i64) as u64, 32);
                let hi = self.bv(32767, 32);
                let above = ok(self.pool.cmp(CmpOp::Sle, lo, r));
                let below = ok(self.pool.cmp(CmpOp::Sle, r, hi));
                let fits = self.and(above, below);
                let low = self.extract(r, 15, 0);
                let indefinite = self.bv(0x8000, 16);
                let r16 = self.ite(fits, low, indefinite);
                self.resize(r16, 16, to, false)
            }
            CastOp::FpTrunc | CastOp::FpExt => ok(self.pool.fp_conv(a, to)),
            CastOp::SiToFp => ok(self.pool.bv_to_fp(a, to, true)),
            CastOp::UiToFp => ok(self.pool.bv_to_fp(a, to, false)),
            CastOp::FpToSi => {
                // Up to 32 bits through the 32-bit conversion, then truncated.
                let via = if to <= 32 { 32 } else { 64 };
                let r = ok(self.pool.fp_to_sbv(a, via));
                self.resize(r, via, to, false)
            }
            CastOp::FpToUi => {
                if to <= 16 {
                    let r = ok(self.pool.fp_to_sbv(a, 32));
                    return self.resize(r, 32, to, false);
                }
                if to <= 32 {
                    let r = ok(self.pool.fp_to_sbv(a, 64));
                    return self.resize(r, 64, to, false);
                }
                // Values from 2^63 up are converted less 2^63, with the top
                // bit set back (`comisd` sends NaN to the plain path).
                let f = ok(self.pool.fp_conv(a, 64));
                let two63 = self.bv(9223372036854775808f64.to_bits(), 64);
                let big = ok(self.pool.fp_cmp(FpCmpOp::Le, two63, f));
                let less = ok(self.pool.fp_bin(FpBinOp::Sub, f, two63));
                let high = ok(self.pool.fp_to_sbv(less, 64));
                let top = self.bv(1u64 << 63, 64);
                let high = ok(self.pool.binop(BvBinOp::Xor, high, top));
                let low = ok(self.pool.fp_to_sbv(f, 64));
                let r = self.ite(big, high, low);
                self.resize(r, 64, to, false)
            }
            // Bits reinterpreted: floats are their bits already.
            CastOp::Bitcast => self.resize(a, from, to, false),
            _ => self.cast(op, from, to, a),
        }
    }
}
