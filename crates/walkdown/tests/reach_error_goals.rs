//! The goals of a defined `reach_error` (its body's checks) are what
//! "reach_error is reached" means to the goal table: a run that enters
//! `reach_error` covers them (the interpreter stops on entry, so the body
//! never runs), and no engine may claim them unreachable while a call of
//! `reach_error` is reachable. Before, the bounded engine and the model
//! checker had no copy of them (calls of `reach_error` are not inlined) and
//! claimed them unreachable once their analysis was complete, and no run
//! ever covered them, so no soundness test could notice. The campaigns
//! run in process, through the driver.

mod support;

use std::path::Path;
use std::process::Command;
use walkdown_driver::{EngineKind, Exit, Options};

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reach_error/defined.c")
}

#[test]
fn entering_a_defined_reach_error_covers_its_goals() {
    let out = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["run", "-v", "--inputs", "43"])
        .arg(fixture())
        .output()
        .expect("walkdown runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error reach_error"), "{text}");
    let covered_in_reach_error =
        text.lines().filter(|l| l.contains("\terror reach_error\t") && l.contains("defined.c:6:")).count();
    assert_eq!(covered_in_reach_error, 2, "both checks of reach_error's body are covered on entry:\n{text}");
}

#[test]
fn no_engine_claims_a_reachable_reach_error_unreachable() {
    let tmp = tempfile::tempdir().unwrap();
    use EngineKind::{Bmc, Cegar, Concolic};
    for (engines, kinds) in
        [("bmc", &[Bmc][..]), ("cegar", &[Cegar][..]), ("concolic,bmc,cegar", &[Concolic, Bmc, Cegar][..])]
    {
        let out = tmp.path().join(engines.replace(',', "_"));
        let outcome = support::gen(Options { time: 10.0, engines: kinds.to_vec(), ..Options::new(fixture(), &out) });
        assert_ne!(outcome.exit(), Exit::ProofConflict, "{engines}");
        let r = outcome.report;
        assert!(r.proof_conflicts.is_empty(), "{engines}: {:?}", r.proof_conflicts);
        for g in r.goals.iter().filter(|g| g.function == "reach_error") {
            assert_eq!(g.status, "covered", "{engines}: {g:?}");
        }
        assert!(!r.errors.is_empty(), "{engines}: the error is reported");
    }
}
