//! The solver interface every layer and backend implements, and the
//! statistics they report.
//!
//! A solver answers one question: is a conjunction of Boolean expressions
//! satisfiable, and if so, by which values. Layers (caches, slicing) wrap
//! another solver and answer some queries themselves; the backend at the
//! bottom of a stack is Z3.

use std::fmt;
use std::time::Duration;

use crate::eval::{ArrayValue, Assignment, Env, Memo};
use crate::expr::{ArrayId, ExprError, ExprId, ExprPool, Leaf, SymId};
use crate::hash::FxHashMap;

/// A satisfiability question: is the conjunction of `constraints` satisfiable?
///
/// **Convention: the last constraint is the one being asked about** (the
/// "focus"); the ones before it are the path condition so far. Callers put
/// the branch condition they want to flip (already negated) last. The
/// slicing layer keeps only the constraints that share symbols with the
/// focus, directly or through other constraints, and assumes the rest is
/// satisfiable, which holds when they are the path condition of a path that
/// was just executed. An empty query is trivially satisfiable.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// Boolean expressions, all of which must hold; the focus is last.
    pub constraints: &'a [ExprId],
}

impl<'a> Query<'a> {
    /// A query over `constraints`, whose last element is the focus.
    pub fn new(constraints: &'a [ExprId]) -> Self {
        Query { constraints }
    }

    /// The constraint being asked about, if any.
    pub fn focus(&self) -> Option<ExprId> {
        self.constraints.last().copied()
    }

    /// The constraints sorted by id without duplicates: the identity of the
    /// query, since hash-consing gives equal terms equal ids.
    pub fn key(&self) -> Box<[ExprId]> {
        let mut k = self.constraints.to_vec();
        k.sort_unstable();
        k.dedup();
        k.into_boxed_slice()
    }

    /// Every symbol and array the query depends on, sorted.
    pub fn leaves(&self, pool: &ExprPool) -> Vec<Leaf> {
        let mut out: Vec<Leaf> = Vec::new();
        for &c in self.constraints {
            out.extend_from_slice(pool.symbols_of(c));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A satisfying assignment. It gives a value to every symbol and array of
/// the query that was answered (Z3's model completion fills in the ones Z3
/// did not care about) and to nothing else, so callers merge it into their
/// current inputs with [`Assignment::extend_from`]. With slicing on, "the
/// query" is the slice: symbols only in dropped constraints are absent.
pub type Model = Assignment;

/// The answer to a [`Query`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Satisfiable, with a model.
    Sat(Model),
    /// Unsatisfiable.
    Unsat,
    /// The backend gave up; the reason is Z3's (e.g. "timeout").
    Unknown(String),
}

impl Answer {
    /// Whether the answer is `Sat`.
    pub fn is_sat(&self) -> bool {
        matches!(self, Answer::Sat(_))
    }

    /// Whether the answer is `Unsat`.
    pub fn is_unsat(&self) -> bool {
        matches!(self, Answer::Unsat)
    }

    /// The model of a `Sat` answer.
    pub fn model(&self) -> Option<&Model> {
        match self {
            Answer::Sat(m) => Some(m),
            _ => None,
        }
    }

    /// `Some(true)` for sat, `Some(false)` for unsat, `None` for unknown.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Answer::Sat(_) => Some(true),
            Answer::Unsat => Some(false),
            Answer::Unknown(_) => None,
        }
    }
}

/// Why a solver could not give an [`Answer`] at all (as opposed to
/// answering `Unknown`).
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// Building a helper expression failed (e.g. a non-Boolean constraint).
    #[error("expression: {0}")]
    Expr(#[from] ExprError),
    /// A constraint is not Boolean.
    #[error("constraint {0} is not Boolean")]
    NotBool(ExprId),
    /// Z3 refused an input or failed internally.
    #[error("z3: {0}")]
    Backend(String),
    /// Z3's model does not satisfy the query under [`ExprPool::eval`]: the
    /// translation and the evaluator disagree, which is a bug in one of them.
    #[error("model does not satisfy constraint {constraint}: {detail}")]
    BadModel {
        /// The first constraint that evaluated to false.
        constraint: ExprId,
        /// The constraint, printed.
        detail: String,
    },
}

/// What one layer of a solver stack did, for a one-line report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerStats {
    /// The layer's name (`"slicing"`, `"cache"`, `"cex-cache"`, `"z3"`).
    pub layer: &'static str,
    /// Queries that reached this layer.
    pub queries: u64,
    /// Queries this layer answered without asking the layer below.
    pub hits: u64,
    /// Answers that were sat.
    pub sat: u64,
    /// Answers that were unsat.
    pub unsat: u64,
    /// Answers that were unknown (or errors).
    pub unknown: u64,
    /// Wall time spent in this layer, including the layers below it.
    pub time: Duration,
    /// Layer-specific counters, e.g. constraints dropped by slicing.
    pub notes: Vec<(&'static str, u64)>,
}

