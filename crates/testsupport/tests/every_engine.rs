//! Every fixture that declares several kinds, through every engine it
//! names: each meets its expectations, and no engine proves unreachable a
//! goal a test of another engine covers. The kinds are the engine crates'
//! own (`crates/*/tests/subtest`).

#[path = "../../absint/tests/subtest/mod.rs"]
mod absint;
#[path = "../../bmc/tests/subtest/mod.rs"]
mod bmc;
#[path = "../../cegar/tests/subtest/mod.rs"]
mod cegar;
#[path = "../../concolic/tests/subtest/mod.rs"]
mod concolic;

use std::path::Path;
use walkdown_ir::Program;
use walkdown_testsupport::filetest::{compare_kinds, SubTest};

fn compile_c(path: &Path) -> Result<Program, String> {
    walkdown_frontend::compile_c(path, &walkdown_frontend::FrontendSettings::default()).map_err(|e| e.to_string())
}

#[test]
fn engines_agree_on_shared_fixtures() {
    let subs: [&dyn SubTest; 4] = [&absint::Absint, &bmc::Bmc, &cegar::Cegar, &concolic::Concolic];
    let n = compare_kinds(&subs, &compile_c);
    assert!(n >= 4, "only {n} fixtures declare several kinds");
}
