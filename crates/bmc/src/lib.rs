//! Bounded infeasible-code detection (Christ, Hoenicke and Schäf, *Towards
//! bounded infeasible code detection*): the program is made loop-free by
//! passes that add no executions ([`inline`] with recursion cut at a depth,
//! [`localize`] so every block only uses its own values, [`unwind`] of every
//! loop `k` times with the executions that need more iterations cut), then
//! encoded as one formula ([`vc`]: passive SSA over the block parameters,
//! memory as a byte array, one reachability term per block and per edge),
//! and covered by solver queries ([`cover`]: statement cover with enabling
//! clauses, path cover with blocking clauses, one query per block, greedy
//! max-cover). [`engine`] ties it together for one unwinding: each model
//! becomes a test vector that the campaign's interpreter replays before it
//! counts, and goals no query could reach get a verdict that keeps its
//! bound. [`deepening`] makes it a campaign member that doubles the
//! unwinding until no execution needs more, and tries [`induction`]'s loop
//! abstraction on the goals found infeasible within a bound, after
//! [`houdini`] has kept the candidate loop invariants it proves inductive.
//!
//! [`randprog`] builds the random programs of the paper's experiment and
//! [`experiment`] runs the four algorithms on them.
//!
//! Analyses keep their results in side tables ([`origin::Provenance`])
//! keyed by the ids of the transformed body, never in IR fields.

#![deny(missing_docs)]

pub mod cover;
pub mod deepening;
pub mod engine;
pub mod experiment;
pub mod houdini;
pub mod induction;
pub mod randprog;
pub mod summary;
pub mod unwind;

pub use walkdown_encode::{inline, localize, origin, vc};

pub use cover::{CoverAlgorithm, CoverSettings, CoverStats};
pub use deepening::{BmcEngine, DeepeningSettings, KeptInvariants};
pub use engine::{run_bmc, run_depth, BmcResult, BmcSettings, GoalVerdict};
pub use origin::{BlockOrigin, Cut, CutReason, LoopEntry, Provenance};

use walkdown_ir::Loc;

/// Why the bounded engine cannot handle a program.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum BmcError {
    /// A construct the encoding or a pass does not support.
    #[error("unsupported: {construct} in @{func} at line {}", loc.line)]
    Unsupported {
        /// What it is.
        construct: String,
        /// The function it is in.
        func: String,
        /// Its source location.
        loc: Loc,
    },
    /// The transformed program grew past a budget.
    #[error("the unwound program is too large: {what} exceed {limit}")]
    TooLarge {
        /// What was counted.
        what: &'static str,
        /// The budget.
        limit: usize,
    },
    /// The encoding did not finish within the engine's share of the time
    /// left.
    #[error("the encoding did not finish within the engine's share of the time left")]
    OutOfTime,
    /// The program has no defined `main`.
    #[error("the program has no defined `main` function")]
    NoEntry,
    /// The interpreter cannot prepare the program.
    #[error(transparent)]
    Interp(#[from] walkdown_interp::InterpError),
    /// Building an expression failed (a bug in the encoding).
    #[error("expression: {0}")]
    Expr(String),
}

impl From<walkdown_encode::EncodeError> for BmcError {
    fn from(e: walkdown_encode::EncodeError) -> BmcError {
        use walkdown_encode::EncodeError as E;
        match e {
            E::Unsupported { construct, func, loc } => BmcError::Unsupported { construct, func, loc },
            E::TooLarge { what, limit } => BmcError::TooLarge { what, limit },
            E::NoEntry => BmcError::NoEntry,
            E::OutOfTime => BmcError::OutOfTime,
            E::Expr(s) => BmcError::Expr(s),
        }
    }
}

impl BmcError {
    pub(crate) fn unsupported(construct: impl Into<String>, func: &str, loc: Loc) -> BmcError {
        BmcError::Unsupported { construct: construct.into(), func: func.to_string(), loc }
    }
}
