//! The default `walkdown gen` (static pass, then the concolic and bounded
//! engines as a portfolio) settles every goal of the example and of the
//! seeds that say what a correct tool reports: errors reached, dead goals
//! proved unreachable, nothing left open; on two workers and on one.
//! The seeds skip when `../shared` is absent; the example is the
//! project's own.

mod support;

use std::path::Path;
use std::process::Command;
use walkdown_formats::report::{read_report, Report};

fn gen(file: &Path, out: &Path, jobs: u32) -> (i32, Report) {
    let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--time", "10", "--jobs", &jobs.to_string(), "--out"])
        .arg(out)
        .arg(file)
        .status()
        .expect("walkdown runs");
    let code = status.code().expect("walkdown exits");
    assert!(matches!(code, 0 | 1), "walkdown gen {} failed: {status}", file.display());
    (code, read_report(&out.join("report.json")).expect("report.json is written"))
}

fn count(r: &Report, status: &str) -> usize {
    r.goals.iter().filter(|g| g.status == status).count()
}

fn settled(r: &Report) -> bool {
    r.goals.iter().all(|g| g.status == "covered" || g.status == "unreachable")
}

#[test]
fn the_example_is_settled_with_its_dead_checks_proved() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/classify.c");
    let tmp = tempfile::tempdir().expect("temp dir");
    for jobs in [2, 1] {
        let (code, r) = gen(&example, &tmp.path().join(format!("j{jobs}")), jobs);
        assert_eq!(code, 1, "classify.c reaches reach_error");
        assert!(settled(&r), "jobs {jobs}: every goal covered or proved: {:#?}", r.goals);
        // The division by zero and the overflow at line 13 are dead, since
        // y == 0 is handled just before.
        let dead: Vec<_> = r.goals.iter().filter(|g| g.status == "unreachable").collect();
        assert_eq!(dead.len(), 2, "{dead:#?}");
        for g in dead {
            assert!(g.location.contains(":13:"), "{g:?}");
            assert!(g.kind.starts_with("error"), "{g:?}");
            let proof = g.proved_by.as_deref().unwrap_or("");
            assert!(proof.starts_with("bmc: ") || proof.starts_with("absint: "), "{g:?}");
        }
        assert_eq!(r.status, "finished");
        assert_eq!(r.stop_reason, "every goal settled");
        assert!(r.proof_conflicts.is_empty());
    }
}

#[test]
fn the_seeds_are_settled_as_they_say() {
    let Some(shared) = support::shared_dir() else {
        eprintln!("the_seeds_are_settled_as_they_say: skipped: ../shared (the benchmark corpus) is not present");
        return;
    };
    let seeds = shared.join("bench/seeds");
    let tmp = tempfile::tempdir().expect("temp dir");
    for jobs in [2, 1] {
        for name in ["all_tens.c", "sixth_four.c"] {
            let (code, r) = gen(&seeds.join(name), &tmp.path().join(format!("{name}-{jobs}")), jobs);
            assert_eq!(code, 1, "{name} (jobs {jobs}): the error is reached");
            assert!(r.errors.iter().any(|e| e.kind == "reach_error"), "{name}: {:?}", r.errors);
            assert!(r.proof_conflicts.is_empty());
        }
        let (_, r) = gen(&seeds.join("unreach_goal.c"), &tmp.path().join(format!("unreach-{jobs}")), jobs);
        assert_eq!((count(&r, "covered"), count(&r, "unreachable")), (9, 1), "unreach_goal.c (jobs {jobs}): {:#?}", r.goals);
        let (_, r) = gen(&seeds.join("diamonds.c"), &tmp.path().join(format!("diamonds-{jobs}")), jobs);
        assert_eq!((count(&r, "covered"), count(&r, "unreachable")), (17, 3), "diamonds.c (jobs {jobs}): {:#?}", r.goals);
    }
}
