//! Behaviours pinned down by the differential test against gcc
//! (`crates/walkdown/tests/differential.rs`): what a `reach_error` with a
//! body counts as run, input conversions the native harness defines, and
//! the fill of uninitialized memory.

mod common;
use common::*;
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::*;

const DM: DataModel = DataModel::LP64;

/// Entering a defined `reach_error` ends the run, and counts the first line
/// of its body as run (gcov counts the function's entry natively).
#[test]
fn entering_reach_error_counts_its_first_line() {
    let mut p = program(DM);
    let (mut body, _) = Fb::new(&[]);
    body.line = 99;
    body.ret(None); // line 100
    let re = define(&mut p, "reach_error", vec![], None, body);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(Type::I32, true); // line 2
    let c = f.cmp(CmpPred::Eq, Type::I32, x, c32(7)); // line 3
    let (hit, miss) = (f.new_block(), f.new_block());
    f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(hit), if_false: BlockCall::new(miss) });
    f.switch_to(hit);
    f.call(re, vec![], None);
    f.ret(Some(c32(1)));
    f.switch_to(miss);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let opts = RunOptions { record_lines: true, ..Default::default() };
    let line_100 = |inputs: &[i128]| {
        let r = run_with(&p, TestVector::from_ints(inputs.iter().copied()), &opts);
        (r.outcome.is_error(), r.line_counts.iter().find(|l| l.line == 100).map(|l| l.count))
    };
    assert_eq!(line_100(&[7]), (true, Some(1)));
    assert_eq!(line_100(&[8]), (false, Some(0)));
    // Without line recording nothing is counted, and nothing breaks.
    let r = run_with(&p, TestVector::from_ints([7]), &RunOptions::default());
    assert!(r.outcome.is_error() && r.line_counts.is_empty());
}

/// A floating-point input for an integer: truncated toward zero, then
/// wrapped, as the native harness converts it; a `_Bool` is true when that
/// integer is not 0; an `f32` from an integer is rounded once.
#[test]
fn float_inputs_for_integers_and_bools() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    for (ty, signed) in [(Type::I32, true), (Type::I64, true), (Type::I1, false), (Type::I1, false), (Type::F32, true)]
    {
        f.nondet(ty, signed);
    }
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let r = run_with(
        &p,
        tv(&[
            InputValue::Float(1e10),
            InputValue::Float(-1e19),
            InputValue::Float(0.5),
            InputValue::Float(-2.0),
            InputValue::Int((1 << 60) + (1 << 36) + 1),
        ]),
        &RunOptions::default(),
    );
    let bits: Vec<u64> = r.inputs.iter().map(|i| i.bits).collect();
    assert_eq!(
        bits,
        vec![0x540b_e400, 0x7538_dcfb_7618_0000, 0, 1, u64::from((((1u64 << 60) + (1 << 36) + 1) as f32).to_bits())]
    );
}

/// Stack slots and `malloc` blocks hold zeros, or the pattern chosen with
/// `set_uninitialized_fill`; `calloc` blocks always hold zeros.
#[test]
fn uninitialized_fill() {
    let mut p = program(DM);
    let malloc = declare(&mut p, "malloc", vec![Type::I64], Some(Type::Ptr), false);
    let calloc = declare(&mut p, "calloc", vec![Type::I64, Type::I64], Some(Type::Ptr), false);
    let (mut f, _) = Fb::new(&[]);
    let s = f.alloca(c64(8));
    let a = f.load(Type::I64, s);
    let m = f.call(malloc, vec![c64(8)], Some(Type::Ptr));
    let b = f.load(Type::I64, m);
    let z = f.call(calloc, vec![c64(1), c64(8)], Some(Type::Ptr));
    let c = f.load(Type::I64, z);
    let ab = f.bin(BinOp::Or, Type::I64, a, b);
    let all = f.bin(BinOp::Or, Type::I64, ab, c);
    let nonzero = f.cmp(CmpPred::Ne, Type::I64, all, c64(0));
    let zc = f.cmp(CmpPred::Eq, Type::I64, c, c64(0));
    let r0 = f.cast(CastOp::ZExt, Type::I1, Type::I32, nonzero);
    let r1 = f.cast(CastOp::ZExt, Type::I1, Type::I32, zc);
    let r1 = f.bin(BinOp::Shl, Type::I32, r1, c32(1));
    let r = f.bin(BinOp::Or, Type::I32, r0, r1);
    f.ret(Some(r));
    with_main(&mut p, f);
    verified(&p);
    let mut interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
    let run = |i: &Interpreter| i.run(&TestVector::default(), &RunOptions::default()).outcome;
    // Zeros everywhere: nothing non-zero, calloc's block zero.
    assert_eq!(run(&interp), Outcome::Exit(2));
    interp.set_uninitialized_fill(1);
    // The stack slot and malloc's block hold the pattern; calloc's is zero.
    assert_eq!(run(&interp), Outcome::Exit(3));
    interp.set_uninitialized_fill(0);
    assert_eq!(run(&interp), Outcome::Exit(2));
}
