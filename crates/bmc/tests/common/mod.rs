//! Shared helpers of the bmc tests: loading C and textual IR, and running
//! the engine.
#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::AtomicBool;
use walkdown_bmc::{run_bmc, BmcResult, BmcSettings};
use walkdown_ir::goals::Goals;
use walkdown_ir::{DataModel, Program};

/// Reads a `.c` (through clang) or `.wir` file.
pub fn load(path: &Path, dm: DataModel) -> Program {
    if path.extension().is_some_and(|e| e == "wir") {
        let text = std::fs::read_to_string(path).unwrap();
        walkdown_ir_reader::parse_and_verify(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    } else {
        let s = walkdown_frontend::FrontendSettings { data_model: dm, ..Default::default() };
        walkdown_frontend::compile_c(path, &s).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }
}

/// Runs the engine.
pub fn run(program: &Program, settings: &BmcSettings) -> (Goals, BmcResult) {
    let goals = Goals::compute(program);
    let r = run_bmc(program, &goals, settings, &AtomicBool::new(false)).expect("bmc runs");
    (goals, r)
}
