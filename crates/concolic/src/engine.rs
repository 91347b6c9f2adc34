//! The concolic loop: trace a run, turn its branch points into candidates,
//! let the searcher pick one, solve its path condition with the branch
//! negated, replay the new vector in the interpreter (the judge), keep it
//! when it covers a new goal or reaches a new error, and repeat until the
//! budget ends or nothing is left to try.
//!
//! Candidates follow SAGE's generational search: a run derived by flipping
//! branch point `j` of its parent only offers alternatives after `j` (its
//! bound), so no path prefix is explored twice. Candidates whose goal is
//! already covered are deferred, not dropped: they are tried once no
//! candidate for an open goal is left, since going through covered
//! branches is often the way to deeper ones.

use walkdown_ir::entity::EntityRef;
use crate::distance::Distances;
use crate::search::{Candidate, Rng, SearchContext, SearchKind, Searcher};
use crate::symex::{AltKind, Trace, TraceLimits, Tracer, TripLoop};
use crate::sym::vector_from_model;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions, RunResult};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::{CheckKind, Loc, Program};
use walkdown_smt::{Answer, ExprPool, LayerStats, Query, Solver, SolverSettings, SolverStack};

/// What the generated suite is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Cover every branch (Test-Comp `coverage-branches`).
    CoverBranches,
    /// Reach `reach_error` once, then stop (Test-Comp `coverage-error`).
    CoverError,
}

/// Settings of a generation run, with their defaults.
#[derive(Clone, Debug)]
pub struct GenSettings {
    /// Wall-clock budget. Default 60 s.
    pub time: Duration,
    /// Search order. Default `bfs` (SAGE's generations): on the public
    /// tasks at 10 s it covered most without mutants (77.5% mean gcov
    /// branch coverage over the 43 tasks that read inputs, against 75.6% to
    /// 77.5% for the others), and all orders tie with mutants on.
    pub search: SearchKind,
    /// Seed of the random choices. Default 1.
    pub seed: u64,
    /// What the suite is for. Default branch coverage.
    pub property: Property,
    /// Offer the failures of runtime checks (division by zero, overflow
    /// checks the frontend emits, out-of-bounds accesses) as goals. Default
    /// on.
    pub runtime_checks: bool,
    /// Limits of each traced run.
    pub trace: TraceLimits,
    /// Limits of each replay in the interpreter. Default: the interpreter's
    /// own (50,000,000 steps), so `walkdown run` replays a test to exactly
    /// the goals the report claims.
    pub replay: ExecLimits,
    /// The solver stack.
    pub solver: SolverSettings,
    /// Stop after this many executions (for tests). Default none.
    pub max_executions: Option<u64>,
    /// Random vectors to run when no candidate is left. Default on.
    pub random_fallback: bool,
    /// Candidates kept waiting at most; beyond it, new candidates that aim
    /// at no open goal are dropped (memory stays bounded on long runs).
    /// Default 50,000 (each candidate keeps its run's path condition alive).
    pub max_waiting: usize,
    /// Share of the time spent replaying mutations of kept tests (values
    /// from kept tests appended, replaced, truncated) in the interpreter
    /// alone; a mutant that covers something new is traced and joins the
    /// search. Cheap runs that reach states a path-by-path search reaches
    /// slowly (long input sequences). Default 0.3; 0 turns it off.
    pub mutation_share: f64,
    /// Goals a static analysis proved unreachable: the engine does not aim
    /// at them and does not wait for them to end the run. A test that
    /// covers one anyway is counted in [`Stats::proof_conflicts`]. Default
    /// none.
    pub unreachable: Vec<GoalId>,
    /// Loops whose exits get trip-count symbols (from
    /// [`walkdown_absint::trip_count_forms`]; see [`crate::symex::TripLoop`]).
    /// Default none.
    pub loop_forms: Vec<walkdown_absint::LoopForms>,
    /// Keep every query the engine asks, with the expression pool, in
    /// [`GenResult::query_log`] (for tests of the solver layers). Default off.
    pub log_queries: bool,
}

