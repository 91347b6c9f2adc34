//! Shared helpers of the bmc tests: a sink that keeps nothing, loading C
//! and textual IR, and running the engine.
#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::AtomicBool;
use walkdown_bmc::{run_bmc, BmcResult, BmcSettings};
use walkdown_concolic::{KeptTest, Stats, TestSink};
use walkdown_ir::goals::Goals;
use walkdown_ir::{DataModel, Program};

/// Keeps the tests in memory.
#[derive(Default)]
pub struct Collect(pub Vec<KeptTest>);

impl TestSink for Collect {
    fn test(&mut self, test: &KeptTest) -> Result<(), String> {
        self.0.push(test.clone());
        Ok(())
    }
    fn progress(&mut self, _: &Stats) {}
}

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
    let mut sink = Collect::default();
    let r = run_bmc(program, &goals, settings, &mut sink, &AtomicBool::new(false)).expect("bmc runs");
    (goals, r)
}
