//! Models of C library functions shared by the interpreter and the concolic
//! engine, so the two run them alike: string searches and concatenations,
//! and the rounding, remainder and absolute-value functions of `<math.h>`
//! and `<stdlib.h>`. (Input functions are the C library's code, reading the
//! environment's streams: see the frontend's `runtime/libc/env.c`.)
//!
//! String functions read and write exactly the bytes their C definition
//! does (up to the terminator, the first match or the count), through
//! [`Memory`]'s checked accessors, so an overrun is reported as the access
//! that faults.

use crate::memory::{MemFault, Memory};
use walkdown_ir::{Builtin, CheckKind, Type};

/// What a model did: its result, and the bytes it wrote (the concolic
/// engine forgets the symbolic values of those bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibcEffect {
    /// The result bits (before truncation to the caller's type).
    pub value: u64,
    /// `(address, length)` of the bytes written, if any.
    pub written: Option<(u64, u64)>,
}

impl LibcEffect {
    fn value(value: u64) -> LibcEffect {
        LibcEffect { value, written: None }
    }
}

/// Whether [`call`] models `b` (the other builtins stay with their engine).
pub fn is_shared(b: Builtin) -> bool {
    arity(b).is_some()
}

/// How many arguments the model of `b` reads, if [`call`] models it.
pub fn arity(b: Builtin) -> Option<usize> {
    Some(match b {
        Builtin::Abs => 1,
        Builtin::Floor | Builtin::Ceil | Builtin::Trunc | Builtin::Round | Builtin::Rint => 1,
        Builtin::Fmod | Builtin::Copysign => 2,
        Builtin::Strcat | Builtin::Strrchr | Builtin::Strstr | Builtin::Strnlen => 2,
        Builtin::Strncat | Builtin::Memchr => 3,
        Builtin::Fwrite => 3,
        _ => return None,
    })
}

/// Runs the model of `b` on `args` (at least [`arity`] values, zero
/// extended). `ret` is the type the caller expects (the precision of the
/// float functions and the width of `abs`), `param0` the declared type of
/// the first parameter. `Err` is the access that faulted.
pub fn call(
    mem: &mut Memory,
    b: Builtin,
    args: &[u64],
    ret: Option<Type>,
    param0: Option<Type>,
) -> Result<LibcEffect, MemFault> {
    let a = |i: usize| args.get(i).copied().unwrap_or(0);
    let (a0, a1, a2) = (a(0), a(1), a(2));
    let fty = ret.or(param0).unwrap_or(Type::F64);
    Ok(match b {
        Builtin::Abs => {
            let bits = ret.or(param0).filter(|t| t.is_int()).map_or(32, |t| t.bits(walkdown_ir::DataModel::LP64));
            LibcEffect::value(sign_extend(a0, bits).wrapping_abs() as u64)
        }
        Builtin::Floor => LibcEffect::value(float1(fty, a0, f64::floor, f32::floor)),
        // Output: a write that succeeds, whatever it writes: `fwrite(p,
        // size, n, f)` returns n, and 0 for items of size 0 (glibc and
        // musl alike).
        Builtin::Fwrite => LibcEffect::value(if a1 == 0 { 0 } else { a2 }),
        Builtin::Ceil => LibcEffect::value(float1(fty, a0, f64::ceil, f32::ceil)),
        Builtin::Trunc => LibcEffect::value(float1(fty, a0, f64::trunc, f32::trunc)),
        // C's round: halfway cases away from zero, as Rust's.
        Builtin::Round => LibcEffect::value(float1(fty, a0, f64::round, f32::round)),
        // rint/nearbyint in the default rounding mode: to nearest, ties even.
        Builtin::Rint => LibcEffect::value(float1(fty, a0, f64::round_ties_even, f32::round_ties_even)),
        // Rust's float `%` is C's fmod (exact, sign of the dividend).
        Builtin::Fmod => LibcEffect::value(float2(fty, a0, a1, |x, y| x % y, |x, y| x % y)),
        Builtin::Copysign => LibcEffect::value(float2(fty, a0, a1, f64::copysign, f32::copysign)),
        Builtin::Strnlen => LibcEffect::value(scan(mem, a0, a1, |c| c == 0)?.unwrap_or(a1)),
        Builtin::Memchr => {
            let c = a1 as u8;
            LibcEffect::value(scan(mem, a0, a2, |x| x == c)?.map_or(0, |i| a0.wrapping_add(i)))
        }
        Builtin::Strrchr => {
            let s = string(mem, a0, u64::MAX)?;
            let c = a1 as u8;
            // The terminator is part of the string: strrchr(s, 0) finds it.
            let at = if c == 0 { Some(s.len()) } else { s.iter().rposition(|&x| x == c) };
            LibcEffect::value(at.map_or(0, |i| a0.wrapping_add(i as u64)))
        }
        Builtin::Strstr => {
            let hay = string(mem, a0, u64::MAX)?;
            let needle = string(mem, a1, u64::MAX)?;
            let at = if needle.is_empty() {
                Some(0)
            } else {
                hay.windows(needle.len()).position(|w| w == needle.as_slice())
            };
            LibcEffect::value(at.map_or(0, |i| a0.wrapping_add(i as u64)))
        }
        Builtin::Strcat | Builtin::Strncat => {
            let end = a0.wrapping_add(string(mem, a0, u64::MAX)?.len() as u64);
            let limit = if b == Builtin::Strncat { a2 } else { u64::MAX };
            let mut src = string(mem, a1, limit)?;
            src.push(0);
            mem.write_bytes(end, &src)?;
            LibcEffect { value: a0, written: Some((end, src.len() as u64)) }
        }
        _ => LibcEffect::value(0),
    })
}

