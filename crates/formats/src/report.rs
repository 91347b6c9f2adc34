//! `report.json`: what a generation run found, goal by goal — each goal
//! with its verdict (covered by a test, unreachable or infeasible within a
//! bound with the proof named, or open with the reasons), each error with
//! its test and location, proof conflicts, and each engine's figures. Written atomically, refreshed
//! while the run goes on, so a reader never sees half a file.

use crate::atomic::write_atomically;
use crate::FormatError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The whole report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// The program file (of several, the first: see `sources`).
    pub program: String,
    /// The program's files when it has several (`program` first), in the
    /// order of its file table; absent for one file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// The words that name the program on walkdown's command line when
    /// `program` alone does not (`a.c b.c -I inc`, `--compile-commands
    /// DB --target FILE`); what a reproduce command starts with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub program_args: Vec<String>,
    /// Tool and version.
    pub producer: String,
    /// `coverage-branches` or `coverage-error`.
    pub property: String,
    /// `LP64` or `ILP32`.
    pub data_model: String,
    /// The engines that ran, with their settings in words
    /// (`concolic (bfs) + bmc (unwinding 1, 2, 4, …)`).
    pub search: String,
    /// The random seed.
    pub seed: u64,
    /// The environment the program got as inputs, in words (its bounds),
    /// when it got one: every proof of the run holds within it, so no goal
    /// is `unreachable` then, only `infeasible` within it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// `running` while the run goes on, then `finished` or `interrupted`.
    pub status: String,
    /// Why the run stopped (empty while running).
    pub stop_reason: String,
    /// Seconds since the search began (at the last refresh).
    #[serde(default)]
    pub elapsed_s: f64,
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
    /// Goals left open.
    #[serde(default)]
    pub goals_open: usize,
    /// Every kept test.
    pub tests: Vec<TestEntry>,
    /// Goals claimed unreachable that a replayed test covers: a bug in the
    /// engine that claimed it. Empty in a correct run.
    #[serde(default)]
    pub proof_conflicts: Vec<ConflictEntry>,
    /// Each engine's figures, in the order they were started.
    #[serde(default)]
    pub engines: Vec<EngineFigures>,
    /// The correctness witness, when the program has `reach_error` goals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessEntry>,
    /// Verification annotations, when `gen --annotations` read them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<AnnotationsEntry>,
    /// Unit mode (`gen --entry`): the function, the bounds, each test's input shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<UnitEntry>,
    /// `walkdown check`: every possible runtime error and how it ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check: Vec<CheckEntry>,
    /// External functions without body or model that the replays called
    /// (their calls took input values; natively they run the C library).
    #[serde(default)]
    pub unmodelled_functions: Vec<String>,
    /// Error tests the native check confirmed.
    #[serde(default)]
    pub errors_confirmed_natively: usize,
    /// Error tests through unmodelled functions the native check refuted
    /// (not kept), in all.
    #[serde(default)]
    pub errors_refuted_natively: usize,
    /// Other error tests whose native run did not reproduce their error.
    #[serde(default)]
    pub errors_unconfirmed_natively: usize,
    /// Error tests that could not be run natively.
    #[serde(default)]
    pub errors_unchecked_natively: usize,
    /// The memory bound (`--max-memory`), the peak resident memory, and
    /// what was dropped to stay under the bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryEntry>,
    /// The first refuted tests.
    #[serde(default)]
    pub refuted_tests: Vec<RefutedEntry>,
    /// Goals by verdict over time: a point whenever the counts changed
    /// (the first at 0 s, every goal open), each holding until the next.
    /// Absent in reports of older versions, which give coverage over time
    /// through the tests' `found_at_s` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineEntry>,
    /// Each solver backend the run asked, with what it answered (absent
    /// in reports of older versions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub solvers: Vec<SolverEntry>,
}

impl Report {
    /// The program's files, `program` first.
    pub fn source_files(&self) -> Vec<String> {
        if self.sources.is_empty() {
            vec![self.program.clone()]
        } else {
            self.sources.clone()
        }
    }

    /// The words that name the program on walkdown's command line.
    pub fn program_words(&self) -> Vec<String> {
        if self.program_args.is_empty() {
            vec![self.program.clone()]
        } else {
            self.program_args.clone()
        }
    }
}

/// Goal counts by verdict from `at_s` on (see [`Report::timeline`]).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TimelineEntry {
    /// Seconds since the search began.
    pub at_s: f64,
    /// Goals covered.
    pub covered: usize,
    /// Goals proved unreachable.
    pub unreachable: usize,
    /// Goals infeasible within a bound.
    pub infeasible: usize,
    /// Goals open.
    pub open: usize,
}

