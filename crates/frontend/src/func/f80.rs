//! `long double` (x86 80-bit extended precision, LLVM `x86_fp80`),
//! lowered to two `i64` limbs and calls of walkdown's soft-float runtime.
//!
//! There is no 80-bit float in the IR, the interpreter or the solver's
//! terms. A `long double` value is kept as a wide value of 80 bits (see
//! `wide.rs`): the significand with its explicit integer bit, then the
//! sign and biased exponent, which is the x87 memory format, so loads,
//! stores, phis and selects are the wide ones and memory holds the bytes
//! a native build holds. Each operation calls a function of the runtime
//! (`runtime/f80.c`, linked into the module when the program uses `long
//! double`), which computes what the x87 computes, bit for bit, with
//! integer instructions only: every engine then reasons about `long
//! double` exactly, through ordinary IR. The runtime's functions that
//! yield a `long double` return its significand and store its sign and
//! exponent through their first parameter, a stack slot of the caller's.

use super::wide::Wide;
use super::{FuncLowerer, Res};
use crate::layout::{is_f80, limb_bits};
use crate::module::Sym;
use llvm_ir::instruction::Instruction as LI;
use llvm_ir::predicates::FPPredicate;
use llvm_ir::{Name, Operand as LOp, Type as LType, TypeRef};
use walkdown_ir::{BinOp, Callee, CastOp, Const, InstKind, Operand, Type};

/// The prefix of the runtime's functions (their goals are not the
/// program's: see `walkdown_ir::goals::is_runtime_function`).
pub const RUNTIME_PREFIX: &str = "__walkdown_f80_";

fn c64(v: u64) -> Operand {
    Operand::Const(Const { ty: Type::I64, bits: v })
}

fn c32(v: u64) -> Operand {
    Operand::Const(Const { ty: Type::I32, bits: v })
}

/// Whether instruction `ins` computes on or produces a `long double`
/// other than by moving it (loads, stores, selects, phis and freezes are
/// the wide ones).
pub(super) fn involves_f80(fl: &FuncLowerer<'_, '_>, ins: &LI) -> bool {
    let op = |o: &LOp| is_f80(&fl.type_of_op(o));
    let t = |t: &TypeRef| is_f80(t);
    match ins {
        LI::FAdd(i) => op(&i.operand0),
        LI::FSub(i) => op(&i.operand0),
        LI::FMul(i) => op(&i.operand0),
        LI::FDiv(i) => op(&i.operand0),
        LI::FRem(i) => op(&i.operand0),
        LI::FNeg(i) => op(&i.operand),
        LI::FCmp(i) => op(&i.operand0),
        LI::FPExt(i) => t(&i.to_type),
        LI::FPTrunc(i) => op(&i.operand),
        LI::FPToSI(i) => op(&i.operand),
        LI::FPToUI(i) => op(&i.operand),
        LI::SIToFP(i) => t(&i.to_type),
        LI::UIToFP(i) => t(&i.to_type),
        LI::BitCast(i) => op(&i.operand) || t(&i.to_type),
        _ => false,
    }
}

/// The outcomes of the runtime's comparison (`a < b`, `a == b`, `a > b`,
/// unordered) for which `pred` holds, as a bit mask.
fn outcomes(pred: FPPredicate) -> u64 {
    const LT: u64 = 1;
    const EQ: u64 = 2;
    const GT: u64 = 4;
    const UNO: u64 = 8;
    match pred {
        FPPredicate::False => 0,
        FPPredicate::OEQ => EQ,
        FPPredicate::OGT => GT,
        FPPredicate::OGE => GT | EQ,
        FPPredicate::OLT => LT,
        FPPredicate::OLE => LT | EQ,
        FPPredicate::ONE => LT | GT,
        FPPredicate::ORD => LT | EQ | GT,
        FPPredicate::UNO => UNO,
        FPPredicate::UEQ => EQ | UNO,
        FPPredicate::UGT => GT | UNO,
        FPPredicate::UGE => GT | EQ | UNO,
        FPPredicate::ULT => LT | UNO,
        FPPredicate::ULE => LT | EQ | UNO,
        FPPredicate::UNE => LT | GT | UNO,
        FPPredicate::True => LT | EQ | GT | UNO,
    }
}

