//! `gen --lcov` writes `OUT/coverage.info`, an lcov tracefile of the
//! suite's native coverage that agrees with `validate`'s figures and that
//! Debian's `genhtml` reads without a warning (that part is skipped with a
//! message when genhtml is not installed).

use std::path::Path;
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

/// `(found, hit)` of the `XF`/`XH` summary lines of a record, and the
/// count of its `item` lines with a positive count.
fn figures(info: &str, found: &str, hit: &str) -> (u64, u64) {
    let get = |key: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(':')))
            .unwrap_or_else(|| panic!("no {key}"))
            .parse()
            .unwrap()
    };
    (get(found), get(hit))
}

#[test]
fn coverage_info_matches_validate_and_genhtml_accepts_it() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/classify.c");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let status = walkdown()
        .args(["gen", "--quiet", "--lcov", "--time", "20", "--out"])
        .arg(&out)
        .arg(&program)
        .status()
        .unwrap();
    assert!(matches!(status.code(), Some(0 | 1)));
    let info = std::fs::read_to_string(out.join("coverage.info")).expect("gen --lcov writes coverage.info");
    assert!(info.starts_with("TN:walkdown\nSF:/") && info.ends_with("end_of_record\n"), "{info}");
    assert!(info.contains(&format!("SF:{}\n", std::fs::canonicalize(&program).unwrap().display())));
    let (brf, brh) = figures(&info, "BRF", "BRH");
    let (lf, lh) = figures(&info, "LF", "LH");
    let (fnf, fnh) = figures(&info, "FNF", "FNH");
    assert_eq!(brf, info.lines().filter(|l| l.starts_with("BRDA:")).count() as u64);
    assert_eq!(
        brh,
        info.lines().filter(|l| l.starts_with("BRDA:") && !l.ends_with(",-") && !l.ends_with(",0")).count() as u64
    );
    assert_eq!(lf, info.lines().filter(|l| l.starts_with("DA:")).count() as u64);
    assert_eq!(fnf, 2, "classify and main");

    // The same figures as validate prints.
    let v = walkdown()
        .arg("validate")
        .arg(&program)
        .arg(out.join("test-suite"))
        .arg("--lcov")
        .arg(tmp.path().join("v.info"))
        .output()
        .unwrap();
    assert!(v.status.success());
    let said = String::from_utf8_lossy(&v.stdout);
    assert!(said.contains(&format!("branches: {brh} of {brf} covered")), "{said}");
    assert!(said.contains(&format!("lines: {lh} of {lf} covered")), "{said}");
    assert!(said.contains(&format!("functions: {fnh} of {fnf} entered")), "{said}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("v.info")).unwrap(),
        info,
        "validate --lcov writes the same file"
    );

    if Command::new("genhtml").arg("--version").output().is_err() {
        eprintln!("lcov: genhtml check skipped: genhtml is not installed (Debian `lcov`; scripts/setup installs it)");
        return;
    }
    let html = tmp.path().join("html");
    let g = Command::new("genhtml")
        .arg("--branch-coverage")
        .arg("--output-directory")
        .arg(&html)
        .arg(out.join("coverage.info"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&g.stdout).to_string() + &String::from_utf8_lossy(&g.stderr);
    assert!(g.status.success(), "genhtml failed: {said}");
    assert!(!said.to_lowercase().contains("warning"), "genhtml warns: {said}");
    assert!(
        said.contains(&format!("branches...: {:.1}% ({brh} of {brf} branches)", 100.0 * brh as f64 / brf as f64)),
        "{said}"
    );
    assert!(html.join("index.html").exists());
}
