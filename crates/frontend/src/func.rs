//! Lowering one LLVM function: blocks (phis become block parameters),
//! instructions, constant operands, calls, intrinsics and the Test-Comp
//! functions.

mod calls;
mod f80;
mod memory;
mod terms;
mod wide;

use crate::consts::{const_address, sign_extend};
use crate::error::FrontendError;
use crate::layout::{container, is_f80, limb_bits, odd_int_bits};
use crate::module::{name_text, ModuleCx, Sym};
use llvm_ir::instruction::{self as li, Instruction as LI};
use llvm_ir::predicates::{FPPredicate, IntPredicate};
use llvm_ir::terminator::{self as li_term, Terminator as LT};
use llvm_ir::{Constant, ConstantRef, Function, HasDebugLoc, Name, Operand as LOp, Type as LType, TypeRef};
use std::collections::{HashMap, HashSet};
use walkdown_ir::testvec::truncate;
use walkdown_ir::{
    BinOp, Block, BlockCall, Body, Callee, CastOp, CheckKind, CmpPred, Const, FuncData, InstKind, Loc, Operand,
    Terminator, Type, UnOp, Value,
};

/// What an LLVM value lowers to.
#[derive(Clone, Copy, Debug)]
enum Lowered {
    One(Operand),
    /// The `{ result, overflow }` pair of a `*.with.overflow` intrinsic.
    Pair(Operand, Operand),
    /// A first-class struct, array or vector value (a struct of 9 to 16
    /// bytes returned in registers, `{ i64, i64 }`, `{ double, double }`,
    /// `<2 x float>`): its scalar leaves, index into `FuncLowerer::aggs`.
    Agg(usize),
    /// An integer wider than 64 bits, as `i64` limbs: index into
    /// `FuncLowerer::wides` (see `wide.rs`).
    Wide(usize),
}

/// One scalar of an aggregate value.
#[derive(Clone, Debug)]
struct Leaf {
    /// Its index path (`extractvalue`'s indices).
    path: Vec<u32>,
    /// Its byte offset in the aggregate's memory layout.
    off: u64,
    /// Its LLVM type (a first-class scalar).
    ty: TypeRef,
    /// Its value, once known.
    val: Option<Operand>,
}

type Res<T> = Result<T, FrontendError>;

/// Lowers the body of `f` into the function of the same name.
pub fn lower_function<'m>(cx: &mut ModuleCx<'m>, f: &'m Function) -> Res<()> {
    let Some(Sym::Func(fid)) = cx.syms.get(&f.name).copied() else {
        return Err(cx.unsupported(format!("function @{}", f.name), Loc::UNKNOWN));
    };
    let func_loc = cx.program.funcs[fid].loc;
    let mut fl = FuncLowerer {
        cx,
        f,
        body: Body::default(),
        blocks: HashMap::new(),
        locals: HashMap::new(),
        phis: HashMap::new(),
        wide_phis: HashMap::new(),
        wides: Vec::new(),
        cur: Body::ENTRY,
        cur_name: None,
        cur_dest: None,
        loc: func_loc,
        func_loc,
        aggs: Vec::new(),
        ret_ptr: None,
        va: None,
    };
    fl.run()?;
    let loops = fl.source_loops();
    let body = fl.body;
    if !loops.is_empty() {
        cx.sources.loops.insert(fid, loops);
    }
    cx.program.funcs[fid].body = Some(body);
    Ok(())
}

struct FuncLowerer<'a, 'm> {
    cx: &'a mut ModuleCx<'m>,
    f: &'m Function,
    body: Body,
    blocks: HashMap<&'m Name, Block>,
    locals: HashMap<&'m Name, Lowered>,
    phis: HashMap<&'m Name, Vec<&'m li::Phi>>,
    /// The wide phis of each block (see [`Lowered::Wide`]).
    wide_phis: HashMap<&'m Name, Vec<&'m li::Phi>>,
    /// The limbs of the wide values ([`Lowered::Wide`]).
    wides: Vec<wide::Wide>,
    cur: Block,
    cur_name: Option<&'m Name>,
    /// The result name of the instruction being lowered (it tells apart
    /// wide constants with the same low bits; see `wideconst.rs`).
    cur_dest: Option<&'m Name>,
    loc: Loc,
    func_loc: Loc,
    /// The leaves of the aggregate values ([`Lowered::Agg`]).
    aggs: Vec<Vec<Leaf>>,
    /// Where a function returning an aggregate stores it: the hidden
    /// pointer parameter the lowering adds in front of its parameters.
    ret_ptr: Option<Operand>,
    /// In a variadic function: the pointer to its variable arguments'
    /// memory, and the general-purpose and floating-point registers its
    /// named parameters take (where `va_start` begins).
    va: Option<(Operand, u64, u64)>,
}

/// x86-64 System V: six general-purpose argument registers of 8 bytes,
/// then eight vector registers of 16 bytes, in the register save area.
const VA_GP_REGS: u64 = 6;
const VA_FP_REGS: u64 = 8;
const VA_REG_SAVE: u64 = 8 * VA_GP_REGS + 16 * VA_FP_REGS;

/// Whether a parameter is passed in memory (a struct passed by value).
fn is_byval(attrs: &[llvm_ir::function::ParameterAttribute]) -> Option<&TypeRef> {
    attrs.iter().find_map(|a| match a {
        llvm_ir::function::ParameterAttribute::ByVal(t) => Some(t),
        _ => None,
    })
}

