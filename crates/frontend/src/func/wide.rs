//! Integers of 65 to 128 bits (`__int128`, the storage units of long runs
//! of packed bit-fields: `i72`, `i96`, `i120`), lowered to pairs of `i64`.
//!
//! The IR and every engine work on values of at most 64 bits; rather than
//! widening all of them (and slowing the common path), the lowering splits
//! a wide value into its low 64 bits and its high `n - 64` bits, the latter
//! kept zero-extended in an `i64` (as odd widths below 64 are kept in
//! their containers), and expands each operation into 64-bit ones: carries
//! for `add`/`sub`, a 64×64→128 product from 32-bit halves for `mul`,
//! funnel shifts, lexicographic comparisons and, for division, a
//! restoring division unrolled over the `n` bits. The interpreter, the
//! concolic tracer, the SMT terms and the bounded encoding then get wide
//! integers for free and exactly, with the semantics LLVM gives them.

use super::{FuncLowerer, Lowered, Res};
use crate::layout::{container, odd_int_bits, wide_bits};
use crate::wideconst::trunc128;
use llvm_ir::instruction::{self as li, Instruction as LI};
use llvm_ir::{Constant, ConstantRef, Name, Operand as LOp, Type as LType, TypeRef};
use walkdown_ir::testvec::truncate;
use walkdown_ir::{BinOp, CastOp, CheckKind, CmpPred, Const, InstKind, Operand, Type};

/// A wide value: the low 64 bits and the high `bits - 64` bits
/// (zero-extended), both `i64` operands.
#[derive(Clone, Copy, Debug)]
pub(super) struct Wide {
    pub lo: Operand,
    pub hi: Operand,
    pub bits: u32,
}

fn c64(v: u64) -> Operand {
    Operand::Const(Const { ty: Type::I64, bits: v })
}

/// Whether instruction `ins` involves a wide integer (as an operand or a
/// result), so that [`FuncLowerer::lower_wide`] must lower it.
pub(super) fn involves_wide(fl: &FuncLowerer<'_, '_>, ins: &LI) -> bool {
    let ty = |op: &LOp| wide_bits(&fl.type_of_op(op)).is_some();
    let t = |t: &TypeRef| wide_bits(t).is_some();
    match ins {
        LI::Add(i) => ty(&i.operand0),
        LI::Sub(i) => ty(&i.operand0),
        LI::Mul(i) => ty(&i.operand0),
        LI::UDiv(i) => ty(&i.operand0),
        LI::SDiv(i) => ty(&i.operand0),
        LI::URem(i) => ty(&i.operand0),
        LI::SRem(i) => ty(&i.operand0),
        LI::And(i) => ty(&i.operand0),
        LI::Or(i) => ty(&i.operand0),
        LI::Xor(i) => ty(&i.operand0),
        LI::Shl(i) => ty(&i.operand0),
        LI::LShr(i) => ty(&i.operand0),
        LI::AShr(i) => ty(&i.operand0),
        LI::ICmp(i) => ty(&i.operand0),
        LI::Trunc(i) => ty(&i.operand) || t(&i.to_type),
        LI::ZExt(i) => ty(&i.operand) || t(&i.to_type),
        LI::SExt(i) => ty(&i.operand) || t(&i.to_type),
        LI::Select(i) => ty(&i.true_value),
        LI::FPToUI(i) => t(&i.to_type),
        LI::FPToSI(i) => t(&i.to_type),
        LI::UIToFP(i) => ty(&i.operand),
        LI::SIToFP(i) => ty(&i.operand),
        LI::Freeze(i) => ty(&i.operand),
        LI::Load(i) => matches!(fl.type_of_op(&i.address).as_ref(), LType::PointerType { pointee_type, .. } if t(pointee_type)),
        LI::Store(i) => ty(&i.value),
        _ => false,
    }
}

impl<'a, 'm> FuncLowerer<'a, 'm> {
    // ------------------------------------------------------------ 64-bit steps

    fn b64(&mut self, op: BinOp, lhs: Operand, rhs: Operand) -> Operand {
        self.emit_value(InstKind::Bin { op, ty: Type::I64, lhs, rhs })
    }

    fn cmp64(&mut self, pred: CmpPred, lhs: Operand, rhs: Operand) -> Operand {
        self.emit_value(InstKind::Cmp { pred, ty: Type::I64, lhs, rhs })
    }

    fn b1(&mut self, op: BinOp, lhs: Operand, rhs: Operand) -> Operand {
        self.emit_value(InstKind::Bin { op, ty: Type::I1, lhs, rhs })
    }

