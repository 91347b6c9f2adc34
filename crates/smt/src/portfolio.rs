//! The portfolio backend: each query goes to the backend that measured
//! best on its class, as long as that keeps proofs on the solver they are
//! safest with.
//!
//! The classes are the differences `docs/solvers.md` measured:
//! - the bounded engine's queries (its covers and unwinding checks),
//!   induction's and the witness check's (the engine label of
//!   [`crate::dump::current_engine`]) go to Bitwuzla: on the query corpus
//!   it times out on 2 of them where Z3 5.4.1 times out on 16 (the bounded
//!   engine's and induction's array queries above all), and it proves
//!   tasks Z3 leaves infeasible within a bound (`gauss_sum`, `s3_clnt_1`,
//!   `heapsort`);
//! - the model checker's stay with Z3: its many small queries are as
//!   quick there, and with them on Bitwuzla the model checker refined
//!   otherwise and the concolic search the campaign guides with its
//!   abstraction covered less of `utf8.c` (three seeds of four);
//! - queries with floating-point terms stay with Z3 in every engine that
//!   claims proofs: the SymFPU Bitwuzla is built with here is older than
//!   the one it asks for, and an `unsat` on a float query there would be
//!   a proof no model checks;
//! - concolic testing's float queries go to Bitwuzla, which answers some
//!   no Z3 mode answers (`product.c`'s `v * 3.0 == 7.5 && w / v ==
//!   0.125`); a `sat` there gives a model the evaluator checks, and an
//!   `unsat` costs at most a test, never a proof;
//! - every other query (concolic testing's many small bit-vector and array
//!   queries, and those asked outside the engines) goes to Z3, which
//!   answers them faster, so the search runs more executions.
//!
//! A per-query race was the other option the issue names; it would run
//! both solvers on every query, which on the two cores walkdown is sized
//! for takes a core from the campaign's other worker.
//!
//! An incremental portfolio picks its backend once, by the class of the
//! base constraints ([`Solver::assert_base`]), since the point of one is
//! that a single solver keeps them.

use std::time::Instant;

use crate::bitwuzla::BitwuzlaSolver;
use crate::expr::{ExprId, ExprPool};
use crate::solver::{Answer, BackendSettings, LayerStats, Query, Solver, SolverError};
use crate::z3backend::Z3Solver;

/// The engines whose queries without floats go to Bitwuzla, by their
/// corpus label (the proof engines but the model checker, see the module
/// doc).
const BITWUZLA_ENGINES: [&str; 3] = ["bmc", "induction", "certify"];

/// The engine whose queries with floats go to Bitwuzla: the one whose
/// `unsat` never becomes a proof.
const FLOATS_TO_BITWUZLA: &str = "concolic";

/// Answers the bounded engine's, induction's and the witness check's
/// queries without floats, and concolic testing's with floats, with
/// Bitwuzla; the rest with Z3.
pub struct PortfolioSolver {
    settings: BackendSettings,
    incremental: bool,
    z3: Option<Z3Solver>,
    bitwuzla: Option<BitwuzlaSolver>,
    /// An incremental portfolio's choice (Bitwuzla?), made at its first
    /// base.
    chosen: Option<bool>,
    deadline: Option<Instant>,
}

impl PortfolioSolver {
    /// A portfolio whose backends get `settings`; `incremental` as for
    /// [`crate::Backend::make`].
    pub fn new(settings: BackendSettings, incremental: bool) -> Self {
        PortfolioSolver { settings, incremental, z3: None, bitwuzla: None, chosen: None, deadline: None }
    }

    /// The backend for queries of this class (Bitwuzla's or Z3's), made
    /// on first use.
    fn pick(&mut self, bitwuzla: bool) -> &mut dyn Solver {
        let (settings, incremental, deadline) = (self.settings, self.incremental, self.deadline);
        if bitwuzla {
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

    /// Whether Bitwuzla answers these constraints, asked from this thread.
    fn class(&self, pool: &ExprPool, constraints: &[ExprId]) -> bool {
        match self.chosen {
            Some(b) => b,
            None => {
                let engine = crate::dump::current_engine();
                if pool.uses_arrays_and_floats(constraints).1 {
                    engine == FLOATS_TO_BITWUZLA
                } else {
                    BITWUZLA_ENGINES.contains(&engine)
                }
            }
        }
    }
}

impl Solver for PortfolioSolver {
    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let bitwuzla = self.class(pool, query.constraints);
        self.pick(bitwuzla).check(pool, query)
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
        let bitwuzla = self.class(pool, constraints);
        self.chosen = Some(bitwuzla);
        self.pick(bitwuzla).assert_base(pool, constraints)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The backends (by stats layer name) that answered queries so far.
    fn answered_by(solver: &PortfolioSolver) -> Vec<&'static str> {
        let mut out = Vec::new();
        solver.stats(&mut out);
        out.iter().filter(|s| s.queries > 0).map(|s| s.layer).collect()
    }

    /// A portfolio's first answer to `query` asked as `engine`, and who
    /// gave it.
    fn ask(engine: &'static str, pool: &ExprPool, query: ExprId) -> Vec<&'static str> {
        let mut solver = PortfolioSolver::new(BackendSettings::default(), false);
        let _label = crate::dump::engine_scope(engine);
        assert!(solver.check(pool, &Query::new(&[query])).unwrap().is_sat(), "{engine}");
        answered_by(&solver)
    }

    #[test]
    fn queries_go_by_engine_and_floats() {
        let mut pool = ExprPool::new();
        let (_, x) = pool.new_symbol("x", 32).unwrap();
        let three = pool.bv_const(32, 3).unwrap();
        let bv = pool.eq(x, three).unwrap();
        // x read as a binary32 float is below 1.0 (0x3f800000).
        let one = pool.bv_const(32, 0x3f80_0000).unwrap();
        let float = pool.fp_cmp(crate::float::FpCmpOp::Lt, x, one).unwrap();

        assert_eq!(ask("concolic", &pool, bv), ["z3"]);
        assert_eq!(ask("cegar", &pool, bv), ["z3"]);
        assert_eq!(ask("unknown", &pool, bv), ["z3"]);
        assert_eq!(ask("concolic", &pool, float), ["bitwuzla"]);
        for engine in BITWUZLA_ENGINES {
            assert_eq!(ask(engine, &pool, bv), ["bitwuzla"], "{engine}");
        }
        for engine in ["bmc", "induction", "certify", "cegar", "unknown"] {
            assert_eq!(ask(engine, &pool, float), ["z3"], "{engine}: floats stay with Z3 where proofs are made");
        }

        // An incremental portfolio keeps the backend its base chose.
        let mut incremental = PortfolioSolver::new(BackendSettings::default(), true);
        {
            let _label = crate::dump::engine_scope("bmc");
            incremental.assert_base(&pool, &[bv]).unwrap();
        }
        let _label = crate::dump::engine_scope("concolic");
        assert!(incremental.check(&pool, &Query::new(&[])).unwrap().is_sat());
        assert_eq!(answered_by(&incremental), ["bitwuzla"]);
    }
}