/// Whether values of `ty` are aggregates the lowering splits into scalars.
pub(crate) fn is_aggregate(ty: &LType) -> bool {
    matches!(
        ty,
        LType::StructType { .. } | LType::NamedStructType { .. } | LType::ArrayType { .. } | LType::VectorType { .. }
    )
}

impl<'a, 'm> FuncLowerer<'a, 'm> {
    fn unsupported(&self, what: impl Into<String>) -> FrontendError {
        let loc = if self.loc.is_known() { self.loc } else { self.func_loc };
        if loc.is_known() {
            self.cx.unsupported(what, loc)
        } else {
            // Code without debug information (the C library's) has no line
            // to name; the function at least says where to look.
            self.cx.unsupported(format!("{} (in @{})", what.into(), self.f.name), loc)
        }
    }

    fn dm(&self) -> walkdown_ir::DataModel {
        self.cx.layout.dm
    }

    fn pint(&self) -> Type {
        self.dm().pointer_int()
    }

    fn scalar(&self, ty: &LType) -> Res<Type> {
        self.cx.layout.scalar(ty).map_err(|e| self.unsupported(e))
    }

    fn type_of_op(&self, op: &LOp) -> TypeRef {
        self.cx.module.types.type_of(op)
    }

    fn run(&mut self) -> Res<()> {
        let f = self.f;
        for bb in &f.basic_blocks {
            let b = self.body.add_block();
            self.blocks.insert(&bb.name, b);
        }
        if f.basic_blocks.is_empty() {
            return Err(self.unsupported(format!("function @{} without blocks", f.name)));
        }
        if is_aggregate(&f.return_type) {
            // A returned aggregate goes through memory the caller provides
            // (see `ModuleCx::declare_symbols`).
            let v = self.body.add_param(Body::ENTRY, Type::Ptr);
            self.ret_ptr = Some(Operand::Value(v));
        }
        let mut byval = Vec::new();
        for p in &f.parameters {
            if is_f80(&p.ty) {
                let limbs = (0..2).map(|_| Operand::Value(self.body.add_param(Body::ENTRY, Type::I64))).collect();
                let w = self.new_wide(wide::Wide { limbs, bits: 80 });
                self.locals.insert(&p.name, w);
                continue;
            }
            let ty = self.scalar(&p.ty)?;
            let v = self.body.add_param(Body::ENTRY, ty);
            self.locals.insert(&p.name, Lowered::One(Operand::Value(v)));
            if let Some(t) = is_byval(&p.attributes) {
                byval.push((&p.name, t, v));
            }
        }
        if f.is_var_arg {
            let area = self.body.add_param(Body::ENTRY, Type::Ptr);
            let (mut gp, mut fp) = (0, 0);
            for p in &f.parameters {
                if is_byval(&p.attributes).is_some() || is_f80(&p.ty) {
                    continue; // passed in memory, not in a register
                }
                match self.scalar(&p.ty)? {
                    Type::F32 | Type::F64 => fp += 1,
                    _ => gp += 1,
                }
            }
            self.va = Some((Operand::Value(area), gp, fp));
        }
        // A struct passed by value (`byval`) arrives as a pointer to the
        // caller's object; the ABI gives the callee its own copy, so the
        // callee's writes must not reach the caller's object. The copy is
        // made on entry, before any instruction of the body.
        self.cur = Body::ENTRY;
        self.loc = self.func_loc;
        for (name, t, v) in byval {
            let size = self.cx.layout.size_of(t).map_err(|e| self.unsupported(e))?;
            let align = self.cx.layout.align_of(t).map_err(|e| self.unsupported(e))?.max(1) as u32;
            let n = Operand::Const(Const::int(self.pint(), size as i64, self.dm()));
            let copy = self.emit_value(InstKind::Alloca { size: n, align });
            self.libc_call(
                "memcpy",
                vec![Type::Ptr, Type::Ptr, self.pint()],
                Some(Type::Ptr),
                vec![copy, Operand::Value(v), n],
            )?;
            self.locals.insert(name, Lowered::One(copy));
        }
        for bb in &f.basic_blocks {
            let b = self.blocks[&bb.name];
            for ins in &bb.instrs {
                if let LI::Phi(phi) = ins {
                    self.loc = self.cx.loc(&phi.debugloc);
                    if limb_bits(&phi.to_type).is_some() {
                        continue;
                    }
                    let ty = self.scalar(&phi.to_type)?;
                    let v = self.body.add_param(b, ty);
                    self.locals.insert(&phi.dest, Lowered::One(Operand::Value(v)));
                    self.phis.entry(&bb.name).or_default().push(phi);
                }
            }
        }
        // Wide phis take one parameter per limb, after the others, so that
        // the others keep their positions (`decision_arg` relies on them).
        for bb in &f.basic_blocks {
            let b = self.blocks[&bb.name];
            for ins in &bb.instrs {
                if let LI::Phi(phi) = ins {
                    if let Some(bits) = limb_bits(&phi.to_type) {
                        self.wide_phi(b, phi, bits);
                        self.wide_phis.entry(&bb.name).or_default().push(phi);
                    }
                }
            }
        }
        if f.name == "reach_error" {
            // Entering reach_error is the error, whatever its body does
            // (the native harness recognises it the same way).
            self.loc = self.func_loc;
            self.emit(InstKind::Check { kind: CheckKind::ReachError, cond: Const::bool(false).into() });
        }
        for idx in reverse_postorder(f) {
            let bb = &f.basic_blocks[idx];
            self.cur = self.blocks[&bb.name];
            self.cur_name = Some(&bb.name);
            for ins in &bb.instrs {
                self.loc = self.cx.loc(ins.get_debug_loc());
                self.cur_dest = ins.try_get_result();
                if f80::involves_f80(self, ins) {
                    self.lower_f80(ins)?;
                } else if wide::involves_wide(self, ins) {
                    self.lower_wide(ins)?;
                } else {
                    self.lower_inst(ins)?;
                }
            }
            self.cur_dest = None;
            self.loc = self.cx.loc(bb.term.get_debug_loc());
            self.lower_term(&bb.term)?;
        }
        Ok(())
    }

