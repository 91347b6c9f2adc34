//! The portfolio: engines on worker threads sharing one [`Campaign`].
//!
//! With as many workers as engines, every engine runs freely on its own
//! thread. With fewer (`--jobs 1` on two engines), engines take turns:
//! each holds a worker for a slice of [`work`](crate::work) and, at its
//! next [`EngineCtx::checkpoint`] after the slice, hands the worker to the
//! waiting engine that has used the least of its share. Engines never run
//! code between checkpoints for long (a solver query at most, whose limits
//! [`EngineCtx::query_limit`] and [`EngineCtx::query_work_limit`] keep
//! short in shared mode).
//!
//! Turns are counted in work the engines [`EngineCtx::charge`], never in
//! wall time, and shared-mode queries end at a work limit, so with one
//! worker and a seed a run is reproducible: the same tests in the same
//! order, up to where the time budget cuts it.

use crate::ledger::{Campaign, EngineFigures, GoalClosure, StopCause, Submission};
use crate::verdict::{Claim, OpenReason};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use walkdown_ir::goals::GoalId;
use walkdown_ir::testvec::TestVector;

/// An engine of the portfolio.
pub trait Engine: Send {
    /// Its name in reports (`concolic`, `bmc`, ...).
    fn name(&self) -> &'static str;
    /// Works on the campaign's open goals until it has nothing left to do
    /// or [`EngineCtx::checkpoint`] says stop.
    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError>;
}

/// An engine lent to a portfolio, so the caller reads its figures after.
impl<T: Engine + ?Sized> Engine for &mut T {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        (**self).run(ctx)
    }
}

/// How an engine ended by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEnd {
    /// In words: `exhausted`, `complete (no cut point reachable)`, ...
    pub reason: String,
}

impl EngineEnd {
    /// An end with this reason.
    pub fn new(reason: impl Into<String>) -> EngineEnd {
        EngineEnd { reason: reason.into() }
    }
}

/// An engine failed; the others go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EngineError(pub String);

/// How often the portfolio looks at the campaign's memory (see
/// [`crate::memory`]).
const MEMORY_EVERY: Duration = Duration::from_millis(250);

/// Settings of [`run_portfolio`], with their defaults.
#[derive(Clone, Debug)]
pub struct PortfolioSettings {
    /// Worker threads. Default: the available cores.
    pub jobs: usize,
    /// How much work an engine does on a shared worker before it offers
    /// it to another, in nominal time (converted to ticks of
    /// [`work`](crate::work)). Default 200 ms.
    pub slice: Duration,
    /// Longest solver query an engine should ask while sharing a worker,
    /// in nominal time: its work limit is worth this, and a wall-clock
    /// limit ten times as long backs it up (Z3's resource count runs
    /// up to ten times slower on some queries than the nominal rate).
    /// Default 1 s.
    pub shared_query_limit: Duration,
    /// How often the observer is called. Default 1 s.
    pub progress_every: Duration,
}

impl Default for PortfolioSettings {
    fn default() -> Self {
        PortfolioSettings {
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            slice: Duration::from_millis(200),
            shared_query_limit: Duration::from_secs(1),
            progress_every: Duration::from_secs(1),
        }
    }
}

struct Turns {
    running: Vec<bool>,
    done: Vec<bool>,
    /// Wall time held, for the figures.
    used: Vec<Duration>,
    since: Vec<Instant>,
    /// Work charged, in ticks: what turns are shared by.
    work: Vec<u64>,
    /// Work charged when the engine's current turn began.
    turn_start: Vec<u64>,
    shares: Vec<f64>,
}

impl Turns {
    /// The waiting engine furthest behind its share.
    fn most_behind(&self) -> Option<usize> {
        (0..self.running.len())
            .filter(|&j| !self.running[j] && !self.done[j])
            .min_by(|&a, &b| self.lag(a).total_cmp(&self.lag(b)))
    }

    fn lag(&self, i: usize) -> f64 {
        self.work[i] as f64 / self.shares[i].max(1e-6)
    }

