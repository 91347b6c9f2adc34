//! Programs with an environment: arguments and standard input as inputs
//! (`walkdown_ir::env`, the frontend's `env.rs`). `gen` must find a bug
//! behind an option and a line of standard input, write the test in
//! walkdown's own format (`env-tests/*.json`), and `replay` must reproduce
//! it natively with those arguments and that input; `run` replays it in the
//! interpreter; proofs are reported within the environment; a Test-Comp
//! task keeps the convention's empty environment. Needs gcc, as `replay`
//! does.

use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_formats::envtest::read_env_test;
use walkdown_formats::report::{read_report, Report};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/environment").join(name)
}

fn walkdown(args: &[&str], files: &[&Path]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_walkdown")).args(args).args(files).output().expect("walkdown runs");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    (o.status.code(), text)
}

fn gen(name: &str, out: &Path, extra: &[&str]) -> Report {
    let mut args = vec!["gen", "--quiet", "--time", "20", "--seed", "1", "--engine", "concolic"];
    args.extend_from_slice(extra);
    args.push("--out");
    let (code, text) = walkdown(&args, &[out, &fixture(name)]);
    assert!(matches!(code, Some(0 | 1)), "gen {name}: {text}");
    read_report(&out.join("report.json")).expect("report.json")
}

#[test]
fn a_bug_behind_an_option_and_a_line_of_input_is_found_and_reproduces_natively() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let report = gen("option_and_line.c", &out, &["--max-executions", "400"]);
    assert!(report.environment.as_deref().is_some_and(|e| e.contains("arguments")), "{:?}", report.environment);
    let error = report.errors.iter().find(|e| e.kind == "assertion").expect("the assertion fails in some test");
    let json = out.join("env-tests").join(error.test.replace(".xml", ".json"));
    let test = read_env_test(&json).expect("the error's environment test");
    assert_eq!(test.inputs.args.first().map(|a| &a[..2]), Some(&b"-x"[..]), "{test:?}");
    assert!(test.inputs.stdin.starts_with(b"!\n"), "{test:?}");
    let program = fixture("option_and_line.c");
    let (code, text) = walkdown(&["replay"], &[&program, &json]);
    assert_eq!(code, Some(1), "replay: {text}");
    assert!(text.contains("assertion"), "replay: {text}");
    let (_, text) = walkdown(&["run", "--test"], &[&json, &program]);
    assert!(text.contains("outcome: error assertion") || text.contains("assertion"), "run: {text}");
    // validate finds the environment tests beside the suite.
    let (code, text) = walkdown(&["validate"], &[&program, &out.join("test-suite")]);
    assert_eq!(code, Some(0), "validate: {text}");
    assert!(text.contains("lines 100.00%"), "validate: {text}");
    // --emit-driver writes the C driver and the script that runs the test natively.
    let driver = dir.path().join("driver.c");
    let (code, text) = walkdown(&["replay", "--emit-driver", driver.to_str().unwrap()], &[&program, &json]);
    assert_eq!(code, Some(0), "emit-driver: {text}");
    let script = std::process::Command::new("sh").arg(dir.path().join("driver.sh")).output().unwrap();
    let said = String::from_utf8_lossy(&script.stderr);
    assert!(!script.status.success() && said.contains("Assertion"), "driver.sh: {said}");
    // SARIF's and the HTML report's reproduce commands name the environment test.
    let sarif = std::fs::read_to_string(out.join("errors.sarif")).unwrap();
    let json_name = json.file_name().unwrap().to_str().unwrap();
    assert!(sarif.contains(&format!("env-tests/{json_name}")), "{sarif}");
    let html = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(html.contains("env-tests/") && html.contains("argv[1] = "), "the page lists arguments");
}

#[test]
fn proofs_over_a_bounded_environment_are_not_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, text) = walkdown(
        &["gen", "--quiet", "--time", "10", "--engines", "concolic,bmc", "--out"],
        &[&out, &fixture("bounded_args.c")],
    );
    assert!(matches!(code, Some(0 | 1)), "{text}");
    let report = read_report(&out.join("report.json")).unwrap();
    assert_eq!(report.goals_unreachable, 0);
    let deep = report.goals.iter().find(|g| g.kind == "branch true" && g.location.contains(":6:")).unwrap();
    assert_eq!(deep.status, "infeasible", "{deep:?}");
    assert!(deep.proved_by.as_deref().is_some_and(|p| p.contains("within the environment (at most 3 arguments")));
}

#[test]
fn options_change_the_bounds_and_a_task_gets_no_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (_, text) = walkdown(&["ir", "--args", "2:4", "--stdin", "5"], &[&fixture("option_and_line.c")]);
    assert!(text.starts_with("datamodel LP64\nenvironment args 2:4 stdin 5\n"), "{text}");
    let (_, text) = walkdown(&["ir", "--no-env"], &[&fixture("option_and_line.c")]);
    assert!(!text.contains("\nenvironment "), "{text}");
    let task = dir.path().join("task.c");
    std::fs::write(
        &task,
        "#include <stdio.h>\nextern int __VERIFIER_nondet_int(void);\n\
         int main(int argc, char **argv) { int x = __VERIFIER_nondet_int(); return getchar() + x + argc; }\n",
    )
    .unwrap();
    let (_, text) = walkdown(&["ir"], &[&task]);
    assert!(!text.contains("\nenvironment "), "a task keeps the empty environment: {text}");
}
