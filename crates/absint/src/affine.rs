//! Karr's domain of affine equalities: a conjunction of linear equations
//! `sum(a_i * x_i) + b == 0` with rational coefficients, kept as integer
//! rows (fraction-free, each divided by the gcd of its coefficients) in
//! reduced row-echelon form.
//!
//! **Variables** ([`Var`]) are SSA values of integer type (their canonical
//! value: signed for widths 8 to 64, see [`crate::interval`]), the loop
//! counters the relational analysis adds, and temporaries used inside one
//! transfer (parallel assignment of block parameters).
//!
//! **Echelon form.** The pivot of a row is its greatest variable (in
//! [`Var`]'s order), with a positive coefficient; the pivot of a row occurs
//! in no other row. A variable in no row is unconstrained.
//!
//! **Operations.** Meet with an equation ([`Affine::add_eq`]) is Gaussian
//! elimination; projection ([`Affine::forget`]) eliminates the variable with
//! one row that contains it; assignment `x := e` for a linear `e` is exact
//! ([`Affine::assign`]); the join is the affine hull, computed as the
//! intersection of the two row spaces in homogeneous coordinates (the null
//! space of the stacked null-space generators). Ascending chains are
//! finite (each strict step raises the dimension), so widening is the join
//! and narrowing keeps the newer iterate.
//!
//! **Arithmetic.** Coefficients are `i128` with checked operations. When a
//! row overflows, it is dropped: dropping an equation only weakens the
//! state, so every operation stays sound (it merely loses precision).
//! Systems with more than [`MAX_JOIN_VARS`] variables join by keeping the
//! rows both sides share, also sound.

use crate::domain::Domain;
use std::fmt;
use walkdown_ir::Value;

/// Joins over more variables than this keep only the rows both sides
/// have (sound, cheap) instead of computing the affine hull.
pub const MAX_JOIN_VARS: usize = 96;

/// A variable of the equality domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Var {
    /// The counter of loop number `k` of the function (heads in weak
    /// topological order, outermost first): 0 when the loop is entered,
    /// +1 on every back edge.
    Counter(u32),
    /// The canonical value of an integer SSA value.
    Val(Value),
    /// A temporary of one transfer function.
    Temp(u32),
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Var::Counter(k) => write!(f, "counter{k}"),
            Var::Val(v) => write!(f, "{v}"),
            Var::Temp(k) => write!(f, "t{k}"),
        }
    }
}

/// A linear expression `sum(coef * var) + constant` (or, as a row of a
/// system, the equation that it equals zero). Terms are sorted by variable
/// with non-zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Linear {
    /// `(var, coefficient)`, sorted by variable, no zero coefficient.
    pub terms: Vec<(Var, i128)>,
    /// The constant term.
    pub constant: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a.min(i128::MAX as u128) as i128
}

