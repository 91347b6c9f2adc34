//! IEEE-754 floating point over bit-vectors: binary32 values are 32-bit
//! vectors and binary64 values 64-bit vectors holding their IEEE bits, and
//! the nodes of this module read and write those bits.
//!
//! Keeping floats as bit-vectors in the pool means a model gives every
//! float input its exact bits (what a Test-Comp test spells), symbols,
//! arrays and the solver layers need nothing new, and bit casts between
//! integers and floats are free.
//!
//! The meaning of each node is the x86-64 SSE instruction the interpreter
//! runs (and gcc emits): round to nearest even; a NaN result propagates the
//! first NaN operand made quiet, else is the default NaN (sign set, quiet
//! bit set); float-to-integer conversion truncates and gives `0x80…0` for
//! NaN and out-of-range values (`cvttss2si`/`cvttsd2si`); `rem` is C's
//! `fmod`. The concrete functions here are that meaning (Rust's own float
//! operations on this machine, which the interpreter uses too); the Z3
//! backend encodes the same with the SMT-LIB floating-point theory, and a
//! test checks the two agree on special and random operands.

use crate::expr::{ExprError, ExprPool, Node, Sort, R};

/// A binary IEEE-754 operator, rounding to nearest even.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FpBinOp {
    /// Addition.
    Add,
    /// Subtraction.
    Sub,
    /// Multiplication.
    Mul,
    /// Division.
    Div,
    /// C `fmod`: `a - trunc(a / b) * b`, exact.
    Rem,
}

impl FpBinOp {
    /// The SMT-LIB-like name used when printing.
    pub fn smt_name(self) -> &'static str {
        match self {
            FpBinOp::Add => "fp.add",
            FpBinOp::Sub => "fp.sub",
            FpBinOp::Mul => "fp.mul",
            FpBinOp::Div => "fp.div",
            FpBinOp::Rem => "fmod",
        }
    }
}

/// An IEEE-754 comparison: false whenever an operand is NaN, and `-0 == +0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FpCmpOp {
    /// Less than.
    Lt,
    /// Less or equal.
    Le,
    /// Equal.
    Eq,
}

impl FpCmpOp {
    /// The SMT-LIB name.
    pub fn smt_name(self) -> &'static str {
        match self {
            FpCmpOp::Lt => "fp.lt",
            FpCmpOp::Le => "fp.leq",
            FpCmpOp::Eq => "fp.eq",
        }
    }
}

/// Whether a bit-vector of `width` bits holds a float (binary32 or binary64).
pub fn is_float_width(width: u32) -> bool {
    width == 32 || width == 64
}

fn f64_of(width: u32, bits: u128) -> f64 {
    if width == 32 {
        f64::from(f32::from_bits(bits as u32))
    } else {
        f64::from_bits(bits as u64)
    }
}

/// `op a b` on the IEEE bits of two floats of `width` bits.
///
/// NaN results are spelled out rather than left to the machine: the
/// compiler folds operations on constants with another NaN (positive)
/// than SSE computes at run time (negative), and the meaning must not
/// depend on which happened.
pub fn fp_bin(op: FpBinOp, width: u32, a: u128, b: u128) -> u128 {
    let r = if width == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match op {
            FpBinOp::Add => x + y,
            FpBinOp::Sub => x - y,
            FpBinOp::Mul => x * y,
            FpBinOp::Div => x / y,
            FpBinOp::Rem => x % y,
        };
        u128::from(r.to_bits())
    } else {
        let (x, y) = (f64::from_bits(a as u64), f64::from_bits(b as u64));
        let r = match op {
            FpBinOp::Add => x + y,
            FpBinOp::Sub => x - y,
            FpBinOp::Mul => x * y,
            FpBinOp::Div => x / y,
            FpBinOp::Rem => x % y,
        };
        u128::from(r.to_bits())
    };
    if !is_nan(width, r) {
        r
    } else if is_nan(width, a) {
        a | quiet_bit(width)
    } else if is_nan(width, b) {
        b | quiet_bit(width)
    } else {
        default_nan(width)
    }
}

/// Whether the `width`-bit float `a` is a NaN.
pub fn is_nan(width: u32, a: u128) -> bool {
    if width == 32 {
        a & 0x7fff_ffff > 0x7f80_0000
    } else {
        a & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
    }
}

