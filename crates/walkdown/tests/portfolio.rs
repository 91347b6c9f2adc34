//! The default `walkdown gen` (static pass, then the concolic and bounded
//! engines as a portfolio) settles every goal of the example and of the
//! seeds that say what a correct tool reports: errors reached, dead goals
//! proved unreachable, nothing left open; on two workers and on one.
//! The seeds skip when `../shared` is absent; the example is the
//! project's own. The campaigns run in process, through the driver.

mod support;

use std::path::Path;
use walkdown_driver::{Exit, Options};
use walkdown_formats::report::Report;

/// `gen --time 10 --jobs JOBS`: how it ends, and its report.
fn gen(file: &Path, out: &Path, jobs: usize) -> (Exit, Report) {
    let options = Options { time: 10.0, jobs: Some(jobs), ..Options::new(file, out) };
    let outcome = support::gen(options);
    let exit = outcome.exit();
    assert_ne!(exit, Exit::ProofConflict, "walkdown gen {} found a proof conflict", file.display());
    (exit, outcome.report)
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
        assert_eq!(code, Exit::ErrorReached, "classify.c reaches reach_error");
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
            assert_eq!(code, Exit::ErrorReached, "{name} (jobs {jobs}): the error is reached");
            assert!(r.errors.iter().any(|e| e.kind == "reach_error"), "{name}: {:?}", r.errors);
            assert!(r.proof_conflicts.is_empty());
        }
        let (_, r) = gen(&seeds.join("unreach_goal.c"), &tmp.path().join(format!("unreach-{jobs}")), jobs);
        assert_eq!(
            (count(&r, "covered"), count(&r, "unreachable")),
            (9, 1),
            "unreach_goal.c (jobs {jobs}): {:#?}",
            r.goals
        );
        let (_, r) = gen(&seeds.join("diamonds.c"), &tmp.path().join(format!("diamonds-{jobs}")), jobs);
        assert_eq!(
            (count(&r, "covered"), count(&r, "unreachable")),
            (17, 3),
            "diamonds.c (jobs {jobs}): {:#?}",
            r.goals
        );
    }
}

/// With one worker and a seed, a run is reproducible: the engines take
/// turns by deterministic work, not wall time, so two runs keep the same
/// tests (byte for byte, from the same engines, in the same order) and
/// reach the same verdicts, however loaded the machine.
#[test]
fn one_worker_and_a_seed_give_the_same_run_twice() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/portfolio/turns.c");
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = |name: &str| {
        let out = tmp.path().join(name);
        let outcome = support::gen(Options { time: 60.0, jobs: Some(1), seed: 3, ..Options::new(&program, &out) });
        assert_eq!(outcome.exit(), Exit::ErrorReached, "turns.c reaches reach_error");
        let report = outcome.report;
        assert_eq!(report.stop_reason, "every goal settled", "the run ends by itself, not by the budget");
        let tests: Vec<(String, String, Vec<u8>)> = report
            .tests
            .iter()
            .map(|t| {
                let bytes = std::fs::read(out.join("test-suite").join(&t.file)).expect("the test file is written");
                (t.file.clone(), t.engine.clone(), bytes)
            })
            .collect();
        let verdicts: Vec<(String, String, Option<String>)> =
            report.goals.iter().map(|g| (g.id.clone(), g.status.clone(), g.proved_by.clone())).collect();
        (tests, verdicts)
    };
    let (tests, verdicts) = run("first");
    let engines: std::collections::BTreeSet<&str> = tests.iter().map(|t| t.1.as_str()).collect();
    assert!(engines.contains("concolic") && engines.contains("bmc"), "both engines keep tests: {engines:?}");
    assert!(verdicts.iter().any(|v| v.1 == "unreachable"), "the dead check is proved: {verdicts:?}");
    let (again, verdicts_again) = run("second");
    assert_eq!(tests, again, "the same tests, in the same order");
    assert_eq!(verdicts, verdicts_again);
}
