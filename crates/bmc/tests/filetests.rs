//! The filetests of kind `bmc` (`walkdown_testsupport::filetest`; the
//! grammar is in docs/testing.md): each fixture runs with every cover
//! algorithm, and with statement cover after a summary phase.

mod common;
mod subtest;

use std::path::Path;
use walkdown_bmc::engine::settings_with;
use walkdown_bmc::{BmcSettings, CoverAlgorithm};
use walkdown_ir::{DataModel, Program};

fn compile_c(path: &Path) -> Result<Program, String> {
    walkdown_frontend::compile_c(path, &walkdown_frontend::FrontendSettings::default()).map_err(|e| e.to_string())
}

#[test]
fn fixtures_report_what_they_state() {
    let n = walkdown_testsupport::filetest::run_kind(&subtest::Bmc, &compile_c);
    assert!(n >= 7, "only {n} bmc fixtures");
}

/// `summaries.c`: the summary phase does its work (one summarized
/// function, at least two pairs, a refinement); its verdicts are checked
/// by the filetest.
#[test]
fn summaries_do_their_work() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/summaries.c");
    let program = common::load(&path, DataModel::LP64);
    let settings = BmcSettings { summaries: true, ..settings_with(CoverAlgorithm::Statements, 2) };
    let (_, r) = common::run(&program, &settings);
    let f = r.summaries.clone().unwrap_or_default();
    assert!(
        f.functions == 1 && f.pairs >= 2 && f.refinements >= 1,
        "expected one summarized function with at least two pairs and a refinement, got {f:?}"
    );
}
