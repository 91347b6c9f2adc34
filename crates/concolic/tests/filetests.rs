//! The filetests of kind `concolic` (`walkdown_testsupport::filetest`; the
//! grammar is in docs/testing.md), and what the trip-count symbols do on
//! two of its fixtures.

mod subtest;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use walkdown_concolic::{generate, SearchKind};
use walkdown_frontend::FrontendSettings;
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;

fn compile_c(path: &Path) -> Result<Program, String> {
    walkdown_frontend::compile_c(path, &FrontendSettings::default()).map_err(|e| e.to_string())
}

#[test]
fn fixtures_meet_their_expectations() {
    let n = walkdown_testsupport::filetest::run_kind(&subtest::Concolic, &compile_c);
    assert!(n >= 12, "only {n} concolic fixtures");
}

/// The trip-count symbols are what reaches the targets of the two trip
/// fixtures: with them a handful of executions suffice; without them (and
/// without loop acceleration) 200 executions do not.
#[test]
fn trip_count_symbols_reach_loop_dependent_targets() {
    for name in ["trip_counter.c", "trip_nested.c"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let program = compile_c(&path).expect("fixture lowers");
        let goals = Goals::compute(&program);
        let reached = |loop_forms: bool| {
            let mut s = subtest::settings(SearchKind::Bfs, &program);
            if !loop_forms {
                s.loop_forms.clear();
            }
            s.trace.accelerate = false;
            s.max_executions = Some(200);
            let result = generate(&program, &goals, &s, &AtomicBool::new(false)).expect("runs");
            (!result.errors.is_empty(), result.stats.executions, result.stats.queries)
        };
        let (with, execs, queries) = reached(true);
        assert!(with, "{name}: not reached with trip counts ({execs} executions, {queries} queries)");
        assert!(execs <= 20, "{name}: {execs} executions with trip counts");
        let (without, execs, _) = reached(false);
        assert!(
            !without,
            "{name}: reached without trip counts in {execs} executions (the fixture no longer tests them)"
        );
    }
}
