//! The memory bound (`gen --max-memory`). A long campaign's state grows:
//! the engines' solver contexts and path trees, their candidate queues,
//! the ledger's record of natively checked vectors. Rather than be killed
//! by the machine (and leave no report), the campaign watches its own
//! resident memory and, near the bound, drops state in order of least
//! use:
//!
//! 1. at 75% of the bound (and again every few seconds while memory stays
//!    there), caches: the ledger forgets which vectors it ran natively,
//!    every engine is asked to [shed](crate::EngineCtx::shed) what it can
//!    rebuild or do without (the concolic engine drops its solver caches,
//!    then restarts from the campaign's tests with a fresh expression
//!    pool), and freed memory is handed back to the system (the driver's
//!    `trim`, `malloc_trim` under glibc);
//! 2. still at 85% after a shed, whole engines, the least useful
//!    first (fewest tests kept and goals proved unreachable; ties: the
//!    last in the portfolio's order): the engine stops at its next
//!    checkpoint and its state goes with it (no further step is taken
//!    until it has: its memory is about to be freed);
//! 3. at 85% with no engine left to drop but one, the campaign stops
//!    (`StopCause::MemoryBound`), and the report is written whole.
//!
//! Each step is recorded ([`Dropped`]) with the resident memory it saw,
//! and the peak is kept, so `report.json` says what the bound cost.
//! Memory is read from `/proc/self/status` (`VmRSS`); where that cannot
//! be read there is no bound.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A bound on the campaign's resident memory.
#[derive(Clone, Copy, Debug)]
pub struct MemoryBound {
    /// The bound, in bytes.
    pub bytes: u64,
    /// Hands freed memory back to the system (`malloc_trim` under glibc),
    /// so dropping state shows in the resident size; none: nothing to do.
    pub trim: Option<fn()>,
}

/// The share of the bound at which caches are dropped.
const SHED_AT: f64 = 0.75;
/// The share at which engines are dropped: below the bound, since an
/// engine takes a while to stop (a solver query runs to its end) and may
/// allocate in bursts meanwhile (the bounded engine's next unwinding).
const DROP_AT: f64 = 0.85;
/// How long a step gets to take effect (an engine reaches its next
/// checkpoint, a long solver query ends) before the next one.
const GRACE: Duration = Duration::from_secs(2);
/// How often engines are asked to shed while memory stays above
/// [`SHED_AT`] of the bound but below it (the concolic engine restarts
/// each time, which costs it a re-trace of the suite).
const SHED_EVERY: Duration = Duration::from_secs(10);

/// One thing the bound dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    /// Seconds since the start.
    pub at: f64,
    /// Resident memory when it was dropped, in bytes.
    pub resident: u64,
    /// What, in words (`caches`, `engine cegar`, `concolic: 1200
    /// candidates aiming at no open goal`).
    pub what: String,
}

/// The state of the bound, in the campaign.
#[derive(Debug, Default)]
pub(crate) struct MemoryWatch {
    bound: Option<MemoryBound>,
    peak: AtomicU64,
    /// Changes when engines should shed what they can.
    shed_epoch: AtomicU64,
    steps: Mutex<Steps>,
}

#[derive(Debug, Default)]
struct Steps {
    /// When the last step was taken.
    last: Option<Instant>,
    /// When engines were last asked to shed.
    last_shed: Option<Instant>,
    /// Whether the last step was a shed.
    shed: bool,
    dropped: Vec<Dropped>,
    /// Engines told to stop.
    stopped: Vec<&'static str>,
}

/// What the campaign should do after a look at its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing.
    None,
    /// Drop caches (and ask engines to shed).
    Shed,
    /// Stop the least useful engine.
    DropEngine,
}

impl MemoryWatch {
    pub(crate) fn new(bound: Option<MemoryBound>) -> MemoryWatch {
        MemoryWatch { bound, ..Default::default() }
    }

    pub(crate) fn bound(&self) -> Option<MemoryBound> {
        self.bound
    }

