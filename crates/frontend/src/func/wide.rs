//! Integers wider than 64 bits (`__int128`, the storage units of long runs
//! of packed bit-fields: `i72`, `i96`, `i120`, `i152`), lowered to `i64`
//! limbs.
//!
//! The IR and every engine work on values of at most 64 bits; rather than
//! widening all of them (and slowing the common path), the lowering splits
//! a wide value into 64-bit limbs, least significant first, the top one
//! holding the remaining bits zero-extended (as odd widths below 64 are
//! kept in their containers), and expands each operation into 64-bit
//! ones: carry chains for `add`/`sub`, schoolbook products whose 64×64→128
//! steps come from 32-bit halves for `mul`, limb moves and funnel shifts
//! for constant shift amounts and a barrel shifter for variable ones,
//! lexicographic comparisons, and, for division, a restoring division
//! unrolled over the bits. The interpreter, the concolic tracer, the SMT
//! terms and the bounded encoding then get wide integers exactly, with
//! the semantics LLVM gives them, and no cost on narrow code.

use super::{FuncLowerer, Lowered, Res};
use crate::layout::{container, limb_bits, odd_int_bits, wide_bits};
use crate::wideconst::{mask_limbs, Limbs};
use llvm_ir::instruction::{self as li, Instruction as LI};
use llvm_ir::{Constant, ConstantRef, Name, Operand as LOp, Type as LType, TypeRef};
use walkdown_ir::testvec::truncate;
use walkdown_ir::{BinOp, CastOp, CheckKind, CmpPred, Const, InstKind, Operand, Type, UnOp};

/// A wide value: `ceil(bits / 64)` `i64` limbs, least significant first;
/// the bits of the top limb above the width are clear.
#[derive(Clone, Debug)]
pub(super) struct Wide {
    pub limbs: Vec<Operand>,
    pub bits: u32,
}

fn c64(v: u64) -> Operand {
    Operand::Const(Const { ty: Type::I64, bits: v })
}

/// The number of limbs of a `bits`-bit value.
fn nlimbs(bits: u32) -> usize {
    bits.div_ceil(64) as usize
}

/// The number of bits the top limb of a `bits`-bit value holds (1 to 64).
fn top_bits(bits: u32) -> u32 {
    bits - 64 * (nlimbs(bits) as u32 - 1)
}

