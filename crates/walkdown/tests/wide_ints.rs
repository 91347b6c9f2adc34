//! Integers wider than 64 bits reach the engines as `i64` limbs (the
//! frontend's lowering): the concolic engine and the bounded engine find
//! inputs through wide shifts, adds, products and comparisons, and the
//! test each writes reaches `reach_error` when run again; `_BitInt` of odd
//! widths computes what `__int128` does. Programs of
//! `tests/wide/`; needs clang-14 and opt-14.

use std::path::Path;
use std::process::Command;

/// Runs `gen` with `engine` on `name` until the first error; the test
/// that reaches it must reproduce it under `walkdown run`.
fn finds_error(name: &str, engine: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wide").join(name);
    let tmp = tempfile::tempdir().expect("temporary directory");
    let out = tmp.path().join("out");
    let gen = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--time", "60", "--engine", engine, "--property", "coverage-error", "--out"])
        .arg(&out)
        .arg(&src)
        .output()
        .expect("walkdown runs");
    let text = String::from_utf8_lossy(&gen.stdout).into_owned() + &String::from_utf8_lossy(&gen.stderr);
    assert!(text.contains("error reach_error"), "{name} {engine}: no error found:\n{text}");
    let suite = out.join("test-suite");
    let tests: Vec<_> = std::fs::read_dir(&suite)
        .expect("suite")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("test-")))
        .collect();
    let reproduces = tests.iter().any(|test| {
        let run = Command::new(env!("CARGO_BIN_EXE_walkdown"))
            .arg("run")
            .arg(&src)
            .arg("--test")
            .arg(test)
            .output()
            .expect("walkdown runs");
        String::from_utf8_lossy(&run.stdout).contains("outcome: error reach_error")
    });
    assert!(reproduces, "{name} {engine}: none of {} tests reaches reach_error when run", tests.len());
}

#[test]
fn concolic_solves_wide_shifts_and_comparisons() {
    finds_error("shifted.c", "concolic");
}

#[test]
fn bounded_engine_solves_wide_products() {
    finds_error("product.c", "bmc");
}

/// `_BitInt(72)`, `_BitInt(100)` and `_BitInt(127)` arithmetic agrees with
/// the same operations on `__int128` cut to the width (gcc 12 has no
/// `_BitInt`, so the check is against the `__int128` lowering, which
/// `tests/real_c/int128.c` checks against gcc): the program exits 0, or
/// with the number of the first check that fails.
#[test]
fn bit_precise_integers_agree_with_int128() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wide/bitint.c");
    let run = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["run", "--inputs", "0"])
        .arg(&src)
        .output()
        .expect("walkdown runs");
    let shown = String::from_utf8_lossy(&run.stdout);
    assert!(shown.starts_with("outcome: exit 0\n"), "{shown}{}", String::from_utf8_lossy(&run.stderr));
}
