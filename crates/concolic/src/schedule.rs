//! The concolic engine's scheduling policies as decorators of a search
//! order, after KLEE's `lib/Core/Searcher.h` (where `InterleavedSearcher`
//! and `BatchingSearcher` wrap other searchers).
//!
//! The base order (`--search`, see [`crate::search`]) only ranks
//! candidates. Around it, each policy is one [`Searcher`] wrapping an inner
//! one, with its own figures:
//!
//! - [`SlowRetry`]: a query cut at a limit below the solver's own waits in
//!   its queue and is asked again later under a longer limit, taking turns
//!   with the fresh candidates so a slow query does not hold up quick ones.
//! - [`TryFirst`]: the annotation pass's `tryfirst` candidates go ahead of
//!   all others (once per site, up to a maximum).
//! - [`Deferred`]: candidates whose goal is covered wait until no candidate
//!   for an open goal is left; proved goals' candidates are dropped.
//! - [`MonitorNearest`]: among deferred candidates, those a model
//!   checker's monitor puts at a known distance from an open goal are tried
//!   nearest first, taking turns with the rest (`--monitor-order`).
//!
//! [`compose`] stacks them, outermost first, in the one order the engine
//! uses: slow retry, try-first, deferred (with monitor-nearest as its store
//! of deferred candidates when enabled), the base order. That order is the
//! priority: a slow query's turn comes before everything; try-first before
//! any candidate of the search; open goals before covered ones.

use crate::search::{Candidate, QueryLimit, Rng, SearchContext, SearchKind, Searcher};
use crate::symex::AltKind;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::time::{Duration, Instant};
use walkdown_campaign::GoalClosure;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::{Block, FuncId};

/// What came of asking the solver about a candidate (the feedback
/// decorators get through [`Searcher::asked`], as KLEE's `update`).
#[derive(Clone, Copy, Debug)]
pub struct Asked {
    /// How long the query took.
    pub elapsed: Duration,
    /// The query hit a limit below the solver's own: the candidate comes
    /// back, with a longer limit, through [`Searcher::add`].
    pub cut_short: bool,
    /// The answer was satisfiable.
    pub sat: bool,
}

/// Figures of [`SlowRetry`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SlowFigures {
    /// Candidates queued to be asked again.
    pub queued: u64,
    /// Of those asked again, the satisfiable ones.
    pub sat: u64,
    /// Queued candidates not asked again: their goal was settled meanwhile.
    pub dropped: u64,
}

/// Figures of [`TryFirst`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TryFirstFigures {
    /// Candidates given ahead of all others.
    pub taken: u64,
}

/// Figures of [`Deferred`].
#[derive(Clone, Copy, Debug, Default)]
pub struct DeferredFigures {
    /// Candidates of covered goals not tried because the monitor shows
    /// their edge leads to no open goal.
    pub pruned: u64,
}

/// Figures of [`MonitorNearest`].
#[derive(Clone, Copy, Debug, Default)]
pub struct NearestFigures {
    /// Candidates given in the order of the monitor's distance.
    pub ordered: u64,
    /// Candidates of its order not tried because the monitor (updated
    /// meanwhile) shows their edge leads to no open goal.
    pub pruned: u64,
}

/// The figures of every decorator of a composed searcher, each part
/// filled by its own decorator through [`Searcher::figures`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ScheduleFigures {
    /// See [`SlowRetry`].
    pub slow: SlowFigures,
    /// See [`TryFirst`].
    pub tryfirst: TryFirstFigures,
    /// See [`Deferred`].
    pub deferred: DeferredFigures,
    /// See [`MonitorNearest`].
    pub nearest: NearestFigures,
}

/// The settings [`compose`] reads.
#[derive(Clone, Debug)]
pub struct ScheduleSettings {
    /// The base order.
    pub search: SearchKind,
    /// [`TryFirst`]'s maximum.
    pub max_tryfirst: u64,
    /// Whether [`MonitorNearest`] orders the deferred candidates.
    pub monitor_order: bool,
}

/// The engine's searcher: the decorators around the base order, in their
/// one order (see the module doc).
pub fn compose(settings: &ScheduleSettings) -> Box<dyn Searcher> {
    let later: Box<dyn Searcher> = if settings.monitor_order {
        Box::new(MonitorNearest::new(settings.search.build()))
    } else {
        settings.search.build()
    };
    let deferred = Deferred::new(settings.search.build(), later);
    let tryfirst = TryFirst::new(Box::new(deferred), settings.max_tryfirst);
    Box::new(SlowRetry::new(Box::new(tryfirst)))
}

