//! Lowering one LLVM function: blocks (phis become block parameters),
//! instructions, constant operands, calls, intrinsics and the Test-Comp
//! functions.

mod wide;

use crate::consts::{const_address, sign_extend};
use crate::error::FrontendError;
use crate::layout::{container, odd_int_bits, wide_bits};
use crate::module::{name_text, ModuleCx, Sym};
use llvm_ir::instruction::{self as li, Instruction as LI};
use llvm_ir::predicates::{FPPredicate, IntPredicate};
use llvm_ir::terminator::{self as li_term, Terminator as LT};
use llvm_ir::{Constant, ConstantRef, Function, HasDebugLoc, Name, Operand as LOp, Type as LType, TypeRef};
use std::collections::{HashMap, HashSet};
use walkdown_ir::testvec::truncate;
use walkdown_ir::{
    BinOp, Block, BlockCall, Body, Callee, CastOp, CheckKind, CmpPred, Const, FuncData, InstKind,
    Loc, Operand, Terminator, Type, UnOp, Value,
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
        self.cx.unsupported(what, loc)
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
                if is_byval(&p.attributes).is_some() {
                    continue;
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
            self.libc_call("memcpy", vec![Type::Ptr, Type::Ptr, self.pint()], Some(Type::Ptr), vec![copy, Operand::Value(v), n])?;
            self.locals.insert(name, Lowered::One(copy));
        }
        for bb in &f.basic_blocks {
            let b = self.blocks[&bb.name];
            for ins in &bb.instrs {
                if let LI::Phi(phi) = ins {
                    self.loc = self.cx.loc(&phi.debugloc);
                    if wide_bits(&phi.to_type).is_some() {
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
                    if let Some(bits) = wide_bits(&phi.to_type) {
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
                if wide::involves_wide(self, ins) {
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
        let Some(text) = self.cx.debug.as_ref().and_then(|d| d.funcs.get(&self.f.name).map(|t| (d, t))) else { return Vec::new() };
        let name_of = |n: &Name| match n {
            Name::Name(s) => s.to_string(),
            Name::Number(k) => k.to_string(),
        };
        let entry = self.f.basic_blocks.first().map(|b| &b.name);
        let blocks = self.blocks.iter().map(|(n, b)| (if Some(*n) == entry { String::new() } else { name_of(n) }, *b)).collect();
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

    /// The scalar leaves of aggregate type `ty` (values unknown), at byte
    /// offsets from `base`.
    fn leaves(&self, ty: &TypeRef, base: u64, path: &mut Vec<u32>, out: &mut Vec<Leaf>) -> Res<()> {
        let resolved = self.cx.layout.resolve(ty).map_err(|e| self.unsupported(e))?;
        match resolved.as_ref() {
            LType::StructType { element_types, is_packed } => {
                let (_, offs) = self.cx.layout.struct_layout(element_types, *is_packed).map_err(|e| self.unsupported(e))?;
                for (i, (t, o)) in element_types.iter().zip(offs).enumerate() {
                    path.push(i as u32);
                    self.leaves(t, base + o, path, out)?;
                    path.pop();
                }
            }
            LType::ArrayType { element_type, num_elements } | LType::VectorType { element_type, num_elements, .. } => {
                let stride = self.cx.layout.size_of(element_type).map_err(|e| self.unsupported(e))?;
                if *num_elements > 64 {
                    return Err(self.unsupported(format!("an aggregate value of type {resolved}")));
                }
                for i in 0..*num_elements {
                    path.push(i as u32);
                    self.leaves(element_type, base + stride * i as u64, path, out)?;
                    path.pop();
                }
            }
            _ => {
                self.scalar(&resolved)?;
                out.push(Leaf { path: path.clone(), off: base, ty: resolved.clone(), val: None });
            }
        }
        Ok(())
    }

    /// The type `op` points to, if it is an aggregate.
    fn aggregate_pointee(&self, op: &LOp) -> Option<TypeRef> {
        match self.type_of_op(op).as_ref() {
            LType::PointerType { pointee_type, .. } if is_aggregate(pointee_type) => Some(pointee_type.clone()),
            _ => None,
        }
    }

    fn new_agg(&mut self, leaves: Vec<Leaf>) -> Lowered {
        self.aggs.push(leaves);
        Lowered::Agg(self.aggs.len() - 1)
    }

    /// The leaves of an aggregate operand.
    fn agg_operand(&mut self, op: &LOp) -> Res<Vec<Leaf>> {
        match self.lowered(op)? {
            Lowered::Agg(i) => Ok(self.aggs[i].clone()),
            _ => Err(self.unsupported("a scalar used as an aggregate value")),
        }
    }

    /// An aggregate constant (`undef`, `zeroinitializer`, a literal struct
    /// or vector).
    fn constant_agg(&mut self, c: &ConstantRef) -> Res<Lowered> {
        let ty = self.cx.module.types.type_of(c);
        let mut leaves = Vec::new();
        self.leaves(&ty, 0, &mut Vec::new(), &mut leaves)?;
        for leaf in &mut leaves {
            let mut k = c.clone();
            for &i in &leaf.path {
                k = match k.as_ref() {
                    Constant::Struct { values, .. } => values.get(i as usize).cloned(),
                    Constant::Array { elements, .. } => elements.get(i as usize).cloned(),
                    Constant::Vector(elements) => elements.get(i as usize).cloned(),
                    _ => None,
                }
                .unwrap_or(k);
            }
            let v = match k.as_ref() {
                Constant::Undef(_) | Constant::Poison(_) | Constant::AggregateZero(_) => {
                    let t = self.scalar(&leaf.ty)?;
                    Operand::Const(Const { ty: t, bits: 0 })
                }
                _ if is_aggregate(&self.cx.module.types.type_of(&k)) => {
                    return Err(self.unsupported(format!("aggregate constant {c}")))
                }
                _ => self.constant(&k)?,
            };
            leaf.val = Some(v);
        }
        Ok(self.new_agg(leaves))
    }

    /// Loads every leaf of an aggregate from `ptr`.
    fn load_agg(&mut self, ty: &TypeRef, ptr: Operand) -> Res<Lowered> {
        let mut leaves = Vec::new();
        self.leaves(ty, 0, &mut Vec::new(), &mut leaves)?;
        for leaf in &mut leaves {
            let at = self.ptr_add_const(ptr, leaf.off as i64);
            let v = match odd_int_bits(&leaf.ty) {
                Some(n) => self.load_odd(at, n),
                None => {
                    let t = self.scalar(&leaf.ty)?;
                    self.emit_value(InstKind::Load { ty: t, ptr: at })
                }
            };
            leaf.val = Some(v);
        }
        Ok(self.new_agg(leaves))
    }

    /// Stores every leaf of an aggregate to `ptr`.
    fn store_agg(&mut self, leaves: &[Leaf], ptr: Operand) -> Res<()> {
        for leaf in leaves {
            let Some(v) = leaf.val else { return Err(self.unsupported("an incomplete aggregate value")) };
            let at = self.ptr_add_const(ptr, leaf.off as i64);
            match odd_int_bits(&leaf.ty) {
                Some(n) => self.store_odd(at, v, n),
                None => {
                    let t = self.scalar(&leaf.ty)?;
                    self.emit(InstKind::Store { ty: t, ptr: at, value: v });
                }
            }
        }
        Ok(())
    }

    /// A stack slot for an aggregate a call returns (see
    /// [`Self::entry_slot`]).
    fn agg_slot(&mut self, ty: &TypeRef) -> Res<Operand> {
        let size = self.cx.layout.size_of(ty).map_err(|e| self.unsupported(e))?;
        let align = self.cx.layout.align_of(ty).map_err(|e| self.unsupported(e))?.max(1) as u32;
        let n = Operand::Const(Const::int(self.pint(), size as i64, self.dm()));
        self.entry_slot(InstKind::Alloca { size: n, align })
    }

    /// Places the stack slot `kind` first in the entry block, without a
    /// line (it is not a statement: gcov counts no line for it), so that a
    /// call in a loop does not allocate anew on every iteration.
    fn entry_slot(&mut self, kind: InstKind) -> Res<Operand> {
        let inst = self.body.create_inst(kind, Loc::UNKNOWN);
        self.body.blocks[Body::ENTRY].insts.insert(0, inst);
        self.body.insts[inst].result.map(Operand::Value).ok_or_else(|| self.unsupported("a stack slot without a value"))
    }

    fn operand_type(&self, o: &Operand) -> Type {
        self.body.operand_type(o)
    }

    /// The width of `op`'s type if it is an integer width the IR does not
    /// have (its value then sits zero-extended in a wider IR integer).
    fn odd(&self, op: &LOp) -> Option<u32> {
        odd_int_bits(&self.type_of_op(op))
    }

    /// `o`, an `n`-bit value in the container `ty`, with the bits above
    /// `n` cleared (restoring the zero-extended form after an operation
    /// that may carry into them).
    fn mask_odd(&mut self, ty: Type, o: Operand, n: u32) -> Operand {
        let m = Operand::Const(Const { ty, bits: truncate(u64::MAX, n) });
        self.emit_value(InstKind::Bin { op: BinOp::And, ty, lhs: o, rhs: m })
    }

    /// `o`, an `n`-bit value in the container `ty`, sign-extended from its
    /// bit `n - 1` over the whole container (for signed operations).
    fn sext_odd(&mut self, ty: Type, o: Operand, n: u32) -> Operand {
        let sh = Operand::Const(Const { ty, bits: u64::from(ty.bits(self.dm()) - n) });
        let up = self.emit_value(InstKind::Bin { op: BinOp::Shl, ty, lhs: o, rhs: sh });
        self.emit_value(InstKind::Bin { op: BinOp::AShr, ty, lhs: up, rhs: sh })
    }

    /// The pieces (byte offset, IR type) a load or store of `bytes` bytes
    /// is made of: the widest power-of-two widths first, as the bytes of
    /// an `i24`/`i48`/`i56` are those of its store size (3, 6, 7 bytes).
    fn pieces(bytes: u64) -> Vec<(u64, Type)> {
        let mut v = Vec::new();
        let mut off = 0;
        for (w, t) in [(8, Type::I64), (4, Type::I32), (2, Type::I16), (1, Type::I8)] {
            if bytes - off >= w {
                v.push((off, t));
                off += w;
            }
        }
        v
    }

    /// Loads an `n`-bit integer of odd width from `ptr` into its container.
    fn load_odd(&mut self, ptr: Operand, n: u32) -> Operand {
        let ty = container(n).unwrap_or(Type::I64);
        let mut acc: Option<Operand> = None;
        for (off, pt) in Self::pieces(u64::from(n.div_ceil(8))) {
            let at = self.ptr_add_const(ptr, off as i64);
            let piece = self.emit_value(InstKind::Load { ty: pt, ptr: at });
            let wide = self.int_cast(piece, ty, false);
            let shifted = if off == 0 {
                wide
            } else {
                let sh = Operand::Const(Const { ty, bits: 8 * off });
                self.emit_value(InstKind::Bin { op: BinOp::Shl, ty, lhs: wide, rhs: sh })
            };
            acc = Some(match acc {
                None => shifted,
                Some(a) => self.emit_value(InstKind::Bin { op: BinOp::Or, ty, lhs: a, rhs: shifted }),
            });
        }
        let v = acc.unwrap_or(Operand::Const(Const { ty, bits: 0 }));
        if n % 8 == 0 { v } else { self.mask_odd(ty, v, n) }
    }

    /// Stores the `n`-bit integer `value` (in its container) to `ptr`.
    fn store_odd(&mut self, ptr: Operand, value: Operand, n: u32) {
        let ty = self.operand_type(&value);
        for (off, pt) in Self::pieces(u64::from(n.div_ceil(8))) {
            let shifted = if off == 0 {
                value
            } else {
                let sh = Operand::Const(Const { ty, bits: 8 * off });
                self.emit_value(InstKind::Bin { op: BinOp::LShr, ty, lhs: value, rhs: sh })
            };
            let piece = self.int_cast(shifted, pt, false);
            let at = self.ptr_add_const(ptr, off as i64);
            self.emit(InstKind::Store { ty: pt, ptr: at, value: piece });
        }
    }

    fn ptr_add_const(&mut self, base: Operand, off: i64) -> Operand {
        if off == 0 {
            return base;
        }
        let offset = Operand::Const(Const::int(self.pint(), off, self.dm()));
        self.emit_value(InstKind::PtrAdd { base, offset })
    }

    /// Converts an integer operand to the pointer-width integer type
    /// (sign-extending or truncating), as GEP indices are.
    fn to_pint(&mut self, o: Operand, signed: bool) -> Operand {
        let from = self.operand_type(&o);
        let to = self.pint();
        let (fb, tb) = (from.bits(self.dm()), to.bits(self.dm()));
        if let Operand::Const(c) = o {
            let v = if signed { sign_extend(c.bits, fb) } else { c.bits as i64 };
            return Operand::Const(Const::int(to, v, self.dm()));
        }
        let op = match fb.cmp(&tb) {
            std::cmp::Ordering::Equal => return o,
            std::cmp::Ordering::Less if signed => CastOp::SExt,
            std::cmp::Ordering::Less => CastOp::ZExt,
            std::cmp::Ordering::Greater => CastOp::Trunc,
        };
        self.emit_value(InstKind::Cast { op, from, to, arg: o })
    }

    // ------------------------------------------------------------ instructions

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
                if let (Some(n), CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge) = (self.odd(&i.operand0), pred) {
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
                        let sub: Vec<Leaf> = self.aggs[k].iter().filter(|l| l.path.starts_with(path)).cloned().collect();
                        match sub.as_slice() {
                            [one] if one.path.len() == path.len() => match one.val {
                                Some(v) => v,
                                None => return Err(self.unsupported("extractvalue of an undefined part")),
                            },
                            [first, ..] => {
                                let base = first.off;
                                let sub = sub
                                    .iter()
                                    .map(|l| Leaf { path: l.path[path.len()..].to_vec(), off: l.off - base, ..l.clone() })
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

    /// A cast from or to an integer of odd width (`from_odd`, `to_odd`):
    /// the value is sign-extended in its container first when the cast
    /// reads it as signed, converted between the containers, and masked
    /// to the target width.
    fn cast_odd(&mut self, op: CastOp, arg: Operand, from: Type, to: Type, from_odd: Option<u32>, to_odd: Option<u32>) -> Res<Operand> {
        let mut x = arg;
        if let (Some(n), CastOp::SExt | CastOp::SiToFp) = (from_odd, op) {
            x = self.sext_odd(from, x, n);
        }
        let (fb, tb) = (from.bits(self.dm()), to.bits(self.dm()));
        let cop = match op {
            CastOp::Trunc | CastOp::ZExt | CastOp::SExt => match fb.cmp(&tb) {
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Less if op == CastOp::SExt => Some(CastOp::SExt),
                std::cmp::Ordering::Less => Some(CastOp::ZExt),
                std::cmp::Ordering::Greater => Some(CastOp::Trunc),
            },
            CastOp::PtrToInt | CastOp::IntToPtr | CastOp::SiToFp | CastOp::UiToFp => Some(op),
            other => {
                let n = from_odd.or(to_odd).unwrap_or(0);
                return Err(self.unsupported(format!("{other} of a {n}-bit integer")));
            }
        };
        if let Some(cop) = cop {
            x = self.emit_value(InstKind::Cast { op: cop, from, to, arg: x });
        }
        if let Some(m) = to_odd {
            x = self.mask_odd(to, x, m);
        }
        Ok(x)
    }

    fn alloca(&mut self, i: &'m li::Alloca) -> Res<()> {
        let elem = self.cx.layout.size_of(&i.allocated_type).map_err(|e| self.unsupported(e))?;
        let align = self.cx.layout.align_of(&i.allocated_type).map_err(|e| self.unsupported(e))?;
        let align = (i.alignment as u64).max(align).max(1) as u32;
        let count = self.operand(&i.num_elements)?;
        let size = match count {
            Operand::Const(c) => Operand::Const(Const::int(self.pint(), (c.bits as i64).wrapping_mul(elem as i64), self.dm())),
            dynamic => {
                let n = self.to_pint(dynamic, false);
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
                    let i = self.to_pint(o, true);
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

    fn call(&mut self, c: &'m li::Call) -> Res<()> {
        let callee = match &c.function {
            either::Either::Left(_) => return Err(self.unsupported("inline assembly")),
            either::Either::Right(op) => op,
        };
        let direct_name = match callee {
            LOp::ConstantOperand(k) => callee_name(k),
            _ => None,
        };
        if let Some(name) = direct_name.as_deref() {
            if let Some(rest) = name.strip_prefix("llvm.") {
                return self.intrinsic(rest, c);
            }
            if !self.cx.defines(name) && self.test_comp_call(name, c)? {
                return Ok(());
            }
            if let Some(why) = self.cx.bad_signatures.get(name) {
                return Err(self.unsupported(format!("call of @{name}: {why}")));
            }
        }
        let mut args = Vec::with_capacity(c.arguments.len() + 1);
        // An aggregate result comes back through a slot of the caller's,
        // passed in front of the arguments (see `ModuleCx::declare_symbols`).
        let agg_ret = match self.type_of_op(callee).as_ref() {
            LType::PointerType { pointee_type, .. } => match pointee_type.as_ref() {
                LType::FuncType { result_type, .. } if is_aggregate(result_type) => Some(result_type.clone()),
                _ => None,
            },
            _ => None,
        };
        let slot = match &agg_ret {
            Some(t) => {
                let slot = self.agg_slot(t)?;
                args.push(slot);
                Some(slot)
            }
            None => None,
        };
        let callee_type = self.type_of_op(callee);
        let variadic_type = matches!(callee_type.as_ref(), LType::PointerType { pointee_type, .. }
            if matches!(pointee_type.as_ref(), LType::FuncType { is_var_arg: true, .. }));
        let packs = match direct_name.as_deref() {
            Some(n) => self.cx.defines_variadic(n),
            None if variadic_type && self.cx.defines_any_variadic() => {
                return Err(self.unsupported(
                    "an indirect call of a variadic function in a program that defines variadic functions",
                ))
            }
            None => false,
        };
        if packs {
            let named = match callee_type.as_ref() {
                LType::PointerType { pointee_type, .. } => match pointee_type.as_ref() {
                    LType::FuncType { param_types, .. } => param_types.len(),
                    _ => 0,
                },
                _ => 0,
            };
            let named = named.min(c.arguments.len());
            for (a, _) in &c.arguments[..named] {
                args.push(self.operand(a)?);
            }
            let area = self.pack_varargs(&c.arguments[..named], &c.arguments[named..])?;
            args.push(area);
        } else {
            for (a, _) in &c.arguments {
                args.push(self.operand(a)?);
            }
        }
        let callee_kind = match direct_name.as_deref().and_then(|n| self.cx.syms.get(n).copied()) {
            Some(Sym::Func(f)) => Callee::Direct(f),
            _ => Callee::Indirect(self.operand(callee)?),
        };
        let ret = match callee_kind {
            Callee::Direct(f) => {
                let fd = &self.cx.program.funcs[f];
                let (params, variadic, name) = (fd.params.clone(), fd.variadic, fd.name.clone());
                if args.len() < params.len() || (!variadic && args.len() != params.len()) {
                    return Err(self.unsupported(format!("call of @{name} with {} arguments (it takes {})", args.len(), params.len())));
                }
                for (a, p) in args.iter().zip(&params) {
                    if self.operand_type(a) != *p {
                        return Err(self.unsupported(format!("call of @{name} with an argument of type {} for a parameter of type {p}", self.operand_type(a))));
                    }
                }
                let ret = fd.ret;
                let call_ret = if agg_ret.is_some() { None } else { self.call_result_type(callee)? };
                if ret != call_ret {
                    return Err(self.unsupported(format!("call of @{name} through a cast to another return type")));
                }
                ret
            }
            Callee::Indirect(_) if agg_ret.is_some() => None,
            Callee::Indirect(_) => self.call_result_type(callee)?,
        };
        let v = self.emit(InstKind::Call { callee: callee_kind, args, ret });
        if let (Some(t), Some(slot), Some(dest)) = (&agg_ret, slot, &c.dest) {
            let agg = self.load_agg(t, slot)?;
            self.locals.insert(dest, agg);
            return Ok(());
        }
        if let (Some(dest), Some(v)) = (&c.dest, v) {
            self.define(dest, Operand::Value(v));
        }
        Ok(())
    }

    fn call_result_type(&self, callee: &LOp) -> Res<Option<Type>> {
        let t = self.type_of_op(callee);
        let LType::PointerType { pointee_type, .. } = t.as_ref() else {
            return Err(self.unsupported(format!("call through {t}")));
        };
        let LType::FuncType { result_type, .. } = pointee_type.as_ref() else {
            return Err(self.unsupported(format!("call through {t}")));
        };
        self.cx.ret_type(result_type).map_err(|e| self.unsupported(e))
    }

    /// Lowers calls of the Test-Comp functions the program does not define;
    /// returns whether `name` was one.
    fn test_comp_call(&mut self, name: &str, c: &'m li::Call) -> Res<bool> {
        if let Some(kind) = name.strip_prefix("__VERIFIER_nondet_") {
            let Some(dest) = &c.dest else { return Ok(true) }; // result unused: still consumes an input
            let ty = self.call_result_type(match &c.function {
                either::Either::Right(op) => op,
                either::Either::Left(_) => return Err(self.unsupported("inline assembly")),
            })?;
            let Some(ty) = ty else { return Err(self.unsupported(format!("@{name} returning void"))) };
            let v = self.emit_value(InstKind::Nondet { ty, signed: nondet_is_signed(kind) });
            self.define(dest, v);
            return Ok(true);
        }
        match name {
            "__VERIFIER_assume" => {
                let Some((a, _)) = c.arguments.first() else {
                    return Err(self.unsupported("__VERIFIER_assume without an argument"));
                };
                let cond = self.truth(a)?;
                self.emit(InstKind::Assume { cond });
                Ok(true)
            }
            "reach_error" | "__VERIFIER_error" => {
                self.emit(InstKind::Check { kind: CheckKind::ReachError, cond: Const::bool(false).into() });
                Ok(true)
            }
            "__assert_fail" => {
                let kind = match c.arguments.get(3) {
                    Some((LOp::ConstantOperand(k), _)) if self.const_string(k).as_deref() == Some("reach_error") => CheckKind::ReachError,
                    _ => CheckKind::Assertion,
                };
                self.emit(InstKind::Check { kind, cond: Const::bool(false).into() });
                Ok(true)
            }
            // Verification annotations stay calls (of `Builtin::Annotation`,
            // no-ops when run) for the annotation pass to read.
            _ => Ok(false),
        }
    }

    /// `op != 0` as an `i1`.
    fn truth(&mut self, op: &LOp) -> Res<Operand> {
        let v = self.operand(op)?;
        let ty = self.operand_type(&v);
        if ty == Type::I1 {
            return Ok(v);
        }
        if !ty.is_int_or_ptr() {
            return Err(self.unsupported(format!("a condition of type {ty}")));
        }
        Ok(self.emit_value(InstKind::Cmp { pred: CmpPred::Ne, ty, lhs: v, rhs: Operand::Const(Const { ty, bits: 0 }) }))
    }

    /// The NUL-terminated string a constant pointer points to, if known.
    fn const_string(&self, k: &ConstantRef) -> Option<String> {
        let (Sym::Global(g), off) = const_address(self.cx, k).ok()?? else { return None };
        let bytes = self.cx.program.globals[g].init.get(off as usize..)?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    fn intrinsic(&mut self, name: &str, c: &'m li::Call) -> Res<()> {
        let family = name.split('.').next().unwrap_or("");
        let mut args = Vec::new();
        match family {
            "dbg" | "lifetime" | "experimental" | "donothing" | "var" | "assume" | "stackrestore" | "va_end" => return Ok(()),
            "va_start" => return self.va_start(c),
            "va_copy" => {
                let (dst, src) = match c.arguments.as_slice() {
                    [(d, _), (s, _)] => (self.operand(d)?, self.operand(s)?),
                    _ => return Err(self.unsupported("llvm.va_copy without two arguments")),
                };
                let size = match self.dm() {
                    walkdown_ir::DataModel::LP64 => 24,
                    walkdown_ir::DataModel::ILP32 => 4,
                };
                let n = Operand::Const(Const::int(self.pint(), size, self.dm()));
                self.libc_call("memcpy", vec![Type::Ptr, Type::Ptr, self.pint()], Some(Type::Ptr), vec![dst, src, n])?;
                return Ok(());
            }
            _ => {}
        }
        for (a, _) in &c.arguments {
            if let Some(n) = self.odd(a) {
                return Err(self.unsupported(format!("intrinsic @llvm.{name} on a {n}-bit integer")));
            }
            args.push(self.operand(a)?);
        }
        let dest = c.dest.as_ref();
        let result = match family {
            "stacksave" => Some(Operand::Const(Const::null())),
            "memcpy" | "memmove" => {
                let n = self.to_pint(args[2], false);
                let lib = if family == "memcpy" { "memcpy" } else { "memmove" };
                self.libc_call(lib, vec![Type::Ptr, Type::Ptr, self.pint()], Some(Type::Ptr), vec![args[0], args[1], n])?;
                None
            }
            "memset" => {
                let byte = self.int_cast(args[1], Type::I32, false);
                let n = self.to_pint(args[2], false);
                self.libc_call("memset", vec![Type::Ptr, Type::I32, self.pint()], Some(Type::Ptr), vec![args[0], byte, n])?;
                None
            }
            "sadd" | "uadd" | "ssub" | "usub" | "smul" | "umul" if name.contains(".with.overflow.") => {
                let (op, ovf) = match family {
                    "sadd" => (BinOp::Add, BinOp::SAddO),
                    "uadd" => (BinOp::Add, BinOp::UAddO),
                    "ssub" => (BinOp::Sub, BinOp::SSubO),
                    "usub" => (BinOp::Sub, BinOp::USubO),
                    "smul" => (BinOp::Mul, BinOp::SMulO),
                    _ => (BinOp::Mul, BinOp::UMulO),
                };
                let ty = self.operand_type(&args[0]);
                let r = self.emit_value(InstKind::Bin { op, ty, lhs: args[0], rhs: args[1] });
                let o = self.emit_value(InstKind::Bin { op: ovf, ty, lhs: args[0], rhs: args[1] });
                if let Some(d) = dest {
                    self.locals.insert(d, Lowered::Pair(r, o));
                }
                return Ok(());
            }
            "abs" => {
                let ty = self.operand_type(&args[0]);
                let zero = Operand::Const(Const { ty, bits: 0 });
                let neg = self.emit_value(InstKind::Bin { op: BinOp::Sub, ty, lhs: zero, rhs: args[0] });
                let is_neg = self.emit_value(InstKind::Cmp { pred: CmpPred::Slt, ty, lhs: args[0], rhs: zero });
                Some(self.emit_value(InstKind::Select { ty, cond: is_neg, if_true: neg, if_false: args[0] }))
            }
            "smax" | "smin" | "umax" | "umin" => {
                let ty = self.operand_type(&args[0]);
                let pred = match family {
                    "smax" => CmpPred::Sgt,
                    "smin" => CmpPred::Slt,
                    "umax" => CmpPred::Ugt,
                    _ => CmpPred::Ult,
                };
                let first = self.emit_value(InstKind::Cmp { pred, ty, lhs: args[0], rhs: args[1] });
                Some(self.emit_value(InstKind::Select { ty, cond: first, if_true: args[0], if_false: args[1] }))
            }
            "bswap" | "ctpop" | "ctlz" | "cttz" => {
                let op = match family {
                    "bswap" => UnOp::Bswap,
                    "ctpop" => UnOp::Ctpop,
                    "ctlz" => UnOp::Ctlz,
                    _ => UnOp::Cttz,
                };
                let ty = self.operand_type(&args[0]);
                Some(self.emit_value(InstKind::Un { op, ty, arg: args[0] }))
            }
            "fshl" | "fshr" => Some(self.funnel_shift(family == "fshl", args[0], args[1], args[2])),
            "fmuladd" => {
                let ty = self.operand_type(&args[0]);
                let m = self.emit_value(InstKind::Bin { op: BinOp::FMul, ty, lhs: args[0], rhs: args[1] });
                Some(self.emit_value(InstKind::Bin { op: BinOp::FAdd, ty, lhs: m, rhs: args[2] }))
            }
            "fabs" | "sqrt" => {
                let ty = self.operand_type(&args[0]);
                let lib = match (family, ty) {
                    ("fabs", Type::F32) => "fabsf",
                    ("fabs", _) => "fabs",
                    (_, Type::F32) => "sqrtf",
                    _ => "sqrt",
                };
                self.libc_call(lib, vec![ty], Some(ty), vec![args[0]])?
            }
            _ => return Err(self.unsupported(format!("intrinsic @llvm.{name}"))),
        };
        if let (Some(d), Some(r)) = (dest, result) {
            self.define(d, r);
        }
        Ok(())
    }

    /// `va_start(ap)`: on x86-64 the `va_list` record (`gp_offset`,
    /// `fp_offset`, `overflow_arg_area`, `reg_save_area`) pointing past the
    /// registers the named parameters take; on i386 the pointer to the
    /// first variable argument. clang's own `va_arg` code then reads the
    /// arguments the caller laid out.
    fn va_start(&mut self, c: &'m li::Call) -> Res<()> {
        let Some((area, gp, fp)) = self.va else {
            return Err(self.unsupported("va_start in a function that is not variadic"));
        };
        let ap = match c.arguments.first() {
            Some((a, _)) => self.operand(a)?,
            None => return Err(self.unsupported("llvm.va_start without an argument")),
        };
        match self.dm() {
            walkdown_ir::DataModel::LP64 => {
                let i32c = |v: u64| Operand::Const(Const { ty: Type::I32, bits: v });
                self.emit(InstKind::Store { ty: Type::I32, ptr: ap, value: i32c(8 * gp.min(VA_GP_REGS)) });
                let at = self.ptr_add_const(ap, 4);
                self.emit(InstKind::Store { ty: Type::I32, ptr: at, value: i32c(8 * VA_GP_REGS + 16 * fp.min(VA_FP_REGS)) });
                let overflow = self.ptr_add_const(area, VA_REG_SAVE as i64);
                let at = self.ptr_add_const(ap, 8);
                self.emit(InstKind::Store { ty: Type::Ptr, ptr: at, value: overflow });
                let at = self.ptr_add_const(ap, 16);
                self.emit(InstKind::Store { ty: Type::Ptr, ptr: at, value: area });
            }
            walkdown_ir::DataModel::ILP32 => {
                self.emit(InstKind::Store { ty: Type::Ptr, ptr: ap, value: area });
            }
        }
        Ok(())
    }

    /// Lays out the variable arguments of a call of a variadic function the
    /// program defines, as the ABI passes them, in a stack slot of the
    /// caller's; returns the pointer the callee takes as its last
    /// parameter. x86-64: the register save area (integers and pointers in
    /// the 8-byte general-purpose slots after those the named parameters
    /// take, doubles in the 16-byte vector slots), then the overflow area
    /// (8-byte slots, structs passed by value rounded up to 8 bytes); i386:
    /// every argument in order, in 4-byte units.
    fn pack_varargs(&mut self, named: &[(LOp, Vec<llvm_ir::function::ParameterAttribute>)], rest: &[(LOp, Vec<llvm_ir::function::ParameterAttribute>)]) -> Res<Operand> {
        let lp64 = self.dm() == walkdown_ir::DataModel::LP64;
        let (mut gp, mut fp) = (0u64, 0u64);
        for (a, attrs) in named {
            if is_byval(attrs).is_some() {
                continue;
            }
            match self.scalar(&self.type_of_op(a))? {
                Type::F32 | Type::F64 => fp += 1,
                _ => gp += 1,
            }
        }
        // Where each argument goes: (offset, what).
        enum Part {
            Scalar(Operand, Type),
            Copy(Operand, u64),
        }
        let mut placed = Vec::new();
        let mut overflow = if lp64 { VA_REG_SAVE } else { 0 };
        let unit = if lp64 { 8 } else { 4 };
        for (a, attrs) in rest {
            if let Some(t) = is_byval(attrs) {
                let size = self.cx.layout.size_of(t).map_err(|e| self.unsupported(e))?;
                let p = self.operand(a)?;
                placed.push((overflow, Part::Copy(p, size)));
                overflow += size.div_ceil(unit) * unit;
                continue;
            }
            if let Some(n) = self.odd(a) {
                return Err(self.unsupported(format!("a {n}-bit variable argument")));
            }
            let ty = self.scalar(&self.type_of_op(a))?;
            let v = self.operand(a)?;
            let is_fp = matches!(ty, Type::F32 | Type::F64);
            let off = if lp64 && !is_fp && gp < VA_GP_REGS {
                gp += 1;
                8 * (gp - 1)
            } else if lp64 && is_fp && fp < VA_FP_REGS {
                fp += 1;
                8 * VA_GP_REGS + 16 * (fp - 1)
            } else {
                let at = overflow;
                overflow += ty.store_size(self.dm()).div_ceil(unit) * unit;
                at
            };
            placed.push((off, Part::Scalar(v, ty)));
        }
        let size = overflow.max(unit);
        let n = Operand::Const(Const::int(self.pint(), size as i64, self.dm()));
        let area = self.entry_slot(InstKind::Alloca { size: n, align: 16 })?;
        for (off, part) in placed {
            let at = self.ptr_add_const(area, off as i64);
            match part {
                Part::Scalar(value, ty) => {
                    self.emit(InstKind::Store { ty, ptr: at, value });
                }
                Part::Copy(src, size) => {
                    let n = Operand::Const(Const::int(self.pint(), size as i64, self.dm()));
                    self.libc_call("memcpy", vec![Type::Ptr, Type::Ptr, self.pint()], Some(Type::Ptr), vec![at, src, n])?;
                }
            }
        }
        Ok(area)
    }

    /// `fshl(a, b, s)`: the high half of `a:b << (s mod w)`; `fshr`: the
    /// low half of `a:b >> (s mod w)`.
    fn funnel_shift(&mut self, left: bool, a: Operand, b: Operand, s: Operand) -> Operand {
        let ty = self.operand_type(&a);
        let w = ty.bits(self.dm());
        let c = |v: u64| Operand::Const(Const { ty, bits: v });
        let amt = self.emit_value(InstKind::Bin { op: BinOp::URem, ty, lhs: s, rhs: c(u64::from(w)) });
        let inv = self.emit_value(InstKind::Bin { op: BinOp::Sub, ty, lhs: c(u64::from(w)), rhs: amt });
        let (hi, lo) = if left {
            (
                self.emit_value(InstKind::Bin { op: BinOp::Shl, ty, lhs: a, rhs: amt }),
                self.emit_value(InstKind::Bin { op: BinOp::LShr, ty, lhs: b, rhs: inv }),
            )
        } else {
            (
                self.emit_value(InstKind::Bin { op: BinOp::Shl, ty, lhs: a, rhs: inv }),
                self.emit_value(InstKind::Bin { op: BinOp::LShr, ty, lhs: b, rhs: amt }),
            )
        };
        let merged = self.emit_value(InstKind::Bin { op: BinOp::Or, ty, lhs: hi, rhs: lo });
        let is_zero = self.emit_value(InstKind::Cmp { pred: CmpPred::Eq, ty, lhs: amt, rhs: c(0) });
        let unchanged = if left { a } else { b };
        self.emit_value(InstKind::Select { ty, cond: is_zero, if_true: unchanged, if_false: merged })
    }

    fn int_cast(&mut self, o: Operand, to: Type, signed: bool) -> Operand {
        let from = self.operand_type(&o);
        let (fb, tb) = (from.bits(self.dm()), to.bits(self.dm()));
        let op = match fb.cmp(&tb) {
            std::cmp::Ordering::Equal => return o,
            std::cmp::Ordering::Less if signed => CastOp::SExt,
            std::cmp::Ordering::Less => CastOp::ZExt,
            std::cmp::Ordering::Greater => CastOp::Trunc,
        };
        self.emit_value(InstKind::Cast { op, from, to, arg: o })
    }

    /// Calls the C library function `name`, declaring it with the C
    /// signature if the program does not; integer arguments are converted
    /// to the declared parameter types.
    fn libc_call(&mut self, name: &str, params: Vec<Type>, ret: Option<Type>, args: Vec<Operand>) -> Res<Option<Operand>> {
        let f = match self.cx.syms.get(name) {
            Some(Sym::Func(f)) => *f,
            _ => {
                let f = self.cx.program.funcs.push(FuncData::external(name, params, ret, false));
                self.cx.syms.insert(name.to_string(), Sym::Func(f));
                f
            }
        };
        let fd: &FuncData = &self.cx.program.funcs[f];
        let (fparams, fret) = (fd.params.clone(), fd.ret);
        let mut coerced = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            let have = self.operand_type(&a);
            match fparams.get(i) {
                Some(&want) if want != have && want.is_int() && have.is_int() => coerced.push(self.int_cast(a, want, false)),
                Some(&want) if want != have => {
                    return Err(self.unsupported(format!("@{name} declared with a parameter of type {want}")))
                }
                _ => coerced.push(a),
            }
        }
        Ok(self.emit(InstKind::Call { callee: Callee::Direct(f), args: coerced, ret: fret }).map(Operand::Value))
    }

    // ------------------------------------------------------------ terminators

    fn lower_term(&mut self, t: &'m LT) -> Res<()> {
        let term = match t {
            LT::Ret(r) => match (&r.return_operand, self.ret_ptr) {
                (None, _) => Terminator::Return(None),
                (Some(o), Some(ptr)) => {
                    let leaves = self.agg_operand(o)?;
                    self.store_agg(&leaves, ptr)?;
                    Terminator::Return(None)
                }
                (Some(o), None) => Terminator::Return(Some(self.operand(o)?)),
            },
            LT::Br(b) => {
                let call = self.block_call(&b.dest)?;
                match self.decision_arg(b, &call) {
                    Some((cond, positions, ty, cond_loc)) => {
                        if !self.loc.is_known() {
                            self.loc = self.operator_loc().unwrap_or(cond_loc);
                        }
                        let side = |taken: bool| {
                            let mut args = call.args.clone();
                            for &k in &positions {
                                args[k] = Operand::Const(Const { ty, bits: u64::from(taken) });
                            }
                            BlockCall { block: call.block, args }
                        };
                        Terminator::Branch { cond, if_true: side(true), if_false: side(false) }
                    }
                    None => Terminator::Jump(call),
                }
            }
            LT::CondBr(b) => {
                let cond = self.operand(&b.condition)?;
                let if_true = self.block_call(&b.true_dest)?;
                let if_false = self.block_call(&b.false_dest)?;
                Terminator::Branch { cond, if_true, if_false }
            }
            LT::Switch(s) => {
                let ty = self.scalar(&self.type_of_op(&s.operand))?;
                let value = self.operand(&s.operand)?;
                let mut cases = Vec::with_capacity(s.dests.len());
                for (k, dest) in &s.dests {
                    let Constant::Int { value: kv, bits } = k.as_ref() else {
                        return Err(self.unsupported("a switch case that is not an integer"));
                    };
                    cases.push((truncate(*kv, *bits), self.block_call(dest)?));
                }
                let default = self.block_call(&s.default_dest)?;
                Terminator::Switch { ty, value, cases, default }
            }
            LT::Unreachable(_) => Terminator::Unreachable,
            other => return Err(self.unsupported(format!("terminator `{other}`"))),
        };
        self.body.set_term(self.cur, term, self.loc);
        Ok(())
    }

    /// The decision a jump passes on, if any: the `i1` condition, the
    /// positions of the arguments that hold it (or its `zext`), their
    /// type, and the location of the instruction computing it.
    ///
    /// clang computes the last operand of a short-circuit chain used as a
    /// value (`f(x == 0 && y == 0)`, `i < n && k > 2` before the loop's
    /// branch on the whole chain) without a branch of its own: the block
    /// evaluating it jumps to the join, passing the `i1` to a `phi`. gcc
    /// branches on that operand, and gcov, like Test-Comp, counts its two
    /// outcomes. So such a jump becomes a branch on the operand to the same
    /// block, passing the constant true or false: the same executions, and
    /// two edge goals every engine already handles.
    ///
    /// A decision is a non-constant `i1` computed by an instruction of the
    /// current block (a comparison, `!b` as `xor b, true`, a `_Bool` as
    /// `trunc`, a call returning `_Bool`): in C, `i1` values only arise as
    /// operands of `&&`, `||` and `!`, which gcc evaluates by branching. An
    /// `i1` that is a block parameter (the value of an inner chain, as in
    /// `a && (b || c)`) carries no decision of this block: the inner chain
    /// has its own branches.
    ///
    /// gcc also folds `a ? b > 2 : 0` into `a && b > 2` (and `a ? 1 : c`
    /// into `a || c`, with `!a` for the other two constants) when the arm
    /// is a truth value, and branches on the arm; clang passes the arm as
    /// `zext i1` (possibly cast on to the `?:`'s type) to a `phi` whose
    /// other value is that constant. Such
    /// an argument is a decision too, replaced by 1 or 0 of its type (see
    /// [`Self::folded_conditional`]). With two non-constant arms (`a ? b > 2 : c < 0`) gcc branches on `a`
    /// only, and so does walkdown.
    fn decision_arg(&self, jump: &li_term::Br, call: &BlockCall) -> Option<(Operand, Vec<usize>, Type, Loc)> {
        // The instruction of the current block defining `o`, if any.
        let local_inst = |o: Operand| -> Option<&walkdown_ir::InstData> {
            let Operand::Value(v) = o else { return None };
            let walkdown_ir::ValueDef::Inst(inst) = self.body.values[v].def else { return None };
            self.body.blocks[self.cur].insts.contains(&inst).then(|| &self.body.insts[inst])
        };
        let is_decision = |o: Operand| self.operand_type(&o) == Type::I1 && local_inst(o).is_some();
        for (k, &a) in call.args.iter().enumerate() {
            let (cond, ty) = if is_decision(a) {
                (a, Type::I1)
            } else {
                // `zext` of the `i1`, then integer casts that keep 0 and 1
                // (`long r = a ? b > 2 : 0L` sign-extends the `int`).
                let Some(ty) = local_inst(a).and_then(|d| d.kind.result_type()) else { continue };
                let mut o = a;
                let arg = loop {
                    match local_inst(o).map(|d| &d.kind) {
                        Some(&InstKind::Cast { op: CastOp::ZExt, from: Type::I1, arg, .. }) => break Some(arg),
                        Some(&InstKind::Cast { op: CastOp::ZExt | CastOp::SExt | CastOp::Trunc, from, arg, .. })
                            if from.is_int() && from != Type::I1 =>
                        {
                            o = arg
                        }
                        _ => break None,
                    }
                };
                match arg {
                    Some(arg) if is_decision(arg) && self.folded_conditional(jump, k).is_some() => (arg, ty),
                    _ => continue,
                }
            };
            let positions = (0..call.args.len()).filter(|&j| call.args[j] == a).collect();
            let loc = local_inst(cond).map_or(Loc::UNKNOWN, |d| d.loc);
            return Some((cond, positions, ty, loc));
        }
        None
    }

    /// `Some(())` when argument `k` of `jump` (from the current block) is the arm
    /// of a `?:` whose other arm is the constant 0 or 1, which gcc folds
    /// into `&&` or `||`: the jump's target joins exactly two values, from
    /// the two sides of one conditional branch (the current block and the
    /// other incoming block each are that branch's block or have it as
    /// their only predecessor), the other one the constant; and the jump
    /// has the location of that branch, as clang locates the parts of a
    /// `?:` (an `if` assigning in both branches has other locations, and
    /// gcc folds no `if` statement).
    fn folded_conditional(&self, jump: &li_term::Br, k: usize) -> Option<()> {
        let me = self.cur_name?;
        let (cond_block, entry) = self.entry_branch(me)?;
        (jump.debugloc.is_some() && entry.debugloc == jump.debugloc).then_some(())?;
        let phi = self.phis.get(&jump.dest)?.get(k)?;
        let [(a, a_from), (b, b_from)] = phi.incoming_values.as_slice() else { return None };
        let (other, other_from) = if a_from == me { (b, b_from) } else { (a, a_from) };
        let side_of_branch = other_from == cond_block || self.entry_branch(other_from).is_some_and(|(n, _)| n == cond_block);
        let zero_or_one = matches!(other, LOp::ConstantOperand(c) if matches!(c.as_ref(), Constant::Int { value: 0 | 1, .. }));
        (side_of_branch && zero_or_one).then_some(())
    }

    /// The location clang gives a short-circuit operator: that of the
    /// conditional branch leading into the current block (the right
    /// operand of `&&`, whose jump clang leaves without a location where
    /// it gives that of `||` to the jump of `||`'s right operand).
    fn operator_loc(&mut self) -> Option<Loc> {
        let (_, entry) = self.entry_branch(self.cur_name?)?;
        let loc = self.cx.loc(&entry.debugloc);
        loc.is_known().then_some(loc)
    }

    /// The block `name` is entered from and its conditional branch, when
    /// that block is its only predecessor and ends in one.
    fn entry_branch(&self, name: &Name) -> Option<(&'m Name, &'m li_term::CondBr)> {
        let f = self.f;
        let mut preds = f.basic_blocks.iter().filter(|bb| match &bb.term {
            LT::Br(b) => &b.dest == name,
            LT::CondBr(b) => &b.true_dest == name || &b.false_dest == name,
            LT::Switch(s) => &s.default_dest == name || s.dests.iter().any(|(_, d)| d == name),
            _ => false,
        });
        let (Some(pred), None) = (preds.next(), preds.next()) else { return None };
        match &pred.term {
            LT::CondBr(b) => Some((&pred.name, b)),
            _ => None,
        }
    }

    fn block_call(&mut self, dest: &'m Name) -> Res<BlockCall> {
        let Some(&block) = self.blocks.get(dest) else {
            return Err(self.unsupported(format!("a branch to unknown block %{}", name_text(dest))));
        };
        let mut args = Vec::new();
        let pred = self.cur_name;
        if let Some(phis) = self.phis.get(dest).cloned() {
            for phi in phis {
                let incoming = phi.incoming_values.iter().find(|(_, b)| Some(b) == pred);
                match incoming {
                    Some((v, _)) => args.push(self.operand(v)?),
                    None => return Err(self.unsupported("a phi without a value for one of its predecessors")),
                }
            }
        }
        if let Some(phis) = self.wide_phis.get(dest).cloned() {
            for phi in phis {
                let incoming = phi.incoming_values.iter().find(|(_, b)| Some(b) == pred);
                let Some((v, _)) = incoming else {
                    return Err(self.unsupported("a phi without a value for one of its predecessors"));
                };
                // A constant incoming value is told apart by the phi's name.
                let saved = self.cur_dest.replace(&phi.dest);
                let w = self.wide_operand(v);
                self.cur_dest = saved;
                args.extend(w?.limbs);
            }
        }
        Ok(BlockCall { block, args })
    }
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
    !(kind.starts_with('u')
        || matches!(kind, "bool" | "_Bool" | "size_t" | "sector_t" | "pointer" | "pchar" | "charp"))
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
