//! The campaign's shared state: the goal table, the test ledger, errors,
//! proof conflicts and engine figures, behind one lock; replays run outside
//! it, so engines on several threads replay in parallel.

use crate::timeline::{Timeline, TimelinePoint};
use crate::verdict::{BoundedProof, Claim, OpenReason, Proof, ProofConflict, Verdict};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use walkdown_interp::{ExecLimits, InterpError, Interpreter, Outcome, RunOptions, RunResult};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, GoalKind, Goals};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::{CheckKind, Loc, Program};

mod confirm;
mod shed;
pub use confirm::{ErrorCheck, NativeVerdict, RefutedTest, MAX_REFUTED_LISTED, MAX_REFUTED_PER_SITE, NOT_IN_THIS_MODE};

/// What the generated suite is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Cover every branch (Test-Comp `coverage-branches`).
    CoverBranches,
    /// Reach `reach_error` once, then stop (Test-Comp `coverage-error`).
    CoverError,
    /// Reach every error site that can fail (`reach_error`, assertions and
    /// the runtime checks): keep going after the first error, stop when
    /// every error goal is settled.
    AllErrors,
}

/// Settings of a campaign, with their defaults.
#[derive(Clone, Debug)]
pub struct CampaignSettings {
    /// Wall-clock budget, from [`Campaign::new`]. Default 60 s.
    pub time: Duration,
    /// What the suite is for. Default branch coverage.
    pub property: Property,
    /// Limits of each replay in the interpreter. Default: the
    /// interpreter's own (50,000,000 steps), so `walkdown run` replays a
    /// test to exactly the goals the report claims.
    pub replay: ExecLimits,
}

impl Default for CampaignSettings {
    fn default() -> Self {
        CampaignSettings {
            time: Duration::from_secs(60),
            property: Property::CoverBranches,
            replay: ExecLimits::default(),
        }
    }
}

/// Long replays (`walkdown gen`): a replay the step limit of
/// [`CampaignSettings::replay`] cuts (with inputs of its vector left) is
/// run again without step limit, for
/// as long as a share of the budget reserved for such runs allows, so a
/// goal behind a long loop is not left open for want of steps while time
/// is left, and inputs that loop forever cost no more than that share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplayTime {
    /// The share of the whole budget that long replays may take together.
    /// Default 0.25.
    pub share: f64,
    /// The share of what is left of that reserve one long replay may
    /// take. Default 0.5: the first gets an eighth of the budget, and a
    /// program whose inputs often loop forever loses a quarter at most.
    pub per_run: f64,
}

impl Default for ReplayTime {
    fn default() -> Self {
        ReplayTime { share: 0.25, per_run: 0.5 }
    }
}

/// A test the ledger kept.
#[derive(Clone, Debug)]
pub struct KeptTest {
    /// Its number in the suite (0-based).
    pub index: usize,
    /// The input values (those the replay consumed).
    pub vector: TestVector,
    /// C type names of the values, in order.
    pub types: Vec<&'static str>,
    /// Goals this test covered first.
    pub new_goals: Vec<GoalId>,
    /// All goals its replay covered.
    pub covered: Vec<GoalId>,
    /// The error it reaches, if any.
    pub error: Option<ErrorFound>,
    /// The replay's outcome.
    pub outcome: Outcome,
    /// Steps the replay executed.
    pub steps: u64,
    /// Steps of loop iterations the replay's fast-forwarding jumped over
    /// (the plain run's steps are `steps + skipped_steps`).
    pub skipped_steps: u128,
    /// The replay's first fast-forward jumps.
    pub jumps: Vec<walkdown_interp::JumpNote>,
    /// Seconds since the start.
    pub at: f64,
    /// The engine that submitted it.
    pub engine: &'static str,
}

/// An error a test reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorFound {
    /// Its class.
    pub kind: CheckKind,
    /// Where.
    pub loc: Loc,
    /// Its error-site goal.
    pub goal: Option<GoalId>,
}