impl<'a, 'm> FuncLowerer<'a, 'm> {
    /// Calls runtime function `name` (which the linked runtime defines),
    /// whose result has type `ret`.
    fn runtime_call(&mut self, name: &str, args: Vec<Operand>, ret: Type) -> Res<Operand> {
        let full = format!("{RUNTIME_PREFIX}{name}");
        let Some(Sym::Func(f)) = self.cx.syms.get(&full).copied() else {
            return Err(self.unsupported(format!(
                "long double arithmetic: walkdown's runtime function @{full} is missing from the module"
            )));
        };
        Ok(self.emit_value(InstKind::Call { callee: Callee::Direct(f), args, ret: Some(ret) }))
    }

    /// Calls a runtime function that yields a `long double`: it returns
    /// the significand and stores the sign and exponent through its first
    /// parameter, here the module's exponent global.
    fn runtime_f80(&mut self, name: &str, args: Vec<Operand>) -> Res<Wide> {
        let g = self.cx.f80_exponent_global();
        let mut all = vec![Operand::Global(g)];
        all.extend(args);
        let m = self.runtime_call(name, all, Type::I64)?;
        Ok(self.f80_returned(m))
    }

    /// The `long double` a call returned: `significand`, its result, and
    /// the sign and exponent the callee left in the exponent global.
    pub(super) fn f80_returned(&mut self, significand: Operand) -> Wide {
        let g = self.cx.f80_exponent_global();
        let se = self.emit_value(InstKind::Load { ty: Type::I64, ptr: Operand::Global(g) });
        Wide { limbs: vec![significand, se], bits: 80 }
    }

    /// What a function returning the `long double` `op` returns: the
    /// significand, after storing the sign and exponent in the exponent
    /// global.
    pub(super) fn f80_return(&mut self, op: &LOp) -> Res<Operand> {
        let w = self.f80_operand(op)?;
        let g = self.cx.f80_exponent_global();
        self.emit(InstKind::Store { ty: Type::I64, ptr: Operand::Global(g), value: w.limbs[1] });
        Ok(w.limbs[0])
    }

    /// The `long double` value of `op` (a constant or a lowered value).
    pub(super) fn f80_operand(&mut self, op: &LOp) -> Res<Wide> {
        let w = self.wide_operand(op)?;
        if w.bits != 80 || w.limbs.len() != 2 {
            return Err(self.unsupported("a long double of another form"));
        }
        Ok(w)
    }

    /// The arguments of a runtime function: the limbs of each operand.
    fn f80_args(&mut self, ops: &[&LOp]) -> Res<Vec<Operand>> {
        let mut args = Vec::with_capacity(2 * ops.len());
        for op in ops {
            args.extend(self.f80_operand(op)?.limbs);
        }
        Ok(args)
    }

    /// The sign-and-exponent limb of `w` with the sign bit changed by
    /// `op` with `mask` (`xor 0x8000` negates, `and 0x7fff` is `fabs`).
    fn f80_sign(&mut self, w: &Wide, op: BinOp, mask: u64) -> Wide {
        let se = self.emit_value(InstKind::Bin { op, ty: Type::I64, lhs: w.limbs[1], rhs: c64(mask) });
        Wide { limbs: vec![w.limbs[0], se], bits: 80 }
    }

