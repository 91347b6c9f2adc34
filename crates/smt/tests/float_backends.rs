//! Each backend's encoding (Z3's, Bitwuzla's) of the floating-point nodes agrees with their concrete
//! meaning (`walkdown_smt::float`, the x86 instructions the interpreter
//! runs) bit for bit: on special values (±0, ±inf, NaNs with payloads,
//! subnormals, the extremes of each format, integer bounds) and on random
//! operands, for every operator, comparison and conversion in both widths.
//!
//! Each check pins symbols to the operands, names the node's result `r`
//! and asks for `r ≠ concrete`, which must be unsat; the symbols keep the
//! pool from folding the node away.

#[allow(dead_code)] // each test uses part of the shared fixtures
mod common;

use common::Rng;
use walkdown_smt::float::{self, FpBinOp, FpCmpOp};
use walkdown_smt::{Answer, Backend, BackendSettings, ExprId, ExprPool, Query, Solver};

struct Check {
    pool: ExprPool,
    backend: Backend,
    solver: Box<dyn Solver>,
    checks: usize,
}

impl Check {
    fn new(backend: Backend) -> Self {
        Check {
            pool: ExprPool::new(),
            backend,
            solver: backend
                .make(BackendSettings { timeout_ms: Some(60_000), max_nonlinear: None, work_limit: None }, false),
            checks: 0,
        }
    }

    fn pin(&mut self, w: u32, v: u128, cs: &mut Vec<ExprId>) -> ExprId {
        let (_, s) = self.pool.new_symbol("x", w).unwrap();
        let c = self.pool.bv_const(w, v).unwrap();
        cs.push(self.pool.eq(s, c).unwrap());
        s
    }

    /// `term` (over pinned symbols, with `cs` pinning them) must be `want`.
    fn expect(&mut self, what: &str, mut cs: Vec<ExprId>, term: ExprId, want: ExprId) {
        let differs = self.pool.ne(term, want).unwrap();
        cs.push(differs);
        let a = self.solver.check(&self.pool, &Query::new(&cs)).unwrap();
        assert_eq!(
            a,
            Answer::Unsat,
            "{what}: {} computes something other than {}",
            self.backend,
            self.pool.display(want)
        );
        self.checks += 1;
    }
}

fn specials(w: u32) -> Vec<u128> {
    if w == 32 {
        let f = |x: f32| u128::from(x.to_bits());
        vec![
            0,
            0x8000_0000,
            f(1.0),
            f(-1.0),
            f(0.5),
            f(3.0),
            f(-7.25),
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0x7fc1_2345,
            1,
            0x807f_ffff,
            f(f32::MIN_POSITIVE),
            f(f32::MAX),
            f(f32::MIN),
            f(2147483648.0),
            f(-2147483648.0),
            f(2147483520.0),
            f(9.223372e18),
            f(36.6),
            f(1e-9),
        ]
    } else {
        let f = |x: f64| u128::from(x.to_bits());
        vec![
            0,
            1 << 63,
            f(1.0),
            f(-1.0),
            f(0.5),
            f(3.0),
            f(-7.25),
            f(f64::INFINITY),
            f(f64::NEG_INFINITY),
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0x7ff8_1234_5678_9abc,
            1,
            0x800f_ffff_ffff_ffff,
            f(f64::MIN_POSITIVE),
            f(f64::MAX),
            f(f64::MIN),
            f(2147483648.0),
            f(-2147483648.5),
            f(2147483647.9),
            f(9223372036854775808.0),
            f(-9223372036854775808.0),
            f(9223372036854774784.0),
            f(1e300),
            f(1e-9),
        ]
    }
}

/// Random operands: raw bits, and values of ordinary magnitudes (where the
/// interesting rounding happens).
fn random(rng: &mut Rng, w: u32) -> u128 {
    match rng.below(3) {
        0 => u128::from(rng.next()) & ((1u128 << w) - 1),
        _ => {
            let mag = (rng.below(80) as i32) - 40;
            let v = (rng.next() as i64 as f64 / 9.2e18) * 10f64.powi(mag);
            if w == 32 {
                u128::from((v as f32).to_bits())
            } else {
                u128::from(v.to_bits())
            }
        }
    }
}

fn operands(rng: &mut Rng, w: u32, n: usize) -> Vec<(u128, u128)> {
    let sp = specials(w);
    let mut out = Vec::new();
    for _ in 0..n {
        let a = if rng.below(2) == 0 { sp[rng.below(sp.len() as u64) as usize] } else { random(rng, w) };
        let b = if rng.below(2) == 0 { sp[rng.below(sp.len() as u64) as usize] } else { random(rng, w) };
        out.push((a, b));
    }
    // Same-magnitude operands make remainders and differences interesting.
    for _ in 0..n / 4 {
        let a = random(rng, w);
        let b = (a ^ u128::from(rng.below(1 << 20))) & ((1u128 << w) - 1);
        out.push((a, b));
    }
    out
}

#[test]
fn backends_agree_with_the_concrete_meaning_of_arithmetic_and_comparisons() {
    for backend in Backend::LINKED {
        backends_agree_with_the_concrete_meaning_of_arithmetic_and_comparisons_on(backend);
    }
}

