//! Integer and float semantics through the whole interpreter (specialized
//! fast paths included), checked against hand-computed values and against
//! the `eval` functions.

mod common;
use common::*;
use walkdown_interp::eval;
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::*;

const DM: DataModel = DataModel::LP64;
const INT_TYPES: [Type; 5] = [Type::I1, Type::I8, Type::I16, Type::I32, Type::I64];

/// `main`: r = op(nondet a, nondet b); check r == nondet expected.
fn bin_program(op: BinOp, ty: Type) -> Program {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let a = f.nondet(ty, false);
    let b = f.nondet(ty, false);
    let r = f.bin(op, ty, a, b);
    let rty = if op.yields_bool() { Type::I1 } else { ty };
    let want = f.nondet(rty, false);
    f.check_eq(rty, r, want);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    verified(&p);
    p
}

fn cmp_program(pred: CmpPred, ty: Type) -> Program {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let a = f.nondet(ty, false);
    let b = f.nondet(ty, false);
    let r = f.cmp(pred, ty, a, b);
    let want = f.nondet(Type::I1, false);
    // A check on a compare result feeds the fused compare-and-branch path
    // only through branches; test both: check directly, then branch.
    f.check_eq(Type::I1, r, want);
    let t = f.new_block();
    let e = f.new_block();
    f.term(Terminator::Branch { cond: r, if_true: BlockCall::new(t), if_false: BlockCall::new(e) });
    f.switch_to(t);
    f.ret(Some(c32(1)));
    f.switch_to(e);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    verified(&p);
    p
}

fn interesting(bits: u32) -> Vec<u64> {
    let m = eval::mask(bits);
    let mut v = vec![0, 1, 2, 3, 5, 7, 8, 31, 32, 33, 63, 64, 65, 0x55, 0xff, 0x1234_5678, 0xdead_beef_0bad_f00d];
    v.extend([m, m - 1, m >> 1, (m >> 1) + 1, (m >> 1).wrapping_sub(1)]);
    v.into_iter().map(|x| x & m).collect()
}

fn run_interp(interp: &Interpreter, vals: &[u64]) -> Outcome {
    let tv = TestVector { values: vals.iter().map(|&v| InputValue::Int(i128::from(v))).collect() };
    interp.run(&tv, &RunOptions::default()).outcome
}

#[test]
fn every_integer_binop_matches_eval() {
    for &op in BinOp::ALL.iter().filter(|o| !o.is_float()) {
        for ty in INT_TYPES {
            let p = bin_program(op, ty);
            let interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
            let bits = ty.bits(DM);
            for &a in &interesting(bits) {
                for &b in &interesting(bits) {
                    let want = eval::eval_bin(op, ty, a, b, DM);
                    let out = run_interp(&interp, &[a, b, want]);
                    assert_eq!(out, Outcome::Exit(0), "{op} {ty} {a:#x}, {b:#x} (expected {want:#x})");
                }
            }
        }
    }
}

#[test]
fn every_integer_comparison_matches_eval() {
    for &pred in CmpPred::ALL.iter().filter(|p| !p.is_float()) {
        for ty in INT_TYPES {
            let p = cmp_program(pred, ty);
            let interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
            for &a in &interesting(ty.bits(DM)) {
                for &b in &interesting(ty.bits(DM)) {
                    let want = eval::eval_cmp(pred, ty, a, b, DM);
                    let out = run_interp(&interp, &[a, b, u64::from(want)]);
                    assert_eq!(out, Outcome::Exit(i32::from(want)), "{pred} {ty} {a:#x}, {b:#x}");
                }
            }
        }
    }
}

