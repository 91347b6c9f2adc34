//! Search orders: which recorded alternative to try next.
//!
//! A [`Candidate`] is one alternative of one branch point of one traced
//! run. Searchers only order candidates; the engine decides which ones
//! exist (generational bounds) and which are worth solving (uncovered
//! goals first). Searchers see the current coverage through
//! [`SearchContext`], so `cfg-distance` can re-rank as goals get covered.
//! The engine's scheduling policies (slow-query retry, try-first,
//! deferred, monitor-nearest) wrap these orders as decorators of the same
//! trait: see [`crate::schedule`].

use crate::distance::Distances;
use crate::schedule::{Asked, ScheduleFigures};
use crate::symex::{Alternative, TracedInput};
use std::cmp::Reverse;
use std::collections::{HashSet, VecDeque};
use std::rc::Rc;
use walkdown_campaign::GoalClosure;
use walkdown_ir::goals::GoalId;
use walkdown_ir::{Block, FuncId};
use walkdown_smt::ExprId;

/// One alternative to try. It keeps only what solving needs of its run
/// (the path condition and the inputs, shared with the run's other
/// candidates), not the run's branch points.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The run's path condition.
    pub path: Rc<[ExprId]>,
    /// The run's inputs.
    pub inputs: Rc<[TracedInput]>,
    /// The vector of that run.
    pub vector: Rc<walkdown_ir::testvec::TestVector>,
    /// Index of the branch point in the run (the child's generation bound
    /// is one more).
    pub point: usize,
    /// Length of the path prefix that leads to the branch point.
    pub prefix: usize,
    /// The alternative.
    pub alt: Alternative,
    /// Creation order (ties are broken by it).
    pub seq: u64,
    /// Number of the run (execution) that produced it.
    pub run: u64,
    /// The site (function, block) of the branch point.
    pub site: (FuncId, Block),
    /// The limit its query is asked under: [`QueryLimit::First`] until a
    /// query cut short sends it back to [`crate::schedule::SlowRetry`].
    pub limit: QueryLimit,
}

/// Under which limit a candidate's query is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryLimit {
    /// The first asking: the engine's `quick_query_ms`.
    First,
    /// A later asking, under this many milliseconds; `None`: the solver's
    /// own limit.
    Again(Option<u32>),
}

/// How much longer each asking of a slow query may take than the last.
const SLOW_GROWTH: u32 = 4;

impl QueryLimit {
    /// The limit of the next asking after one under `ms` was cut short,
    /// with `full_ms` the solver's own limit.
    pub fn after(ms: u32, full_ms: u32) -> QueryLimit {
        let next = ms.saturating_mul(SLOW_GROWTH);
        QueryLimit::Again((next < full_ms).then_some(next))
    }
}

impl Candidate {
    /// The alternative.
    pub fn alternative(&self) -> &Alternative {
        &self.alt
    }
    /// Its depth: the length of the path condition that leads to it.
    pub fn depth(&self) -> usize {
        self.prefix
    }
}

/// What searchers may consult.
pub struct SearchContext<'a> {
    /// Distances of blocks to the nearest open goal.
    pub distances: &'a Distances,
    /// Changes whenever coverage changes (so rankings can be refreshed).
    pub coverage_epoch: u64,
    /// Where each goal stands in the campaign (indexed by goal).
    pub closures: &'a [GoalClosure],
    /// Branch-edge goals a model checker's monitor shows lead to no open
    /// goal (see [`walkdown_campaign::Guidance`]).
    pub useless_edges: &'a HashSet<GoalId>,
}