/// The bit that makes a NaN quiet.
pub fn quiet_bit(width: u32) -> u128 {
    if width == 32 {
        1 << 22
    } else {
        1 << 51
    }
}

/// x86's default NaN (sign and quiet bit set), the result of an invalid
/// operation on numbers.
pub fn default_nan(width: u32) -> u128 {
    if width == 32 {
        0xffc0_0000
    } else {
        0xfff8_0000_0000_0000
    }
}

/// `op a b` on two floats of `width` bits.
pub fn fp_cmp(op: FpCmpOp, width: u32, a: u128, b: u128) -> bool {
    let (x, y) = (f64_of(width, a), f64_of(width, b));
    match op {
        FpCmpOp::Lt => x < y,
        FpCmpOp::Le => x <= y,
        FpCmpOp::Eq => x == y,
    }
}

/// A float of `from` bits converted to `to` bits (rounded to nearest
/// even; a NaN keeps its sign and top payload bits and becomes quiet).
pub fn fp_conv(from: u32, to: u32, a: u128) -> u128 {
    match (from, to) {
        (32, 64) if is_nan(32, a) => ((a >> 31) << 63) | ((a & 0x7f_ffff) << 29) | 0x7ff8_0000_0000_0000,
        (64, 32) if is_nan(64, a) => ((a >> 63) << 31) | ((a >> 29) & 0x7f_ffff) | 0x7fc0_0000,
        (32, 64) => u128::from(f64::from(f32::from_bits(a as u32)).to_bits()),
        (64, 32) => u128::from((f64::from_bits(a as u64) as f32).to_bits()),
        _ => a,
    }
}

/// A float of `from` bits truncated to a signed integer of `to` bits (32
/// or 64), `0x80…0` for NaN and values out of range.
pub fn fp_to_sbv(from: u32, to: u32, a: u128) -> u128 {
    let t = f64_of(from, a).trunc();
    if to == 32 {
        let v = if t.is_nan() || !(-2147483648.0..2147483648.0).contains(&t) { i32::MIN } else { t as i32 };
        u128::from(v as u32)
    } else {
        let v = if t.is_nan() || !(-9223372036854775808.0..9223372036854775808.0).contains(&t) {
            i64::MIN
        } else {
            t as i64
        };
        u128::from(v as u64)
    }
}

/// An integer of `from` bits (1 to 64; signed or not) rounded to a float of
/// `to` bits.
pub fn bv_to_fp(from: u32, to: u32, signed: bool, a: u128) -> u128 {
    let a = a & crate::fold::mask(from);
    if signed {
        let v = crate::fold::sext(from, 64, a) as u64 as i64;
        if to == 32 {
            u128::from((v as f32).to_bits())
        } else {
            u128::from((v as f64).to_bits())
        }
    } else {
        let v = a as u64;
        if to == 32 {
            u128::from((v as f32).to_bits())
        } else {
            u128::from((v as f64).to_bits())
        }
    }
}

impl ExprPool {
    fn float_operand(&self, op: &'static str, a: ExprId) -> Result<u32, ExprError> {
        let w = self.width(a).ok_or(ExprError::SortMismatch { op, expected: "a bit-vector", found: self.sort(a) })?;
        if !is_float_width(w) {
            return Err(ExprError::NotFloat { op, width: w });
        }
        Ok(w)
    }

    /// `op a b` on two floats of one width (see the module doc).
    pub fn fp_bin(&mut self, op: FpBinOp, a: ExprId, b: ExprId) -> R {
        let w = self.float_operand(op.smt_name(), a)?;
        let wb = self.float_operand(op.smt_name(), b)?;
        if w != wb {
            return Err(ExprError::Mismatch { op: op.smt_name(), left: Sort::BitVec(w), right: Sort::BitVec(wb) });
        }
        if let (Some(x), Some(y)) = (self.as_bv_const(a), self.as_bv_const(b)) {
            return self.bv_const(w, fp_bin(op, w, x, y));
        }
        self.intern(Node::FpBin(op, a, b), Sort::BitVec(w))
    }

