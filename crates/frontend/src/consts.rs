//! Constants: global initial contents (bytes plus relocations) and the
//! constant addresses (`@g`, constant GEPs and casts of them) that appear as
//! operands.

use crate::module::{ModuleCx, Sym};
use llvm_ir::constant::Float;
use llvm_ir::{Constant, ConstantRef, Type as LType, TypeRef};
use walkdown_ir::{Reloc, RelocTarget};

/// The initial bytes of a global: grown as constants are written, so that
/// a huge zero-initialized object costs nothing; `size` is the object's.
pub struct InitBuf {
    /// The bytes written so far (zeros up to the last written byte).
    pub bytes: Vec<u8>,
    /// The size of the object.
    pub size: u64,
}

/// Writes constant `c` of type `ty` into `buf` at `off`.
pub fn write_initializer(
    cx: &ModuleCx<'_>,
    c: &ConstantRef,
    ty: &TypeRef,
    buf: &mut InitBuf,
    off: u64,
    relocs: &mut Vec<Reloc>,
) -> Result<(), String> {
    let ty = cx.layout.resolve(ty)?;
    match c.as_ref() {
        Constant::Int { bits, .. } if *bits > crate::layout::MAX_WIDE_BITS => {
            Err(format!("a {bits}-bit integer constant (wider than {} bits)", crate::layout::MAX_WIDE_BITS))
        }
        Constant::Int { bits, value } if *bits > 64 => {
            // The llvm-ir crate keeps only the low 64 bits; the text has
            // the rest (see `wideconst.rs`).
            let v = cx.wide_consts.resolve(*bits, *value, "", None)?;
            let bytes: Vec<u8> = v.iter().flat_map(|l| l.to_le_bytes()).collect();
            put(buf, off, &bytes[..bits.div_ceil(8) as usize])
        }
        Constant::Int { bits, value } => {
            let n = bits.div_ceil(8) as usize;
            put(buf, off, &value.to_le_bytes()[..n.min(8)])
        }
        Constant::Float(Float::Single(f)) => put(buf, off, &f.to_le_bytes()),
        Constant::Float(Float::Double(f)) => put(buf, off, &f.to_le_bytes()),
        Constant::Float(Float::X86_FP80) => {
            let v = cx.f80_consts.resolve(c)?;
            let mut bytes = v.significand.to_le_bytes().to_vec();
            bytes.extend(v.sign_exponent.to_le_bytes());
            put(buf, off, &bytes)
        }
        Constant::Float(other) => Err(format!("floating-point constant {other:?}")),
        Constant::Null(_) | Constant::AggregateZero(_) | Constant::Undef(_) | Constant::Poison(_) => Ok(()),
        Constant::Array { element_type, elements } => {
            let stride = cx.layout.size_of(element_type)?;
            for (i, e) in elements.iter().enumerate() {
                write_initializer(cx, e, element_type, buf, off + stride * i as u64, relocs)?;
            }
            Ok(())
        }
        Constant::Struct { values, is_packed, .. } => {
            let fields = match ty.as_ref() {
                LType::StructType { element_types, .. } => element_types.clone(),
                other => return Err(format!("struct constant of type {other}")),
            };
            let (_, offsets) = cx.layout.struct_layout(&fields, *is_packed)?;
            for ((v, t), o) in values.iter().zip(&fields).zip(offsets) {
                write_initializer(cx, v, t, buf, off + o, relocs)?;
            }
            Ok(())
        }
        Constant::IntToPtr(c2) => match c2.operand.as_ref() {
            Constant::Int { value, .. } => {
                let n = cx.layout.dm.pointer_bytes() as usize;
                put(buf, off, &value.to_le_bytes()[..n])
            }
            other => Err(format!("integer-to-pointer constant {other}")),
        },
        _ => match const_address(cx, c)? {
            Some((sym, addend)) => {
                let target = match sym {
                    Sym::Global(g) => RelocTarget::Global(g),
                    Sym::Func(f) => RelocTarget::Func(f),
                };
                relocs.push(Reloc { offset: off, target, addend });
                Ok(())
            }
            None => match eval_int(cx, c)? {
                CVal::Int { bits, value } => {
                    let n = bits.div_ceil(8) as usize;
                    put(buf, off, &value.to_le_bytes()[..n.min(8)])
                }
                CVal::Addr(..) => Err(format!("constant expression {c}")),
            },
        },
    }
}

