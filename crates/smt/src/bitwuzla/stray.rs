//! Large checks that the solver can walk away from at the query's end.
//!
//! **Why.** Bitwuzla calls its termination callback from its search loops
//! and between preprocessing rounds, but not while it rewrites, bit-blasts
//! and encodes a formula to CNF. On large formulas that is seconds without
//! a callback: on the bounded engine's cover of a 20,000-line program
//! (`crates/walkdown/tests/budget.rs`) 1.3 to 1.9 s passed between two
//! callbacks, 2.5 million AIG gates, and a campaign with a 2 s budget
//! ended after 4.8 s. Measured on ten public tasks and real libraries at
//! 20 s, the longest gaps were 0.2 to 0.8 s, with no size that predicted
//! them (a formula of 1.1 million bits had a 0.2 s gap, one of 87,000 bits
//! 0.7 s), so the solver cannot decide beforehand which checks to refuse.
//!
//! **What runs where.** A large check (see `LARGE_QUERY`), or any check
//! of an instance that keeps a base, runs on a thread of its own while
//! the solver waits for it until the query's end. Small checks run on
//! the caller's thread: their gaps are short, and a thread per check
//! would cost the concolic engine's thousands of queries.
//!
//! **The stray.** A check still running at the query's end is a stray:
//! the query's answer is `unknown`, and the stray keeps the instance and
//! the term manager (Bitwuzla's node manager is not thread-safe, and
//! preprocessing makes nodes) until its next callback ends it. Every later
//! use of the solver first waits for the stray ([`Stray::finish`]), unless
//! the solver's deadline has passed: then the solver answers `unknown`
//! at once, since waiting would be the overrun this module exists to
//! prevent. A solver dropped, or moved to another pool, while its stray
//! runs hands the stray, its instances and its manager to a thread that
//! frees them once the check ends ([`abandon`]).

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Instant;

use bitwuzla_sys as bw;

use super::{Instance, Manager};

/// A pointer that crosses to a check's thread.
struct Raw(*mut bw::Bitwuzla);

// SAFETY: the instance behind it is used by one thread at a time: the
// check's thread while the check runs, the solver's thread only after
// joining it (every use of the solver calls `Stray::finish` first).
unsafe impl Send for Raw {}

/// How a check run on its own thread ended.
pub(super) enum Checked {
    /// It answered in time: Bitwuzla's result code.
    Done(bw::BitwuzlaResult),
    /// It was still running at the query's end.
    Running(JoinHandle<()>),
}

/// Runs `bitwuzla_check_sat(raw)` on a thread of its own and waits for it
/// until `end`. `None` when no thread could be started (the caller then
/// checks on its own thread).
pub(super) fn check(raw: *mut bw::Bitwuzla, end: Option<Instant>) -> Option<Checked> {
    let (tx, rx) = mpsc::channel();
    let raw = Raw(raw);
    let handle = std::thread::Builder::new()
        .name("bitwuzla-check".into())
        .spawn(move || {
            let raw = raw;
            // SAFETY: see `Raw`; the instance outlives the thread (a
            // stray keeps it, see the module doc).
            let result = unsafe { bw::bitwuzla_check_sat(raw.0) };
            let _ = tx.send(result);
        })
        .ok()?;
    let answer = match end {
        Some(end) => rx.recv_timeout(end.saturating_duration_since(Instant::now())).ok(),
        None => rx.recv().ok(),
    };
    Some(match answer {
        Some(result) => {
            // The thread has sent its result; it ends at once.
            let _ = handle.join();
            Checked::Done(result)
        }
        None => Checked::Running(handle),
    })
}

/// A check left running at its query's end (see the module doc).
pub(super) struct Stray {
    pub(super) handle: JoinHandle<()>,
    /// The instance it runs on when it is not the solver's kept one (a
    /// large query's own instance).
    pub(super) own: Option<Instance>,
}

impl Stray {
    /// Whether the check has ended, so that [`Stray::finish`] does not
    /// wait.
    pub(super) fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// Waits for the check to end; the instance it ran on may be used
    /// again (the kept one still holds the query's push).
    pub(super) fn finish(self) {
        // The thread only calls Bitwuzla; a panic there is not ours to
        // report twice.
        let _ = self.handle.join();
        drop(self.own);
    }
}

/// What a solver abandons with a stray still running. Dropping it waits
/// for the stray, then frees the instances and the manager, in that order
/// (fields drop in declaration order, after [`Drop::drop`]).
pub(super) struct Abandoned {
    pub(super) stray: Option<Stray>,
    /// Held to be dropped after the stray ends.
    pub(super) _instance: Option<Instance>,
    /// Held to be dropped last.
    pub(super) _manager: Manager,
}

// SAFETY: after the handover only the thread that drops it touches the
// instances and the manager, and only after the check's thread has ended
// (see `Drop`).
unsafe impl Send for Abandoned {}

impl Drop for Abandoned {
    fn drop(&mut self) {
        if let Some(stray) = self.stray.take() {
            stray.finish();
        }
    }
}

/// Drops `abandoned` on a thread of its own, so that the caller does not
/// wait for its stray; if no thread can be started, the closure is dropped
/// here and so is `abandoned`, after waiting.
pub(super) fn abandon(abandoned: Abandoned) {
    let _ = std::thread::Builder::new().name("bitwuzla-reaper".into()).spawn(move || drop(abandoned));
}
