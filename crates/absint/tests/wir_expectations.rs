//! Textual IR tests of the interval analysis: every `tests/wir/*.wir` file
//! states its expected results in comments, `; expect dead: FUNC bN succ K`
//! (the set of dead branch outcomes must be exactly the listed one) and
//! `; expect interval: FUNC bN vK [lo, hi]` (the interval of a value on
//! entry to a block). Each file is also run in the interpreter on random
//! inputs, and no outcome proved dead may be covered.

mod support;

use std::collections::BTreeSet;
use walkdown_absint::analyze;
use walkdown_interp::{ExecLimits, Interpreter, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::Value;

fn check_file(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("readable test file");
    let program = walkdown_ir_reader::parse_and_verify(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let a = analyze(&program);
    let mut failures = Vec::new();
    let mut expected_dead = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("; expect dead:") {
            expected_dead.insert(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("; expect interval:") {
            let parts: Vec<&str> = rest.trim().splitn(4, ' ').collect();
            let [func, block, value, want] = parts[..] else { panic!("bad expectation {line}") };
            let (f, b) = a.lookup(func, block.trim_start_matches('b').parse().unwrap()).unwrap();
            let v = Value::from_u32(value.trim_start_matches('v').parse().unwrap());
            let got = a.interval_at(f, b, v).to_string();
            if got != want {
                failures.push(format!("{}: {func} {block} {value}: expected {want}, got {got}", path.display()));
            }
        }
    }
    let got_dead: BTreeSet<String> = a
        .dead_edges()
        .into_iter()
        .map(|(f, b, s)| format!("{} {b} succ {s}", program.funcs[f].name))
        .collect();
    if got_dead != expected_dead {
        failures.push(format!(
            "{}: dead edges differ\n  expected {expected_dead:?}\n  got      {got_dead:?}\n{}",
            path.display(),
            a.report()
        ));
    }
    // Soundness on random inputs.
    let goals = Goals::compute(&program);
    let dead: BTreeSet<_> = a.dead_goals(&goals).into_iter().collect();
    let interp = Interpreter::new(&program, &goals).expect("interpretable");
    let opts = RunOptions { limits: ExecLimits { max_steps: 100_000, ..Default::default() }, ..Default::default() };
    for tv in support::input_vectors(&path.display().to_string(), 2000) {
        let r = interp.run(&tv, &opts);
        for g in r.covered {
            if dead.contains(&g) {
                failures.push(format!("{}: goal {g} proved dead but covered by {tv:?}", path.display()));
                return failures;
            }
        }
    }
    failures
}

#[test]
fn wir_files_meet_their_expectations() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wir");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(!files.is_empty());
    let failures: Vec<String> = files.iter().flat_map(|f| check_file(f)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
