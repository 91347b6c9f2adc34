//! Decisions clang computes without a branch get one: the last operand of
//! a short-circuit chain used as a value, and the arm gcc folds a `?:` with
//! a constant other arm into. Each small C program here lists the edge
//! goals its functions must have (gcc's branch outcomes for the same code,
//! as gcov counts them), with their labels and lines.
//!
//! Needs clang-14 and opt-14 (installed by `scripts/setup`).

use std::path::PathBuf;

use walkdown_frontend::{compile_c, FrontendError, FrontendSettings};
use walkdown_ir::goals::{EdgeLabel, GoalKind, Goals};
use walkdown_ir::{Operand, Program, Terminator};

/// Lowers `source` (written to a temporary `.c` file).
fn lower(source: &str) -> Result<Program, FrontendError> {
    let dir = tempfile::tempdir().map_err(|e| FrontendError::Io { path: std::env::temp_dir(), source: e })?;
    let path: PathBuf = dir.path().join("t.c");
    std::fs::write(&path, source).map_err(|e| FrontendError::Io { path: path.clone(), source: e })?;
    compile_c(&path, &FrontendSettings::default())
}

/// The edge goals of function `name`: (label, line), in goal order.
fn edges(program: &Program, name: &str) -> Vec<(EdgeLabel, u32)> {
    let goals = Goals::compute(program);
    goals
        .goals
        .iter()
        .filter(|(_, g)| matches!(g.kind, GoalKind::Edge { func, .. } if program.funcs[func].name == name))
        .map(|(_, g)| (g.label, g.loc.line))
        .collect()
}

/// `n` branches (true, false) on `line`.
fn branches_on(line: u32, n: usize) -> Vec<(EdgeLabel, u32)> {
    (0..n).flat_map(|_| [(EdgeLabel::True, line), (EdgeLabel::False, line)]).collect()
}

/// The number of two-way branches of `name` whose sides go to one block.
fn same_target_branches(program: &Program, name: &str) -> usize {
    let Some((_, f)) = program.funcs.iter().find(|(_, f)| f.name == name) else { return 0 };
    let Some(body) = &f.body else { return 0 };
    body.blocks
        .values()
        .filter(|b| matches!(&b.term, Terminator::Branch { if_true, if_false, .. } if if_true.block == if_false.block))
        .count()
}

