//! `gen --solver`: each backend runs the whole campaign, report.json says
//! which answered, and the float query only Bitwuzla answers
//! (`bench/floats/product.c`: `v * 3.0 == 7.5 && w / v == 0.125`, see
//! docs/solvers.md) puts its error in the suite with Bitwuzla and the
//! portfolio, which sends float queries there.

use std::path::Path;
use std::process::Command;

fn gen(solver: &str, out: &Path) -> serde_json::Value {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/floats/product.c");
    let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--jobs", "1", "--time", "20", "--solver", solver, "--out"])
        .arg(out)
        .arg(&program)
        .status()
        .expect("walkdown runs");
    // 0: no error found; 1: errors found (both are runs that completed).
    assert!(matches!(status.code(), Some(0 | 1)), "--solver {solver}: {status}");
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

fn backends(report: &serde_json::Value) -> Vec<String> {
    report["solvers"].as_array().unwrap().iter().map(|s| s["backend"].as_str().unwrap().to_string()).collect()
}

fn error_found(report: &serde_json::Value) -> bool {
    report["errors"].as_array().unwrap().iter().any(|e| e["kind"] == "reach_error")
}

#[test]
fn each_backend_runs_the_campaign_and_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let z3 = gen("z3", &dir.path().join("z3"));
    assert_eq!(backends(&z3), ["z3"]);
    let bitwuzla = gen("bitwuzla", &dir.path().join("bitwuzla"));
    assert_eq!(backends(&bitwuzla), ["bitwuzla"]);
    assert!(error_found(&bitwuzla), "Bitwuzla answers the float query: {:#}", bitwuzla["solvers"]);
    let portfolio = gen("portfolio", &dir.path().join("portfolio"));
    assert!(backends(&portfolio).contains(&"bitwuzla".to_string()), "{:?}", backends(&portfolio));
    assert!(error_found(&portfolio), "the portfolio sends float queries to Bitwuzla");
    for report in [&z3, &bitwuzla, &portfolio] {
        assert_eq!(report["proof_conflicts"].as_array().map_or(0, |c| c.len()), 0);
    }
}
