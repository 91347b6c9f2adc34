//! Which backend answers the queries: Z3, Bitwuzla, or a portfolio of
//! the two that picks by the query's class.
//!
//! The choice is process-wide, as the query corpus is ([`crate::dump`]):
//! one run of `gen` is one configuration, and engines build backends in
//! many places (a stack per engine, incremental ones for the bounded
//! engine's covers, one-off checks), all of which must follow it. The
//! driver sets it from `--solver`; before that, the `WALKDOWN_SOLVER`
//! environment variable sets it, which is how the engines' own tests run
//! with each backend. The default is the one `docs/solvers.md` measures
//! best.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::bitwuzla::{bitwuzla_version, BitwuzlaSolver};
use crate::portfolio::PortfolioSolver;
use crate::solver::{BackendSettings, Solver};
use crate::z3backend::{z3_version, Z3Solver};

/// A solver backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Z3 ([`Z3Solver`]).
    Z3,
    /// Bitwuzla ([`BitwuzlaSolver`]).
    Bitwuzla,
    /// By the asking engine and floats ([`PortfolioSolver`]).
    Portfolio,
}

impl Backend {
    /// Every choice, in the order `--solver` lists them.
    pub const ALL: [Backend; 3] = [Backend::Z3, Backend::Bitwuzla, Backend::Portfolio];

    /// The solvers linked in (the choices but the portfolio).
    pub const LINKED: [Backend; 2] = [Backend::Z3, Backend::Bitwuzla];

    /// The default when neither `--solver` nor `WALKDOWN_SOLVER` says.
    pub const DEFAULT: Backend = Backend::Portfolio;

    /// The name `--solver` takes.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Z3 => "z3",
            Backend::Bitwuzla => "bitwuzla",
            Backend::Portfolio => "portfolio",
        }
    }

    /// The backend named `name` (as [`Backend::name`] gives it).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The linked library's version, read from it at run time (the
    /// portfolio's: both).
    pub fn version(self) -> String {
        match self {
            Backend::Z3 => z3_version(),
            Backend::Bitwuzla => bitwuzla_version(),
            Backend::Portfolio => format!("z3 {}, bitwuzla {}", z3_version(), bitwuzla_version()),
        }
    }

    /// A backend of this kind with `settings`; `incremental` keeps one
    /// solver instance across queries (see [`Solver::assert_base`]).
    pub fn make(self, settings: BackendSettings, incremental: bool) -> Box<dyn Solver> {
        match (self, incremental) {
            (Backend::Z3, false) => Box::new(Z3Solver::new(settings)),
            (Backend::Z3, true) => Box::new(Z3Solver::incremental(settings)),
            (Backend::Bitwuzla, false) => Box::new(BitwuzlaSolver::new(settings)),
            (Backend::Bitwuzla, true) => Box::new(BitwuzlaSolver::incremental(settings)),
            (Backend::Portfolio, incremental) => Box::new(PortfolioSolver::new(settings, incremental)),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// 0 while unset, else 1 + the index in [`Backend::ALL`].
static CHOICE: AtomicU8 = AtomicU8::new(0);

/// Makes `backend` the one every later solver uses.
pub fn select(backend: Backend) {
    let i = Backend::ALL.iter().position(|&b| b == backend).unwrap_or(0);
    CHOICE.store(i as u8 + 1, Ordering::Relaxed);
}

/// The backend solvers use now: the one [`select`]ed, else the one
/// `WALKDOWN_SOLVER` names, else [`Backend::DEFAULT`].
///
/// # Panics
///
/// When `WALKDOWN_SOLVER` names no backend: a test run asked for one that
/// does not exist must not quietly run another.
pub fn selected() -> Backend {
    match CHOICE.load(Ordering::Relaxed) {
        0 => {
            let b = match std::env::var("WALKDOWN_SOLVER") {
                Ok(name) => Backend::from_name(&name)
                    .unwrap_or_else(|| panic!("WALKDOWN_SOLVER={name}: not a solver (z3, bitwuzla, portfolio)")),
                Err(_) => Backend::DEFAULT,
            };
            select(b);
            b
        }
        i => Backend::ALL[usize::from(i - 1)],
    }
}

/// Each backend linked in, with its version as the library reports it at
/// run time: `[("z3", "5.4.1"), ("bitwuzla", "0.10.0")]`.
pub fn versions() -> Vec<(&'static str, String)> {
    Backend::LINKED.iter().map(|b| (b.name(), b.version())).collect()
}