fn backends_agree_with_the_concrete_meaning_of_arithmetic_and_comparisons_on(backend: Backend) {
    let mut k = Check::new(backend);
    let mut rng = Rng::new(16);
    for w in [32, 64] {
        for (a, b) in operands(&mut rng, w, 60) {
            for op in [FpBinOp::Add, FpBinOp::Sub, FpBinOp::Mul, FpBinOp::Div, FpBinOp::Rem] {
                let mut cs = Vec::new();
                let x = k.pin(w, a, &mut cs);
                let y = k.pin(w, b, &mut cs);
                let t = k.pool.fp_bin(op, x, y).unwrap();
                let want = k.pool.bv_const(w, float::fp_bin(op, w, a, b)).unwrap();
                k.expect(&format!("{op:?}/{w} {a:#x} {b:#x}"), cs, t, want);
            }
            for op in [FpCmpOp::Lt, FpCmpOp::Le, FpCmpOp::Eq] {
                let mut cs = Vec::new();
                let x = k.pin(w, a, &mut cs);
                let y = k.pin(w, b, &mut cs);
                let t = k.pool.fp_cmp(op, x, y).unwrap();
                let want = k.pool.bool_const(float::fp_cmp(op, w, a, b));
                k.expect(&format!("{op:?}/{w} {a:#x} {b:#x}"), cs, t, want);
            }
        }
    }
    assert!(k.checks > 1000, "{} checks", k.checks);
}

#[test]
fn backends_agree_with_the_concrete_meaning_of_conversions() {
    for backend in Backend::LINKED {
        backends_agree_with_the_concrete_meaning_of_conversions_on(backend);
    }
}

fn backends_agree_with_the_concrete_meaning_of_conversions_on(backend: Backend) {
    let mut k = Check::new(backend);
    let mut rng = Rng::new(61);
    for from in [32, 64] {
        let mut values = specials(from);
        values.extend((0..60).map(|_| random(&mut rng, from)));
        for &a in &values {
            let to = 96 - from;
            let mut cs = Vec::new();
            let x = k.pin(from, a, &mut cs);
            let t = k.pool.fp_conv(x, to).unwrap();
            let want = k.pool.bv_const(to, float::fp_conv(from, to, a)).unwrap();
            k.expect(&format!("conv {from}->{to} {a:#x}"), cs, t, want);
            for to in [32, 64] {
                let mut cs = Vec::new();
                let x = k.pin(from, a, &mut cs);
                let t = k.pool.fp_to_sbv(x, to).unwrap();
                let want = k.pool.bv_const(to, float::fp_to_sbv(from, to, a)).unwrap();
                k.expect(&format!("cvtt {from}->{to} {a:#x}"), cs, t, want);
            }
        }
    }
    for from in [8, 16, 32, 64] {
        for _ in 0..40 {
            let a = rng.value(from);
            for to in [32, 64] {
                for signed in [false, true] {
                    let mut cs = Vec::new();
                    let x = k.pin(from, a, &mut cs);
                    let t = k.pool.bv_to_fp(x, to, signed).unwrap();
                    let want = k.pool.bv_const(to, float::bv_to_fp(from, to, signed, a)).unwrap();
                    k.expect(&format!("to_fp {from}->{to} signed={signed} {a:#x}"), cs, t, want);
                }
            }
        }
    }
}

/// A narrow window over a float symbol: the model's bits, read back
/// exactly, are inside it.
#[test]
fn models_of_narrow_windows_are_bit_exact() {
    for backend in Backend::LINKED {
        models_of_narrow_windows_are_bit_exact_on(backend);
    }
}

fn models_of_narrow_windows_are_bit_exact_on(backend: Backend) {
    let mut p = ExprPool::new();
    let (xs, x) = p.new_symbol("t", 32).unwrap();
    let lo = p.bv_const(32, u128::from(36.6f32.to_bits())).unwrap();
    let hi = p.bv_const(32, u128::from(36.6001f32.to_bits())).unwrap();
    let c1 = p.fp_cmp(FpCmpOp::Lt, lo, x).unwrap();
    let c2 = p.fp_cmp(FpCmpOp::Lt, x, hi).unwrap();
    let mut solver = backend.make(BackendSettings::default(), false);
    let m = match solver.check(&p, &Query::new(&[c1, c2])).unwrap() {
        Answer::Sat(m) => m,
        other => panic!("{other:?}"),
    };
    let t = f32::from_bits(m.sym(xs).unwrap() as u32);
    assert!(t > 36.6f32 && t < 36.6001f32, "{t}");
    // v * 3.0 == 7.5 in doubles.
    let (vs, v) = p.new_symbol("v", 64).unwrap();
    let three = p.bv_const(64, u128::from(3f64.to_bits())).unwrap();
    let target = p.bv_const(64, u128::from(7.5f64.to_bits())).unwrap();
    let prod = p.fp_bin(FpBinOp::Mul, v, three).unwrap();
    let eq = p.fp_cmp(FpCmpOp::Eq, prod, target).unwrap();
    let m = match solver.check(&p, &Query::new(&[eq])).unwrap() {
        Answer::Sat(m) => m,
        other => panic!("{other:?}"),
    };
    let v = f64::from_bits(m.sym(vs).unwrap() as u64);
    assert_eq!(v * 3.0, 7.5);
}
