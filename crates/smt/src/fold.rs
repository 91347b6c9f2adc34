//! Concrete bit-vector arithmetic with exact SMT-LIB semantics.
//!
//! The expression pool folds constants with these functions and the
//! evaluator uses them to run expressions on a model, so a disagreement
//! with Z3 here would make the pool rewrite a formula into a different one.
//! Values are `u128` holding the low `width` bits; bits above `width` are
//! ignored on input and zero on output.

/// The operators on two bit-vectors of the same width that yield a bit-vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BvBinOp {
    /// `bvadd`
    Add,
    /// `bvsub`
    Sub,
    /// `bvmul`
    Mul,
    /// `bvudiv`; division by zero gives all ones.
    UDiv,
    /// `bvsdiv`; defined through `bvudiv` on magnitudes, so `x / 0` is
    /// all ones for non-negative `x` and one for negative `x`.
    SDiv,
    /// `bvurem`; remainder by zero gives the dividend.
    URem,
    /// `bvsrem`; the sign follows the dividend, remainder by zero gives
    /// the dividend.
    SRem,
    /// `bvshl`; shifting by the width or more gives zero.
    Shl,
    /// `bvlshr`; shifting by the width or more gives zero.
    LShr,
    /// `bvashr`; shifting by the width or more fills with the sign bit.
    AShr,
    /// `bvand`
    And,
    /// `bvor`
    Or,
    /// `bvxor`
    Xor,
}

impl BvBinOp {
    /// Every operator, for tests and tables.
    pub const ALL: [BvBinOp; 13] = [
        BvBinOp::Add,
        BvBinOp::Sub,
        BvBinOp::Mul,
        BvBinOp::UDiv,
        BvBinOp::SDiv,
        BvBinOp::URem,
        BvBinOp::SRem,
        BvBinOp::Shl,
        BvBinOp::LShr,
        BvBinOp::AShr,
        BvBinOp::And,
        BvBinOp::Or,
        BvBinOp::Xor,
    ];

    /// The SMT-LIB name of the operator.
    pub fn smt_name(self) -> &'static str {
        match self {
            BvBinOp::Add => "bvadd",
            BvBinOp::Sub => "bvsub",
            BvBinOp::Mul => "bvmul",
            BvBinOp::UDiv => "bvudiv",
            BvBinOp::SDiv => "bvsdiv",
            BvBinOp::URem => "bvurem",
            BvBinOp::SRem => "bvsrem",
            BvBinOp::Shl => "bvshl",
            BvBinOp::LShr => "bvlshr",
            BvBinOp::AShr => "bvashr",
            BvBinOp::And => "bvand",
            BvBinOp::Or => "bvor",
            BvBinOp::Xor => "bvxor",
        }
    }

    /// Whether swapping the operands gives the same result.
    pub fn is_commutative(self) -> bool {
        matches!(self, BvBinOp::Add | BvBinOp::Mul | BvBinOp::And | BvBinOp::Or | BvBinOp::Xor)
    }
}

/// The operators on one bit-vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BvUnOp {
    /// `bvnot`
    Not,
    /// `bvneg`
    Neg,
}

impl BvUnOp {
    /// The SMT-LIB name of the operator.
    pub fn smt_name(self) -> &'static str {
        match self {
            BvUnOp::Not => "bvnot",
            BvUnOp::Neg => "bvneg",
        }
    }
}

/// The comparisons kept as nodes; `>` and `>=` are built by swapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    /// `bvult`
    Ult,
    /// `bvule`
    Ule,
    /// `bvslt`
    Slt,
    /// `bvsle`
    Sle,
}

impl CmpOp {
    /// Every comparison, for tests and tables.
    pub const ALL: [CmpOp; 4] = [CmpOp::Ult, CmpOp::Ule, CmpOp::Slt, CmpOp::Sle];

    /// The SMT-LIB name of the comparison.
    pub fn smt_name(self) -> &'static str {
        match self {
            CmpOp::Ult => "bvult",
            CmpOp::Ule => "bvule",
            CmpOp::Slt => "bvslt",
            CmpOp::Sle => "bvsle",
        }
    }
}

/// All ones in the low `width` bits (`width` in `1..=128`).
pub fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Whether the sign bit of a `width`-bit value is set.
pub fn msb(width: u32, v: u128) -> bool {
    (v >> (width - 1)) & 1 == 1
}