impl Default for GenSettings {
    fn default() -> Self {
        GenSettings {
            time: Duration::from_secs(60),
            search: SearchKind::Bfs,
            seed: 1,
            property: Property::CoverBranches,
            runtime_checks: true,
            trace: TraceLimits::default(),
            replay: ExecLimits::default(),
            solver: SolverSettings::default(),
            max_executions: None,
            random_fallback: true,
            mutation_share: 0.3,
            max_waiting: 50_000,
            unreachable: Vec::new(),
            loop_forms: Vec::new(),
            log_queries: false,
        }
    }
}

/// A test the ledger kept.
#[derive(Clone, Debug)]
pub struct KeptTest {
    /// Its number in the suite (0-based).
    pub index: usize,
    /// The input values.
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
    /// Seconds since the start.
    pub at: f64,
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

/// Engine figures.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Traced runs.
    pub executions: u64,
    /// Interpreter replays.
    pub replays: u64,
    /// Candidates solved.
    pub queries: u64,
    /// Of which satisfiable / unsatisfiable / unknown.
    pub sat: u64,
    /// See `sat`.
    pub unsat: u64,
    /// See `sat`.
    pub unknown: u64,
    /// Candidates skipped as duplicates.
    pub duplicates: u64,
    /// Candidates dropped because too many were waiting.
    pub dropped: u64,
    /// Expressions in the pool.
    pub expressions: usize,
    /// Goals covered by a test although proved unreachable (a soundness
    /// bug of the proof; should stay 0).
    pub proof_conflicts: u64,
    /// Replays that did not take the branch the solver aimed for.
    pub divergences: u64,
    /// Random vectors run.
    pub random_runs: u64,
    /// Mutants of kept tests replayed.
    pub mutations: u64,
    /// Mutants kept.
    pub mutations_kept: u64,
    /// Time in the solver stack.
    pub solver_time: Duration,
    /// Time tracing.
    pub trace_time: Duration,
    /// Time replaying.
    pub replay_time: Duration,
    /// Elapsed.
    pub elapsed: Duration,
    /// Candidates waiting.
    pub waiting: usize,
    /// Goals covered.
    pub covered: usize,
    /// Goals in all.
    pub goals: usize,
    /// Tests kept.
    pub tests: usize,
    /// Per solver layer.
    pub layers: Vec<LayerStats>,
}

/// Receives kept tests as they are found, and progress.
pub trait TestSink {
    /// A new test; written at once so an interrupted run loses nothing.
    fn test(&mut self, test: &KeptTest) -> Result<(), String>;
    /// Called about once a second.
    fn progress(&mut self, stats: &Stats);
}

/// The result of a generation run.
#[derive(Debug)]
pub struct GenResult {
    /// Kept tests.
    pub tests: Vec<KeptTest>,
    /// For each goal, the test that covered it first.
    pub goal_tests: HashMap<GoalId, usize>,
    /// Errors reached, with their tests.
    pub errors: Vec<(ErrorFound, usize)>,
    /// Figures.
    pub stats: Stats,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// With [`GenSettings::log_queries`]: the pool and every query asked.
    pub query_log: Option<QueryLog>,
}

/// The queries of a run, for replaying them through other solver stacks.
pub struct QueryLog {
    /// The pool the queries' expressions live in.
    pub pool: ExprPool,
    /// Each query's constraints, in the order asked.
    pub queries: Vec<Vec<walkdown_smt::ExprId>>,
}

impl std::fmt::Debug for QueryLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "QueryLog({} queries)", self.queries.len())
    }
}

/// Why generation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The time budget ran out.
    Time,
    /// Every goal is covered.
    AllCovered,
    /// Nothing left to try (and random fallback off).
    Exhausted,
    /// `coverage-error`: the error was reached.
    ErrorReached,
    /// Interrupted (Ctrl-C).
    Interrupted,
    /// `max_executions` reached.
    ExecutionLimit,
}

/// Errors that end generation.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// The interpreter cannot lay out the program.
    #[error(transparent)]
    Interp(#[from] walkdown_interp::InterpError),
    /// The sink could not write a test.
    #[error("cannot write a test: {0}")]
    Sink(String),
}