    /// The function's source loops, from the debug facts of its text.
    fn source_loops(&self) -> Vec<walkdown_ir::source::SourceLoop> {
        let Some(text) = self.cx.debug.as_ref().and_then(|d| d.funcs.get(&self.f.name).map(|t| (d, t))) else {
            return Vec::new();
        };
        let name_of = |n: &Name| match n {
            Name::Name(s) => s.to_string(),
            Name::Number(k) => k.to_string(),
        };
        let entry = self.f.basic_blocks.first().map(|b| &b.name);
        let blocks =
            self.blocks.iter().map(|(n, b)| (if Some(*n) == entry { String::new() } else { name_of(n) }, *b)).collect();
        let values = self
            .locals
            .iter()
            .filter_map(|(n, l)| match l {
                Lowered::One(op) => Some((name_of(n), *op)),
                _ => None,
            })
            .collect();
        let names = crate::debuginfo::NameMaps { blocks, values };
        let file = self.func_loc.file;
        crate::debuginfo::source_loops(text.0, text.1, &self.body, &names, |l| Loc { file, ..l })
    }

    fn emit(&mut self, kind: InstKind) -> Option<Value> {
        self.body.append(self.cur, kind, self.loc).1
    }

    fn emit_value(&mut self, kind: InstKind) -> Operand {
        match self.emit(kind) {
            Some(v) => Operand::Value(v),
            None => Operand::Const(Const::bool(false)),
        }
    }

    fn define(&mut self, name: &'m Name, op: Operand) {
        self.locals.insert(name, Lowered::One(op));
    }

    // ---------------------------------------------------------------- operands

    fn operand(&mut self, op: &LOp) -> Res<Operand> {
        match self.lowered(op)? {
            Lowered::One(o) => Ok(o),
            Lowered::Pair(..) | Lowered::Agg(_) => Err(self.unsupported("an aggregate value used as a scalar")),
            Lowered::Wide(w) => Err(self.unsupported(format!(
                "a {}-bit integer in this use (integers wider than 64 bits are lowered in arithmetic, comparisons, casts, selects, phis, loads and stores only)",
                self.wides[w].bits
            ))),
        }
    }

    fn lowered(&mut self, op: &LOp) -> Res<Lowered> {
        match op {
            LOp::LocalOperand { name, .. } => match self.locals.get(name) {
                Some(l) => Ok(*l),
                None => Err(self.unsupported(format!("use of %{} before its definition", name_text(name)))),
            },
            LOp::ConstantOperand(c) if is_aggregate(&self.cx.module.types.type_of(c)) => self.constant_agg(c),
            LOp::ConstantOperand(c) => self.constant(c).map(Lowered::One),
            LOp::MetadataOperand => Err(self.unsupported("a metadata operand")),
        }
    }