/// Orders candidates. The base orders only implement the first three
/// methods; the decorators of [`crate::schedule`] also the others, and
/// pass them on to the searchers they wrap.
pub trait Searcher {
    /// Adds a candidate.
    fn add(&mut self, candidate: Candidate);
    /// Removes and returns the candidate to try next.
    fn next(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate>;
    /// Number of waiting candidates.
    fn len(&self) -> usize;
    /// Whether none are waiting.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of waiting candidates the engine's cap on waiting
    /// candidates counts: decorators whose queue is bounded otherwise
    /// leave it out.
    fn capped_len(&self) -> usize {
        self.len()
    }
    /// What came of solving `candidate`, which this searcher gave (as
    /// KLEE's `Searcher::update`, the feedback a policy may need).
    fn asked(&mut self, _candidate: &Candidate, _outcome: &Asked) {}
    /// Fills in the figures of this searcher and of those it wraps.
    fn figures(&self, _figures: &mut ScheduleFigures) {}
}

/// The search orders `--search` accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchKind {
    /// Depth first: the newest candidate, deepest first.
    Dfs,
    /// Breadth first: candidates in the order they were found (SAGE's
    /// generations).
    Bfs,
    /// A candidate chosen uniformly at random.
    RandomBranch,
    /// Crest's uniform random search: from the newest run, walk its path
    /// and flip each branch with probability 1/2, so earlier branches are
    /// flipped more often.
    UniformRandom,
    /// The candidate whose other side is nearest, on the interprocedural
    /// control-flow graph, to a goal not yet covered.
    CfgDistance,
    /// Alternate between two orders, one candidate each.
    Interleave(Box<SearchKind>, Box<SearchKind>),
}

impl SearchKind {
    /// Parses `dfs`, `bfs`, `random-branch`, `uniform-random`,
    /// `cfg-distance`, or `A+B` for interleaving.
    pub fn parse(s: &str) -> Option<SearchKind> {
        if let Some((a, b)) = s.split_once('+') {
            return Some(SearchKind::Interleave(Box::new(SearchKind::parse(a)?), Box::new(SearchKind::parse(b)?)));
        }
        Some(match s.trim() {
            "dfs" => SearchKind::Dfs,
            "bfs" => SearchKind::Bfs,
            "random-branch" => SearchKind::RandomBranch,
            "uniform-random" => SearchKind::UniformRandom,
            "cfg-distance" => SearchKind::CfgDistance,
            _ => return None,
        })
    }

    /// The name `parse` accepts.
    pub fn name(&self) -> String {
        match self {
            SearchKind::Dfs => "dfs".into(),
            SearchKind::Bfs => "bfs".into(),
            SearchKind::RandomBranch => "random-branch".into(),
            SearchKind::UniformRandom => "uniform-random".into(),
            SearchKind::CfgDistance => "cfg-distance".into(),
            SearchKind::Interleave(a, b) => format!("{}+{}", a.name(), b.name()),
        }
    }

    /// A searcher of this kind.
    pub fn build(&self) -> Box<dyn Searcher> {
        match self {
            SearchKind::Dfs => Box::new(Dfs::default()),
            SearchKind::Bfs => Box::new(Bfs::default()),
            SearchKind::RandomBranch => Box::new(RandomBranch::default()),
            SearchKind::UniformRandom => Box::new(UniformRandom::default()),
            SearchKind::CfgDistance => Box::new(CfgDistance::default()),
            SearchKind::Interleave(a, b) => Box::new(Interleave { a: a.build(), b: b.build(), turn: false }),
        }
    }
}

/// Depth first.
#[derive(Default)]
pub struct Dfs {
    stack: Vec<Candidate>,
}

impl Searcher for Dfs {
    fn add(&mut self, candidate: Candidate) {
        self.stack.push(candidate);
    }
    fn next(&mut self, _: &SearchContext<'_>, _: &mut Rng) -> Option<Candidate> {
        self.stack.pop()
    }
    fn len(&self) -> usize {
        self.stack.len()
    }
}

/// Breadth first.
#[derive(Default)]
pub struct Bfs {
    queue: VecDeque<Candidate>,
}

