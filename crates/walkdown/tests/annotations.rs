//! `gen --annotations source --verification C` on the project's annotated
//! programs (`tests/annotations/*.c`, each saying on its first line what it
//! expects) and on the seed `deposit.c` when `../shared` is present: every
//! configuration finds the error plain concolic search (UV) finds; the
//! pruning configurations keep at most the tests the fixture allows and run
//! no more executions than UV; report.json lists each error goal's status.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Run {
    tests: usize,
    errors: usize,
    executions: f64,
    pruned: f64,
}

fn gen(program: &Path, config: &str, out: &Path) -> Run {
    let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--jobs", "1", "--time", "20", "--engine", "concolic", "--mutation-share", "0"])
        .args(["--property", "coverage-error", "--annotations", "source", "--verification", config, "--out"])
        .arg(out)
        .arg(program)
        .status()
        .expect("walkdown runs");
    assert_eq!(status.code(), Some(1), "{} {config}: an error is expected", program.display());
    let text = std::fs::read_to_string(out.join("report.json")).expect("report");
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    let a = &r["annotations"];
    assert_eq!(a["configuration"], config);
    let checks = a["checks"].as_array().expect("checks");
    assert!(checks.iter().any(|c| c["status"] == "verified under a premise"), "{}: {checks:?}", program.display());
    let figures = r["engines"].as_array().unwrap().iter().find(|e| e["name"] == "concolic").expect("concolic")["figures"].clone();
    Run {
        tests: r["tests"].as_array().unwrap().len(),
        errors: r["errors"].as_array().unwrap().len(),
        executions: figures["executions"].as_f64().unwrap(),
        pruned: figures["pruned"].as_f64().unwrap_or(0.0),
    }
}

fn check(program: &Path, max_tests: Option<usize>) {
    let tmp = tempfile::tempdir().unwrap();
    let uv = gen(program, "uv", &tmp.path().join("uv"));
    assert_eq!(uv.errors, 1);
    for config in ["pv", "may", "must", "may+must"] {
        let r = gen(program, config, &tmp.path().join(config.replace('+', "_")));
        assert_eq!(r.errors, 1, "{} {config}: the error UV finds is lost", program.display());
        if config.starts_with("may") {
            assert!(r.pruned > 0.0, "{} {config}: nothing pruned", program.display());
            assert!(r.tests <= uv.tests, "{} {config}: {} tests, UV {} ({} executions, UV {})", program.display(), r.tests, uv.tests, r.executions, uv.executions);
            if let Some(m) = max_tests {
                assert!(r.tests <= m, "{} {config}: {} tests, at most {m} expected", program.display(), r.tests);
            }
        }
    }
}

#[test]
fn annotated_fixtures_keep_their_errors_and_prune() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/annotations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    assert!(files.len() >= 3);
    for f in files {
        let first = std::fs::read_to_string(&f).unwrap().lines().next().unwrap().to_string();
        let max_tests = first.contains("at most 2 tests").then_some(2);
        check(&f, max_tests);
    }
}

#[test]
fn the_deposit_seed_needs_one_test_under_may() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("the_deposit_seed_needs_one_test_under_may: skipped: ../shared (the benchmark corpus) is not present");
        return;
    };
    check(&shared.join("bench/seeds/deposit.c"), Some(2));
}
