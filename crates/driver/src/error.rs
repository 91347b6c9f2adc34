//! The driver's errors: a wrong argument ([`PlanError`]), a run that was
//! stopped before it touched anything, and a step that failed, named by
//! its [`Step`] with the failure's words (each as `gen` has always printed
//! them, so a message does not change with the layer that raises it).

use std::fmt;
use std::path::PathBuf;

use crate::plan::PlanError;

/// The step of a run that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Reading a task definition.
    Task,
    /// Making the unit of `--entry`.
    Unit,
    /// Reading and lowering the program.
    Load,
    /// Preparing the campaign (the interpreter refuses the program).
    Campaign,
    /// Taking and clearing the output directory.
    OutDir,
    /// Reading the verification annotations.
    Annotations,
    /// Writing the results (report, SARIF, unit tests).
    Write,
    /// `check`'s settling of error goals.
    Check,
}

/// Why a run did not produce an outcome.
#[derive(Debug)]
pub enum DriverError {
    /// An argument is wrong.
    Plan(PlanError),
    /// Stopped (Ctrl-C, SIGTERM) before the search began; `out` was not touched.
    Interrupted {
        /// The output directory.
        out: PathBuf,
    },
    /// The annotation pass returned a program the IR verifier refuses (a
    /// bug in walkdown).
    BrokenInstrumentation(String),
    /// A kept test could not be written into the suite.
    Sink {
        /// The suite's directory.
        suite: PathBuf,
        /// The failure.
        message: String,
    },
    /// A step failed.
    Step {
        /// Which.
        step: Step,
        /// Why, with its causes (`cannot lower p.c: ...`).
        message: String,
    },
}

impl DriverError {
    /// A failure of `step` with the words of `e` and its causes.
    pub fn step(step: Step, e: impl Into<anyhow::Error>) -> DriverError {
        DriverError::Step { step, message: format!("{:#}", e.into()) }
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::Plan(e) => write!(f, "{e}"),
            DriverError::Interrupted { out } => {
                write!(f, "interrupted before the search began; {} was not touched", out.display())
            }
            DriverError::BrokenInstrumentation(e) => {
                write!(f, "internal error: the annotation pass broke the IR: {e}")
            }
            DriverError::Sink { suite, message } => {
                write!(f, "cannot write a test to {}: {message}", suite.display())
            }
            DriverError::Step { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for DriverError {}

impl From<PlanError> for DriverError {
    fn from(e: PlanError) -> Self {
        DriverError::Plan(e)
    }
}