    /// Engine `i` takes a worker now.
    fn start_turn(&mut self, i: usize, now: Instant) {
        self.running[i] = true;
        self.since[i] = now;
        self.turn_start[i] = self.work[i];
    }
}

/// Who holds a worker.
struct Scheduler {
    shared: bool,
    /// Ticks of a turn.
    slice: u64,
    turns: Mutex<Turns>,
    changed: Condvar,
}

impl Scheduler {
    fn lock(&self) -> MutexGuard<'_, Turns> {
        self.turns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks until engine `i` (called `name`) holds a worker or the
    /// campaign stops (or drops the engine).
    fn wait_turn(&self, i: usize, name: &str, campaign: &Campaign<'_>) {
        let mut t = self.lock();
        while !t.running[i] && !campaign.stopped() && !campaign.engine_dropped(name) {
            t = self.changed.wait_timeout(t, Duration::from_millis(50)).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    /// Accounts engine `i`'s slice; hands its worker on when another
    /// engine is further behind its share.
    fn checkpoint(&self, i: usize, name: &str, campaign: &Campaign<'_>) {
        if !self.shared {
            return;
        }
        let mut t = self.lock();
        if t.work[i] - t.turn_start[i] < self.slice {
            return;
        }
        let now = Instant::now();
        let held = now.duration_since(t.since[i]);
        t.used[i] += held;
        t.start_turn(i, now);
        if let Some(j) = t.most_behind() {
            if t.lag(j) < t.lag(i) {
                t.running[i] = false;
                t.start_turn(j, now);
                self.changed.notify_all();
                drop(t);
                self.wait_turn(i, name, campaign);
            }
        }
    }

    /// Engine `i` ended: its worker goes to the engine furthest behind.
    fn finish(&self, i: usize) {
        let now = Instant::now();
        let mut t = self.lock();
        if t.running[i] {
            let held = now.duration_since(t.since[i]);
            t.used[i] += held;
        }
        t.running[i] = false;
        t.done[i] = true;
        if let Some(j) = t.most_behind() {
            t.start_turn(j, now);
        }
        self.changed.notify_all();
    }

    /// Of `names` (every engine's, in order), those of the engines that
    /// have not ended.
    fn running_names(&self, names: &[&'static str]) -> Vec<&'static str> {
        let t = self.lock();
        names.iter().zip(&t.done).filter(|(_, &done)| !done).map(|(n, _)| *n).collect()
    }

    fn charge(&self, i: usize, ticks: u64) {
        let mut t = self.lock();
        t.work[i] = t.work[i].saturating_add(ticks);
    }

    fn work(&self, i: usize) -> u64 {
        self.lock().work[i]
    }

    fn used(&self, i: usize) -> Duration {
        let t = self.lock();
        t.used[i] + if t.running[i] { t.since[i].elapsed() } else { Duration::ZERO }
    }
}

/// What an engine sees of the campaign.
pub struct EngineCtx<'c, 'p> {
    campaign: &'c Campaign<'p>,
    scheduler: &'c Scheduler,
    index: usize,
    name: &'static str,
    query_limit: Option<Duration>,
    query_work_limit: Option<u32>,
    /// The campaign's shed epoch this engine last shed at.
    shed_seen: std::sync::atomic::AtomicU64,
}

impl<'c, 'p> EngineCtx<'c, 'p> {
    /// The campaign.
    pub fn campaign(&self) -> &'c Campaign<'p> {
        self.campaign
    }

    /// Call often (between executions, between solver queries): returns
    /// `false` when the engine must stop; may block while another engine
    /// uses the shared worker.
    pub fn checkpoint(&self) -> bool {
        if self.stopped() {
            return false;
        }
        self.scheduler.checkpoint(self.index, self.name, self.campaign);
        !self.stopped()
    }

    /// Whether the engine must stop (never blocks): the campaign stops, or
    /// the memory bound dropped this engine.
    pub fn stopped(&self) -> bool {
        self.campaign.stopped() || self.campaign.engine_dropped(self.name)
    }

    /// Whether the engine should drop what state it can do without now (the
    /// memory bound is near, see [`crate::memory`]): `true` once each time
    /// the campaign asks. Say what was dropped with [`Self::note_dropped`].
    pub fn shed(&self) -> bool {
        use std::sync::atomic::Ordering;
        let epoch = self.campaign.shed_epoch();
        self.shed_seen.swap(epoch, Ordering::AcqRel) != epoch
    }

    /// Records what the engine dropped for the memory bound.
    pub fn note_dropped(&self, what: &str) {
        self.campaign.note_dropped(self.name, what)
    }

    /// When the budget ends.
    pub fn deadline(&self) -> Instant {
        self.campaign.deadline()
    }

    /// The longest solver query the engine should ask now: what is left of
    /// the budget, and in shared mode at most the portfolio's limit.
    pub fn query_limit(&self) -> Duration {
        let left = self.deadline().saturating_duration_since(Instant::now());
        self.query_limit.map_or(left, |l| l.min(left))
    }

    /// In shared mode, the work limit (see `Solver::work`) of one solver query:
    /// queries end at the same point on every run, so turns, and with
    /// them the run, stay reproducible. `None` when the engine has its
    /// own worker.
    pub fn query_work_limit(&self) -> Option<u32> {
        self.query_work_limit
    }

    /// Records `ticks` of deterministic work (see [`crate::work`]): what
    /// shared workers are divided by. Charge every execution and every
    /// solver query; replays of submitted vectors are charged by
    /// [`EngineCtx::submit`].
    pub fn charge(&self, ticks: u64) {
        self.scheduler.charge(self.index, ticks)
    }

    /// The ticks this engine has charged so far.
    pub fn work(&self) -> u64 {
        self.scheduler.work(self.index)
    }

    /// Whether the engine shares its worker with others.
    pub fn shared(&self) -> bool {
        self.scheduler.shared
    }

    /// See [`Campaign::epoch`].
    pub fn epoch(&self) -> u64 {
        self.campaign.epoch()
    }

    /// See [`Campaign::closures`].
    pub fn closures(&self) -> Vec<GoalClosure> {
        self.campaign.closures()
    }

    /// See [`Campaign::submit`]; the replay's steps are charged to the
    /// engine.
    pub fn submit(&self, vector: &TestVector) -> Submission {
        let submission = self.campaign.submit(self.name, vector);
        self.charge(crate::work::replay(submission.replay.steps));
        submission
    }

    /// See [`Campaign::claim`].
    pub fn claim(&self, goal: GoalId, claim: Claim) {
        self.campaign.claim(self.name, goal, claim)
    }

    /// See [`Campaign::share_guidance`].
    pub fn share_guidance(&self, useless_edges: std::collections::HashSet<GoalId>, monitor: Option<crate::Monitor>) {
        self.campaign.share_guidance(self.name, useless_edges, monitor)
    }

    /// See [`Campaign::note_open`].
    pub fn note_open(&self, goal: GoalId, reason: OpenReason) {
        self.campaign.note_open(self.name, goal, reason)
    }

    /// Publishes the engine's counters and status (its time and work are
    /// the scheduler's).
    pub fn publish(&self, status: &str, mut counters: Vec<(&'static str, f64)>) {
        counters.push(("work_ticks", self.work() as f64));
        self.campaign.publish(EngineFigures {
            name: self.name,
            status: status.to_string(),
            time: self.scheduler.used(self.index),
            counters,
        });
    }
}

/// Runs `engines` on the campaign until the budget ends, every goal is
/// closed, or every engine ends; calls `observe` about every
/// [`PortfolioSettings::progress_every`] meanwhile (for progress lines and
/// report refreshes). `shares` weighs each engine's time when they take
/// turns (equal when empty). Returns each engine's end, in order.
pub fn run_portfolio(
    campaign: &Campaign<'_>,
    engines: Vec<Box<dyn Engine + '_>>,
    shares: &[f64],
    settings: &PortfolioSettings,
    observe: &mut dyn FnMut(&Campaign<'_>),
) -> Vec<Result<EngineEnd, EngineError>> {
    let n = engines.len();
    let jobs = settings.jobs.max(1);
    let now = Instant::now();
    let scheduler = Scheduler {
        shared: jobs < n,
        slice: crate::work::of_duration(settings.slice).max(1),
        turns: Mutex::new(Turns {
            running: (0..n).map(|i| i < jobs).collect(),
            done: vec![false; n],
            used: vec![Duration::ZERO; n],
            since: vec![now; n],
            work: vec![0; n],
            turn_start: vec![0; n],
            shares: (0..n).map(|i| shares.get(i).copied().unwrap_or(1.0)).collect(),
        }),
        changed: Condvar::new(),
    };
    // The work limit ends shared-mode queries; the wall-clock limit only
    // backs it up on a machine far slower than the nominal one.
    let query_limit = scheduler.shared.then_some(settings.shared_query_limit * 10);
    let query_work_limit =
        scheduler.shared.then(|| crate::work::solver_limit(crate::work::of_duration(settings.shared_query_limit)));
    let names: Vec<&'static str> = engines.iter().map(|e| e.name()).collect();
    campaign.sample_memory();
    let finished = Mutex::new(0usize);
    let all_done = Condvar::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = engines
            .into_iter()
            .enumerate()
            .map(|(index, mut engine)| {
                let scheduler = &scheduler;
                let finished = &finished;
                let all_done = &all_done;
                let name = engine.name();
                campaign.set_status(name, "waiting", Duration::ZERO);
                scope.spawn(move || {
                    scheduler.wait_turn(index, name, campaign);
                    let shed_seen = std::sync::atomic::AtomicU64::new(campaign.shed_epoch());
                    let ctx = EngineCtx { campaign, scheduler, index, name, query_limit, query_work_limit, shed_seen };
                    campaign.set_status(name, "running", scheduler.used(index));
                    let end = if campaign.stopped() {
                        Ok(EngineEnd::new("not started: the campaign stopped first"))
                    } else {
                        run_guarded(engine.as_mut(), &ctx)
                    };
                    scheduler.finish(index);
                    let status = match &end {
                        Ok(_) if campaign.engine_dropped(name) => "stopped: memory bound (its state dropped)".into(),
                        Ok(e) => e.reason.clone(),
                        Err(e) => format!("failed: {e}"),
                    };
                    campaign.set_status(name, &status, scheduler.used(index));
                    *finished.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                    all_done.notify_all();
                    end
                })
            })
            .collect();
        let mut last = Instant::now();
        let mut done = finished.lock().unwrap_or_else(|e| e.into_inner());
        while *done < n {
            let wait =
                settings.progress_every.saturating_sub(last.elapsed()).clamp(Duration::from_millis(10), MEMORY_EVERY);
            done = all_done.wait_timeout(done, wait).unwrap_or_else(|e| e.into_inner()).0;
            // The budget ends even when every engine is inside a long step.
            campaign.stopped();
            drop(done);
            campaign.watch_memory(&scheduler.running_names(&names));
            done = finished.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() >= settings.progress_every {
                drop(done);
                observe(campaign);
                last = Instant::now();
                done = finished.lock().unwrap_or_else(|e| e.into_inner());
            }
        }
        drop(done);
        campaign.sample_memory();
        campaign.finish();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(EngineError("the engine panicked (a bug in walkdown)".into()))))
            .collect()
    })
}

/// Runs an engine, turning a panic into an error so the other engines and
/// the report survive it.
fn run_guarded(engine: &mut dyn Engine, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.run(ctx))) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(EngineError(format!("the engine panicked (a bug in walkdown): {msg}")))
        }
    }
}

/// Whether `cause` means the budget or a user ended the run (then open
/// goals are open for lack of budget).
pub fn budget_ended(cause: Option<StopCause>) -> bool {
    matches!(cause, Some(StopCause::Time | StopCause::Interrupted))
}
