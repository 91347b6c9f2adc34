//! The semantics of single operations on concrete values.
//!
//! Every value is a `u64` holding the low bits of its type, zero-extended
//! (`i1` is 0 or 1, `f32` is its IEEE bits in the low 32, `f64` its 64 bits,
//! pointers are integers of the data model's width). These functions are the
//! one place that fixes what each operator of the IR computes; the
//! interpreter's loop calls them, and a concolic engine can call them to
//! compute the concrete half of its shadow values.
//!
//! The cases C leaves undefined have the fixed results documented in
//! `walkdown_ir::inst`: division by zero yields 0 (remainder: the dividend),
//! `MIN / -1 == MIN`, `MIN % -1 == 0`, shift amounts are taken modulo the
//! width. Float-to-integer conversions follow what x86-64 code compiled by
//! gcc at `-O0` produces (see [`fp_to_si`] and [`fp_to_ui`]), and under
//! ILP32 what `gcc -m32` produces where that differs: conversions to
//! `signed char`, `unsigned char` and `short` go through a 16-bit x87
//! `fistp` ([`cvtt_i16`]).

use walkdown_ir::{BinOp, CastOp, CmpPred, DataModel, Type, UnOp};

/// The mask of the low `bits` bits.
#[inline(always)]
pub fn mask(bits: u32) -> u64 {
    // Branch-free; `bits` is 1 to 64 for every type (0 gives all ones).
    u64::MAX >> (64u32.wrapping_sub(bits) & 63)
}

/// `v` truncated to its low `bits` bits.
#[inline(always)]
pub fn truncate(v: u64, bits: u32) -> u64 {
    v & mask(bits)
}

/// The low `bits` bits of `v` read as a two's-complement number.
#[inline(always)]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else if bits == 0 {
        0
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// Whether `r` is representable as a signed integer of `bits` bits.
#[inline]
fn fits_signed(r: i128, bits: u32) -> bool {
    let half = 1i128 << (bits.clamp(1, 64) - 1);
    -half <= r && r < half
}

/// A value of type `ty` read as a float (`f32` widened exactly to `f64`).
/// Integers are read as the `f64` of their bits, which only malformed
/// programs ask for.
#[inline]
pub fn to_float(ty: Type, v: u64) -> f64 {
    if ty == Type::F32 {
        f64::from(f32::from_bits(v as u32))
    } else {
        f64::from_bits(v)
    }
}

/// The register bits of the float `f` of type `ty` (`f32` rounds to
/// nearest).
#[inline]
pub fn from_float(ty: Type, f: f64) -> u64 {
    if ty == Type::F32 {
        u64::from((f as f32).to_bits())
    } else {
        f.to_bits()
    }
}

/// `op ty a, b`: the result of a binary operator (`0`/`1` for the overflow
/// predicates). Operands are register values of type `ty`.
#[inline]
pub fn eval_bin(op: BinOp, ty: Type, a: u64, b: u64, dm: DataModel) -> u64 {
    eval_bin_bits(op, ty.bits(dm), a, b)
}