    /// `op a b`, a comparison of two floats of one width.
    pub fn fp_cmp(&mut self, op: FpCmpOp, a: ExprId, b: ExprId) -> R {
        let w = self.float_operand(op.smt_name(), a)?;
        let wb = self.float_operand(op.smt_name(), b)?;
        if w != wb {
            return Err(ExprError::Mismatch { op: op.smt_name(), left: Sort::BitVec(w), right: Sort::BitVec(wb) });
        }
        if let (Some(x), Some(y)) = (self.as_bv_const(a), self.as_bv_const(b)) {
            return Ok(self.bool_const(fp_cmp(op, w, x, y)));
        }
        self.intern(Node::FpCmp(op, a, b), Sort::Bool)
    }

    /// A float converted to `to` bits (32 or 64).
    pub fn fp_conv(&mut self, a: ExprId, to: u32) -> R {
        let w = self.float_operand("fp.to_fp", a)?;
        if !is_float_width(to) {
            return Err(ExprError::NotFloat { op: "fp.to_fp", width: to });
        }
        if w == to {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, fp_conv(w, to, x));
        }
        self.intern(Node::FpConv { arg: a, width: to }, Sort::BitVec(to))
    }

    /// A float truncated to a signed integer of `to` bits (32 or 64) the
    /// x86 way (see [`fp_to_sbv`]).
    pub fn fp_to_sbv(&mut self, a: ExprId, to: u32) -> R {
        let w = self.float_operand("fp.to_sbv", a)?;
        if !is_float_width(to) {
            return Err(ExprError::BadWidth { width: to });
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, fp_to_sbv(w, to, x));
        }
        self.intern(Node::FpToSbv { arg: a, width: to }, Sort::BitVec(to))
    }

    /// An integer (1 to 64 bits) rounded to a float of `to` bits.
    pub fn bv_to_fp(&mut self, a: ExprId, to: u32, signed: bool) -> R {
        let w = self.width(a).ok_or(ExprError::SortMismatch {
            op: "to_fp",
            expected: "a bit-vector",
            found: self.sort(a),
        })?;
        if w > 64 {
            return Err(ExprError::BadWidth { width: w });
        }
        if !is_float_width(to) {
            return Err(ExprError::NotFloat { op: "to_fp", width: to });
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, bv_to_fp(w, to, signed, x));
        }
        self.intern(Node::BvToFp { arg: a, width: to, signed }, Sort::BitVec(to))
    }
}

use crate::expr::ExprId;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concrete_meaning_is_x86() {
        // 0 * inf: the default NaN, sign set.
        assert_eq!(fp_bin(FpBinOp::Mul, 32, 0, u128::from(f32::INFINITY.to_bits())), 0xffc0_0000);
        // A NaN operand propagates, made quiet.
        assert_eq!(fp_bin(FpBinOp::Add, 32, 0x7f80_0001, 0), 0x7fc0_0001);
        assert_eq!(fp_to_sbv(64, 32, u128::from(3e9f64.to_bits())), 0x8000_0000);
        assert_eq!(fp_to_sbv(32, 64, u128::from((-2.9f32).to_bits())), u128::from((-2i64) as u64));
        assert_eq!(fp_conv(32, 64, 0x7f80_0001), 0x7ff8_0000_2000_0000);
        assert_eq!(bv_to_fp(8, 32, true, 0xff), u128::from((-1f32).to_bits()));
        assert!(!fp_cmp(FpCmpOp::Eq, 64, u128::from(f64::NAN.to_bits()), u128::from(f64::NAN.to_bits())));
        assert!(fp_cmp(FpCmpOp::Eq, 64, 1 << 63, 0));
    }

    #[test]
    fn constructors_fold_constants_and_check_widths() {
        let mut p = ExprPool::new();
        let (_, x) = p.new_symbol("x", 32).unwrap();
        let (_, y) = p.new_symbol("y", 16).unwrap();
        assert!(matches!(p.fp_bin(FpBinOp::Add, x, y), Err(ExprError::NotFloat { .. })));
        let one = p.bv_const(32, u128::from(1f32.to_bits())).unwrap();
        let two = p.fp_bin(FpBinOp::Add, one, one).unwrap();
        assert_eq!(p.as_bv_const(two), Some(u128::from(2f32.to_bits())));
        let s = p.fp_bin(FpBinOp::Mul, x, two).unwrap();
        assert!(matches!(p.get(s), Node::FpBin(FpBinOp::Mul, _, _)));
        assert_eq!(p.fp_conv(x, 32).unwrap(), x);
    }
}
