//! Concolic test generation: concrete runs with a symbolic shadow
//! ([`symex`], building terms with `walkdown-semantics`), models back to
//! vectors ([`sym`]), float-aware mutation ([`floatmut`]), search
//! orders over the recorded alternatives ([`search`], with CFG distances
//! from [`distance`]), the scheduling policies as decorators around them
//! ([`schedule`]), and the loop with its test ledger ([`engine`]).
//!
//! The engine knows no file format: it submits vectors to the campaign
//! (`walkdown-campaign`), whose ledger keeps tests and hands them to the
//! writers.

#![deny(missing_docs)]

pub mod distance;
pub mod engine;
pub mod floatmut;
pub mod schedule;
pub mod search;
pub mod shape;
pub mod splice;
pub mod sym;
pub mod symex;
pub mod words;

pub use engine::{generate, ConcolicEngine, GenError, GenResult, GenSettings, QueryLog, Stats, StopReason};
pub use search::SearchKind;
pub use symex::TraceLimits;
pub use walkdown_campaign::{ErrorFound, KeptTest, Property};