impl Linear {
    /// The constant `c`.
    pub fn constant(c: i128) -> Linear {
        Linear { terms: Vec::new(), constant: c }
    }
    /// The variable `v`.
    pub fn var(v: Var) -> Linear {
        Linear { terms: vec![(v, 1)], constant: 0 }
    }
    /// The coefficient of `v` (0 when absent).
    pub fn coef(&self, v: Var) -> i128 {
        self.terms.binary_search_by(|(x, _)| x.cmp(&v)).map(|i| self.terms[i].1).unwrap_or(0)
    }
    /// The greatest variable, with its coefficient.
    pub fn pivot(&self) -> Option<(Var, i128)> {
        self.terms.last().copied()
    }
    /// `a * self + b * other`, `None` on overflow.
    pub fn combine(&self, a: i128, other: &Linear, b: i128) -> Option<Linear> {
        let mut terms = Vec::with_capacity(self.terms.len() + other.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() || j < other.terms.len() {
            let (v, c) = match (self.terms.get(i), other.terms.get(j)) {
                (Some(&(x, cx)), Some(&(y, cy))) if x == y => {
                    i += 1;
                    j += 1;
                    (x, cx.checked_mul(a)?.checked_add(cy.checked_mul(b)?)?)
                }
                (Some(&(x, cx)), Some(&(y, _))) if x < y => {
                    i += 1;
                    (x, cx.checked_mul(a)?)
                }
                (Some(&(x, cx)), None) => {
                    i += 1;
                    (x, cx.checked_mul(a)?)
                }
                (_, Some(&(y, cy))) => {
                    j += 1;
                    (y, cy.checked_mul(b)?)
                }
                (None, None) => unreachable!(),
            };
            if c != 0 {
                terms.push((v, c));
            }
        }
        let constant = self.constant.checked_mul(a)?.checked_add(other.constant.checked_mul(b)?)?;
        Some(Linear { terms, constant })
    }
    /// `self + other`.
    pub fn add(&self, other: &Linear) -> Option<Linear> {
        self.combine(1, other, 1)
    }
    /// `self - other`.
    pub fn sub(&self, other: &Linear) -> Option<Linear> {
        self.combine(1, other, -1)
    }
    /// `k * self`.
    pub fn scale(&self, k: i128) -> Option<Linear> {
        self.combine(k, &Linear::default(), 0)
    }
    /// The row divided by the gcd of all its numbers, with a positive
    /// pivot coefficient (as an equation, the same set of solutions).
    fn normalized(mut self) -> Option<Linear> {
        let g = self.terms.iter().fold(self.constant, |g, (_, c)| gcd(g, *c));
        let neg = self.pivot().is_some_and(|(_, c)| c < 0);
        if g > 1 || neg {
            let d = if neg { g.checked_neg()?.min(-1) } else { g };
            for t in &mut self.terms {
                t.1 /= d;
            }
            self.constant /= d;
        }
        Some(self)
    }
    /// Eliminates `row`'s pivot from `self` (`None` on overflow).
    fn eliminate(&self, row: &Linear) -> Option<Linear> {
        let (p, cp) = row.pivot()?;
        let c = self.coef(p);
        if c == 0 {
            return Some(self.clone());
        }
        let g = gcd(c, cp);
        self.combine(cp / g, row, -(c / g))?.normalized()
    }
    /// Replaces variable `from` by `to` (which must not occur).
    fn rename(&self, from: Var, to: Var) -> Linear {
        let mut terms: Vec<(Var, i128)> =
            self.terms.iter().map(|&(v, c)| (if v == from { to } else { v }, c)).collect();
        terms.sort_by_key(|t| t.0);
        Linear { terms, constant: self.constant }
    }
}

impl fmt::Display for Linear {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for &(v, c) in self.terms.iter().rev() {
            let (sign, a) = if c < 0 { ("-", c.unsigned_abs()) } else { ("+", c as u128) };
            if first {
                if c < 0 {
                    f.write_str("-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            if a != 1 {
                write!(f, "{a}*")?;
            }
            write!(f, "{v}")?;
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)
        } else if self.constant != 0 {
            let (sign, a) =
                if self.constant < 0 { ("-", self.constant.unsigned_abs()) } else { ("+", self.constant as u128) };
            write!(f, " {sign} {a}")
        } else {
            Ok(())
        }
    }
}

/// A conjunction of affine equalities, or unreachable (`rows == None`).
#[derive(Clone, PartialEq, Debug)]
pub struct Affine {
    /// Rows `linear == 0`, sorted by pivot; `None` is bottom.
    rows: Option<Vec<Linear>>,
}

impl Default for Affine {
    fn default() -> Self {
        Affine::top()
    }
}

impl Affine {
    /// The rows (each means `row == 0`), empty at bottom.
    pub fn rows(&self) -> &[Linear] {
        self.rows.as_deref().unwrap_or(&[])
    }

    /// The system of `rows`.
    pub fn from_rows(rows: impl IntoIterator<Item = Linear>) -> Affine {
        let mut a = Affine::top();
        for r in rows {
            a.add_eq(r);
        }
        a
    }

    /// `row` with every pivot of the system eliminated (`None` on overflow).
    fn reduce(&self, row: &Linear) -> Option<Linear> {
        let mut r = row.clone();
        for s in self.rows().iter().rev() {
            if r.coef(s.pivot()?.0) != 0 {
                r = r.eliminate(s)?;
            }
        }
        Some(r)
    }

    /// Whether `row == 0` holds in every state of the system.
    pub fn implies(&self, row: &Linear) -> bool {
        self.rows.is_none() || self.reduce(row).is_some_and(|r| r.terms.is_empty() && r.constant == 0)
    }

    /// Adds the equation `row == 0` (the meet). Dropped on overflow.
    pub fn add_eq(&mut self, row: Linear) {
        let Some(rows) = &self.rows else { return };
        let Some(r) = self.reduce(&row).and_then(Linear::normalized) else { return };
        let Some((p, _)) = r.pivot() else {
            if r.constant != 0 {
                self.rows = None;
            }
            return;
        };
        let mut out = Vec::with_capacity(rows.len() + 1);
        for s in rows {
            if s.coef(p) == 0 {
                out.push(s.clone());
            } else if let Some(s2) = s.eliminate(&r) {
                // The pivot of `s` is greater than `p`, so it stays.
                out.push(s2);
            }
        }
        let at = out.partition_point(|s| s.pivot().map(|x| x.0) < Some(p));
        out.insert(at, r);
        self.rows = Some(out);
    }

