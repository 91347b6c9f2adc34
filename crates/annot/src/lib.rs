//! Verification annotations (Christakis, Müller, Wüstholz, *Guiding dynamic
//! symbolic execution toward unverified program executions*): which checks
//! are already verified and under which assumptions, and the instrumentation
//! that makes the concolic search skip verified executions (may-unverified
//! conditions, as `prune`s) and try the ones that must be unverified first
//! (must-unverified conditions, as `tryfirst`s).
//!
//! - [`collect`]: the annotation table, read from the source's
//!   `__VERIFIER_assumed` / `__VERIFIER_assert_verified` calls and joined
//!   with walkdown's own proofs;
//! - [`premise`]: premises, Boolean formulas over assumption ids;
//! - [`infer`]: the Boolean program and the three predicate transformers;
//! - [`instrument`]: the instrumented program, per configuration.

pub mod collect;
pub mod infer;
pub mod instrument;
pub mod premise;

pub use collect::{Annotations, AssumedCond, AssumedSite, CheckStatus, Source};
pub use infer::{NoInference, MAX_IDS};
pub use instrument::{instrument, Config, Instrumentation};
pub use premise::Premise;

/// An assumption's id: its index in [`Annotations::assumptions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AssumptionId(pub u32);

/// An annotation walkdown cannot read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnnotError {
    /// A malformed annotation call, with its location.
    Malformed {
        /// What is wrong.
        what: String,
        /// `file:line:col`.
        at: String,
    },
}

impl std::fmt::Display for AnnotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnnotError::Malformed { what, at } => write!(f, "{at}: {what}"),
        }
    }
}

impl std::error::Error for AnnotError {}