    /// Lowers an instruction [`involves_f80`] accepted.
    pub(super) fn lower_f80(&mut self, ins: &'m LI) -> Res<()> {
        match ins {
            LI::FAdd(i) => self.f80_arith("add", &i.operand0, &i.operand1, &i.dest),
            LI::FSub(i) => self.f80_arith("sub", &i.operand0, &i.operand1, &i.dest),
            LI::FMul(i) => self.f80_arith("mul", &i.operand0, &i.operand1, &i.dest),
            LI::FDiv(i) => self.f80_arith("div", &i.operand0, &i.operand1, &i.dest),
            LI::FRem(_) => Err(self.unsupported("the remainder of long doubles (`fmodl`)")),
            LI::FNeg(i) => {
                let w = self.f80_operand(&i.operand)?;
                let n = self.f80_sign(&w, BinOp::Xor, 0x8000);
                self.define_wide(&i.dest, n);
                Ok(())
            }
            LI::FCmp(i) => {
                let args = self.f80_args(&[&i.operand0, &i.operand1])?;
                let r = self.runtime_call("cmp", args, Type::I32)?;
                let bits = self.emit_value(InstKind::Bin {
                    op: BinOp::LShr,
                    ty: Type::I32,
                    lhs: c32(outcomes(i.predicate)),
                    rhs: r,
                });
                let bit = self.emit_value(InstKind::Bin { op: BinOp::And, ty: Type::I32, lhs: bits, rhs: c32(1) });
                let v = self.emit_value(InstKind::Cast { op: CastOp::Trunc, from: Type::I32, to: Type::I1, arg: bit });
                self.define(&i.dest, v);
                Ok(())
            }
            LI::FPExt(i) => {
                let from = self.scalar(&self.type_of_op(&i.operand))?;
                let x = self.operand(&i.operand)?;
                let w = match from {
                    Type::F64 => {
                        let bits = self.emit_value(InstKind::Cast {
                            op: CastOp::Bitcast,
                            from: Type::F64,
                            to: Type::I64,
                            arg: x,
                        });
                        self.runtime_f80("from_double", vec![bits])?
                    }
                    Type::F32 => {
                        let bits = self.emit_value(InstKind::Cast {
                            op: CastOp::Bitcast,
                            from: Type::F32,
                            to: Type::I32,
                            arg: x,
                        });
                        self.runtime_f80("from_float", vec![bits])?
                    }
                    other => return Err(self.unsupported(format!("a conversion of {other} to long double"))),
                };
                self.define_wide(&i.dest, w);
                Ok(())
            }
            LI::FPTrunc(i) => {
                let to = self.scalar(&i.to_type)?;
                let args = self.f80_args(&[&i.operand])?;
                let (name, bits_ty) = match to {
                    Type::F64 => ("to_double", Type::I64),
                    Type::F32 => ("to_float", Type::I32),
                    other => return Err(self.unsupported(format!("a conversion of long double to {other}"))),
                };
                let bits = self.runtime_call(name, args, bits_ty)?;
                let v = self.emit_value(InstKind::Cast { op: CastOp::Bitcast, from: bits_ty, to, arg: bits });
                self.define(&i.dest, v);
                Ok(())
            }
            LI::FPToSI(i) => self.f80_to_int(&i.operand, &i.to_type, true, &i.dest),
            LI::FPToUI(i) => self.f80_to_int(&i.operand, &i.to_type, false, &i.dest),
            LI::SIToFP(i) => self.int_to_f80(&i.operand, true, &i.dest),
            LI::UIToFP(i) => self.int_to_f80(&i.operand, false, &i.dest),
            LI::BitCast(i) => {
                // `x86_fp80` and `i80` have the same limbs (clang's
                // `__builtin_signbit` reads the sign this way).
                if limb_bits(&self.type_of_op(&i.operand)) != Some(80) || limb_bits(&i.to_type) != Some(80) {
                    return Err(self.unsupported("a bit cast of a long double to or from a type of another width"));
                }
                let w = self.wide_operand(&i.operand)?;
                self.define_wide(&i.dest, w);
                Ok(())
            }
            other => Err(self.unsupported(format!("instruction `{other}` on a long double"))),
        }
    }

    fn f80_arith(&mut self, name: &str, a: &LOp, b: &LOp, dest: &'m Name) -> Res<()> {
        let args = self.f80_args(&[a, b])?;
        let w = self.runtime_f80(name, args)?;
        self.define_wide(dest, w);
        Ok(())
    }