/// One possible runtime error as `walkdown check` settles it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CheckEntry {
    /// The error goal (`g12`).
    pub goal: String,
    /// `error div_by_zero`, `error memory`, ...
    pub kind: String,
    /// `file:line:col`.
    pub location: String,
    /// The function.
    pub function: String,
    /// `confirmed` (a test reaches it and its native run shows it),
    /// `refuted` (proved unreachable) or `unknown`.
    pub verdict: String,
    /// The test and its native outcome, the proof, or why it is unknown.
    pub evidence: String,
}

/// A unit-mode run (`gen --entry NAME`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct UnitEntry {
    /// The function under test.
    pub entry: String,
    /// The program file it is in (the harness program keeps its lines).
    #[serde(default)]
    pub program: String,
    /// The program with its `main` renamed and the harness appended (what the engines ran).
    pub harness_program: String,
    /// The C test file (one function per test).
    pub unit_tests: String,
    /// At most this many struct objects per test.
    pub max_objects: u32,
    /// Struct objects at most this many pointers from an argument.
    pub max_depth: u32,
    /// Arrays behind pointers have 1 to this many elements.
    pub max_array: u32,
    /// The defined functions the entry may call (itself first): the unit's code.
    #[serde(default)]
    pub functions: Vec<String>,
    /// What the harness does with the API's contract: `assume` (tests keep
    /// it) or `report` (tests may break it; each says which clauses).
    #[serde(default)]
    pub contract_mode: String,
    /// The API's contract, one clause a line, with where it comes from
    /// (`parser != NULL (jsmn_parse does not compare it with NULL)`).
    #[serde(default)]
    pub contract: Vec<String>,
    /// Each test's input shape.
    pub tests: Vec<UnitTestEntry>,
}

/// One unit test.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct UnitTestEntry {
    /// Its file in the suite.
    pub file: String,
    /// Its C function in `unit_tests` (empty for a run that never called
    /// the entry: its inputs break an assumed precondition).
    pub function: String,
    /// The arguments and objects, in words (`self = &o1, out = NULL; o1 = struct node {value = 5, next = &o1}`).
    pub shape: String,
    /// How the interpreter's run of it ends.
    pub outcome: String,
    /// The clauses of the contract its run breaks (report mode only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken: Vec<String>,
}

/// An error test the native check refuted: not in the suite.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RefutedEntry {
    /// Its input values, as test files spell them.
    pub inputs: Vec<String>,
    /// The error walkdown's replay reached (`reach_error`, ...).
    pub kind: String,
    /// Where (`file:line:col`).
    pub location: String,
    /// How the native run ended instead.
    pub native: String,
    /// The unmodelled functions the replay called.
    pub unmodelled: Vec<String>,
    /// The engine that found it.
    pub engine: String,
}

/// The verification annotations a run used (`gen --annotations`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AnnotationsEntry {
    /// Where they came from (`source`, `self`).
    pub sources: Vec<String>,
    /// The configuration: `uv`, `pv`, `may`, `must` or `may+must`.
    pub configuration: String,
    /// Assumption ids.
    pub assumptions: Vec<String>,
    /// Every error goal with its status.
    pub checks: Vec<CheckAnnotation>,
    /// What the instrumentation put in (`prunes`, `tryfirsts`,
    /// `assumed_sites`), or why none (`reason`).
    pub instrumentation: std::collections::BTreeMap<String, String>,
}

/// One error goal's verification status.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CheckAnnotation {
    /// The goal (`g16`).
    pub goal: String,
    /// `error reach_error`, ...
    pub kind: String,
    /// `file:line:col`.
    pub location: String,
    /// `verified` (premise `true`), `verified under a premise`, or
    /// `unverified`.
    pub status: String,
    /// The premise, over assumption ids.
    pub premise: String,
    /// The sources that verified it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

/// What became of the correctness witness.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WitnessEntry {
    /// Its file in the output directory (empty when not written).
    pub file: String,
    /// `written` or `not written`.
    pub status: String,
    /// Why it was written or not.
    pub reason: String,
    /// Loop invariants it states.
    #[serde(default)]
    pub loop_invariants: usize,
    /// Kept tests replayed with the invariants checked at their loops.
    #[serde(default)]
    pub tests_checked: usize,
    /// Solver queries of the inductiveness check.
    #[serde(default)]
    pub inductiveness_queries: u64,
}

