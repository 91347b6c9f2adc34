//! Octagonal inequalities `±x ± y <= c` between two variables of the
//! relational product (single-variable bounds live in the intervals).
//!
//! The representation is sparse — a map from the pair and its signs to the
//! bound — and only *weakly* closed: adding a constraint derives the
//! constraints one transitive step away (`x - y <= a`, `y - z <= b` gives
//! `x - z <= a + b`), not the full closure. Every operation stays sound
//! (a missing constraint is a weaker state), and the cost stays linear in
//! the number of constraints per step, which matters since functions have
//! hundreds of SSA values. The state keeps at most [`MAX_CONSTRAINTS`].
//!
//! Joins and widenings need, for a constraint that only one side has, the
//! bound the other side implies through its intervals (`i == 0`,
//! `n >= 0` implies `i - n <= 0`); the caller passes the interval lookups,
//! so this module stays independent of the interval state.

use crate::affine::Var;
use crate::domain::Domain;
use crate::interval::Interval;
use std::collections::BTreeMap;
use std::fmt;

/// Constraints one state keeps at most; beyond it, new ones are dropped.
pub const MAX_CONSTRAINTS: usize = 256;

/// `sx * x + sy * y` with `x < y`; a sign is `true` for `+1`.
pub type Key = (Var, bool, Var, bool);

/// A conjunction of octagonal constraints (`None` bound never stored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Octagon {
    cons: BTreeMap<Key, i128>,
    bottom: bool,
}

/// The key of `sx*x + sy*y`, its variables in order.
pub fn key(x: Var, sx: bool, y: Var, sy: bool) -> Key {
    if x < y {
        (x, sx, y, sy)
    } else {
        (y, sy, x, sx)
    }
}

/// The largest value of `s * v` for `v` in `iv` (`None`: unbounded).
fn hi(iv: Interval, s: bool) -> Option<i128> {
    if iv.is_bottom() {
        return None;
    }
    let b = if s { iv.hi } else { iv.lo.checked_neg()? };
    (b != i128::MAX && b != i128::MIN).then_some(b)
}

/// The bound the intervals imply for `k` (`None`: unbounded).
pub fn implied(k: &Key, iv: &dyn Fn(Var) -> Interval) -> Option<i128> {
    hi(iv(k.0), k.1)?.checked_add(hi(iv(k.2), k.3)?)
}

impl Octagon {
    /// No constraint.
    pub fn top() -> Octagon {
        Octagon::default()
    }

    /// The contradiction.
    pub fn bottom() -> Octagon {
        Octagon { cons: BTreeMap::new(), bottom: true }
    }

    /// Whether a contradiction was found.
    pub fn is_bottom(&self) -> bool {
        self.bottom
    }

    /// The constraints.
    pub fn constraints(&self) -> impl Iterator<Item = (&Key, i128)> {
        self.cons.iter().map(|(k, &c)| (k, c))
    }

    /// The bound of `k`, if stored.
    pub fn bound(&self, k: &Key) -> Option<i128> {
        self.cons.get(k).copied()
    }

    /// Adds `sx * x + sy * y <= c` and the constraints one step away;
    /// unary consequences (`x == y`) are returned to the caller as
    /// `(var, sign, bound)`: `sign * var <= bound`.
    pub fn add(&mut self, x: Var, sx: bool, y: Var, sy: bool, c: i128) -> Vec<(Var, bool, i128)> {
        let mut unary = Vec::new();
        if self.bottom {
            return unary;
        }
        if x == y {
            if sx == sy {
                unary.push((x, sx, c.div_euclid(2)));
            } else if c < 0 {
                self.bottom = true;
            }
            return unary;
        }
        if !self.insert(key(x, sx, y, sy), c) {
            return unary;
        }
        // One transitive step through either variable: `sx x + sy y <= c`
        // and `-sy y + sz z <= d` give `sx x + sz z <= c + d`.
        let derived: Vec<(Var, bool, Var, bool, i128)> = self
            .cons
            .iter()
            .filter_map(|(&(a, sa, b, sb), &d)| {
                let sum = c.checked_add(d)?;
                if a == y && sa != sy {
                    Some((x, sx, b, sb, sum))
                } else if b == y && sb != sy {
                    Some((x, sx, a, sa, sum))
                } else if a == x && sa != sx {
                    Some((y, sy, b, sb, sum))
                } else if b == x && sb != sx {
                    Some((y, sy, a, sa, sum))
                } else {
                    None
                }
            })
            .collect();
        for (p, sp, q, sq, d) in derived {
            if p == q {
                if sp == sq {
                    unary.push((p, sp, d.div_euclid(2)));
                } else if d < 0 {
                    self.bottom = true;
                    return unary;
                }
            } else {
                self.insert(key(p, sp, q, sq), d);
            }
        }
        unary
    }

    /// Tightens `k` to `c`; false when nothing changed. Finds the
    /// contradiction with the opposite constraint.
    fn insert(&mut self, k: Key, c: i128) -> bool {
        let opposite = (k.0, !k.1, k.2, !k.3);
        if let Some(&d) = self.cons.get(&opposite) {
            if c.checked_add(d).is_some_and(|s| s < 0) {
                self.bottom = true;
                return false;
            }
        }
        let full = self.cons.len() >= MAX_CONSTRAINTS;
        match self.cons.get_mut(&k) {
            Some(old) if *old <= c => false,
            Some(old) => {
                *old = c;
                true
            }
            None if full => false,
            None => {
                self.cons.insert(k, c);
                true
            }
        }
    }

