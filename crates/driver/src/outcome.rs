//! What a run tells its caller: [`Notice`]s while it runs, through a
//! [`Handler`] (KLEE's `InterpreterHandler`: the one seam for output), and
//! the [`Outcome`] at its end, in memory: the final report, the campaign's
//! last snapshot, each engine's end, and why the run ends the way it does
//! ([`Exit`]). The caller decides what to print and which exit code means
//! what; nothing here writes to a terminal.

use std::fmt;
use std::path::PathBuf;

use walkdown_campaign::Snapshot;
use walkdown_formats::report::Report;
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;

use crate::plan::EngineKind;

/// Something the run has to say while it runs, as one line of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The static pass's figures and similar chatter a quiet run drops.
    Info(String),
    /// A note on how the run goes (the annotation pass merged ids).
    Note(String),
    /// Something went wrong but the run goes on.
    Warning(String),
    /// An external function without a model was called (a warning).
    Unmodelled(String),
}

impl Notice {
    /// Whether a quiet run prints it.
    pub fn is_chatter(&self) -> bool {
        matches!(self, Notice::Info(_))
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Info(line) | Notice::Note(line) | Notice::Warning(line) => f.write_str(line),
            Notice::Unmodelled(name) => write!(
                f,
                "walkdown: warning: external function `{name}` has neither a body nor a model: in walkdown's runs an integer it returns is an input value and a call that returns a pointer stops the run; error tests through it are kept only when the native run confirms them"
            ),
        }
    }
}

/// Receives what a run reports while it runs. Both methods are called on
/// the thread that called [`crate::run`].
pub trait Handler {
    /// The campaign's state, about once a second, for a progress line;
    /// `goals` is how many goals there are.
    fn progress(&mut self, snapshot: &Snapshot, goals: usize);
    /// A notice.
    fn notice(&mut self, notice: Notice);
}

/// A handler that drops everything (for tests and embedders).
pub struct Silent;

impl Handler for Silent {
    fn progress(&mut self, _: &Snapshot, _: usize) {}
    fn notice(&mut self, _: Notice) {}
}

/// Why a finished run ends as it does, most serious first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// A test covers a goal an engine proved unreachable: a bug in
    /// walkdown (exit code 3).
    ProofConflict,
    /// A test reaches an error the native run confirms, or one no native
    /// run could check (exit code 1 unless told otherwise).
    ErrorReached,
    /// Tests reach errors, but the native runs of all of them end
    /// otherwise (exit code 0, with a warning).
    Unconfirmed,
    /// Neither.
    Clean,
}

/// A finished run, in memory.
pub struct Outcome {
    /// The program the engines ran (in unit mode, the harness program).
    pub program: Program,
    /// Its goals.
    pub goals: Goals,
    /// The campaign's last snapshot: verdicts, tests, errors, figures.
    pub snapshot: Snapshot,
    /// The report as written to `OUT/report.json`.
    pub report: Report,
    /// The engines that failed, with why (the others' ends are in the
    /// snapshot's figures).
    pub engine_failures: Vec<(EngineKind, String)>,
    /// Where the suite is (`OUT/test-suite`).
    pub suite_dir: PathBuf,
    /// The output directory.
    pub out: PathBuf,
    /// The units the program is made of (what a native build compiles).
    pub units: Vec<walkdown_ir::units::Unit>,
}

impl Outcome {
    /// Why the run ends as it does.
    pub fn exit(&self) -> Exit {
        if !self.snapshot.conflicts.is_empty() {
            Exit::ProofConflict
        } else if self.snapshot.counted_errors().next().is_some() {
            Exit::ErrorReached
        } else if !self.snapshot.errors.is_empty() {
            Exit::Unconfirmed
        } else {
            Exit::Clean
        }
    }
}