/// Hand-computed results: (op, type, a, b, result).
#[test]
fn integer_edge_cases() {
    let i32min = 0x8000_0000u64;
    let cases: &[(BinOp, Type, u64, u64, u64)] = &[
        (BinOp::Add, Type::I32, 0x7fff_ffff, 1, i32min),
        (BinOp::Add, Type::I8, 0xff, 0xff, 0xfe),
        (BinOp::Sub, Type::I16, 0, 1, 0xffff),
        (BinOp::Mul, Type::I32, 0x10000, 0x10000, 0),
        (BinOp::Mul, Type::I64, u64::MAX, u64::MAX, 1),
        (BinOp::SDiv, Type::I32, i32min, 0xffff_ffff, i32min),
        (BinOp::SRem, Type::I32, i32min, 0xffff_ffff, 0),
        (BinOp::SDiv, Type::I64, 1 << 63, u64::MAX, 1 << 63),
        (BinOp::SRem, Type::I64, 1 << 63, u64::MAX, 0),
        (BinOp::SDiv, Type::I8, 0x80, 0xff, 0x80),
        (BinOp::SDiv, Type::I32, (-7i32) as u32 as u64, 2, (-3i32) as u32 as u64),
        (BinOp::SRem, Type::I32, (-7i32) as u32 as u64, 2, (-1i32) as u32 as u64),
        (BinOp::SRem, Type::I32, 7, (-2i32) as u32 as u64, 1),
        (BinOp::UDiv, Type::I32, 7, 0, 0),
        (BinOp::URem, Type::I32, 7, 0, 7),
        (BinOp::SDiv, Type::I32, 7, 0, 0),
        (BinOp::SRem, Type::I32, 7, 0, 7),
        (BinOp::UDiv, Type::I32, 0xffff_ffff, 2, 0x7fff_ffff),
        (BinOp::Shl, Type::I32, 1, 33, 2),
        (BinOp::Shl, Type::I32, 1, 32, 1),
        (BinOp::Shl, Type::I64, 1, 64, 1),
        (BinOp::Shl, Type::I8, 0x81, 1, 0x02),
        (BinOp::LShr, Type::I8, 0x80, 9, 0x40),
        (BinOp::LShr, Type::I32, 0x8000_0000, 31, 1),
        (BinOp::AShr, Type::I32, 0x8000_0000, 31, 0xffff_ffff),
        (BinOp::AShr, Type::I16, 0x8000, 4, 0xf800),
        (BinOp::AShr, Type::I16, 0x8000, 20, 0xf800),
        (BinOp::AShr, Type::I64, 1 << 63, 63, u64::MAX),
        (BinOp::SAddO, Type::I32, 0x7fff_ffff, 1, 1),
        (BinOp::SAddO, Type::I32, 0x7fff_ffff, 0xffff_ffff, 0),
        (BinOp::UAddO, Type::I32, 0xffff_ffff, 1, 1),
        (BinOp::UAddO, Type::I8, 0x7f, 0x80, 0),
        (BinOp::SSubO, Type::I32, i32min, 1, 1),
        (BinOp::SSubO, Type::I32, 0, i32min, 1),
        (BinOp::USubO, Type::I32, 0, 1, 1),
        (BinOp::SMulO, Type::I32, 0x10000, 0x8000, 1),
        (BinOp::SMulO, Type::I32, 0x10000, 0x7fff, 0),
        (BinOp::SMulO, Type::I32, 0xffff_ffff, i32min, 1),
        (BinOp::SMulO, Type::I64, u64::MAX, 1 << 63, 1),
        (BinOp::UMulO, Type::I64, 1 << 32, 1 << 32, 1),
        (BinOp::UMulO, Type::I16, 0xff, 0x101, 0),
    ];
    for &(op, ty, a, b, want) in cases {
        let p = bin_program(op, ty);
        let interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
        assert_eq!(run_interp(&interp, &[a, b, want]), Outcome::Exit(0), "{op} {ty} {a:#x} {b:#x}");
        assert_eq!(eval::eval_bin(op, ty, a, b, DM), want, "eval {op} {ty} {a:#x} {b:#x}");
    }
}

/// Constant operands take the same paths as registers.
#[test]
fn constant_operands() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(Type::I32, true);
    let r = f.bin(BinOp::SDiv, Type::I32, x, c32(-1));
    let neg = f.bin(BinOp::Sub, Type::I32, c32(0), x);
    f.check_eq(Type::I32, r, neg);
    let r = f.bin(BinOp::Shl, Type::I32, c32(1), c32(35));
    f.check_eq(Type::I32, r, c32(8));
    let r = f.bin(BinOp::Add, Type::I8, ci(Type::I8, 200, DM), ci(Type::I8, 100, DM));
    f.check_eq(Type::I8, r, ci(Type::I8, 44, DM));
    let c = f.cmp(CmpPred::Sgt, Type::I32, c32(-1), x);
    let r = f.cast(CastOp::ZExt, Type::I1, Type::I32, c);
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[i32::MIN as i128]).outcome, Outcome::Exit(1));
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(0));
}

