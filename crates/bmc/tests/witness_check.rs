//! The induction step as a witness's checker
//! (`walkdown_bmc::houdini::check_witness`): of the candidate invariants at
//! loop heads, Houdini keeps the inductive ones and drops the rest, and
//! the answer says whether the kept ones exclude `reach_error` within one
//! iteration of every loop. The program is `tests/deepening/
//! unsigned_transfer.c`, whose proof needs `left + done == total`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use walkdown_bmc::houdini::{check_witness, WitnessCheck};
use walkdown_bmc::BmcSettings;
use walkdown_ir::formula::{BlockInvariant, Formula, Term};
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::{CheckKind, CmpPred, Const, DataModel, Operand, Program, Type};

/// The program, its goals, and its `reach_error` goals.
fn load() -> (Program, Goals, Vec<GoalId>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepening/unsigned_transfer.c");
    let program = common::load(&path, DataModel::LP64);
    let goals = Goals::compute(&program);
    let targets = goals
        .goals
        .iter()
        .filter(|(_, g)| matches!(g.kind, GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. }))
        .map(|(id, _)| id)
        .collect();
    (program, goals, targets)
}

/// [`check_witness`] on the program with these candidates, 20 s at most.
fn check(program: &Program, goals: &Goals, targets: &[GoalId], candidates: &[BlockInvariant]) -> WitnessCheck {
    let interp = walkdown_interp::Interpreter::new(program, goals).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    check_witness(program, goals, &interp, &BmcSettings::default(), candidates, targets, deadline).unwrap()
}

/// The candidate equalities a run ignoring wrapping proposes (the one the
/// proof needs among them), and a false one at the same head: the head's
/// first parameter equal to a constant it does not have on entry.
fn candidates(program: &Program) -> (Vec<BlockInvariant>, BlockInvariant) {
    let dm = program.data_model;
    let equalities = walkdown_absint::candidate_loop_equalities(program, Default::default());
    assert!(!equalities.is_empty(), "the analysis proposes the transfer's equality");
    let good: Vec<BlockInvariant> = equalities.iter().map(|e| e.invariant(dm)).collect();
    let head = &good[0];
    let body = program.funcs[head.func].body.as_ref().unwrap();
    let first = body.blocks[head.block].params[0];
    let ty = body.values[first].ty;
    let false_one = BlockInvariant {
        formula: Formula::Cmp {
            pred: CmpPred::Eq,
            ty,
            lhs: Term::value(first),
            rhs: Term::Operand(Operand::Const(Const::int(ty, 12345, dm))),
        },
        ..head.clone()
    };
    assert_eq!(ty, Type::I32);
    (good, false_one)
}

#[test]
fn houdini_keeps_the_inductive_candidates_and_they_exclude_the_error() {
    let (program, goals, targets) = load();
    assert_eq!(targets.len(), 1);
    let (good, false_one) = candidates(&program);
    let mut all = good.clone();
    all.push(false_one.clone());
    let r = check(&program, &goals, &targets, &all);
    assert!(r.settled, "{r:?}");
    assert!(!r.kept.contains(&false_one), "the false candidate was kept: {r:?}");
    assert!(good.iter().all(|c| r.kept.contains(c)), "an inductive candidate was dropped: {r:?}");
    assert!(r.excluded, "the kept equality excludes the error: {r:?}");
    assert!(r.rounds >= 2 && r.queries > 0, "{r:?}");
}

#[test]
fn without_the_equality_the_error_is_not_excluded() {
    let (program, goals, targets) = load();
    let (_, false_one) = candidates(&program);
    let r = check(&program, &goals, &targets, &[false_one]);
    assert!(r.settled && r.kept.is_empty(), "{r:?}");
    assert!(!r.excluded, "nothing but the step case excludes the error: {r:?}");
}
