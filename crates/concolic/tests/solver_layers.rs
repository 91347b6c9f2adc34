//! Each solver layer changes how many queries reach the backend, never the
//! answers: the queries the engine asks on the fixture programs are
//! replayed through stacks with one layer switched off at a time.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_concolic::{generate, GenSettings, SearchKind};
use walkdown_frontend::FrontendSettings;
use walkdown_ir::goals::Goals;
use walkdown_smt::{Answer, Solver, SolverSettings, SolverStack};

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Kind {
    Sat,
    Unsat,
    Unknown,
}

/// Answers (checked models) and the number of calls that reached the
/// backend (the report's last line).
fn replay(log: &walkdown_concolic::QueryLog, settings: SolverSettings) -> (Vec<Kind>, u64) {
    let mut stack = SolverStack::build(&settings);
    let mut kinds = Vec::new();
    for q in &log.queries {
        let a = stack.check(&log.pool, &walkdown_smt::Query::new(q)).expect("solver runs");
        kinds.push(match a {
            Answer::Sat(m) => {
                // Slicing answers for the query's slice only; the model must
                // satisfy the constraints that mention what it assigns.
                let relevant: Vec<_> = q.iter().copied().filter(|&c| m.assigns_all(log.pool.symbols_of(c))).collect();
                assert!(log.pool.satisfies(&relevant, &m), "a model does not satisfy its query");
                Kind::Sat
            }
            Answer::Unsat => Kind::Unsat,
            Answer::Unknown(_) => Kind::Unknown,
        });
    }
    let backend = stack.report().last().map_or(0, |l| l.queries);
    (kinds, backend)
}

#[test]
fn layers_change_solver_calls_not_answers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let all_on = SolverSettings::default();
    let none = SolverSettings { cache: false, slicing: false, cex_cache: false, ..all_on };
    // Each layer is judged against the stack without it. The engine never
    // asks the same query twice, so the caches pay off on sliced queries
    // (which repeat): each cache is judged on top of slicing, and slicing
    // on top of both caches.
    let variants = [
        ("cache", SolverSettings { slicing: true, ..none }, SolverSettings { slicing: true, cache: true, ..none }),
        (
            "cex-cache",
            SolverSettings { slicing: true, ..none },
            SolverSettings { slicing: true, cex_cache: true, ..none },
        ),
        ("slicing", SolverSettings { slicing: false, ..all_on }, all_on),
    ];
    let mut reduced = std::collections::BTreeMap::new();
    for name in ["layers/independent.c", "fixtures/loop_count.c"] {
        let program = walkdown_frontend::compile_c(&root.join(name), &FrontendSettings::default()).expect("lowers");
        let goals = Goals::compute(&program);
        let settings = GenSettings {
            time: Duration::from_secs(20),
            search: SearchKind::Bfs,
            random_fallback: false,
            log_queries: true,
            max_executions: Some(80),
            ..GenSettings::default()
        };
        let result = generate(&program, &goals, &settings, &AtomicBool::new(false)).expect("runs");
        let log = result.query_log.expect("queries were logged");
        assert!(!log.queries.is_empty(), "{name}: the engine asked no query");
        let mut base_answers = None;
        for (layer, without, with) in variants {
            let (answers_without, z3_without) = replay(&log, without);
            let (answers_with, z3_with) = replay(&log, with);
            eprintln!(
                "{name}: {} queries; backend calls without {layer} {z3_without}, with it {z3_with}",
                log.queries.len()
            );
            assert_eq!(answers_with, answers_without, "{name}: {layer} changed an answer");
            let base = base_answers.get_or_insert_with(|| answers_without.clone());
            assert_eq!(&answers_with, base, "{name}: stacks disagree");
            assert!(z3_with <= z3_without, "{name}: {layer} added backend calls ({z3_with} > {z3_without})");
            if z3_with < z3_without {
                *reduced.entry(layer).or_insert(0) += 1;
            }
        }
    }
    for (layer, _, _) in variants {
        assert!(reduced.get(layer).copied().unwrap_or(0) > 0, "{layer} never saved a backend call: {reduced:?}");
    }
}
