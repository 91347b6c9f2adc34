//! Inputs (`nondet`): order, exhaustion, conversion; `assume`, `check`;
//! external functions without a model.

mod common;
use common::*;
use walkdown_interp::{ConsumedInput, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::InputValue;
use walkdown_ir::*;

const DM: DataModel = DataModel::LP64;

/// `main`: reads one input of each given type, returns 0.
fn reader(types: &[(Type, bool)]) -> Program {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    for &(ty, signed) in types {
        f.nondet(ty, signed);
    }
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    p
}

fn bits_of(p: &Program, inputs: &[InputValue]) -> Vec<u64> {
    let r = run_with(p, tv(inputs), &RunOptions::default());
    r.inputs.iter().map(|i| i.bits).collect()
}

#[test]
fn inputs_are_consumed_in_order_and_recorded() {
    let p = reader(&[(Type::I32, true), (Type::I8, false), (Type::I64, true)]);
    let r = run(&p, &[-1, 300, 5]);
    assert_eq!(r.outcome, Outcome::Exit(0));
    assert_eq!(r.nondet_calls, 3);
    assert!(!r.inputs_exhausted);
    assert_eq!(
        r.inputs,
        vec![
            ConsumedInput { ty: Type::I32, signed: true, bits: 0xffff_ffff },
            ConsumedInput { ty: Type::I8, signed: false, bits: 44 },
            ConsumedInput { ty: Type::I64, signed: true, bits: 5 },
        ]
    );
}

#[test]
fn exhausted_inputs_read_as_zero() {
    let p = reader(&[(Type::I32, true), (Type::I32, true), (Type::F64, true)]);
    let r = run(&p, &[7]);
    assert_eq!(r.outcome, Outcome::Exit(0));
    assert!(r.inputs_exhausted);
    assert_eq!(r.nondet_calls, 3);
    assert_eq!(r.inputs.iter().map(|i| i.bits).collect::<Vec<_>>(), vec![7, 0, 0]);
    // Extra inputs are simply not read.
    let r = run(&p, &[1, 2, 3, 4]);
    assert!(!r.inputs_exhausted);
    assert_eq!(r.nondet_calls, 3);
}

#[test]
fn conversions_of_inputs() {
    use InputValue::{Float, Int};
    let p = reader(&[
        (Type::I32, false),
        (Type::I32, true),
        (Type::I32, false),
        (Type::I32, true),
        (Type::F64, true),
        (Type::F32, true),
        (Type::I1, false),
        (Type::I1, false),
        (Type::I16, false),
        (Type::Ptr, false),
    ]);
    let got = bits_of(
        &p,
        &[Int(-1), Float(3.7), Float(-3.7), Float(1e10), Int(5), Float(0.1), Int(2), Int(0), Int(70000), Int(0x1234)],
    );
    assert_eq!(
        got,
        vec![
            0xffff_ffff,
            3,
            0xffff_fffd,
            // Like the native harness: truncated, then wrapped (10^10
            // modulo 2^32), not x86's "integer indefinite".
            0x540b_e400,
            5.0f64.to_bits(),
            u64::from(0.1f32.to_bits()),
            1,
            0,
            70000 & 0xffff,
            0x1234,
        ]
    );
}

#[test]
fn assume_and_check() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(Type::I32, true);
    let pos = f.cmp(CmpPred::Sgt, Type::I32, x, c32(0));
    f.ins(InstKind::Assume { cond: pos });
    let nz = f.cmp(CmpPred::Ne, Type::I32, x, c32(5));
    let (chk, _) = f.ins_id(InstKind::Check { kind: CheckKind::DivByZero, cond: nz });
    f.ins(InstKind::Check { kind: CheckKind::Overflow, cond: Operand::Const(Const::bool(true)) });
    f.ret(Some(x));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[-3]).outcome, Outcome::AssumeFailed);
    assert_eq!(run(&p, &[3]).outcome, Outcome::Exit(3));
    let r = run(&p, &[5]);
    let goals = Goals::compute(&p);
    let g = goals.error_site(FuncId::from_u32(0), chk).unwrap();
    assert_eq!(
        r.outcome,
        Outcome::Error { kind: CheckKind::DivByZero, func: FuncId::from_u32(0), inst: chk, loc: at(6), goal: Some(g) }
    );
    assert_eq!(r.covered, vec![g]);
    assert!(r.outcome.is_error());
}

