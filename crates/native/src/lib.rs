//! Compiling and running a C task natively with gcc and gcov: the ground
//! truth walkdown's tests are checked against, measured the way Test-Comp's
//! validator does (the reference is `shared/eval/measure.py`).
//!
//! - [`compile`]: build the task with coverage next to walkdown's harness;
//! - [`run`]: replay one test vector under a time limit;
//! - [`sandbox`]: where every native run of the program happens (bwrap);
//! - [`gcov`]: read the accumulated coverage of the task's files;
//! - [`harness`]: the C harness and its contract with the Rust side;
//! - [`driver`]: the harness with one test compiled in (a standalone driver);
//! - [`unit`]: a unit's test file (`unit_tests.c`) built and run;
//! - [`validate_suite`], [`validate_units`]: all of it for a whole suite
//!   (`walkdown validate`).
//!
//! Reading test files is not done here: callers pass [`TestVector`]s (the
//! `walkdown-formats` crate reads them).

pub mod compile;
pub mod driver;
pub mod eva;
pub mod gcov;
pub mod harness;
pub mod linemarkers;
pub mod run;
pub mod sandbox;
pub mod unit;

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::units::Unit;
use walkdown_ir::DataModel;

pub use compile::{BuildSettings, NativeBuild};
pub use gcov::{GcovCoverage, GcovFunction};
pub use run::{ExhaustedInputs, NativeOutcome, NativeRun, RunLimits};
pub use sandbox::{Denial, DeniedAction, SandboxPolicy};

/// Everything that can go wrong building, running or measuring natively.
#[derive(Debug, Error)]
pub enum NativeError {
    /// The task file could not be read.
    #[error("{}: cannot read the task: {source}", path.display())]
    ReadTask {
        /// The task.
        path: PathBuf,
        /// The underlying failure.
        source: io::Error,
    },
    /// A file-system operation in the build directory failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying failure.
        source: io::Error,
    },
    /// A program (gcc, gcov, the built task) could not be started.
    #[error("cannot run {}: {source}", tool.display())]
    ToolNotRun {
        /// The program.
        tool: PathBuf,
        /// The underlying failure.
        source: io::Error,
    },
    /// gcc rejected the task or the harness.
    #[error("compilation failed: {command}\n{stderr}")]
    CompileFailed {
        /// The failing command line.
        command: String,
        /// The end of gcc's error output.
        stderr: String,
    },
    /// gcov failed or printed something unreadable.
    #[error("gcov: {message}")]
    Gcov {
        /// What went wrong.
        message: String,
    },
    /// `--sandbox=required`, and the sandbox cannot be built.
    #[error("native runs must be sandboxed (--sandbox=required), but the sandbox cannot be built: {reason}")]
    SandboxUnavailable {
        /// Why (in words).
        reason: String,
    },
}

/// A suite replayed natively: each run, and the coverage of all of them.
#[derive(Clone, Debug)]
pub struct SuiteCoverage {
    /// One run per test, in suite order.
    pub runs: Vec<NativeRun>,
    /// The gcov coverage of the task after all runs (of several units,
    /// the sums: see [`NativeBuild::coverage`]).
    pub coverage: GcovCoverage,
    /// Each unit's coverage, with the unit, in the order of the units.
    pub units: Vec<(Unit, GcovCoverage)>,
    /// Whether entry into the task's own `reach_error` was observable (see
    /// [`NativeBuild::has_reach_error_hook`]).
    pub reach_error_hook: bool,
}

impl SuiteCoverage {
    /// Tests whose outcome satisfies `predicate`.
    pub fn count(&self, predicate: impl Fn(&NativeRun) -> bool) -> usize {
        self.runs.iter().filter(|run| predicate(run)).count()
    }

    /// Tests that reached `reach_error`.
    pub fn reach_error_count(&self) -> usize {
        self.count(|run| run.outcome == NativeOutcome::ReachError)
    }

    /// Tests that timed out.
    pub fn timeout_count(&self) -> usize {
        self.count(|run| run.outcome == NativeOutcome::Timeout)
    }
}

/// Build `task` for `data_model`, run every vector of `suite` (in order,
/// one process each, under `limits`) and measure gcov coverage of the task.
pub fn validate_suite(
    task: &Path,
    suite: &[TestVector],
    data_model: DataModel,
    limits: &RunLimits,
) -> Result<SuiteCoverage, NativeError> {
    validate_units(&[Unit::new(task)], suite, data_model, limits, None)
}

/// [`validate_suite`] for a program with an environment: each vector
/// begins with it (see [`BuildSettings::environment`]).
pub fn validate_suite_in_env(
    task: &Path,
    suite: &[TestVector],
    data_model: DataModel,
    limits: &RunLimits,
    environment: Option<walkdown_ir::env::Environment>,
) -> Result<SuiteCoverage, NativeError> {
    validate_units(&[Unit::new(task)], suite, data_model, limits, environment)
}

/// [`validate_suite_in_env`] of a program of several units, measured per
/// unit.
pub fn validate_units(
    units: &[Unit],
    suite: &[TestVector],
    data_model: DataModel,
    limits: &RunLimits,
    environment: Option<walkdown_ir::env::Environment>,
) -> Result<SuiteCoverage, NativeError> {
    let settings = BuildSettings { environment, ..BuildSettings::default() };
    let build = NativeBuild::compile_units(units, data_model, &settings)?;
    let runs = suite.iter().map(|vector| build.run(vector, limits)).collect::<Result<Vec<_>, _>>()?;
    let per_unit = build.unit_coverage()?;
    let coverage = match &per_unit[..] {
        [one] => one.clone(),
        all => GcovCoverage::total(all),
    };
    let units = units.iter().cloned().zip(per_unit).collect();
    Ok(SuiteCoverage { runs, coverage, units, reach_error_hook: build.has_reach_error_hook() })
}
