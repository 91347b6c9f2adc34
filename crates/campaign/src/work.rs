//! Work in ticks: deterministic figures converted to one unit, nominally a
//! microsecond of one core of the machine walkdown is developed on.
//!
//! When engines take turns on a worker, the scheduler shares it by ticks,
//! not by wall time: interpreter steps, the solver's resource count and
//! formula sizes are the same on every run of the same program with the
//! same seed, however busy the machine, so `--jobs 1` runs are
//! reproducible. The rates only need to be right in proportion (they
//! decide the shares, never a result). Measured on public tasks with
//! `--jobs 2` (each engine's `work_ticks` over its time): the concolic
//! engine books 0.4 to 1.6 million ticks a second; Z3's resource count
//! runs at 0.4 (nonlinear bit-vector queries) to 4.5 million units a
//! second (factoring), so a solver-bound engine books between a fifth and
//! twice its time.

/// Interpreter steps per tick when replaying a vector (no symbolic state).
pub const REPLAY_STEPS_PER_TICK: u64 = 150;
/// Steps per tick when tracing a run symbolically.
pub const TRACED_STEPS_PER_TICK: u64 = 10;
/// Solver work units (Z3's `rlimit`, Bitwuzla's scaled callback count) per tick.
pub const SOLVER_UNITS_PER_TICK: u64 = 2;
/// Ticks per term of a formula built (the bounded engine's unwinding:
/// about 25,000 terms in 20 ms).
pub const TICKS_PER_TERM: u64 = 1;
/// Ticks per term of the formula a query asserts afresh (Z3 takes it in
/// again; the part of its time the resource count misses: about 0.25 s
/// a query on a 25,000-term formula).
pub const TICKS_PER_ASSERTED_TERM: u64 = 8;

/// Ticks of a replay of `steps` steps (at least one: every run costs).
pub fn replay(steps: u64) -> u64 {
    1 + steps / REPLAY_STEPS_PER_TICK
}

/// Units of expression-pool work (terms built, leaf-set elements merged:
/// `ExprPool::work`) per tick: a merged element takes a few nanoseconds.
pub const POOL_UNITS_PER_TICK: u64 = 256;

/// Ticks of a traced run of `steps` steps.
pub fn traced(steps: u64) -> u64 {
    1 + steps / TRACED_STEPS_PER_TICK
}

/// Ticks of `units` of expression-pool work a run built (see
/// [`POOL_UNITS_PER_TICK`]).
pub fn built(units: u64) -> u64 {
    units / POOL_UNITS_PER_TICK
}

/// Ticks of `units` of solver work (see `Solver::work`).
pub fn solver(units: u64) -> u64 {
    units / SOLVER_UNITS_PER_TICK
}

/// Ticks of building a formula of `terms` terms.
pub fn formula(terms: u64) -> u64 {
    terms.saturating_mul(TICKS_PER_TERM)
}

/// Ticks of asserting a formula of `terms` terms for one query.
pub fn asserted(terms: u64) -> u64 {
    terms.saturating_mul(TICKS_PER_ASSERTED_TERM)
}

/// The solver work limit (see `Solver::work`) worth `ticks`, for queries whose
/// end must not depend on the machine's load.
pub fn solver_limit(ticks: u64) -> u32 {
    ticks.saturating_mul(SOLVER_UNITS_PER_TICK).min(u64::from(u32::MAX)) as u32
}

/// Ticks nominally worth `d` of wall time.
pub fn of_duration(d: std::time::Duration) -> u64 {
    d.as_micros().min(u128::from(u64::MAX)) as u64
}
