//! The relational analysis (intervals × affine equalities with loop
//! counters): the seed invariants of input_loop.c and nested_loops.c,
//! machine-integer soundness on small C programs, and the soundness of the
//! instrumented facts on 2,000 random vectors per program.

mod support;

use std::path::PathBuf;
use std::time::Duration;
use walkdown_absint::affine::{Linear, Var};
use walkdown_absint::{analyze_relational, invariants_at_exits, trip_count_forms, FactKind, LinearFact, RelAnalysis};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_ir::{Block, Program, Value};

fn compile_source(name: &str, src: &str) -> Program {
    let dir = std::env::temp_dir().join(format!("walkdown-absint-rel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, src).unwrap();
    compile_c(&path, &FrontendSettings::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn seed(name: &str) -> Option<Program> {
    let Some(shared) = support::shared_dir() else {
        eprintln!("{name}: skipped: ../shared is not present");
        return None;
    };
    Some(compile_c(&shared.join("bench/seeds").join(name), &FrontendSettings::default()).expect("seed compiles"))
}

fn lin(terms: &[(Var, i128)], c: i128) -> Linear {
    let mut t = terms.to_vec();
    t.sort_by_key(|x| x.0);
    Linear { terms: t, constant: c }
}

/// Whether `facts` has, at `block`, the equality `sum terms == 0` (up to sign).
fn has_fact(facts: &[LinearFact], block: Block, kind: FactKind, terms: &[(i64, Value)]) -> bool {
    let norm = |t: &[(i64, Value)]| {
        let mut t = t.to_vec();
        t.sort_by_key(|x| x.1);
        t
    };
    let want = norm(terms);
    let neg: Vec<(i64, Value)> = want.iter().map(|&(c, v)| (-c, v)).collect();
    facts.iter().any(|f| {
        f.block == block && f.kind == kind && f.constant == 0 && {
            let got = norm(&f.terms);
            got == want || got == neg
        }
    })
}

fn print(name: &str, a: &RelAnalysis, facts: &[LinearFact]) {
    eprintln!("== {name} (analysis {:?})\n{}", a.elapsed, a.report());
    for f in facts {
        eprintln!("  {:?} {f}  (instrumented as {:?})", f.kind, f.eval_ty);
    }
}

#[test]
fn input_loop_invariants() {
    let Some(p) = seed("input_loop.c") else { return };
    let main = p.entry().unwrap();
    let a = analyze_relational(&p);
    let facts = invariants_at_exits(&a);
    print("input_loop.c", &a, &facts);
    let rf = a.func(main).unwrap();
    assert_eq!(rf.loops.len(), 1);
    let head = rf.loops[0].head;
    let body = p.funcs[main].body.as_ref().unwrap();
    let (i, pv) = (body.blocks[head].params[0], body.blocks[head].params[1]);
    let x0 = a.input_symbols(main)[0];
    let c = Var::Counter(0);
    let st = a.entry_state(main, head);
    // x0 == counter + p and i == counter at the loop head.
    assert!(st.eq.implies(&lin(&[(Var::Val(x0), 1), (c, -1), (Var::Val(pv), -1)], 0)), "{}", st.eq);
    assert!(st.eq.implies(&lin(&[(Var::Val(i), 1), (c, -1)], 0)), "{}", st.eq);
    // At the exit and at the branch after the loop: i + p - x0 == 0, no counter.
    let exit = facts.iter().find(|f| f.kind == FactKind::LoopExit).expect("an exit fact").block;
    assert!(has_fact(&facts, exit, FactKind::LoopExit, &[(1, i), (1, pv), (-1, x0)]));
    assert!(facts.iter().any(|f| f.kind == FactKind::AfterLoop
        && has_fact(&facts, f.block, FactKind::AfterLoop, &[(1, i), (1, pv), (-1, x0)])));
    // And at the exit p <= 0 with i == counter.
    let exit_state = a.entry_state(main, exit);
    assert!(exit_state.iv.get(pv).hi <= 0);
    assert!(exit_state.eq.implies(&lin(&[(Var::Val(i), 1), (c, -1)], 0)));
    // Instrumented (in i64: x0 - p may need 33 bits).
    assert!(facts.iter().all(|f| f.eval_ty == Some(walkdown_ir::Type::I64)));
}

/// The closed forms the concolic engine's trip-count symbols use: a
/// stride-3 countdown from an input and a counter that moves only with
/// control flow.
#[test]
fn trip_count_forms_of_a_countdown() {
    let p = compile_source(
        "countdown.c",
        "extern int __VERIFIER_nondet_int(void);\n\
         int main(void) {\n\
           int budget = __VERIFIER_nondet_int();\n\
           int rem = budget, steps = 0;\n\
           while (rem > 3) { rem -= 3; steps++; }\n\
           return steps;\n\
         }\n",
    );
    let main = p.entry().unwrap();
    let a = analyze_relational(&p);
    let loops = trip_count_forms(&a);
    assert_eq!(loops.len(), 1, "{loops:?}");
    let l = &loops[0];
    let body = p.funcs[main].body.as_ref().unwrap();
    let budget = a.input_symbols(main)[0];
    // The exit is the head's own branch (false side).
    assert_eq!(l.exits, vec![(l.head, 1)]);
    let form = |v: Value| l.forms.iter().find(|f| f.value == v).cloned();
    let params = &body.blocks[l.head].params;
    let mut found = Vec::new();
    for &v in params {
        found.push(form(v).unwrap_or_else(|| panic!("no form for {v}: {loops:?}")));
    }
    let rem = found.iter().find(|f| f.per_iteration == -3).expect("rem == budget - 3*counter");
    assert_eq!((rem.terms.as_slice(), rem.constant), (&[(1, budget)][..], 0));
    let steps = found.iter().find(|f| f.per_iteration == 1).expect("steps == counter");
    assert!(steps.terms.is_empty() && steps.constant == 0, "{steps:?}");
}

#[test]
fn nested_loops_invariants() {
    let Some(p) = seed("nested_loops.c") else { return };
    let main = p.entry().unwrap();
    let a = analyze_relational(&p);
    let facts = invariants_at_exits(&a);
    print("nested_loops.c", &a, &facts);
    let rf = a.func(main).unwrap();
    assert_eq!(rf.loops.len(), 2);
    let outer = rf.loops[0].head;
    let body = p.funcs[main].body.as_ref().unwrap();
    let (i, k) = (body.blocks[outer].params[0], body.blocks[outer].params[1]);
    // k == 2*i at the outer head (and k == 2*counter0, i == counter0).
    assert!(has_fact(&facts, outer, FactKind::LoopHead, &[(1, k), (-2, i)]));
    let st = a.entry_state(main, outer);
    assert!(st.eq.implies(&lin(&[(Var::Val(k), 1), (Var::Counter(0), -2)], 0)));
    // At the outer exit too.
    let exits: Vec<Block> = facts.iter().filter(|f| f.kind == FactKind::LoopExit).map(|f| f.block).collect();
    assert!(exits
        .iter()
        .any(|&b| !rf.loops[0].blocks.contains(&b) && has_fact(&facts, b, FactKind::LoopExit, &[(1, k), (-2, i)])));
    assert!(facts.iter().all(|f| f.eval_ty.is_some()));
}

#[test]
fn seeds_instrumented_are_sound() {
    for name in ["input_loop.c", "nested_loops.c"] {
        let Some(p) = seed(name) else { return };
        let c = support::instrumented::check(name, &p, 2000, Duration::from_secs(60), 200_000);
        eprintln!("{name}: {} facts, {} instrumented, {} vectors", c.facts.len(), c.instrumented, c.runs);
        assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
        assert!(c.instrumented > 0 && c.runs == 2000);
    }
}

/// Small programs whose variables wrap around or whose loops mix linear
/// and non-linear updates: the facts must hold on every run.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "char_counter.c",
        // i wraps at 127: no equality i == counter may be claimed after that.
        "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int n = __VERIFIER_nondet_int();\n  signed char i = 0;\n  int p = n;\n  while (p > 0) { i++; p--; }\n  if (i == 5) return 1;\n  if (i < 0) return 2;\n  return 0;\n}\n",
    ),
    (
        "unsigned_down.c",
        "extern unsigned __VERIFIER_nondet_uint(void);\nint main(void) {\n  unsigned x = __VERIFIER_nondet_uint() % 5000u;\n  unsigned p = x, i = 0;\n  while (p != 0) { p--; i++; }\n  if (i == 17) return 1;\n  return 0;\n}\n",
    ),
    (
        "overflowing_sum.c",
        // s = s + 1000000 wraps for long loops; j == 3*i holds.
        "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int n = __VERIFIER_nondet_int();\n  int s = 0, i = 0, j = 0;\n  while (i < n) { s = s + 1000000; i++; j += 3; if (n > 5000) break; }\n  if (s == 3000000) return 1;\n  if (j == 9) return 2;\n  return 0;\n}\n",
    ),
    (
        "two_loops.c",
        "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int a = __VERIFIER_nondet_int();\n  int b = __VERIFIER_nondet_int();\n  long t = 0; int i = 0;\n  for (i = 0; i < a && i < 1000; i++) t += 2;\n  int k = 0;\n  while (b > 0 && k < 100) { b -= 3; k++; t -= 1; }\n  if (t == 7) return 1;\n  if (k == 4) return 2;\n  return (int)t;\n}\n",
    ),
    (
        "switch_eq.c",
        "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int y = 0, c = 0;\n  while (c < 10) {\n    switch (x & 3) { case 0: y += 2; break; case 1: y += 2; break; default: y += 2; }\n    c++;\n    if (x == 12) { y = y - 2 * c + 2 * c; }\n  }\n  if (y == 20) return 1;\n  return 0;\n}\n",
    ),
];

#[test]
fn small_programs_instrumented_are_sound() {
    let mut failures = Vec::new();
    for (name, src) in PROGRAMS {
        let p = compile_source(name, src);
        let a = analyze_relational(&p);
        let facts = invariants_at_exits(&a);
        print(name, &a, &facts);
        let c = support::instrumented::check(name, &p, 2000, Duration::from_secs(60), 200_000);
        eprintln!("{name}: {} facts, {} instrumented, {} vectors", c.facts.len(), c.instrumented, c.runs);
        failures.extend(c.failures);
        // The char counter wraps at 127: no equality may mention it.
        if *name == "char_counter.c" {
            let body = p.funcs[p.entry().unwrap()].body.as_ref().unwrap();
            for f in &facts {
                assert!(f.terms.iter().all(|(_, v)| body.values[*v].ty != walkdown_ir::Type::I8), "{f}");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Octagonal inequalities: `i <= n` at the head of a loop counting `i` up
/// to an input `n` proves `i > n` after it dead; `b > a > 10` proves
/// `b <= 10` dead; `y == x + 5` (no wrap, by the intervals) proves `x >= y`
/// dead. Intervals alone prove only the second (they refine `b` by `a`).
#[test]
fn octagon_proves_relational_branches_dead() {
    let p = compile_source(
        "octagon.c",
        "extern int __VERIFIER_nondet_int(void);\n\
         extern void reach_error(void);\n\
         int main(void) {\n\
           int n = __VERIFIER_nondet_int();\n\
           if (n < 0 || n > 1000) return 0;\n\
           int i = 0;\n\
           while (i < n) i++;\n\
           if (i > n) reach_error();\n\
           int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();\n\
           if (a > 10 && b > a) { if (b <= 10) reach_error(); }\n\
           int x = __VERIFIER_nondet_int();\n\
           if (x > 100) return 0;\n\
           int y = x + 5;\n\
           if (x >= y) reach_error();\n\
           return 0;\n\
         }\n",
    );
    let a = analyze_relational(&p);
    eprintln!("{}", a.report());
    let dead_lines: Vec<u32> = {
        let body = p.funcs[p.entry().unwrap()].body.as_ref().unwrap();
        a.dead_edges().iter().map(|&(_, b, _)| body.blocks[b].term_loc.line).collect()
    };
    for line in [8, 10, 14] {
        assert!(dead_lines.contains(&line), "line {line} not proved dead: {dead_lines:?}");
    }
    let body = p.funcs[p.entry().unwrap()].body.as_ref().unwrap();
    let intervals_only: Vec<u32> =
        walkdown_absint::analyze(&p).dead_edges().iter().map(|&(_, b, _)| body.blocks[b].term_loc.line).collect();
    assert_eq!(intervals_only, vec![10], "intervals alone");
}

/// `i = i + j` with `j` in `[1, 99]` bounds `i' - i` (an octagonal
/// assignment of a sum), and the back edge states the difference of `k`
/// and `i` that the first iteration's constants imply: `k <= i` becomes an
/// invariant of the head, which proves `k > i` in the loop dead and, with
/// `i < 1000` on the way in, `k <= 1000` after it. Neither proof holds
/// with the intervals alone, and the program is also run on random inputs
/// with its facts checked ([`PROGRAMS`]).
#[test]
fn octagon_follows_sums_from_the_first_iteration() {
    let name = "count_by_steps.c";
    let p = compile_source(name, STEPS);
    let a = analyze_relational(&p);
    eprintln!("{}", a.report());
    let body = p.funcs[p.entry().unwrap()].body.as_ref().unwrap();
    let lines = |dead: Vec<(walkdown_ir::FuncId, Block, u32)>| -> Vec<u32> {
        dead.iter().map(|&(_, b, _)| body.blocks[b].term_loc.line).collect()
    };
    let relational = lines(a.dead_edges());
    for line in [10, 12] {
        assert!(relational.contains(&line), "line {line} not proved dead: {relational:?}");
    }
    let intervals = lines(walkdown_absint::analyze(&p).dead_edges());
    assert!(!intervals.contains(&10) && !intervals.contains(&12), "intervals alone: {intervals:?}");
    let c = support::instrumented::check(name, &p, 2000, Duration::from_secs(60), 200_000);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
}

const STEPS: &str = "extern int __VERIFIER_nondet_int(void);\n\
extern void reach_error(void);\n\
int main(void) {\n\
  int i = 0, k = 0;\n\
  while (i < 1000) {\n\
    int j = __VERIFIER_nondet_int();\n\
    if (j < 1 || j > 99) return 0;\n\
    i = i + j;\n\
    k++;\n\
    if (k > i) reach_error();\n\
  }\n\
  if (k > 1000) reach_error();\n\
  return 0;\n\
}\n";

/// Function summaries: a clamping helper's return interval and a helper
/// that never returns prove branches in the caller dead, with both
/// analyses; the recursive function gets no summary (its calls return top).
#[test]
fn return_summaries_reach_callers() {
    let p = compile_source(
        "summaries.c",
        "extern int __VERIFIER_nondet_int(void);\n\
         extern void reach_error(void);\n\
         extern void abort(void);\n\
         static int clamp(int v) { if (v < 0) return 0; if (v > 100) return 100; return v; }\n\
         static void fail(void) { abort(); }\n\
         static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n\
         int main(void) {\n\
           int x = __VERIFIER_nondet_int();\n\
           int c = clamp(x);\n\
           if (c > 100) reach_error();\n\
           if (x < -5) { fail(); if (x > 0) return 1; }\n\
           return fact(c) == 7;\n\
         }\n",
    );
    let body = p.funcs[p.entry().unwrap()].body.as_ref().unwrap();
    let lines = |edges: Vec<(walkdown_ir::FuncId, Block, u32)>| -> Vec<u32> {
        edges.iter().filter(|e| e.0 == p.entry().unwrap()).map(|&(_, b, _)| body.blocks[b].term_loc.line).collect()
    };
    let intervals = walkdown_absint::analyze(&p);
    let by_name = |n: &str| p.func_by_name(n).unwrap();
    assert_eq!(
        intervals.summaries.get(&by_name("clamp")),
        Some(&walkdown_absint::ReturnSummary::Returns(walkdown_absint::Interval::new(0, 100)))
    );
    assert_eq!(intervals.summaries.get(&by_name("fail")), Some(&walkdown_absint::ReturnSummary::Never));
    assert_eq!(intervals.summaries.get(&by_name("fact")), None);
    for dead in [lines(intervals.dead_edges()), lines(analyze_relational(&p).dead_edges())] {
        assert!(dead.contains(&10), "c > 100 not proved dead: {dead:?}");
        assert!(dead.contains(&11), "the branch after fail() not proved dead: {dead:?}");
    }
}
