//! Solver layers that answer some queries without the backend: slicing by
//! independence, an exact query cache and a counterexample cache.
//!
//! Each wraps an inner [`Solver`] and passes on what it cannot answer.
//! Layers that remember answers forget them when they see a different
//! pool (see [`ExprPool::uid`]), since ids mean nothing across pools.

use std::collections::VecDeque;
use std::time::Instant;

use crate::expr::{ExprId, ExprPool, Leaf};
use crate::hash::FxHashMap;
use crate::solver::{Answer, Counter, LayerStats, Model, Query, Solver, SolverError};

/// Keeps only the constraints that share symbols with the query's focus
/// (its last constraint), directly or through other kept constraints.
///
/// Unsat answers are exact: a subset of the constraints is unsat only if
/// the whole is. Sat answers rely on the [`Query`] convention that the
/// dropped constraints are satisfiable on their own (they are the path
/// condition of an executed path); the model then covers the slice only
/// and the caller's current values satisfy the rest, since the rest shares
/// no symbol with the slice.
pub struct SlicingSolver<S> {
    inner: S,
    counter: Counter,
    kept: u64,
    dropped: u64,
}

impl<S: Solver> SlicingSolver<S> {
    /// Slices queries before passing them to `inner`.
    pub fn new(inner: S) -> Self {
        SlicingSolver { inner, counter: Counter::default(), kept: 0, dropped: 0 }
    }

    /// The solver below this layer.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

/// The constraints of `query` connected to its focus through shared
/// symbols, in their original order (so the focus stays last). Ground
/// constraints (no symbols; only constants after folding) are kept, since
/// a `false` among them decides the query.
pub fn slice(pool: &ExprPool, query: &Query<'_>) -> Vec<ExprId> {
    let cs = query.constraints;
    if cs.is_empty() {
        return Vec::new();
    }
    // Union-find over symbols: every constraint joins all its symbols.
    let mut index: FxHashMap<Leaf, usize> = FxHashMap::default();
    let mut parent: Vec<usize> = Vec::new();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut first_of = Vec::with_capacity(cs.len());
    for &c in cs {
        let mut first: Option<usize> = None;
        for &leaf in pool.symbols_of(c) {
            let n = parent.len();
            let i = *index.entry(leaf).or_insert_with(|| {
                parent.push(n);
                n
            });
            match first {
                None => first = Some(i),
                Some(f) => {
                    let (ra, rb) = (find(&mut parent, f), find(&mut parent, i));
                    if ra != rb {
                        parent[rb] = ra;
                    }
                }
            }
        }
        first_of.push(first);
    }
    let focus_root = first_of.last().copied().flatten().map(|i| find(&mut parent, i));
    let mut out = Vec::new();
    for (k, &c) in cs.iter().enumerate() {
        let keep = match first_of[k] {
            None => true,
            Some(i) => Some(find(&mut parent, i)) == focus_root,
        };
        if keep {
            out.push(c);
        }
    }
    out
}

impl<S: Solver> Solver for SlicingSolver<S> {
    fn shed(&mut self) -> usize {
        self.inner.shed()
    }
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.inner.set_deadline(deadline)
    }

    fn work(&self) -> u64 {
        self.inner.work()
    }

    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let start = Instant::now();
        let sliced = slice(pool, query);
        let shrunk = sliced.len() < query.constraints.len();
        self.kept += sliced.len() as u64;
        self.dropped += (query.constraints.len() - sliced.len()) as u64;
        let answer = if shrunk { self.inner.check(pool, &Query::new(&sliced)) } else { self.inner.check(pool, query) };
        // A "hit" here is a query this layer made smaller.
        self.counter.record(&answer, shrunk, start.elapsed());
        answer
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        out.push(self.counter.stats("slicing", vec![("kept", self.kept), ("dropped", self.dropped)]));
        self.inner.stats(out);
    }
}

/// How near the deadline an `Unknown` counts as cut short by it (Z3's
/// limit is in whole milliseconds).
const DEADLINE_SLACK: std::time::Duration = std::time::Duration::from_millis(10);

/// How many answers the exact cache keeps before dropping the oldest.
pub const DEFAULT_CACHE_CAPACITY: usize = 100_000;

/// Remembers answers by the query's constraint set ([`Query::key`]).
///
/// `Unknown` answers are remembered too: asking again would most likely
/// burn the same timeout for the same result. Not those the deadline cut
/// short, though: they say nothing about the query, and a caller that set
/// a near deadline on purpose asks again with a later one.
pub struct CachingSolver<S> {
    inner: S,
    deadline: Option<Instant>,
    pool_uid: u64,
    answers: FxHashMap<Box<[ExprId]>, Answer>,
    order: VecDeque<Box<[ExprId]>>,
    capacity: usize,
    counter: Counter,
}

impl<S: Solver> CachingSolver<S> {
    /// A cache of [`DEFAULT_CACHE_CAPACITY`] answers in front of `inner`.
    pub fn new(inner: S) -> Self {
        Self::with_capacity(inner, DEFAULT_CACHE_CAPACITY)
    }

    /// A cache of at most `capacity` answers (at least one).
    pub fn with_capacity(inner: S, capacity: usize) -> Self {
        CachingSolver {
            inner,
            deadline: None,
            pool_uid: 0,
            answers: FxHashMap::default(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
            counter: Counter::default(),
        }
    }

    /// The solver below this layer.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Solver> Solver for CachingSolver<S> {
    fn shed(&mut self) -> usize {
        let n = self.answers.len();
        self.answers = FxHashMap::default();
        self.order = VecDeque::new();
        n + self.inner.shed()
    }
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.deadline = deadline;
        self.inner.set_deadline(deadline)
    }

