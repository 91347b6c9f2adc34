//! The campaign's side of the memory bound ([`crate::memory`]): each look
//! at the resident memory, and the step it asks for carried out on the
//! ledger and the engines.

use super::{Campaign, StopCause};
use crate::memory::Step;
use crate::verdict::Verdict;

impl Campaign<'_> {
    /// Looks at the resident memory and, near the bound, drops state (see
    /// [`crate::memory`]); `running` are the engines that have not ended,
    /// in the portfolio's order. Called by the portfolio a few times a
    /// second.
    pub fn watch_memory(&self, running: &[&'static str]) {
        if self.stopping.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        // An engine told to stop still holds its state until it reaches a
        // checkpoint (a solver query runs to its end): wait for it.
        if running.iter().any(|n| self.memory.engine_stopped(n)) {
            return;
        }
        let (resident, step) = self.memory.look();
        let at = self.start.elapsed().as_secs_f64();
        match step {
            Step::None => return,
            Step::Shed => {
                let forgotten = std::mem::take(&mut self.lock().checked).len();
                self.memory.ask_shed();
                self.memory.record(
                    at,
                    resident,
                    format!("caches: the ledger's {forgotten} natively checked vectors; engines asked to shed"),
                );
            }
            Step::DropEngine => {
                let left: Vec<&'static str> =
                    running.iter().copied().filter(|n| !self.memory.engine_stopped(n)).collect();
                match self.least_useful(&left) {
                    Some(name) if left.len() > 1 => {
                        self.memory.stop_engine(name);
                        self.memory.record(at, resident, format!("engine {name} stopped, its state dropped"));
                    }
                    _ => {
                        self.memory.record(at, resident, "the campaign stopped: nothing left to drop".into());
                        self.request_stop(StopCause::MemoryBound);
                    }
                }
            }
        }
        if let Some(trim) = self.memory.bound().and_then(|b| b.trim) {
            trim();
        }
    }

    /// Of `engines`, the one that kept the fewest tests and proved the
    /// fewest goals unreachable; ties go to the last (the portfolio lists its most
    /// productive engine first).
    fn least_useful(&self, engines: &[&'static str]) -> Option<&'static str> {
        let inner = self.lock();
        let use_of = |name: &str| {
            let tests = inner.tests.iter().filter(|t| t.engine == name).count();
            let proofs = inner
                .goals
                .iter()
                .filter(|g| match &g.verdict {
                    // A bound settles no goal: only proofs count.
                    Verdict::Unreachable(p) => p.engine == name,
                    _ => false,
                })
                .count();
            tests + proofs
        };
        engines.iter().rev().copied().min_by_key(|n| use_of(n))
    }

    /// Reads the resident memory for the peak only (at the start and end of
    /// a portfolio, which may be too short for a look).
    pub fn sample_memory(&self) {
        self.memory.sample()
    }

    /// Whether the memory bound stopped `engine`.
    pub fn engine_dropped(&self, engine: &str) -> bool {
        self.memory.engine_stopped(engine)
    }

    /// The engines the memory bound stopped.
    pub fn dropped_engines(&self) -> Vec<&'static str> {
        self.memory.stopped_engines()
    }

    /// Changes when engines should drop what they can (see
    /// [`crate::EngineCtx::shed`]).
    pub fn shed_epoch(&self) -> u64 {
        self.memory.shed_epoch()
    }

    /// Records what an engine dropped for the memory bound.
    pub fn note_dropped(&self, engine: &str, what: &str) {
        let at = self.start.elapsed().as_secs_f64();
        let resident = crate::memory::resident_bytes().unwrap_or(0);
        self.memory.record(at, resident, format!("{engine}: {what}"));
    }
}