/// [`eval_bin`] on operands of `bits` bits (for the float operators, 32
/// means `f32` and anything else `f64`).
#[inline]
pub fn eval_bin_bits(op: BinOp, bits: u32, a: u64, b: u64) -> u64 {
    let m = mask(bits);
    match op {
        BinOp::Add => a.wrapping_add(b) & m,
        BinOp::Sub => a.wrapping_sub(b) & m,
        BinOp::Mul => a.wrapping_mul(b) & m,
        BinOp::And => a & b & m,
        BinOp::Or => (a | b) & m,
        BinOp::Xor => (a ^ b) & m,
        BinOp::UDiv => (a & m).checked_div(b & m).unwrap_or(0),
        BinOp::URem => {
            let (a, b) = (a & m, b & m);
            if b == 0 {
                a
            } else {
                a % b
            }
        }
        BinOp::SDiv => {
            let (x, y) = (sext(a, bits), sext(b, bits));
            if y == 0 {
                0
            } else {
                // i64::MIN / -1 wraps to MIN; narrower MIN / -1 gives
                // 2^(bits-1), which truncates to MIN as well.
                (x.wrapping_div(y) as u64) & m
            }
        }
        BinOp::SRem => {
            let (x, y) = (sext(a, bits), sext(b, bits));
            if y == 0 {
                a & m
            } else {
                (x.wrapping_rem(y) as u64) & m
            }
        }
        BinOp::Shl => (a << shift_amount(b, bits, m)) & m,
        BinOp::LShr => (a & m) >> shift_amount(b, bits, m),
        BinOp::AShr => ((sext(a, bits) >> shift_amount(b, bits, m)) as u64) & m,
        BinOp::SAddO => {
            let r = i128::from(sext(a, bits)) + i128::from(sext(b, bits));
            u64::from(!fits_signed(r, bits))
        }
        BinOp::UAddO => {
            let r = u128::from(a & m) + u128::from(b & m);
            u64::from(r > u128::from(m))
        }
        BinOp::SSubO => {
            let r = i128::from(sext(a, bits)) - i128::from(sext(b, bits));
            u64::from(!fits_signed(r, bits))
        }
        BinOp::USubO => u64::from((a & m) < (b & m)),
        BinOp::SMulO => {
            let r = i128::from(sext(a, bits)) * i128::from(sext(b, bits));
            u64::from(!fits_signed(r, bits))
        }
        BinOp::UMulO => {
            let r = u128::from(a & m) * u128::from(b & m);
            u64::from(r > u128::from(m))
        }
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => {
            eval_fbin(op, if bits == 32 { Type::F32 } else { Type::F64 }, a, b)
        }
    }
}

/// The shift amount of `b` for a `bits`-wide shift: modulo the width
/// (every integer width is a power of two).
#[inline(always)]
fn shift_amount(b: u64, bits: u32, m: u64) -> u32 {
    (b & m & u64::from(bits.wrapping_sub(1) & 63)) as u32
}

/// IEEE arithmetic in the precision of `ty` (`f32` math in `f32`); `frem` is
/// C's `fmod`.
#[inline]
pub fn eval_fbin(op: BinOp, ty: Type, a: u64, b: u64) -> u64 {
    if ty == Type::F32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match op {
            BinOp::FAdd => x + y,
            BinOp::FSub => x - y,
            BinOp::FMul => x * y,
            BinOp::FDiv => x / y,
            _ => x % y,
        };
        u64::from(r.to_bits())
    } else {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let r = match op {
            BinOp::FAdd => x + y,
            BinOp::FSub => x - y,
            BinOp::FMul => x * y,
            BinOp::FDiv => x / y,
            _ => x % y,
        };
        r.to_bits()
    }
}

/// `op ty a`: the result of a unary operator.
#[inline]
pub fn eval_un(op: UnOp, ty: Type, a: u64, dm: DataModel) -> u64 {
    eval_un_bits(op, ty.bits(dm), a)
}

/// [`eval_un`] on an operand of `bits` bits.
#[inline]
pub fn eval_un_bits(op: UnOp, bits: u32, a: u64) -> u64 {
    let m = mask(bits);
    let a = a & m;
    match op {
        UnOp::Bswap => match bits {
            16 => u64::from((a as u16).swap_bytes()),
            32 => u64::from((a as u32).swap_bytes()),
            64 => a.swap_bytes(),
            _ => a,
        },
        UnOp::Ctpop => u64::from(a.count_ones()),
        UnOp::Ctlz => {
            if a == 0 {
                u64::from(bits)
            } else {
                u64::from(a.leading_zeros() - (64 - bits))
            }
        }
        UnOp::Cttz => {
            if a == 0 {
                u64::from(bits)
            } else {
                u64::from(a.trailing_zeros())
            }
        }
        UnOp::FNeg => a ^ (1u64 << (bits.max(1) - 1)),
    }
}

