//! Soundness of `--annotations eva`: on the seeds and the public tasks, no
//! check EVA verifies without a premise is failed by a test walkdown
//! generates (a `gen` run of a few seconds, every test replayed by the
//! interpreter). A check verified under the premise `eva` may fail only in
//! a run that overflows, so those are left to the instrumentation tests.
//!
//! Skips with a message when `../shared` or `frama-c` is absent.

use std::process::Command;

#[test]
fn no_test_fails_a_check_eva_verified() {
    let Some(corpus) = walkdown_testsupport::corpus("no_test_fails_a_check_eva_verified") else { return };
    if Command::new("frama-c").arg("-version").output().is_err() {
        eprintln!("no_test_fails_a_check_eva_verified: skipped: frama-c is not installed (scripts/setup installs frama-c-base)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (mut verified, mut programs) = (0, 0);
    for (k, p) in corpus.iter().enumerate() {
        let out = tmp.path().join(k.to_string());
        let dm = if p.data_model == walkdown_ir::DataModel::ILP32 { "ilp32" } else { "lp64" };
        let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
            .args([
                "gen",
                "--quiet",
                "--jobs",
                "1",
                "--time",
                "2",
                "--data-model",
                dm,
                "--annotations",
                "eva",
                "--eva-timeout",
                "20",
                "--out",
            ])
            .arg(&out)
            .arg(&p.path)
            .status()
            .unwrap();
        let Ok(text) = std::fs::read_to_string(out.join("report.json")) else {
            assert!(!status.success(), "{}: no report", p.name);
            continue;
        };
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        let covered: std::collections::HashSet<&str> = r["tests"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| t["covers"].as_array().unwrap().iter().filter_map(|g| g.as_str()))
            .collect();
        let Some(checks) = r["annotations"]["checks"].as_array() else { continue };
        programs += 1;
        for c in checks.iter().filter(|c| c["status"] == "verified") {
            verified += 1;
            let goal = c["goal"].as_str().unwrap();
            assert!(!covered.contains(goal), "{}: EVA verified {goal} ({}), a test fails it", p.name, c["location"]);
        }
    }
    eprintln!("EVA verified {verified} checks on {programs} programs; no test fails one");
    assert!(verified > 0, "EVA verified nothing: the test checks nothing");
}
