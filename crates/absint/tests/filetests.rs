//! The filetests of kind `absint` (`walkdown_testsupport::filetest`; the
//! grammar is in docs/testing.md): the interval analysis's dead branch
//! outcomes and intervals, and no outcome it proves dead covered by 2000
//! random runs.

mod subtest;

use std::path::Path;
use walkdown_ir::Program;

fn compile_c(path: &Path) -> Result<Program, String> {
    walkdown_frontend::compile_c(path, &walkdown_frontend::FrontendSettings::default()).map_err(|e| e.to_string())
}

#[test]
fn fixtures_meet_their_expectations() {
    let n = walkdown_testsupport::filetest::run_kind(&subtest::Absint, &compile_c);
    assert!(n >= 8, "only {n} absint fixtures");
}