/// `cmp pred ty a, b`.
#[inline]
pub fn eval_cmp(pred: CmpPred, ty: Type, a: u64, b: u64, dm: DataModel) -> bool {
    eval_cmp_bits(pred, ty.bits(dm), a, b)
}

/// [`eval_cmp`] on operands of `bits` bits (for float predicates, 32 means
/// `f32` and anything else `f64`).
#[inline]
pub fn eval_cmp_bits(pred: CmpPred, bits: u32, a: u64, b: u64) -> bool {
    let m = mask(bits);
    let ty = if bits == 32 { Type::F32 } else { Type::F64 };
    match pred {
        CmpPred::Eq => a & m == b & m,
        CmpPred::Ne => a & m != b & m,
        CmpPred::Ult => a & m < b & m,
        CmpPred::Ule => a & m <= b & m,
        CmpPred::Ugt => a & m > b & m,
        CmpPred::Uge => a & m >= b & m,
        CmpPred::Slt => sext(a, bits) < sext(b, bits),
        CmpPred::Sle => sext(a, bits) <= sext(b, bits),
        CmpPred::Sgt => sext(a, bits) > sext(b, bits),
        CmpPred::Sge => sext(a, bits) >= sext(b, bits),
        _ => eval_fcmp(pred, to_float(ty, a), to_float(ty, b)),
    }
}

/// A float comparison (ordered predicates are false on NaN, unordered ones
/// true).
#[inline]
pub fn eval_fcmp(pred: CmpPred, x: f64, y: f64) -> bool {
    let uno = x.is_nan() || y.is_nan();
    match pred {
        CmpPred::FOeq => x == y,
        CmpPred::FOne => !uno && x != y,
        CmpPred::FOlt => x < y,
        CmpPred::FOle => x <= y,
        CmpPred::FOgt => x > y,
        CmpPred::FOge => x >= y,
        CmpPred::FUeq => uno || x == y,
        CmpPred::FUne => x != y,
        CmpPred::FUlt => uno || x < y,
        CmpPred::FUle => uno || x <= y,
        CmpPred::FUgt => uno || x > y,
        CmpPred::FUge => uno || x >= y,
        CmpPred::FOrd => !uno,
        CmpPred::FUno => uno,
        // Integer predicates are handled by `eval_cmp`; on floats they
        // compare the values numerically.
        CmpPred::Eq => x == y,
        CmpPred::Ne => x != y,
        CmpPred::Ult | CmpPred::Slt => x < y,
        CmpPred::Ule | CmpPred::Sle => x <= y,
        CmpPred::Ugt | CmpPred::Sgt => x > y,
        CmpPred::Uge | CmpPred::Sge => x >= y,
    }
}

/// x86 `cvttsd2si` with a 32-bit destination: truncation toward zero, and
/// the "integer indefinite" `0x8000_0000` for NaN and out-of-range values.
#[inline]
pub fn cvtt_i32(f: f64) -> i32 {
    let t = f.trunc();
    if t.is_nan() || !(-2147483648.0..2147483648.0).contains(&t) {
        i32::MIN
    } else {
        t as i32
    }
}

/// x87 `fistp` with a 16-bit destination under truncation, as `gcc -m32`
/// converts floats to `signed char`, `unsigned char` and `short`: the
/// "integer indefinite" `0x8000` for NaN and out-of-range values.
#[inline]
pub fn cvtt_i16(f: f64) -> i16 {
    let t = f.trunc();
    if t.is_nan() || !(-32768.0..32768.0).contains(&t) {
        i16::MIN
    } else {
        t as i16
    }
}

/// x86 `cvttsd2si` with a 64-bit destination: truncation toward zero, and
/// `0x8000_0000_0000_0000` for NaN and out-of-range values.
#[inline]
pub fn cvtt_i64(f: f64) -> i64 {
    let t = f.trunc();
    if t.is_nan() || !(-9223372036854775808.0..9223372036854775808.0).contains(&t) {
        i64::MIN
    } else {
        t as i64
    }
}