/// Receives kept tests the moment they are kept, so an interrupted run
/// loses nothing.
pub trait TestSink: Send {
    /// Writes a new test.
    fn test(&mut self, test: &KeptTest) -> Result<(), String>;
}

/// The answer to [`Campaign::submit`].
#[derive(Debug)]
pub struct Submission {
    /// The interpreter's replay of the vector.
    pub replay: RunResult,
    /// The test's index when the ledger kept it.
    pub kept: Option<usize>,
}

/// One engine's figures, as the engine last published them.
#[derive(Clone, Debug, Default)]
pub struct EngineFigures {
    /// The engine.
    pub name: &'static str,
    /// `waiting`, `running`, or how it ended.
    pub status: String,
    /// Time it held a worker.
    pub time: Duration,
    /// Its counters, in the order it gives them (`executions`, `queries`,
    /// `unwinding`, ...).
    pub counters: Vec<(&'static str, f64)>,
}

impl EngineFigures {
    /// The counter called `name`, if published.
    pub fn counter(&self, name: &str) -> Option<f64> {
        self.counters.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// Why the campaign stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopCause {
    /// The time budget ran out.
    Time,
    /// Every goal is covered or proved unreachable.
    AllClosed,
    /// `coverage-error`: `reach_error` was reached.
    ErrorReached,
    /// Interrupted (Ctrl-C, SIGTERM).
    Interrupted,
    /// Every engine ended by itself.
    EnginesDone,
    /// The memory bound was reached with nothing left to drop (see
    /// [`crate::memory`]).
    MemoryBound,
}

/// A goal's verdict and, while it is open, why each engine left it so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalState {
    /// The verdict.
    pub verdict: Verdict,
    /// `(engine, reason)` for each engine that said why it left the goal
    /// open (at most one per engine, the latest).
    pub open_reasons: Vec<(&'static str, OpenReason)>,
}

/// Where a goal stands, as engines need it to choose targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalClosure {
    /// Open, or infeasible only within a bound.
    Open,
    /// Covered by a kept test.
    Covered,
    /// Proved unreachable.
    Proved,
}

/// A consistent copy of the campaign's state, for writers.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Time since the start.
    pub elapsed: Duration,
    /// Per goal, in id order.
    pub goals: Vec<GoalState>,
    /// Goals by verdict over time.
    pub timeline: Vec<TimelinePoint>,
    /// Kept tests in suite order.
    pub tests: Vec<KeptTest>,
    /// Distinct errors reached, with their tests.
    pub errors: Vec<(ErrorFound, usize)>,
    /// The native check of each error's test, by test index (see
    /// [`NativeVerdict`]).
    pub error_checks: std::collections::BTreeMap<usize, NativeVerdict>,
    /// Proofs that tests contradicted.
    pub conflicts: Vec<ProofConflict>,
    /// Per engine.
    pub engines: Vec<EngineFigures>,
    /// Why the campaign stopped, once it has.
    pub stop: Option<StopCause>,
    /// The first error a test sink reported (the suite may be incomplete).
    pub sink_error: Option<String>,
    /// External functions without body or model that replays called, in
    /// the order first seen.
    pub unmodelled: Vec<String>,
    /// Error tests through unmodelled functions the native check refuted
    /// (not kept; the first [`MAX_REFUTED_LISTED`]).
    pub refuted: Vec<RefutedTest>,
    /// How many error tests through unmodelled functions the native check
    /// refuted (not kept), in all.
    pub refuted_count: usize,
    /// How many other error tests it did not confirm (kept when their
    /// error is new, marked unconfirmed).
    pub unconfirmed_count: usize,
    /// How many it confirmed.
    pub confirmed_count: usize,
    /// How many it could not run.
    pub unchecked_count: usize,
    /// The memory bound, the peak resident memory and what was dropped.
    pub memory: MemoryFigures,
}

