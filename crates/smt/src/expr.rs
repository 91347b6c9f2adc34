//! The expression DAG: a hash-consed arena of bit-vector, Boolean and array
//! terms with simplifying constructors.
//!
//! Every constructor looks its node up before adding it, so structurally
//! equal terms share one [`ExprId`]. The solver layers rely on that: a
//! query's identity is the set of its constraint ids, and two queries that
//! mean the same after the rewrites below hit the same cache entry.
//!
//! The constructors fold constants with [`crate::fold`] (exact SMT-LIB
//! semantics) and apply a fixed list of local identities (`x + 0`, `x ^ x`,
//! select over store, ...). Each rewrite must hold for every assignment,
//! including division by zero and out-of-range shifts; the unit tests check
//! them against a separate reference on random inputs.
//!
//! Constructors return [`ExprError`] for ill-sorted arguments instead of
//! panicking: a symbolic engine that mistypes an operand loses one path,
//! not the whole run.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::fold::{self, mask, BvBinOp, BvUnOp, CmpOp};
use crate::hash::FxHashMap;

/// The widest bit-vector the pool represents (values are stored as `u128`).
pub const MAX_WIDTH: u32 = 128;

/// A node of an [`ExprPool`]; only meaningful for the pool that made it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(u32);

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

/// Conjunctions and disjunctions with more children than this get their
/// leaf set in one pass over the children's sets, not by pairwise unions.
const WIDE_JUNCTION: usize = 8;

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
            Node::Bool(_)
            | Node::Bv { .. }
            | Node::Var { .. }
            | Node::ArrayVar { .. }
            | Node::ConstArray { .. } => fixed([none; 3], 0),
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
            Node::Store {
                array,
                index,
                value,
            } => fixed([*array, *index, *value], 3),
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

pub(crate) type R = Result<ExprId, ExprError>;

struct SymbolInfo {
    name: String,
    width: u32,
    expr: ExprId,
}

struct ArrayInfo {
    name: String,
    index_width: u32,
    expr: ExprId,
}

static NEXT_POOL_UID: AtomicU64 = AtomicU64::new(1);

/// The arena of expressions. Nodes are never removed, so an id stays valid
/// (and means the same term) for the pool's whole life.
pub struct ExprPool {
    // Lets solvers that keep per-node state notice a different pool.
    uid: u64,
    nodes: Vec<Node>,
    sorts: Vec<Sort>,
    leaf_set_of: Vec<u32>,
    intern: FxHashMap<Node, ExprId>,
    // Many nodes depend on the same few symbols, so the sets are interned
    // and each node stores only a set number; set 0 is the empty set.
    leaf_sets: Vec<Box<[Leaf]>>,
    leaf_set_ids: FxHashMap<Box<[Leaf]>, u32>,
    leaf_unions: FxHashMap<(u32, u32), u32>,
    symbols: Vec<SymbolInfo>,
    arrays: Vec<ArrayInfo>,
    true_id: ExprId,
    false_id: ExprId,
}

impl Default for ExprPool {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ExprPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExprPool")
            .field("nodes", &self.nodes.len())
            .field("symbols", &self.symbols.len())
            .field("arrays", &self.arrays.len())
            .finish()
    }
}

impl ExprPool {
    /// An empty pool holding only `true` and `false`.
    pub fn new() -> Self {
        let empty: Box<[Leaf]> = Box::new([]);
        let mut leaf_set_ids = FxHashMap::default();
        leaf_set_ids.insert(empty.clone(), 0);
        let mut pool = ExprPool {
            uid: NEXT_POOL_UID.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            sorts: Vec::new(),
            leaf_set_of: Vec::new(),
            intern: FxHashMap::default(),
            leaf_sets: vec![empty],
            leaf_set_ids,
            leaf_unions: FxHashMap::default(),
            symbols: Vec::new(),
            arrays: Vec::new(),
            true_id: ExprId(0),
            false_id: ExprId(1),
        };
        // Two nodes in an empty pool always fit.
        pool.true_id = pool
            .intern(Node::Bool(true), Sort::Bool)
            .unwrap_or(ExprId(0));
        pool.false_id = pool
            .intern(Node::Bool(false), Sort::Bool)
            .unwrap_or(ExprId(1));
        pool
    }