/// `fptosi` to an integer of `bits` bits, as gcc compiles it for x86-64:
/// up to 32 bits through a 32-bit `cvttsd2si` (then truncated), 64 bits
/// through a 64-bit one. Out of range or NaN gives the integer indefinite
/// value (`0x80…0` of the conversion width, truncated).
#[inline]
pub fn fp_to_si(f: f64, bits: u32) -> u64 {
    let v = if bits <= 32 { cvtt_i32(f) as u32 as u64 } else { cvtt_i64(f) as u64 };
    truncate(v, bits)
}

/// `fptoui` to an integer of `bits` bits, as gcc `-O0` compiles it for
/// x86-64: 8 and 16 bits through a 32-bit `cvttsd2si`, 32 bits through a
/// 64-bit one (so negative values wrap: `-1.0` gives `0xffffffff`), 64 bits
/// by converting `f - 2^63` (then flipping the top bit) when `f >= 2^63`,
/// else `f` itself (NaN gives `0x8000_0000_0000_0000`). Exact for every
/// in-range value; out-of-range results match gcc-compiled code too.
#[inline]
pub fn fp_to_ui(f: f64, bits: u32) -> u64 {
    const TWO63: f64 = 9223372036854775808.0;
    let v = match bits {
        0..=16 => cvtt_i32(f) as u32 as u64,
        17..=32 => cvtt_i64(f) as u64,
        _ => {
            // `comisd` + `jnb`: NaN takes the first path.
            if f >= TWO63 {
                (cvtt_i64(f - TWO63) as u64) ^ (1u64 << 63)
            } else {
                cvtt_i64(f) as u64
            }
        }
    };
    truncate(v, bits)
}

/// `op from a to to`: a conversion.
#[inline]
pub fn eval_cast(op: CastOp, from: Type, to: Type, a: u64, dm: DataModel) -> u64 {
    let fb = from.bits(dm);
    let tb = to.bits(dm);
    match op {
        CastOp::Trunc | CastOp::ZExt | CastOp::PtrToInt | CastOp::IntToPtr => truncate(a & mask(fb), tb),
        CastOp::SExt => truncate(sext(a, fb) as u64, tb),
        CastOp::FpToSi if dm == DataModel::ILP32 && tb <= 16 => truncate(cvtt_i16(to_float(from, a)) as u16 as u64, tb),
        CastOp::FpToUi if dm == DataModel::ILP32 && tb <= 8 => truncate(cvtt_i16(to_float(from, a)) as u16 as u64, tb),
        CastOp::FpToSi => fp_to_si(to_float(from, a), tb),
        CastOp::FpToUi => fp_to_ui(to_float(from, a), tb),
        CastOp::UiToFp => {
            let v = a & mask(fb);
            if to == Type::F32 {
                u64::from((v as f32).to_bits())
            } else {
                (v as f64).to_bits()
            }
        }
        CastOp::SiToFp => {
            let v = sext(a, fb);
            if to == Type::F32 {
                u64::from((v as f32).to_bits())
            } else {
                (v as f64).to_bits()
            }
        }
        CastOp::FpTrunc | CastOp::FpExt => from_float(to, to_float(from, a)),
        CastOp::Bitcast => truncate(a, tb),
    }
}

/// `select c, t, f`.
#[inline(always)]
pub fn eval_select(c: u64, t: u64, f: u64) -> u64 {
    if c & 1 != 0 {
        t
    } else {
        f
    }
}

/// `ptradd base, offset`: wrapping addition at pointer width.
#[inline(always)]
pub fn eval_ptradd(base: u64, offset: u64, dm: DataModel) -> u64 {
    truncate(base.wrapping_add(offset), dm.pointer_bits())
}