    fn sel(&mut self, ty: Type, cond: Operand, if_true: Operand, if_false: Operand) -> Operand {
        self.emit_value(InstKind::Select { ty, cond, if_true, if_false })
    }

    fn bool64(&mut self, b: Operand) -> Operand {
        self.emit_value(InstKind::Cast { op: CastOp::ZExt, from: Type::I1, to: Type::I64, arg: b })
    }

    /// `hi` with the bits above the value's width cleared.
    fn mask_hi(&mut self, hi: Operand, bits: u32) -> Operand {
        if bits >= 128 {
            hi
        } else {
            self.b64(BinOp::And, hi, c64(truncate(u64::MAX, bits - 64)))
        }
    }

    /// The high half sign-extended from the value's top bit over 64 bits.
    fn sext_hi(&mut self, w: Wide) -> Operand {
        if w.bits >= 128 {
            return w.hi;
        }
        let sh = c64(u64::from(128 - w.bits));
        let up = self.b64(BinOp::Shl, w.hi, sh);
        self.b64(BinOp::AShr, up, sh)
    }

    fn wide(&mut self, lo: Operand, hi: Operand, bits: u32) -> Wide {
        let hi = self.mask_hi(hi, bits);
        Wide { lo, hi, bits }
    }

    fn wconst(v: u128, bits: u32) -> Wide {
        let v = trunc128(v, bits);
        Wide { lo: c64(v as u64), hi: c64((v >> 64) as u64), bits }
    }

    // --------------------------------------------------------------- operands

    /// The wide value of `op` (of width `bits`).
    pub(super) fn wide_operand(&mut self, op: &LOp) -> Res<Wide> {
        match op {
            LOp::ConstantOperand(c) => self.wide_constant(c),
            _ => match self.lowered(op)? {
                Lowered::Wide(w) => Ok(w),
                _ => Err(self.unsupported("a wide integer value of another form")),
            },
        }
    }

    fn wide_constant(&mut self, c: &ConstantRef) -> Res<Wide> {
        let bits = wide_bits(&self.cx.module.types.type_of(c)).ok_or_else(|| self.unsupported(format!("constant {c} as a wide integer")))?;
        match c.as_ref() {
            Constant::Int { value, .. } => {
                let dest = self.cur_dest.map(crate::module::name_text);
                let v = self
                    .cx
                    .wide_consts
                    .resolve(bits, *value, &self.f.name, dest.as_deref())
                    .map_err(|e| self.unsupported(e))?;
                Ok(Self::wconst(v, bits))
            }
            // Reading an undefined value is undefined in C; zero, as for
            // narrower types.
            Constant::Undef(_) | Constant::Poison(_) | Constant::AggregateZero(_) => Ok(Self::wconst(0, bits)),
            other => Err(self.unsupported(format!("{bits}-bit constant expression {other}"))),
        }
    }

    /// A value of at most 64 bits (an IR operand of `from`, of LLVM width
    /// `n`) extended to a wide one.
    fn extend_narrow(&mut self, x: Operand, from: Type, n: u32, signed: bool, bits: u32) -> Wide {
        let mut x = x;
        if signed && n < from.bits(self.dm()) {
            x = self.sext_odd(from, x, n);
        }
        let lo = if from == Type::I64 {
            x
        } else {
            let op = if signed { CastOp::SExt } else { CastOp::ZExt };
            self.emit_value(InstKind::Cast { op, from, to: Type::I64, arg: x })
        };
        let hi = if signed { self.b64(BinOp::AShr, lo, c64(63)) } else { c64(0) };
        self.wide(lo, hi, bits)
    }

    // ------------------------------------------------------------ instructions