#[test]
fn unknown_externals_return_inputs_and_are_reported_once() {
    let mut p = program(DM);
    let foo = declare(&mut p, "foo", vec![Type::I32], Some(Type::I32), false);
    let bar = declare(&mut p, "bar", vec![], None, false);
    let (mut f, _) = Fb::new(&[]);
    let a = f.call(foo, vec![c32(1)], Some(Type::I32));
    f.call(bar, vec![], None);
    let b = f.call(foo, vec![c32(2)], Some(Type::I32));
    let r = f.bin(BinOp::Sub, Type::I32, a, b);
    f.ret(Some(r));
    with_main(&mut p, f);
    let r = run(&p, &[10, 3]);
    assert_eq!(r.outcome, Outcome::Exit(7));
    assert_eq!(r.unknown_externals, vec!["foo".to_string(), "bar".to_string()]);
    assert_eq!(r.nondet_calls, 2);
}

#[test]
fn verifier_functions_by_name() {
    let mut p = program(DM);
    let nd = declare(&mut p, "__VERIFIER_nondet_uint", vec![], Some(Type::I32), false);
    let nds = declare(&mut p, "__VERIFIER_nondet_int", vec![], Some(Type::I32), false);
    let assume = declare(&mut p, "__VERIFIER_assume", vec![Type::I32], None, false);
    let err = declare(&mut p, "reach_error", vec![], None, false);
    let (mut f, _) = Fb::new(&[]);
    let x = f.call(nd, vec![], Some(Type::I32));
    let y = f.call(nds, vec![], Some(Type::I32));
    f.call(assume, vec![y], None);
    let c = f.cmp(CmpPred::Eq, Type::I32, x, c32(42));
    let bad = f.new_block();
    let good = f.new_block();
    f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(bad), if_false: BlockCall::new(good) });
    f.switch_to(bad);
    f.call(err, vec![], None);
    f.term(Terminator::Unreachable);
    f.switch_to(good);
    f.ret(Some(x));
    with_main(&mut p, f);
    let r = run(&p, &[-1, 1]);
    assert_eq!(r.outcome, Outcome::Exit(-1));
    assert!(r.unknown_externals.is_empty());
    assert_eq!(r.inputs[0], ConsumedInput { ty: Type::I32, signed: false, bits: 0xffff_ffff });
    assert!(r.inputs[1].signed);
    assert_eq!(run(&p, &[3, 0]).outcome, Outcome::AssumeFailed);
    assert!(matches!(run(&p, &[42, 1]).outcome, Outcome::Error { kind: CheckKind::ReachError, .. }));
}

/// Entering a defined `reach_error` is the error; `__assert_fail` called
/// from `reach_error` (its function argument) counts the same.
#[test]
fn reach_error_conventions() {
    let mut p = program(DM);
    let (mut body, _) = Fb::new(&[]);
    body.ret(None);
    let re = define(&mut p, "reach_error", vec![], None, body);
    let af = declare(&mut p, "__assert_fail", vec![Type::Ptr, Type::Ptr, Type::I32, Type::Ptr], None, false);
    let name = p.globals.push(GlobalData {
        name: "fname".into(),
        size: 12,
        align: 1,
        constant: true,
        init: b"reach_error\0".to_vec(),
        relocs: vec![],
        loc: Loc::UNKNOWN,
    });
    let other = p.globals.push(GlobalData {
        name: "other".into(),
        size: 5,
        align: 1,
        constant: true,
        init: b"main\0".to_vec(),
        relocs: vec![],
        loc: Loc::UNKNOWN,
    });
    let (mut f, _) = Fb::new(&[]);
    let which = f.nondet(Type::I32, false);
    let (a, b, c, d) = (f.new_block(), f.new_block(), f.new_block(), f.new_block());
    f.term(Terminator::Switch {
        ty: Type::I32,
        value: which,
        cases: vec![(0, BlockCall::new(a)), (1, BlockCall::new(b)), (2, BlockCall::new(c))],
        default: BlockCall::new(d),
    });
    f.switch_to(a);
    f.call(re, vec![], None);
    f.ret(Some(c32(0)));
    let null = Operand::Const(Const::null());
    f.switch_to(b);
    f.call(af, vec![null, null, c32(3), Operand::Global(name)], None);
    f.term(Terminator::Unreachable);
    f.switch_to(c);
    f.call(af, vec![null, null, c32(3), Operand::Global(other)], None);
    f.term(Terminator::Unreachable);
    f.switch_to(d);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let kind = |i: i128| match run(&p, &[i]).outcome {
        Outcome::Error { kind, .. } => Some(kind),
        _ => None,
    };
    assert_eq!(kind(0), Some(CheckKind::ReachError));
    assert_eq!(kind(1), Some(CheckKind::ReachError));
    assert_eq!(kind(2), Some(CheckKind::Assertion));
    assert_eq!(kind(3), None);
}
