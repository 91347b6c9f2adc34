//! SMT-LIB-like printing of expressions, for debugging and test failures.
//!
//! A DAG printed as a tree can be exponentially long, so nodes used more
//! than once are bound with `let` and printed once. Deep single-use chains
//! are bound too, which keeps the printer's recursion shallow.

use std::fmt::{self, Write};

use crate::expr::{ArrayId, ExprId, ExprPool, Node, SymId};
use crate::fold::mask;
use crate::hash::FxHashMap;

// Nodes nested deeper than this inside one printed term get a `let`.
const MAX_INLINE_DEPTH: u32 = 32;

/// Prints an expression; made by [`ExprPool::display`].
pub struct ExprDisplay<'a> {
    pool: &'a ExprPool,
    root: ExprId,
}

impl ExprPool {
    /// An SMT-LIB-like rendering of `id` with shared subterms `let`-bound.
    pub fn display(&self, id: ExprId) -> ExprDisplay<'_> {
        ExprDisplay { pool: self, root: id }
    }
}

/// The name a symbol has in printed terms and in Z3: its given name plus
/// its number, since names need not be unique.
pub(crate) fn sym_label(pool: &ExprPool, sym: SymId) -> String {
    format!("{}!{}", pool.symbol_name(sym), sym.0)
}

/// Like [`sym_label`], for arrays.
pub(crate) fn array_label(pool: &ExprPool, array: ArrayId) -> String {
    format!("{}!a{}", pool.array_name(array), array.0)
}

fn is_leaf(node: &Node) -> bool {
    matches!(node, Node::Bool(_) | Node::Bv { .. } | Node::Var { .. } | Node::ArrayVar { .. } | Node::ConstArray { .. })
}

fn write_bv(out: &mut impl Write, width: u32, value: u128) -> fmt::Result {
    let value = value & mask(width);
    match width % 4 {
        0 => write!(out, "#x{:0w$x}", value, w = (width / 4) as usize),
        _ => write!(out, "#b{:0w$b}", value, w = width as usize),
    }
}

impl fmt::Display for ExprDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pool = self.pool;
        // Post-order of the reachable DAG, and how many parents each node has.
        let mut order = Vec::new();
        let mut parents: FxHashMap<ExprId, u32> = FxHashMap::default();
        let mut expanded_set: FxHashMap<ExprId, ()> = FxHashMap::default();
        let mut stack = vec![(self.root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                order.push(id);
                continue;
            }
            if expanded_set.insert(id, ()).is_some() {
                continue;
            }
            stack.push((id, true));
            for c in pool.get(id).children() {
                *parents.entry(c).or_insert(0) += 1;
                if !expanded_set.contains_key(&c) {
                    stack.push((c, false));
                }
            }
        }
        let mut depth: FxHashMap<ExprId, u32> = FxHashMap::default();
        let mut bound: FxHashMap<ExprId, ()> = FxHashMap::default();
        let mut bindings = Vec::new();
        for &id in &order {
            let node = pool.get(id);
            if is_leaf(node) {
                depth.insert(id, 0);
                continue;
            }
            let d = 1 + node
                .children()
                .map(|c| if bound.contains_key(&c) { 0 } else { depth.get(&c).copied().unwrap_or(0) })
                .max()
                .unwrap_or(0);
            let shared = parents.get(&id).copied().unwrap_or(0) > 1;
            if id != self.root && (shared || d > MAX_INLINE_DEPTH) {
                bound.insert(id, ());
                bindings.push(id);
                depth.insert(id, 0);
            } else {
                depth.insert(id, d);
            }
        }
        let printer = Printer { pool, bound: &bound };
        for &b in &bindings {
            write!(f, "(let (({b} ")?;
            printer.term(f, b, true)?;
            write!(f, ")) ")?;
        }
        printer.term(f, self.root, true)?;
        for _ in &bindings {
            write!(f, ")")?;
        }
        Ok(())
    }
}

struct Printer<'a> {
    pool: &'a ExprPool,
    bound: &'a FxHashMap<ExprId, ()>,
}

impl Printer<'_> {
    // `top` is set for the term being defined, so it is printed rather
    // than referred to by its own name.
    fn term(&self, f: &mut fmt::Formatter<'_>, id: ExprId, top: bool) -> fmt::Result {
        if !top && self.bound.contains_key(&id) {
            return write!(f, "{id}");
        }
        let pool = self.pool;
        let width = |e: ExprId| pool.width(e).unwrap_or(0);
        let app = |f: &mut fmt::Formatter<'_>, head: &str, args: &[ExprId]| -> fmt::Result {
            write!(f, "({head}")?;
            for &a in args {
                write!(f, " ")?;
                self.term(f, a, false)?;
            }
            write!(f, ")")
        };
        match pool.get(id) {
            Node::Bool(b) => write!(f, "{b}"),
            Node::Bv { width, value } => write_bv(f, *width, *value),
            Node::Var { sym, .. } => write!(f, "{}", sym_label(pool, *sym)),
            Node::ArrayVar { array, .. } => write!(f, "{}", array_label(pool, *array)),
            Node::ConstArray { index_width, value } => write!(
                f,
                "((as const (Array (_ BitVec {index_width}) (_ BitVec 8))) {})",
                format_args!("#x{value:02x}")
            ),
            Node::Not(a) => app(f, "not", &[*a]),
            Node::And(xs) => app(f, "and", xs),
            Node::Or(xs) => app(f, "or", xs),
            Node::Ite { cond, then, els } => app(f, "ite", &[*cond, *then, *els]),
            Node::Eq(a, b) => app(f, "=", &[*a, *b]),
            Node::BvUn(op, a) => app(f, op.smt_name(), &[*a]),
            Node::BvBin(op, a, b) => app(f, op.smt_name(), &[*a, *b]),
            Node::Cmp(op, a, b) => app(f, op.smt_name(), &[*a, *b]),
            Node::ZExt { arg, width: to } => app(f, &format!("(_ zero_extend {})", to - width(*arg)), &[*arg]),
            Node::SExt { arg, width: to } => app(f, &format!("(_ sign_extend {})", to - width(*arg)), &[*arg]),
            Node::Extract { arg, hi, lo } => app(f, &format!("(_ extract {hi} {lo})"), &[*arg]),
            Node::Concat(h, l) => app(f, "concat", &[*h, *l]),
            Node::FpBin(op, a, b) => app(f, op.smt_name(), &[*a, *b]),
            Node::FpCmp(op, a, b) => app(f, op.smt_name(), &[*a, *b]),
            Node::FpConv { arg, width } => app(f, &format!("(_ fp.conv {width})"), &[*arg]),
            Node::FpToSbv { arg, width } => app(f, &format!("(_ fp.cvtt {width})"), &[*arg]),
            Node::BvToFp { arg, width, signed } => {
                app(f, &format!("(_ {}.to_fp {width})", if *signed { "sbv" } else { "ubv" }), &[*arg])
            }
            Node::Select { array, index } => app(f, "select", &[*array, *index]),
            Node::Store { array, index, value } => app(f, "store", &[*array, *index, *value]),
        }
    }
}