    /// Lowers an instruction [`involves_wide`] said involves a wide integer.
    pub(super) fn lower_wide(&mut self, ins: &'m LI) -> Res<()> {
        match ins {
            LI::Add(i) => self.wide_bin(BinOp::Add, &i.operand0, &i.operand1, &i.dest),
            LI::Sub(i) => self.wide_bin(BinOp::Sub, &i.operand0, &i.operand1, &i.dest),
            LI::Mul(i) => self.wide_bin(BinOp::Mul, &i.operand0, &i.operand1, &i.dest),
            LI::And(i) => self.wide_bin(BinOp::And, &i.operand0, &i.operand1, &i.dest),
            LI::Or(i) => self.wide_bin(BinOp::Or, &i.operand0, &i.operand1, &i.dest),
            LI::Xor(i) => self.wide_bin(BinOp::Xor, &i.operand0, &i.operand1, &i.dest),
            LI::Shl(i) => self.wide_bin(BinOp::Shl, &i.operand0, &i.operand1, &i.dest),
            LI::LShr(i) => self.wide_bin(BinOp::LShr, &i.operand0, &i.operand1, &i.dest),
            LI::AShr(i) => self.wide_bin(BinOp::AShr, &i.operand0, &i.operand1, &i.dest),
            LI::UDiv(i) => self.wide_div(BinOp::UDiv, &i.operand0, &i.operand1, &i.dest),
            LI::SDiv(i) => self.wide_div(BinOp::SDiv, &i.operand0, &i.operand1, &i.dest),
            LI::URem(i) => self.wide_div(BinOp::URem, &i.operand0, &i.operand1, &i.dest),
            LI::SRem(i) => self.wide_div(BinOp::SRem, &i.operand0, &i.operand1, &i.dest),
            LI::ICmp(i) => {
                let (a, b) = (self.wide_operand(&i.operand0)?, self.wide_operand(&i.operand1)?);
                let v = self.wide_cmp(super::int_pred(i.predicate), a, b);
                self.define(&i.dest, v);
                Ok(())
            }
            LI::Trunc(i) => self.wide_cast(CastOp::Trunc, &i.operand, &i.to_type, &i.dest),
            LI::ZExt(i) => self.wide_cast(CastOp::ZExt, &i.operand, &i.to_type, &i.dest),
            LI::SExt(i) => self.wide_cast(CastOp::SExt, &i.operand, &i.to_type, &i.dest),
            LI::FPToUI(_) | LI::FPToSI(_) => {
                let (operand, to_type, dest) = match ins {
                    LI::FPToUI(i) => (&i.operand, &i.to_type, &i.dest),
                    LI::FPToSI(i) => (&i.operand, &i.to_type, &i.dest),
                    _ => unreachable!("matched above"),
                };
                let from = self.scalar(&self.type_of_op(operand))?;
                let bits = wide_bits(to_type).ok_or_else(|| self.unsupported("a float conversion without a wide integer"))?;
                let x = self.operand(operand)?;
                let w = self.float_to_wide(x, from, matches!(ins, LI::FPToSI(_)), bits);
                self.locals.insert(dest, Lowered::Wide(w));
                Ok(())
            }
            LI::UIToFP(i) => {
                let to = self.scalar(&i.to_type)?;
                let w = self.wide_operand(&i.operand)?;
                let v = self.wide_to_float(w, false, to);
                self.define(&i.dest, v);
                Ok(())
            }
            LI::SIToFP(i) => {
                let to = self.scalar(&i.to_type)?;
                let w = self.wide_operand(&i.operand)?;
                let v = self.wide_to_float(w, true, to);
                self.define(&i.dest, v);
                Ok(())
            }
            LI::Select(i) => {
                let cond = self.operand(&i.condition)?;
                let (a, b) = (self.wide_operand(&i.true_value)?, self.wide_operand(&i.false_value)?);
                let lo = self.sel(Type::I64, cond, a.lo, b.lo);
                let hi = self.sel(Type::I64, cond, a.hi, b.hi);
                self.locals.insert(&i.dest, Lowered::Wide(Wide { lo, hi, bits: a.bits }));
                Ok(())
            }
            LI::Freeze(i) => {
                let w = self.wide_operand(&i.operand)?;
                self.locals.insert(&i.dest, Lowered::Wide(w));
                Ok(())
            }
            LI::Load(i) => {
                let bits = match self.type_of_op(&i.address).as_ref() {
                    LType::PointerType { pointee_type, .. } => wide_bits(pointee_type),
                    _ => None,
                }
                .ok_or_else(|| self.unsupported("a wide load through a non-pointer"))?;
                let ptr = self.operand(&i.address)?;
                let w = self.load_wide(ptr, bits);
                self.locals.insert(&i.dest, Lowered::Wide(w));
                Ok(())
            }
            LI::Store(i) => {
                let w = self.wide_operand(&i.value)?;
                let ptr = self.operand(&i.address)?;
                self.store_wide(ptr, w);
                Ok(())
            }
            other => Err(self.unsupported(format!("instruction `{}` on an integer wider than 64 bits", first_words(other)))),
        }
    }

    /// Loads the store size of a `bits`-bit integer (`ceil(bits / 8)`
    /// bytes, as LLVM and x86 do): 8 bytes of low half, the rest in
    /// pieces of 4, 2 and 1.
    pub(super) fn load_wide(&mut self, ptr: Operand, bits: u32) -> Wide {
        let lo = self.emit_value(InstKind::Load { ty: Type::I64, ptr });
        let rest = self.ptr_add_const(ptr, 8);
        let hi = self.load_odd(rest, bits - 64);
        let hi = if container(bits - 64) == Some(Type::I64) { hi } else { self.int_cast(hi, Type::I64, false) };
        Wide { lo, hi, bits }
    }

