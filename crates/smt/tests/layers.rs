//! Each layer, switched on and off over the same concolic query sequence,
//! must give the same answers (with models that satisfy the queries) and
//! send fewer calls, or smaller queries, to Z3.

#[allow(dead_code)] // each test uses part of the shared fixtures
mod common;

use common::{concolic_queries, program, run, ALL_OFF};
use walkdown_smt::{BackendSettings, Solver, SolverSettings, Z3Solver};

const RUNS: usize = 10;

#[test]
fn slicing_keeps_answers_and_shrinks_queries() {
    let mut prog = program();
    let qs = concolic_queries(&mut prog, RUNS, 7);
    let off = run(ALL_OFF, &prog, &qs);
    let on = run(SolverSettings { slicing: true, ..ALL_OFF }, &prog, &qs);
    assert_eq!(off.answers, on.answers);
    assert_eq!(off.z3_calls, on.z3_calls, "slicing alone answers nothing itself");
    assert!(
        on.z3_constraints * 2 < off.z3_constraints,
        "constraints sent to z3: {} with slicing, {} without",
        on.z3_constraints,
        off.z3_constraints
    );
    // Behind a cache, smaller queries collide more often.
    let cache = SolverSettings { cache: true, ..ALL_OFF };
    let cache_only = run(cache, &prog, &qs);
    let both = run(SolverSettings { slicing: true, ..cache }, &prog, &qs);
    assert_eq!(off.answers, both.answers);
    assert!(
        both.z3_calls < cache_only.z3_calls,
        "z3 calls: {} with slicing, {} without",
        both.z3_calls,
        cache_only.z3_calls
    );
}

#[test]
fn cache_keeps_answers_and_saves_calls() {
    let mut prog = program();
    let qs = concolic_queries(&mut prog, RUNS, 8);
    let off = run(ALL_OFF, &prog, &qs);
    let on = run(SolverSettings { cache: true, ..ALL_OFF }, &prog, &qs);
    assert_eq!(off.answers, on.answers);
    assert_eq!(off.z3_calls, qs.len() as u64);
    assert!(on.z3_calls < off.z3_calls, "{} vs {}", on.z3_calls, off.z3_calls);
    let cache = &on.report[0];
    assert_eq!(cache.layer, "cache");
    assert_eq!(cache.hits + on.z3_calls, qs.len() as u64);
}

#[test]
fn cex_cache_keeps_answers_and_saves_calls() {
    let mut prog = program();
    let qs = concolic_queries(&mut prog, RUNS, 9);
    let off = run(ALL_OFF, &prog, &qs);
    let on = run(SolverSettings { cex_cache: true, ..ALL_OFF }, &prog, &qs);
    assert_eq!(off.answers, on.answers);
    assert!(on.z3_calls < off.z3_calls, "{} vs {}", on.z3_calls, off.z3_calls);
    let cex = &on.report[0];
    assert_eq!(cex.layer, "cex-cache");
    let note = |k: &str| cex.notes.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
    assert!(note("sat-hits").unwrap_or(0) > 0, "{cex}");
    assert!(note("unsat-hits").unwrap_or(0) > 0, "{cex}");
}

#[test]
fn full_stack_keeps_answers_and_reports_every_layer() {
    let mut prog = program();
    let qs = concolic_queries(&mut prog, RUNS, 10);
    let off = run(ALL_OFF, &prog, &qs);
    let on = run(SolverSettings::default(), &prog, &qs);
    assert_eq!(off.answers, on.answers);
    assert!(on.z3_calls < off.z3_calls);
    let names: Vec<&str> = on.report.iter().map(|s| s.layer).collect();
    assert_eq!(names, ["slicing", "cache", "cex-cache", "z3"]);
    for line in &on.report {
        assert_eq!(line.queries, line.sat + line.unsat + line.unknown, "{line}");
    }
    assert_eq!(on.report[3].queries, on.z3_calls);
    // Both answers occur, including the unsat one forced by bvudiv by zero.
    assert!(on.answers.contains(&Some(true)) && on.answers.contains(&Some(false)));
}

#[test]
fn udiv_by_zero_follows_smt_lib_in_z3() {
    let mut prog = program();
    let p = &mut prog.pool;
    let (z_is_0, div_is_ones) = (prog.branches[3], prog.branches[4]);
    let mut s = Z3Solver::new(BackendSettings::default());
    assert_eq!(s.must_be_true(p, &[z_is_0], div_is_ones).unwrap(), Some(true));
    assert_eq!(s.may_be_true(p, &[], div_is_ones).unwrap(), Some(true));
    let not_ones = p.not(div_is_ones).unwrap();
    assert_eq!(s.is_sat(p, &[not_ones]).unwrap(), Some(true));
    assert_eq!(s.is_sat(p, &[z_is_0, not_ones]).unwrap(), Some(false));
    assert_eq!(s.is_sat(p, &[]).unwrap(), Some(true));
}