    /// A number no other pool in this process has; solvers that cache
    /// per-node data use it to tell pools apart.
    pub fn uid(&self) -> u64 {
        self.uid
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the pool has no nodes (never: `true` and `false` are built in).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node behind an id. Ids from another pool may panic or alias.
    pub fn get(&self, id: ExprId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The sort of an expression.
    pub fn sort(&self, id: ExprId) -> Sort {
        self.sorts[id.index()]
    }

    /// The width of a bit-vector expression, `None` for other sorts.
    pub fn width(&self, id: ExprId) -> Option<u32> {
        match self.sort(id) {
            Sort::BitVec(w) => Some(w),
            _ => None,
        }
    }

    /// The symbols and arrays an expression depends on, sorted.
    pub fn symbols_of(&self, id: ExprId) -> &[Leaf] {
        &self.leaf_sets[self.leaf_set_of[id.index()] as usize]
    }

    /// The value of a bit-vector constant.
    pub fn as_bv_const(&self, id: ExprId) -> Option<u128> {
        match self.get(id) {
            Node::Bv { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// The value of a Boolean constant.
    pub fn as_bool_const(&self, id: ExprId) -> Option<bool> {
        match self.get(id) {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Name given to a symbol (not necessarily unique).
    pub fn symbol_name(&self, sym: SymId) -> &str {
        &self.symbols[sym.0 as usize].name
    }

    /// Width of a symbol.
    pub fn symbol_width(&self, sym: SymId) -> u32 {
        self.symbols[sym.0 as usize].width
    }

    /// The expression standing for a symbol.
    pub fn symbol_expr(&self, sym: SymId) -> ExprId {
        self.symbols[sym.0 as usize].expr
    }

    /// Number of symbols made so far; their ids are `0..n`.
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    /// Name given to an array (not necessarily unique).
    pub fn array_name(&self, array: ArrayId) -> &str {
        &self.arrays[array.0 as usize].name
    }

    /// Index width of an array.
    pub fn array_index_width(&self, array: ArrayId) -> u32 {
        self.arrays[array.0 as usize].index_width
    }

    /// The expression standing for an array.
    pub fn array_expr(&self, array: ArrayId) -> ExprId {
        self.arrays[array.0 as usize].expr
    }

    /// Number of arrays made so far; their ids are `0..n`.
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }

    // ----- storage -------------------------------------------------------

    pub(crate) fn intern(&mut self, node: Node, sort: Sort) -> R {
        if let Some(&id) = self.intern.get(&node) {
            return Ok(id);
        }
        let n = u32::try_from(self.nodes.len()).map_err(|_| ExprError::PoolFull)?;
        if n == u32::MAX {
            return Err(ExprError::PoolFull);
        }
        let id = ExprId(n);
        let leaves = match &node {
            Node::Var { sym, .. } => self.leaf_set(Box::new([Leaf::Sym(*sym)])),
            Node::ArrayVar { array, .. } => self.leaf_set(Box::new([Leaf::Array(*array)])),
            Node::And(xs) | Node::Or(xs) if xs.len() > WIDE_JUNCTION => self.wide_union(xs),
            other => {
                let mut acc = 0;
                for c in other.children() {
                    let s = self.leaf_set_of[c.index()];
                    acc = self.leaf_union(acc, s);
                }
                acc
            }
        };
        self.nodes.push(node.clone());
        self.sorts.push(sort);
        self.leaf_set_of.push(leaves);
        self.intern.insert(node, id);
        Ok(id)
    }

    fn leaf_set(&mut self, set: Box<[Leaf]>) -> u32 {
        if let Some(&s) = self.leaf_set_ids.get(&set) {
            return s;
        }
        // More distinct sets than nodes is impossible, and nodes fit in u32.
        let s = self.leaf_sets.len() as u32;
        self.leaf_sets.push(set.clone());
        self.leaf_set_ids.insert(set, s);
        s
    }

    /// The union of the leaf sets of many children at once. Folding them
    /// pairwise stores every intermediate set: on a disjunction of 10,000
    /// path conditions over 5,000 inputs that was 2 s and hundreds of MB;
    /// marking leaves in bit sets is linear in the children's sets.
    fn wide_union(&mut self, xs: &[ExprId]) -> u32 {
        let mut ids: Vec<u32> = xs.iter().map(|c| self.leaf_set_of[c.index()]).filter(|&s| s != 0).collect();
        ids.sort_unstable();
        ids.dedup();
        match ids.len() {
            0 => return 0,
            1 => return ids[0],
            _ => {}
        }
        let mut syms = vec![false; self.symbols.len()];
        let mut arrays = vec![false; self.arrays.len()];
        for &id in &ids {
            for leaf in self.leaf_sets[id as usize].iter() {
                match *leaf {
                    Leaf::Sym(s) => syms[s.0 as usize] = true,
                    Leaf::Array(a) => arrays[a.0 as usize] = true,
                }
            }
        }
        // In `Leaf`'s order: symbols, then arrays, each by number.
        let set: Box<[Leaf]> = syms
            .iter()
            .enumerate()
            .filter(|(_, &on)| on)
            .map(|(i, _)| Leaf::Sym(SymId(i as u32)))
            .chain(arrays.iter().enumerate().filter(|(_, &on)| on).map(|(i, _)| Leaf::Array(ArrayId(i as u32))))
            .collect();
        self.leaf_set(set)
    }

    fn leaf_union(&mut self, a: u32, b: u32) -> u32 {
        if a == b || b == 0 {
            return a;
        }
        if a == 0 {
            return b;
        }
        let key = (a.min(b), a.max(b));
        if let Some(&s) = self.leaf_unions.get(&key) {
            return s;
        }
        let (x, y) = (&self.leaf_sets[a as usize], &self.leaf_sets[b as usize]);
        let mut merged = Vec::with_capacity(x.len() + y.len());
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => {
                    merged.push(x[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    merged.push(y[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    merged.push(x[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        merged.extend_from_slice(&x[i..]);
        merged.extend_from_slice(&y[j..]);
        let s = self.leaf_set(merged.into_boxed_slice());
        self.leaf_unions.insert(key, s);
        s
    }

    // ----- sort checks ---------------------------------------------------

    fn bv_width(&self, op: &'static str, id: ExprId) -> Result<u32, ExprError> {
        match self.sort(id) {
            Sort::BitVec(w) => Ok(w),
            found => Err(ExprError::SortMismatch {
                op,
                expected: "a bit-vector",
                found,
            }),
        }
    }

    fn expect_bool(&self, op: &'static str, id: ExprId) -> Result<(), ExprError> {
        match self.sort(id) {
            Sort::Bool => Ok(()),
            found => Err(ExprError::SortMismatch {
                op,
                expected: "Bool",
                found,
            }),
        }
    }

    fn same_bv(&self, op: &'static str, a: ExprId, b: ExprId) -> Result<u32, ExprError> {
        let wa = self.bv_width(op, a)?;
        let wb = self.bv_width(op, b)?;
        if wa != wb {
            return Err(ExprError::Mismatch {
                op,
                left: Sort::BitVec(wa),
                right: Sort::BitVec(wb),
            });
        }
        Ok(wa)
    }

    fn array_index_width_of(&self, op: &'static str, id: ExprId) -> Result<u32, ExprError> {
        match self.sort(id) {
            Sort::Array { index_width } => Ok(index_width),
            found => Err(ExprError::SortMismatch {
                op,
                expected: "an array",
                found,
            }),
        }
    }

    // ----- leaves --------------------------------------------------------

    /// `true`.
    pub fn tt(&self) -> ExprId {
        self.true_id
    }

    /// `false`.
    pub fn ff(&self) -> ExprId {
        self.false_id
    }

    /// A Boolean constant.
    pub fn bool_const(&self, b: bool) -> ExprId {
        if b {
            self.true_id
        } else {
            self.false_id
        }
    }

    /// A bit-vector constant; bits of `value` above `width` are dropped,
    /// so `-1i64 as u128` gives all ones at any width.
    pub fn bv_const(&mut self, width: u32, value: u128) -> R {
        check_width(width)?;
        self.intern(
            Node::Bv {
                width,
                value: value & mask(width),
            },
            Sort::BitVec(width),
        )
    }

    /// A fresh bit-vector symbol, distinct from every other even if the
    /// name repeats.
    pub fn new_symbol(&mut self, name: &str, width: u32) -> Result<(SymId, ExprId), ExprError> {
        check_width(width)?;
        let sym = SymId(u32::try_from(self.symbols.len()).map_err(|_| ExprError::PoolFull)?);
        let expr = self.intern(Node::Var { sym, width }, Sort::BitVec(width))?;
        self.symbols.push(SymbolInfo {
            name: name.to_string(),
            width,
            expr,
        });
        Ok((sym, expr))
    }

    /// A fresh symbolic byte array indexed by `index_width` (32 or 64) bits.
    pub fn new_array(
        &mut self,
        name: &str,
        index_width: u32,
    ) -> Result<(ArrayId, ExprId), ExprError> {
        check_index_width(index_width)?;
        let array = ArrayId(u32::try_from(self.arrays.len()).map_err(|_| ExprError::PoolFull)?);
        let expr = self.intern(
            Node::ArrayVar { array, index_width },
            Sort::Array { index_width },
        )?;
        self.arrays.push(ArrayInfo {
            name: name.to_string(),
            index_width,
            expr,
        });
        Ok((array, expr))
    }

    /// An array holding `value` at every index.
    pub fn const_array(&mut self, index_width: u32, value: u8) -> R {
        check_index_width(index_width)?;
        self.intern(
            Node::ConstArray { index_width, value },
            Sort::Array { index_width },
        )
    }

    // ----- Booleans ------------------------------------------------------

    /// `¬a`. Negated comparisons become the opposite comparison, so a
    /// branch condition and its negation are both plain comparisons.
    pub fn not(&mut self, a: ExprId) -> R {
        self.expect_bool("not", a)?;
        match *self.get(a) {
            Node::Bool(b) => Ok(self.bool_const(!b)),
            Node::Not(x) => Ok(x),
            Node::Cmp(op, x, y) => {
                let flipped = match op {
                    CmpOp::Ult => CmpOp::Ule,
                    CmpOp::Ule => CmpOp::Ult,
                    CmpOp::Slt => CmpOp::Sle,
                    CmpOp::Sle => CmpOp::Slt,
                };
                self.cmp(flipped, y, x)
            }
            _ => self.intern(Node::Not(a), Sort::Bool),
        }
    }

    /// Conjunction of any number of Booleans (`true` for none).
    pub fn and(&mut self, args: &[ExprId]) -> R {
        self.junction(args, true)
    }

    /// Disjunction of any number of Booleans (`false` for none).
    pub fn or(&mut self, args: &[ExprId]) -> R {
        self.junction(args, false)
    }

    /// `a ∧ b`.
    pub fn and2(&mut self, a: ExprId, b: ExprId) -> R {
        self.junction(&[a, b], true)
    }

    /// `a ∨ b`.
    pub fn or2(&mut self, a: ExprId, b: ExprId) -> R {
        self.junction(&[a, b], false)
    }

    /// `a → b`, built as `¬a ∨ b`.
    pub fn implies(&mut self, a: ExprId, b: ExprId) -> R {
        self.expect_bool("implies", a)?;
        let na = self.not(a)?;
        self.or2(na, b)
    }

    /// Boolean exclusive or, built as `¬(a = b)`.
    pub fn xor(&mut self, a: ExprId, b: ExprId) -> R {
        self.expect_bool("xor", a)?;
        self.expect_bool("xor", b)?;
        let e = self.eq(a, b)?;
        self.not(e)
    }

    // `is_and` picks the operator; its absorbing constant is `!is_and`.
    fn junction(&mut self, args: &[ExprId], is_and: bool) -> R {
        let op = if is_and { "and" } else { "or" };
        let mut out: Vec<ExprId> = Vec::with_capacity(args.len());
        for &a in args {
            self.expect_bool(op, a)?;
            match self.get(a) {
                Node::Bool(b) if *b == is_and => {}
                Node::Bool(_) => return Ok(self.bool_const(!is_and)),
                Node::And(xs) if is_and => out.extend_from_slice(xs),
                Node::Or(xs) if !is_and => out.extend_from_slice(xs),
                _ => out.push(a),
            }
        }
        out.sort_unstable();
        out.dedup();
        // `x` together with `¬x` decides the junction.
        for &e in &out {
            if let Node::Not(x) = self.get(e) {
                if out.binary_search(x).is_ok() {
                    return Ok(self.bool_const(!is_and));
                }
            }
        }
        match out.len() {
            0 => Ok(self.bool_const(is_and)),
            1 => Ok(out[0]),
            _ => {
                let xs = out.into_boxed_slice();
                let node = if is_and { Node::And(xs) } else { Node::Or(xs) };
                self.intern(node, Sort::Bool)
            }
        }
    }

    /// Equality of two Booleans or two bit-vectors of one width. (An
    /// array compared with itself is `true`; other array equalities are
    /// refused, since the backend reads arrays only through `select`.)
    pub fn eq(&mut self, a: ExprId, b: ExprId) -> R {
        let (sa, sb) = (self.sort(a), self.sort(b));
        if sa != sb {
            return Err(ExprError::Mismatch {
                op: "=",
                left: sa,
                right: sb,
            });
        }
        if a == b {
            return Ok(self.true_id);
        }
        match sa {
            Sort::Array { .. } => Err(ExprError::SortMismatch {
                op: "=",
                expected: "Bool or a bit-vector",
                found: sa,
            }),
            Sort::Bool => {
                let (a, b) = self.order_const_right(a, b, |p, id| p.as_bool_const(id).is_some());
                match (self.as_bool_const(a), self.as_bool_const(b)) {
                    (Some(x), Some(y)) => Ok(self.bool_const(x == y)),
                    (_, Some(true)) => Ok(a),
                    (_, Some(false)) => self.not(a),
                    _ => self.intern(Node::Eq(a, b), Sort::Bool),
                }
            }
            Sort::BitVec(w) => {
                let (a, b) = self.order_const_right(a, b, |p, id| p.as_bv_const(id).is_some());
                let Some(c) = self.as_bv_const(b) else {
                    return self.intern(Node::Eq(a, b), Sort::Bool);
                };
                if self.as_bv_const(a).is_some() {
                    // Equal constants are one node, caught by `a == b`.
                    return Ok(self.false_id);
                }
                self.eq_const(w, a, b, c)
            }
        }
    }

    // `a = c` for a non-constant `a`: peel invertible operators off `a`
    // so the constraint ends up on the symbol itself.
    fn eq_const(&mut self, w: u32, a: ExprId, b: ExprId, c: u128) -> R {
        match self.get(a).clone() {
            Node::BvBin(BvBinOp::Add, x, k) if self.as_bv_const(k).is_some() => {
                let kv = self.as_bv_const(k).unwrap_or(0);
                let c2 = self.bv_const(w, c.wrapping_sub(kv))?;
                self.eq(x, c2)
            }
            Node::BvBin(BvBinOp::Xor, x, k) if self.as_bv_const(k).is_some() => {
                let kv = self.as_bv_const(k).unwrap_or(0);
                let c2 = self.bv_const(w, c ^ kv)?;
                self.eq(x, c2)
            }
            Node::BvUn(op, x) => {
                let c2 = self.bv_const(w, fold::un(op, w, c))?;
                self.eq(x, c2)
            }
            Node::ZExt { arg, .. } => {
                let wx = self.bv_width("=", arg)?;
                if c >> wx != 0 {
                    return Ok(self.false_id);
                }
                let c2 = self.bv_const(wx, c)?;
                self.eq(arg, c2)
            }
            Node::SExt { arg, .. } => {
                let wx = self.bv_width("=", arg)?;
                let low = c & mask(wx);
                if fold::sext(wx, w, low) != c {
                    return Ok(self.false_id);
                }
                let c2 = self.bv_const(wx, low)?;
                self.eq(arg, c2)
            }
            Node::Concat(h, l) => {
                let wl = self.bv_width("=", l)?;
                let wh = w - wl;
                let ch = self.bv_const(wh, c >> wl)?;
                let cl = self.bv_const(wl, c)?;
                let eh = self.eq(h, ch)?;
                let el = self.eq(l, cl)?;
                self.and2(eh, el)
            }
            _ => self.intern(Node::Eq(a, b), Sort::Bool),
        }
    }

    /// `¬(a = b)`.
    pub fn ne(&mut self, a: ExprId, b: ExprId) -> R {
        let e = self.eq(a, b)?;
        self.not(e)
    }

    /// If-then-else on Booleans, bit-vectors or arrays (an array
    /// if-then-else is the memory of whichever path was taken; `select`
    /// and the evaluator look through it).
    pub fn ite(&mut self, cond: ExprId, then: ExprId, els: ExprId) -> R {
        self.expect_bool("ite", cond)?;
        let (st, se) = (self.sort(then), self.sort(els));
        if st != se {
            return Err(ExprError::Mismatch {
                op: "ite",
                left: st,
                right: se,
            });
        }
        if let Some(c) = self.as_bool_const(cond) {
            return Ok(if c { then } else { els });
        }
        if then == els {
            return Ok(then);
        }
        if let Node::Not(c) = *self.get(cond) {
            return self.ite(c, els, then);
        }
        if st == Sort::Bool {
            match (self.as_bool_const(then), self.as_bool_const(els)) {
                (Some(true), Some(false)) => return Ok(cond),
                (Some(false), Some(true)) => return self.not(cond),
                (Some(true), _) => return self.or2(cond, els),
                (Some(false), _) => {
                    let nc = self.not(cond)?;
                    return self.and2(nc, els);
                }
                (_, Some(true)) => {
                    let nc = self.not(cond)?;
                    return self.or2(nc, then);
                }
                (_, Some(false)) => return self.and2(cond, then),
                _ => {}
            }
        }
        self.intern(Node::Ite { cond, then, els }, st)
    }

    // ----- bit-vectors ---------------------------------------------------

    fn order_const_right(
        &self,
        a: ExprId,
        b: ExprId,
        is_const: impl Fn(&Self, ExprId) -> bool,
    ) -> (ExprId, ExprId) {
        let (ca, cb) = (is_const(self, a), is_const(self, b));
        if (ca && !cb) || (ca == cb && a > b) {
            (b, a)
        } else {
            (a, b)
        }
    }

    /// A binary bit-vector operator on two operands of one width.
    pub fn binop(&mut self, op: BvBinOp, a: ExprId, b: ExprId) -> R {
        let w = self.same_bv(op.smt_name(), a, b)?;
        if let (Some(x), Some(y)) = (self.as_bv_const(a), self.as_bv_const(b)) {
            return self.bv_const(w, fold::bin(op, w, x, y));
        }
        let (a, b) = if op.is_commutative() {
            self.order_const_right(a, b, |p, id| p.as_bv_const(id).is_some())
        } else {
            (a, b)
        };
        let (ca, cb) = (self.as_bv_const(a), self.as_bv_const(b));
        let ones = mask(w);
        match op {
            BvBinOp::Add => {
                if cb == Some(0) {
                    return Ok(a);
                }
                if let (Node::BvBin(BvBinOp::Add, x, k), Some(c2)) = (self.get(a).clone(), cb) {
                    if let Some(c1) = self.as_bv_const(k) {
                        let k2 = self.bv_const(w, c1.wrapping_add(c2))?;
                        return self.binop(BvBinOp::Add, x, k2);
                    }
                }
            }
            BvBinOp::Sub => {
                if a == b {
                    return self.bv_const(w, 0);
                }
                if let Some(c) = cb {
                    // `x - c` is `x + (-c)`, so constant chains merge in add.
                    let k = self.bv_const(w, c.wrapping_neg())?;
                    return self.binop(BvBinOp::Add, a, k);
                }
            }
            BvBinOp::Mul => match cb {
                Some(0) => return Ok(b),
                Some(1) => return Ok(a),
                _ => {}
            },
            BvBinOp::UDiv => match cb {
                Some(0) => return self.bv_const(w, ones),
                Some(1) => return Ok(a),
                _ => {}
            },
            BvBinOp::SDiv => {
                if cb == Some(1) {
                    return Ok(a);
                }
            }
            BvBinOp::URem | BvBinOp::SRem => {
                if cb == Some(0) {
                    return Ok(a);
                }
                // x rem x is 0 for x ≠ 0, and x itself (also 0) for x = 0.
                if cb == Some(1) || a == b {
                    return self.bv_const(w, 0);
                }
            }
            BvBinOp::Shl | BvBinOp::LShr => {
                if cb == Some(0) || ca == Some(0) {
                    return Ok(a);
                }
                if matches!(cb, Some(s) if s >= u128::from(w)) {
                    return self.bv_const(w, 0);
                }
            }
            BvBinOp::AShr => {
                if cb == Some(0) || ca == Some(0) || ca == Some(ones) {
                    return Ok(a);
                }
            }
            BvBinOp::And => {
                if cb == Some(0) {
                    return Ok(b);
                }
                if cb == Some(ones) || a == b {
                    return Ok(a);
                }
            }
            BvBinOp::Or => {
                if cb == Some(ones) {
                    return Ok(b);
                }
                if cb == Some(0) || a == b {
                    return Ok(a);
                }
            }
            BvBinOp::Xor => {
                if cb == Some(0) {
                    return Ok(a);
                }
                if a == b {
                    return self.bv_const(w, 0);
                }
                if cb == Some(ones) {
                    return self.unop(BvUnOp::Not, a);
                }
            }
        }
        self.intern(Node::BvBin(op, a, b), Sort::BitVec(w))
    }

    /// A unary bit-vector operator.
    pub fn unop(&mut self, op: BvUnOp, a: ExprId) -> R {
        let w = self.bv_width(op.smt_name(), a)?;
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(w, fold::un(op, w, x));
        }
        if let Node::BvUn(inner, x) = *self.get(a) {
            if inner == op {
                return Ok(x);
            }
        }
        self.intern(Node::BvUn(op, a), Sort::BitVec(w))
    }

    /// A comparison of two bit-vectors of one width.
    pub fn cmp(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> R {
        let w = self.same_bv(op.smt_name(), a, b)?;
        let (ca, cb) = (self.as_bv_const(a), self.as_bv_const(b));
        if let (Some(x), Some(y)) = (ca, cb) {
            return Ok(self.bool_const(fold::cmp(op, w, x, y)));
        }
        let ones = mask(w);
        let smin = 1u128 << (w - 1);
        let smax = smin.wrapping_sub(1) & ones;
        let known = match op {
            _ if a == b => Some(matches!(op, CmpOp::Ule | CmpOp::Sle)),
            CmpOp::Ult if cb == Some(0) || ca == Some(ones) => Some(false),
            CmpOp::Ule if ca == Some(0) || cb == Some(ones) => Some(true),
            CmpOp::Slt if cb == Some(smin) || ca == Some(smax) => Some(false),
            CmpOp::Sle if ca == Some(smin) || cb == Some(smax) => Some(true),
            _ => None,
        };
        if let Some(k) = known {
            return Ok(self.bool_const(k));
        }
        self.intern(Node::Cmp(op, a, b), Sort::Bool)
    }

    /// Zero extension to `to` bits (`to` ≥ the operand's width).
    pub fn zext(&mut self, a: ExprId, to: u32) -> R {
        let w = self.bv_width("zero_extend", a)?;
        if to < w || to > MAX_WIDTH {
            return Err(ExprError::BadExtend {
                op: "zero_extend",
                from: w,
                to,
            });
        }
        if to == w {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, x);
        }
        if let Node::ZExt { arg, .. } = *self.get(a) {
            return self.zext(arg, to);
        }
        self.intern(Node::ZExt { arg: a, width: to }, Sort::BitVec(to))
    }

    /// Sign extension to `to` bits (`to` ≥ the operand's width).
    pub fn sext(&mut self, a: ExprId, to: u32) -> R {
        let w = self.bv_width("sign_extend", a)?;
        if to < w || to > MAX_WIDTH {
            return Err(ExprError::BadExtend {
                op: "sign_extend",
                from: w,
                to,
            });
        }
        if to == w {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, fold::sext(w, to, x));
        }
        match *self.get(a) {
            Node::SExt { arg, .. } => return self.sext(arg, to),
            // A strict zero extension has a clear sign bit.
            Node::ZExt { arg, .. } => return self.zext(arg, to),
            _ => {}
        }
        self.intern(Node::SExt { arg: a, width: to }, Sort::BitVec(to))
    }

    /// Bits `hi` down to `lo` of `a`.
    pub fn extract(&mut self, a: ExprId, hi: u32, lo: u32) -> R {
        let w = self.bv_width("extract", a)?;
        if lo > hi || hi >= w {
            return Err(ExprError::BadExtract { hi, lo, width: w });
        }
        let n = hi - lo + 1;
        if n == w {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(n, fold::extract(hi, lo, x));
        }
        match *self.get(a) {
            Node::Extract { arg, lo: lo2, .. } => return self.extract(arg, hi + lo2, lo + lo2),
            Node::Concat(h, l) => {
                let wl = self.bv_width("extract", l)?;
                if hi < wl {
                    return self.extract(l, hi, lo);
                }
                if lo >= wl {
                    return self.extract(h, hi - wl, lo - wl);
                }
                let top = self.extract(h, hi - wl, 0)?;
                let bottom = self.extract(l, wl - 1, lo)?;
                return self.concat(top, bottom);
            }
            Node::ZExt { arg, .. } => {
                let wy = self.bv_width("extract", arg)?;
                if hi < wy {
                    return self.extract(arg, hi, lo);
                }
                if lo >= wy {
                    return self.bv_const(n, 0);
                }
                let part = self.extract(arg, wy - 1, lo)?;
                return self.zext(part, n);
            }
            Node::SExt { arg, .. } => {
                let wy = self.bv_width("extract", arg)?;
                if hi < wy {
                    return self.extract(arg, hi, lo);
                }
            }
            _ => {}
        }
        self.intern(Node::Extract { arg: a, hi, lo }, Sort::BitVec(n))
    }

    /// `hi` placed above `lo`; the widths must add up to at most 128.
    pub fn concat(&mut self, hi: ExprId, lo: ExprId) -> R {
        let wh = self.bv_width("concat", hi)?;
        let wl = self.bv_width("concat", lo)?;
        let w = wh + wl;
        check_width(w)?;
        let (ch, cl) = (self.as_bv_const(hi), self.as_bv_const(lo));
        if let (Some(x), Some(y)) = (ch, cl) {
            return self.bv_const(w, fold::concat(wl, x, y));
        }
        if ch == Some(0) {
            return self.zext(lo, w);
        }
        if let (
            Node::Extract {
                arg: a1,
                hi: h1,
                lo: l1,
            },
            Node::Extract {
                arg: a2,
                hi: h2,
                lo: l2,
            },
        ) = (self.get(hi), self.get(lo))
        {
            if a1 == a2 && *l1 == h2 + 1 {
                let (a, h, l) = (*a1, *h1, *l2);
                return self.extract(a, h, l);
            }
        }
        self.intern(Node::Concat(hi, lo), Sort::BitVec(w))
    }

    /// The byte of `array` at `index`. Stores at other constant indices
    /// are skipped, a store at the same index answers directly.
    pub fn select(&mut self, array: ExprId, index: ExprId) -> R {
        let iw = self.array_index_width_of("select", array)?;
        let w = self.bv_width("select", index)?;
        if w != iw {
            return Err(ExprError::Mismatch {
                op: "select",
                left: Sort::BitVec(iw),
                right: Sort::BitVec(w),
            });
        }
        let ci = self.as_bv_const(index);
        let mut cur = array;
        loop {
            match *self.get(cur) {
                Node::Store {
                    array: inner,
                    index: j,
                    value,
                } => {
                    if j == index {
                        return Ok(value);
                    }
                    match (ci, self.as_bv_const(j)) {
                        (Some(x), Some(y)) if x != y => cur = inner,
                        _ => break,
                    }
                }
                Node::ConstArray { value, .. } => return self.bv_const(8, u128::from(value)),
                _ => break,
            }
        }
        self.intern(Node::Select { array: cur, index }, Sort::BitVec(8))
    }

    /// `array` with the byte at `index` replaced by the 8-bit `value`.
    pub fn store(&mut self, array: ExprId, index: ExprId, value: ExprId) -> R {
        let iw = self.array_index_width_of("store", array)?;
        let w = self.bv_width("store", index)?;
        if w != iw {
            return Err(ExprError::Mismatch {
                op: "store",
                left: Sort::BitVec(iw),
                right: Sort::BitVec(w),
            });
        }
        let vw = self.bv_width("store", value)?;
        if vw != 8 {
            return Err(ExprError::Mismatch {
                op: "store",
                left: Sort::BitVec(8),
                right: Sort::BitVec(vw),
            });
        }
        match *self.get(array) {
            // The later store hides the earlier one at the same index.
            Node::Store {
                array: inner,
                index: j,
                ..
            } if j == index => return self.store(inner, index, value),
            _ => {}
        }
        // Writing back what is already there changes nothing.
        if let Node::Select {
            array: a2,
            index: i2,
        } = *self.get(value)
        {
            if a2 == array && i2 == index {
                return Ok(array);
            }
        }
        self.intern(
            Node::Store {
                array,
                index,
                value,
            },
            Sort::Array { index_width: iw },
        )
    }

    // ----- named shorthands ----------------------------------------------

    /// `bvadd`
    pub fn add(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Add, a, b)
    }
    /// `bvsub`
    pub fn sub(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Sub, a, b)
    }
    /// `bvmul`
    pub fn mul(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Mul, a, b)
    }
    /// `bvudiv`
    pub fn udiv(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::UDiv, a, b)
    }
    /// `bvsdiv`
    pub fn sdiv(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::SDiv, a, b)
    }
    /// `bvurem`
    pub fn urem(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::URem, a, b)
    }
    /// `bvsrem`
    pub fn srem(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::SRem, a, b)
    }
    /// `bvshl`
    pub fn shl(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Shl, a, b)
    }
    /// `bvlshr`
    pub fn lshr(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::LShr, a, b)
    }
    /// `bvashr`
    pub fn ashr(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::AShr, a, b)
    }
    /// `bvand`
    pub fn bvand(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::And, a, b)
    }
    /// `bvor`
    pub fn bvor(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Or, a, b)
    }
    /// `bvxor`
    pub fn bvxor(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Xor, a, b)
    }
    /// `bvnot`
    pub fn bvnot(&mut self, a: ExprId) -> R {
        self.unop(BvUnOp::Not, a)
    }
    /// `bvneg`
    pub fn neg(&mut self, a: ExprId) -> R {
        self.unop(BvUnOp::Neg, a)
    }
    /// `bvult`
    pub fn ult(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ult, a, b)
    }
    /// `bvule`
    pub fn ule(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ule, a, b)
    }
    /// `bvslt`
    pub fn slt(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Slt, a, b)
    }
    /// `bvsle`
    pub fn sle(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Sle, a, b)
    }
    /// `bvugt`, built as `b <u a`.
    pub fn ugt(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ult, b, a)
    }
    /// `bvuge`, built as `b ≤u a`.
    pub fn uge(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ule, b, a)
    }
    /// `bvsgt`, built as `b <s a`.
    pub fn sgt(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Slt, b, a)
    }
    /// `bvsge`, built as `b ≤s a`.
    pub fn sge(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Sle, b, a)
    }
}

