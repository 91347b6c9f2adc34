//! The model checker in `walkdown gen`: alone (`--engine cegar`) it
//! settles a program whose outer loop count is an input (a test for the
//! error call, a proof for the dead branch, named `cegar: predicate
//! abstraction, N predicates`); with concolic search (`--engines
//! concolic,cegar`, on one worker and on two) the campaign settles it too,
//! with no proof conflict, and the engines' figures name the monitor.
//! The campaigns run in process, through the driver.

mod support;

use std::path::Path;
use walkdown_driver::{EngineKind, Exit, Options};
use walkdown_formats::report::Report;

/// `gen --time 60` with `engines` on `jobs` workers.
fn gen(file: &Path, out: &Path, engines: &[EngineKind], jobs: Option<usize>) -> Report {
    let options = Options { time: 60.0, engines: engines.to_vec(), jobs, ..Options::new(file, out) };
    let outcome = support::gen(options);
    assert_ne!(outcome.exit(), Exit::ProofConflict, "walkdown gen found a proof conflict");
    outcome.report
}

fn line_of(file: &Path, mark: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().position(|l| l.contains(&format!("/* {mark} */"))).expect("marked line") + 1
}

#[test]
fn cegar_settles_a_program_with_an_input_bounded_outer_loop() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cegar/rounds_of_counts.c");
    let neg = format!(":{}:", line_of(&file, "NEG"));
    let hit = format!(":{}:", line_of(&file, "HIT"));
    let tmp = tempfile::tempdir().unwrap();
    use EngineKind::{Cegar, Concolic};
    for (name, engines, jobs) in [
        ("alone", &[Cegar][..], None),
        ("with concolic, one worker", &[Concolic, Cegar][..], Some(1)),
        ("with concolic, two workers", &[Concolic, Cegar][..], Some(2)),
    ] {
        let r = gen(&file, &tmp.path().join(name.replace([' ', ','], "_")), engines, jobs);
        assert!(r.proof_conflicts.is_empty(), "{name}: {:?}", r.proof_conflicts);
        let open: Vec<_> = r.goals.iter().filter(|g| g.status != "covered" && g.status != "unreachable").collect();
        assert!(open.is_empty(), "{name}: goals left open: {open:#?}");
        let dead = r.goals.iter().find(|g| g.location.contains(&neg) && g.kind == "branch true").expect("NEG goal");
        assert_eq!(dead.status, "unreachable", "{name}: {dead:?}");
        let proof = dead.proved_by.as_deref().unwrap_or("");
        assert!(proof.starts_with("cegar: predicate abstraction, "), "{name}: {dead:?}");
        let error =
            r.goals.iter().find(|g| g.location.contains(&hit) && g.kind == "error reach_error").expect("HIT goal");
        assert_eq!(error.status, "covered", "{name}: {error:?}");
        let cegar = r.engines.iter().find(|e| e.name == "cegar").expect("cegar ran");
        for figure in ["predicates", "refinements", "monitor_states", "useless_edges"] {
            assert!(cegar.figures.contains_key(figure), "{name}: cegar figure {figure} missing: {:?}", cegar.figures);
        }
        if engines.contains(&Concolic) {
            let concolic = r.engines.iter().find(|e| e.name == "concolic").expect("concolic ran");
            assert!(concolic.figures.contains_key("monitor_pruned"), "{name}: {:?}", concolic.figures);
        }
    }
}