    /// Projects `v` out (existential quantification).
    pub fn forget(&mut self, v: Var) {
        let Some(rows) = &mut self.rows else { return };
        if let Some(i) = rows.iter().position(|r| r.pivot().map(|x| x.0) == Some(v)) {
            rows.remove(i);
            return;
        }
        let (with, without): (Vec<Linear>, Vec<Linear>) = rows.drain(..).partition(|r| r.coef(v) != 0);
        *rows = without;
        let Some((first, rest)) = with.split_first() else { return };
        let cf = first.coef(v);
        for r in rest {
            let c = r.coef(v);
            let g = gcd(c, cf);
            if let Some(x) = r.combine(cf / g, first, -(c / g)).and_then(Linear::normalized) {
                self.add_eq(x);
            }
        }
    }

    /// `v := e` (exact); `None` forgets `v`.
    pub fn assign(&mut self, v: Var, e: Option<Linear>) {
        match e {
            None => self.forget(v),
            Some(e) if e.coef(v) == 0 => {
                self.forget(v);
                if let Some(r) = Linear::var(v).sub(&e) {
                    self.add_eq(r);
                }
            }
            Some(e) => self.assign_parallel(&[(v, Some(e))]),
        }
    }

    /// `v := v + delta` (exact).
    pub fn shift(&mut self, v: Var, delta: i128) {
        let Some(rows) = &mut self.rows else { return };
        // Old v = new v - delta: every row a*v + rest becomes a*v + rest - a*delta.
        let mut dropped = false;
        for r in rows.iter_mut() {
            let a = r.coef(v);
            if a != 0 {
                match a.checked_mul(delta).and_then(|d| r.constant.checked_sub(d)) {
                    Some(c) => r.constant = c,
                    None => {
                        r.terms.clear();
                        dropped = true;
                    }
                }
            }
        }
        if dropped {
            rows.retain(|r| !r.terms.is_empty());
        }
    }

    /// The parallel assignment `v_i := e_i` (all right-hand sides read
    /// before any target is written).
    pub fn assign_parallel(&mut self, assigns: &[(Var, Option<Linear>)]) {
        if self.rows.is_none() {
            return;
        }
        let targets: Vec<Var> = assigns.iter().map(|a| a.0).collect();
        let reads_target =
            assigns.iter().any(|(_, e)| e.as_ref().is_some_and(|e| targets.iter().any(|t| e.coef(*t) != 0)));
        if !reads_target {
            for (v, e) in assigns {
                self.assign(*v, e.clone());
            }
            return;
        }
        for (i, (_, e)) in assigns.iter().enumerate() {
            let t = Var::Temp(i as u32);
            self.forget(t);
            if let Some(r) = e.as_ref().and_then(|e| Linear::var(t).sub(e)) {
                self.add_eq(r);
            }
        }
        for v in &targets {
            self.forget(*v);
        }
        let rows: Vec<Linear> = self.rows().to_vec();
        let renamed = rows.into_iter().map(|mut r| {
            for (i, v) in targets.iter().enumerate() {
                if r.coef(Var::Temp(i as u32)) != 0 {
                    r = r.rename(Var::Temp(i as u32), *v);
                }
            }
            r
        });
        *self = Affine::from_rows(renamed.collect::<Vec<_>>());
    }

    /// The system with every variable for which `keep` is false projected
    /// out.
    pub fn project(&self, keep: impl Fn(Var) -> bool) -> Affine {
        let mut a = self.clone();
        let mut vars: Vec<Var> =
            self.rows().iter().flat_map(|r| r.terms.iter().map(|t| t.0)).filter(|v| !keep(*v)).collect();
        vars.sort();
        vars.dedup();
        // Greatest first: those are pivots, whose removal is cheapest.
        for v in vars.into_iter().rev() {
            a.forget(v);
        }
        a
    }