/// What the memory bound did (see [`crate::memory`]).
#[derive(Clone, Debug, Default)]
pub struct MemoryFigures {
    /// The bound, in bytes, if any.
    pub bound: Option<u64>,
    /// The highest resident memory seen, in bytes (0: not readable).
    pub peak: u64,
    /// What was dropped to stay under the bound, in order.
    pub dropped: Vec<crate::memory::Dropped>,
}

impl Snapshot {
    /// Goals with this verdict word (`covered`, `unreachable`, ...).
    pub fn count(&self, word: &str) -> usize {
        self.goals.iter().filter(|g| g.verdict.word() == word).count()
    }

    /// The native check of error test `test`.
    pub fn native(&self, test: usize) -> NativeVerdict {
        self.error_checks.get(&test).cloned().unwrap_or_else(confirm::no_check)
    }

    /// The errors whose native check does not refute them (confirmed, or
    /// where no native run could say).
    pub fn counted_errors(&self) -> impl Iterator<Item = &(ErrorFound, usize)> {
        self.errors.iter().filter(|(_, t)| self.native(*t).counts())
    }
}

struct Inner<'p> {
    goals: Vec<GoalState>,
    /// Goals by verdict over time.
    timeline: Timeline,
    closed: usize,
    tests: Vec<KeptTest>,
    errors: Vec<(ErrorFound, usize)>,
    /// Each error site's place in `errors`.
    errors_seen: HashMap<(CheckKind, Loc), usize>,
    /// The native verdict of each error test, by test index.
    error_checks: BTreeMap<usize, NativeVerdict>,
    conflicts: Vec<ProofConflict>,
    engines: Vec<EngineFigures>,
    sink: Box<dyn TestSink + 'p>,
    sink_error: Option<String>,
    stop: Option<StopCause>,
    unmodelled: Vec<String>,
    refuted: Vec<RefutedTest>,
    refuted_count: usize,
    confirmed_count: usize,
    unconfirmed_count: usize,
    unchecked_count: usize,
    /// Vectors already checked natively, with the verdict.
    checked: HashMap<Vec<u64>, NativeVerdict>,
    /// Refutations per error site.
    refuted_at: HashMap<(CheckKind, Loc), usize>,
}

/// The state every engine of one run shares. `Sync`: engines on several
/// threads use it through `&Campaign`.
pub struct Campaign<'p> {
    program: &'p Program,
    goals: &'p Goals,
    interp: Interpreter,
    settings: CampaignSettings,
    /// Replays bounded by time, if so.
    replay_time: Option<ReplayTime>,
    /// Long replays run, and the nanoseconds they took.
    replays_cut: AtomicU64,
    long_nanos: AtomicU64,
    start: Instant,
    stopping: AtomicBool,
    interrupted: &'p AtomicBool,
    epoch: AtomicU64,
    inner: Mutex<Inner<'p>>,
    guidance: crate::guidance::GuidanceBoard,
    error_check: Option<Box<dyn ErrorCheck + 'p>>,
    memory: crate::memory::MemoryWatch,
}

