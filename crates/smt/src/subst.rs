//! Substitution: a term with some of its leaves (symbols, arrays) replaced
//! by other terms of the same sort, rebuilt through the simplifying
//! constructors. The model checker uses it to move predicates between a
//! location's state symbols and the terms a step computes (weakest
//! preconditions by substitution, abstract posts, path formulas).

use std::collections::HashMap;

use crate::expr::{ExprId, ExprPool, Leaf, Node, R};

impl ExprPool {
    /// `e` with every leaf in `map` replaced by its term. `memo` caches
    /// rebuilt nodes across calls with the same `map` (pass a fresh one
    /// when the map changes). Sub-terms that mention no mapped leaf are
    /// kept as they are. Works without recursion, so deep terms (long store
    /// chains) are fine.
    pub fn substitute(&mut self, e: ExprId, map: &HashMap<Leaf, ExprId>, memo: &mut HashMap<ExprId, ExprId>) -> R {
        let touches = |pool: &ExprPool, x: ExprId| pool.symbols_of(x).iter().any(|l| map.contains_key(l));
        if !touches(self, e) {
            return Ok(e);
        }
        // Post-order over the nodes that mention a mapped leaf.
        let mut stack: Vec<(ExprId, bool)> = vec![(e, false)];
        while let Some((x, expanded)) = stack.pop() {
            if memo.contains_key(&x) {
                continue;
            }
            if !touches(self, x) {
                memo.insert(x, x);
                continue;
            }
            let node = self.get(x).clone();
            if !expanded {
                if let Node::Var { sym, .. } = node {
                    memo.insert(x, map.get(&Leaf::Sym(sym)).copied().unwrap_or(x));
                    continue;
                }
                if let Node::ArrayVar { array, .. } = node {
                    memo.insert(x, map.get(&Leaf::Array(array)).copied().unwrap_or(x));
                    continue;
                }
                stack.push((x, true));
                for c in node.children() {
                    if !memo.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            let m = |c: &ExprId| memo[c];
            let rebuilt = match &node {
                Node::Bool(_)
                | Node::Bv { .. }
                | Node::Var { .. }
                | Node::ArrayVar { .. }
                | Node::ConstArray { .. } => x,
                Node::Not(a) => self.not(m(a))?,
                Node::And(xs) => {
                    let v: Vec<ExprId> = xs.iter().map(m).collect();
                    self.and(&v)?
                }
                Node::Or(xs) => {
                    let v: Vec<ExprId> = xs.iter().map(m).collect();
                    self.or(&v)?
                }
                Node::Ite { cond, then, els } => self.ite(m(cond), m(then), m(els))?,
                Node::Eq(a, b) => self.eq(m(a), m(b))?,
                Node::BvUn(op, a) => self.unop(*op, m(a))?,
                Node::BvBin(op, a, b) => self.binop(*op, m(a), m(b))?,
                Node::Cmp(op, a, b) => self.cmp(*op, m(a), m(b))?,
                Node::ZExt { arg, width } => self.zext(m(arg), *width)?,
                Node::SExt { arg, width } => self.sext(m(arg), *width)?,
                Node::Extract { arg, hi, lo } => self.extract(m(arg), *hi, *lo)?,
                Node::Concat(a, b) => self.concat(m(a), m(b))?,
                Node::FpBin(op, a, b) => self.fp_bin(*op, m(a), m(b))?,
                Node::FpCmp(op, a, b) => self.fp_cmp(*op, m(a), m(b))?,
                Node::FpConv { arg, width } => self.fp_conv(m(arg), *width)?,
                Node::FpToSbv { arg, width } => self.fp_to_sbv(m(arg), *width)?,
                Node::BvToFp { arg, width, signed } => self.bv_to_fp(m(arg), *width, *signed)?,
                Node::Select { array, index } => self.select(m(array), m(index))?,
                Node::Store { array, index, value } => self.store(m(array), m(index), m(value))?,
            };
            memo.insert(x, rebuilt);
        }
        Ok(memo[&e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substituting_a_symbol_rebuilds_and_simplifies() {
        let mut p = ExprPool::new();
        let (xs, x) = p.new_symbol("x", 8).unwrap();
        let (_, y) = p.new_symbol("y", 8).unwrap();
        let one = p.bv_const(8, 1).unwrap();
        let sum = p.add(x, one).unwrap();
        let lt = p.slt(sum, y).unwrap();
        let two = p.bv_const(8, 2).unwrap();
        let map = HashMap::from([(Leaf::Sym(xs), two)]);
        let got = p.substitute(lt, &map, &mut HashMap::new()).unwrap();
        let three = p.bv_const(8, 3).unwrap();
        let want = p.slt(three, y).unwrap();
        assert_eq!(got, want);
        // A term without the symbol is returned as it is.
        assert_eq!(p.substitute(y, &map, &mut HashMap::new()).unwrap(), y);
    }

    #[test]
    fn substituting_an_array_reaches_selects_through_stores() {
        let mut p = ExprPool::new();
        let (aid, a) = p.new_array("m", 64).unwrap();
        let (_, b) = p.new_array("n", 64).unwrap();
        let i = p.bv_const(64, 16).unwrap();
        let v = p.bv_const(8, 7).unwrap();
        let st = p.store(a, i, v).unwrap();
        let sel = p.select(st, i).unwrap();
        let map = HashMap::from([(Leaf::Array(aid), b)]);
        let got = p.substitute(st, &map, &mut HashMap::new()).unwrap();
        let want = p.store(b, i, v).unwrap();
        assert_eq!(got, want);
        // select(store(_, i, 7), i) folds to 7 whatever the array.
        let got = p.substitute(sel, &map, &mut HashMap::new()).unwrap();
        assert_eq!(p.as_bv_const(got), Some(7));
    }
}