    fn vars(&self) -> Vec<Var> {
        let mut v: Vec<Var> = self.rows().iter().flat_map(|r| r.terms.iter().map(|t| t.0)).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The affine hull of both.
    fn hull(&self, o: &Affine) -> Affine {
        let mut u = self.vars();
        u.extend(o.vars());
        u.sort();
        u.dedup();
        if u.len() > MAX_JOIN_VARS {
            return Affine::from_rows(self.rows().iter().filter(|r| o.implies(r)).cloned().collect::<Vec<_>>());
        }
        let n = u.len();
        let col = |v: Var| u.binary_search(&v).unwrap_or(0);
        let dense = |a: &Affine| -> Vec<Vec<i128>> {
            a.rows()
                .iter()
                .map(|r| {
                    let mut row = vec![0i128; n + 1];
                    for &(v, c) in &r.terms {
                        row[col(v)] = c;
                    }
                    row[n] = r.constant;
                    row
                })
                .collect()
        };
        // Homogeneous coordinates: the points (x, 1) of a system span the
        // null space of its rows (coefficients | constant); the hull's rows
        // are the vectors orthogonal to both null spaces.
        let (Some(ga), Some(gb)) = (null_space(dense(self), n + 1), null_space(dense(o), n + 1)) else {
            return Affine::from_rows(self.rows().iter().filter(|r| o.implies(r)).cloned().collect::<Vec<_>>());
        };
        let mut g = ga;
        g.extend(gb);
        let Some(cons) = null_space(g, n + 1) else {
            return Affine::from_rows(self.rows().iter().filter(|r| o.implies(r)).cloned().collect::<Vec<_>>());
        };
        Affine::from_rows(
            cons.into_iter()
                .map(|c| Linear {
                    terms: (0..n).filter(|&i| c[i] != 0).map(|i| (u[i], c[i])).collect(),
                    constant: c[n],
                })
                .collect::<Vec<_>>(),
        )
    }
}

/// A basis of the null space of the integer matrix `m` (rows of length
/// `ncols`), `None` on overflow.
fn null_space(mut m: Vec<Vec<i128>>, ncols: usize) -> Option<Vec<Vec<i128>>> {
    // Fraction-free Gauss-Jordan elimination to reduced echelon form.
    let mut pivots: Vec<(usize, usize)> = Vec::new(); // (row, col)
    let mut r = 0;
    for c in 0..ncols {
        let Some(p) = (r..m.len()).find(|&i| m[i][c] != 0) else { continue };
        m.swap(r, p);
        for i in 0..m.len() {
            if i == r || m[i][c] == 0 {
                continue;
            }
            let (a, b) = (m[r][c], m[i][c]);
            let g = gcd(a, b);
            let (ka, kb) = (a / g, b / g);
            let mut row = Vec::with_capacity(ncols);
            for (x, y) in m[i].iter().zip(&m[r]) {
                row.push(x.checked_mul(ka)?.checked_sub(y.checked_mul(kb)?)?);
            }
            let g = row.iter().fold(0, |g, x| gcd(g, *x));
            if g > 1 {
                row.iter_mut().for_each(|x| *x /= g);
            }
            m[i] = row;
        }
        pivots.push((r, c));
        r += 1;
        if r == m.len() {
            break;
        }
    }
    let is_pivot: Vec<bool> = (0..ncols).map(|c| pivots.iter().any(|p| p.1 == c)).collect();
    // lcm of the pivot coefficients, so generators stay integral.
    let mut l: i128 = 1;
    for &(pr, pc) in &pivots {
        let a = m[pr][pc].abs();
        l = (l / gcd(l, a)).checked_mul(a)?;
    }
    let mut out = Vec::new();
    for f in (0..ncols).filter(|&c| !is_pivot[c]) {
        let mut g = vec![0i128; ncols];
        g[f] = l;
        for &(pr, pc) in &pivots {
            // m[pr][pc] * x_pc + m[pr][f] * x_f = 0.
            g[pc] = -(l / m[pr][pc]).checked_mul(m[pr][f])?;
        }
        let d = g.iter().fold(0, |d, x| gcd(d, *x));
        if d > 1 {
            g.iter_mut().for_each(|x| *x /= d);
        }
        out.push(g);
    }
    Some(out)
}

impl Domain for Affine {
    fn bottom() -> Self {
        Affine { rows: None }
    }
    fn top() -> Self {
        Affine { rows: Some(Vec::new()) }
    }
    fn is_bottom(&self) -> bool {
        self.rows.is_none()
    }
    fn join(&self, o: &Self) -> Self {
        match (&self.rows, &o.rows) {
            (None, _) => o.clone(),
            (_, None) => self.clone(),
            _ if self == o => self.clone(),
            _ => self.hull(o),
        }
    }
    fn leq(&self, o: &Self) -> bool {
        match (&self.rows, &o.rows) {
            (None, _) => true,
            (_, None) => false,
            _ => o.rows().iter().all(|r| self.implies(r)),
        }
    }
    fn widen(&self, o: &Self) -> Self {
        self.join(o)
    }
    fn narrow(&self, o: &Self) -> Self {
        o.clone()
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rows {
            None => f.write_str("⊥"),
            Some(rows) if rows.is_empty() => f.write_str("⊤"),
            Some(rows) => {
                for (i, r) in rows.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{r} == 0")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u32) -> Var {
        Var::Val(Value::from_u32(i))
    }
    fn lin(terms: &[(Var, i128)], c: i128) -> Linear {
        let mut t = terms.to_vec();
        t.sort_by_key(|x| x.0);
        Linear { terms: t, constant: c }
    }

    #[test]
    fn add_eq_and_implies() {
        let mut a = Affine::top();
        a.add_eq(lin(&[(v(0), 1), (v(1), -1)], 0)); // v0 == v1
        a.add_eq(lin(&[(v(1), 1)], -3)); // v1 == 3
        assert!(a.implies(&lin(&[(v(0), 1)], -3)));
        assert!(!a.implies(&lin(&[(v(0), 1)], -4)));
        a.add_eq(lin(&[(v(0), 1)], -4));
        assert!(a.is_bottom());
    }

    #[test]
    fn join_is_the_affine_hull() {
        // {x=0, y=0} ⊔ {x=1, y=2} = {y = 2x}
        let a = Affine::from_rows([lin(&[(v(0), 1)], 0), lin(&[(v(1), 1)], 0)]);
        let b = Affine::from_rows([lin(&[(v(0), 1)], -1), lin(&[(v(1), 1)], -2)]);
        let j = a.join(&b);
        assert!(j.implies(&lin(&[(v(1), 1), (v(0), -2)], 0)));
        assert_eq!(j.rows().len(), 1);
        assert!(a.leq(&j) && b.leq(&j) && !j.leq(&a));
        // Adding a third point off the line gives top.
        let c = Affine::from_rows([lin(&[(v(0), 1)], 0), lin(&[(v(1), 1)], -1)]);
        assert_eq!(j.join(&c), Affine::top());
    }

    #[test]
    fn assignment_and_counter() {
        // x0 := in; p := x0; c := 0; loop { p := p - 1; c := c + 1 } : x0 == c + p
        let (x0, p, c) = (v(0), v(1), Var::Counter(0));
        let mut entry = Affine::top();
        entry.assign(p, Some(Linear::var(x0)));
        entry.assign(c, Some(Linear::constant(0)));
        let mut body = entry.clone();
        body.assign_parallel(&[(p, Some(lin(&[(p, 1)], -1)))]);
        body.shift(c, 1);
        let head = entry.join(&body);
        let inv = lin(&[(x0, 1), (c, -1), (p, -1)], 0);
        assert!(head.implies(&inv), "{head}");
        let mut again = head.clone();
        again.assign(p, Some(lin(&[(p, 1)], -1)));
        again.shift(c, 1);
        assert!(again.leq(&head));
        // Projecting the counter out loses the relation (it needs c).
        assert_eq!(head.project(|x| x != c), Affine::top());
    }

    #[test]
    fn projection_keeps_implied_equalities() {
        // a == c + 1, b == c + 2  =>  b == a + 1 once c is gone.
        let (a, b, c) = (v(0), v(1), v(2));
        let s = Affine::from_rows([lin(&[(a, 1), (c, -1)], -1), lin(&[(b, 1), (c, -1)], -2)]);
        for order in [true, false] {
            let mut t = s.clone();
            if order {
                t.forget(c);
            } else {
                t = t.project(|x| x != c);
            }
            assert!(t.implies(&lin(&[(b, 1), (a, -1)], -1)), "{t}");
            assert_eq!(t.rows().len(), 1);
        }
    }

    #[test]
    fn parallel_swap() {
        let (a, b) = (v(0), v(1));
        let mut s = Affine::from_rows([lin(&[(a, 1)], -1), lin(&[(b, 1)], -5)]);
        s.assign_parallel(&[(a, Some(Linear::var(b))), (b, Some(Linear::var(a)))]);
        assert!(s.implies(&lin(&[(a, 1)], -5)) && s.implies(&lin(&[(b, 1)], -1)), "{s}");
    }
}