    fn constant(&mut self, c: &ConstantRef) -> Res<Operand> {
        match c.as_ref() {
            Constant::Int { bits, value } => match container(*bits) {
                Some(ty) => Ok(Operand::Const(Const { ty, bits: truncate(*value, *bits) })),
                None => Err(self.unsupported(format!("{bits}-bit integer constant"))),
            },
            Constant::Float(llvm_ir::constant::Float::Single(x)) => {
                Ok(Operand::Const(Const { ty: Type::F32, bits: u64::from(x.to_bits()) }))
            }
            Constant::Float(llvm_ir::constant::Float::Double(x)) => {
                Ok(Operand::Const(Const { ty: Type::F64, bits: x.to_bits() }))
            }
            Constant::Null(_) => Ok(Operand::Const(Const::null())),
            Constant::Undef(t) | Constant::Poison(t) | Constant::AggregateZero(t) => {
                // Reading an undefined value is undefined in C; zero is one
                // admissible choice and keeps runs deterministic.
                let ty = self.scalar(t)?;
                Ok(Operand::Const(Const { ty, bits: 0 }))
            }
            Constant::GlobalReference { name, .. } => match self.cx.syms.get(&name_text(name)) {
                Some(Sym::Global(g)) => Ok(Operand::Global(*g)),
                Some(Sym::Func(f)) => Ok(Operand::Func(*f)),
                None => Err(self.unsupported(format!("the address of @{}", name_text(name)))),
            },
            Constant::GetElementPtr(_) | Constant::BitCast(_) | Constant::AddrSpaceCast(_) => {
                match const_address(self.cx, c).map_err(|e| self.unsupported(e))? {
                    Some((sym, off)) => {
                        let base = match sym {
                            Sym::Global(g) => Operand::Global(g),
                            Sym::Func(f) => Operand::Func(f),
                        };
                        Ok(self.ptr_add_const(base, off))
                    }
                    None => Err(self.unsupported(format!("constant expression {c}"))),
                }
            }
            Constant::PtrToInt(p) => {
                let arg = self.constant(&p.operand)?;
                let to = self.scalar(&p.to_type)?;
                Ok(self.emit_value(InstKind::Cast { op: CastOp::PtrToInt, from: Type::Ptr, to, arg }))
            }
            Constant::IntToPtr(p) => {
                let arg = self.constant(&p.operand)?;
                let from = self.operand_type(&arg);
                Ok(self.emit_value(InstKind::Cast { op: CastOp::IntToPtr, from, to: Type::Ptr, arg }))
            }
            // Integer constant expressions clang could not fold, such as
            // `&a[3][1] == &b[0][2]` (`icmp` of two global addresses) and
            // what is built on them: computed by instructions, so the
            // addresses are the ones objects have in the run.
            Constant::ICmp(i) => {
                let ty = self.scalar(&self.cx.module.types.type_of(&i.operand0))?;
                let (mut lhs, mut rhs) = (self.constant(&i.operand0)?, self.constant(&i.operand1)?);
                let pred = int_pred(i.predicate);
                let odd = odd_int_bits(&self.cx.module.types.type_of(&i.operand0));
                if let (Some(n), CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge) = (odd, pred) {
                    lhs = self.sext_odd(ty, lhs, n);
                    rhs = self.sext_odd(ty, rhs, n);
                }
                Ok(self.emit_value(InstKind::Cmp { pred, ty, lhs, rhs }))
            }
            Constant::ZExt(x) => self.constant_cast(CastOp::ZExt, &x.operand, &x.to_type),
            Constant::SExt(x) => self.constant_cast(CastOp::SExt, &x.operand, &x.to_type),
            Constant::Trunc(x) => self.constant_cast(CastOp::Trunc, &x.operand, &x.to_type),
            Constant::Add(x) => self.constant_bin(BinOp::Add, &x.operand0, &x.operand1),
            Constant::Sub(x) => self.constant_bin(BinOp::Sub, &x.operand0, &x.operand1),
            Constant::Mul(x) => self.constant_bin(BinOp::Mul, &x.operand0, &x.operand1),
            Constant::And(x) => self.constant_bin(BinOp::And, &x.operand0, &x.operand1),
            Constant::Or(x) => self.constant_bin(BinOp::Or, &x.operand0, &x.operand1),
            Constant::Xor(x) => self.constant_bin(BinOp::Xor, &x.operand0, &x.operand1),
            Constant::Shl(x) => self.constant_bin(BinOp::Shl, &x.operand0, &x.operand1),
            Constant::LShr(x) => self.constant_bin(BinOp::LShr, &x.operand0, &x.operand1),
            Constant::AShr(x) => self.constant_bin(BinOp::AShr, &x.operand0, &x.operand1),
            Constant::Select(x) => {
                let ty = self.scalar(&self.cx.module.types.type_of(&x.true_value))?;
                let cond = self.constant(&x.condition)?;
                let if_true = self.constant(&x.true_value)?;
                let if_false = self.constant(&x.false_value)?;
                Ok(self.emit_value(InstKind::Select { ty, cond, if_true, if_false }))
            }
            other => Err(self.unsupported(format!("constant expression {other}"))),
        }
    }

    /// A cast constant expression, computed by an instruction.
    fn constant_cast(&mut self, op: CastOp, a: &ConstantRef, to_ty: &TypeRef) -> Res<Operand> {
        let from_ty = self.cx.module.types.type_of(a);
        let (from, to) = (self.scalar(&from_ty)?, self.scalar(to_ty)?);
        let arg = self.constant(a)?;
        let (from_odd, to_odd) = (odd_int_bits(&from_ty), odd_int_bits(to_ty));
        if from_odd.is_some() || to_odd.is_some() {
            return self.cast_odd(op, arg, from, to, from_odd, to_odd);
        }
        Ok(if from == to { arg } else { self.emit_value(InstKind::Cast { op, from, to, arg }) })
    }

    /// A binary constant expression (no division: clang folds those or
    /// they divide by zero), computed by an instruction.
    fn constant_bin(&mut self, op: BinOp, a: &ConstantRef, b: &ConstantRef) -> Res<Operand> {
        let lty = self.cx.module.types.type_of(a);
        let ty = self.scalar(&lty)?;
        let (mut lhs, rhs) = (self.constant(a)?, self.constant(b)?);
        let odd = odd_int_bits(&lty);
        if let (Some(n), BinOp::AShr) = (odd, op) {
            lhs = self.sext_odd(ty, lhs, n);
        }
        let mut v = self.emit_value(InstKind::Bin { op, ty, lhs, rhs });
        if let (Some(n), BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::AShr) = (odd, op) {
            v = self.mask_odd(ty, v, n);
        }
        Ok(v)
    }

    fn operand_type(&self, o: &Operand) -> Type {
        self.body.operand_type(o)
    }