#[test]
fn and_used_as_a_value_has_two_decisions() -> Result<(), FrontendError> {
    let p = lower("int f(int x, int y) { return x == 0 && y == 0; }\n")?;
    assert_eq!(edges(&p, "f"), branches_on(1, 2));
    assert_eq!(same_target_branches(&p, "f"), 1);
    // The new branch passes true on its true side and false on its false
    // side, to the join's parameter.
    let body = p.funcs.iter().find(|(_, f)| f.name == "f").and_then(|(_, f)| f.body.as_ref()).unwrap();
    let (cond, t, f) = body
        .blocks
        .values()
        .find_map(|b| match &b.term {
            Terminator::Branch { cond, if_true, if_false } if if_true.block == if_false.block => {
                Some((*cond, if_true.args.clone(), if_false.args.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert!(matches!(cond, Operand::Value(_)));
    assert_eq!(t, vec![Operand::Const(walkdown_ir::Const::bool(true))]);
    assert_eq!(f, vec![Operand::Const(walkdown_ir::Const::bool(false))]);
    Ok(())
}

#[test]
fn or_used_as_a_value_has_two_decisions() -> Result<(), FrontendError> {
    let p = lower("int g(int x, int y) { return x == 0 || y == 0; }\n")?;
    assert_eq!(edges(&p, "g"), branches_on(1, 2));
    Ok(())
}

#[test]
fn nested_chains_have_one_decision_per_operand() -> Result<(), FrontendError> {
    // The inner `||`'s value, passed on by the `&&`'s join, is no decision
    // of its own.
    let p = lower(
        "int h(int a, int b, int c) { return a && (b || c); }\nint k(int a, int b, int c) { return (a || b) && c; }\n",
    )?;
    assert_eq!(edges(&p, "h"), branches_on(1, 3));
    assert_eq!(edges(&p, "k"), branches_on(2, 3));
    Ok(())
}

#[test]
fn negated_bool_operand_is_a_decision() -> Result<(), FrontendError> {
    let p = lower("int u(int a, _Bool b) { return a && !b; }\nint v(int a, _Bool b) { return a || b; }\n")?;
    assert_eq!(edges(&p, "u"), branches_on(1, 2));
    assert_eq!(edges(&p, "v"), branches_on(2, 2));
    Ok(())
}

#[test]
fn assertion_argument_has_two_decisions() -> Result<(), FrontendError> {
    let p = lower(
        "extern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_assert(int);\nint main(void) {\n  int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int();\n  __VERIFIER_assert(x == 0 && y == 0);\n  return 0;\n}\n",
    )?;
    assert_eq!(edges(&p, "main"), branches_on(5, 2));
    Ok(())
}

#[test]
fn loop_condition_chain_has_a_goal_per_operand() -> Result<(), FrontendError> {
    // gcc: two outcomes for `i < n`, two for `k > 2`; clang also branches
    // on the chain's value (two more, always covered along with the
    // operands').
    let p = lower(
        "int l(int n, int k) {\n  int i, s = 0;\n  for (i = 0; i < n && k > 2; i++)\n    s++;\n  return s;\n}\n",
    )?;
    assert_eq!(edges(&p, "l"), branches_on(3, 3));
    Ok(())
}

#[test]
fn multi_line_and_is_located_at_its_operator() -> Result<(), FrontendError> {
    // clang gives the right operand's jump no location; the branch gets
    // the `&&`'s (line 2), where gcc counts both operands' outcomes.
    let p = lower("int f(int x, int y) {\n  return x == 0 &&\n         y == 0;\n}\n")?;
    assert_eq!(edges(&p, "f"), branches_on(2, 2));
    Ok(())
}

#[test]
fn conditional_operator_with_a_constant_arm_is_a_chain() -> Result<(), FrontendError> {
    // gcc folds `a ? b > 2 : 0` into `a && b > 2` and `a ? 1 : b > 2` into
    // `a || b > 2`: two decisions each.
    let p = lower(concat!(
        "int t1(int a, int b) { int r = a ? b > 2 : 0; return r; }\n",
        "int t2(int a, int b) { int r = a ? 1 : b > 2; return r; }\n",
        "int t3(int a, int b) { _Bool r = a ? !b : 1; return r; }\n",
        "int t4(int a, int b) { int r = a ? 0 : b > 2; return r; }\n",
        "int t5(int a, int b) { _Bool r = a ? (_Bool)(b > 2) : 0; return r; }\n",
        "int t6(int a, int b) { long r = a ? b > 2 : 0L; return r; }\n",
        "int t7(int a, int b) { char r = a ? b > 2 : 0; return r; }\n",
        "int t8(int a, int b) { long long r = a ? 1LL : b > 2; return r; }\n",
    ))?;
    assert_eq!(edges(&p, "t1"), branches_on(1, 2));
    assert_eq!(edges(&p, "t2"), branches_on(2, 2));
    assert_eq!(edges(&p, "t3"), branches_on(3, 2));
    assert_eq!(edges(&p, "t4"), branches_on(4, 2));
    assert_eq!(edges(&p, "t5"), branches_on(5, 2));
    assert_eq!(edges(&p, "t6"), branches_on(6, 2));
    assert_eq!(edges(&p, "t7"), branches_on(7, 2));
    assert_eq!(edges(&p, "t8"), branches_on(8, 2));
    Ok(())
}

#[test]
fn other_conditionals_keep_one_decision() -> Result<(), FrontendError> {
    // Two non-constant arms, a constant arm that is not 0 or 1, an `if`
    // assigning in both branches, an `int` arm: gcc branches on the
    // condition only.
    let p = lower(concat!(
        "int t4(int a, int b, int c) { int r = a ? b > 2 : c < 0; return r; }\n",
        "int t5(int a, int b) { int r = a ? b > 2 : 5; return r; }\n",
        "int t6(int a, int b) {\n  int r;\n  if (a)\n    r = b > 2;\n  else\n    r = 0;\n  return r;\n}\n",
        "int t7(int a, int b) { return a ? b : 0; }\n",
    ))?;
    assert_eq!(edges(&p, "t4"), branches_on(1, 1));
    assert_eq!(edges(&p, "t5"), branches_on(2, 1));
    assert_eq!(edges(&p, "t6"), branches_on(5, 1));
    assert_eq!(edges(&p, "t7"), branches_on(11, 1));
    Ok(())
}

#[test]
fn flags_set_in_loops_and_ifs_are_no_decisions() -> Result<(), FrontendError> {
    // A loop-carried flag joins a constant and a comparison's `zext`, and
    // an `if` without `else` joins the same, as a `?:` would: gcc branches
    // on the loop and `if` conditions only.
    let p = lower(concat!(
        "int w(int x) { int done = 0; while (!done) { done = x > 3; x++; } return x; }\n",
        "int w2(int x) { _Bool done = 0; while (!done) done = x++ > 3; return x; }\n",
        "int w3(int a, int b) { int r = 0; if (a) r = b > 2; return r; }\n",
    ))?;
    assert_eq!(edges(&p, "w"), branches_on(1, 1));
    assert_eq!(edges(&p, "w2"), branches_on(2, 1));
    assert_eq!(edges(&p, "w3"), branches_on(3, 1));
    Ok(())
}

#[test]
fn comparisons_used_as_values_are_no_decisions() -> Result<(), FrontendError> {
    // gcc computes these with `set<cc>`, without a branch.
    let p = lower("int c(int a, int b) { int r = (a > 1) == (b > 2); return r + !a; }\n")?;
    assert_eq!(edges(&p, "c"), vec![]);
    Ok(())
}

#[test]
fn goals_are_numbered_deterministically() -> Result<(), FrontendError> {
    let src = "int f(int x, int y) { return (x == 0 && y == 0) || (x > y && !(y < 3)); }\n";
    let (a, b) = (lower(src)?, lower(src)?);
    let kinds = |p: &Program| Goals::compute(p).goals.iter().map(|(_, g)| (g.kind, g.loc, g.label)).collect::<Vec<_>>();
    assert_eq!(kinds(&a), kinds(&b));
    assert_eq!(edges(&a, "f"), branches_on(1, 4));
    Ok(())
}
