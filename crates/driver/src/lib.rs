//! The `gen` pipeline as a library: what `walkdown gen` and `walkdown
//! check` run, and what tests run in process.
//!
//! A run has two halves. The [`plan`] is pure: [`Plan::new`] checks the
//! arguments ([`Options`]) and resolves a task definition into a typed
//! plan, or names the wrong argument ([`PlanError`]). The [`run()`] then
//! takes the plan through its steps (load, campaign, static pass,
//! instrument and verify, engines and portfolio, certify, write) and
//! returns an [`Outcome`] in memory: the final report, the last snapshot
//! of the campaign, the engines that failed, and why the run ends as it
//! does ([`Exit`]). While it runs, it speaks only through a [`Handler`]
//! (progress and [`Notice`]s); it prints nothing, installs no signal
//! handler and chooses no exit code: that is the binary's part, as
//! KLEE's `Interpreter` leaves output to its `InterpreterHandler`.
//!
//! [`check`] settles a finished run's error goals by native runs, from
//! the outcome in memory.
//!
//! The modules below the pipeline are its parts: reading programs
//! ([`input`], [`load`], [`task`], [`unit`]), the output directory ([`outdir`]), the
//! writers ([`report`], [`witness`], [`lcov`]), annotations
//! ([`annotations`]), the native check of error tests through unmodelled
//! functions ([`crosscheck`]).

pub mod annotations;
pub mod certify;
pub mod check;
pub mod complete_run;
pub mod crosscheck;
pub mod engines;
pub mod error;
pub mod input;
pub mod lcov;
pub mod load;
pub mod outcome;
pub mod outdir;
pub mod plan;
pub mod report;
pub mod run;
pub mod static_pass;
pub mod task;
pub mod unit;
pub mod witness;

pub use error::{DriverError, Step};
pub use outcome::{Exit, Handler, Notice, Outcome, Silent};
pub use plan::{EngineKind, Options, Plan, PlanError};
pub use run::run;
pub use walkdown_frontend::env::EnvRequest;

/// Reads the task definition `options.program` names, if it is one, and
/// checks the options into a plan.
pub fn plan(options: Options) -> Result<Plan, DriverError> {
    let file = options.program.name();
    let task = match options.program.is_one_file() && task::is_task_file(&file) {
        true => {
            Some(task::task_settings(&file, options.property.is_some()).map_err(|e| DriverError::step(Step::Task, e))?)
        }
        false => None,
    };
    Ok(Plan::new(options, task)?)
}
