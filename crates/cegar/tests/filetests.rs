//! The filetests of kind `cegar` (`walkdown_testsupport::filetest`; the
//! grammar is in docs/testing.md): the model checker alone, within 20 s,
//! with each refinement the fixtures' `test:` lines name.

mod subtest;

use std::path::Path;
use walkdown_ir::Program;

fn compile_c(path: &Path) -> Result<Program, String> {
    walkdown_frontend::compile_c(path, &walkdown_frontend::FrontendSettings::default()).map_err(|e| e.to_string())
}

#[test]
fn fixtures_get_their_verdicts() {
    let n = walkdown_testsupport::filetest::run_kind(&subtest::Cegar, &compile_c);
    assert!(n >= 4, "only {n} cegar fixtures");
}