/// Whether the monitor shows the candidate's edge leads to no open goal:
/// the run it would start can only go through covered code.
fn leads_nowhere(c: &Candidate, ctx: &SearchContext<'_>) -> bool {
    let alt = c.alternative();
    alt.useless || alt.goal.is_some_and(|g| ctx.useless_edges.contains(&g))
}

/// Slow-query retry: candidates that come back with a later
/// [`QueryLimit`] wait here, first in first out, and are asked again when
/// their turn comes: once as much time has passed since the last slow
/// asking as it took (so slow queries get at most about half the time
/// while fresh candidates wait), or when the inner searcher has nothing.
pub struct SlowRetry {
    inner: Box<dyn Searcher>,
    queue: VecDeque<Candidate>,
    /// When a queued candidate may be asked again.
    turn_at: Instant,
    figures: SlowFigures,
}

impl SlowRetry {
    /// Retry around `inner`.
    pub fn new(inner: Box<dyn Searcher>) -> SlowRetry {
        SlowRetry { inner, queue: VecDeque::new(), turn_at: Instant::now(), figures: SlowFigures::default() }
    }

    /// The next queued candidate whose goal is still open: a slow query is
    /// asked again only for what nothing else has settled meanwhile.
    fn next_queued(&mut self, ctx: &SearchContext<'_>) -> Option<Candidate> {
        while let Some(c) = self.queue.pop_front() {
            match c.alternative().goal {
                Some(g) if ctx.closures[g.index()] != GoalClosure::Open => self.figures.dropped += 1,
                _ => return Some(c),
            }
        }
        None
    }
}

impl Searcher for SlowRetry {
    fn add(&mut self, candidate: Candidate) {
        if candidate.limit == QueryLimit::First {
            self.inner.add(candidate);
        } else {
            self.figures.queued += 1;
            self.queue.push_back(candidate);
        }
    }
    fn next(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        if Instant::now() >= self.turn_at {
            if let Some(c) = self.next_queued(ctx) {
                return Some(c);
            }
        }
        self.inner.next(ctx, rng).or_else(|| self.next_queued(ctx))
    }
    fn len(&self) -> usize {
        self.inner.len() + self.queue.len()
    }
    fn capped_len(&self) -> usize {
        // Bounded by the queries asked, not by the cap.
        self.inner.capped_len()
    }
    fn asked(&mut self, candidate: &Candidate, outcome: &Asked) {
        // A slow asking (a retry, or a first one cut short) defers the
        // next retry by as long as it took.
        if candidate.limit != QueryLimit::First || outcome.cut_short {
            self.turn_at = Instant::now() + outcome.elapsed;
        }
        if candidate.limit != QueryLimit::First && outcome.sat {
            self.figures.sat += 1;
        }
        self.inner.asked(candidate, outcome);
    }
    fn figures(&self, f: &mut ScheduleFigures) {
        f.slow = self.figures;
        self.inner.figures(f);
    }
}

/// Try-first: the first candidate of each `tryfirst` site (the way to
/// executions not verified) goes ahead of every other, first come first
/// served, up to a maximum (the paper's bound on interrupts). The same way
/// again from other prefixes (every path of a loop before a prune) waits
/// its turn in the inner searcher.
pub struct TryFirst {
    inner: Box<dyn Searcher>,
    queue: VecDeque<Candidate>,
    /// The sites whose candidate went ahead already.
    sites: HashSet<(FuncId, Block)>,
    max: u64,
    figures: TryFirstFigures,
}

impl TryFirst {
    /// Try-first around `inner`, letting at most `max` candidates ahead.
    pub fn new(inner: Box<dyn Searcher>, max: u64) -> TryFirst {
        TryFirst { inner, queue: VecDeque::new(), sites: HashSet::new(), max, figures: TryFirstFigures::default() }
    }
}

