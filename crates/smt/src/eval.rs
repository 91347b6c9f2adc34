//! Concrete evaluation of expressions under an assignment of the symbols.
//!
//! Models coming back from Z3 are checked with it, the counterexample
//! cache uses it to try old models on new queries, and engines use it to
//! compute concrete values along a path. It follows [`crate::fold`], so it
//! agrees with the constant folder by construction and with Z3 by test.
//!
//! The traversal is an explicit stack rather than recursion: path
//! conditions of long loops are thousands of nodes deep.

use std::collections::BTreeMap;

use crate::expr::{ArrayId, ExprId, ExprPool, Leaf, Node, Sort, SymId};
use crate::fold;
use crate::hash::FxHashMap;

/// The contents of a byte array: explicit bytes over a default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArrayValue {
    /// The byte at every index not in `bytes`.
    pub default: u8,
    /// Bytes that differ from (or were read as) something else.
    pub bytes: BTreeMap<u128, u8>,
}

impl ArrayValue {
    /// The byte at `index`.
    pub fn read(&self, index: u128) -> u8 {
        self.bytes.get(&index).copied().unwrap_or(self.default)
    }
}

/// Values for symbols and arrays. A symbol that has no value reads as
/// zero and an array that has none reads as all zeros, like uninitialised
/// inputs in the interpreter; use [`Assignment::assigns_all`] where a
/// missing value would be a mistake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    syms: BTreeMap<SymId, u128>,
    arrays: BTreeMap<ArrayId, ArrayValue>,
}

impl Assignment {
    /// An empty assignment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a symbol's value; bits above its width are ignored on reads.
    pub fn set_sym(&mut self, sym: SymId, value: u128) {
        self.syms.insert(sym, value);
    }

    /// A symbol's value, if it has one.
    pub fn sym(&self, sym: SymId) -> Option<u128> {
        self.syms.get(&sym).copied()
    }

    /// Sets an array's contents.
    pub fn set_array(&mut self, array: ArrayId, value: ArrayValue) {
        self.arrays.insert(array, value);
    }

    /// An array's contents, if it has them.
    pub fn array(&self, array: ArrayId) -> Option<&ArrayValue> {
        self.arrays.get(&array)
    }

    /// Every symbol with a value, in id order.
    pub fn syms(&self) -> impl Iterator<Item = (SymId, u128)> + '_ {
        self.syms.iter().map(|(&s, &v)| (s, v))
    }

    /// Every array with contents, in id order.
    pub fn arrays(&self) -> impl Iterator<Item = (ArrayId, &ArrayValue)> + '_ {
        self.arrays.iter().map(|(&a, v)| (a, v))
    }

    /// Whether the symbol or array has a value.
    pub fn assigns(&self, leaf: Leaf) -> bool {
        match leaf {
            Leaf::Sym(s) => self.syms.contains_key(&s),
            Leaf::Array(a) => self.arrays.contains_key(&a),
        }
    }

    /// Whether every one of `leaves` has a value.
    pub fn assigns_all(&self, leaves: &[Leaf]) -> bool {
        leaves.iter().all(|&l| self.assigns(l))
    }

    /// Copies every value of `other` into `self`, replacing old ones; how
    /// a caller merges a model for part of its inputs into the rest.
    pub fn extend_from(&mut self, other: &Assignment) {
        for (s, v) in other.syms() {
            self.syms.insert(s, v);
        }
        for (a, v) in other.arrays() {
            self.arrays.insert(a, v.clone());
        }
    }

    /// Number of symbols plus arrays with a value.
    pub fn len(&self) -> usize {
        self.syms.len() + self.arrays.len()
    }

    /// Whether nothing has a value.
    pub fn is_empty(&self) -> bool {
        self.syms.is_empty() && self.arrays.is_empty()
    }
}

/// The value of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A Boolean.
    Bool(bool),
    /// A bit-vector.
    Bv {
        /// Its width.
        width: u32,
        /// Its bits, zero above `width`.
        bits: u128,
    },
    /// An array.
    Array(ArrayValue),
}

impl Value {
    /// The Boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The bits of a bit-vector, if this is one.
    pub fn as_bv(&self) -> Option<u128> {
        match self {
            Value::Bv { bits, .. } => Some(*bits),
            _ => None,
        }
    }
}

/// Where the evaluator gets values of leaves from. Reads go through a
/// trait so the Z3 backend can fetch exactly the array bytes a query reads.
pub(crate) trait Env {
    /// The value of a symbol (bits above its width are ignored).
    fn sym(&mut self, sym: SymId) -> u128;
    /// The byte of an array at an index.
    fn read(&mut self, array: ArrayId, index: u128) -> u8;
}

impl Env for &Assignment {
    fn sym(&mut self, sym: SymId) -> u128 {
        Assignment::sym(self, sym).unwrap_or(0)
    }
    fn read(&mut self, array: ArrayId, index: u128) -> u8 {
        self.array(array).map_or(0, |a| a.read(index))
    }
}

/// Scalar results of evaluated nodes; Booleans are 0 or 1 and array nodes
/// hold a placeholder, since arrays are only looked into by `select`.
pub(crate) type Memo = FxHashMap<ExprId, u128>;

