//! Assembling the standard solver stack from settings.

use crate::backend::Backend;
use crate::expr::ExprPool;
use crate::layers::{CachingSolver, CexCachingSolver, SlicingSolver};
use crate::solver::BackendSettings;
use crate::solver::{Answer, LayerStats, Query, Solver, SolverError};

/// Which layers a [`SolverStack`] has, and the backend's timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolverSettings {
    /// The exact query cache ([`CachingSolver`]).
    pub cache: bool,
    /// Independence slicing ([`SlicingSolver`]).
    pub slicing: bool,
    /// The counterexample cache ([`CexCachingSolver`]).
    pub cex_cache: bool,
    /// The backend's per-query limit in milliseconds (see
    /// [`BackendSettings::timeout_ms`]).
    pub timeout_ms: Option<u32>,
    /// The backend's per-query work limit (see
    /// [`BackendSettings::work_limit`]).
    pub work_limit: Option<u32>,
}

impl Default for SolverSettings {
    /// Every layer on, 10 s per query.
    fn default() -> Self {
        SolverSettings {
            cache: true,
            slicing: true,
            cex_cache: true,
            timeout_ms: BackendSettings::default().timeout_ms,
            work_limit: None,
        }
    }
}

/// A solver made of the enabled layers over a backend (Z3 or Bitwuzla).
///
/// The order is slicing → cache → counterexample cache → backend:
/// - slicing comes first so the caches see the slice, not the whole path
///   condition: queries that differ only in unrelated constraints then
///   share cache entries, and the counterexample cache has fewer
///   constraints to evaluate and fewer symbols a model must cover;
/// - the exact cache comes before the counterexample cache because a hash
///   lookup is cheaper than evaluating up to 64 models;
/// - the counterexample cache is last before the backend so it learns
///   from every answer the backend gives.
///
/// It holds backend terms (Z3's belong to the thread-local Z3 context,
/// Bitwuzla's to a term manager that is not thread-safe), so a
/// stack stays on the thread that built it.
pub struct SolverStack {
    top: Box<dyn Solver>,
}

impl SolverSettings {
    /// The backend settings these stand for (the per-query limits).
    pub fn backend(&self) -> BackendSettings {
        BackendSettings { timeout_ms: self.timeout_ms, work_limit: self.work_limit, ..BackendSettings::default() }
    }
}

impl SolverStack {
    /// Builds the stack over a fresh backend of the selected kind (see
    /// [`crate::backend::selected`]).
    pub fn build(settings: &SolverSettings) -> Self {
        Self::build_with(settings, crate::backend::selected())
    }

    /// Builds the stack over a fresh backend of kind `backend`.
    pub fn build_with(settings: &SolverSettings, backend: Backend) -> Self {
        let backend = backend.make(settings.backend(), false);
        Self::build_on(settings, backend)
    }

    /// Builds the layers of `settings` over any backend (its timeout
    /// setting is then ignored); used to test the layers in isolation.
    pub fn build_on(settings: &SolverSettings, backend: Box<dyn Solver>) -> Self {
        let mut s: Box<dyn Solver> = backend;
        if settings.cex_cache {
            s = Box::new(CexCachingSolver::new(s));
        }
        if settings.cache {
            s = Box::new(CachingSolver::new(s));
        }
        if settings.slicing {
            s = Box::new(SlicingSolver::new(s));
        }
        SolverStack { top: s }
    }

    /// One line per layer, top first, the backend last.
    pub fn report(&self) -> Vec<LayerStats> {
        let mut out = Vec::new();
        self.top.stats(&mut out);
        out
    }
}

impl Solver for SolverStack {
    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        self.top.check(pool, query)
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        self.top.stats(out)
    }

    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.top.set_deadline(deadline)
    }

    fn shed(&mut self) -> usize {
        self.top.shed()
    }

    fn work(&self) -> u64 {
        self.top.work()
    }
}
