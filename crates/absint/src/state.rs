//! The abstract state of one program point: an interval per SSA value.
//!
//! States are sparse maps from [`Value`] to [`Interval`]; a value that is
//! absent is unconstrained (top), so a state only stores what the analysis
//! learned and a function with thousands of loaded (top) values stays
//! cheap. `None` is the unreachable state. The state of a value that does
//! not dominate the point is stale but harmless: SSA forbids using it
//! there, and its definition overwrites it when executed again.

use crate::domain::Domain;
use crate::interval::Interval;
use std::collections::BTreeMap;
use walkdown_ir::Value;

/// Intervals of the SSA values of a function at one point, or unreachable.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct IntervalState {
    /// `None` when no execution reaches the point.
    pub(crate) map: Option<BTreeMap<Value, Interval>>,
}

impl IntervalState {
    /// The interval of `v` as stored (width-free; [`Interval::TOP`] when
    /// unconstrained or when the state is unreachable).
    pub fn get(&self, v: Value) -> Interval {
        match &self.map {
            Some(m) => m.get(&v).copied().unwrap_or(Interval::TOP),
            None => Interval::BOTTOM,
        }
    }
    /// Records `iv` for `v`; `full` says `iv` covers the value's type, so
    /// nothing needs storing. A bottom interval makes the state unreachable.
    pub(crate) fn set(&mut self, v: Value, iv: Interval, full: bool) {
        if iv.is_bottom() {
            self.map = None;
            return;
        }
        if let Some(m) = &mut self.map {
            if full {
                m.remove(&v);
            } else {
                m.insert(v, iv);
            }
        }
    }
    /// The values with a stored (non-top) interval, in id order.
    pub fn constrained(&self) -> impl Iterator<Item = (Value, Interval)> + '_ {
        self.map.iter().flat_map(|m| m.iter().map(|(v, i)| (*v, *i)))
    }
    fn pointwise(&self, o: &Self, f: impl Fn(&Interval, &Interval) -> Interval) -> Self {
        match (&self.map, &o.map) {
            (None, _) => o.clone(),
            (_, None) => self.clone(),
            (Some(a), Some(b)) => {
                // Keys missing on either side are top, and so is the result.
                let m = a
                    .iter()
                    .filter_map(|(v, x)| b.get(v).map(|y| (*v, f(x, y))))
                    .filter(|(_, r)| *r != Interval::TOP)
                    .collect();
                IntervalState { map: Some(m) }
            }
        }
    }
}

impl Domain for IntervalState {
    fn bottom() -> Self {
        IntervalState { map: None }
    }
    fn top() -> Self {
        IntervalState { map: Some(BTreeMap::new()) }
    }
    fn is_bottom(&self) -> bool {
        self.map.is_none()
    }
    fn join(&self, o: &Self) -> Self {
        self.pointwise(o, Interval::join)
    }
    fn leq(&self, o: &Self) -> bool {
        match (&self.map, &o.map) {
            (None, _) => true,
            (_, None) => false,
            (Some(a), Some(b)) => b.iter().all(|(v, y)| a.get(v).is_some_and(|x| x.leq(y))),
        }
    }
    fn widen(&self, o: &Self) -> Self {
        self.pointwise(o, Interval::widen)
    }
    fn narrow(&self, o: &Self) -> Self {
        match (&self.map, &o.map) {
            (None, _) | (_, None) => Self::bottom(),
            (Some(a), Some(b)) => {
                let mut m = a.clone();
                for (v, y) in b {
                    let x = a.get(v).copied().unwrap_or(Interval::TOP);
                    let n = x.narrow(y);
                    if n.is_bottom() {
                        return Self::bottom();
                    }
                    m.insert(*v, n);
                }
                IntervalState { map: Some(m) }
            }
        }
    }
}
