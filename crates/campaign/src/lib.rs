//! The campaign: everything engines share while they work on one program.
//!
//! It owns the goal table (one [`Verdict`] per goal), the test ledger
//! (every candidate vector an engine submits is replayed by the
//! interpreter, the judge, and kept only when it covers a new goal or
//! reaches a new error; nothing is trusted from a model), the error list,
//! proof conflicts, and each engine's figures. Engines implement the small
//! [`Engine`] trait: they receive a [`EngineCtx`] with the open goals and a
//! stop signal, submit vectors and claims, and learn when goals close. The
//! [`portfolio`] runs several engines on threads, or in slices of
//! deterministic [`work`] when there are fewer workers than engines. Writers (the suite, `report.json`,
//! the progress line) read the campaign only, so they are written once for
//! every engine.
//!
//! Knows no file format and no solver.

#![deny(missing_docs)]

mod guidance;
mod ledger;
pub mod memory;
pub mod portfolio;
mod timeline;
mod verdict;
pub mod work;

pub use guidance::{Guidance, Monitor, MonitorPosition, MonitorState, MONITOR_TOP, NO_WAY};
pub use ledger::{
    Campaign, CampaignSettings, EngineFigures, ErrorCheck, ErrorFound, GoalClosure, GoalState, KeptTest, MemoryFigures,
    NativeVerdict, Property, RefutedTest, ReplayTime, Snapshot, StopCause, Submission, TestSink, MAX_REFUTED_LISTED,
    MAX_REFUTED_PER_SITE, NOT_IN_THIS_MODE,
};
pub use memory::{Dropped, MemoryBound};
pub use portfolio::{budget_ended, run_portfolio, Engine, EngineCtx, EngineEnd, EngineError, PortfolioSettings};
pub use timeline::{TimelinePoint, VerdictCounts};
pub use verdict::{BoundedProof, Claim, OpenReason, Proof, ProofConflict, Verdict};
