//! The nodes of the expression DAG: ids, sorts, the node kinds with their
//! children, and the errors of ill-sorted constructions.

use std::fmt;

use crate::fold::{BvBinOp, BvUnOp, CmpOp};

/// A node of an [`ExprPool`]; only meaningful for the pool that made it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub(super) u32);

impl ExprId {
    /// The position of the node in its pool.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for ExprId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl fmt::Display for ExprId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

/// A symbolic bit-vector input, made by [`ExprPool::new_symbol`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymId(pub u32);

/// A symbolic byte array, made by [`ExprPool::new_array`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArrayId(pub u32);

/// Something a model gives a value to: a bit-vector symbol or an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Leaf {
    /// A bit-vector symbol.
    Sym(SymId),
    /// A byte array.
    Array(ArrayId),
}

/// The sort of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    /// Booleans.
    Bool,
    /// Bit-vectors of the given width, `1..=128`.
    BitVec(u32),
    /// Arrays from `BitVec(index_width)` to `BitVec(8)`; `index_width` is 32 or 64.
    Array {
        /// Width of the index.
        index_width: u32,
    },
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => write!(f, "Bool"),
            Sort::BitVec(w) => write!(f, "(_ BitVec {w})"),
            Sort::Array { index_width } => {
                write!(f, "(Array (_ BitVec {index_width}) (_ BitVec 8))")
            }
        }
    }
}

/// One node of the DAG. Operands are ids into the same pool.
///
/// Derived operators (`ugt`, `implies`, Boolean `xor`, `ne`, ...) have no
/// node of their own; their constructors build them from these.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A Boolean constant.
    Bool(bool),
    /// A bit-vector constant; `value` has no bits above `width`.
    Bv {
        /// Width in bits.
        width: u32,
        /// The value.
        value: u128,
    },
    /// A bit-vector symbol.
    Var {
        /// The symbol.
        sym: SymId,
        /// Its width.
        width: u32,
    },
    /// A symbolic byte array.
    ArrayVar {
        /// The array.
        array: ArrayId,
        /// Width of its index.
        index_width: u32,
    },
    /// An array holding `value` at every index.
    ConstArray {
        /// Width of its index.
        index_width: u32,
        /// The byte at every index.
        value: u8,
    },
    /// Boolean negation.
    Not(ExprId),
    /// Conjunction of two or more Booleans, sorted by id, without duplicates.
    And(Box<[ExprId]>),
    /// Disjunction of two or more Booleans, sorted by id, without duplicates.
    Or(Box<[ExprId]>),
    /// If-then-else on Booleans or bit-vectors.
    Ite {
        /// The Boolean condition.
        cond: ExprId,
        /// Value when `cond` holds.
        then: ExprId,
        /// Value otherwise.
        els: ExprId,
    },
    /// Equality of two Booleans or two bit-vectors of one width.
    Eq(ExprId, ExprId),
    /// A unary bit-vector operator.
    BvUn(BvUnOp, ExprId),
    /// A binary bit-vector operator; for commutative ones a constant
    /// operand is on the right.
    BvBin(BvBinOp, ExprId, ExprId),
    /// A bit-vector comparison.
    Cmp(CmpOp, ExprId, ExprId),
    /// Zero extension to `width` bits.
    ZExt {
        /// The operand.
        arg: ExprId,
        /// The result width.
        width: u32,
    },
    /// Sign extension to `width` bits.
    SExt {
        /// The operand.
        arg: ExprId,
        /// The result width.
        width: u32,
    },
    /// Bits `hi` down to `lo` (inclusive) of `arg`.
    Extract {
        /// The operand.
        arg: ExprId,
        /// Highest bit kept.
        hi: u32,
        /// Lowest bit kept.
        lo: u32,
    },
    /// `hi` placed above `lo`.
    Concat(ExprId, ExprId),
    /// An IEEE-754 operation on two floats of one width (see `crate::float`).
    FpBin(crate::float::FpBinOp, ExprId, ExprId),
    /// An IEEE-754 comparison of two floats of one width.
    FpCmp(crate::float::FpCmpOp, ExprId, ExprId),
    /// A float converted to another width (32 or 64 bits).
    FpConv {
        /// The operand.
        arg: ExprId,
        /// The result width.
        width: u32,
    },
    /// A float truncated to a signed integer the x86 way.
    FpToSbv {
        /// The operand.
        arg: ExprId,
        /// The result width (32 or 64).
        width: u32,
    },
    /// An integer rounded to a float.
    BvToFp {
        /// The operand.
        arg: ExprId,
        /// The result width (32 or 64).
        width: u32,
        /// Whether the operand is read as signed.
        signed: bool,
    },
    /// The byte of `array` at `index`.
    Select {
        /// The array.
        array: ExprId,
        /// The index.
        index: ExprId,
    },
    /// `array` with the byte at `index` replaced by `value`.
    Store {
        /// The array.
        array: ExprId,
        /// The index.
        index: ExprId,
        /// The new byte.
        value: ExprId,
    },
}