    fn lower_inst(&mut self, ins: &'m LI) -> Res<()> {
        match ins {
            LI::Add(i) => self.bin(BinOp::Add, &i.operand0, &i.operand1, &i.dest),
            LI::Sub(i) => self.bin(BinOp::Sub, &i.operand0, &i.operand1, &i.dest),
            LI::Mul(i) => self.bin(BinOp::Mul, &i.operand0, &i.operand1, &i.dest),
            LI::UDiv(i) => self.div(BinOp::UDiv, &i.operand0, &i.operand1, &i.dest),
            LI::SDiv(i) => self.div(BinOp::SDiv, &i.operand0, &i.operand1, &i.dest),
            LI::URem(i) => self.div(BinOp::URem, &i.operand0, &i.operand1, &i.dest),
            LI::SRem(i) => self.div(BinOp::SRem, &i.operand0, &i.operand1, &i.dest),
            LI::And(i) => self.bin(BinOp::And, &i.operand0, &i.operand1, &i.dest),
            LI::Or(i) => self.bin(BinOp::Or, &i.operand0, &i.operand1, &i.dest),
            LI::Xor(i) => self.bin(BinOp::Xor, &i.operand0, &i.operand1, &i.dest),
            LI::Shl(i) => self.bin(BinOp::Shl, &i.operand0, &i.operand1, &i.dest),
            LI::LShr(i) => self.bin(BinOp::LShr, &i.operand0, &i.operand1, &i.dest),
            LI::AShr(i) => self.bin(BinOp::AShr, &i.operand0, &i.operand1, &i.dest),
            LI::FAdd(i) => self.bin(BinOp::FAdd, &i.operand0, &i.operand1, &i.dest),
            LI::FSub(i) => self.bin(BinOp::FSub, &i.operand0, &i.operand1, &i.dest),
            LI::FMul(i) => self.bin(BinOp::FMul, &i.operand0, &i.operand1, &i.dest),
            LI::FDiv(i) => self.bin(BinOp::FDiv, &i.operand0, &i.operand1, &i.dest),
            LI::FRem(i) => self.bin(BinOp::FRem, &i.operand0, &i.operand1, &i.dest),
            LI::FNeg(i) => {
                let ty = self.scalar(&self.type_of_op(&i.operand))?;
                let arg = self.operand(&i.operand)?;
                let v = self.emit_value(InstKind::Un { op: UnOp::FNeg, ty, arg });
                self.define(&i.dest, v);
                Ok(())
            }
            LI::ICmp(i) => {
                let ty = self.scalar(&self.type_of_op(&i.operand0))?;
                let (mut lhs, mut rhs) = (self.operand(&i.operand0)?, self.operand(&i.operand1)?);
                let pred = int_pred(i.predicate);
                if let (Some(n), CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge) =
                    (self.odd(&i.operand0), pred)
                {
                    lhs = self.sext_odd(ty, lhs, n);
                    rhs = self.sext_odd(ty, rhs, n);
                }
                let v = self.emit_value(InstKind::Cmp { pred, ty, lhs, rhs });
                self.define(&i.dest, v);
                Ok(())
            }
            LI::FCmp(i) => {
                let ty = self.scalar(&self.type_of_op(&i.operand0))?;
                let (lhs, rhs) = (self.operand(&i.operand0)?, self.operand(&i.operand1)?);
                let v = match fp_pred(i.predicate) {
                    Ok(pred) => self.emit_value(InstKind::Cmp { pred, ty, lhs, rhs }),
                    Err(b) => Operand::Const(Const::bool(b)),
                };
                self.define(&i.dest, v);
                Ok(())
            }
            LI::Trunc(i) => self.cast(CastOp::Trunc, &i.operand, &i.to_type, &i.dest),
            LI::ZExt(i) => self.cast(CastOp::ZExt, &i.operand, &i.to_type, &i.dest),
            LI::SExt(i) => self.cast(CastOp::SExt, &i.operand, &i.to_type, &i.dest),
            LI::FPTrunc(i) => self.cast(CastOp::FpTrunc, &i.operand, &i.to_type, &i.dest),
            LI::FPExt(i) => self.cast(CastOp::FpExt, &i.operand, &i.to_type, &i.dest),
            LI::FPToUI(i) => self.cast(CastOp::FpToUi, &i.operand, &i.to_type, &i.dest),
            LI::FPToSI(i) => self.cast(CastOp::FpToSi, &i.operand, &i.to_type, &i.dest),
            LI::UIToFP(i) => self.cast(CastOp::UiToFp, &i.operand, &i.to_type, &i.dest),
            LI::SIToFP(i) => self.cast(CastOp::SiToFp, &i.operand, &i.to_type, &i.dest),
            LI::PtrToInt(i) => self.cast(CastOp::PtrToInt, &i.operand, &i.to_type, &i.dest),
            LI::IntToPtr(i) => self.cast(CastOp::IntToPtr, &i.operand, &i.to_type, &i.dest),
            LI::BitCast(i) => self.cast(CastOp::Bitcast, &i.operand, &i.to_type, &i.dest),
            LI::AddrSpaceCast(i) => {
                let o = self.operand(&i.operand)?;
                self.define(&i.dest, o);
                Ok(())
            }
            LI::Freeze(i) => {
                let o = self.operand(&i.operand)?;
                self.define(&i.dest, o);
                Ok(())
            }
            LI::Select(i) => {
                let ty = self.scalar(&self.type_of_op(&i.true_value))?;
                let cond = self.operand(&i.condition)?;
                let if_true = self.operand(&i.true_value)?;
                let if_false = self.operand(&i.false_value)?;
                let v = self.emit_value(InstKind::Select { ty, cond, if_true, if_false });
                self.define(&i.dest, v);
                Ok(())
            }
            LI::Alloca(i) => self.alloca(i),
            LI::Load(i) if self.aggregate_pointee(&i.address).is_some() => {
                let ty = self.aggregate_pointee(&i.address).ok_or_else(|| self.unsupported("an aggregate load"))?;
                let ptr = self.operand(&i.address)?;
                let agg = self.load_agg(&ty, ptr)?;
                self.locals.insert(&i.dest, agg);
                Ok(())
            }
            LI::Store(i) if is_aggregate(&self.type_of_op(&i.value)) => {
                let leaves = self.agg_operand(&i.value)?;
                let ptr = self.operand(&i.address)?;
                self.store_agg(&leaves, ptr)
            }
            LI::Load(i) => {
                let ty = match self.type_of_op(&i.address).as_ref() {
                    LType::PointerType { pointee_type, .. } => self.scalar(pointee_type)?,
                    other => return Err(self.unsupported(format!("load through {other}"))),
                };
                let ptr = self.operand(&i.address)?;
                let odd = match self.type_of_op(&i.address).as_ref() {
                    LType::PointerType { pointee_type, .. } => odd_int_bits(pointee_type),
                    _ => None,
                };
                let v = match odd {
                    Some(n) => self.load_odd(ptr, n),
                    None => self.emit_value(InstKind::Load { ty, ptr }),
                };
                self.define(&i.dest, v);
                Ok(())
            }
            LI::Store(i) => {
                let ty = self.scalar(&self.type_of_op(&i.value))?;
                let ptr = self.operand(&i.address)?;
                let value = self.operand(&i.value)?;
                match self.odd(&i.value) {
                    Some(n) => self.store_odd(ptr, value, n),
                    None => {
                        self.emit(InstKind::Store { ty, ptr, value });
                    }
                }
                Ok(())
            }
            LI::GetElementPtr(i) => self.gep(i),
            LI::Phi(_) => Ok(()), // became block parameters
            LI::Call(c) => self.call(c),
            LI::ExtractValue(i) => {
                let agg = self.lowered(&i.aggregate)?;
                let v = match (agg, i.indices.as_slice()) {
                    (Lowered::Pair(a, _), [0]) => a,
                    (Lowered::Pair(_, b), [1]) => b,
                    (Lowered::Agg(k), path) => {
                        let sub: Vec<Leaf> =
                            self.aggs[k].iter().filter(|l| l.path.starts_with(path)).cloned().collect();
                        match sub.as_slice() {
                            [one] if one.path.len() == path.len() => match one.val {
                                Some(v) => v,
                                None => return Err(self.unsupported("extractvalue of an undefined part")),
                            },
                            [first, ..] => {
                                let base = first.off;
                                let sub = sub
                                    .iter()
                                    .map(|l| Leaf {
                                        path: l.path[path.len()..].to_vec(),
                                        off: l.off - base,
                                        ..l.clone()
                                    })
                                    .collect();
                                let agg = self.new_agg(sub);
                                self.locals.insert(&i.dest, agg);
                                return Ok(());
                            }
                            [] => return Err(self.unsupported("extractvalue of a missing part")),
                        }
                    }
                    _ => return Err(self.unsupported("extractvalue from an aggregate value")),
                };
                self.define(&i.dest, v);
                Ok(())
            }
            LI::InsertValue(i) => {
                let mut leaves = self.agg_operand(&i.aggregate)?;
                let path = i.indices.as_slice();
                if is_aggregate(&self.type_of_op(&i.element)) {
                    let parts = self.agg_operand(&i.element)?;
                    for leaf in leaves.iter_mut().filter(|l| l.path.starts_with(path)) {
                        let rest = &leaf.path[path.len()..];
                        leaf.val = parts.iter().find(|p| p.path == rest).and_then(|p| p.val);
                    }
                } else {
                    let v = self.operand(&i.element)?;
                    match leaves.iter_mut().find(|l| l.path == path) {
                        Some(leaf) => leaf.val = Some(v),
                        None => return Err(self.unsupported("insertvalue into a missing part")),
                    }
                }
                let agg = self.new_agg(leaves);
                self.locals.insert(&i.dest, agg);
                Ok(())
            }
            other => {
                let text = other.to_string();
                let short: String = text.chars().take(80).collect();
                Err(self.unsupported(format!("instruction `{}`", short.trim())))
            }
        }
    }

