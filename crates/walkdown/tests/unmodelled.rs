//! Library calls and false errors: `walkdown gen` must never keep an error
//! test that a native run does not reproduce. The programs of
//! `tests/unmodelled/` call library functions walkdown has the code or a
//! model of (`getchar`, `abs`: the test must be found and reproduce
//! natively) and
//! functions it has neither a body nor a model of (`explicit_bzero`,
//! `srandom`: `gen` warns once per
//! function, lists them in `report.json`, runs their error tests natively
//! before keeping them, keeps those the native run confirms and lists the
//! others as refuted). Every kept error test is replayed with
//! `walkdown replay` (gcc, the native harness) and must end in its error.
//! Needs gcc (and its AddressSanitizer runtime), as `validate` does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use walkdown_formats::report::{read_report, Report};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unmodelled").join(name)
}

/// Runs `gen` on the fixture; its report and standard error.
fn gen(name: &str, out: &Path) -> (Report, String) {
    let o: Output = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--time", "4", "--seed", "1", "--out"])
        .arg(out)
        .arg(fixture(name))
        .output()
        .expect("walkdown runs");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(matches!(o.status.code(), Some(0 | 1)), "gen {name}: {}\n{stderr}", o.status);
    (read_report(&out.join("report.json")).expect("report.json"), stderr)
}

/// Every error test of the report ends natively in an error.
fn errors_reproduce(name: &str, out: &Path, report: &Report) {
    for e in &report.errors {
        let test = out.join("test-suite").join(&e.test);
        let o = Command::new(env!("CARGO_BIN_EXE_walkdown"))
            .arg("replay")
            .arg(fixture(name))
            .arg(&test)
            .args(if e.kind == "reach_error" { &[][..] } else { &["--sanitize"][..] })
            .output()
            .expect("replay runs");
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{name}: {} ({} at {}) does not reproduce natively: {text}",
            e.test,
            e.kind,
            e.location
        );
    }
}

fn line_of(location: &str) -> Option<u32> {
    location.split(':').nth(1).and_then(|l| l.parse().ok())
}

/// `getchar` on an empty standard input and `abs` are modelled: the error
/// needs the second value to be -5, natively too.
#[test]
fn modelled_input_and_abs_give_native_errors() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (report, stderr) = gen("stdin_abs.c", tmp.path());
    assert!(report.unmodelled_functions.is_empty(), "{:?}", report.unmodelled_functions);
    assert!(!stderr.contains("has neither a body nor a model"), "{stderr}");
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(line_of(&report.errors[0].location), Some(11));
    errors_reproduce("stdin_abs.c", tmp.path(), &report);
}

/// `explicit_bzero` has neither a body nor a model (its calls do nothing in
/// walkdown's runs): the error that needs the array uncleared is refuted
/// natively and not kept; the one that does not depend on it is confirmed
/// and kept.
#[test]
fn unmodelled_calls_are_checked_natively() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (report, stderr) = gen("sorted.c", tmp.path());
    assert_eq!(report.unmodelled_functions, vec!["explicit_bzero".to_string()]);
    assert_eq!(
        stderr.matches("external function `explicit_bzero` has neither a body nor a model").count(),
        1,
        "one warning: {stderr}"
    );
    let lines: Vec<Option<u32>> = report.errors.iter().map(|e| line_of(&e.location)).collect();
    assert_eq!(lines, vec![Some(10)], "{:?}", report.errors);
    assert!(report.errors_confirmed_natively >= 1);
    assert!(report.errors_refuted_natively >= 1);
    assert!(!report.refuted_tests.is_empty());
    for r in &report.refuted_tests {
        assert_eq!(line_of(&r.location), Some(11), "{r:?}");
        assert_eq!(r.unmodelled, vec!["explicit_bzero".to_string()]);
        assert!(r.native.starts_with("exit 0 natively"), "{r:?}");
    }
    let open =
        report.goals.iter().find(|g| g.kind == "error reach_error" && line_of(&g.location) == Some(11)).expect("goal");
    assert_eq!(open.status, "open");
    assert!(open.open_reasons.iter().any(|r| r.contains("explicit_bzero")), "{:?}", open.open_reasons);
    errors_reproduce("sorted.c", tmp.path(), &report);
    // No kept test claims the refuted error.
    for t in &report.tests {
        assert!(!t.outcome.contains(":11:"), "{t:?}");
    }
}

/// A memory error after an unmodelled call is confirmed by a native run
/// with AddressSanitizer.
#[test]
fn memory_errors_are_confirmed_with_the_sanitizer() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (report, _) = gen("fault.c", tmp.path());
    assert_eq!(report.unmodelled_functions, vec!["srandom".to_string()]);
    assert_eq!(report.errors.len(), 1, "{:?} refuted {:?}", report.errors, report.refuted_tests);
    assert_eq!(report.errors[0].kind, "out_of_bounds");
    assert_eq!(report.errors_refuted_natively, 0);
    errors_reproduce("fault.c", tmp.path(), &report);
}

/// A function with neither a body nor a model that returns a pointer
/// stops the run there (its result cannot be an input: every access
/// through a guessed address would be a false memory error). The run
/// keeps what it covered up to the call, and `gen` names the function.
#[test]
fn a_pointer_from_an_unknown_function_stops_the_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (report, stderr) = gen("lookup.c", tmp.path());
    assert_eq!(report.unmodelled_functions, vec!["lookup".to_string()]);
    assert_eq!(stderr.matches("external function `lookup` has neither a body nor a model").count(), 1, "{stderr}");
    assert!(report.errors.is_empty(), "no false error: {:?}", report.errors);
    let k_gt_10 =
        report.goals.iter().find(|g| g.kind == "branch true" && line_of(&g.location) == Some(5)).expect("goal");
    assert_eq!(k_gt_10.status, "covered", "the run reaches the call");
    assert!(
        report.tests.iter().any(|t| t.outcome.contains("stopped at `lookup`")),
        "a kept test ends at the call: {:?}",
        report.tests.iter().map(|t| &t.outcome).collect::<Vec<_>>()
    );
}