impl fmt::Display for LayerStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<10} queries {:>7} hits {:>7} sat {:>7} unsat {:>7} unknown {:>5} time {:>9.3}s",
            self.layer,
            self.queries,
            self.hits,
            self.sat,
            self.unsat,
            self.unknown,
            self.time.as_secs_f64()
        )?;
        for (k, v) in &self.notes {
            write!(f, " {k} {v}")?;
        }
        Ok(())
    }
}

/// Counting shared by the layers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Counter {
    pub queries: u64,
    pub hits: u64,
    pub sat: u64,
    pub unsat: u64,
    pub unknown: u64,
    pub time: Duration,
}

impl Counter {
    pub fn record(&mut self, answer: &Result<Answer, SolverError>, hit: bool, time: Duration) {
        self.queries += 1;
        self.hits += u64::from(hit);
        self.time += time;
        match answer {
            Ok(Answer::Sat(_)) => self.sat += 1,
            Ok(Answer::Unsat) => self.unsat += 1,
            _ => self.unknown += 1,
        }
    }

    pub fn stats(&self, layer: &'static str, notes: Vec<(&'static str, u64)>) -> LayerStats {
        LayerStats {
            layer,
            queries: self.queries,
            hits: self.hits,
            sat: self.sat,
            unsat: self.unsat,
            unknown: self.unknown,
            time: self.time,
            notes,
        }
    }
}

/// Settings of a backend (Z3 or Bitwuzla).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendSettings {
    /// Wall-clock limit per query in milliseconds; `None` for no limit.
    /// A query that hits it is answered `Unknown("timeout")`. The default,
    /// 10 000 ms, is long enough for the queries of one branch of a
    /// Test-Comp task and short enough that a few hopeless ones cannot eat
    /// a 15-minute budget.
    pub timeout_ms: Option<u32>,
    /// Queries with more multiplications, divisions and remainders of two
    /// non-constant operands (counted once per distinct term, weighted by
    /// width / 8) are answered `Unknown("nonlinear budget")` without asking
    /// Z3: Z3 4.8 bit-blasts them in loops that neither its timeout nor an
    /// interrupt stops (seen: minutes on a 10 s limit). `None` for no
    /// budget. Default 64 (eight 64-bit products). Only the Z3 backend
    /// applies it: Bitwuzla's termination callback ends such queries.
    pub max_nonlinear: Option<u32>,
    /// Work limit per query in the backend's deterministic unit (Z3's
    /// `rlimit`, Bitwuzla's termination-callback calls; see
    /// [`Solver::work`]); `None` for none. Unlike the timeout it ends a
    /// query at the same point on every run, so a scheduler that needs
    /// reproducible answers uses it (with the timeout as a backstop).
    /// A query that hits it is answered `Unknown`. Default `None`.
    pub work_limit: Option<u32>,
}

impl Default for BackendSettings {
    fn default() -> Self {
        BackendSettings { max_nonlinear: Some(64), timeout_ms: Some(10_000), work_limit: None }
    }
}

/// A decision procedure for [`Query`]s, or a layer in front of one.
///
/// Solvers take the pool by shared reference on every call: the pool
/// only grows, so ids seen earlier stay valid, and a solver that keeps
/// per-node state watches [`ExprPool::uid`] to notice a different pool.
pub trait Solver {
    /// Answers a query. `Unknown` is an answer; `Err` means no answer.
    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError>;

    /// Appends one line per layer, this one first.
    fn stats(&self, out: &mut Vec<LayerStats>);

    /// A wall-clock deadline for every later query: the backend gives up
    /// (`Unknown`) by then at the latest, whatever its own timeout. Layers
    /// pass it down; the default ignores it.
    fn set_deadline(&mut self, _deadline: Option<std::time::Instant>) {}

    /// The backend's work so far in a deterministic unit (Z3's resource
    /// count): the same queries in the same order give the same figure on
    /// any machine, at any load, so schedulers can share time by it and
    /// stay reproducible. Layers pass it down; the default is 0.
    fn work(&self) -> u64 {
        0
    }

    /// Drops what the layer remembers only to answer faster (cached
    /// answers and models), for a memory bound; returns how many entries
    /// went. Layers pass it down; the default drops nothing.
    fn shed(&mut self) -> usize {
        0
    }

    /// Asserts `constraints` once for every later query, on an
    /// incremental backend (see [`crate::Z3Solver::incremental`]); a no-op
    /// elsewhere, layers included. Queries must still list them: they are
    /// what the returned model covers and is checked against, they are
    /// just not asserted again.
    fn assert_base(&mut self, _pool: &ExprPool, _constraints: &[ExprId]) -> Result<(), SolverError> {
        Ok(())
    }