impl<'p> Campaign<'p> {
    /// A campaign on `program` whose budget starts now. Kept tests go to
    /// `sink`; `interrupt` is set from outside (Ctrl-C) to stop every
    /// engine.
    pub fn new(
        program: &'p Program,
        goals: &'p Goals,
        settings: CampaignSettings,
        sink: Box<dyn TestSink + 'p>,
        interrupt: &'p AtomicBool,
    ) -> Result<Campaign<'p>, InterpError> {
        let interp = Interpreter::new(program, goals)?;
        let state = GoalState { verdict: Verdict::Open, open_reasons: Vec::new() };
        Ok(Campaign {
            program,
            goals,
            interp,
            settings,
            replay_time: None,
            replays_cut: AtomicU64::new(0),
            long_nanos: AtomicU64::new(0),
            start: Instant::now(),
            stopping: AtomicBool::new(false),
            interrupted: interrupt,
            epoch: AtomicU64::new(0),
            inner: Mutex::new(Inner {
                goals: vec![state; goals.len()],
                timeline: Timeline::new(goals.len()),
                closed: 0,
                tests: Vec::new(),
                errors: Vec::new(),
                errors_seen: HashMap::new(),
                error_checks: BTreeMap::new(),
                conflicts: Vec::new(),
                engines: Vec::new(),
                sink,
                sink_error: None,
                stop: None,
                unmodelled: Vec::new(),
                refuted: Vec::new(),
                refuted_count: 0,
                confirmed_count: 0,
                unconfirmed_count: 0,
                unchecked_count: 0,
                checked: HashMap::new(),
                refuted_at: HashMap::new(),
            }),
            guidance: Default::default(),
            error_check: None,
            memory: Default::default(),
        })
    }

    /// Checks error tests natively before keeping them (see
    /// [`ErrorCheck`]).
    pub fn with_error_check(mut self, check: Box<dyn ErrorCheck + 'p>) -> Self {
        self.error_check = Some(check);
        self
    }

    /// Keeps the resident memory under `bound` (see [`crate::memory`]).
    pub fn with_memory_bound(mut self, bound: crate::memory::MemoryBound) -> Self {
        self.memory = crate::memory::MemoryWatch::new(Some(bound));
        self
    }

    /// Runs replays the step limit cuts again without it, for a share of
    /// the budget (see [`ReplayTime`]).
    pub fn with_replay_time(mut self, replay_time: ReplayTime) -> Self {
        self.replay_time = Some(replay_time);
        self
    }

    /// Turns the replays' fast-forwarding of loops on (the default) or off.
    pub fn with_fast_forward(mut self, on: bool) -> Self {
        self.interp.set_fast_forward(on);
        self
    }

    /// Long replays run so far (see [`ReplayTime`]).
    pub fn long_replays(&self) -> u64 {
        self.replays_cut.load(Ordering::Relaxed)
    }

    /// Replays `vector`: within the step limit, and again without it if
    /// the limit cut it and the reserve for long replays allows.
    fn replay(&self, vector: &TestVector) -> RunResult {
        let started = Instant::now();
        let first = self.interp.run(vector, &RunOptions { limits: self.settings.replay, record_lines: false });
        let Some(rt) = self.replay_time else { return first };
        // A run cut while the program was reading past the end of its
        // vector is an input loop fed zeros, not a long computation: more
        // steps would only feed it more zeros.
        if first.outcome != Outcome::StepLimit || first.inputs_exhausted {
            return first;
        }
        let reserve = self.settings.time.mul_f64(rt.share.clamp(0.0, 1.0));
        let used = Duration::from_nanos(self.long_nanos.load(Ordering::Relaxed));
        let now = Instant::now();
        let slice = reserve
            .saturating_sub(used)
            .mul_f64(rt.per_run.clamp(0.0, 1.0))
            .min(self.deadline().saturating_duration_since(now));
        // Not worth it unless the long run may go well past the cut one.
        if slice < (now - started) * 2 {
            return first;
        }
        let limits = ExecLimits { max_steps: u64::MAX, deadline: Some(now + slice), ..self.settings.replay };
        let long = self.interp.run(vector, &RunOptions { limits, record_lines: false });
        self.replays_cut.fetch_add(1, Ordering::Relaxed);
        self.long_nanos.fetch_add(u64::try_from(now.elapsed().as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
        long
    }

    fn lock(&self) -> MutexGuard<'_, Inner<'p>> {
        // A panicking engine thread must not take the others down with it:
        // the ledger's state is updated in single steps, so it stays usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The hints engines shared (see [`crate::Guidance`]).
    pub fn guidance(&self) -> std::sync::Arc<crate::Guidance> {
        self.guidance.get()
    }

    /// Replaces the hints: `useless_edges` are branch-edge goals from which
    /// `engine` found no execution reaching a goal open now; `monitor` is
    /// its graph as a monitor of runs.
    pub fn share_guidance(
        &self,
        engine: &'static str,
        useless_edges: HashSet<GoalId>,
        monitor: Option<crate::Monitor>,
    ) {
        self.guidance.set(engine, useless_edges, monitor)
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Its goals.
    pub fn goals(&self) -> &'p Goals {
        self.goals
    }

    /// The interpreter (the judge), for engines that run vectors
    /// themselves before submitting them.
    pub fn interpreter(&self) -> &Interpreter {
        &self.interp
    }

    /// The settings.
    pub fn settings(&self) -> &CampaignSettings {
        &self.settings
    }

    /// When the budget started.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// When the budget ends.
    pub fn deadline(&self) -> Instant {
        self.start + self.settings.time
    }

    /// Whether every engine should stop now (budget over, all goals
    /// closed, error reached under `coverage-error`, or interrupted).
    pub fn stopped(&self) -> bool {
        if self.stopping.load(Ordering::Relaxed) {
            return true;
        }
        if self.interrupted.load(Ordering::Relaxed) {
            self.request_stop(StopCause::Interrupted);
            return true;
        }
        if Instant::now() >= self.deadline() {
            self.request_stop(StopCause::Time);
            return true;
        }
        false
    }

    /// Stops every engine, for `cause` (the first cause given wins).
    pub fn request_stop(&self, cause: StopCause) {
        let mut inner = self.lock();
        inner.stop.get_or_insert(cause);
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Why the campaign stopped, once it has.
    pub fn stop_cause(&self) -> Option<StopCause> {
        self.lock().stop
    }

    /// Changes whenever a goal closes: engines that cache closures compare
    /// it with the epoch of their copy.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Where each goal stands.
    pub fn closures(&self) -> Vec<GoalClosure> {
        self.lock()
            .goals
            .iter()
            .map(|g| match g.verdict {
                Verdict::Covered { .. } => GoalClosure::Covered,
                Verdict::Unreachable(_) => GoalClosure::Proved,
                _ => GoalClosure::Open,
            })
            .collect()
    }

    /// Replays `vector` in the interpreter and keeps it as a test when it
    /// covers a new goal or reaches a new error (see [`confirm`] for the
    /// native check of its error).
    pub fn submit(&self, engine: &'static str, vector: &TestVector) -> Submission {
        let replay = self.replay(vector);
        if !replay.unknown_externals.is_empty() {
            let mut inner = self.lock();
            for name in &replay.unknown_externals {
                if !inner.unmodelled.contains(name) {
                    inner.unmodelled.push(name.clone());
                }
            }
        }
        let native = self.confirm(engine, vector, &replay);
        // Through a function without a model, the inputs mean something
        // else natively: only a confirmed error is worth a test.
        if !replay.unknown_externals.is_empty() && native.as_ref().is_some_and(|v| *v != NativeVerdict::Confirmed) {
            return Submission { replay, kept: None };
        }
        let kept = self.record(engine, vector, &replay, native);
        Submission { replay, kept }
    }

    /// The ledger's half of [`Self::submit`], for a replay already made.
    /// `native` is the native check of its error (none: not checked, the
    /// error site is settled).
    fn record(
        &self,
        engine: &'static str,
        vector: &TestVector,
        replay: &RunResult,
        native: Option<NativeVerdict>,
    ) -> Option<usize> {
        let error = match replay.outcome {
            Outcome::Error { kind, loc, goal, .. } => Some(ErrorFound { kind, loc, goal }),
            _ => None,
        };
        let mut inner = self.lock();
        let new_goals: Vec<GoalId> = replay
            .covered
            .iter()
            .copied()
            .filter(|g| !matches!(inner.goals[g.index()].verdict, Verdict::Covered { .. }))
            .collect();
        let seen = error.and_then(|e| inner.errors_seen.get(&(e.kind, e.loc)).copied());
        let new_error = error.is_some() && seen.is_none();
        // A confirmed test replaces an unconfirmed one at its error site.
        let upgrade = seen.filter(|&i| {
            let old = inner.errors[i].1;
            native == Some(NativeVerdict::Confirmed) && !inner.error_checks.get(&old).is_none_or(|v| v.counts())
        });
        if new_goals.is_empty() && !new_error && upgrade.is_none() {
            return None;
        }
        let index = inner.tests.len();
        let native = native.unwrap_or_else(confirm::no_check);
        let stops = (new_error || upgrade.is_some()) && native.counts();
        if let (Some(e), true) = (error, new_error) {
            let at = inner.errors.len();
            inner.errors_seen.insert((e.kind, e.loc), at);
            inner.errors.push((e, index));
            inner.error_checks.insert(index, native);
        } else if let Some(i) = upgrade {
            inner.errors[i].1 = index;
            inner.error_checks.insert(index, native);
        }
        for g in &new_goals {
            let state = &mut inner.goals[g.index()];
            let was_closed = state.verdict.is_closed();
            let old = std::mem::replace(&mut state.verdict, Verdict::Covered { test: index });
            state.open_reasons.clear();
            inner.timeline.change(self.start.elapsed().as_secs_f64(), old.word(), "covered");
            if let Verdict::Unreachable(proof) = old {
                inner.conflicts.push(ProofConflict { goal: *g, proof, test: index });
            }
            if !was_closed {
                inner.closed += 1;
            }
        }
        // Write the inputs the replay consumed, with their types, so the
        // test file is exactly what ran.
        let dm = self.program.data_model;
        let vector = if replay.inputs_exhausted {
            vector.clone()
        } else {
            TestVector {
                values: replay.inputs.iter().map(|i| InputValue::from_bits(i.ty, i.signed, i.bits, dm)).collect(),
            }
        };
        let kept = KeptTest {
            index,
            types: replay.inputs.iter().map(|i| i.ty.c_name(i.signed, dm)).collect(),
            vector,
            new_goals,
            covered: replay.covered.clone(),
            error,
            outcome: replay.outcome.clone(),
            steps: replay.steps,
            skipped_steps: replay.skipped_steps,
            jumps: replay.jumps.clone(),
            at: self.start.elapsed().as_secs_f64(),
            engine,
        };
        if let Err(e) = inner.sink.test(&kept) {
            inner.sink_error.get_or_insert(e);
        }
        inner.tests.push(kept);
        let all_closed = self.targets_closed(&inner);
        drop(inner);
        self.epoch.fetch_add(1, Ordering::AcqRel);
        let reach_error = error.is_some_and(|e| e.kind == CheckKind::ReachError);
        if self.settings.property == Property::CoverError && reach_error && stops {
            self.request_stop(StopCause::ErrorReached);
        } else if all_closed {
            self.request_stop(StopCause::AllClosed);
        }
        Some(index)
    }

    /// Whether every goal the property asks about is settled: all of them,
    /// or under [`Property::AllErrors`] the error goals.
    fn targets_closed(&self, inner: &Inner<'_>) -> bool {
        match self.settings.property {
            Property::CoverBranches | Property::CoverError => inner.closed == inner.goals.len(),
            Property::AllErrors => self
                .goals
                .goals
                .iter()
                .zip(&inner.goals)
                .all(|((_, g), s)| !matches!(g.kind, GoalKind::Error { .. }) || s.verdict.is_closed()),
        }
    }

    /// Records what `engine` proved about `goal`. An unbounded claim on a
    /// covered goal is a [`ProofConflict`]; a bounded one is simply
    /// weaker than the test.
    pub fn claim(&self, engine: &'static str, goal: GoalId, claim: Claim) {
        let mut inner = self.lock();
        let state = &mut inner.goals[goal.index()];
        let old = state.verdict.word();
        let mut conflict = None;
        let mut closes = false;
        match (&state.verdict, claim) {
            (Verdict::Covered { test }, Claim::Unreachable { method }) => {
                conflict = Some(ProofConflict { goal, proof: Proof { engine, method }, test: *test });
            }
            (Verdict::Covered { .. } | Verdict::Unreachable(_), _) => {}
            (_, Claim::Unreachable { method }) => {
                state.verdict = Verdict::Unreachable(Proof { engine, method });
                state.open_reasons.clear();
                closes = true;
            }
            (Verdict::Infeasible(old), Claim::Infeasible { depth, .. }) if old.depth >= depth => {}
            (_, Claim::Infeasible { bound, depth }) => {
                state.verdict = Verdict::Infeasible(BoundedProof { engine, bound, depth });
            }
        }
        let new = state.verdict.word();
        inner.timeline.change(self.start.elapsed().as_secs_f64(), old, new);
        if let Some(c) = conflict {
            inner.conflicts.push(c);
        }
        if closes {
            inner.closed += 1;
            let all_closed = self.targets_closed(&inner);
            drop(inner);
            self.epoch.fetch_add(1, Ordering::AcqRel);
            if all_closed {
                self.request_stop(StopCause::AllClosed);
            }
        }
    }

    /// Records why `engine` leaves `goal` open (replacing what it said
    /// before). Ignored once the goal is closed.
    pub fn note_open(&self, engine: &'static str, goal: GoalId, reason: OpenReason) {
        let mut inner = self.lock();
        let state = &mut inner.goals[goal.index()];
        if state.verdict.is_closed() {
            return;
        }
        match state.open_reasons.iter_mut().find(|(e, _)| *e == engine) {
            Some(slot) => slot.1 = reason,
            None => state.open_reasons.push((engine, reason)),
        }
    }

    /// Publishes `engine`'s figures (replacing what it published before).
    pub fn publish(&self, figures: EngineFigures) {
        let mut inner = self.lock();
        match inner.engines.iter_mut().find(|f| f.name == figures.name) {
            Some(slot) => *slot = figures,
            None => inner.engines.push(figures),
        }
    }

    /// Updates only the status and time of `engine`'s figures.
    pub(crate) fn set_status(&self, engine: &'static str, status: &str, time: Duration) {
        let mut inner = self.lock();
        match inner.engines.iter_mut().find(|f| f.name == engine) {
            Some(slot) => {
                slot.status = status.to_string();
                slot.time = time;
            }
            None => inner.engines.push(EngineFigures {
                name: engine,
                status: status.to_string(),
                time,
                counters: Vec::new(),
            }),
        }
    }

    /// The time `engine` held a worker, as last recorded.
    pub fn engine_time(&self, engine: &str) -> Duration {
        self.lock().engines.iter().find(|f| f.name == engine).map_or(Duration::ZERO, |f| f.time)
    }

    /// The vectors of the tests kept from number `from` on, with the
    /// engine that found each (engines learn from each other's tests).
    pub fn tests_since(&self, from: usize) -> Vec<(usize, TestVector, &'static str)> {
        let inner = self.lock();
        inner.tests.iter().skip(from).map(|t| (t.index, t.vector.clone(), t.engine)).collect()
    }

    /// Kept tests so far.
    pub fn test_count(&self) -> usize {
        self.lock().tests.len()
    }

    /// A consistent copy of the state.
    pub fn snapshot(&self) -> Snapshot {
        let inner = self.lock();
        Snapshot {
            elapsed: self.start.elapsed(),
            goals: inner.goals.clone(),
            timeline: inner.timeline.points().to_vec(),
            tests: inner.tests.clone(),
            errors: inner.errors.clone(),
            error_checks: inner.error_checks.clone(),
            conflicts: inner.conflicts.clone(),
            engines: inner.engines.clone(),
            stop: inner.stop,
            sink_error: inner.sink_error.clone(),
            unmodelled: inner.unmodelled.clone(),
            refuted: inner.refuted.clone(),
            refuted_count: inner.refuted_count,
            confirmed_count: inner.confirmed_count,
            unconfirmed_count: inner.unconfirmed_count,
            unchecked_count: inner.unchecked_count,
            memory: MemoryFigures {
                bound: self.memory.bound().map(|b| b.bytes),
                peak: self.memory.peak(),
                dropped: self.memory.dropped(),
            },
        }
    }

    /// Marks the end when every engine ended by itself.
    pub(crate) fn finish(&self) {
        let mut inner = self.lock();
        inner.stop.get_or_insert(StopCause::EnginesDone);
    }
}