/// `fabs` in the precision of `ty`.
pub fn eval_fabs(ty: Type, a: u64) -> u64 {
    if ty == Type::F32 {
        a & 0x7fff_ffff
    } else {
        a & !(1u64 << 63)
    }
}

/// `sqrt` in the precision of `ty` (correctly rounded, as SSE does).
pub fn eval_sqrt(ty: Type, a: u64) -> u64 {
    if ty == Type::F32 {
        u64::from(f32::from_bits(a as u32).sqrt().to_bits())
    } else {
        f64::from_bits(a).sqrt().to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const DM: DataModel = DataModel::LP64;

    #[test]
    fn division_edge_cases() {
        let min = 0x8000_0000u64;
        let m1 = 0xffff_ffffu64;
        assert_eq!(eval_bin(BinOp::SDiv, Type::I32, min, m1, DM), min);
        assert_eq!(eval_bin(BinOp::SRem, Type::I32, min, m1, DM), 0);
        assert_eq!(eval_bin(BinOp::SDiv, Type::I64, 1 << 63, u64::MAX, DM), 1 << 63);
        assert_eq!(eval_bin(BinOp::UDiv, Type::I8, 7, 0, DM), 0);
        assert_eq!(eval_bin(BinOp::URem, Type::I8, 7, 0, DM), 7);
        assert_eq!(eval_bin(BinOp::SRem, Type::I32, (-7i32) as u32 as u64, 2, DM), (-1i32) as u32 as u64);
    }

    /// Expected values printed by a gcc -O0 x86-64 build of casts of these
    /// doubles to u64, u32, u16, u8 and (signed char).
    #[test]
    fn float_to_int_matches_gcc() {
        let rows: [(f64, u64, u64, u64, u64, u64); 12] = [
            (f64::NAN, 0x8000000000000000, 0, 0, 0, 0),
            (-1.0, 0xffffffffffffffff, 0xffffffff, 0xffff, 0xff, 0xff),
            (-3.9, 0xfffffffffffffffd, 0xfffffffd, 0xfffd, 0xfd, 0xfd),
            (1e20, 0, 0, 0, 0, 0),
            (1.8446744073709552e19, 0, 0, 0, 0, 0),
            (3e9, 0xb2d05e00, 0xb2d05e00, 0, 0, 0),
            (9.3e18, 0x81103cb9fb220000, 0, 0, 0, 0),
            (-1e19, 0x8000000000000000, 0, 0, 0, 0),
            (70000.5, 0x11170, 0x11170, 0x1170, 0x70, 0x70),
            (300.7, 0x12c, 0x12c, 0x12c, 0x2c, 0x2c),
            (-300.7, 0xfffffffffffffed4, 0xfffffed4, 0xfed4, 0xd4, 0xd4),
            (5e9, 0x12a05f200, 0x2a05f200, 0, 0, 0),
        ];
        for (f, u64_, u32_, u16_, u8_, s8) in rows {
            assert_eq!(fp_to_ui(f, 64), u64_, "{f} u64");
            assert_eq!(fp_to_ui(f, 32), u32_, "{f} u32");
            assert_eq!(fp_to_ui(f, 16), u16_, "{f} u16");
            assert_eq!(fp_to_ui(f, 8), u8_, "{f} u8");
            assert_eq!(fp_to_si(f, 8), s8, "{f} s8");
        }
    }

    #[test]
    fn float_to_int() {
        assert_eq!(fp_to_si(1e20, 32), 0x8000_0000);
        assert_eq!(fp_to_si(f64::NAN, 64), 1 << 63);
        assert_eq!(fp_to_si(-3.9, 8), 0xfd);
        assert_eq!(fp_to_ui(-1.0, 32), 0xffff_ffff);
        assert_eq!(fp_to_ui(1.8446744073709552e19 - 4096.0, 64), 18446744073709547520);
        assert_eq!(fp_to_ui(3e9, 32), 3_000_000_000);
        assert_eq!(fp_to_ui(f64::NAN, 64), 1 << 63);
    }
}
