//! Float-aware mutation: values for an input the program reads as `float`
//! or `double`, where the integer mutations of the engine (small integers,
//! values of kept tests) rarely hit a branch. Offered: the special values
//! (±0, ±inf, NaN, the least and greatest normal and subnormal numbers,
//! values next to 1, powers of two), steps of a few ULPs around the
//! program's float constants and around the current value, and values of
//! every magnitude.

use crate::search::Rng;
use walkdown_ir::testvec::InputValue;
use walkdown_ir::{Operand, Program, Type};

/// The float constants of a program, as `f64` (an `f32` constant widened).
pub fn program_constants(program: &Program) -> Vec<f64> {
    let mut out = Vec::new();
    for (_, f) in program.funcs.iter() {
        let Some(body) = &f.body else { continue };
        for (_, data) in body.blocks.iter() {
            for &inst in &data.insts {
                body.insts[inst].kind.for_each_operand(|o| {
                    if let Operand::Const(c) = o {
                        let v = match c.ty {
                            Type::F32 => f64::from(f32::from_bits(c.bits as u32)),
                            Type::F64 => f64::from_bits(c.bits),
                            _ => return,
                        };
                        if !v.is_nan() && !out.iter().any(|&x: &f64| x.to_bits() == v.to_bits()) && out.len() < 256 {
                            out.push(v);
                        }
                    }
                });
            }
        }
    }
    out
}

/// `v` moved by `steps` units in the last place of `ty` (toward +inf for
/// positive steps), through zero and to the infinities as the bits go.
pub fn ulp_step(v: f64, ty: Type, steps: i64) -> f64 {
    if ty == Type::F32 {
        let f = v as f32;
        // The ordered integer line of floats: negative values mirrored.
        let key = |x: f32| -> i64 {
            let b = x.to_bits() as i32 as i64;
            if b < 0 {
                -(b & 0x7fff_ffff)
            } else {
                b
            }
        };
        let k = key(f).saturating_add(steps).clamp(-0x7f80_0000, 0x7f80_0000);
        let bits = if k < 0 { (-k) as u32 | 0x8000_0000 } else { k as u32 };
        f64::from(f32::from_bits(bits))
    } else {
        let key = |x: f64| -> i128 {
            let b = x.to_bits() as i64 as i128;
            if b < 0 {
                -(b & 0x7fff_ffff_ffff_ffff)
            } else {
                b
            }
        };
        let k = key(v).saturating_add(i128::from(steps)).clamp(-0x7ff0_0000_0000_0000, 0x7ff0_0000_0000_0000);
        let bits = if k < 0 { (-k) as u64 | (1 << 63) } else { k as u64 };
        f64::from_bits(bits)
    }
}

fn specials(ty: Type) -> [f64; 14] {
    let (min_normal, max, min_sub) = if ty == Type::F32 {
        (f64::from(f32::MIN_POSITIVE), f64::from(f32::MAX), f64::from(f32::from_bits(1)))
    } else {
        (f64::MIN_POSITIVE, f64::MAX, f64::from_bits(1))
    };
    [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        min_normal,
        -min_normal,
        max,
        -max,
        min_sub,
        -min_sub,
        ulp_step(min_normal, ty, -1),
        ulp_step(1.0, ty, 1),
        ulp_step(1.0, ty, -1),
    ]
}

/// A new value for an input of type `ty` whose current value is `current`.
pub fn mutate_float(rng: &mut Rng, ty: Type, current: f64, constants: &[f64]) -> InputValue {
    let steps = |rng: &mut Rng| -> i64 {
        let k = 1 + rng.below(16) as i64;
        let k = if rng.below(4) == 0 { k << rng.below(20) } else { k };
        if rng.below(2) == 0 {
            k
        } else {
            -k
        }
    };
    let v = match rng.below(6) {
        0 => specials(ty)[rng.below(14) as usize],
        1 if !constants.is_empty() => {
            let c = constants[rng.below(constants.len() as u64) as usize];
            let s = steps(rng);
            ulp_step(c, ty, if rng.below(4) == 0 { 0 } else { s })
        }
        2 if current.is_finite() => {
            let s = steps(rng);
            ulp_step(current, ty, s)
        }
        3 => {
            let e = rng.below(if ty == Type::F32 { 76 } else { 616 }) as i32 - if ty == Type::F32 { 38 } else { 308 };
            let m = 1.0 + rng.below(1 << 20) as f64 / f64::from(1u32 << 20) * 9.0;
            let v = m * 10f64.powi(e);
            if rng.below(2) == 0 {
                v
            } else {
                -v
            }
        }
        4 => {
            let p = 2f64.powi(rng.below(130) as i32 - 65);
            if rng.below(2) == 0 {
                p
            } else {
                -p
            }
        }
        _ => current * (rng.below(5) as f64 - 2.0) + (rng.below(200) as f64 - 100.0) / 8.0,
    };
    let v = if ty == Type::F32 { f64::from(v as f32) } else { v };
    InputValue::Float(if v.is_nan() { f64::NAN } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_steps_walk_the_float_line() {
        assert_eq!(ulp_step(1.0, Type::F64, 1), 1.0 + f64::EPSILON);
        assert_eq!(ulp_step(1.0, Type::F32, -1), f64::from(1.0f32 - f32::EPSILON / 2.0));
        assert_eq!(ulp_step(0.0, Type::F32, -1), -f64::from(f32::from_bits(1)));
        assert_eq!(ulp_step(-0.0, Type::F64, 1), f64::from_bits(1));
        assert_eq!(ulp_step(f64::MAX, Type::F64, 5), f64::INFINITY);
        let t = ulp_step(f64::from(36.6f32), Type::F32, 3);
        assert_eq!((t as f32).to_bits(), 36.6f32.to_bits() + 3);
    }

    #[test]
    fn mutants_of_a_float_input_are_values_of_its_type() {
        let mut rng = Rng::new(3);
        for _ in 0..2000 {
            match mutate_float(&mut rng, Type::F32, 36.6, &[36.6, 1e-9]) {
                InputValue::Float(v) => assert!(v.is_nan() || f64::from(v as f32) == v, "{v}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
