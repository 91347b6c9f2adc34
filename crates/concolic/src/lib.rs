//! Concolic test generation: concrete runs with a symbolic shadow
//! ([`symex`], building terms with `walkdown-semantics`), models back to
//! vectors ([`sym`]), search
//! orders over the recorded alternatives ([`search`], with CFG distances
//! from [`distance`]), and the loop with its test ledger ([`engine`]).
//!
//! The engine knows no file format: kept tests go to a [`TestSink`] the
//! caller provides (the `walkdown` binary writes Test-Comp XML at once).

#![deny(missing_docs)]

pub mod distance;
pub mod engine;
pub mod search;
pub mod sym;
pub mod symex;

pub use engine::{generate, ErrorFound, GenError, GenResult, GenSettings, KeptTest, Property, QueryLog, Stats, StopReason, TestSink};
pub use search::SearchKind;
pub use symex::TraceLimits;