    pub(super) fn store_wide(&mut self, ptr: Operand, w: Wide) {
        self.emit(InstKind::Store { ty: Type::I64, ptr, value: w.lo });
        let rest = self.ptr_add_const(ptr, 8);
        self.store_odd(rest, w.hi, w.bits - 64);
    }

    fn wide_bin(&mut self, op: BinOp, a: &LOp, b: &LOp, dest: &'m Name) -> Res<()> {
        let (x, y) = (self.wide_operand(a)?, self.wide_operand(b)?);
        let bits = x.bits;
        let w = match op {
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let lo = self.b64(op, x.lo, y.lo);
                let hi = self.b64(op, x.hi, y.hi);
                Wide { lo, hi, bits }
            }
            BinOp::Add => self.wide_add(x, y),
            BinOp::Sub => self.wide_sub(x, y),
            BinOp::Mul => {
                let lo = self.b64(BinOp::Mul, x.lo, y.lo);
                let carry = self.mulhu(x.lo, y.lo);
                let c1 = self.b64(BinOp::Mul, x.lo, y.hi);
                let c2 = self.b64(BinOp::Mul, x.hi, y.lo);
                let h = self.b64(BinOp::Add, carry, c1);
                let h = self.b64(BinOp::Add, h, c2);
                self.wide(lo, h, bits)
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => self.wide_shift(op, x, y.lo),
            _ => return Err(self.unsupported(format!("{op} on a {bits}-bit integer"))),
        };
        self.locals.insert(dest, Lowered::Wide(w));
        Ok(())
    }

    fn wide_add(&mut self, x: Wide, y: Wide) -> Wide {
        let lo = self.b64(BinOp::Add, x.lo, y.lo);
        let c = self.cmp64(CmpPred::Ult, lo, x.lo);
        let c = self.bool64(c);
        let h = self.b64(BinOp::Add, x.hi, y.hi);
        let h = self.b64(BinOp::Add, h, c);
        self.wide(lo, h, x.bits)
    }

    fn wide_sub(&mut self, x: Wide, y: Wide) -> Wide {
        let lo = self.b64(BinOp::Sub, x.lo, y.lo);
        let br = self.cmp64(CmpPred::Ult, x.lo, y.lo);
        let br = self.bool64(br);
        let h = self.b64(BinOp::Sub, x.hi, y.hi);
        let h = self.b64(BinOp::Sub, h, br);
        self.wide(lo, h, x.bits)
    }

    fn wide_neg(&mut self, x: Wide) -> Wide {
        let zero = Self::wconst(0, x.bits);
        self.wide_sub(zero, x)
    }

    /// The high 64 bits of the 128-bit product of `x` and `y`, from the
    /// four products of their 32-bit halves.
    fn mulhu(&mut self, x: Operand, y: Operand) -> Operand {
        let m = c64(0xffff_ffff);
        let s = c64(32);
        let x0 = self.b64(BinOp::And, x, m);
        let x1 = self.b64(BinOp::LShr, x, s);
        let y0 = self.b64(BinOp::And, y, m);
        let y1 = self.b64(BinOp::LShr, y, s);
        let p00 = self.b64(BinOp::Mul, x0, y0);
        let p01 = self.b64(BinOp::Mul, x0, y1);
        let p10 = self.b64(BinOp::Mul, x1, y0);
        let p11 = self.b64(BinOp::Mul, x1, y1);
        // mid < 3 * 2^32: no overflow.
        let mid = self.b64(BinOp::LShr, p00, s);
        let a = self.b64(BinOp::And, p01, m);
        let mid = self.b64(BinOp::Add, mid, a);
        let a = self.b64(BinOp::And, p10, m);
        let mid = self.b64(BinOp::Add, mid, a);
        let h01 = self.b64(BinOp::LShr, p01, s);
        let h10 = self.b64(BinOp::LShr, p10, s);
        let hm = self.b64(BinOp::LShr, mid, s);
        let h = self.b64(BinOp::Add, p11, h01);
        let h = self.b64(BinOp::Add, h, h10);
        self.b64(BinOp::Add, h, hm)
    }