    /// Reads the resident size, keeps the peak, and says which step the
    /// bound asks for now: above [`SHED_AT`] of the bound a shed at most
    /// every [`SHED_EVERY`]; above [`DROP_AT`] a shed first, then (a grace
    /// period later, still above) an engine.
    pub(crate) fn look(&self) -> (u64, Step) {
        let Some(resident) = resident_bytes() else { return (0, Step::None) };
        self.peak.fetch_max(resident, Ordering::Relaxed);
        let Some(bound) = self.bound else { return (resident, Step::None) };
        let mut s = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        if (resident as f64) < bound.bytes as f64 * SHED_AT || s.last.is_some_and(|t| t.elapsed() < GRACE) {
            return (resident, Step::None);
        }
        let over = resident as f64 >= bound.bytes as f64 * DROP_AT;
        let step = if over && s.shed {
            Step::DropEngine
        } else if over || s.last_shed.is_none_or(|t| t.elapsed() >= SHED_EVERY) {
            s.last_shed = Some(Instant::now());
            Step::Shed
        } else {
            return (resident, Step::None);
        };
        s.shed = step == Step::Shed;
        s.last = Some(Instant::now());
        (resident, step)
    }

    /// Reads the resident size for the peak only.
    pub(crate) fn sample(&self) {
        if let Some(resident) = resident_bytes() {
            self.peak.fetch_max(resident, Ordering::Relaxed);
        }
    }

    /// Asks engines to shed.
    pub(crate) fn ask_shed(&self) {
        self.shed_epoch.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn shed_epoch(&self) -> u64 {
        self.shed_epoch.load(Ordering::Acquire)
    }

    pub(crate) fn record(&self, at: f64, resident: u64, what: String) {
        let mut s = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        s.dropped.push(Dropped { at, resident, what });
    }

    pub(crate) fn stop_engine(&self, name: &'static str) {
        let mut s = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        if !s.stopped.contains(&name) {
            s.stopped.push(name);
        }
    }

    pub(crate) fn engine_stopped(&self, name: &str) -> bool {
        self.bound.is_some() && self.steps.lock().unwrap_or_else(|e| e.into_inner()).stopped.contains(&name)
    }

    pub(crate) fn stopped_engines(&self) -> Vec<&'static str> {
        self.steps.lock().unwrap_or_else(|e| e.into_inner()).stopped.clone()
    }

    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    pub(crate) fn dropped(&self) -> Vec<Dropped> {
        self.steps.lock().unwrap_or_else(|e| e.into_inner()).dropped.clone()
    }
}

/// The process's resident memory (`VmRSS` of `/proc/self/status`), in
/// bytes; `None` where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    kilobytes_field(&status, "VmRSS:")
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`), in bytes.
pub fn machine_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    kilobytes_field(&info, "MemTotal:")
}

/// The value of a `NAME:   1234 kB` line, in bytes.
fn kilobytes_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    kb.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kilobyte_fields_are_read_in_bytes() {
        let text = "Name:\twalkdown\nVmPeak:\t  300 kB\nVmRSS:\t  2048 kB\n";
        assert_eq!(kilobytes_field(text, "VmRSS:"), Some(2048 * 1024));
        assert_eq!(kilobytes_field(text, "VmSwap:"), None);
        assert_eq!(kilobytes_field("VmRSS: lots", "VmRSS:"), None);
        assert!(resident_bytes().is_some_and(|b| b > 0), "this process has a resident size");
    }

    #[test]
    fn steps_go_shed_then_engines_and_wait_between() {
        // A bound far below what this process uses: every look is over.
        let w = MemoryWatch::new(Some(MemoryBound { bytes: 1, trim: None }));
        assert_eq!(w.look().1, Step::Shed);
        assert_eq!(w.look().1, Step::None, "the shed step gets its grace period");
        w.steps.lock().unwrap().last = Some(Instant::now() - GRACE);
        assert_eq!(w.look().1, Step::DropEngine, "still over after a shed");
        w.steps.lock().unwrap().last = Some(Instant::now() - GRACE);
        assert_eq!(w.look().1, Step::Shed, "a shed again before the next engine");
        assert!(w.peak() > 0);
        // No bound: never a step, but the peak is kept.
        let free = MemoryWatch::new(None);
        assert_eq!(free.look().1, Step::None);
        assert!(free.peak() > 0);
    }
}
