//! `report.json`: what a generation run found, goal by goal — each goal
//! with the test that covers it or marked open, each error with its test
//! and location, and the engine's figures. Written atomically, refreshed
//! while the run goes on, so a reader never sees half a file.

use crate::atomic::write_atomically;
use crate::FormatError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The whole report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// The program file.
    pub program: String,
    /// Tool and version.
    pub producer: String,
    /// `coverage-branches` or `coverage-error`.
    pub property: String,
    /// `LP64` or `ILP32`.
    pub data_model: String,
    /// The search order.
    pub search: String,
    /// The random seed.
    pub seed: u64,
    /// `running` while the run goes on, then `finished` or `interrupted`.
    pub status: String,
    /// Why the run stopped (empty while running).
    pub stop_reason: String,
    /// Goals covered.
    pub goals_covered: usize,
    /// Goals proved unreachable.
    #[serde(default)]
    pub goals_unreachable: usize,
    /// Goals proved infeasible only within a bound (the bounded engine's
    /// "infeasible within unwinding K"; the bound is in each goal's
    /// `proved_by`). Not counted in `goals_unreachable`.
    #[serde(default)]
    pub goals_infeasible: usize,
    /// Goals in all.
    pub goals_total: usize,
    /// Every goal.
    pub goals: Vec<GoalEntry>,
    /// Every distinct error reached.
    pub errors: Vec<ErrorEntry>,
    /// Every kept test.
    pub tests: Vec<TestEntry>,
    /// Engine figures.
    pub engine: EngineFigures,
}

/// One goal.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GoalEntry {
    /// Its id (`g12`).
    pub id: String,
    /// `branch true`, `case 3`, `error div_by_zero`, ...
    pub kind: String,
    /// `file:line:col`.
    pub location: String,
    /// The function.
    pub function: String,
    /// `covered`, `unreachable` (proved for every execution, see
    /// `proved_by`), `infeasible` (proved only for the executions within a
    /// bound, which `proved_by` names, e.g. "bmc: infeasible within
    /// unwinding 2") or `open`.
    pub status: String,
    /// For `unreachable`: which analysis proved it, and within which bound
    /// (none means an unbounded proof).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub proved_by: Option<String>,
    /// The first test that covers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
}

/// One error reached.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ErrorEntry {
    /// `reach_error`, `div_by_zero`, ...
    pub kind: String,
    /// `file:line:col`.
    pub location: String,
    /// The test that reaches it.
    pub test: String,
}

/// One kept test.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TestEntry {
    /// File name inside the suite directory.
    pub file: String,
    /// Goals it covered first.
    pub new_goals: Vec<String>,
    /// All goals its replay covers.
    pub covers: Vec<String>,
    /// How its replay ends.
    pub outcome: String,
    /// Seconds after the start when it was found.
    pub found_at_s: f64,
}

/// Engine figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EngineFigures {
    /// Traced executions.
    pub executions: u64,
    /// Replays in the interpreter.
    pub replays: u64,
    /// Random vectors run when no candidate was left.
    pub random_runs: u64,
    /// Mutants of kept tests replayed in the interpreter.
    pub mutations: u64,
    /// Mutants kept as tests.
    pub mutations_kept: u64,
    /// Solver queries asked by the engine.
    pub queries: u64,
    /// Satisfiable answers.
    pub sat: u64,
    /// Unsatisfiable answers.
    pub unsat: u64,
    /// Unknown answers (timeouts).
    pub unknown: u64,
    /// Candidates skipped as already tried.
    pub duplicates: u64,
    /// Runs that missed the goal their query aimed at.
    pub divergences: u64,
    /// Candidates still waiting at the end.
    pub waiting: usize,
    /// Candidates dropped because too many were waiting.
    pub dropped: u64,
    /// Expressions in the solver facade's pool.
    pub expressions: usize,
    /// Wall-clock seconds.
    pub elapsed_s: f64,
    /// Seconds in the solver stack.
    pub solver_s: f64,
    /// Seconds tracing.
    pub trace_s: f64,
    /// Seconds replaying.
    pub replay_s: f64,
    /// Executions per second.
    pub executions_per_s: f64,
    /// Queries per second.
    pub queries_per_s: f64,
    /// Share of the time spent in the solver (0 to 1).
    pub solver_share: f64,
    /// Per solver layer, outermost first.
    pub layers: Vec<LayerFigures>,
}

/// One solver layer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LayerFigures {
    /// Its name.
    pub layer: String,
    /// Queries it received.
    pub queries: u64,
    /// Queries it answered itself.
    pub hits: u64,
    /// Seconds spent in it and below.
    pub time_s: f64,
}

/// Writes `report` to `path` atomically.
pub fn write_report(path: &Path, report: &Report) -> Result<(), FormatError> {
    let text = serde_json::to_string_pretty(report).expect("a report always serializes");
    write_atomically(path, text.as_bytes())
}

/// Reads a report.
pub fn read_report(path: &Path) -> Result<Report, FormatError> {
    let text = std::fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| FormatError::Malformed { path: path.to_path_buf(), message: e.to_string() })
}