    /// A shift by the amount `amt` (the low half of the wide amount; an
    /// amount of the width or more is poison in LLVM, and here it is taken
    /// modulo 128).
    fn wide_shift(&mut self, op: BinOp, x: Wide, amt: Operand) -> Wide {
        let bits = x.bits;
        if let Operand::Const(c) = amt {
            let k = c.bits % 128;
            return self.wide_shift_const(op, x, k as u32);
        }
        let k = self.b64(BinOp::And, amt, c64(63));
        let big = self.b64(BinOp::And, amt, c64(64));
        let big = self.cmp64(CmpPred::Ne, big, c64(0));
        let inv = self.b64(BinOp::Sub, c64(63), k);
        match op {
            BinOp::Shl => {
                // Below 64: hi = hi << k | lo >> (64 - k), written as
                // (lo >> 1) >> (63 - k) so that k = 0 needs no case.
                let lo_s = self.b64(BinOp::Shl, x.lo, k);
                let hi_s = self.b64(BinOp::Shl, x.hi, k);
                let l1 = self.b64(BinOp::LShr, x.lo, c64(1));
                let spill = self.b64(BinOp::LShr, l1, inv);
                let hi_small = self.b64(BinOp::Or, hi_s, spill);
                let lo = self.sel(Type::I64, big, c64(0), lo_s);
                let hi = self.sel(Type::I64, big, lo_s, hi_small);
                self.wide(lo, hi, bits)
            }
            _ => {
                let signed = op == BinOp::AShr;
                let h = if signed { self.sext_hi(x) } else { x.hi };
                let lo_s = self.b64(BinOp::LShr, x.lo, k);
                let h1 = self.b64(BinOp::Shl, h, c64(1));
                let spill = self.b64(BinOp::Shl, h1, inv);
                let lo_small = self.b64(BinOp::Or, lo_s, spill);
                let hi_s = self.b64(op, h, k);
                let fill = if signed { self.b64(BinOp::AShr, h, c64(63)) } else { c64(0) };
                let lo = self.sel(Type::I64, big, hi_s, lo_small);
                let hi = self.sel(Type::I64, big, fill, hi_s);
                self.wide(lo, hi, bits)
            }
        }
    }

    fn wide_shift_const(&mut self, op: BinOp, x: Wide, k: u32) -> Wide {
        let bits = x.bits;
        if k == 0 {
            return x;
        }
        match op {
            BinOp::Shl if k >= 64 => {
                let hi = self.b64(BinOp::Shl, x.lo, c64(u64::from(k - 64)));
                self.wide(c64(0), hi, bits)
            }
            BinOp::Shl => {
                let lo = self.b64(BinOp::Shl, x.lo, c64(u64::from(k)));
                let hs = self.b64(BinOp::Shl, x.hi, c64(u64::from(k)));
                let spill = self.b64(BinOp::LShr, x.lo, c64(u64::from(64 - k)));
                let hi = self.b64(BinOp::Or, hs, spill);
                self.wide(lo, hi, bits)
            }
            _ => {
                let signed = op == BinOp::AShr;
                let h = if signed { self.sext_hi(x) } else { x.hi };
                let fill = if signed { self.b64(BinOp::AShr, h, c64(63)) } else { c64(0) };
                if k >= 64 {
                    let lo = self.b64(op, h, c64(u64::from(k - 64)));
                    self.wide(lo, fill, bits)
                } else {
                    let ls = self.b64(BinOp::LShr, x.lo, c64(u64::from(k)));
                    let spill = self.b64(BinOp::Shl, h, c64(u64::from(64 - k)));
                    let lo = self.b64(BinOp::Or, ls, spill);
                    let hi = self.b64(op, h, c64(u64::from(k)));
                    self.wide(lo, hi, bits)
                }
            }
        }
    }

    /// A comparison of two wide values: on the high halves (signed ones
    /// sign-extended), and on the low halves, unsigned, where those are
    /// equal.
    fn wide_cmp(&mut self, pred: CmpPred, a: Wide, b: Wide) -> Operand {
        let lo_eq = self.cmp64(CmpPred::Eq, a.lo, b.lo);
        let hi_eq = self.cmp64(CmpPred::Eq, a.hi, b.hi);
        match pred {
            CmpPred::Eq => return self.b1(BinOp::And, lo_eq, hi_eq),
            CmpPred::Ne => {
                let both = self.b1(BinOp::And, lo_eq, hi_eq);
                return self.b1(BinOp::Xor, both, Operand::Const(Const::bool(true)));
            }
            _ => {}
        }
        let signed = matches!(pred, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge);
        let (ha, hb) = if signed { (self.sext_hi(a), self.sext_hi(b)) } else { (a.hi, b.hi) };
        let (strict_hi, lo_pred) = match pred {
            CmpPred::Ult => (CmpPred::Ult, CmpPred::Ult),
            CmpPred::Ule => (CmpPred::Ult, CmpPred::Ule),
            CmpPred::Ugt => (CmpPred::Ugt, CmpPred::Ugt),
            CmpPred::Uge => (CmpPred::Ugt, CmpPred::Uge),
            CmpPred::Slt => (CmpPred::Slt, CmpPred::Ult),
            CmpPred::Sle => (CmpPred::Slt, CmpPred::Ule),
            CmpPred::Sgt => (CmpPred::Sgt, CmpPred::Ugt),
            _ => (CmpPred::Sgt, CmpPred::Uge),
        };
        let h = self.cmp64(strict_hi, ha, hb);
        let l = self.cmp64(lo_pred, a.lo, b.lo);
        let l = self.b1(BinOp::And, hi_eq, l);
        self.b1(BinOp::Or, h, l)
    }

