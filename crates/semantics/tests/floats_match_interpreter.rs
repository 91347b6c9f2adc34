//! The float terms of every float instruction evaluate, for special and
//! random operands, to exactly the bits the interpreter computes
//! (`walkdown_interp::eval`). With `walkdown-smt`'s own test that Z3 agrees
//! with the terms' concrete meaning, a model Z3 gives for a float path
//! condition is a run the interpreter takes.

use walkdown_interp::eval::{eval_cast, eval_cmp, eval_fabs, eval_fbin, eval_un};
use walkdown_ir::{BinOp, CastOp, CmpPred, DataModel, Type, UnOp};
use walkdown_semantics::Sym;
use walkdown_smt::{Assignment, ExprPool, Value};

const DM: DataModel = DataModel::LP64;

use walkdown_testsupport::Rng;

fn float_value(rng: &mut Rng, ty: Type) -> u64 {
    let specials64 = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        2147483648.0,
        -2147483649.0,
        4294967295.5,
        9223372036854775808.0,
        18446744073709551615.0,
        1.8446744073709552e19,
        -9.3e18,
        255.9,
        -129.0,
        65535.7,
    ];
    let v = match rng.next_u64() % 4 {
        0 => specials64[(rng.next_u64() % specials64.len() as u64) as usize],
        1 => return rng.next_u64() & if ty == Type::F32 { 0xffff_ffff } else { u64::MAX },
        _ => (rng.next_u64() as i64 as f64 / 9.2e18) * 10f64.powi((rng.next_u64() % 44) as i32 - 20),
    };
    if ty == Type::F32 {
        u64::from((v as f32).to_bits())
    } else {
        v.to_bits()
    }
}

fn int_value(rng: &mut Rng, bits: u32) -> u64 {
    let v = match rng.next_u64() % 4 {
        0 => 0,
        1 => u64::MAX,
        2 => 1u64 << (bits - 1),
        _ => rng.next_u64(),
    };
    if bits == 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Evaluates `build(x, y)` with symbols `x`, `y` of the given widths set to
/// `a` and `b`.
fn eval2(
    wa: u32,
    wb: u32,
    a: u64,
    b: u64,
    build: impl FnOnce(&mut Sym, walkdown_smt::ExprId, walkdown_smt::ExprId) -> walkdown_smt::ExprId,
) -> u128 {
    let mut pool = ExprPool::new();
    let (xs, x) = pool.new_symbol("x", wa).unwrap();
    let (ys, y) = pool.new_symbol("y", wb).unwrap();
    let e = build(&mut Sym::new(&mut pool), x, y);
    let mut asg = Assignment::new();
    asg.set_sym(xs, u128::from(a));
    asg.set_sym(ys, u128::from(b));
    match pool.eval(e, &asg) {
        Value::Bool(v) => u128::from(v),
        Value::Bv { bits, .. } => bits,
        Value::Array(_) => unreachable!(),
    }
}

#[test]
fn float_arithmetic_and_comparisons_match_the_interpreter() {
    let mut rng = Rng::new(7);
    let preds = [
        CmpPred::FOeq,
        CmpPred::FOne,
        CmpPred::FOlt,
        CmpPred::FOle,
        CmpPred::FOgt,
        CmpPred::FOge,
        CmpPred::FUeq,
        CmpPred::FUne,
        CmpPred::FUlt,
        CmpPred::FUle,
        CmpPred::FUgt,
        CmpPred::FUge,
        CmpPred::FOrd,
        CmpPred::FUno,
    ];
    for _ in 0..3000 {
        let ty = if rng.next_u64().is_multiple_of(2) { Type::F32 } else { Type::F64 };
        let w = ty.bits(DM);
        let a = float_value(&mut rng, ty);
        let b = if rng.next_u64().is_multiple_of(8) { a } else { float_value(&mut rng, ty) };
        for op in [BinOp::FAdd, BinOp::FSub, BinOp::FMul, BinOp::FDiv, BinOp::FRem] {
            let got = eval2(w, w, a, b, |s, x, y| s.fbin(op, x, y));
            assert_eq!(got, u128::from(eval_fbin(op, ty, a, b)), "{op:?} {ty:?} {a:#x} {b:#x}");
        }
        for pred in preds {
            let got = eval2(w, w, a, b, |s, x, y| s.fcmp(pred, w, x, y));
            assert_eq!(got, u128::from(eval_cmp(pred, ty, a, b, DM)), "{pred:?} {ty:?} {a:#x} {b:#x}");
        }
        let got = eval2(w, w, a, b, |s, x, _| s.fneg(w, x));
        assert_eq!(got, u128::from(eval_un(UnOp::FNeg, ty, a, DM)), "fneg {a:#x}");
        let got = eval2(w, w, a, b, |s, x, _| s.fabs(w, x));
        assert_eq!(got, u128::from(eval_fabs(ty, a)), "fabs {a:#x}");
    }
}

#[test]
fn float_conversions_match_the_interpreter() {
    conversions(DataModel::LP64);
    conversions(DataModel::ILP32);
}

fn conversions(dm: DataModel) {
    let mut rng = Rng::new(11);
    let ints = [(Type::I8, 8), (Type::I16, 16), (Type::I32, 32), (Type::I64, 64)];
    for _ in 0..3000 {
        for fty in [Type::F32, Type::F64] {
            let fw = fty.bits(DM);
            let f = float_value(&mut rng, fty);
            for (ity, iw) in ints {
                for op in [CastOp::FpToSi, CastOp::FpToUi] {
                    let got = eval2(fw, 8, f, 0, |s, x, _| s.fcast(op, fw, iw, x, dm));
                    assert_eq!(got, u128::from(eval_cast(op, fty, ity, f, dm)), "{op:?} {fty:?}->{ity:?} {f:#x}");
                }
                let i = int_value(&mut rng, iw);
                for op in [CastOp::SiToFp, CastOp::UiToFp] {
                    let got = eval2(iw, 8, i, 0, |s, x, _| s.fcast(op, iw, fw, x, dm));
                    assert_eq!(got, u128::from(eval_cast(op, ity, fty, i, dm)), "{op:?} {ity:?}->{fty:?} {i:#x}");
                }
            }
            let (op, to) = if fty == Type::F32 { (CastOp::FpExt, Type::F64) } else { (CastOp::FpTrunc, Type::F32) };
            let tw = to.bits(DM);
            let got = eval2(fw, 8, f, 0, |s, x, _| s.fcast(op, fw, tw, x, dm));
            assert_eq!(got, u128::from(eval_cast(op, fty, to, f, dm)), "{op:?} {f:#x}");
            let ity = if fty == Type::F32 { Type::I32 } else { Type::I64 };
            let got = eval2(fw, 8, f, 0, |s, x, _| s.fcast(CastOp::Bitcast, fw, fw, x, dm));
            assert_eq!(got, u128::from(eval_cast(CastOp::Bitcast, fty, ity, f, dm)));
        }
    }
}