    fn bin(&mut self, op: BinOp, a: &LOp, b: &LOp, dest: &'m Name) -> Res<()> {
        let ty = self.scalar(&self.type_of_op(a))?;
        let (mut lhs, rhs) = (self.operand(a)?, self.operand(b)?);
        let odd = self.odd(a);
        if let (Some(n), BinOp::AShr) = (odd, op) {
            lhs = self.sext_odd(ty, lhs, n);
        }
        let mut v = self.emit_value(InstKind::Bin { op, ty, lhs, rhs });
        if let (Some(n), BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::AShr) = (odd, op) {
            v = self.mask_odd(ty, v, n);
        }
        self.define(dest, v);
        Ok(())
    }

    /// Division and remainder, after checks that the divisor is not zero
    /// and, when signed, that the quotient does not overflow (`MIN / -1`
    /// traps on x86 just like division by zero).
    fn div(&mut self, op: BinOp, a: &LOp, b: &LOp, dest: &'m Name) -> Res<()> {
        let ty = self.scalar(&self.type_of_op(a))?;
        let (lhs, rhs) = (self.operand(a)?, self.operand(b)?);
        let odd = self.odd(a);
        let bits = odd.unwrap_or_else(|| ty.bits(self.dm()));
        let zero = Operand::Const(Const { ty, bits: 0 });
        if !matches!(rhs, Operand::Const(c) if c.bits != 0) {
            let nonzero = self.emit_value(InstKind::Cmp { pred: CmpPred::Ne, ty, lhs: rhs, rhs: zero });
            self.emit(InstKind::Check { kind: CheckKind::DivByZero, cond: nonzero });
        }
        let minus_one = truncate(u64::MAX, bits);
        if matches!(op, BinOp::SDiv | BinOp::SRem) && !matches!(rhs, Operand::Const(c) if c.bits != minus_one) {
            let min = Operand::Const(Const { ty, bits: 1u64 << (bits - 1) });
            let is_min = self.emit_value(InstKind::Cmp { pred: CmpPred::Ne, ty, lhs, rhs: min });
            let m1 = Operand::Const(Const { ty, bits: minus_one });
            let not_m1 = self.emit_value(InstKind::Cmp { pred: CmpPred::Ne, ty, lhs: rhs, rhs: m1 });
            let ok = self.emit_value(InstKind::Bin { op: BinOp::Or, ty: Type::I1, lhs: is_min, rhs: not_m1 });
            self.emit(InstKind::Check { kind: CheckKind::Overflow, cond: ok });
        }
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        let v = match odd {
            Some(n) if signed => {
                let (l, r) = (self.sext_odd(ty, lhs, n), self.sext_odd(ty, rhs, n));
                let q = self.emit_value(InstKind::Bin { op, ty, lhs: l, rhs: r });
                self.mask_odd(ty, q, n)
            }
            _ => self.emit_value(InstKind::Bin { op, ty, lhs, rhs }),
        };
        self.define(dest, v);
        Ok(())
    }