    fn wide_cast(&mut self, op: CastOp, a: &'m LOp, to_ty: &TypeRef, dest: &'m Name) -> Res<()> {
        let from_ty = self.type_of_op(a);
        match (wide_bits(&from_ty), wide_bits(to_ty)) {
            (Some(_), Some(to)) => {
                let x = self.wide_operand(a)?;
                let w = match op {
                    CastOp::SExt => {
                        let h = self.sext_hi(x);
                        self.wide(x.lo, h, to)
                    }
                    // zext keeps the zero-extended high half; trunc
                    // clears what lies above the new width.
                    _ => self.wide(x.lo, x.hi, to),
                };
                self.locals.insert(dest, Lowered::Wide(w));
            }
            (Some(_), None) => {
                // Trunc to 64 bits or fewer: the low half, cut down.
                let x = self.wide_operand(a)?;
                let to = self.scalar(to_ty)?;
                let mut v = if to == Type::I64 { x.lo } else { self.emit_value(InstKind::Cast { op: CastOp::Trunc, from: Type::I64, to, arg: x.lo }) };
                if let Some(n) = odd_int_bits(to_ty) {
                    v = self.mask_odd(to, v, n);
                }
                self.define(dest, v);
            }
            (None, Some(to)) => {
                let from = self.scalar(&from_ty)?;
                let n = odd_int_bits(&from_ty).unwrap_or_else(|| from.bits(self.dm()));
                let x = self.operand(a)?;
                let w = self.extend_narrow(x, from, n, op == CastOp::SExt, to);
                self.locals.insert(dest, Lowered::Wide(w));
            }
            (None, None) => return Err(self.unsupported("a cast without a wide integer")),
        }
        Ok(())
    }

    /// Division and remainder of wide integers, after the checks the
    /// narrow ones get (divisor not zero; for signed, not `MIN / -1`).
    fn wide_div(&mut self, op: BinOp, a: &LOp, b: &LOp, dest: &'m Name) -> Res<()> {
        let (x, y) = (self.wide_operand(a)?, self.wide_operand(b)?);
        let bits = x.bits;
        let y_const = match (y.lo, y.hi) {
            (Operand::Const(l), Operand::Const(h)) => Some(u128::from(l.bits) | (u128::from(h.bits) << 64)),
            _ => None,
        };
        if y_const.is_none_or(|v| v == 0) {
            let any = self.b64(BinOp::Or, y.lo, y.hi);
            let nonzero = self.cmp64(CmpPred::Ne, any, c64(0));
            self.emit(InstKind::Check { kind: CheckKind::DivByZero, cond: nonzero });
        }
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        let minus_one = trunc128(u128::MAX, bits);
        if signed && y_const.is_none_or(|v| v == minus_one) {
            let min = Self::wconst(1u128 << (bits - 1), bits);
            let is_min = self.wide_cmp(CmpPred::Ne, x, min);
            let m1 = Self::wconst(minus_one, bits);
            let not_m1 = self.wide_cmp(CmpPred::Ne, y, m1);
            let ok = self.b1(BinOp::Or, is_min, not_m1);
            self.emit(InstKind::Check { kind: CheckKind::Overflow, cond: ok });
        }
        let w = if signed {
            let top = c64(1u64 << (bits - 65));
            let sa = self.b64(BinOp::And, x.hi, top);
            let sa = self.cmp64(CmpPred::Ne, sa, c64(0));
            let sb = self.b64(BinOp::And, y.hi, top);
            let sb = self.cmp64(CmpPred::Ne, sb, c64(0));
            let nx = self.wide_neg(x);
            let ny = self.wide_neg(y);
            let ax = self.wide_select(sa, nx, x);
            let ay = self.wide_select(sb, ny, y);
            let (q, r) = self.udivrem(ax, ay);
            if op == BinOp::SDiv {
                let neg = self.b1(BinOp::Xor, sa, sb);
                let nq = self.wide_neg(q);
                self.wide_select(neg, nq, q)
            } else {
                let nr = self.wide_neg(r);
                self.wide_select(sa, nr, r)
            }
        } else {
            let (q, r) = self.udivrem(x, y);
            if op == BinOp::UDiv { q } else { r }
        };
        self.locals.insert(dest, Lowered::Wide(w));
        Ok(())
    }

