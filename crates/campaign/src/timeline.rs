//! Goals by verdict over time: the campaign records a point whenever a
//! verdict changes the counts, so a reader can draw covered, unreachable,
//! infeasible and open goals against time.
//!
//! Why the campaign records it rather than a writer deriving it: the tests'
//! times give the covered curve alone, and a goal's final verdict hides
//! what it was before (a goal infeasible within unwinding 2 that a later
//! test covers counted as infeasible until then). Only the ledger sees
//! every change as it happens.
//!
//! The series stays small: a point only when the counts change, and
//! changes within [`RESOLUTION_S`] of the last point fold into it, so a
//! burst of proofs (the static pass settles hundreds of goals at once) is
//! one point.

/// Changes closer together than this (seconds) share one point.
pub const RESOLUTION_S: f64 = 0.01;

/// The goal counts by verdict at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerdictCounts {
    /// Covered by a kept test.
    pub covered: usize,
    /// Proved unreachable.
    pub unreachable: usize,
    /// Infeasible within a bound.
    pub infeasible: usize,
    /// Open.
    pub open: usize,
}

impl VerdictCounts {
    /// The count of a verdict word ([`crate::Verdict::word`]).
    fn slot(&mut self, word: &str) -> &mut usize {
        match word {
            "covered" => &mut self.covered,
            "unreachable" => &mut self.unreachable,
            "infeasible" => &mut self.infeasible,
            _ => &mut self.open,
        }
    }
}

/// One point of the series: the counts from `at_s` seconds after the
/// campaign's start until the next point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelinePoint {
    /// Seconds since the start.
    pub at_s: f64,
    /// The counts from then on.
    pub counts: VerdictCounts,
}

/// The series, starting with every goal open at 0 s.
#[derive(Clone, Debug)]
pub struct Timeline {
    counts: VerdictCounts,
    points: Vec<TimelinePoint>,
}

impl Timeline {
    /// `goals` goals, all open.
    pub fn new(goals: usize) -> Timeline {
        let counts = VerdictCounts { open: goals, ..VerdictCounts::default() };
        Timeline { counts, points: vec![TimelinePoint { at_s: 0.0, counts }] }
    }

    /// One goal went from verdict `old` to `new` (their words) at `at_s`.
    pub fn change(&mut self, at_s: f64, old: &str, new: &str) {
        if old == new {
            return;
        }
        *self.counts.slot(old) -= 1;
        *self.counts.slot(new) += 1;
        let counts = self.counts;
        match self.points.last_mut() {
            Some(last) if at_s - last.at_s < RESOLUTION_S && last.at_s > 0.0 => last.counts = counts,
            _ => self.points.push(TimelinePoint { at_s, counts }),
        }
    }

    /// The points so far.
    pub fn points(&self) -> &[TimelinePoint] {
        &self.points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_follow_the_counts_and_fold_bursts() {
        let mut t = Timeline::new(4);
        t.change(0.5, "open", "unreachable");
        t.change(0.505, "open", "unreachable");
        t.change(1.0, "open", "infeasible");
        t.change(1.5, "infeasible", "infeasible");
        t.change(2.0, "infeasible", "covered");
        let counts: Vec<(f64, [usize; 4])> = t
            .points()
            .iter()
            .map(|p| (p.at_s, [p.counts.covered, p.counts.unreachable, p.counts.infeasible, p.counts.open]))
            .collect();
        assert_eq!(counts, vec![(0.0, [0, 0, 0, 4]), (0.5, [0, 2, 0, 2]), (1.0, [0, 2, 1, 1]), (2.0, [1, 2, 0, 1])]);
    }
}