fn un_case(op: UnOp, ty: Type, a: u64, want: u64) {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(ty, false);
    let r = f.ins(InstKind::Un { op, ty, arg: x });
    let w = f.nondet(ty, false);
    f.check_eq(ty, r, w);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let out = run(&p, &[i128::from(a), i128::from(want)]).outcome;
    assert_eq!(out, Outcome::Exit(0), "{op} {ty} {a:#x}");
}

#[test]
fn unary_operators() {
    un_case(UnOp::Bswap, Type::I32, 0x1122_3344, 0x4433_2211);
    un_case(UnOp::Bswap, Type::I16, 0x1122, 0x2211);
    un_case(UnOp::Bswap, Type::I64, 0x0102_0304_0506_0708, 0x0807_0605_0403_0201);
    un_case(UnOp::Ctpop, Type::I32, 0xf0f0_0001, 9);
    un_case(UnOp::Ctlz, Type::I32, 1, 31);
    un_case(UnOp::Ctlz, Type::I32, 0, 32);
    un_case(UnOp::Ctlz, Type::I8, 0x10, 3);
    un_case(UnOp::Cttz, Type::I64, 0, 64);
    un_case(UnOp::Cttz, Type::I16, 0x8000, 15);
}

fn cast_case(op: CastOp, from: Type, to: Type, a: InputValue, want: u64) {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(from, true);
    let r = f.cast(op, from, to, x);
    let w = f.nondet(to, false);
    // Compare bits, not float values (NaN != NaN).
    let (rb, wb) = if to.is_float() {
        let it = if to == Type::F32 { Type::I32 } else { Type::I64 };
        (f.cast(CastOp::Bitcast, to, it, r), f.cast(CastOp::Bitcast, to, it, w))
    } else {
        (r, w)
    };
    let ity = if to.is_float() {
        if to == Type::F32 {
            Type::I32
        } else {
            Type::I64
        }
    } else {
        to
    };
    f.check_eq(ity, rb, wb);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let want_input =
        if to.is_float() { InputValue::Float(eval::to_float(to, want)) } else { InputValue::Int(i128::from(want)) };
    let out = run_with(&p, tv(&[a, want_input]), &RunOptions::default()).outcome;
    assert_eq!(out, Outcome::Exit(0), "{op} {from} -> {to} of {a:?}");
}

#[test]
fn integer_casts() {
    use InputValue::Int;
    cast_case(CastOp::SExt, Type::I8, Type::I32, Int(0x80), 0xffff_ff80);
    cast_case(CastOp::SExt, Type::I1, Type::I64, Int(1), u64::MAX);
    cast_case(CastOp::SExt, Type::I16, Type::I64, Int(0x7fff), 0x7fff);
    cast_case(CastOp::ZExt, Type::I8, Type::I32, Int(0x80), 0x80);
    cast_case(CastOp::ZExt, Type::I32, Type::I64, Int(-1), 0xffff_ffff);
    cast_case(CastOp::Trunc, Type::I64, Type::I8, Int(0x1234_5678_9abc_def0), 0xf0);
    cast_case(CastOp::Trunc, Type::I32, Type::I1, Int(2), 0);
    cast_case(CastOp::Trunc, Type::I32, Type::I1, Int(3), 1);
}