    fn work(&self) -> u64 {
        self.inner.work()
    }

    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let start = Instant::now();
        if pool.uid() != self.pool_uid {
            self.answers.clear();
            self.order.clear();
            self.pool_uid = pool.uid();
        }
        let key = query.key();
        if let Some(a) = self.answers.get(&key) {
            let answer = Ok(a.clone());
            self.counter.record(&answer, true, start.elapsed());
            return answer;
        }
        let answer = self.inner.check(pool, query);
        let cut_short = matches!(answer, Ok(Answer::Unknown(_)))
            && self.deadline.is_some_and(|d| Instant::now() + DEADLINE_SLACK >= d);
        if let (Ok(a), false) = (&answer, cut_short) {
            if self.order.len() >= self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.answers.remove(&old);
                }
            }
            self.order.push_back(key.clone());
            self.answers.insert(key, a.clone());
        }
        self.counter.record(&answer, false, start.elapsed());
        answer
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        out.push(self.counter.stats("cache", vec![("entries", self.answers.len() as u64)]));
        self.inner.stats(out);
    }
}

/// How many models and unsat sets the counterexample cache keeps.
pub const DEFAULT_CEX_CAPACITY: usize = 64;

/// The counterexample cache (as in KLEE): tries recent models on a new
/// query, and recognises a query that contains a constraint set already
/// found unsat.
///
/// Successive queries along one path differ in a constraint or two, so an
/// old model often still fits; checking it with [`ExprPool::satisfies`]
/// costs far less than a solver call. A remembered model is used only if
/// it gives a value to every symbol of the query, and the answer carries
/// only those values.
pub struct CexCachingSolver<S> {
    inner: S,
    pool_uid: u64,
    models: VecDeque<Model>,
    unsat_sets: VecDeque<Box<[ExprId]>>,
    capacity: usize,
    counter: Counter,
    sat_hits: u64,
    unsat_hits: u64,
}

impl<S: Solver> CexCachingSolver<S> {
    /// A counterexample cache of [`DEFAULT_CEX_CAPACITY`] entries of each kind.
    pub fn new(inner: S) -> Self {
        Self::with_capacity(inner, DEFAULT_CEX_CAPACITY)
    }

    /// A counterexample cache of `capacity` models and as many unsat sets.
    pub fn with_capacity(inner: S, capacity: usize) -> Self {
        CexCachingSolver {
            inner,
            pool_uid: 0,
            models: VecDeque::new(),
            unsat_sets: VecDeque::new(),
            capacity: capacity.max(1),
            counter: Counter::default(),
            sat_hits: 0,
            unsat_hits: 0,
        }
    }

    /// The solver below this layer.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn lookup(&mut self, pool: &ExprPool, query: &Query<'_>, key: &[ExprId]) -> Option<Answer> {
        if self.unsat_sets.iter().any(|set| is_subset(set, key)) {
            self.unsat_hits += 1;
            return Some(Answer::Unsat);
        }
        let leaves = query.leaves(pool);
        // Most recent first: the last model is the likeliest to fit.
        let found =
            self.models.iter().rev().position(|m| m.assigns_all(&leaves) && pool.satisfies(query.constraints, m))?;
        let m = &self.models[self.models.len() - 1 - found];
        let mut restricted = Model::new();
        for &leaf in &leaves {
            match leaf {
                Leaf::Sym(s) => {
                    if let Some(v) = m.sym(s) {
                        restricted.set_sym(s, v);
                    }
                }
                Leaf::Array(a) => {
                    if let Some(v) = m.array(a) {
                        restricted.set_array(a, v.clone());
                    }
                }
            }
        }
        self.sat_hits += 1;
        Some(Answer::Sat(restricted))
    }
}

// Both slices sorted and without duplicates.
fn is_subset(small: &[ExprId], big: &[ExprId]) -> bool {
    let mut j = 0;
    for &x in small {
        while j < big.len() && big[j] < x {
            j += 1;
        }
        if j == big.len() || big[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

impl<S: Solver> Solver for CexCachingSolver<S> {
    fn shed(&mut self) -> usize {
        let n = self.models.len() + self.unsat_sets.len();
        self.models = VecDeque::new();
        self.unsat_sets = VecDeque::new();
        n + self.inner.shed()
    }
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.inner.set_deadline(deadline)
    }

    fn work(&self) -> u64 {
        self.inner.work()
    }

    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let start = Instant::now();
        if pool.uid() != self.pool_uid {
            self.models.clear();
            self.unsat_sets.clear();
            self.pool_uid = pool.uid();
        }
        let key = query.key();
        if let Some(a) = self.lookup(pool, query, &key) {
            let answer = Ok(a);
            self.counter.record(&answer, true, start.elapsed());
            return answer;
        }
        let answer = self.inner.check(pool, query);
        match &answer {
            Ok(Answer::Sat(m)) => {
                if self.models.len() >= self.capacity {
                    self.models.pop_front();
                }
                self.models.push_back(m.clone());
            }
            Ok(Answer::Unsat) => {
                if self.unsat_sets.len() >= self.capacity {
                    self.unsat_sets.pop_front();
                }
                self.unsat_sets.push_back(key);
            }
            _ => {}
        }
        self.counter.record(&answer, false, start.elapsed());
        answer
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        out.push(self.counter.stats("cex-cache", vec![("sat-hits", self.sat_hits), ("unsat-hits", self.unsat_hits)]));
        self.inner.stats(out);
    }
}