struct Engine<'p, 's> {
    program: &'p Program,
    goals: &'p Goals,
    interp: &'p Interpreter,
    settings: &'s GenSettings,
    pool: ExprPool,
    solver: SolverStack,
    covered: Vec<bool>,
    /// Covered or proved unreachable: nothing more to aim at.
    closed: Vec<bool>,
    errors_seen: HashSet<(CheckKind, Loc)>,
    result: GenResult,
    searcher: Box<dyn Searcher>,
    deferred: Box<dyn Searcher>,
    tried: HashSet<u64>,
    distances: Distances,
    epoch: u64,
    distances_epoch: u64,
    rng: Rng,
    seq: u64,
    start: Instant,
    last_progress: Instant,
    logged: Vec<Vec<walkdown_smt::ExprId>>,
    mutation_time: Duration,
    dictionary: Vec<InputValue>,
    dictionary_seen: HashSet<u64>,
}

/// Generates tests for `program` until the budget ends, `stop` is set, or
/// nothing is left to do.
pub fn generate(
    program: &Program,
    goals: &Goals,
    settings: &GenSettings,
    sink: &mut dyn TestSink,
    stop: &AtomicBool,
) -> Result<GenResult, GenError> {
    let interp = Interpreter::new(program, goals)?;
    let prepared = interp.prepared();
    let trip_loops = settings
        .loop_forms
        .iter()
        .filter_map(|f| Some(TripLoop::new(f.clone(), program.funcs.get(f.func)?.body.as_ref()?)))
        .collect();
    let mut tracer = Tracer::new(program, goals, prepared).with_trip_loops(trip_loops);
    let start = Instant::now();
    let covered = vec![false; goals.len()];
    let mut closed = covered.clone();
    for g in &settings.unreachable {
        if let Some(c) = closed.get_mut(g.index()) {
            *c = true;
        }
    }
    let mut e = Engine {
        program,
        goals,
        interp: &interp,
        settings,
        pool: ExprPool::new(),
        solver: {
            // No query may outlive the budget the user gave.
            let mut stack = SolverStack::build(&settings.solver);
            stack.set_deadline(Some(start + settings.time));
            stack
        },
        distances: Distances::compute(program, goals, &closed),
        covered,
        closed,
        errors_seen: HashSet::new(),
        result: GenResult {
            tests: Vec::new(),
            goal_tests: HashMap::new(),
            errors: Vec::new(),
            stats: Stats { goals: goals.len(), ..Stats::default() },
            stop_reason: StopReason::Exhausted,
            query_log: None,
        },
        searcher: settings.search.build(),
        deferred: settings.search.build(),
        tried: HashSet::new(),
        epoch: 0,
        distances_epoch: 0,
        rng: Rng::new(settings.seed),
        seq: 0,
        start,
        last_progress: Instant::now(),
        logged: Vec::new(),
        mutation_time: Duration::ZERO,
        dictionary: Vec::new(),
        dictionary_seen: HashSet::new(),
    };
    let reason = e.run(&mut tracer, sink, stop)?;
    e.result.stop_reason = reason;
    e.finish_stats();
    sink.progress(&e.result.stats);
    if settings.log_queries {
        e.result.query_log = Some(QueryLog { pool: std::mem::take(&mut e.pool), queries: std::mem::take(&mut e.logged) });
    }
    Ok(e.result)
}