impl Searcher for TryFirst {
    fn add(&mut self, candidate: Candidate) {
        if candidate.alternative().kind == AltKind::TryFirst
            && self.figures.taken + (self.queue.len() as u64) < self.max
            && self.sites.insert(candidate.site)
        {
            self.queue.push_back(candidate);
        } else {
            self.inner.add(candidate);
        }
    }
    fn next(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        if let Some(c) = self.queue.pop_front() {
            self.figures.taken += 1;
            return Some(c);
        }
        self.inner.next(ctx, rng)
    }
    fn len(&self) -> usize {
        self.inner.len() + self.queue.len()
    }
    fn capped_len(&self) -> usize {
        // Bounded by its own maximum, not by the cap.
        self.inner.capped_len()
    }
    fn asked(&mut self, candidate: &Candidate, outcome: &Asked) {
        self.inner.asked(candidate, outcome);
    }
    fn figures(&self, f: &mut ScheduleFigures) {
        f.tryfirst = self.figures;
        self.inner.figures(f);
    }
}

/// Deferred: candidates come from the fresh order while it offers one for
/// an open goal (or one without a goal: a branch of library code, a
/// string walk). Those of covered goals are not dropped but moved to the
/// `later` store, tried once the fresh order is exhausted, since going
/// through covered branches is often the way to deeper ones; only branch
/// alternatives are kept (a covered check or
/// try-first way leads nowhere new). Candidates of proved goals are
/// dropped: the query could only be unsatisfiable.
pub struct Deferred {
    fresh: Box<dyn Searcher>,
    later: Box<dyn Searcher>,
    figures: DeferredFigures,
}

impl Deferred {
    /// Fresh candidates from `fresh`, covered ones kept in `later`.
    pub fn new(fresh: Box<dyn Searcher>, later: Box<dyn Searcher>) -> Deferred {
        Deferred { fresh, later, figures: DeferredFigures::default() }
    }

    /// The next deferred candidate; the monitor may have learnt meanwhile
    /// that a deferred edge leads nowhere.
    fn next_later(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        while let Some(c) = self.later.next(ctx, rng) {
            if leads_nowhere(&c, ctx) {
                self.figures.pruned += 1;
            } else {
                return Some(c);
            }
        }
        None
    }

    /// The next candidate of an open goal (or of none) from the fresh
    /// order; those of goals covered meanwhile go to `later`, those of
    /// proved goals are dropped.
    fn next_open(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        while let Some(c) = self.fresh.next(ctx, rng) {
            match c.alternative().goal {
                Some(g) if ctx.closures[g.index()] == GoalClosure::Proved => {}
                Some(g) if ctx.closures[g.index()] == GoalClosure::Covered => {
                    if leads_nowhere(&c, ctx) {
                        self.figures.pruned += 1;
                    } else if matches!(c.alternative().kind, AltKind::Branch) {
                        self.later.add(c);
                    }
                }
                _ => return Some(c),
            }
        }
        None
    }
}

impl Searcher for Deferred {
    fn add(&mut self, candidate: Candidate) {
        // Sorted when asked: a goal open now may be covered by then.
        self.fresh.add(candidate);
    }
    fn next(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        if let Some(c) = self.next_open(ctx, rng) {
            return Some(c);
        }
        self.next_later(ctx, rng)
    }
    fn len(&self) -> usize {
        self.fresh.len() + self.later.len()
    }
    fn capped_len(&self) -> usize {
        self.fresh.capped_len() + self.later.capped_len()
    }
    fn asked(&mut self, candidate: &Candidate, outcome: &Asked) {
        self.fresh.asked(candidate, outcome);
        self.later.asked(candidate, outcome);
    }
    fn figures(&self, f: &mut ScheduleFigures) {
        f.deferred = self.figures;
        self.fresh.figures(f);
        self.later.figures(f);
    }
}

/// Monitor-nearest: a store of deferred (covered-edge) candidates where
/// those a model checker's monitor places at a known number of branch
/// decisions from an open goal are tried nearest first (then oldest),
/// taking turns, one each, with the `rest` in its own order. Candidates
/// the monitor shows lead nowhere are dropped on the way out, so every
/// candidate it gives is worth trying.
pub struct MonitorNearest {
    rest: Box<dyn Searcher>,
    nearer: BTreeMap<(u32, u64), Candidate>,
    /// Whose turn it is: `nearer`'s or the rest's.
    turn: bool,
    figures: NearestFigures,
}

impl MonitorNearest {
    /// Monitor order in front of `rest`.
    pub fn new(rest: Box<dyn Searcher>) -> MonitorNearest {
        MonitorNearest { rest, nearer: BTreeMap::new(), turn: false, figures: NearestFigures::default() }
    }

