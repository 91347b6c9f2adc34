//! What a run takes and what it reports: options, limits, outcomes, results
//! and the errors of preparing a program.

use walkdown_ir::goals::GoalId;
use walkdown_ir::{CheckKind, FileId, FuncId, Inst, Loc, Type};

/// Resource limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecLimits {
    /// Instructions and terminators executed before the run stops with
    /// [`Outcome::StepLimit`]. Default 50 000 000.
    pub max_steps: u64,
    /// Frames on the call stack (`main` is depth 1) before the run stops
    /// with [`Outcome::DepthLimit`]. Default 100 000: where gcc `-O0` code
    /// gives out on the usual 8 MiB stack (a recursive function without
    /// locals overflows at about 260 000 frames, one with a 100-byte array
    /// at about 55 000), so recursion programs use on purpose runs, and
    /// runaway recursion, which natively ends in SIGSEGV, is cut. Frames
    /// live on the heap (calls do not recurse in Rust), so the limit only
    /// bounds time and memory.
    pub max_call_depth: u32,
    /// Bytes of live stack and heap objects. Beyond it `malloc`, `calloc`
    /// and `realloc` return NULL and `alloca` ends the run as
    /// [`Outcome::Unsupported`]. Default 1 GiB.
    pub max_memory: u64,
    /// When the run must end, whatever its steps: past it the run stops
    /// with [`Outcome::TimeLimit`] (the clock is read every 2^20 steps, so
    /// about 10 ms late at worst). Default none. `walkdown gen` gives each
    /// replay a share of the time left in its budget instead of a step
    /// limit.
    pub deadline: Option<std::time::Instant>,
}

impl Default for ExecLimits {
    fn default() -> Self {
        ExecLimits { max_steps: 50_000_000, max_call_depth: 100_000, max_memory: 1 << 30, deadline: None }
    }
}

/// Options of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Resource limits (see [`ExecLimits`] for the defaults).
    pub limits: ExecLimits,
    /// Whether to count executions per source line
    /// ([`RunResult::line_counts`]). Default false (it costs a little time
    /// per instruction).
    pub record_lines: bool,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `main` returned this value (a `void` main gives 0), or the program
    /// called `exit` with it.
    Exit(i32),
    /// An `assume` (or `__VERIFIER_assume`) failed: the execution is not one
    /// the program admits.
    AssumeFailed,
    /// The program called `abort`.
    Abort,
    /// A `check` failed or an access faulted.
    Error {
        /// The error class.
        kind: CheckKind,
        /// The function of the failing instruction.
        func: FuncId,
        /// The failing instruction (for errors inside a modelled library
        /// function: the call).
        inst: Inst,
        /// Its source location.
        loc: Loc,
        /// Its error-site goal, if it has one (then also in
        /// [`RunResult::covered`]).
        goal: Option<GoalId>,
    },
    /// The run executed `max_steps` steps without ending.
    StepLimit,
    /// The run was still going at the deadline of its limits
    /// ([`ExecLimits::deadline`]).
    TimeLimit,
    /// A call went deeper than `max_call_depth` frames.
    DepthLimit,
    /// The run reached something the interpreter does not model (an
    /// `unreachable` terminator, a call through a mismatched signature, an
    /// allocation it cannot make, ...).
    Unsupported {
        /// What it was.
        what: String,
        /// Where.
        loc: Loc,
    },
}

impl Outcome {
    /// Whether the run ended in an error (a failed `check` or a fault).
    pub fn is_error(&self) -> bool {
        matches!(self, Outcome::Error { .. })
    }
}

/// One input value a run consumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConsumedInput {
    /// The type the program read it as.
    pub ty: Type,
    /// Whether tests print it as a signed number.
    pub signed: bool,
    /// Its register bits (zero-extended; floats as IEEE bits).
    pub bits: u64,
}

/// The number of times a source line was executed: how often execution
/// entered a run of instructions of that line inside a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCount {
    /// The file.
    pub file: FileId,
    /// The line (1-based).
    pub line: u32,
    /// Executions (0 for lines of the program that did not run).
    pub count: u64,
}

/// Everything one run observed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// How it ended.
    pub outcome: Outcome,
    /// Goals covered (branch edges taken, the error site reached), sorted.
    pub covered: Vec<GoalId>,
    /// Per source line execution counts, sorted by file and line, including
    /// every line of the program (with 0 when it did not run); empty unless
    /// [`RunOptions::record_lines`].
    pub line_counts: Vec<LineCount>,
    /// Every value a `nondet` (or an unknown external function) returned,
    /// in order; past the end of the test vector these are zeros, so this
    /// always has `nondet_calls` entries and replays the run exactly.
    pub inputs: Vec<ConsumedInput>,
    /// Inputs requested.
    pub nondet_calls: u64,
    /// Whether the program asked for more inputs than the vector held.
    pub inputs_exhausted: bool,
    /// Instructions and terminators executed (what `max_steps` bounds).
    pub steps: u64,
    /// Instructions and terminators of the loop iterations fast-forwarding
    /// jumped over (not executed, and not counted in `steps`: the plain run
    /// executes `steps + skipped_steps`; saturates).
    pub skipped_steps: u128,
    /// Jumps fast-forwarding made.
    pub fast_forwards: u64,
    /// The first [`MAX_JUMP_NOTES`] of those jumps: the path's loop
    /// counters where it skips iterations.
    pub jumps: Vec<JumpNote>,
    /// External functions called that have neither a body nor a model, in
    /// order of first call, each once.
    pub unknown_externals: Vec<String>,
}

/// Jumps a run notes in [`RunResult::jumps`].
pub const MAX_JUMP_NOTES: usize = 64;

/// One fast-forward jump of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JumpNote {
    /// Where the loop's head is.
    pub loc: Loc,
    /// The head's values (its block parameters: the loop's variables) before
    /// the jump.
    pub before: Vec<u64>,
    /// And after it: the iteration the run goes on from.
    pub after: Vec<u64>,
    /// The iterations jumped over.
    pub iterations: u128,
}

/// Why a program cannot be prepared for execution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// There is no defined `main`.
    #[error("the program has no defined `main` function")]
    NoEntry,
    /// The IR refers to something that does not exist.
    #[error("malformed IR in @{func}: {message}")]
    Malformed {
        /// The function (or `global NAME`).
        func: String,
        /// What is wrong.
        message: String,
    },
    /// The globals do not fit the address space.
    #[error("cannot lay out memory: {0}")]
    Layout(String),
}