impl<'p, 's> Engine<'p, 's> {
    fn run(&mut self, tracer: &mut Tracer<'p>, sink: &mut dyn TestSink, stop: &AtomicBool) -> Result<StopReason, GenError> {
        let first = TestVector::default();
        if let Some(r) = self.execute(tracer, first, 0, sink)? {
            return Ok(r);
        }
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(StopReason::Interrupted);
            }
            if self.start.elapsed() >= self.settings.time {
                return Ok(StopReason::Time);
            }
            if self.settings.max_executions.is_some_and(|m| self.result.stats.executions >= m) {
                return Ok(StopReason::ExecutionLimit);
            }
            if self.closed.iter().all(|&c| c) {
                return Ok(StopReason::AllCovered);
            }
            if self.last_progress.elapsed() >= Duration::from_secs(1) {
                self.last_progress = Instant::now();
                self.finish_stats();
                sink.progress(&self.result.stats);
            }
            let share = self.settings.mutation_share;
            if share > 0.0
                && !self.result.tests.is_empty()
                && self.mutation_time.as_secs_f64() < share * self.start.elapsed().as_secs_f64()
            {
                if let Some(r) = self.mutation_round(tracer, sink)? {
                    return Ok(r);
                }
                continue;
            }
            let Some(candidate) = self.next_candidate() else {
                if !self.settings.random_fallback {
                    return Ok(StopReason::Exhausted);
                }
                if !self.result.tests.is_empty() && share > 0.0 {
                    if let Some(r) = self.mutation_round(tracer, sink)? {
                        return Ok(r);
                    }
                    continue;
                }
                let v = self.random_vector();
                self.result.stats.random_runs += 1;
                if let Some(r) = self.execute(tracer, v, 0, sink)? {
                    return Ok(r);
                }
                continue;
            };
            let Some(vector) = self.solve(&candidate) else { continue };
            let bound = candidate.point + 1;
            let target = candidate.alternative().goal;
            if let Some(r) = self.execute(tracer, vector, bound, sink)? {
                return Ok(r);
            }
            if let Some(g) = target {
                if !self.covered[g.index()] {
                    self.result.stats.divergences += 1;
                }
            }
        }
    }

    /// The next candidate worth solving.
    fn next_candidate(&mut self) -> Option<Candidate> {
        if self.distances_epoch != self.epoch {
            self.distances = Distances::compute(self.program, self.goals, &self.closed);
            self.distances_epoch = self.epoch;
        }
        let ctx = SearchContext { distances: &self.distances, coverage_epoch: self.epoch };
        while let Some(c) = self.searcher.next(&ctx, &mut self.rng) {
            match c.alternative().goal {
                // Proved unreachable: the query could only be unsatisfiable.
                Some(g) if self.closed[g.index()] && !self.covered[g.index()] => {}
                Some(g) if self.closed[g.index()] => {
                    if matches!(c.alternative().kind, AltKind::Branch) {
                        self.deferred.add(c);
                    }
                }
                _ => return Some(c),
            }
        }
        self.deferred.next(&ctx, &mut self.rng)
    }

    /// Solves the candidate's path prefix with its alternative; the new
    /// vector, if satisfiable.
    fn solve(&mut self, c: &Candidate) -> Option<TestVector> {
        let alt = c.alternative();
        let mut constraints: Vec<walkdown_smt::ExprId> = c.path[..c.prefix].to_vec();
        constraints.push(alt.cond);
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            constraints.hash(&mut h);
            h.finish()
        };
        if !self.tried.insert(key) {
            self.result.stats.duplicates += 1;
            return None;
        }
        self.result.stats.queries += 1;
        if self.settings.log_queries {
            self.logged.push(constraints.clone());
        }
        let t = Instant::now();
        let answer = self.solver.check(&self.pool, &Query { constraints: &constraints });
        self.result.stats.solver_time += t.elapsed();
        match answer {
            Ok(Answer::Sat(model)) => {
                self.result.stats.sat += 1;
                Some(vector_from_model(&c.inputs, &c.vector, &model, self.program.data_model))
            }
            Ok(Answer::Unsat) => {
                self.result.stats.unsat += 1;
                None
            }
            Ok(Answer::Unknown(_)) | Err(_) => {
                self.result.stats.unknown += 1;
                None
            }
        }
    }

    /// Traces and replays `vector`; adds its candidates after `bound`.
    fn execute(
        &mut self,
        tracer: &mut Tracer<'p>,
        vector: TestVector,
        bound: usize,
        sink: &mut dyn TestSink,
    ) -> Result<Option<StopReason>, GenError> {
        let t = Instant::now();
        let deadline = self.start + self.settings.time;
        let trace = tracer.run(&mut self.pool, &vector.values, &self.settings.trace, deadline);
        self.result.stats.trace_time += t.elapsed();
        self.result.stats.executions += 1;
        let run_no = self.result.stats.executions;

        let t = Instant::now();
        let replay = self.interp.run(&vector, &RunOptions { limits: self.settings.replay.clone(), record_lines: false });
        self.result.stats.replay_time += t.elapsed();
        self.result.stats.replays += 1;
        if let (_, Some(reason)) = self.ledger(&vector, replay, sink)? {
            return Ok(Some(reason));
        }
        self.expand(trace, vector, bound, run_no);
        Ok(None)
    }

    /// Replays mutants of kept tests; traces those that cover something new.
    fn mutation_round(&mut self, tracer: &mut Tracer<'p>, sink: &mut dyn TestSink) -> Result<Option<StopReason>, GenError> {
        let t = Instant::now();
        let mut result = None;
        for _ in 0..16 {
            // A replay can take up to the step limit; the budget wins.
            if self.start.elapsed() >= self.settings.time {
                break;
            }
            let vector = self.mutate();
            self.result.stats.mutations += 1;
            let replay = self.interp.run(&vector, &RunOptions { limits: self.settings.replay.clone(), record_lines: false });
            let (kept, stop) = self.ledger(&vector, replay, sink)?;
            if stop.is_some() {
                result = stop;
                break;
            }
            if kept {
                self.result.stats.mutations_kept += 1;
                let deadline = self.start + self.settings.time;
                let trace = tracer.run(&mut self.pool, &vector.values, &self.settings.trace, deadline);
                self.result.stats.executions += 1;
                let run_no = self.result.stats.executions;
                self.expand(trace, vector, 0, run_no);
            }
        }
        self.mutation_time += t.elapsed();
        Ok(result)
    }

    /// A mutant of a random kept test.
    fn mutate(&mut self) -> TestVector {
        let base = &self.result.tests[self.rng.below(self.result.tests.len() as u64) as usize];
        let mut values = base.vector.values.clone();
        let ops = 1 + self.rng.below(3);
        for _ in 0..ops {
            match self.rng.below(4) {
                0 => {
                    let n = 1 + self.rng.below(8);
                    for _ in 0..n {
                        let v = self.pick_value();
                        values.push(v);
                    }
                }
                1 if !values.is_empty() => {
                    let i = self.rng.below(values.len() as u64) as usize;
                    values[i] = self.pick_value();
                }
                2 if !values.is_empty() => {
                    let i = self.rng.below(values.len() as u64) as usize;
                    values[i] = match self.rng.below(4) {
                        0 => InputValue::Int(0),
                        1 => InputValue::Int(1),
                        2 => InputValue::Int(-1),
                        _ => InputValue::Int(self.rng.below(256) as i128 - 128),
                    };
                }
                _ if !values.is_empty() => {
                    let i = self.rng.below(values.len() as u64) as usize;
                    values.truncate(i);
                    let v = self.pick_value();
                    values.push(v);
                }
                _ => values.push(self.pick_value()),
            }
        }
        TestVector { values }
    }

    /// A value from the kept tests (or a small random one).
    fn pick_value(&mut self) -> InputValue {
        if self.dictionary.is_empty() || self.rng.below(8) == 0 {
            InputValue::Int(self.rng.below(64) as i128 - 16)
        } else {
            self.dictionary[self.rng.below(self.dictionary.len() as u64) as usize]
        }
    }

    /// Adds the candidates of a traced run after its bound.
    fn expand(&mut self, trace: Trace, vector: TestVector, bound: usize, run_no: u64) {
        let path: Rc<[walkdown_smt::ExprId]> = Rc::from(trace.path);
        let inputs: Rc<[crate::symex::TracedInput]> = Rc::from(trace.inputs);
        let vector = Rc::new(vector);
        for (i, p) in trace.points.iter().enumerate().skip(bound) {
            for alt in &p.alternatives {
                if !self.settings.runtime_checks {
                    if let AltKind::Check(k) = alt.kind {
                        if !k.is_user_property() {
                            continue;
                        }
                    }
                }
                let aims_at_open_goal = alt.goal.is_some_and(|g| !self.closed[g.index()]);
                if let AltKind::Check(_) = alt.kind {
                    if !aims_at_open_goal {
                        continue;
                    }
                }
                if !aims_at_open_goal && self.searcher.len() + self.deferred.len() >= self.settings.max_waiting {
                    self.result.stats.dropped += 1;
                    continue;
                }
                self.seq += 1;
                self.searcher.add(Candidate {
                    path: Rc::clone(&path),
                    inputs: Rc::clone(&inputs),
                    vector: Rc::clone(&vector),
                    point: i,
                    prefix: p.prefix,
                    alt: *alt,
                    seq: self.seq,
                    run: run_no,
                });
            }
        }
    }

    /// Keeps the test if its replay covers a new goal or reaches a new
    /// error; says whether it was kept and whether generation should stop.
    fn ledger(
        &mut self,
        vector: &TestVector,
        replay: RunResult,
        sink: &mut dyn TestSink,
    ) -> Result<(bool, Option<StopReason>), GenError> {
        let new_goals: Vec<GoalId> = replay.covered.iter().copied().filter(|g| !self.covered[g.index()]).collect();
        let error = match replay.outcome {
            Outcome::Error { kind, loc, goal, .. } => Some(ErrorFound { kind, loc, goal }),
            _ => None,
        };
        let new_error = error.is_some_and(|e| self.errors_seen.insert((e.kind, e.loc)));
        if new_goals.is_empty() && !new_error {
            return Ok((false, None));
        }
        for g in &new_goals {
            self.covered[g.index()] = true;
            if self.closed[g.index()] {
                self.result.stats.proof_conflicts += 1;
            }
            self.closed[g.index()] = true;
        }
        self.epoch += 1;
        let index = self.result.tests.len();
        for g in &new_goals {
            self.result.goal_tests.insert(*g, index);
        }
        if let (Some(e), true) = (error, new_error) {
            self.result.errors.push((e, index));
        }
        // The replay consumed exactly the inputs the program read; write
        // those (with their traced types), so the test is what ran.
        let consumed: Vec<InputValue> =
            replay.inputs.iter().map(|i| InputValue::from_bits(i.ty, i.signed, i.bits, self.program.data_model)).collect();
        let types = replay.inputs.iter().map(|i| i.ty.c_name(i.signed, self.program.data_model)).collect();
        let vector = if replay.inputs_exhausted || consumed.len() != replay.inputs.len() {
            vector.clone()
        } else {
            TestVector { values: consumed }
        };
        for v in &vector.values {
            let key = match v {
                InputValue::Int(i) => *i as u64,
                InputValue::Float(f) => f.to_bits(),
            };
            if self.dictionary.len() < 256 && self.dictionary_seen.insert(key) {
                self.dictionary.push(*v);
            }
        }
        let kept = KeptTest {
            index,
            vector,
            types,
            new_goals,
            covered: replay.covered,
            error,
            outcome: replay.outcome,
            at: self.start.elapsed().as_secs_f64(),
        };
        sink.test(&kept).map_err(GenError::Sink)?;
        self.result.tests.push(kept);
        if self.settings.property == Property::CoverError && error.is_some_and(|e| e.kind == CheckKind::ReachError) {
            return Ok((true, Some(StopReason::ErrorReached)));
        }
        Ok((true, None))
    }

    fn random_vector(&mut self) -> TestVector {
        let n = 16 + self.rng.below(48) as usize;
        let values = (0..n)
            .map(|_| {
                let v = match self.rng.below(4) {
                    0 => self.rng.below(3) as i128 - 1,
                    1 => (self.rng.next_u64() as i8) as i128,
                    2 => (self.rng.next_u64() as i32) as i128,
                    _ => (self.rng.below(200) as i128) - 100,
                };
                InputValue::Int(v)
            })
            .collect();
        TestVector { values }
    }

    fn finish_stats(&mut self) {
        let s = &mut self.result.stats;
        s.elapsed = self.start.elapsed();
        s.waiting = self.searcher.len() + self.deferred.len();
        s.covered = self.covered.iter().filter(|&&c| c).count();
        s.tests = self.result.tests.len();
        s.expressions = self.pool.len();
        s.layers = self.solver.report();
    }
}