    /// Whether the conjunction is satisfiable; `None` when unknown.
    fn is_sat(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<Option<bool>, SolverError> {
        Ok(self.check(pool, &Query::new(constraints))?.as_bool())
    }

    /// A model of the conjunction; `None` when unsat or unknown (use
    /// [`Solver::check`] to tell them apart).
    fn model(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<Option<Model>, SolverError> {
        Ok(match self.check(pool, &Query::new(constraints))? {
            Answer::Sat(m) => Some(m),
            _ => None,
        })
    }

    /// Whether `e` can hold together with `constraints` (asks
    /// `constraints ∧ e` with `e` as the focus); `None` when unknown.
    fn may_be_true(
        &mut self,
        pool: &mut ExprPool,
        constraints: &[ExprId],
        e: ExprId,
    ) -> Result<Option<bool>, SolverError> {
        let mut q = Vec::with_capacity(constraints.len() + 1);
        q.extend_from_slice(constraints);
        q.push(e);
        Ok(self.check(pool, &Query::new(&q))?.as_bool())
    }

    /// Whether `constraints` imply `e` (asks whether `constraints ∧ ¬e` is
    /// unsat, with `¬e` as the focus); `None` when unknown.
    fn must_be_true(
        &mut self,
        pool: &mut ExprPool,
        constraints: &[ExprId],
        e: ExprId,
    ) -> Result<Option<bool>, SolverError> {
        let ne = pool.not(e)?;
        let mut q = Vec::with_capacity(constraints.len() + 1);
        q.extend_from_slice(constraints);
        q.push(ne);
        Ok(self.check(pool, &Query::new(&q))?.as_bool().map(|sat| !sat))
    }
}

impl<S: Solver + ?Sized> Solver for Box<S> {
    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        (**self).check(pool, query)
    }
    fn stats(&self, out: &mut Vec<LayerStats>) {
        (**self).stats(out)
    }
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        (**self).set_deadline(deadline)
    }
    fn work(&self) -> u64 {
        (**self).work()
    }
    fn shed(&mut self) -> usize {
        (**self).shed()
    }
    fn assert_base(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<(), SolverError> {
        (**self).assert_base(pool, constraints)
    }
}

/// A backend's model of `query` as an [`Assignment`], checked: every
/// symbol of the query gets `sym_value`, and array contents are fetched
/// only where the query reads them (the evaluator runs the query and asks
/// `read_byte` for each byte it touches), which both fills the model and
/// checks it. A constraint the model does not satisfy is
/// [`SolverError::BadModel`]: the translation and the evaluator disagree.
pub(crate) fn checked_model(
    pool: &ExprPool,
    query: &Query<'_>,
    mut sym_value: impl FnMut(SymId) -> Result<u128, SolverError>,
    read_byte: impl FnMut(ArrayId, u128) -> Result<u8, SolverError>,
) -> Result<Assignment, SolverError> {
    let mut out = Assignment::new();
    for leaf in query.leaves(pool) {
        match leaf {
            Leaf::Sym(sym) => out.set_sym(sym, sym_value(sym)?),
            Leaf::Array(a) => out.set_array(a, ArrayValue::default()),
        }
    }
    let mut env = ModelReads { syms: &out, read_byte, reads: FxHashMap::default(), error: None };
    let mut memo = Memo::default();
    let failed = query.constraints.iter().copied().find(|&c| pool.eval_scalar(c, &mut env, &mut memo) != 1);
    if let Some(e) = env.error.take() {
        return Err(e);
    }
    for ((array, index), byte) in std::mem::take(&mut env.reads) {
        let mut cur = out.array(array).cloned().unwrap_or_default();
        cur.bytes.insert(index, byte);
        out.set_array(array, cur);
    }
    if let Some(c) = failed {
        return Err(SolverError::BadModel { constraint: c, detail: pool.display(c).to_string() });
    }
    Ok(out)
}

/// The evaluator's view of a backend's model (see [`checked_model`]).
struct ModelReads<'a, R> {
    syms: &'a Assignment,
    read_byte: R,
    reads: FxHashMap<(ArrayId, u128), u8>,
    error: Option<SolverError>,
}

impl<R: FnMut(ArrayId, u128) -> Result<u8, SolverError>> Env for ModelReads<'_, R> {
    fn sym(&mut self, sym: SymId) -> u128 {
        self.syms.sym(sym).unwrap_or(0)
    }

    fn read(&mut self, array: ArrayId, index: u128) -> u8 {
        if let Some(&b) = self.reads.get(&(array, index)) {
            return b;
        }
        match (self.read_byte)(array, index) {
            Ok(b) => {
                self.reads.insert((array, index), b);
                b
            }
            Err(e) => {
                self.error.get_or_insert(e);
                0
            }
        }
    }
}