    fn cast(&mut self, op: CastOp, a: &LOp, to_ty: &TypeRef, dest: &'m Name) -> Res<()> {
        let from = self.scalar(&self.type_of_op(a))?;
        let to = self.scalar(to_ty)?;
        let arg = self.operand(a)?;
        let (from_odd, to_odd) = (self.odd(a), odd_int_bits(to_ty));
        if from_odd.is_some() || to_odd.is_some() {
            let v = self.cast_odd(op, arg, from, to, from_odd, to_odd)?;
            self.define(dest, v);
            return Ok(());
        }
        let v = if from == to {
            arg // pointer-to-pointer bitcasts
        } else {
            self.emit_value(InstKind::Cast { op, from, to, arg })
        };
        self.define(dest, v);
        Ok(())
    }

    fn alloca(&mut self, i: &'m li::Alloca) -> Res<()> {
        let elem = self.cx.layout.size_of(&i.allocated_type).map_err(|e| self.unsupported(e))?;
        let align = self.cx.layout.align_of(&i.allocated_type).map_err(|e| self.unsupported(e))?;
        let align = (i.alignment as u64).max(align).max(1) as u32;
        let count = self.operand(&i.num_elements)?;
        let size = match count {
            Operand::Const(c) => {
                Operand::Const(Const::int(self.pint(), (c.bits as i64).wrapping_mul(elem as i64), self.dm()))
            }
            dynamic => {
                let n = self.cast_to_pint(dynamic, false);
                let stride = Operand::Const(Const::int(self.pint(), elem as i64, self.dm()));
                self.emit_value(InstKind::Bin { op: BinOp::Mul, ty: self.pint(), lhs: n, rhs: stride })
            }
        };
        let v = self.emit_value(InstKind::Alloca { size, align });
        self.define(&i.dest, v);
        Ok(())
    }