/// Sign-extends a `from`-bit value to 128 bits.
pub fn sext128(from: u128, width: u32) -> u128 {
    let v = from & mask(width);
    if width < 128 && msb(width, v) {
        v | !mask(width)
    } else {
        v
    }
}

fn neg(width: u32, v: u128) -> u128 {
    v.wrapping_neg() & mask(width)
}

fn udiv(width: u32, a: u128, b: u128) -> u128 {
    // SMT-LIB makes division total: x / 0 is all ones.
    a.checked_div(b).unwrap_or(mask(width))
}

fn urem(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        a % b
    }
}

/// Applies a binary operator to two `width`-bit values.
pub fn bin(op: BvBinOp, width: u32, a: u128, b: u128) -> u128 {
    let m = mask(width);
    let (a, b) = (a & m, b & m);
    let r = match op {
        BvBinOp::Add => a.wrapping_add(b),
        BvBinOp::Sub => a.wrapping_sub(b),
        BvBinOp::Mul => a.wrapping_mul(b),
        BvBinOp::UDiv => udiv(width, a, b),
        BvBinOp::URem => urem(a, b),
        // The SMT-LIB definitions of bvsdiv and bvsrem, case by case on the
        // operands' signs; they hold for a zero divisor too.
        BvBinOp::SDiv => match (msb(width, a), msb(width, b)) {
            (false, false) => udiv(width, a, b),
            (true, false) => neg(width, udiv(width, neg(width, a), b)),
            (false, true) => neg(width, udiv(width, a, neg(width, b))),
            (true, true) => udiv(width, neg(width, a), neg(width, b)),
        },
        BvBinOp::SRem => match (msb(width, a), msb(width, b)) {
            (false, false) => urem(a, b),
            (true, false) => neg(width, urem(neg(width, a), b)),
            (false, true) => urem(a, neg(width, b)),
            (true, true) => neg(width, urem(neg(width, a), neg(width, b))),
        },
        BvBinOp::Shl => {
            if b >= u128::from(width) {
                0
            } else {
                a << b
            }
        }
        BvBinOp::LShr => {
            if b >= u128::from(width) {
                0
            } else {
                a >> b
            }
        }
        BvBinOp::AShr => {
            let fill = msb(width, a);
            if b >= u128::from(width) {
                if fill {
                    m
                } else {
                    0
                }
            } else {
                let shifted = a >> b;
                if fill {
                    // The vacated top `b` bits of the width take the sign.
                    shifted | (m & !(m >> b))
                } else {
                    shifted
                }
            }
        }
        BvBinOp::And => a & b,
        BvBinOp::Or => a | b,
        BvBinOp::Xor => a ^ b,
    };
    r & m
}

/// Applies a unary operator to a `width`-bit value.
pub fn un(op: BvUnOp, width: u32, a: u128) -> u128 {
    match op {
        BvUnOp::Not => !a & mask(width),
        BvUnOp::Neg => neg(width, a & mask(width)),
    }
}

/// Compares two `width`-bit values.
pub fn cmp(op: CmpOp, width: u32, a: u128, b: u128) -> bool {
    let m = mask(width);
    let (a, b) = (a & m, b & m);
    // Flipping the sign bit maps signed order onto unsigned order.
    let flip = 1u128 << (width - 1);
    match op {
        CmpOp::Ult => a < b,
        CmpOp::Ule => a <= b,
        CmpOp::Slt => (a ^ flip) < (b ^ flip),
        CmpOp::Sle => (a ^ flip) <= (b ^ flip),
    }
}

/// Sign-extends a `from`-bit value to `to` bits.
pub fn sext(from: u32, to: u32, a: u128) -> u128 {
    sext128(a, from) & mask(to)
}

/// Bits `hi` down to `lo` of a value.
pub fn extract(hi: u32, lo: u32, a: u128) -> u128 {
    (a >> lo) & mask(hi - lo + 1)
}

/// `hi` above `lo`, where `lo` is `lo_width` bits wide.
pub fn concat(lo_width: u32, hi: u128, lo: u128) -> u128 {
    if lo_width >= 128 {
        lo
    } else {
        (hi << lo_width) | (lo & mask(lo_width))
    }
}