#[test]
fn float_conversions() {
    use InputValue::{Float, Int};
    cast_case(CastOp::FpToSi, Type::F64, Type::I32, Float(-3.99), (-3i32) as u32 as u64);
    cast_case(CastOp::FpToSi, Type::F64, Type::I32, Float(3e9), 0x8000_0000);
    cast_case(CastOp::FpToSi, Type::F64, Type::I64, Float(f64::NAN), 1 << 63);
    cast_case(CastOp::FpToSi, Type::F64, Type::I64, Float(-1e19), 1 << 63);
    cast_case(CastOp::FpToSi, Type::F32, Type::I8, Float(300.7), 0x2c);
    cast_case(CastOp::FpToUi, Type::F64, Type::I32, Float(3e9), 3_000_000_000);
    cast_case(CastOp::FpToUi, Type::F64, Type::I32, Float(-1.0), 0xffff_ffff);
    cast_case(CastOp::FpToUi, Type::F64, Type::I64, Float(1.8446744073709548e19), 18446744073709547520);
    cast_case(CastOp::FpToUi, Type::F64, Type::I64, Float(9.3e18), 0x81103cb9fb220000);
    cast_case(CastOp::FpToUi, Type::F64, Type::I16, Float(70000.5), 0x1170);
    cast_case(CastOp::SiToFp, Type::I32, Type::F64, Int(-5), (-5.0f64).to_bits());
    cast_case(CastOp::UiToFp, Type::I32, Type::F64, Int(-1), 4294967295.0f64.to_bits());
    cast_case(CastOp::UiToFp, Type::I64, Type::F64, Int(-1), 18446744073709551616.0f64.to_bits());
    cast_case(CastOp::UiToFp, Type::I64, Type::F32, Int(-1), u64::from(18446744073709551616.0f32.to_bits()));
    cast_case(CastOp::SiToFp, Type::I64, Type::F32, Int(16777217), u64::from(16777216.0f32.to_bits()));
    cast_case(CastOp::FpTrunc, Type::F64, Type::F32, Float(0.1), u64::from(0.1f32.to_bits()));
    cast_case(CastOp::FpExt, Type::F32, Type::F64, Float(0.1), f64::from(0.1f32).to_bits());
    cast_case(CastOp::Bitcast, Type::F32, Type::I32, Float(1.0), 0x3f80_0000);
    cast_case(CastOp::Bitcast, Type::I64, Type::F64, Int(0x4000_0000_0000_0000), 2.0f64.to_bits());
}

/// f32 arithmetic rounds in f32; frem is fmod.
#[test]
fn float_arithmetic() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let a = f.nondet(Type::F32, true);
    let b = f.nondet(Type::F32, true);
    let s = f.bin(BinOp::FAdd, Type::F32, a, b);
    f.check_eq(Type::F32, s, cf(Type::F32, 16777216.0));
    let d = f.nondet(Type::F64, true);
    let e = f.nondet(Type::F64, true);
    let r = f.bin(BinOp::FRem, Type::F64, d, e);
    f.check_eq(Type::F64, r, cf(Type::F64, -1.5));
    let q = f.bin(BinOp::FDiv, Type::F64, d, cf(Type::F64, 0.0));
    f.check_eq(Type::F64, q, cf(Type::F64, f64::NEG_INFINITY));
    let n = f.ins(InstKind::Un { op: UnOp::FNeg, ty: Type::F64, arg: d });
    f.check_eq(Type::F64, n, cf(Type::F64, 7.5));
    let m = f.bin(BinOp::FMul, Type::F64, cf(Type::F64, 0.1), cf(Type::F64, 3.0));
    f.check_eq(Type::F64, m, cf(Type::F64, 0.30000000000000004));
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let inputs = [16777216.0, 1.0, -7.5, 2.0].map(InputValue::Float);
    assert_eq!(run_with(&p, tv(&inputs), &RunOptions::default()).outcome, Outcome::Exit(0));
}

#[test]
fn float_comparisons_with_nan() {
    let nan = f64::NAN.to_bits();
    let one = 1.0f64.to_bits();
    for (pred, want_nan, want_eq) in [
        (CmpPred::FOeq, false, true),
        (CmpPred::FUeq, true, true),
        (CmpPred::FOne, false, false),
        (CmpPred::FUne, true, false),
        (CmpPred::FOlt, false, false),
        (CmpPred::FUge, true, true),
        (CmpPred::FOrd, false, true),
        (CmpPred::FUno, true, false),
    ] {
        assert_eq!(eval::eval_cmp(pred, Type::F64, nan, one, DM), want_nan, "{pred} nan");
        assert_eq!(eval::eval_cmp(pred, Type::F64, one, one, DM), want_eq, "{pred} eq");
        let p = cmp_program(pred, Type::F64);
        let interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
        let tv = TestVector {
            values: vec![InputValue::Float(f64::NAN), InputValue::Float(1.0), InputValue::Int(want_nan.into())],
        };
        assert_eq!(interp.run(&tv, &RunOptions::default()).outcome, Outcome::Exit(want_nan.into()));
    }
}

#[test]
fn select_picks_by_condition() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let c = f.nondet(Type::I1, false);
    let r = f.ins(InstKind::Select { ty: Type::I32, cond: c, if_true: c32(10), if_false: c32(20) });
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[1]).outcome, Outcome::Exit(10));
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(20));
}
