//! The complete run (`walkdown_driver::complete_run`) in `walkdown gen`: a
//! program that reads no input and whose one execution ends has every goal
//! that execution does not cover proved unreachable, by `run: complete
//! run: ...` naming the conditions that held; a program that reads input,
//! or whose path changes with the contents of uninitialized memory, gets
//! no proof from it. Soundness on a corpus: on every program of the
//! `reach_error` and fast-forward corpora, the pass claims nothing on a
//! program that reads input, and no test any engine keeps covers a goal it
//! proved (the ledger reports that as a proof conflict).

mod support;

use std::path::{Path, PathBuf};
use walkdown_driver::{EngineKind, Exit, Options};
use walkdown_formats::report::Report;

const PROOF: &str = "run: complete run: the program reads no input and calls no function without a body or model";

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(name)
}

/// `gen --time SECS --jobs 1` with `engines` (the default portfolio when
/// empty).
fn gen(file: &Path, out: &Path, secs: f64, engines: &[EngineKind]) -> Report {
    let mut options = Options { time: secs, jobs: Some(1), ..Options::new(file, out) };
    if !engines.is_empty() {
        options.engines = engines.to_vec();
    }
    let outcome = support::gen(options);
    assert_ne!(outcome.exit(), Exit::ProofConflict, "{}: a proof conflict", file.display());
    outcome.report
}

fn line_of(file: &Path, mark: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let n = text.lines().position(|l| l.contains(&format!("/* {mark} */"))).expect("marked line") + 1;
    format!(":{n}:")
}

fn run_status(r: &Report) -> String {
    r.engines.iter().find(|e| e.name == "run").map(|e| e.status.clone()).expect("the complete run's figures")
}

fn proved_by_run(r: &Report) -> usize {
    r.goals.iter().filter(|g| g.proved_by.as_deref().is_some_and(|p| p.starts_with("run:"))).count()
}

#[test]
fn an_input_free_loop_that_calls_is_settled_by_its_run() {
    let file = dir("complete_run").join("loop_calls.c");
    let tmp = tempfile::tempdir().unwrap();
    let r = gen(&file, tmp.path(), 20.0, &[EngineKind::Concolic]);
    let never = line_of(&file, "NEVER");
    for g in r.goals.iter().filter(|g| g.location.contains(&never)) {
        if g.kind == "branch false" {
            assert_eq!(g.status, "covered", "{g:?}");
        } else {
            assert_eq!(g.status, "unreachable", "{g:?}");
            assert!(g.proved_by.as_deref().unwrap_or("").starts_with(PROOF), "{g:?}");
        }
    }
    let proof = r.goals.iter().find_map(|g| g.proved_by.clone()).expect("a proof");
    assert!(proof.contains("steps") && proof.contains("ended (exit 0)"), "{proof}");
    assert!(proof.contains("with other contents for uninitialized memory it took the same path"), "{proof}");
    assert!(r.goals.iter().all(|g| g.status == "covered" || g.status == "unreachable"), "{:#?}", r.goals);
    assert!(run_status(&r).starts_with("finished"), "{}", run_status(&r));
}

#[test]
fn a_run_that_ends_in_the_error_proves_what_follows_it() {
    let file = dir("complete_run").join("error_ends.c");
    let tmp = tempfile::tempdir().unwrap();
    let r = gen(&file, tmp.path(), 10.0, &[EngineKind::Concolic]);
    let hit = line_of(&file, "HIT");
    let error = r.goals.iter().find(|g| g.kind == "error reach_error").expect("the error goal");
    assert_eq!(error.status, "covered", "{error:?}");
    let dead = r.goals.iter().find(|g| g.location.contains(&hit) && g.kind == "branch false").expect("HIT false");
    assert!(dead.proved_by.as_deref().unwrap_or("").starts_with(PROOF), "{dead:?}");
    assert!(dead.proved_by.as_deref().unwrap_or("").contains("ended (error"), "{dead:?}");
    let after = line_of(&file, "AFTER");
    assert!(r.goals.iter().filter(|g| g.location.contains(&after)).all(|g| g.status == "unreachable"));
}

#[test]
fn input_and_uninitialized_memory_prove_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, why) in [
        ("reads_input.c", "no proof: it reads input"),
        ("uninitialized.c", "no proof: its path depends on uninitialized memory"),
    ] {
        let file = dir("complete_run").join(name);
        let r = gen(&file, &tmp.path().join(name), 5.0, &[EngineKind::Concolic]);
        assert!(run_status(&r).starts_with(why), "{name}: {}", run_status(&r));
        assert_eq!(proved_by_run(&r), 0, "{name}: {:#?}", r.goals);
    }
}

/// Soundness on the corpora: a proof only for input-free programs, and no
/// kept test (of any engine, with any fill) ever covers a goal it proved.
#[test]
fn complete_run_soundness_on_the_corpora() {
    let tmp = tempfile::tempdir().unwrap();
    let mut programs: Vec<PathBuf> = ["reach_error", "fastforward", "complete_run"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir(d)).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    programs.sort();
    let (mut proved, mut free) = (0, 0);
    for (i, file) in programs.iter().enumerate() {
        let r = gen(file, &tmp.path().join(i.to_string()), 2.0, &[]);
        assert!(r.proof_conflicts.is_empty(), "{}: {:?}", file.display(), r.proof_conflicts);
        let status = run_status(&r);
        if status.starts_with("no proof: it reads input") {
            assert_eq!(proved_by_run(&r), 0, "{}: proofs from a run on input", file.display());
        } else {
            free += 1;
        }
        proved += proved_by_run(&r);
    }
    assert!(free > 0 && proved > 0, "the corpora have input-free programs the pass proves goals of");
}
