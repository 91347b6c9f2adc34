//! What the symbolic engines that reason about whole paths share: passes
//! that add no executions ([`inline`] of every call into `main` with
//! recursion cut at a depth, [`localize`] so every block only uses its own
//! values and parameters), the [`origin`] side tables that map transformed
//! blocks and instructions back to the program, and the reachability
//! verification condition ([`vc`]) of an acyclic body: passive SSA over
//! block parameters, memory as a byte array.
//!
//! The bounded engine unwinds loops and encodes the whole unwound body; the
//! model checker encodes one block at a time (a step of its abstract
//! reachability graph) and chains steps into path formulas.

#![deny(missing_docs)]

pub mod inline;
pub mod localize;
pub mod origin;
pub mod vc;

pub use origin::{BlockOrigin, Cut, CutReason, LoopEntry, Provenance};

use walkdown_ir::Loc;

/// Why a program cannot be transformed or encoded.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum EncodeError {
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
    #[error("the transformed program is too large: {what} exceed {limit}")]
    TooLarge {
        /// What was counted.
        what: &'static str,
        /// The budget.
        limit: usize,
    },
    /// The encoding did not finish by its deadline
    /// ([`crate::vc::VcSettings::deadline`]).
    #[error("the encoding did not finish within its share of the time budget")]
    OutOfTime,
    /// The program has no defined `main`.
    #[error("the program has no defined `main` function")]
    NoEntry,
    /// Building an expression failed (a bug in the encoding).
    #[error("expression: {0}")]
    Expr(String),
}

impl EncodeError {
    pub(crate) fn unsupported(construct: impl Into<String>, func: &str, loc: Loc) -> EncodeError {
        EncodeError::Unsupported { construct: construct.into(), func: func.to_string(), loc }
    }
}
