//! Soundness of the dead-branch proofs on the benchmark corpus: for every
//! seed and public task under `../shared/bench`, no branch outcome the
//! analysis proves dead is covered by any of up to 10,000 seeded random
//! input vectors run in the interpreter (1,000,000 steps per run, and a time
//! budget per program so that slow programs run fewer vectors; the count
//! used is printed; `WALKDOWN_SOUNDNESS_BUDGET_S` raises the budget of 2 s
//! for a full run). "Proved dead" is what `walkdown gen` uses: the interval
//! analysis's outcomes and the relational analysis's. Also prints, per
//! program, the outcomes proved dead and the analysis time, then the median
//! and maximum time. Skips with a message when `../shared` is absent.

mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use walkdown_absint::analyze;
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, RunOptions};
use walkdown_ir::goals::{GoalKind, Goals};

const VECTORS: usize = 10_000;
const BUDGET: Duration = Duration::from_millis(2000);

fn budget() -> Duration {
    std::env::var("WALKDOWN_SOUNDNESS_BUDGET_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(BUDGET, Duration::from_secs_f64)
}

#[test]
fn dead_edges_are_never_covered_on_the_corpus() {
    let Some(corpus) = support::corpus("dead_edges_are_never_covered_on_the_corpus") else { return };
    let mut times = Vec::new();
    let mut failures = Vec::new();
    let (mut total_dead, mut total_edges, mut total_safe) = (0usize, 0usize, 0usize);
    for prog in &corpus {
        let settings = FrontendSettings { data_model: prog.data_model, ..Default::default() };
        let ir = match compile_c(&prog.path, &settings) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{:<50} skipped: frontend: {e}", prog.name);
                continue;
            }
        };
        let goals = Goals::compute(&ir);
        let edges = goals.goals.values().filter(|g| matches!(g.kind, GoalKind::Edge { .. })).count();
        let t0 = Instant::now();
        let a = analyze(&ir);
        let mut dead: BTreeSet<_> = a.dead_goals(&goals).into_iter().collect();
        let took = t0.elapsed();
        let by_intervals = dead.len();
        let rel = walkdown_absint::analyze_relational(&ir);
        dead.extend(rel.dead_edges().into_iter().filter_map(|(f, b, s)| goals.edge(f, b, s)));
        // Error sites proved safe count the same: no run may reach them.
        let safe = a.safe_error_sites(&goals);
        let safe_sites = safe.len();
        total_safe += safe_sites;
        dead.extend(safe.into_iter().map(|(g, _)| g));
        times.push(took);
        total_dead += dead.len();
        total_edges += edges;
        let Ok(interp) = Interpreter::new(&ir, &goals) else {
            eprintln!(
                "{:<50} dead {:>3}/{:<4} analysis {:>8.2?}  (not interpretable)",
                prog.name,
                dead.len(),
                edges,
                took
            );
            continue;
        };
        let opts =
            RunOptions { limits: ExecLimits { max_steps: 1_000_000, ..Default::default() }, ..Default::default() };
        let start = Instant::now();
        let mut runs = 0;
        let mut covered = BTreeSet::new();
        for tv in support::input_vectors(&prog.name, VECTORS) {
            if start.elapsed() > budget() {
                break;
            }
            runs += 1;
            let r = interp.run(&tv, &opts);
            for g in r.covered {
                if dead.contains(&g) && covered.insert(g) {
                    failures.push(format!(
                        "{}: goal {g} ({}) proved dead but covered by a run",
                        prog.name,
                        goals.describe(g)
                    ));
                }
            }
        }
        eprintln!(
            "{:<50} dead {:>3}/{:<4} (intervals {by_intervals:>3}; safe error sites {safe_sites:>3}) analysis {:>8.2?} (relational {:>8.2?})  vectors {runs}",
            prog.name,
            dead.len(),
            edges,
            took,
            rel.elapsed
        );
    }
    times.sort();
    if let (Some(median), Some(max)) = (times.get(times.len() / 2), times.last()) {
        eprintln!(
            "{} programs: {total_dead} goals proved dead ({total_safe} of them error sites; {total_edges} branch outcomes in all); analysis time median {median:.2?}, max {max:.2?}",
            times.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The relational analysis on the corpus: its facts, instrumented as
/// `assume`s, verify and never fail on up to 2,000 random vectors (a time
/// budget per program; both programs run on each vector and must end the
/// same way), and the branch outcomes it proves dead are never covered by
/// those runs. Prints facts found / instrumented and the analysis time.
#[test]
fn instrumented_invariants_hold_on_the_corpus() {
    let Some(corpus) = support::corpus("instrumented_invariants_hold_on_the_corpus") else { return };
    let mut failures = Vec::new();
    let mut times = Vec::new();
    let (mut total_facts, mut total_instr, mut total_dead) = (0, 0, 0);
    for prog in &corpus {
        let settings = FrontendSettings { data_model: prog.data_model, ..Default::default() };
        let Ok(ir) = compile_c(&prog.path, &settings) else { continue };
        let c = support::instrumented::check(&prog.name, &ir, 2000, Duration::from_millis(800), 1_000_000);
        let goals = Goals::compute(&ir);
        let a = walkdown_absint::analyze_relational(&ir);
        let dead: BTreeSet<_> = a.dead_edges().into_iter().filter_map(|(f, b, s)| goals.edge(f, b, s)).collect();
        for g in dead.intersection(&c.covered) {
            failures.push(format!(
                "{}: goal {g} ({}) proved dead (relational) but covered",
                prog.name,
                goals.describe(*g)
            ));
        }
        eprintln!(
            "{:<50} facts {:>3} instrumented {:>3} dead {:>3} relational analysis {:>8.2?} vectors {}",
            prog.name,
            c.facts.len(),
            c.instrumented,
            dead.len(),
            c.analysis,
            c.runs
        );
        times.push(c.analysis);
        total_facts += c.facts.len();
        total_instr += c.instrumented;
        total_dead += dead.len();
        failures.extend(c.failures);
    }
    times.sort();
    if let (Some(median), Some(max)) = (times.get(times.len() / 2), times.last()) {
        eprintln!(
            "{} programs: {total_facts} facts, {total_instr} instrumented, {total_dead} outcomes dead (relational); analysis median {median:.2?}, max {max:.2?}",
            times.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_loop_invariants_are_printed() {
    let Some(shared) = support::shared_dir() else {
        eprintln!("seed_loop_invariants_are_printed: skipped: ../shared is not present");
        return;
    };
    for seed in ["input_loop.c", "nested_loops.c"] {
        let p = compile_c(&shared.join("bench/seeds").join(seed), &FrontendSettings::default()).expect("seed compiles");
        let a = analyze(&p);
        let report = a.report();
        eprintln!("== {seed}\n{report}");
        assert!(report.contains("loop head @main"), "{report}");
    }
}