    fn gep(&mut self, g: &'m li::GetElementPtr) -> Res<()> {
        let base = self.operand(&g.address)?;
        let pint = self.pint();
        let mut const_off: i64 = 0;
        let mut dynamic: Option<Operand> = None;
        let mut ty = g.source_element_type.clone();
        for (n, idx) in g.indices.iter().enumerate() {
            let stride: u64;
            if n == 0 {
                stride = self.cx.layout.size_of(&ty).map_err(|e| self.unsupported(e))?;
            } else {
                let resolved = self.cx.layout.resolve(&ty).map_err(|e| self.unsupported(e))?;
                match resolved.as_ref() {
                    LType::StructType { .. } => {
                        let k = match self.operand(idx)? {
                            Operand::Const(c) => c.bits,
                            _ => return Err(self.unsupported("a struct field chosen at run time")),
                        };
                        let (o, t) = self.cx.layout.field_offset(&resolved, k).map_err(|e| self.unsupported(e))?;
                        const_off = const_off.wrapping_add(o as i64);
                        ty = t;
                        continue;
                    }
                    LType::ArrayType { element_type, .. } | LType::VectorType { element_type, .. } => {
                        stride = self.cx.layout.size_of(element_type).map_err(|e| self.unsupported(e))?;
                        ty = element_type.clone();
                    }
                    other => return Err(self.unsupported(format!("getelementptr into {other}"))),
                }
            }
            if let Some(n) = self.odd(idx) {
                return Err(self.unsupported(format!("a {n}-bit getelementptr index")));
            }
            match self.operand(idx)? {
                Operand::Const(c) => {
                    let bits = self.operand_type(&Operand::Const(c)).bits(self.dm());
                    const_off = const_off.wrapping_add(sign_extend(c.bits, bits).wrapping_mul(stride as i64));
                }
                o => {
                    let i = self.cast_to_pint(o, true);
                    let scaled = if stride == 1 {
                        i
                    } else {
                        let s = Operand::Const(Const::int(pint, stride as i64, self.dm()));
                        self.emit_value(InstKind::Bin { op: BinOp::Mul, ty: pint, lhs: i, rhs: s })
                    };
                    dynamic = Some(match dynamic {
                        None => scaled,
                        Some(d) => self.emit_value(InstKind::Bin { op: BinOp::Add, ty: pint, lhs: d, rhs: scaled }),
                    });
                }
            }
        }
        let mut p = base;
        if let Some(d) = dynamic {
            p = self.emit_value(InstKind::PtrAdd { base: p, offset: d });
        }
        p = self.ptr_add_const(p, const_off);
        self.define(&g.dest, p);
        Ok(())
    }

    // ------------------------------------------------------------------ calls
}

/// The name of the function a constant callee denotes (through casts).
fn callee_name(k: &ConstantRef) -> Option<String> {
    match k.as_ref() {
        Constant::GlobalReference { name, .. } => Some(name_text(name)),
        Constant::BitCast(b) => callee_name(&b.operand),
        _ => None,
    }
}

/// Whether tests print the values of `__VERIFIER_nondet_<kind>` as signed.
fn nondet_is_signed(kind: &str) -> bool {
    !(kind.starts_with('u') || matches!(kind, "bool" | "_Bool" | "size_t" | "sector_t" | "pointer" | "pchar" | "charp"))
}

fn int_pred(p: IntPredicate) -> CmpPred {
    match p {
        IntPredicate::EQ => CmpPred::Eq,
        IntPredicate::NE => CmpPred::Ne,
        IntPredicate::UGT => CmpPred::Ugt,
        IntPredicate::UGE => CmpPred::Uge,
        IntPredicate::ULT => CmpPred::Ult,
        IntPredicate::ULE => CmpPred::Ule,
        IntPredicate::SGT => CmpPred::Sgt,
        IntPredicate::SGE => CmpPred::Sge,
        IntPredicate::SLT => CmpPred::Slt,
        IntPredicate::SLE => CmpPred::Sle,
    }
}

/// The IR predicate, or the constant result of `false`/`true`.
fn fp_pred(p: FPPredicate) -> Result<CmpPred, bool> {
    Ok(match p {
        FPPredicate::False => return Err(false),
        FPPredicate::True => return Err(true),
        FPPredicate::OEQ => CmpPred::FOeq,
        FPPredicate::OGT => CmpPred::FOgt,
        FPPredicate::OGE => CmpPred::FOge,
        FPPredicate::OLT => CmpPred::FOlt,
        FPPredicate::OLE => CmpPred::FOle,
        FPPredicate::ONE => CmpPred::FOne,
        FPPredicate::ORD => CmpPred::FOrd,
        FPPredicate::UNO => CmpPred::FUno,
        FPPredicate::UEQ => CmpPred::FUeq,
        FPPredicate::UGT => CmpPred::FUgt,
        FPPredicate::UGE => CmpPred::FUge,
        FPPredicate::ULT => CmpPred::FUlt,
        FPPredicate::ULE => CmpPred::FUle,
        FPPredicate::UNE => CmpPred::FUne,
    })
}

/// Indices of the blocks reachable from the entry, in reverse postorder.
fn reverse_postorder(f: &Function) -> Vec<usize> {
    let index: HashMap<&Name, usize> = f.basic_blocks.iter().enumerate().map(|(i, b)| (&b.name, i)).collect();
    let succs = |i: usize| -> Vec<usize> {
        let names: Vec<&Name> = match &f.basic_blocks[i].term {
            LT::Br(b) => vec![&b.dest],
            LT::CondBr(b) => vec![&b.true_dest, &b.false_dest],
            LT::Switch(s) => s.dests.iter().map(|(_, n)| n).chain(std::iter::once(&s.default_dest)).collect(),
            _ => vec![],
        };
        names.into_iter().filter_map(|n| index.get(n).copied()).collect()
    };
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(0, succs(0), 0)];
    seen.insert(0);
    while let Some((b, ss, i)) = stack.last_mut() {
        if *i < ss.len() {
            let s = ss[*i];
            *i += 1;
            if seen.insert(s) {
                let next = succs(s);
                stack.push((s, next, 0));
            }
        } else {
            order.push(*b);
            stack.pop();
        }
    }
    order.reverse();
    order
}