    /// The nearest waiting candidate that still leads to an open goal.
    fn next_nearer(&mut self, ctx: &SearchContext<'_>) -> Option<Candidate> {
        while let Some((_, c)) = self.nearer.pop_first() {
            if leads_nowhere(&c, ctx) {
                self.figures.pruned += 1;
            } else {
                self.figures.ordered += 1;
                return Some(c);
            }
        }
        None
    }
}

impl Searcher for MonitorNearest {
    fn add(&mut self, candidate: Candidate) {
        match candidate.alternative().distance {
            // `NO_WAY - 1` and beyond: the monitor knows no way.
            Some(d) if d < walkdown_campaign::NO_WAY - 1 => {
                self.nearer.insert((d, candidate.seq), candidate);
            }
            _ => self.rest.add(candidate),
        }
    }
    fn next(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        self.turn = !self.turn;
        if self.turn || self.rest.is_empty() {
            if let Some(c) = self.next_nearer(ctx) {
                return Some(c);
            }
        }
        while let Some(c) = self.rest.next(ctx, rng) {
            if leads_nowhere(&c, ctx) {
                self.figures.pruned += 1;
            } else {
                return Some(c);
            }
        }
        self.next_nearer(ctx)
    }
    fn len(&self) -> usize {
        self.rest.len() + self.nearer.len()
    }
    fn capped_len(&self) -> usize {
        self.rest.capped_len() + self.nearer.len()
    }
    fn asked(&mut self, candidate: &Candidate, outcome: &Asked) {
        self.rest.asked(candidate, outcome);
    }
    fn figures(&self, f: &mut ScheduleFigures) {
        f.nearest = self.figures;
        self.rest.figures(f);
    }
}

#[cfg(test)]
mod tests {
    //! Each decorator's order and figures on hand-made candidates (the
    //! end-to-end behaviour is checked by the engine's and the CLI's tests).

    use super::*;
    use crate::distance::Distances;
    use crate::symex::Alternative;
    use std::rc::Rc;
    use walkdown_ir::goals::{GoalId, Goals};
    use walkdown_ir::Program;

    fn candidate(seq: u64, goal: Option<usize>, kind: AltKind, site: u32) -> Candidate {
        let pool = walkdown_smt::ExprPool::new();
        Candidate {
            path: Rc::from(Vec::new()),
            inputs: Rc::from(Vec::new()),
            vector: Rc::new(Default::default()),
            point: 0,
            prefix: 0,
            alt: Alternative {
                cond: pool.bool_const(true),
                goal: goal.map(GoalId::new),
                kind,
                target: None,
                useless: false,
                distance: None,
            },
            seq,
            run: 1,
            site: (FuncId::new(0), Block::new(site as usize)),
            limit: QueryLimit::First,
        }
    }

    /// Takes every candidate the searcher gives, by `seq`.
    fn drain(s: &mut dyn Searcher, closures: &[GoalClosure], useless: &HashSet<GoalId>) -> Vec<u64> {
        let distances = Distances::compute(&Program::default(), &Goals::default(), &[]);
        let ctx = SearchContext { distances: &distances, coverage_epoch: 0, closures, useless_edges: useless };
        let mut rng = Rng::new(1);
        std::iter::from_fn(|| s.next(&ctx, &mut rng)).map(|c| c.seq).collect()
    }

    fn figures(s: &dyn Searcher) -> ScheduleFigures {
        let mut f = ScheduleFigures::default();
        s.figures(&mut f);
        f
    }

    #[test]
    fn try_first_goes_ahead_once_per_site_up_to_its_maximum() {
        let mut s = TryFirst::new(SearchKind::Bfs.build(), 2);
        s.add(candidate(1, None, AltKind::Branch, 0));
        s.add(candidate(2, None, AltKind::TryFirst, 1));
        s.add(candidate(3, None, AltKind::TryFirst, 1)); // same site: waits
        s.add(candidate(4, None, AltKind::TryFirst, 2));
        s.add(candidate(5, None, AltKind::TryFirst, 3)); // beyond the maximum
        assert_eq!(s.capped_len(), 3);
        assert_eq!(drain(&mut s, &[], &HashSet::new()), [2, 4, 1, 3, 5]);
        assert_eq!(figures(&s).tryfirst.taken, 2);
    }