    /// A wide integer converted to `f32` or `f64`, rounded to nearest as
    /// libgcc's `__floattidf` does: with a high half, the value shifted
    /// right until it fits 64 bits, the bits shifted out kept as a sticky
    /// low bit (so the one rounding of the 64-bit conversion is the right
    /// one), then scaled back by an exact power of two.
    fn wide_to_float(&mut self, w: Wide, signed: bool, to: Type) -> Operand {
        let (neg, a) = if signed {
            let top = c64(1u64 << (w.bits - 65));
            let sign = self.b64(BinOp::And, w.hi, top);
            let neg = self.cmp64(CmpPred::Ne, sign, c64(0));
            let n = self.wide_neg(w);
            (Some(neg), self.wide_select(neg, n, w))
        } else {
            (None, w)
        };
        let conv = |fl: &mut Self, x: Operand| fl.emit_value(InstKind::Cast { op: CastOp::UiToFp, from: Type::I64, to, arg: x });
        let narrow = conv(self, a.lo);
        let n = self.emit_value(InstKind::Un { op: walkdown_ir::UnOp::Ctlz, ty: Type::I64, arg: a.hi });
        let s = self.b64(BinOp::Sub, c64(64), n);
        let sm1 = self.b64(BinOp::Sub, c64(63), n);
        let l1 = self.b64(BinOp::LShr, a.lo, c64(1));
        let lo_part = self.b64(BinOp::LShr, l1, sm1);
        let hi_part = self.b64(BinOp::Shl, a.hi, n);
        let lost = self.b64(BinOp::Shl, a.lo, n);
        let sticky = self.cmp64(CmpPred::Ne, lost, c64(0));
        let sticky = self.bool64(sticky);
        let m = self.b64(BinOp::Or, hi_part, lo_part);
        let m = self.b64(BinOp::Or, m, sticky);
        let f = conv(self, m);
        let scale = if to == Type::F32 {
            let e = self.b64(BinOp::Add, s, c64(127));
            let e = self.b64(BinOp::Shl, e, c64(23));
            let e = self.emit_value(InstKind::Cast { op: CastOp::Trunc, from: Type::I64, to: Type::I32, arg: e });
            self.emit_value(InstKind::Cast { op: CastOp::Bitcast, from: Type::I32, to: Type::F32, arg: e })
        } else {
            let e = self.b64(BinOp::Add, s, c64(1023));
            let e = self.b64(BinOp::Shl, e, c64(52));
            self.emit_value(InstKind::Cast { op: CastOp::Bitcast, from: Type::I64, to: Type::F64, arg: e })
        };
        let big = self.emit_value(InstKind::Bin { op: BinOp::FMul, ty: to, lhs: f, rhs: scale });
        let hi_zero = self.cmp64(CmpPred::Eq, a.hi, c64(0));
        let r = self.sel(to, hi_zero, narrow, big);
        match neg {
            Some(neg) => {
                let nr = self.emit_value(InstKind::Un { op: walkdown_ir::UnOp::FNeg, ty: to, arg: r });
                self.sel(to, neg, nr, r)
            }
            None => r,
        }
    }