#[test]
fn model_covers_query_symbols_only() {
    let mut prog = program();
    let p = &prog.pool;
    let mut s = Z3Solver::new(BackendSettings::default());
    // `d > 100` only: the model must give d (and nothing else) a value.
    let m = s.model(p, &[prog.branches[6]]).unwrap().unwrap();
    let syms: Vec<_> = m.syms().map(|(s, _)| s).collect();
    assert_eq!(syms, vec![prog.syms[3].0]);
    assert!(m.sym(prog.syms[3].0).unwrap() > 100);
    // The 128-bit branch reads back all 128 bits.
    let m = s.model(p, &[prog.branches[7]]).unwrap().unwrap();
    assert_eq!(m.sym(prog.syms[5].0), Some(prog.w_solution));
    assert!(prog.w_solution > u128::from(u64::MAX));
    // The array branch: the model holds the bytes the query reads.
    let m = s.model(p, &[prog.branches[5]]).unwrap().unwrap();
    assert!(m.array(prog.mem).is_some());
    assert!(prog.pool.satisfies(&[prog.branches[5]], &m));
    let _ = &mut prog;
}

/// The same queries in the same order cost the same work, through every
/// layer: the portfolio shares a core by it and stays reproducible. Z3's
/// count depends on its context's history (term ids), and the context is
/// per thread, so each run gets a thread of its own, as each engine does.
#[test]
fn solver_work_is_reproducible_and_counted_through_the_stack() {
    let work = |settings: SolverSettings| {
        let mut prog = program();
        let qs = concolic_queries(&mut prog, RUNS, 11);
        std::thread::spawn(move || {
            let mut stack = walkdown_smt::SolverStack::build(&settings);
            for pq in &qs {
                stack.check(&prog.pool, &walkdown_smt::Query::new(&pq.constraints)).unwrap();
            }
            stack.work()
        })
        .join()
        .unwrap()
    };
    let full = SolverSettings::default();
    let first = work(full);
    assert!(first > 0, "Z3's resource count is read");
    assert_eq!(first, work(full));
    assert!(work(ALL_OFF) > first, "queries the layers answer cost no solver work");
}

/// A backend that answers `Unknown` while its deadline has passed and
/// `Unsat` otherwise, counting its calls.
#[derive(Default)]
struct DeadlineBound {
    deadline: Option<std::time::Instant>,
    calls: u64,
}

impl Solver for DeadlineBound {
    fn check(
        &mut self,
        _: &walkdown_smt::ExprPool,
        _: &walkdown_smt::Query<'_>,
    ) -> Result<walkdown_smt::Answer, walkdown_smt::SolverError> {
        self.calls += 1;
        Ok(match self.deadline {
            Some(d) if std::time::Instant::now() >= d => walkdown_smt::Answer::Unknown("timeout".into()),
            _ => walkdown_smt::Answer::Unsat,
        })
    }
    fn stats(&self, _: &mut Vec<walkdown_smt::LayerStats>) {}
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.deadline = deadline;
    }
}

/// An `Unknown` the deadline cut short says nothing about the query: the
/// cache does not keep it, so asking again with more time reaches the
/// backend; an answer it gave in time is kept.
#[test]
fn cache_forgets_answers_the_deadline_cut_short() {
    let mut pool = walkdown_smt::ExprPool::new();
    let (_, x) = pool.new_symbol("x", 8).unwrap();
    let zero = pool.bv_const(8, 0).unwrap();
    let c = pool.eq(x, zero).unwrap();
    let mut cache = walkdown_smt::CachingSolver::new(DeadlineBound::default());
    cache.set_deadline(Some(std::time::Instant::now()));
    let q = walkdown_smt::Query::new(std::slice::from_ref(&c));
    assert!(matches!(cache.check(&pool, &q).unwrap(), walkdown_smt::Answer::Unknown(_)));
    cache.set_deadline(None);
    assert!(cache.check(&pool, &q).unwrap().is_unsat(), "asked again, not answered from the cache");
    assert_eq!(cache.inner().calls, 2);
    assert!(cache.check(&pool, &q).unwrap().is_unsat());
    assert_eq!(cache.inner().calls, 2, "an answer given in time is kept");
}