    #[test]
    fn deferred_tries_covered_branches_last_and_drops_proved_goals() {
        let closures = [GoalClosure::Open, GoalClosure::Covered, GoalClosure::Proved];
        let mut s = Deferred::new(SearchKind::Bfs.build(), SearchKind::Bfs.build());
        s.add(candidate(1, Some(1), AltKind::Branch, 0));
        s.add(candidate(2, Some(2), AltKind::Branch, 0));
        s.add(candidate(3, Some(0), AltKind::Branch, 0));
        s.add(candidate(4, Some(1), AltKind::TryFirst, 0)); // covered, not a branch
        s.add(candidate(5, Some(1), AltKind::Branch, 0));
        let useless: HashSet<GoalId> = HashSet::new();
        assert_eq!(drain(&mut s, &closures, &useless), [3, 1, 5]);
    }

    #[test]
    fn deferred_prunes_what_the_monitor_shows_leads_nowhere() {
        let closures = [GoalClosure::Covered, GoalClosure::Covered];
        let mut s = Deferred::new(SearchKind::Bfs.build(), SearchKind::Bfs.build());
        s.add(candidate(1, Some(0), AltKind::Branch, 0));
        s.add(candidate(2, Some(1), AltKind::Branch, 0));
        let useless: HashSet<GoalId> = [GoalId::new(1)].into_iter().collect();
        assert_eq!(drain(&mut s, &closures, &useless), [1]);
        assert_eq!(figures(&s).deferred.pruned, 1);
    }

    #[test]
    fn monitor_nearest_takes_turns_with_the_rest() {
        let mut s = MonitorNearest::new(SearchKind::Bfs.build());
        for (seq, d) in [(1, None), (2, Some(5)), (3, None), (4, Some(1)), (5, Some(walkdown_campaign::NO_WAY - 1))] {
            let mut c = candidate(seq, Some(0), AltKind::Branch, 0);
            c.alt.distance = d;
            s.add(c);
        }
        // Nearest first (4 at distance 1, then 2), the rest in their
        // order (5's distance says no way).
        assert_eq!(drain(&mut s, &[GoalClosure::Covered], &HashSet::new()), [4, 1, 2, 3, 5]);
        assert_eq!(figures(&s).nearest.ordered, 2);
    }

    #[test]
    fn slow_retry_holds_cut_queries_and_drops_settled_ones() {
        let mut s = SlowRetry::new(SearchKind::Bfs.build());
        s.add(candidate(1, Some(0), AltKind::Branch, 0));
        let mut again = candidate(2, Some(0), AltKind::Branch, 0);
        again.limit = QueryLimit::after(500, 10_000);
        assert_eq!(again.limit, QueryLimit::Again(Some(2_000)));
        s.add(again.clone());
        let mut settled = candidate(3, Some(1), AltKind::Branch, 0);
        settled.limit = QueryLimit::after(5_000, 10_000);
        assert_eq!(settled.limit, QueryLimit::Again(None));
        s.add(settled);
        // A slow asking puts the next retry off: the fresh one goes first.
        let outcome = Asked { elapsed: Duration::from_secs(60), cut_short: false, sat: true };
        s.asked(&again, &outcome);
        assert_eq!(s.capped_len(), 1);
        assert_eq!(drain(&mut s, &[GoalClosure::Open, GoalClosure::Covered], &HashSet::new()), [1, 2]);
        let f = figures(&s);
        assert_eq!((f.slow.queued, f.slow.sat, f.slow.dropped), (2, 1, 1));
    }

    #[test]
    fn compose_stacks_the_decorators_in_their_order() {
        let settings = ScheduleSettings { search: SearchKind::Bfs, max_tryfirst: 100, monitor_order: false };
        let mut s = compose(&settings);
        s.add(candidate(1, Some(1), AltKind::Branch, 0)); // covered: deferred
        s.add(candidate(2, Some(0), AltKind::Branch, 0));
        s.add(candidate(3, Some(0), AltKind::TryFirst, 1));
        let mut slow = candidate(4, Some(0), AltKind::Branch, 0);
        slow.limit = QueryLimit::Again(None);
        s.add(slow);
        // The slow one's turn has come (no slow asking yet).
        assert_eq!(drain(&mut *s, &[GoalClosure::Open, GoalClosure::Covered], &HashSet::new()), [4, 3, 2, 1]);
    }
}
