//! Runs whose terms grow with them (`growth/sums.c`: inputs summed per
//! iteration, so each new term's leaf set is as long as the run so far)
//! end at the limit of expression-pool work, not at the deadline: the
//! steps of such a run are few and each costs more than the last, so a
//! step limit alone let one run take a whole budget.

use std::path::Path;
use std::time::{Duration, Instant};
use walkdown_concolic::symex::{TraceEnd, Tracer};
use walkdown_concolic::TraceLimits;
use walkdown_frontend::FrontendSettings;
use walkdown_interp::Interpreter;
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::InputValue;
use walkdown_smt::ExprPool;

#[test]
fn a_run_of_growing_terms_ends_at_its_build_limit() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/growth/sums.c");
    let program = walkdown_frontend::compile_c(&path, &FrontendSettings::default()).expect("program lowers");
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let mut tracer = Tracer::new(&program, &goals, interp.prepared());
    // 20,000 iterations: about 2 * 10^8 leaf-set elements merged in all.
    let values = vec![InputValue::Int(1); 60_000];
    let deadline = Instant::now() + Duration::from_secs(60);

    // A short run is not cut, and reports what it built.
    let mut pool = ExprPool::new();
    let short = vec![InputValue::Int(1); 300];
    let t = tracer.run(&mut pool, &short, &TraceLimits::default(), deadline);
    assert!(!t.over_built && t.end == TraceEnd::Exit, "{:?}", t.end);
    assert!(t.built > 0 && t.built < TraceLimits::default().max_built);

    // A long one (on the same pool, which the tracer's input symbols
    // belong to) ends at its limit.
    let limits = TraceLimits { max_built: 1 << 22, ..TraceLimits::default() };
    let started = Instant::now();
    let t = tracer.run(&mut pool, &values, &limits, deadline);
    assert_eq!(t.end, TraceEnd::Limit);
    assert!(t.over_built && t.built >= limits.max_built, "built {}", t.built);
    assert!(started.elapsed() < Duration::from_secs(10), "ended at its limit, not near the deadline");
    assert!(t.inputs.len() < values.len(), "the run was cut before the inputs ran out");
}