impl ExprPool {
    /// Evaluates an expression under an assignment (see [`Assignment`] for
    /// missing values).
    pub fn eval(&self, id: ExprId, a: &Assignment) -> Value {
        let mut memo = Memo::default();
        let mut env = a;
        match self.sort(id) {
            Sort::Array { .. } => Value::Array(self.materialize(id, a, &mut memo)),
            Sort::Bool => Value::Bool(self.eval_scalar(id, &mut env, &mut memo) != 0),
            Sort::BitVec(width) => Value::Bv { width, bits: self.eval_scalar(id, &mut env, &mut memo) },
        }
    }

    /// Whether every constraint is true under the assignment.
    pub fn satisfies(&self, constraints: &[ExprId], a: &Assignment) -> bool {
        let mut memo = Memo::default();
        let mut env = a;
        constraints.iter().all(|&c| self.eval_scalar(c, &mut env, &mut memo) == 1)
    }

    // Builds the full contents of an array expression: the base's contents
    // with the chain of stores applied oldest first.
    fn materialize(&self, id: ExprId, a: &Assignment, memo: &mut Memo) -> ArrayValue {
        let mut env = a;
        let mut stores = Vec::new();
        let mut cur = id;
        let base = loop {
            match *self.get(cur) {
                Node::Store { array, index, value } => {
                    stores.push((index, value));
                    cur = array;
                }
                Node::ConstArray { value, .. } => break ArrayValue { default: value, bytes: BTreeMap::new() },
                Node::ArrayVar { array, .. } => break a.array(array).cloned().unwrap_or_default(),
                Node::Ite { cond, then, els } => {
                    cur = if self.eval_scalar(cond, &mut env, memo) == 1 { then } else { els };
                }
                // Array expressions are stores over a base, and
                // if-then-else between them.
                _ => break ArrayValue::default(),
            }
        };
        let mut out = base;
        for &(index, value) in stores.iter().rev() {
            let i = self.eval_scalar(index, &mut env, memo);
            let v = self.eval_scalar(value, &mut env, memo) as u8;
            out.bytes.insert(i, v);
        }
        out
    }

    /// Evaluates a Boolean (as 0/1) or bit-vector expression, sharing
    /// `memo` across calls so a whole query is walked once.
    pub(crate) fn eval_scalar<E: Env>(&self, root: ExprId, env: &mut E, memo: &mut Memo) -> u128 {
        if let Some(&v) = memo.get(&root) {
            return v;
        }
        let mut stack: Vec<(ExprId, bool)> = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if memo.contains_key(&id) {
                continue;
            }
            let node = self.get(id);
            if !expanded {
                stack.push((id, true));
                for c in node.children() {
                    if !memo.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            let v = self.eval_node(node, env, memo);
            memo.insert(id, v);
        }
        memo.get(&root).copied().unwrap_or(0)
    }

    // All operands of `node` are in `memo` when this runs.
    fn eval_node<E: Env>(&self, node: &Node, env: &mut E, memo: &Memo) -> u128 {
        let get = |id: ExprId| memo.get(&id).copied().unwrap_or(0);
        let width = |id: ExprId| self.width(id).unwrap_or(1);
        match *node {
            Node::Bool(b) => u128::from(b),
            Node::Bv { value, .. } => value,
            Node::Var { sym, width } => env.sym(sym) & fold::mask(width),
            Node::ArrayVar { .. } | Node::ConstArray { .. } | Node::Store { .. } => 0,
            Node::Not(a) => 1 - (get(a) & 1),
            Node::And(ref xs) => u128::from(xs.iter().all(|&x| get(x) == 1)),
            Node::Or(ref xs) => u128::from(xs.iter().any(|&x| get(x) == 1)),
            Node::Ite { cond, then, els } => {
                if get(cond) == 1 {
                    get(then)
                } else {
                    get(els)
                }
            }
            Node::Eq(a, b) => u128::from(get(a) == get(b)),
            Node::BvUn(op, a) => fold::un(op, width(a), get(a)),
            Node::BvBin(op, a, b) => fold::bin(op, width(a), get(a), get(b)),
            Node::Cmp(op, a, b) => u128::from(fold::cmp(op, width(a), get(a), get(b))),
            Node::ZExt { arg, .. } => get(arg),
            Node::SExt { arg, width: to } => fold::sext(width(arg), to, get(arg)),
            Node::Extract { arg, hi, lo } => fold::extract(hi, lo, get(arg)),
            Node::Concat(h, l) => fold::concat(width(l), get(h), get(l)),
            Node::FpBin(op, a, b) => crate::float::fp_bin(op, width(a), get(a), get(b)),
            Node::FpCmp(op, a, b) => u128::from(crate::float::fp_cmp(op, width(a), get(a), get(b))),
            Node::FpConv { arg, width: to } => crate::float::fp_conv(width(arg), to, get(arg)),
            Node::FpToSbv { arg, width: to } => crate::float::fp_to_sbv(width(arg), to, get(arg)),
            Node::BvToFp { arg, width: to, signed } => crate::float::bv_to_fp(width(arg), to, signed, get(arg)),
            Node::Select { array, index } => {
                let i = get(index);
                let mut cur = array;
                loop {
                    match *self.get(cur) {
                        Node::Store { array, index: j, value } => {
                            if get(j) == i {
                                break get(value);
                            }
                            cur = array;
                        }
                        Node::ConstArray { value, .. } => break u128::from(value),
                        Node::ArrayVar { array, .. } => break u128::from(env.read(array, i)),
                        // The condition is a child of the select's array
                        // operand, so it is evaluated already.
                        Node::Ite { cond, then, els } => cur = if get(cond) == 1 { then } else { els },
                        _ => break 0,
                    }
                }
            }
        }
    }
}
