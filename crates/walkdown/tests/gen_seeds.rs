//! `walkdown gen` end to end on the seed programs, with what the seeds say
//! a correct tool reports; every kept test is replayed in the interpreter
//! and must cover exactly the goals `report.json` claims for it; and the
//! suite's native coverage from `walkdown validate` equals the reference
//! measurement's. Skips when `../shared` is absent.

mod support;

use std::path::Path;
use std::process::Command;
use walkdown_formats::report::read_report;
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::goals::Goals;

fn gen(seed: &Path, out: &Path, time: u32) -> walkdown_formats::report::Report {
    let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--time", &time.to_string(), "--out"])
        .arg(out)
        .arg(seed)
        .status()
        .expect("walkdown runs");
    assert!(matches!(status.code(), Some(0 | 1)), "walkdown gen {} failed: {status}", seed.display());
    read_report(&out.join("report.json")).expect("report.json is written")
}

fn has_error(report: &walkdown_formats::report::Report, kind: &str, line: u32) -> bool {
    report.errors.iter().any(|e| e.kind == kind && e.location.split(':').nth(1) == Some(&line.to_string()))
}

/// Every test replays to the goals the report lists for it.
fn check_replays(seed: &Path, out: &Path, report: &walkdown_formats::report::Report) {
    let program = walkdown_frontend::compile_c(seed, &Default::default()).expect("seed lowers");
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let suite = walkdown_formats::read_suite(&out.join("test-suite")).expect("suite reads");
    assert!(suite.invalid.is_empty(), "invalid files in the suite: {:?}", suite.invalid);
    assert_eq!(suite.tests.len(), report.tests.len(), "{}: suite and report disagree on the tests", seed.display());
    for (test, entry) in suite.tests.iter().zip(&report.tests) {
        assert_eq!(test.name, entry.file);
        let run = interp.run(&test.case.vector, &RunOptions::default());
        let covered: Vec<String> = run.covered.iter().map(|g| g.to_string()).collect();
        assert_eq!(covered, entry.covers, "{}: {} replays to other goals", seed.display(), entry.file);
    }
}

#[test]
fn seeds_yield_what_they_promise() {
    let Some(shared) = support::shared_dir() else {
        eprintln!("seeds_yield_what_they_promise: skipped: ../shared (the benchmark corpus) is not present");
        return;
    };
    let seeds = shared.join("bench/seeds");
    let tmp = tempfile::tempdir().expect("temp dir");

    let out = tmp.path().join("hex_abs");
    let r = gen(&seeds.join("hex_abs.c"), &out, 10);
    assert!(has_error(&r, "null_deref", 13), "hex_abs: no null dereference test: {:?}", r.errors);
    check_replays(&seeds.join("hex_abs.c"), &out, &r);

    let out = tmp.path().join("array_bound");
    let r = gen(&seeds.join("array_bound.c"), &out, 10);
    assert!(has_error(&r, "out_of_bounds", 18), "array_bound: fill: {:?}", r.errors);
    assert!(has_error(&r, "out_of_bounds", 24), "array_bound: fill100: {:?}", r.errors);
    check_replays(&seeds.join("array_bound.c"), &out, &r);

    let out = tmp.path().join("node_swap");
    let r = gen(&seeds.join("node_swap.c"), &out, 5);
    assert!(r.errors.iter().any(|e| e.kind == "div_by_zero"), "node_swap: {:?}", r.errors);
    check_replays(&seeds.join("node_swap.c"), &out, &r);

    let out = tmp.path().join("deposit");
    let r = gen(&seeds.join("deposit.c"), &out, 10);
    assert!(r.errors.iter().any(|e| e.kind == "reach_error"), "deposit: {:?}", r.errors);
    check_replays(&seeds.join("deposit.c"), &out, &r);

    let diamonds = seeds.join("diamonds.c");
    let out = tmp.path().join("diamonds");
    let r = gen(&diamonds, &out, 5);
    let text = std::fs::read_to_string(&diamonds).expect("reads");
    let dead: Vec<String> =
        text.lines().enumerate().filter(|(_, l)| l.contains("DEAD:")).map(|(i, _)| (i + 1).to_string()).collect();
    for g in &r.goals {
        let line = g.location.split(':').nth(1).unwrap_or("");
        let is_dead = g.kind == "branch true" && dead.iter().any(|d| d == line);
        if g.kind.starts_with("branch") && !is_dead {
            assert_eq!(g.status, "covered", "diamonds: {} at line {line} not covered", g.kind);
        }
        if is_dead {
            assert_ne!(g.status, "covered", "diamonds: a DEAD branch at line {line} was covered");
        }
    }
    check_replays(&diamonds, &out, &r);

    // The suite's native coverage agrees with the reference measurement.
    let measure = shared.join("eval/measure.py");
    let reference = Command::new("python3").arg(&measure).arg(&diamonds).arg(out.join("test-suite")).output();
    let validate = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .arg("validate")
        .arg(&diamonds)
        .arg(out.join("test-suite"))
        .output()
        .expect("validate runs");
    let ours = String::from_utf8_lossy(&validate.stdout);
    let ours = ours.lines().find(|l| l.starts_with("branches:")).expect("validate prints branches").to_string();
    let (covered, total) = {
        let w: Vec<&str> = ours.split_whitespace().collect();
        (w[1].to_string(), w[3].to_string())
    };
    match reference {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(
                text.contains(&format!("branches {covered}/{total}")),
                "validate says {covered}/{total}, measure.py says: {text}"
            );
        }
        other => eprintln!("measure.py comparison skipped: {other:?}"),
    }
}