    /// Drops every constraint on `v`.
    pub fn forget(&mut self, v: Var) {
        self.cons.retain(|k, _| k.0 != v && k.2 != v);
    }

    /// `v := v + delta`.
    pub fn shift(&mut self, v: Var, delta: i128) {
        let old = std::mem::take(&mut self.cons);
        for (k, c) in old {
            let d = match (k.0 == v, k.2 == v) {
                (true, _) => {
                    if k.1 {
                        c.checked_add(delta)
                    } else {
                        c.checked_sub(delta)
                    }
                }
                (_, true) => {
                    if k.3 {
                        c.checked_add(delta)
                    } else {
                        c.checked_sub(delta)
                    }
                }
                _ => Some(c),
            };
            if let Some(d) = d {
                self.cons.insert(k, d);
            }
        }
    }

    /// `x := y + delta` for `y != x`: `x` inherits `y`'s constraints.
    pub fn assign_offset(&mut self, x: Var, y: Var, delta: i128) {
        self.forget(x);
        let inherited: Vec<(Var, bool, Var, bool, i128)> = self
            .cons
            .iter()
            .filter_map(|(&(a, sa, b, sb), &c)| {
                // s y + t z <= c  ==>  s x + t z <= c + s * delta.
                let shifted = |s: bool| if s { c.checked_add(delta) } else { c.checked_sub(delta) };
                if a == y {
                    Some((x, sa, b, sb, shifted(sa)?))
                } else if b == y {
                    Some((x, sb, a, sa, shifted(sb)?))
                } else {
                    None
                }
            })
            .collect();
        for (p, sp, q, sq, c) in inherited {
            self.insert(key(p, sp, q, sq), c);
        }
        self.insert(key(x, true, y, false), delta);
        self.insert(key(x, false, y, true), -delta);
    }

    /// Simultaneous `param_i := arg_i` (an argument `None` is not a
    /// variable): every constraint over arguments is copied to the
    /// parameters, constraints over the old parameters die.
    pub fn assign_parallel(&mut self, assigns: &[(Var, Option<Var>)]) {
        let assigned = |v: Var| assigns.iter().any(|(p, _)| *p == v);
        let images = |v: Var| -> Vec<Var> {
            let mut out: Vec<Var> = assigns.iter().filter(|(_, a)| *a == Some(v)).map(|(p, _)| *p).collect();
            if !assigned(v) {
                out.push(v);
            }
            out
        };
        let old = std::mem::take(&mut self.cons);
        let mut new: Vec<(Key, i128)> = Vec::new();
        for (k, c) in &old {
            for x in images(k.0) {
                for y in images(k.2) {
                    if x != y {
                        new.push((key(x, k.1, y, k.3), *c));
                    }
                }
            }
        }
        for &(p, a) in assigns {
            if let Some(a) = a.filter(|a| !assigned(*a)) {
                new.push((key(p, true, a, false), 0));
                new.push((key(p, false, a, true), 0));
            }
        }
        for (k, c) in new {
            if !self.bottom {
                self.insert(k, c);
            }
        }
    }

    /// The join: for each constraint of either side, the larger of the two
    /// sides' bounds (stored or implied by that side's intervals).
    pub fn join(&self, a_iv: &dyn Fn(Var) -> Interval, o: &Octagon, b_iv: &dyn Fn(Var) -> Interval) -> Octagon {
        if self.bottom {
            return o.clone();
        }
        if o.bottom {
            return self.clone();
        }
        let mut out = Octagon::top();
        for k in self.cons.keys().chain(o.cons.keys()) {
            if out.cons.contains_key(k) {
                continue;
            }
            let a = self.bound(k).into_iter().chain(implied(k, a_iv)).min();
            let b = o.bound(k).into_iter().chain(implied(k, b_iv)).min();
            if let (Some(a), Some(b)) = (a, b) {
                out.cons.insert(*k, a.max(b));
            }
        }
        out
    }

    /// The widening: the join, minus every constraint whose bound grew
    /// from `self` (the older state) to the join.
    pub fn widen(&self, a_iv: &dyn Fn(Var) -> Interval, o: &Octagon, b_iv: &dyn Fn(Var) -> Interval) -> Octagon {
        if self.bottom {
            return o.clone();
        }
        let j = self.join(a_iv, o, b_iv);
        let mut out = Octagon::top();
        for (k, &c) in &j.cons {
            if self.bound(k).is_some_and(|old| c <= old) {
                out.cons.insert(*k, c);
            }
        }
        out
    }

    /// Whether every constraint of `o` holds in `self` (stored or implied
    /// by `self`'s intervals).
    pub fn leq(&self, a_iv: &dyn Fn(Var) -> Interval, o: &Octagon) -> bool {
        if self.bottom {
            return true;
        }
        if o.bottom {
            return false;
        }
        o.cons.iter().all(|(k, &c)| self.bound(k).into_iter().chain(implied(k, a_iv)).min().is_some_and(|b| b <= c))
    }
}

/// `sx*x + sy*y <= c` in words (`-x + y <= 3`).
pub fn describe(&(x, sx, y, sy): &Key, c: i128) -> String {
    format!("{}{x} {} {y} <= {c}", if sx { "" } else { "-" }, if sy { "+" } else { "-" })
}

impl fmt::Display for Octagon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bottom {
            return f.write_str("⊥");
        }
        let all: Vec<String> = self.cons.iter().map(|(k, &c)| describe(k, c)).collect();
        f.write_str(&all.join(", "))
    }
}