    /// A float converted to a wide integer, truncating toward zero: the
    /// high half is the integer part of `x / 2^64`, the low half that of
    /// what remains (both steps exact: a double of 2^64 or more is an
    /// integer with at most 53 significant bits). Values out of range are
    /// undefined in C; these give what the formula gives.
    fn float_to_wide(&mut self, x: Operand, from: Type, signed: bool, bits: u32) -> Wide {
        let f64t = Type::F64;
        let x = if from == Type::F32 { self.emit_value(InstKind::Cast { op: CastOp::FpExt, from, to: f64t, arg: x }) } else { x };
        let fc = |v: f64| Operand::Const(Const { ty: Type::F64, bits: v.to_bits() });
        let (neg, ax) = if signed {
            let neg = self.emit_value(InstKind::Cmp { pred: CmpPred::FOlt, ty: f64t, lhs: x, rhs: fc(0.0) });
            let nx = self.emit_value(InstKind::Un { op: walkdown_ir::UnOp::FNeg, ty: f64t, arg: x });
            (Some(neg), self.sel(f64t, neg, nx, x))
        } else {
            (None, x)
        };
        let hf = self.emit_value(InstKind::Bin { op: BinOp::FMul, ty: f64t, lhs: ax, rhs: fc(1.0 / 18446744073709551616.0) });
        let hi = self.emit_value(InstKind::Cast { op: CastOp::FpToUi, from: f64t, to: Type::I64, arg: hf });
        let hb = self.emit_value(InstKind::Cast { op: CastOp::UiToFp, from: Type::I64, to: f64t, arg: hi });
        let hb = self.emit_value(InstKind::Bin { op: BinOp::FMul, ty: f64t, lhs: hb, rhs: fc(18446744073709551616.0) });
        let rest = self.emit_value(InstKind::Bin { op: BinOp::FSub, ty: f64t, lhs: ax, rhs: hb });
        let lo = self.emit_value(InstKind::Cast { op: CastOp::FpToUi, from: f64t, to: Type::I64, arg: rest });
        let w = self.wide(lo, hi, bits);
        match neg {
            Some(neg) => {
                let n = self.wide_neg(w);
                self.wide_select(neg, n, w)
            }
            None => w,
        }
    }

    fn wide_select(&mut self, cond: Operand, a: Wide, b: Wide) -> Wide {
        let lo = self.sel(Type::I64, cond, a.lo, b.lo);
        let hi = self.sel(Type::I64, cond, a.hi, b.hi);
        Wide { lo, hi, bits: a.bits }
    }

    /// Unsigned quotient and remainder by restoring division, one step per
    /// bit of the dividend from the top; a zero divisor gives quotient
    /// all ones and remainder the dividend (the check before it has
    /// already failed such a run).
    fn udivrem(&mut self, x: Wide, y: Wide) -> (Wide, Wide) {
        let bits = x.bits;
        let (mut rlo, mut rhi) = (c64(0), c64(0));
        let (mut qlo, mut qhi) = (c64(0), c64(0));
        for i in (0..bits).rev() {
            // r = r << 1 | bit i of x; with 128 bits the shift can carry
            // out of r (r < y < 2^128 but 2r + 1 may not be).
            let carry = if bits == 128 { Some(self.b64(BinOp::LShr, rhi, c64(63))) } else { None };
            let spill = self.b64(BinOp::LShr, rlo, c64(63));
            let h = self.b64(BinOp::Shl, rhi, c64(1));
            rhi = self.b64(BinOp::Or, h, spill);
            let (src, j) = if i >= 64 { (x.hi, i - 64) } else { (x.lo, i) };
            let bit = self.b64(BinOp::LShr, src, c64(u64::from(j)));
            let bit = self.b64(BinOp::And, bit, c64(1));
            let l = self.b64(BinOp::Shl, rlo, c64(1));
            rlo = self.b64(BinOp::Or, l, bit);
            let r = Wide { lo: rlo, hi: rhi, bits: 128 };
            let yy = Wide { lo: y.lo, hi: y.hi, bits: 128 };
            let mut ge = self.wide_cmp(CmpPred::Uge, r, yy);
            if let Some(c) = carry {
                let c = self.cmp64(CmpPred::Ne, c, c64(0));
                ge = self.b1(BinOp::Or, ge, c);
            }
            let d = self.wide_sub(r, yy);
            rlo = self.sel(Type::I64, ge, d.lo, rlo);
            rhi = self.sel(Type::I64, ge, d.hi, rhi);
            let g = self.bool64(ge);
            if i >= 64 {
                let s = self.b64(BinOp::Shl, g, c64(u64::from(i - 64)));
                qhi = self.b64(BinOp::Or, qhi, s);
            } else {
                let s = self.b64(BinOp::Shl, g, c64(u64::from(i)));
                qlo = self.b64(BinOp::Or, qlo, s);
            }
        }
        (Wide { lo: qlo, hi: qhi, bits }, Wide { lo: rlo, hi: rhi, bits })
    }

    /// The block parameters of a wide `phi`: two `i64`.
    pub(super) fn wide_phi(&mut self, b: walkdown_ir::Block, phi: &'m li::Phi, bits: u32) {
        let lo = self.body.add_param(b, Type::I64);
        let hi = self.body.add_param(b, Type::I64);
        self.locals.insert(&phi.dest, Lowered::Wide(Wide { lo: Operand::Value(lo), hi: Operand::Value(hi), bits }));
    }
}

/// The first words of an instruction, for a message.
fn first_words(i: &LI) -> String {
    let text = i.to_string();
    text.chars().take(60).collect::<String>().trim().to_string()
}
