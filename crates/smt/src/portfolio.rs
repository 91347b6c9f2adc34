//! The portfolio backend: each query goes to the backend that measured
//! best on its class.
//!
//! The class is what `docs/solvers.md` measured a difference on: queries
//! with floating-point terms go to Bitwuzla, which answers float queries
//! no Z3 mode answers (`product.c`'s `v * 3.0 == 7.5 && w / v == 0.125`),
//! and every other query to Z3, which answers the many small bit-vector
//! and array queries of concolic testing faster. A per-query race was the
//! other option the issue names; it would run both solvers on every query,
//! which on the two cores walkdown is sized for takes a core from the
//! campaign's other worker.
//!
//! An incremental portfolio picks its backend once, by the class of the
//! base constraints ([`Solver::assert_base`]), since the point of one is
//! that a single solver keeps them.

use std::time::Instant;

use crate::bitwuzla::BitwuzlaSolver;
use crate::expr::{ExprId, ExprPool};
use crate::solver::{Answer, BackendSettings, LayerStats, Query, Solver, SolverError};
use crate::z3backend::Z3Solver;

/// Answers float queries with Bitwuzla and the rest with Z3.
pub struct PortfolioSolver {
    settings: BackendSettings,
    incremental: bool,
    z3: Option<Z3Solver>,
    bitwuzla: Option<BitwuzlaSolver>,
    /// An incremental portfolio's choice, made at its first base.
    chosen_floats: Option<bool>,
    deadline: Option<Instant>,
}

impl PortfolioSolver {
    /// A portfolio whose backends get `settings`; `incremental` as for
    /// [`crate::Backend::make`].
    pub fn new(settings: BackendSettings, incremental: bool) -> Self {
        PortfolioSolver { settings, incremental, z3: None, bitwuzla: None, chosen_floats: None, deadline: None }
    }

    /// The backend for queries of this class, made on first use.
    fn pick(&mut self, floats: bool) -> &mut dyn Solver {
        let (settings, incremental, deadline) = (self.settings, self.incremental, self.deadline);
        if floats {
            self.bitwuzla.get_or_insert_with(|| {
                let mut s =
                    if incremental { BitwuzlaSolver::incremental(settings) } else { BitwuzlaSolver::new(settings) };
                s.set_deadline(deadline);
                s
            })
        } else {
            self.z3.get_or_insert_with(|| {
                let mut s = if incremental { Z3Solver::incremental(settings) } else { Z3Solver::new(settings) };
                s.set_deadline(deadline);
                s
            })
        }
    }

    fn class(&self, pool: &ExprPool, constraints: &[ExprId]) -> bool {
        match self.chosen_floats {
            Some(f) => f,
            None => pool.uses_arrays_and_floats(constraints).1,
        }
    }
}

impl Solver for PortfolioSolver {
    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let floats = self.class(pool, query.constraints);
        self.pick(floats).check(pool, query)
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        if let Some(s) = &self.z3 {
            s.stats(out);
        }
        if let Some(s) = &self.bitwuzla {
            s.stats(out);
        }
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
        if let Some(s) = &mut self.z3 {
            s.set_deadline(deadline);
        }
        if let Some(s) = &mut self.bitwuzla {
            s.set_deadline(deadline);
        }
    }

    fn work(&self) -> u64 {
        self.z3.as_ref().map_or(0, |s| s.work()) + self.bitwuzla.as_ref().map_or(0, |s| s.work())
    }

    fn assert_base(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<(), SolverError> {
        if !self.incremental {
            return Ok(());
        }
        let floats = self.class(pool, constraints);
        self.chosen_floats = Some(floats);
        self.pick(floats).assert_base(pool, constraints)
    }
}