/// The operands of a node, in order; made by [`Node::children`].
pub struct Children<'a>(ChildIter<'a>);

enum ChildIter<'a> {
    // Up to three operands held inline: the ids, the next one, how many.
    Fixed([ExprId; 3], usize, usize),
    Slice(std::slice::Iter<'a, ExprId>),
}

impl Iterator for Children<'_> {
    type Item = ExprId;
    fn next(&mut self) -> Option<ExprId> {
        match &mut self.0 {
            ChildIter::Fixed(ids, next, len) => {
                if *next < *len {
                    *next += 1;
                    Some(ids[*next - 1])
                } else {
                    None
                }
            }
            ChildIter::Slice(it) => it.next().copied(),
        }
    }
}

impl Node {
    /// The operands of the node.
    pub fn children(&self) -> Children<'_> {
        let none = ExprId(0);
        let fixed = |ids: [ExprId; 3], n| Children(ChildIter::Fixed(ids, 0, n));
        match self {
            Node::Bool(_) | Node::Bv { .. } | Node::Var { .. } | Node::ArrayVar { .. } | Node::ConstArray { .. } => {
                fixed([none; 3], 0)
            }
            Node::Not(a)
            | Node::BvUn(_, a)
            | Node::ZExt { arg: a, .. }
            | Node::SExt { arg: a, .. }
            | Node::Extract { arg: a, .. }
            | Node::FpConv { arg: a, .. }
            | Node::FpToSbv { arg: a, .. }
            | Node::BvToFp { arg: a, .. } => fixed([*a, none, none], 1),
            Node::And(xs) | Node::Or(xs) => Children(ChildIter::Slice(xs.iter())),
            Node::Eq(a, b)
            | Node::BvBin(_, a, b)
            | Node::Cmp(_, a, b)
            | Node::Concat(a, b)
            | Node::FpBin(_, a, b)
            | Node::FpCmp(_, a, b)
            | Node::Select { array: a, index: b } => fixed([*a, *b, none], 2),
            Node::Ite { cond, then, els } => fixed([*cond, *then, *els], 3),
            Node::Store { array, index, value } => fixed([*array, *index, *value], 3),
        }
    }
}

/// Why a constructor refused its arguments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    /// A bit-vector width outside `1..=128`.
    #[error("bit-vector width {width} is outside 1..=128")]
    BadWidth {
        /// The width asked for.
        width: u32,
    },
    /// An array index width other than 32 or 64.
    #[error("array index width {width} is not 32 or 64")]
    BadIndexWidth {
        /// The width asked for.
        width: u32,
    },
    /// An operand of the wrong kind of sort.
    #[error("{op}: expected {expected}, found {found}")]
    SortMismatch {
        /// The constructor.
        op: &'static str,
        /// What it needs.
        expected: &'static str,
        /// What it got.
        found: Sort,
    },
    /// Two operands that must have one sort do not.
    #[error("{op}: operand sorts differ: {left} vs {right}")]
    Mismatch {
        /// The constructor.
        op: &'static str,
        /// Sort of the first operand.
        left: Sort,
        /// Sort of the second operand.
        right: Sort,
    },
    /// An extract range outside the operand.
    #[error("extract [{hi}:{lo}] is not within a {width}-bit operand")]
    BadExtract {
        /// Highest bit asked for.
        hi: u32,
        /// Lowest bit asked for.
        lo: u32,
        /// Width of the operand.
        width: u32,
    },
    /// An extension to a width below the operand's or above 128.
    #[error("{op}: cannot extend {from} bits to {to}")]
    BadExtend {
        /// The constructor.
        op: &'static str,
        /// Width of the operand.
        from: u32,
        /// Width asked for.
        to: u32,
    },
    /// A floating-point operation on a bit-vector that is not 32 or 64 bits wide.
    #[error("{op}: a {width}-bit vector holds no float (32 or 64 bits)")]
    NotFloat {
        /// The constructor.
        op: &'static str,
        /// The width found.
        width: u32,
    },
    /// The pool has `u32::MAX` nodes or symbols already.
    #[error("expression pool is full")]
    PoolFull,
}
