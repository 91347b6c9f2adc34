//! Predicate-abstraction model checking (the model checker of Daca, Gupta
//! and Henzinger's *Abstraction-driven concolic testing*): lazy abstraction
//! over the inlined, self-contained `main` ([`model`]), an abstract
//! reachability graph with every open goal as a target, tests from
//! feasible abstract paths and refinement from infeasible ones without
//! interpolation ([`checker`]), and the campaign engine that submits the
//! tests and claims what a complete graph never reaches ([`engine`]).
//! The same model as constrained Horn clauses, solved by Z3's Spacer, is a
//! second engine ([`horn`]), and an explicit-state search over its
//! loop-head states a third ([`explicit`]).

#![deny(missing_docs)]

pub mod certificate;
pub mod checker;
pub mod engine;
pub mod explicit;
pub mod horn;
pub mod model;

pub use certificate::{Certificate, CheckReport, HeadInvariant};
pub use checker::{Checker, CheckerFigures, CheckerSettings, Driver, Outcome, Refinement};
pub use engine::{aimed, certificate_from_formulas, certify, run_cegar, CegarEngine, CegarSettings};
pub use explicit::{run_explicit, ExplicitEngine, ExplicitSettings};
pub use horn::{certify_horn, run_horn, HornEngine, HornEngineSettings};
pub use model::{Model, ModelSettings};

/// Why the model checker cannot handle a program.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CegarError {
    /// A construct the transformation or encoding does not support.
    #[error("unsupported: {construct} at line {line}")]
    Unsupported {
        /// What it is.
        construct: String,
        /// Its source line.
        line: u32,
    },
    /// The program has no defined `main`.
    #[error("the program has no defined `main` function")]
    NoEntry,
    /// The shared encoder refused the program.
    #[error(transparent)]
    Encode(#[from] walkdown_encode::EncodeError),
    /// Building an expression failed (a bug).
    #[error("expression: {0}")]
    Expr(#[from] walkdown_smt::ExprError),
    /// Z3 refused the Horn clauses (a bug in their translation).
    #[error("horn clauses: {0}")]
    Horn(String),
}
