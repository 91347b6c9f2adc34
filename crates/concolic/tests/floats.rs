//! Symbolic floats in the concolic engine, on programs of our own whose
//! float branches no random or mutated value is likely to take (windows a
//! few ULPs wide, exact differences, the sign of zero): with symbolic
//! floats every branch and the error are reached by solving, and without
//! them (`symbolic_floats: false`, concrete floats as before) the error is
//! not. Mutants and random vectors are off, so only the solver counts.
//! Every kept test's values are written as Test-Comp spells them and read
//! back, and must replay to the same goals (the written test is the test).
//! The last test checks float-aware mutation alone: ULP steps around the
//! program's constants find the window without the solver.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_concolic::{generate, GenSettings};
use walkdown_frontend::FrontendSettings;
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::goals::{GoalKind, Goals};
use walkdown_ir::testvec::TestVector;

struct Outcome {
    error: bool,
    open_edges: Vec<String>,
    fp_queries: u64,
}

fn run(name: &str, symbolic_floats: bool) -> Outcome {
    run_with(name, symbolic_floats, 0.0)
}

fn run_with(name: &str, symbolic_floats: bool, mutation_share: f64) -> Outcome {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/floats").join(name);
    let program = walkdown_frontend::compile_c(&path, &FrontendSettings::default()).expect("fixture lowers");
    let goals = Goals::compute(&program);
    let mut settings = GenSettings {
        time: Duration::from_secs(20),
        // Mutation rounds run when no candidate is left only with the
        // fallback on (its random vectors are integers).
        random_fallback: mutation_share > 0.0,
        mutation_share,
        ..GenSettings::default()
    };
    settings.trace.symbolic_floats = symbolic_floats;
    let result = generate(&program, &goals, &settings, &AtomicBool::new(false)).expect("generation runs");
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let mut covered = vec![false; goals.len()];
    for t in &result.tests {
        let spelled: Vec<String> =
            t.vector.values.iter().map(|&v| walkdown_formats::literal::format_value(v)).collect();
        let read = TestVector {
            values: spelled.iter().map(|s| walkdown_formats::literal::parse_value(s).expect("reads back")).collect(),
        };
        let r = interp.run(&read, &RunOptions::default());
        assert_eq!(r.covered, t.covered, "{name}: test {} ({spelled:?}) replays from its file to other goals", t.index);
        for g in &r.covered {
            covered[walkdown_ir::entity::EntityRef::index(*g)] = true;
        }
    }
    let open_edges = goals
        .goals
        .iter()
        .filter(|(id, g)| {
            matches!(g.kind, GoalKind::Edge { .. }) && !covered[walkdown_ir::entity::EntityRef::index(*id)]
        })
        .map(|(_, g)| format!("{:?}", g.loc))
        .collect();
    Outcome { error: !result.errors.is_empty(), open_edges, fp_queries: result.stats.fp_queries }
}

#[test]
fn a_narrow_float_window_is_solved() {
    let on = run("window.c", true);
    assert!(on.error, "the error behind the window is reached");
    assert!(on.open_edges.is_empty(), "open: {:?}", on.open_edges);
    assert!(on.fp_queries > 0);
    let off = run("window.c", false);
    assert!(!off.error, "concrete floats do not reach it");
    assert_eq!(off.fp_queries, 0);
}

#[test]
fn conversions_between_widths_and_integers_are_solved() {
    let on = run("mixed.c", true);
    assert!(on.error, "(double)f - d == 1e-9 and f * 1e9f > 1.5f are solved");
    assert!(on.open_edges.is_empty(), "open: {:?}", on.open_edges);
    let off = run("mixed.c", false);
    assert!(!off.error);
}

#[test]
fn float_mutation_finds_a_window_next_to_a_program_constant() {
    let out = run_with("window.c", false, 0.5);
    assert!(out.error, "ULP steps around 36.6f and 36.6001f reach the error");
    assert!(out.open_edges.is_empty(), "open: {:?}", out.open_edges);
    assert_eq!(out.fp_queries, 0);
}
