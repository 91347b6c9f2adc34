//! `validate_suite` must report the same gcov figures as the reference
//! measurement `shared/eval/measure.py` on the same suite. Runs on seed
//! programs of `shared/bench/seeds` with hand-written Test-Comp suites;
//! skipped (with a message) when `shared/` or python3 is absent.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use walkdown_ir::DataModel;
use walkdown_native::{validate_suite, NativeOutcome, RunLimits};

/// `shared/` beside the repository, or `$WALKDOWN_SHARED` (`walkdown-testsupport`).
fn shared_dir() -> PathBuf {
    walkdown_testsupport::shared_dir().unwrap_or_else(|| {
        std::env::var_os("WALKDOWN_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
    })
}

fn reference_available() -> bool {
    let shared = shared_dir();
    if !shared.join("eval/measure.py").is_file() || !shared.join("bench/seeds").is_dir() {
        walkdown_testsupport::require_shared(&shared);
        eprintln!("skipping: {} has no eval/measure.py or bench/seeds", shared.display());
        return false;
    }
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipping: python3 is not installed");
        return false;
    }
    true
}

fn testcase_xml(values: &[&str]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <!DOCTYPE testcase PUBLIC \"+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN\" \
         \"https://sosy-lab.org/test-format/testcase-1.1.dtd\">\n<testcase>\n",
    );
    for value in values {
        xml.push_str(&format!("  <input>{value}</input>\n"));
    }
    xml.push_str("</testcase>\n");
    xml
}

fn write_suite(dir: &Path, tests: &[Vec<&str>]) {
    fs::create_dir_all(dir).unwrap();
    for (i, values) in tests.iter().enumerate() {
        fs::write(dir.join(format!("test-{}.xml", i + 1)), testcase_xml(values)).unwrap();
    }
}

fn measure(task: &Path, suite: &Path, out: &Path) -> Value {
    let script = shared_dir().join("eval/measure.py");
    let result = Command::new("python3").arg(&script).arg(task).arg(suite).arg("--json").arg(out).output().unwrap();
    assert!(result.status.success(), "measure.py failed: {}", String::from_utf8_lossy(&result.stderr));
    serde_json::from_str(&fs::read_to_string(out).unwrap()).unwrap()
}

fn compare(seed: &str, tests: &[Vec<&str>]) {
    let task = shared_dir().join("bench/seeds").join(seed);
    let work = tempfile::tempdir().unwrap();
    let suite_dir = work.path().join("suite");
    write_suite(&suite_dir, tests);

    let reference = measure(&task, &suite_dir, &work.path().join("measure.json"));
    let suite = walkdown_formats::read_suite(&suite_dir).unwrap();
    assert!(suite.invalid.is_empty(), "{:?}", suite.invalid);
    let ours = validate_suite(&task, &suite.vectors(), DataModel::LP64, &RunLimits::default()).unwrap();

    let figure = |key: &str| reference[key].as_u64().unwrap_or_else(|| panic!("{seed}: measure.py has no {key}"));
    let coverage = &ours.coverage;
    assert_eq!(coverage.branches_total, figure("branches_total"), "{seed}: branches total");
    assert_eq!(coverage.branches_covered, figure("branches_covered"), "{seed}: branches covered");
    assert_eq!(coverage.lines_total, figure("lines_total"), "{seed}: lines total");
    assert_eq!(coverage.lines_covered, figure("lines_covered"), "{seed}: lines covered");
    assert_eq!(coverage.functions_total, figure("functions_total"), "{seed}: functions total");
    assert_eq!(coverage.functions_covered, figure("functions_covered"), "{seed}: functions covered");

    let per_test = reference["per_test"].as_array().unwrap();
    assert_eq!(per_test.len(), ours.runs.len(), "{seed}: number of tests");
    for (i, (theirs, run)) in per_test.iter().zip(&ours.runs).enumerate() {
        let reached = theirs["reach_error"].as_bool().unwrap();
        assert_eq!(reached, run.outcome == NativeOutcome::ReachError, "{seed} test {}: reach_error", i + 1);
        let returncode = theirs["returncode"].as_i64().unwrap();
        let expected = match run.outcome {
            NativeOutcome::Exit(code) => i64::from(code),
            NativeOutcome::Signal(signal) => -i64::from(signal),
            NativeOutcome::ReachError | NativeOutcome::AssertionFailure | NativeOutcome::Abort => -6,
            NativeOutcome::Timeout => continue,
        };
        assert_eq!(returncode, expected, "{seed} test {}: exit status ({:?})", i + 1, run.outcome);
        let exhausted = theirs["events"].as_array().unwrap().iter().any(|e| e == "EXHAUSTED");
        assert_eq!(exhausted, run.inputs_exhausted, "{seed} test {}: inputs exhausted", i + 1);
    }
}

#[test]
fn seed_suites_measure_the_same() {
    if !reference_available() {
        return;
    }
    let mut matching: Vec<&str> = vec!["15"];
    matching.extend(["0", "1", "2", "3", "4"]);
    matching.extend(std::iter::repeat_n("9", 25));
    let mut high = matching.clone();
    high[0] = "25";
    compare("counter_branches.c", &[matching, high, vec!["-3", "0", "0"], vec!["1"], vec![]]);
    compare(
        "diamonds.c",
        &[vec!["11", "12"], vec!["11", "5"], vec!["3", "25"], vec!["3", "4"], vec!["0", "0"], vec!["0x1", "'\\n'"]],
    );
    // x == 0 dereferences NULL: the SIGSEGV handler must keep the coverage.
    compare("hex_abs.c", &[vec!["5"], vec!["-5"], vec!["0"]]);
    compare(
        "deposit.c",
        &[
            vec!["100", "5"],
            vec!["-1"],
            vec!["2147483000", "50000"],
            vec!["20000", "100", "3"],
            vec!["20000", "100", "4"],
            vec!["5", "-7"],
        ],
    );
    // value == 5 after the swap divides by zero (SIGFPE).
    compare(
        "node_swap.c",
        &[vec!["5", "2", "1", "0"], vec!["1", "2", "1", "1"], vec!["3", "1", "0", "0"], vec!["7", "2", "1", "1"]],
    );
}