impl Searcher for Bfs {
    fn add(&mut self, candidate: Candidate) {
        self.queue.push_back(candidate);
    }
    fn next(&mut self, _: &SearchContext<'_>, _: &mut Rng) -> Option<Candidate> {
        self.queue.pop_front()
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
}

/// Uniformly random choice among all waiting candidates.
#[derive(Default)]
pub struct RandomBranch {
    pool: Vec<Candidate>,
}

impl Searcher for RandomBranch {
    fn add(&mut self, candidate: Candidate) {
        self.pool.push(candidate);
    }
    fn next(&mut self, _: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        if self.pool.is_empty() {
            return None;
        }
        let i = rng.below(self.pool.len() as u64) as usize;
        Some(self.pool.swap_remove(i))
    }
    fn len(&self) -> usize {
        self.pool.len()
    }
}

/// Crest's uniform random search over the newest run's path.
#[derive(Default)]
pub struct UniformRandom {
    /// Candidates grouped by run, newest last; each group in path order.
    groups: Vec<Vec<Candidate>>,
    count: usize,
}

impl Searcher for UniformRandom {
    fn add(&mut self, candidate: Candidate) {
        match self.groups.last_mut() {
            Some(g) if g[0].run == candidate.run => g.push(candidate),
            _ => self.groups.push(vec![candidate]),
        }
        self.count += 1;
    }
    fn next(&mut self, _: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        let group = self.groups.last_mut()?;
        // Walk the path; flip each branch with probability 1/2.
        let mut i = 0;
        while i + 1 < group.len() && rng.below(2) == 1 {
            i += 1;
        }
        let c = group.remove(i);
        if group.is_empty() {
            self.groups.pop();
        }
        self.count -= 1;
        Some(c)
    }
    fn len(&self) -> usize {
        self.count
    }
}

/// Nearest to an open goal first.
#[derive(Default)]
pub struct CfgDistance {
    pool: Vec<Candidate>,
    scores: Vec<(u32, Reverse<u64>)>,
    epoch: Option<u64>,
}

impl CfgDistance {
    fn score(c: &Candidate, d: &Distances) -> (u32, Reverse<u64>) {
        let alt = c.alternative();
        let dist = match (alt.goal, alt.target) {
            (Some(g), _) if d.is_open(g) => 0,
            (_, Some((f, b))) => d.block(f, b).saturating_add(1),
            _ => u32::MAX,
        };
        (dist, Reverse(c.seq))
    }
}

impl Searcher for CfgDistance {
    fn add(&mut self, candidate: Candidate) {
        // Scored in `next`, which knows the distances: the pool's tail
        // beyond `scores` is unscored.
        self.pool.push(candidate);
    }
    fn next(&mut self, ctx: &SearchContext<'_>, _: &mut Rng) -> Option<Candidate> {
        if self.pool.is_empty() {
            return None;
        }
        if self.epoch != Some(ctx.coverage_epoch) {
            self.scores.clear();
            self.epoch = Some(ctx.coverage_epoch);
        }
        for c in &self.pool[self.scores.len()..] {
            self.scores.push(Self::score(c, ctx.distances));
        }
        let (i, _) = self.scores.iter().enumerate().min_by_key(|(_, s)| **s)?;
        self.scores.swap_remove(i);
        Some(self.pool.swap_remove(i))
    }
    fn len(&self) -> usize {
        self.pool.len()
    }
}

/// Two orders taking turns. Candidates are dealt to the two alternately,
/// so each order ranks its own half and nothing is tried twice.
pub struct Interleave {
    a: Box<dyn Searcher>,
    b: Box<dyn Searcher>,
    turn: bool,
}

impl Searcher for Interleave {
    fn add(&mut self, candidate: Candidate) {
        // Each candidate goes to one side, alternately, so both orders
        // always have work and nothing is tried twice.
        if candidate.seq.is_multiple_of(2) {
            self.a.add(candidate)
        } else {
            self.b.add(candidate)
        }
    }
    fn next(&mut self, ctx: &SearchContext<'_>, rng: &mut Rng) -> Option<Candidate> {
        self.turn = !self.turn;
        let (first, second) = if self.turn { (&mut self.a, &mut self.b) } else { (&mut self.b, &mut self.a) };
        first.next(ctx, rng).or_else(|| second.next(ctx, rng))
    }
    fn len(&self) -> usize {
        self.a.len() + self.b.len()
    }
}

/// A small deterministic generator (xorshift64*), seeded by `--seed`.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}
