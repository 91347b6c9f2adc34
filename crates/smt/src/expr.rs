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

mod build;
mod node;

/// The widest bit-vector the pool represents (values are stored as `u128`).
pub const MAX_WIDTH: u32 = 128;

pub use node::{ArrayId, Children, ExprError, ExprId, Leaf, Node, Sort, SymId};

/// Conjunctions and disjunctions with more children than this get their
/// leaf set in one pass over the children's sets, not by pairwise unions.
const WIDE_JUNCTION: usize = 8;

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
    // Elements merged into new leaf sets so far: the part of building a
    // formula that grows faster than its node count (see `work`).
    merged: u64,
    // See `fold_comparison_bits`.
    fold_comparison_bits: bool,
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
            merged: 0,
            fold_comparison_bits: false,
        };
        // Two nodes in an empty pool always fit.
        pool.true_id = pool.intern(Node::Bool(true), Sort::Bool).unwrap_or(ExprId(0));
        pool.false_id = pool.intern(Node::Bool(false), Sort::Bool).unwrap_or(ExprId(1));
        pool
    }

    /// From now on, `ite(c, k1, k2) = k` with constants is built as `c`,
    /// `not c`, `true` or `false`: a comparison's `i1` as a program computes
    /// it (`ite(x = 0, 0, 1)` for `x != 0`) compared with a constant is the
    /// comparison itself. Off by default. The concolic engine turns it on:
    /// its queries are smaller, and the program's test of a byte and a
    /// library walk's test of it become one node (on coreutils' seq at 60 s,
    /// 243 lines against 230 without). The bounded engine keeps it off: on
    /// its induction queries the fold cost hhk2008's proof (1.2 s without;
    /// out of time with it).
    pub fn fold_comparison_bits(&mut self) {
        self.fold_comparison_bits = true;
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

    /// The work spent building this pool: its nodes plus the leaf-set
    /// elements merged for them. Deterministic, unlike time, and unlike
    /// the node count it grows with what building costs: a chain of
    /// memory stores over thousands of symbols costs a merge per store.
    pub fn work(&self) -> u64 {
        self.nodes.len() as u64 + self.merged
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

    /// Whether the terms under `roots` use arrays and floating point
    /// (`(arrays, floats)`): what picks a query's SMT-LIB logic and Z3's
    /// tactic for it.
    pub fn uses_arrays_and_floats(&self, roots: &[ExprId]) -> (bool, bool) {
        let (mut arrays, mut floats) = (false, false);
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<ExprId> = roots.to_vec();
        while let Some(e) = stack.pop() {
            if !seen.insert(e) {
                continue;
            }
            let node = self.get(e);
            match node {
                Node::FpBin(..)
                | Node::FpCmp(..)
                | Node::FpConv { .. }
                | Node::FpToSbv { .. }
                | Node::BvToFp { .. } => floats = true,
                Node::ArrayVar { .. } | Node::ConstArray { .. } | Node::Select { .. } | Node::Store { .. } => {
                    arrays = true
                }
                _ => {}
            }
            stack.extend(node.children());
        }
        (arrays, floats)
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
        self.merged += (x.len() + y.len()) as u64;
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
            found => Err(ExprError::SortMismatch { op, expected: "a bit-vector", found }),
        }
    }

    fn expect_bool(&self, op: &'static str, id: ExprId) -> Result<(), ExprError> {
        match self.sort(id) {
            Sort::Bool => Ok(()),
            found => Err(ExprError::SortMismatch { op, expected: "Bool", found }),
        }
    }

    fn same_bv(&self, op: &'static str, a: ExprId, b: ExprId) -> Result<u32, ExprError> {
        let wa = self.bv_width(op, a)?;
        let wb = self.bv_width(op, b)?;
        if wa != wb {
            return Err(ExprError::Mismatch { op, left: Sort::BitVec(wa), right: Sort::BitVec(wb) });
        }
        Ok(wa)
    }

    fn array_index_width_of(&self, op: &'static str, id: ExprId) -> Result<u32, ExprError> {
        match self.sort(id) {
            Sort::Array { index_width } => Ok(index_width),
            found => Err(ExprError::SortMismatch { op, expected: "an array", found }),
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
        self.intern(Node::Bv { width, value: value & mask(width) }, Sort::BitVec(width))
    }

    /// A fresh bit-vector symbol, distinct from every other even if the
    /// name repeats.
    pub fn new_symbol(&mut self, name: &str, width: u32) -> Result<(SymId, ExprId), ExprError> {
        check_width(width)?;
        let sym = SymId(u32::try_from(self.symbols.len()).map_err(|_| ExprError::PoolFull)?);
        let expr = self.intern(Node::Var { sym, width }, Sort::BitVec(width))?;
        self.symbols.push(SymbolInfo { name: name.to_string(), width, expr });
        Ok((sym, expr))
    }

    /// A fresh symbolic byte array indexed by `index_width` (32 or 64) bits.
    pub fn new_array(&mut self, name: &str, index_width: u32) -> Result<(ArrayId, ExprId), ExprError> {
        check_index_width(index_width)?;
        let array = ArrayId(u32::try_from(self.arrays.len()).map_err(|_| ExprError::PoolFull)?);
        let expr = self.intern(Node::ArrayVar { array, index_width }, Sort::Array { index_width })?;
        self.arrays.push(ArrayInfo { name: name.to_string(), index_width, expr });
        Ok((array, expr))
    }

    /// An array holding `value` at every index.
    pub fn const_array(&mut self, index_width: u32, value: u8) -> R {
        check_index_width(index_width)?;
        self.intern(Node::ConstArray { index_width, value }, Sort::Array { index_width })
    }

    // ----- Booleans ------------------------------------------------------
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
                .map(|s| SymbolInfo { name: s.name.clone(), width: s.width, expr: s.expr })
                .collect(),
            arrays: self
                .arrays
                .iter()
                .map(|a| ArrayInfo { name: a.name.clone(), index_width: a.index_width, expr: a.expr })
                .collect(),
            true_id: self.true_id,
            false_id: self.false_id,
            fold_comparison_bits: self.fold_comparison_bits,
            merged: self.merged,
        }
    }
}

#[cfg(test)]
mod tests;
