//! The corpus helpers shared by the integration tests (`walkdown-testsupport`),
//! and `gen` run in process through the driver.
#![allow(unused_imports, dead_code)]

pub use walkdown_testsupport::*;

use std::sync::atomic::AtomicBool;
use walkdown_driver::{Options, Outcome, Silent};

/// Runs `gen` in process with `options`, printing nothing (as `walkdown gen
/// --quiet` would run them); the outcome, whose report is the one written
/// to OUT. Panics on what would make the command exit with 2: invalid
/// options, a failed step, a test that could not be written.
pub fn gen(options: Options) -> Outcome {
    let shown = format!("{}", options.program.name().display());
    let plan = walkdown_driver::plan(options).unwrap_or_else(|e| panic!("gen {shown}: {e}"));
    let interrupt = AtomicBool::new(false);
    let outcome = walkdown_driver::run(&plan, &mut Silent, &interrupt).unwrap_or_else(|e| panic!("gen {shown}: {e}"));
    assert_eq!(outcome.snapshot.sink_error, None, "gen {shown}: every test is written");
    outcome
}