/// A proof a test contradicts.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ConflictEntry {
    /// The goal.
    pub goal: String,
    /// The proof that claimed it unreachable (engine and method).
    pub proof: String,
    /// The test that covers it.
    pub test: String,
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
    /// For `unreachable` and `infeasible`: which engine proved it, how,
    /// and within which bound (none means an unbounded proof).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub proved_by: Option<String>,
    /// For `open`: why, per engine (`bmc: solver unknown`), or `budget`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub open_reasons: Vec<String>,
    /// The first test that covers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
}

/// What the memory bound did.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// The bound, in MB (none: no bound).
    pub bound_mb: Option<f64>,
    /// The highest resident memory seen, in MB (0: not readable).
    pub peak_mb: f64,
    /// What was dropped, in order.
    pub dropped: Vec<DroppedEntry>,
}

/// One thing the memory bound dropped.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DroppedEntry {
    /// Seconds since the start.
    pub at_s: f64,
    /// Resident memory then, in MB.
    pub resident_mb: f64,
    /// What (`caches: ...`, `engine cegar stopped, its state dropped`).
    pub what: String,
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
    /// What the test's native run says: `confirmed` (it ends in the same
    /// error), `unconfirmed` (it ends otherwise: see `native_outcome`) or
    /// `unchecked` (it could not run: see `native_outcome`). Reports of
    /// walkdown before native confirmation have none.
    #[serde(default)]
    pub native: String,
    /// How the native run ended when it did not confirm the error, or why
    /// it could not run.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub native_outcome: String,
}

impl ErrorEntry {
    /// Whether the native run did not reproduce the error.
    pub fn unconfirmed(&self) -> bool {
        self.native == "unconfirmed"
    }

    /// The native check in words, for summaries (`confirmed natively`,
    /// `unconfirmed: killed by signal 11 (SIGSEGV) natively (gcc)`).
    pub fn native_words(&self) -> String {
        match (self.native.as_str(), self.native_outcome.as_str()) {
            ("", _) => "not checked natively".into(),
            ("confirmed", _) => "confirmed natively".into(),
            (word, "") => word.into(),
            (word, how) => format!("{word}: {how}"),
        }
    }
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
    /// The engine that found it.
    #[serde(default)]
    pub engine: String,
    /// Steps of its run in the interpreter, iteration by iteration (those
    /// executed plus those of the loop iterations fast-forwarding jumped
    /// over; a float, since a jump over nested loops may exceed 2^64).
    #[serde(default)]
    pub steps: f64,
    /// Why the test cannot be replayed natively in practice, when it
    /// cannot: its run in the interpreter jumped over more loop iterations
    /// than any native run gets through (the interpreter's replay remains
    /// the judge of what it covers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_replay: Option<String>,
    /// The loop iterations its run jumped over (the first 64 jumps): the
    /// loop counters on the path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fast_forwards: Vec<JumpEntry>,
}

/// One jump over loop iterations in a test's run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct JumpEntry {
    /// The loop's head (`file:line:col`).
    pub loop_head: String,
    /// The iterations jumped over (a string: it may exceed 2^64).
    pub iterations: String,
    /// The loop's variables (its head's values, unsigned) before the jump.
    pub from: Vec<u64>,
    /// And after it.
    pub to: Vec<u64>,
}

/// One engine's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EngineFigures {
    /// The engine (`static`, `concolic`, `bmc`).
    pub name: String,
    /// `running`, or how it ended.
    pub status: String,
    /// Seconds it held a worker.
    pub time_s: f64,
    /// Its counters (`executions`, `queries`, `unwinding`, ...).
    pub figures: std::collections::BTreeMap<String, f64>,
}

/// One solver backend's figures over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SolverEntry {
    /// The backend (`z3`).
    pub backend: String,
    /// Its version, as the linked library reports it.
    pub version: String,
    /// Queries it was asked (after the solver layers' caches).
    pub queries: u64,
    /// Sat answers.
    pub sat: u64,
    /// Unsat answers.
    pub unsat: u64,
    /// Unknown answers at a time or work limit.
    pub timeouts: u64,
    /// Other unknown answers and failures.
    pub unknown: u64,
    /// Seconds in the backend.
    pub time_s: f64,
    /// Work in the backend's deterministic unit (Z3: rlimit; Bitwuzla: 200
    /// per termination-callback call).
    pub work: u64,
}

/// Writes `report` to `path` atomically.
pub fn write_report(path: &Path, report: &Report) -> Result<(), FormatError> {
    let text = serde_json::to_string_pretty(report).expect("a report always serializes");
    write_atomically(path, text.as_bytes())
}

/// Reads a report.
pub fn read_report(path: &Path) -> Result<Report, FormatError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| FormatError::Malformed { path: path.to_path_buf(), message: e.to_string() })
}