    fn f80_to_int(&mut self, op: &LOp, to_type: &TypeRef, signed: bool, dest: &'m Name) -> Res<()> {
        let bits = match to_type.as_ref() {
            LType::IntegerType { bits } if *bits <= 64 => *bits,
            _ => return Err(self.unsupported(format!("a conversion of long double to {to_type}"))),
        };
        let to = self.scalar(to_type)?;
        let mut args = self.f80_args(&[op])?;
        // The runtime converts to the C type of the next standard width
        // (what the native build's instructions do for that type); a
        // narrower LLVM width (`i1`) keeps its low bits.
        let width = [8, 16, 32, 64].into_iter().find(|&w| w >= bits).unwrap_or(64);
        args.push(c32(u64::from(width)));
        args.push(c32(u64::from(signed)));
        let v = self.runtime_call("to_int", args, Type::I64)?;
        let v = self.int_cast(v, to, false);
        let v = if bits < to.bits(self.dm()) { self.mask_odd(to, v, bits) } else { v };
        self.define(dest, v);
        Ok(())
    }

    fn int_to_f80(&mut self, op: &LOp, signed: bool, dest: &'m Name) -> Res<()> {
        let from_llvm = self.type_of_op(op);
        let n = match from_llvm.as_ref() {
            LType::IntegerType { bits } if *bits <= 64 => *bits,
            _ => return Err(self.unsupported(format!("a conversion of {from_llvm} to long double"))),
        };
        let from = self.scalar(&from_llvm)?;
        let mut x = self.operand(op)?;
        if signed && n < from.bits(self.dm()) {
            x = self.sext_odd(from, x, n);
        }
        let x = self.int_cast(x, Type::I64, signed);
        let w = self.runtime_f80("from_int", vec![x, c32(u64::from(signed))])?;
        self.define_wide(dest, w);
        Ok(())
    }

    /// `llvm.fabs.f80`, `llvm.copysign.f80`, `llvm.sqrt.f80` and the
    /// rounding intrinsics, and the C library's `fabsl`, `copysignl`,
    /// `sqrtl`, `floorl`, `ceill`, `truncl`, `roundl`, `rintl` and
    /// `nearbyintl` (which `-fno-builtin` leaves calls): returns whether
    /// `name` was one of them.
    pub(super) fn f80_math(&mut self, name: &str, c: &'m llvm_ir::instruction::Call) -> Res<bool> {
        let args: Vec<&LOp> = c.arguments.iter().map(|(a, _)| a).collect();
        if !args.iter().all(|a| is_f80(&self.type_of_op(a))) || args.is_empty() {
            return Ok(false);
        }
        let w = match (name, args.as_slice()) {
            ("fabs.f80" | "fabsl", [x]) => {
                let w = self.f80_operand(x)?;
                self.f80_sign(&w, BinOp::And, 0x7fff)
            }
            ("copysign.f80" | "copysignl", [x, y]) => {
                let (x, y) = (self.f80_operand(x)?, self.f80_operand(y)?);
                let mag =
                    self.emit_value(InstKind::Bin { op: BinOp::And, ty: Type::I64, lhs: x.limbs[1], rhs: c64(0x7fff) });
                let sign =
                    self.emit_value(InstKind::Bin { op: BinOp::And, ty: Type::I64, lhs: y.limbs[1], rhs: c64(0x8000) });
                let se = self.emit_value(InstKind::Bin { op: BinOp::Or, ty: Type::I64, lhs: mag, rhs: sign });
                Wide { limbs: vec![x.limbs[0], se], bits: 80 }
            }
            ("sqrt.f80" | "sqrtl", [x]) => {
                let a = self.f80_args(&[x])?;
                self.runtime_f80("sqrt", a)?
            }
            (
                "floor.f80" | "floorl" | "ceil.f80" | "ceill" | "trunc.f80" | "truncl" | "round.f80" | "roundl"
                | "rint.f80" | "rintl" | "nearbyint.f80" | "nearbyintl",
                [x],
            ) => {
                // The runtime's modes; rint and nearbyint round in the
                // default mode, to nearest even.
                let mode = match name {
                    "floor.f80" | "floorl" => 0,
                    "ceil.f80" | "ceill" => 1,
                    "trunc.f80" | "truncl" => 2,
                    "round.f80" | "roundl" => 3,
                    _ => 4,
                };
                let mut a = self.f80_args(&[x])?;
                a.push(c32(mode));
                self.runtime_f80("round_int", a)?
            }
            _ => return Ok(false),
        };
        if let Some(dest) = &c.dest {
            self.define_wide(dest, w);
        }
        Ok(true)
    }
}