/// `v`'s low `bits` bits as a signed number.
fn sign_extend(v: u64, bits: u32) -> i64 {
    let bits = bits.clamp(1, 64);
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn float1(ty: Type, a: u64, f: fn(f64) -> f64, g: fn(f32) -> f32) -> u64 {
    if ty == Type::F32 {
        u64::from(g(f32::from_bits(a as u32)).to_bits())
    } else {
        f(f64::from_bits(a)).to_bits()
    }
}

fn float2(ty: Type, a: u64, b: u64, f: fn(f64, f64) -> f64, g: fn(f32, f32) -> f32) -> u64 {
    if ty == Type::F32 {
        u64::from(g(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits())
    } else {
        f(f64::from_bits(a), f64::from_bits(b)).to_bits()
    }
}

/// The bytes of the string at `s`, without its terminator, reading at most
/// `limit` bytes (the terminator is not needed within them).
fn string(mem: &mut Memory, s: u64, limit: u64) -> Result<Vec<u8>, MemFault> {
    let n = scan(mem, s, limit, |c| c == 0)?.unwrap_or(limit);
    Ok(mem.bytes(s, n)?.to_vec())
}

/// The offset of the first of the `n` bytes at `s` that satisfies `hit`,
/// reading them in order and stopping there; `None` when none does. A scan
/// that leaves the object faults at the first byte outside it.
fn scan(mem: &mut Memory, s: u64, n: u64, hit: impl Fn(u8) -> bool) -> Result<Option<u64>, MemFault> {
    if n == 0 {
        return Ok(None);
    }
    let t = mem.tail(s)?;
    let lim = usize::try_from(n).unwrap_or(usize::MAX).min(t.len());
    if let Some(i) = t[..lim].iter().position(|&c| hit(c)) {
        return Ok(Some(i as u64));
    }
    if (lim as u64) == n {
        return Ok(None);
    }
    let addr = s.wrapping_add(t.len() as u64);
    // The byte after an object is at worst out of bounds, never "null".
    let kind = match mem.classify(addr) {
        CheckKind::NullDeref => CheckKind::OutOfBounds,
        k => k,
    };
    Err(MemFault { kind, addr })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::ObjectKind;
    use walkdown_ir::DataModel;

    fn buf(mem: &mut Memory, bytes: &[u8], size: u64) -> u64 {
        let (_, a) = mem.alloc(size, 16, ObjectKind::Heap, false).unwrap();
        mem.write_bytes(a, bytes).unwrap();
        a
    }

    #[test]
    fn strings() {
        let mut m = Memory::new(DataModel::LP64);
        let d = buf(&mut m, b"ab\0", 8);
        let s = buf(&mut m, b"cd\0", 3);
        let e = call(&mut m, Builtin::Strcat, &[d, s], Some(Type::Ptr), None).unwrap();
        assert_eq!((e.value, e.written), (d, Some((d + 2, 3))));
        assert_eq!(m.bytes(d, 5).unwrap(), b"abcd\0");
        // 8 bytes hold "abcd" and 3 more characters, not 4.
        let err = call(&mut m, Builtin::Strncat, &[d, s, 2], Some(Type::Ptr), None).unwrap();
        assert_eq!(m.bytes(d, 7).unwrap(), b"abcdcd\0");
        assert_eq!(err.written, Some((d + 4, 3)));
        assert_eq!(
            call(&mut m, Builtin::Strcat, &[d, s], Some(Type::Ptr), None).unwrap_err().kind,
            CheckKind::OutOfBounds
        );
        assert_eq!(call(&mut m, Builtin::Strrchr, &[d, u64::from(b'c')], None, None).unwrap().value, d + 4);
        assert_eq!(call(&mut m, Builtin::Strrchr, &[d, 0], None, None).unwrap().value, d + 6);
        assert_eq!(call(&mut m, Builtin::Strrchr, &[d, u64::from(b'z')], None, None).unwrap().value, 0);
        assert_eq!(call(&mut m, Builtin::Strstr, &[d, s], None, None).unwrap().value, d + 2);
        assert_eq!(call(&mut m, Builtin::Strnlen, &[d, 3], None, None).unwrap().value, 3);
        assert_eq!(call(&mut m, Builtin::Strnlen, &[d, 100], None, None).unwrap().value, 6);
        assert_eq!(call(&mut m, Builtin::Memchr, &[d, u64::from(b'd'), 4], None, None).unwrap().value, d + 3);
        assert_eq!(call(&mut m, Builtin::Memchr, &[d, u64::from(b'z'), 8], None, None).unwrap().value, 0);
        // Past the object without a match: the first byte outside faults.
        assert_eq!(call(&mut m, Builtin::Memchr, &[s, u64::from(b'z'), 4], None, None).unwrap_err().addr, s + 3);
        // No terminator inside the object.
        let u = buf(&mut m, b"xyz", 3);
        assert_eq!(call(&mut m, Builtin::Strnlen, &[u, 3], None, None).unwrap().value, 3);
        assert!(call(&mut m, Builtin::Strnlen, &[u, 4], None, None).is_err());
    }

    #[test]
    fn numbers() {
        let mut m = Memory::new(DataModel::LP64);
        let f = |b: Builtin, x: f64| {
            f64::from_bits(
                call(&mut Memory::new(DataModel::LP64), b, &[x.to_bits()], Some(Type::F64), None).unwrap().value,
            )
        };
        assert_eq!(f(Builtin::Floor, -2.5), -3.0);
        assert_eq!(f(Builtin::Ceil, -2.5), -2.0);
        assert_eq!(f(Builtin::Trunc, -2.7), -2.0);
        assert_eq!(f(Builtin::Round, 2.5), 3.0);
        assert_eq!(f(Builtin::Round, -2.5), -3.0);
        assert_eq!(f(Builtin::Rint, 2.5), 2.0);
        assert_eq!(f(Builtin::Rint, 3.5), 4.0);
        let fm =
            call(&mut m, Builtin::Fmod, &[(-7.5f64).to_bits(), 2.0f64.to_bits()], Some(Type::F64), None).unwrap().value;
        assert_eq!(f64::from_bits(fm), -1.5);
        let cs = call(
            &mut m,
            Builtin::Copysign,
            &[u64::from(1.5f32.to_bits()), u64::from((-0.0f32).to_bits())],
            Some(Type::F32),
            None,
        )
        .unwrap()
        .value;
        assert_eq!(f32::from_bits(cs as u32), -1.5);
        let abs =
            |v: u64, t: Type| call(&mut Memory::new(DataModel::LP64), Builtin::Abs, &[v], Some(t), None).unwrap().value;
        assert_eq!(abs(u64::from((-5i32) as u32), Type::I32) as u32, 5);
        assert_eq!(abs(0x8000_0000, Type::I32) as u32, 0x8000_0000);
        assert_eq!(abs((-9i64) as u64, Type::I64), 9);
    }
}