fn put(buf: &mut InitBuf, off: u64, bytes: &[u8]) -> Result<(), String> {
    let end = off.checked_add(bytes.len() as u64).filter(|&e| e <= buf.size);
    let Some(end) = end else { return Err("initializer larger than its object".into()) };
    if bytes.iter().all(|&b| b == 0) && end as usize > buf.bytes.len() {
        // Zeros past the written part are already there.
        return Ok(());
    }
    let (start, end) = (off as usize, end as usize);
    if end > buf.bytes.len() {
        buf.bytes.resize(end, 0);
    }
    buf.bytes[start..end].copy_from_slice(bytes);
    Ok(())
}

/// The symbol and byte offset a constant address denotes, if `c` is one.
pub fn const_address(cx: &ModuleCx<'_>, c: &ConstantRef) -> Result<Option<(Sym, i64)>, String> {
    match c.as_ref() {
        Constant::GlobalReference { name, .. } => {
            let n = crate::module::name_text(name);
            match cx.syms.get(&n) {
                Some(s) => Ok(Some((*s, 0))),
                None => Err(format!("reference to unknown symbol @{n}")),
            }
        }
        Constant::BitCast(b) => const_address(cx, &b.operand),
        Constant::AddrSpaceCast(b) => const_address(cx, &b.operand),
        Constant::PtrToInt(p) => const_address(cx, &p.operand),
        Constant::GetElementPtr(g) => {
            let Some((sym, base)) = const_address(cx, &g.address)? else { return Ok(None) };
            let addr_ty = cx.module.types.type_of(&g.address);
            let LType::PointerType { pointee_type, .. } = addr_ty.as_ref() else {
                return Err("GEP on a non-pointer".into());
            };
            let mut indices = Vec::with_capacity(g.indices.len());
            for i in &g.indices {
                match i.as_ref() {
                    Constant::Int { bits, value } => indices.push(sign_extend(*value, *bits)),
                    other => return Err(format!("non-constant GEP index {other}")),
                }
            }
            Ok(Some((sym, base + constant_gep_offset(cx, pointee_type, &indices)?)))
        }
        _ => Ok(None),
    }
}

/// The byte offset of a GEP with constant indices over `source_ty`.
pub fn constant_gep_offset(cx: &ModuleCx<'_>, source_ty: &TypeRef, indices: &[i64]) -> Result<i64, String> {
    let mut off: i64 = 0;
    let mut ty = source_ty.clone();
    for (n, &i) in indices.iter().enumerate() {
        if n == 0 {
            off = off.wrapping_add(i.wrapping_mul(cx.layout.size_of(&ty)? as i64));
            continue;
        }
        let resolved = cx.layout.resolve(&ty)?;
        match resolved.as_ref() {
            LType::StructType { .. } => {
                let (o, t) = cx.layout.field_offset(&resolved, i as u64)?;
                off = off.wrapping_add(o as i64);
                ty = t;
            }
            LType::ArrayType { element_type, .. } | LType::VectorType { element_type, .. } => {
                off = off.wrapping_add(i.wrapping_mul(cx.layout.size_of(element_type)? as i64));
                ty = element_type.clone();
            }
            other => return Err(format!("GEP into {other}")),
        }
    }
    Ok(off)
}

/// The value of a constant expression in an initializer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CVal {
    /// An integer of `bits` bits (zero-extended in `value`).
    Int { bits: u32, value: u64 },
    /// The address of a symbol plus a byte offset.
    Addr(Sym, i64),
}

