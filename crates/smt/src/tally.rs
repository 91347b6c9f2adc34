//! Process-wide figures per solver backend: what every backend instance of
//! the run answered, summed, for report.json (`solvers`). One run of `gen`
//! is one process, and its engines build many backends (a stack per
//! engine, incremental ones for the bounded engine's covers), so the sum
//! lives here rather than in any of them.

use std::sync::Mutex;
use std::time::Duration;

use crate::solver::{Answer, SolverError};

/// What one backend answered over the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BackendFigures {
    /// The backend (`z3`).
    pub backend: &'static str,
    /// Its version as the linked library reports it.
    pub version: String,
    /// Queries it was asked.
    pub queries: u64,
    /// Answered sat.
    pub sat: u64,
    /// Answered unsat.
    pub unsat: u64,
    /// Answered unknown because a limit (time or work) ended them.
    pub timeouts: u64,
    /// Answered unknown for another reason, or failed.
    pub unknown: u64,
    /// Time in the backend.
    pub time: Duration,
    /// Work in the backend's deterministic unit.
    pub work: u64,
}

static FIGURES: Mutex<Vec<BackendFigures>> = Mutex::new(Vec::new());

/// Adds one answered query to `backend`'s figures.
pub(crate) fn record(
    backend: &'static str,
    version: impl FnOnce() -> String,
    answer: &Result<Answer, SolverError>,
    time: Duration,
    work: u64,
) {
    let mut all = FIGURES.lock().unwrap_or_else(|e| e.into_inner());
    let i = match all.iter().position(|f| f.backend == backend) {
        Some(i) => i,
        None => {
            all.push(BackendFigures { backend, version: version(), ..BackendFigures::default() });
            all.len() - 1
        }
    };
    let f = &mut all[i];
    f.queries += 1;
    f.time += time;
    f.work += work;
    match answer {
        Ok(Answer::Sat(_)) => f.sat += 1,
        Ok(Answer::Unsat) => f.unsat += 1,
        Ok(Answer::Unknown(reason)) if is_limit(reason) => f.timeouts += 1,
        _ => f.unknown += 1,
    }
}

/// Whether an unknown's reason is a time or work limit (Z3 says
/// `timeout`, `canceled` after an interrupt, `max. resource limit
/// exceeded` for its rlimit).
fn is_limit(reason: &str) -> bool {
    ["timeout", "canceled", "resource limit", "interrupted"].iter().any(|w| reason.contains(w))
}

/// Every backend's figures so far, in the order they were first used.
pub fn figures() -> Vec<BackendFigures> {
    FIGURES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Forgets the figures (a new run in the same process).
pub fn reset() {
    FIGURES.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_told_from_other_unknowns() {
        assert!(is_limit("timeout"));
        assert!(is_limit("max. resource limit exceeded"));
        assert!(is_limit("canceled"));
        assert!(!is_limit("nonlinear budget"));
        assert!(!is_limit("incomplete quantifiers"));
    }
}