fn check_width(width: u32) -> Result<(), ExprError> {
    if (1..=MAX_WIDTH).contains(&width) {
        Ok(())
    } else {
        Err(ExprError::BadWidth { width })
    }
}

fn check_index_width(width: u32) -> Result<(), ExprError> {
    if width == 32 || width == 64 {
        Ok(())
    } else {
        Err(ExprError::BadIndexWidth { width })
    }
}

impl Clone for ExprPool {
    /// A copy with a new [`ExprPool::uid`], since the two pools diverge as
    /// soon as either grows.
    fn clone(&self) -> Self {
        ExprPool {
            uid: NEXT_POOL_UID.fetch_add(1, Ordering::Relaxed),
            nodes: self.nodes.clone(),
            sorts: self.sorts.clone(),
            leaf_set_of: self.leaf_set_of.clone(),
            intern: self.intern.clone(),
            leaf_sets: self.leaf_sets.clone(),
            leaf_set_ids: self.leaf_set_ids.clone(),
            leaf_unions: self.leaf_unions.clone(),
            symbols: self
                .symbols
                .iter()
                .map(|s| SymbolInfo {
                    name: s.name.clone(),
                    width: s.width,
                    expr: s.expr,
                })
                .collect(),
            arrays: self
                .arrays
                .iter()
                .map(|a| ArrayInfo {
                    name: a.name.clone(),
                    index_width: a.index_width,
                    expr: a.expr,
                })
                .collect(),
            true_id: self.true_id,
            false_id: self.false_id,
        }
    }
}

#[cfg(test)]
mod tests;