/// Folds an integer constant expression of an initializer: integers,
/// addresses, comparisons of addresses (`&a[3][1] == &b[0][2]`, which
/// clang leaves unfolded), casts, bitwise and arithmetic operators and
/// `select`. Two distinct objects never share an address, so addresses of
/// different symbols compare unequal (as gcc folds them); their order is
/// not known before layout, so an ordered comparison of them is refused.
pub fn eval_int(cx: &ModuleCx<'_>, c: &ConstantRef) -> Result<CVal, String> {
    use llvm_ir::IntPredicate as P;
    let int = |c: &ConstantRef| -> Result<(u32, u64), String> {
        match eval_int(cx, c)? {
            CVal::Int { bits, value } => Ok((bits, value)),
            CVal::Addr(..) => Err(format!("an address used as an integer in {c}")),
        }
    };
    let width = |t: &TypeRef| match t.as_ref() {
        LType::IntegerType { bits } if *bits <= 64 => Ok(*bits),
        other => Err(format!("constant of type {other}")),
    };
    let mask = |v: u64, bits: u32| if bits >= 64 { v } else { v & ((1u64 << bits) - 1) };
    Ok(match c.as_ref() {
        Constant::Int { bits, value } if *bits <= 64 => CVal::Int { bits: *bits, value: mask(*value, *bits) },
        Constant::Null(_) => CVal::Int { bits: cx.layout.dm.pointer_bits(), value: 0 },
        Constant::ICmp(i) => {
            let (a, b) = (eval_int(cx, &i.operand0)?, eval_int(cx, &i.operand1)?);
            let r = match (a, b) {
                (CVal::Int { bits, value: x }, CVal::Int { value: y, .. }) => {
                    let (sx, sy) = (sign_extend(x, bits), sign_extend(y, bits));
                    match i.predicate {
                        P::EQ => x == y,
                        P::NE => x != y,
                        P::UGT => x > y,
                        P::UGE => x >= y,
                        P::ULT => x < y,
                        P::ULE => x <= y,
                        P::SGT => sx > sy,
                        P::SGE => sx >= sy,
                        P::SLT => sx < sy,
                        P::SLE => sx <= sy,
                    }
                }
                (CVal::Addr(s1, o1), CVal::Addr(s2, o2)) if s1 == s2 => match i.predicate {
                    P::EQ => o1 == o2,
                    P::NE => o1 != o2,
                    P::UGT | P::SGT => o1 > o2,
                    P::UGE | P::SGE => o1 >= o2,
                    P::ULT | P::SLT => o1 < o2,
                    P::ULE | P::SLE => o1 <= o2,
                },
                (CVal::Addr(..), _) | (_, CVal::Addr(..)) => match i.predicate {
                    P::EQ => false,
                    P::NE => true,
                    _ => return Err(format!("ordered comparison of the addresses of different objects {c}")),
                },
            };
            CVal::Int { bits: 1, value: u64::from(r) }
        }
        Constant::ZExt(x) => CVal::Int { bits: width(&x.to_type)?, value: int(&x.operand)?.1 },
        Constant::SExt(x) => {
            let (from, v) = int(&x.operand)?;
            let to = width(&x.to_type)?;
            CVal::Int { bits: to, value: mask(sign_extend(v, from) as u64, to) }
        }
        Constant::Trunc(x) => {
            let to = width(&x.to_type)?;
            CVal::Int { bits: to, value: mask(int(&x.operand)?.1, to) }
        }
        Constant::Select(x) => {
            if int(&x.condition)?.1 != 0 {
                eval_int(cx, &x.true_value)?
            } else {
                eval_int(cx, &x.false_value)?
            }
        }
        Constant::Add(x) => bin(int(&x.operand0)?, int(&x.operand1)?, u64::wrapping_add),
        Constant::Sub(x) => bin(int(&x.operand0)?, int(&x.operand1)?, u64::wrapping_sub),
        Constant::Mul(x) => bin(int(&x.operand0)?, int(&x.operand1)?, u64::wrapping_mul),
        Constant::And(x) => bin(int(&x.operand0)?, int(&x.operand1)?, |a, b| a & b),
        Constant::Or(x) => bin(int(&x.operand0)?, int(&x.operand1)?, |a, b| a | b),
        Constant::Xor(x) => bin(int(&x.operand0)?, int(&x.operand1)?, |a, b| a ^ b),
        _ => match const_address(cx, c)? {
            Some((sym, off)) => CVal::Addr(sym, off),
            None => return Err(format!("constant expression {c}")),
        },
    })
}

fn bin((bits, a): (u32, u64), (_, b): (u32, u64), f: impl Fn(u64, u64) -> u64) -> CVal {
    let v = f(a, b);
    CVal::Int { bits, value: if bits >= 64 { v } else { v & ((1u64 << bits) - 1) } }
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}