/// Whether instruction `ins` involves a wide integer (as an operand or a
/// result), so that [`FuncLowerer::lower_wide`] must lower it.
pub(super) fn involves_wide(fl: &FuncLowerer<'_, '_>, ins: &LI) -> bool {
    let ty = |op: &LOp| limb_bits(&fl.type_of_op(op)).is_some();
    let t = |t: &TypeRef| limb_bits(t).is_some();
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
        LI::FPToUI(i) => t(&i.to_type),
        LI::FPToSI(i) => t(&i.to_type),
        LI::UIToFP(i) => ty(&i.operand),
        LI::SIToFP(i) => ty(&i.operand),
        LI::Select(i) => ty(&i.true_value),
        LI::Freeze(i) => ty(&i.operand),
        LI::Load(i) => {
            matches!(fl.type_of_op(&i.address).as_ref(), LType::PointerType { pointee_type, .. } if t(pointee_type))
        }
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

    // ----------------------------------------------------------- wide values

    /// `limbs` (as many as `bits` needs) with the top limb masked.
    fn wide(&mut self, mut limbs: Vec<Operand>, bits: u32) -> Wide {
        let top = top_bits(bits);
        if top < 64 {
            let last = limbs.len() - 1;
            limbs[last] = self.b64(BinOp::And, limbs[last], c64(truncate(u64::MAX, top)));
        }
        Wide { limbs, bits }
    }

    fn wconst(v: &[u64], bits: u32) -> Wide {
        let mut v = v.to_vec();
        v.resize(nlimbs(bits), 0);
        mask_limbs(&mut v, bits);
        Wide { limbs: v.into_iter().map(c64).collect(), bits }
    }

    fn wzero(bits: u32) -> Wide {
        Self::wconst(&[], bits)
    }

    /// The top limb sign-extended from the value's top bit over 64 bits.
    fn sext_top(&mut self, w: &Wide) -> Operand {
        let top = top_bits(w.bits);
        let last = *w.limbs.last().expect("a limb");
        if top == 64 {
            return last;
        }
        let sh = c64(u64::from(64 - top));
        let up = self.b64(BinOp::Shl, last, sh);
        self.b64(BinOp::AShr, up, sh)
    }

    /// Whether `w` is negative (its top bit), as an `i1`.
    fn is_negative(&mut self, w: &Wide) -> Operand {
        let last = *w.limbs.last().expect("a limb");
        let bit = self.b64(BinOp::And, last, c64(1u64 << (top_bits(w.bits) - 1)));
        self.cmp64(CmpPred::Ne, bit, c64(0))
    }

    /// The limbs of `w` sign-extended to 64-bit limbs: the top one
    /// extended, and `extra` more limbs of its sign.
    fn signed_limbs(&mut self, w: &Wide, extra: usize) -> Vec<Operand> {
        let mut l = w.limbs.clone();
        let t = self.sext_top(w);
        let last = l.len() - 1;
        l[last] = t;
        if extra > 0 {
            let fill = self.b64(BinOp::AShr, t, c64(63));
            l.extend(std::iter::repeat_n(fill, extra));
        }
        l
    }

    pub(super) fn new_wide(&mut self, w: Wide) -> Lowered {
        self.wides.push(w);
        Lowered::Wide(self.wides.len() - 1)
    }

    pub(super) fn define_wide(&mut self, dest: &'m Name, w: Wide) {
        let l = self.new_wide(w);
        self.locals.insert(dest, l);
    }

    // --------------------------------------------------------------- operands

    /// The wide value of `op`.
    pub(super) fn wide_operand(&mut self, op: &LOp) -> Res<Wide> {
        match op {
            LOp::ConstantOperand(c) => self.wide_constant(c),
            _ => match self.lowered(op)? {
                Lowered::Wide(w) => Ok(self.wides[w].clone()),
                _ => Err(self.unsupported("a wide integer value of another form")),
            },
        }
    }

    fn wide_constant(&mut self, c: &ConstantRef) -> Res<Wide> {
        let bits = limb_bits(&self.cx.module.types.type_of(c))
            .ok_or_else(|| self.unsupported(format!("constant {c} as a wide integer")))?;
        match c.as_ref() {
            Constant::Float(llvm_ir::constant::Float::X86_FP80) => {
                let v = self.cx.f80_consts.resolve(c).map_err(|e| self.unsupported(e))?;
                Ok(Self::wconst(&[v.significand, u64::from(v.sign_exponent)], 80))
            }
            Constant::Int { value, .. } => {
                let dest = self.cur_dest.map(crate::module::name_text);
                let v: Limbs = self
                    .cx
                    .wide_consts
                    .resolve(bits, *value, &self.f.name, dest.as_deref())
                    .map_err(|e| self.unsupported(e))?;
                Ok(Self::wconst(&v, bits))
            }
            // Reading an undefined value is undefined in C; zero, as for
            // narrower types.
            Constant::Undef(_) | Constant::Poison(_) | Constant::AggregateZero(_) => Ok(Self::wzero(bits)),
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
        let fill = if signed { self.b64(BinOp::AShr, lo, c64(63)) } else { c64(0) };
        let mut limbs = vec![lo];
        limbs.resize(nlimbs(bits), fill);
        self.wide(limbs, bits)
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
                let v = self.wide_cmp(super::int_pred(i.predicate), &a, &b);
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
                let bits =
                    wide_bits(to_type).ok_or_else(|| self.unsupported("a float conversion without a wide integer"))?;
                if bits > 128 {
                    return Err(self.unsupported(format!("a conversion of a float to a {bits}-bit integer")));
                }
                let x = self.operand(operand)?;
                let w = self.float_to_wide(x, from, matches!(ins, LI::FPToSI(_)), bits);
                self.define_wide(dest, w);
                Ok(())
            }
            LI::UIToFP(_) | LI::SIToFP(_) => {
                let (operand, to_type, dest) = match ins {
                    LI::UIToFP(i) => (&i.operand, &i.to_type, &i.dest),
                    LI::SIToFP(i) => (&i.operand, &i.to_type, &i.dest),
                    _ => unreachable!("matched above"),
                };
                let to = self.scalar(to_type)?;
                let w = self.wide_operand(operand)?;
                if w.bits > 128 {
                    return Err(self.unsupported(format!("a conversion of a {}-bit integer to a float", w.bits)));
                }
                let v = self.wide_to_float(&w, matches!(ins, LI::SIToFP(_)), to);
                self.define(dest, v);
                Ok(())
            }
            LI::Select(i) => {
                let cond = self.operand(&i.condition)?;
                let (a, b) = (self.wide_operand(&i.true_value)?, self.wide_operand(&i.false_value)?);
                let w = self.wide_select(cond, &a, &b);
                self.define_wide(&i.dest, w);
                Ok(())
            }
            LI::Freeze(i) => {
                let w = self.wide_operand(&i.operand)?;
                self.define_wide(&i.dest, w);
                Ok(())
            }
            LI::Load(i) => {
                let bits = match self.type_of_op(&i.address).as_ref() {
                    LType::PointerType { pointee_type, .. } => limb_bits(pointee_type),
                    _ => None,
                }
                .ok_or_else(|| self.unsupported("a wide load through a non-pointer"))?;
                let ptr = self.operand(&i.address)?;
                let w = self.load_wide(ptr, bits);
                self.define_wide(&i.dest, w);
                Ok(())
            }
            LI::Store(i) => {
                let w = self.wide_operand(&i.value)?;
                let ptr = self.operand(&i.address)?;
                self.store_wide(ptr, &w);
                Ok(())
            }
            other => {
                Err(self.unsupported(format!("instruction `{}` on an integer wider than 64 bits", first_words(other))))
            }
        }
    }

    /// Loads the store size of a `bits`-bit integer (`ceil(bits / 8)`
    /// bytes, as LLVM and x86 do): full limbs of 8 bytes, the rest of the
    /// top one in pieces of 4, 2 and 1.
    pub(super) fn load_wide(&mut self, ptr: Operand, bits: u32) -> Wide {
        let n = nlimbs(bits);
        let mut limbs = Vec::with_capacity(n);
        for i in 0..n - 1 {
            let at = self.ptr_add_const(ptr, 8 * i as i64);
            limbs.push(self.emit_value(InstKind::Load { ty: Type::I64, ptr: at }));
        }
        let at = self.ptr_add_const(ptr, 8 * (n - 1) as i64);
        let top = top_bits(bits);
        let t = self.load_odd(at, top);
        let t = if container(top) == Some(Type::I64) { t } else { self.int_cast(t, Type::I64, false) };
        limbs.push(t);
        Wide { limbs, bits }
    }

    pub(super) fn store_wide(&mut self, ptr: Operand, w: &Wide) {
        let n = w.limbs.len();
        for (i, &l) in w.limbs[..n - 1].iter().enumerate() {
            let at = self.ptr_add_const(ptr, 8 * i as i64);
            self.emit(InstKind::Store { ty: Type::I64, ptr: at, value: l });
        }
        let at = self.ptr_add_const(ptr, 8 * (n - 1) as i64);
        self.store_odd(at, w.limbs[n - 1], top_bits(w.bits));
    }

    fn wide_bin(&mut self, op: BinOp, a: &LOp, b: &LOp, dest: &'m Name) -> Res<()> {
        let (x, y) = (self.wide_operand(a)?, self.wide_operand(b)?);
        let bits = x.bits;
        let w = match op {
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let limbs = x.limbs.iter().zip(&y.limbs).map(|(&p, &q)| self.b64(op, p, q)).collect();
                Wide { limbs, bits }
            }
            BinOp::Add => self.wide_add(&x, &y),
            BinOp::Sub => self.wide_sub(&x, &y),
            BinOp::Mul => self.wide_mul(&x, &y),
            BinOp::Shl | BinOp::LShr | BinOp::AShr => self.wide_shift(op, &x, &y),
            _ => return Err(self.unsupported(format!("{op} on a {bits}-bit integer"))),
        };
        self.define_wide(dest, w);
        Ok(())
    }

    fn wide_add(&mut self, x: &Wide, y: &Wide) -> Wide {
        let mut limbs = Vec::with_capacity(x.limbs.len());
        let mut carry: Option<Operand> = None;
        let n = x.limbs.len();
        for i in 0..n {
            let s = self.b64(BinOp::Add, x.limbs[i], y.limbs[i]);
            let last = i + 1 == n;
            let (s, c) = match carry {
                None => {
                    let c = if last { None } else { Some(self.cmp64(CmpPred::Ult, s, x.limbs[i])) };
                    (s, c)
                }
                Some(cin) => {
                    let cin64 = self.bool64(cin);
                    let s2 = self.b64(BinOp::Add, s, cin64);
                    let c = if last {
                        None
                    } else {
                        let c1 = self.cmp64(CmpPred::Ult, s, x.limbs[i]);
                        let c2 = self.cmp64(CmpPred::Ult, s2, s);
                        Some(self.b1(BinOp::Or, c1, c2))
                    };
                    (s2, c)
                }
            };
            limbs.push(s);
            carry = c;
        }
        self.wide(limbs, x.bits)
    }

    fn wide_sub(&mut self, x: &Wide, y: &Wide) -> Wide {
        let mut limbs = Vec::with_capacity(x.limbs.len());
        let mut borrow: Option<Operand> = None;
        let n = x.limbs.len();
        for i in 0..n {
            let d = self.b64(BinOp::Sub, x.limbs[i], y.limbs[i]);
            let last = i + 1 == n;
            let (d, b) = match borrow {
                None => {
                    let b = if last { None } else { Some(self.cmp64(CmpPred::Ult, x.limbs[i], y.limbs[i])) };
                    (d, b)
                }
                Some(bin) => {
                    let bin64 = self.bool64(bin);
                    let d2 = self.b64(BinOp::Sub, d, bin64);
                    let b = if last {
                        None
                    } else {
                        let b1 = self.cmp64(CmpPred::Ult, x.limbs[i], y.limbs[i]);
                        let b2 = self.cmp64(CmpPred::Ult, d, bin64);
                        Some(self.b1(BinOp::Or, b1, b2))
                    };
                    (d2, b)
                }
            };
            limbs.push(d);
            borrow = b;
        }
        self.wide(limbs, x.bits)
    }

    fn wide_neg(&mut self, x: &Wide) -> Wide {
        let zero = Self::wzero(x.bits);
        self.wide_sub(&zero, x)
    }

    /// The schoolbook product modulo `2^bits`: each limb product's low
    /// half added at its position, its high half at the next, carries
    /// rippling up.
    fn wide_mul(&mut self, x: &Wide, y: &Wide) -> Wide {
        let n = x.limbs.len();
        let mut acc: Vec<Operand> = vec![c64(0); n];
        let mut fresh = vec![true; n];
        for i in 0..n {
            for j in 0..n - i {
                let lo = self.b64(BinOp::Mul, x.limbs[i], y.limbs[j]);
                self.add_limb_at(&mut acc, &mut fresh, i + j, lo);
                if i + j + 1 < n {
                    let hi = self.mulhu(x.limbs[i], y.limbs[j]);
                    self.add_limb_at(&mut acc, &mut fresh, i + j + 1, hi);
                }
            }
        }
        self.wide(acc, x.bits)
    }

    /// `acc += v << (64 * pos)` (modulo the width of `acc`); `fresh`
    /// marks limbs still zero, which take `v` without an addition.
    fn add_limb_at(&mut self, acc: &mut [Operand], fresh: &mut [bool], pos: usize, v: Operand) {
        if fresh[pos] {
            acc[pos] = v;
            fresh[pos] = false;
            return;
        }
        let s = self.b64(BinOp::Add, acc[pos], v);
        let mut carry = if pos + 1 < acc.len() { Some(self.cmp64(CmpPred::Ult, s, v)) } else { None };
        acc[pos] = s;
        for q in pos + 1..acc.len() {
            let Some(c) = carry else { break };
            let c64v = self.bool64(c);
            if fresh[q] {
                acc[q] = c64v;
                fresh[q] = false;
                break;
            }
            let s = self.b64(BinOp::Add, acc[q], c64v);
            carry = if q + 1 < acc.len() { Some(self.cmp64(CmpPred::Ult, s, c64v)) } else { None };
            acc[q] = s;
        }
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

    /// A shift of `x` by the wide amount `y`. An amount of the width or
    /// more is poison in LLVM; a constant one is taken modulo the next
    /// power of two of the width (as is a variable one, whose higher bits
    /// the barrel shifter ignores).
    fn wide_shift(&mut self, op: BinOp, x: &Wide, y: &Wide) -> Wide {
        let stages = (64 * x.limbs.len() as u32).next_power_of_two().trailing_zeros();
        if let Operand::Const(c) = y.limbs[0] {
            let k = (c.bits % (1u64 << stages)) as u32;
            return self.wide_shift_const(op, x, k);
        }
        // Barrel shifter: stage b shifts by 2^b where bit b of the amount
        // is set.
        let mut cur = x.clone();
        for b in 0..stages {
            let bit = self.b64(BinOp::And, y.limbs[0], c64(1u64 << b));
            let on = self.cmp64(CmpPred::Ne, bit, c64(0));
            let shifted = self.wide_shift_const(op, &cur, 1 << b);
            cur = self.wide_select(on, &shifted, &cur);
        }
        cur
    }

    fn wide_shift_const(&mut self, op: BinOp, x: &Wide, k: u32) -> Wide {
        let n = x.limbs.len();
        if k == 0 {
            return x.clone();
        }
        let (q, r) = ((k / 64) as usize, k % 64);
        let mut limbs = Vec::with_capacity(n);
        match op {
            BinOp::Shl => {
                let src = |i: isize| if i >= 0 { Some(x.limbs[i as usize]) } else { None };
                for i in 0..n as isize {
                    let hi = src(i - q as isize);
                    let lo = src(i - q as isize - 1);
                    let v = match (hi, r) {
                        (None, _) => c64(0),
                        (Some(h), 0) => h,
                        (Some(h), r) => {
                            let hs = self.b64(BinOp::Shl, h, c64(u64::from(r)));
                            match lo {
                                Some(l) => {
                                    let spill = self.b64(BinOp::LShr, l, c64(u64::from(64 - r)));
                                    self.b64(BinOp::Or, hs, spill)
                                }
                                None => hs,
                            }
                        }
                    };
                    limbs.push(v);
                }
            }
            _ => {
                // The source limbs, the top one sign-extended for ashr,
                // then a limb of fill (its sign, or zeros) standing for
                // all those above: logical funnel shifts of that
                // representation give both shifts.
                let ext = if op == BinOp::AShr {
                    self.signed_limbs(x, 1)
                } else {
                    x.limbs.iter().copied().chain([c64(0)]).collect()
                };
                let src = |i: usize| ext[i.min(n)];
                for i in 0..n {
                    let (lo, hi) = (src(i + q), src(i + q + 1));
                    let v = if r == 0 {
                        lo
                    } else {
                        let ls = self.b64(BinOp::LShr, lo, c64(u64::from(r)));
                        let spill = self.b64(BinOp::Shl, hi, c64(u64::from(64 - r)));
                        self.b64(BinOp::Or, ls, spill)
                    };
                    limbs.push(v);
                }
            }
        }
        self.wide(limbs, x.bits)
    }

    /// A comparison of two wide values, limb by limb from the least
    /// significant: the verdict so far holds where the higher limbs are
    /// equal. The top limbs compare signed (sign-extended) for signed
    /// predicates, the others unsigned.
    fn wide_cmp(&mut self, pred: CmpPred, a: &Wide, b: &Wide) -> Operand {
        let n = a.limbs.len();
        if matches!(pred, CmpPred::Eq | CmpPred::Ne) {
            let mut all = None;
            for i in 0..n {
                let e = self.cmp64(CmpPred::Eq, a.limbs[i], b.limbs[i]);
                all = Some(match all {
                    None => e,
                    Some(p) => self.b1(BinOp::And, p, e),
                });
            }
            let all = all.expect("a limb");
            return if pred == CmpPred::Eq { all } else { self.b1(BinOp::Xor, all, Operand::Const(Const::bool(true))) };
        }
        let signed = matches!(pred, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge);
        let (strict, first) = match pred {
            CmpPred::Ult | CmpPred::Slt => (CmpPred::Ult, CmpPred::Ult),
            CmpPred::Ule | CmpPred::Sle => (CmpPred::Ult, CmpPred::Ule),
            CmpPred::Ugt | CmpPred::Sgt => (CmpPred::Ugt, CmpPred::Ugt),
            _ => (CmpPred::Ugt, CmpPred::Uge),
        };
        let (ta, tb) = if signed { (self.sext_top(a), self.sext_top(b)) } else { (a.limbs[n - 1], b.limbs[n - 1]) };
        let mut verdict = self.cmp64(first, a.limbs[0], b.limbs[0]);
        for i in 1..n {
            let (x, y, strict_i) = if i == n - 1 {
                let s = if signed {
                    if strict == CmpPred::Ult {
                        CmpPred::Slt
                    } else {
                        CmpPred::Sgt
                    }
                } else {
                    strict
                };
                (ta, tb, s)
            } else {
                (a.limbs[i], b.limbs[i], strict)
            };
            let s = self.cmp64(strict_i, x, y);
            let e = self.cmp64(CmpPred::Eq, x, y);
            let keep = self.b1(BinOp::And, e, verdict);
            verdict = self.b1(BinOp::Or, s, keep);
        }
        verdict
    }

    fn wide_cast(&mut self, op: CastOp, a: &'m LOp, to_ty: &TypeRef, dest: &'m Name) -> Res<()> {
        let from_ty = self.type_of_op(a);
        match (wide_bits(&from_ty), wide_bits(to_ty)) {
            (Some(_), Some(to)) => {
                let x = self.wide_operand(a)?;
                let k = nlimbs(to);
                let mut limbs = if op == CastOp::SExt {
                    self.signed_limbs(&x, k.saturating_sub(x.limbs.len()))
                } else {
                    x.limbs.clone()
                };
                // zext pads with zeros; trunc keeps the low limbs (the top
                // one masked by `wide`).
                limbs.resize(k, c64(0));
                let w = self.wide(limbs, to);
                self.define_wide(dest, w);
            }
            (Some(_), None) => {
                // Trunc to 64 bits or fewer: the low limb, cut down.
                let x = self.wide_operand(a)?;
                let to = self.scalar(to_ty)?;
                let lo = x.limbs[0];
                let mut v = if to == Type::I64 {
                    lo
                } else {
                    self.emit_value(InstKind::Cast { op: CastOp::Trunc, from: Type::I64, to, arg: lo })
                };
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
                self.define_wide(dest, w);
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
        let y_const: Option<Vec<u64>> =
            y.limbs.iter().map(|l| if let Operand::Const(c) = l { Some(c.bits) } else { None }).collect();
        if y_const.as_ref().is_none_or(|v| v.iter().all(|&l| l == 0)) {
            let mut any = y.limbs[0];
            for &l in &y.limbs[1..] {
                any = self.b64(BinOp::Or, any, l);
            }
            let nonzero = self.cmp64(CmpPred::Ne, any, c64(0));
            self.emit(InstKind::Check { kind: CheckKind::DivByZero, cond: nonzero });
        }
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        let mut ones = vec![u64::MAX; nlimbs(bits)];
        mask_limbs(&mut ones, bits);
        if signed && y_const.as_ref().is_none_or(|v| *v == ones) {
            let mut min = vec![0u64; nlimbs(bits)];
            *min.last_mut().expect("a limb") = 1u64 << (top_bits(bits) - 1);
            let min = Self::wconst(&min, bits);
            let is_min = self.wide_cmp(CmpPred::Ne, &x, &min);
            let m1 = Self::wconst(&ones, bits);
            let not_m1 = self.wide_cmp(CmpPred::Ne, &y, &m1);
            let ok = self.b1(BinOp::Or, is_min, not_m1);
            self.emit(InstKind::Check { kind: CheckKind::Overflow, cond: ok });
        }
        let w = if signed {
            let sa = self.is_negative(&x);
            let sb = self.is_negative(&y);
            let nx = self.wide_neg(&x);
            let ny = self.wide_neg(&y);
            let ax = self.wide_select(sa, &nx, &x);
            let ay = self.wide_select(sb, &ny, &y);
            let (q, r) = self.udivrem(&ax, &ay);
            if op == BinOp::SDiv {
                let neg = self.b1(BinOp::Xor, sa, sb);
                let nq = self.wide_neg(&q);
                self.wide_select(neg, &nq, &q)
            } else {
                let nr = self.wide_neg(&r);
                self.wide_select(sa, &nr, &r)
            }
        } else {
            let (q, r) = self.udivrem(&x, &y);
            if op == BinOp::UDiv {
                q
            } else {
                r
            }
        };
        self.define_wide(dest, w);
        Ok(())
    }

    fn wide_select(&mut self, cond: Operand, a: &Wide, b: &Wide) -> Wide {
        let limbs = a.limbs.iter().zip(&b.limbs).map(|(&p, &q)| self.sel(Type::I64, cond, p, q)).collect();
        Wide { limbs, bits: a.bits }
    }

    /// Unsigned quotient and remainder by restoring division, one step per
    /// bit of the dividend from the top; a zero divisor gives quotient
    /// all ones and remainder the dividend (the check before it has
    /// already failed such a run).
    fn udivrem(&mut self, x: &Wide, y: &Wide) -> (Wide, Wide) {
        let bits = x.bits;
        let n = x.limbs.len();
        let full = 64 * n as u32;
        let mut r: Vec<Operand> = vec![c64(0); n];
        let mut q: Vec<Operand> = vec![c64(0); n];
        let yy = Wide { limbs: y.limbs.clone(), bits: full };
        for i in (0..bits).rev() {
            // r = r << 1 | bit i of x; when the width fills the limbs the
            // shift can carry out of r (r < y but 2r + 1 may not fit).
            let carry = if bits == full { Some(self.b64(BinOp::LShr, r[n - 1], c64(63))) } else { None };
            for j in (1..n).rev() {
                let h = self.b64(BinOp::Shl, r[j], c64(1));
                let spill = self.b64(BinOp::LShr, r[j - 1], c64(63));
                r[j] = self.b64(BinOp::Or, h, spill);
            }
            let (limb, j) = ((i / 64) as usize, i % 64);
            let bit = self.b64(BinOp::LShr, x.limbs[limb], c64(u64::from(j)));
            let bit = self.b64(BinOp::And, bit, c64(1));
            let l = self.b64(BinOp::Shl, r[0], c64(1));
            r[0] = self.b64(BinOp::Or, l, bit);
            let rw = Wide { limbs: r.clone(), bits: full };
            let mut ge = self.wide_cmp(CmpPred::Uge, &rw, &yy);
            if let Some(c) = carry {
                let c = self.cmp64(CmpPred::Ne, c, c64(0));
                ge = self.b1(BinOp::Or, ge, c);
            }
            let d = self.wide_sub(&rw, &yy);
            for (k, slot) in r.iter_mut().enumerate() {
                *slot = self.sel(Type::I64, ge, d.limbs[k], *slot);
            }
            let g = self.bool64(ge);
            let s = self.b64(BinOp::Shl, g, c64(u64::from(j)));
            q[limb] = self.b64(BinOp::Or, q[limb], s);
        }
        (Wide { limbs: q, bits }, Wide { limbs: r, bits })
    }

    /// A wide integer (at most 128 bits) converted to `f32` or `f64`,
    /// rounded to nearest as libgcc's `__floattidf` does: with a high
    /// limb, the value shifted right until it fits 64 bits, the bits
    /// shifted out kept as a sticky low bit (so the one rounding of the
    /// 64-bit conversion is the right one), then scaled back by an exact
    /// power of two.
    fn wide_to_float(&mut self, w: &Wide, signed: bool, to: Type) -> Operand {
        let (neg, a) = if signed {
            let neg = self.is_negative(w);
            let n = self.wide_neg(w);
            (Some(neg), self.wide_select(neg, &n, w))
        } else {
            (None, w.clone())
        };
        let (lo, hi) = (a.limbs[0], a.limbs[1]);
        let conv = |fl: &mut Self, x: Operand| {
            fl.emit_value(InstKind::Cast { op: CastOp::UiToFp, from: Type::I64, to, arg: x })
        };
        let narrow = conv(self, lo);
        let n = self.emit_value(InstKind::Un { op: UnOp::Ctlz, ty: Type::I64, arg: hi });
        let s = self.b64(BinOp::Sub, c64(64), n);
        let sm1 = self.b64(BinOp::Sub, c64(63), n);
        let l1 = self.b64(BinOp::LShr, lo, c64(1));
        let lo_part = self.b64(BinOp::LShr, l1, sm1);
        let hi_part = self.b64(BinOp::Shl, hi, n);
        let lost = self.b64(BinOp::Shl, lo, n);
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
        let hi_zero = self.cmp64(CmpPred::Eq, hi, c64(0));
        let r = self.sel(to, hi_zero, narrow, big);
        match neg {
            Some(neg) => {
                let nr = self.emit_value(InstKind::Un { op: UnOp::FNeg, ty: to, arg: r });
                self.sel(to, neg, nr, r)
            }
            None => r,
        }
    }

    /// A float converted to a wide integer (at most 128 bits), truncating
    /// toward zero: the high limb is the integer part of `x / 2^64`, the
    /// low limb that of what remains (both steps exact: a double of 2^64
    /// or more is an integer with at most 53 significant bits). Values out
    /// of range are undefined in C; these give what the formula gives.
    fn float_to_wide(&mut self, x: Operand, from: Type, signed: bool, bits: u32) -> Wide {
        let f64t = Type::F64;
        let x = if from == Type::F32 {
            self.emit_value(InstKind::Cast { op: CastOp::FpExt, from, to: f64t, arg: x })
        } else {
            x
        };
        let fc = |v: f64| Operand::Const(Const { ty: Type::F64, bits: v.to_bits() });
        let (neg, ax) = if signed {
            let neg = self.emit_value(InstKind::Cmp { pred: CmpPred::FOlt, ty: f64t, lhs: x, rhs: fc(0.0) });
            let nx = self.emit_value(InstKind::Un { op: UnOp::FNeg, ty: f64t, arg: x });
            (Some(neg), self.sel(f64t, neg, nx, x))
        } else {
            (None, x)
        };
        let hf = self.emit_value(InstKind::Bin {
            op: BinOp::FMul,
            ty: f64t,
            lhs: ax,
            rhs: fc(1.0 / 18446744073709551616.0),
        });
        let hi = self.emit_value(InstKind::Cast { op: CastOp::FpToUi, from: f64t, to: Type::I64, arg: hf });
        let hb = self.emit_value(InstKind::Cast { op: CastOp::UiToFp, from: Type::I64, to: f64t, arg: hi });
        let hb = self.emit_value(InstKind::Bin { op: BinOp::FMul, ty: f64t, lhs: hb, rhs: fc(18446744073709551616.0) });
        let rest = self.emit_value(InstKind::Bin { op: BinOp::FSub, ty: f64t, lhs: ax, rhs: hb });
        let lo = self.emit_value(InstKind::Cast { op: CastOp::FpToUi, from: f64t, to: Type::I64, arg: rest });
        let w = self.wide(vec![lo, hi], bits);
        match neg {
            Some(neg) => {
                let n = self.wide_neg(&w);
                self.wide_select(neg, &n, &w)
            }
            None => w,
        }
    }

    /// The block parameters of a wide `phi`: one `i64` per limb.
    pub(super) fn wide_phi(&mut self, b: walkdown_ir::Block, phi: &'m li::Phi, bits: u32) {
        let limbs = (0..nlimbs(bits)).map(|_| Operand::Value(self.body.add_param(b, Type::I64))).collect();
        self.define_wide(&phi.dest, Wide { limbs, bits });
    }
}

/// The first words of an instruction, for a message.
fn first_words(i: &LI) -> String {
    let text = i.to_string();
    text.chars().take(60).collect::<String>().trim().to_string()
}
