//! Lowering calls: direct and indirect calls, the Test-Comp input and
//! property functions, LLVM intrinsics, variadic calls and `va_start`, and
//! the libc functions some intrinsics become.

use super::*;

impl<'a, 'm> FuncLowerer<'a, 'm> {
    pub(super) fn call(&mut self, c: &'m li::Call) -> Res<()> {
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
            if !self.cx.defines(name) && (self.test_comp_call(name, c)? || self.f80_math(name, c)?) {
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
                self.push_argument(a, &mut args)?;
            }
            let area = self.pack_varargs(&c.arguments[..named], &c.arguments[named..])?;
            args.push(area);
        } else {
            for (a, _) in &c.arguments {
                self.push_argument(a, &mut args)?;
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
                    return Err(self.unsupported(format!(
                        "call of @{name} with {} arguments (it takes {})",
                        args.len(),
                        params.len()
                    )));
                }
                for (a, p) in args.iter().zip(&params) {
                    if self.operand_type(a) != *p {
                        return Err(self.unsupported(format!(
                            "call of @{name} with an argument of type {} for a parameter of type {p}",
                            self.operand_type(a)
                        )));
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
            if is_f80(self.callee_result_type(callee)?.as_ref()) {
                let w = self.f80_returned(Operand::Value(v));
                self.define_wide(dest, w);
                return Ok(());
            }
            self.define(dest, Operand::Value(v));
        }
        Ok(())
    }

    /// Appends the IR arguments an LLVM argument becomes: itself, or the
    /// two limbs of a `long double`.
    fn push_argument(&mut self, a: &LOp, args: &mut Vec<Operand>) -> Res<()> {
        if is_f80(&self.type_of_op(a)) {
            args.extend(self.f80_operand(a)?.limbs);
        } else {
            args.push(self.operand(a)?);
        }
        Ok(())
    }

    pub(super) fn call_result_type(&self, callee: &LOp) -> Res<Option<Type>> {
        let result_type = self.callee_result_type(callee)?;
        self.cx.ret_type(&result_type).map_err(|e| self.unsupported(e))
    }

    /// The LLVM result type of a call through `callee`.
    fn callee_result_type(&self, callee: &LOp) -> Res<TypeRef> {
        let t = self.type_of_op(callee);
        let LType::PointerType { pointee_type, .. } = t.as_ref() else {
            return Err(self.unsupported(format!("call through {t}")));
        };
        let LType::FuncType { result_type, .. } = pointee_type.as_ref() else {
            return Err(self.unsupported(format!("call through {t}")));
        };
        Ok(result_type.clone())
    }

    /// Lowers calls of the Test-Comp functions the program does not define;
    /// returns whether `name` was one.
    pub(super) fn test_comp_call(&mut self, name: &str, c: &'m li::Call) -> Res<bool> {
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
                    Some((LOp::ConstantOperand(k), _)) if self.const_string(k).as_deref() == Some("reach_error") => {
                        CheckKind::ReachError
                    }
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
    pub(super) fn truth(&mut self, op: &LOp) -> Res<Operand> {
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
    pub(super) fn const_string(&self, k: &ConstantRef) -> Option<String> {
        let (Sym::Global(g), off) = const_address(self.cx, k).ok()?? else { return None };
        let bytes = self.cx.program.globals[g].init.get(off as usize..)?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    pub(super) fn intrinsic(&mut self, name: &str, c: &'m li::Call) -> Res<()> {
        if name.ends_with(".f80") && self.f80_math(name, c)? {
            return Ok(());
        }
        let family = name.split('.').next().unwrap_or("");
        let mut args = Vec::new();
        match family {
            "dbg" | "lifetime" | "experimental" | "donothing" | "var" | "assume" | "stackrestore" | "va_end" => {
                return Ok(())
            }
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
                let n = self.cast_to_pint(args[2], false);
                let lib = if family == "memcpy" { "memcpy" } else { "memmove" };
                self.libc_call(
                    lib,
                    vec![Type::Ptr, Type::Ptr, self.pint()],
                    Some(Type::Ptr),
                    vec![args[0], args[1], n],
                )?;
                None
            }
            "memset" => {
                let byte = self.int_cast(args[1], Type::I32, false);
                let n = self.cast_to_pint(args[2], false);
                self.libc_call(
                    "memset",
                    vec![Type::Ptr, Type::I32, self.pint()],
                    Some(Type::Ptr),
                    vec![args[0], byte, n],
                )?;
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
    pub(super) fn va_start(&mut self, c: &'m li::Call) -> Res<()> {
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
                self.emit(InstKind::Store {
                    ty: Type::I32,
                    ptr: at,
                    value: i32c(8 * VA_GP_REGS + 16 * fp.min(VA_FP_REGS)),
                });
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
    pub(super) fn pack_varargs(
        &mut self,
        named: &[(LOp, Vec<llvm_ir::function::ParameterAttribute>)],
        rest: &[(LOp, Vec<llvm_ir::function::ParameterAttribute>)],
    ) -> Res<Operand> {
        let lp64 = self.dm() == walkdown_ir::DataModel::LP64;
        let (mut gp, mut fp) = (0u64, 0u64);
        for (a, attrs) in named {
            if is_byval(attrs).is_some() || is_f80(&self.type_of_op(a)) {
                continue; // passed in memory
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
            LongDouble(super::wide::Wide),
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
            if is_f80(&self.type_of_op(a)) {
                // In memory: 16 bytes aligned to 16 on x86-64, 12 bytes on
                // i386.
                let w = self.f80_operand(a)?;
                let size = self.cx.layout.size_of(&self.type_of_op(a)).map_err(|e| self.unsupported(e))?;
                if lp64 {
                    overflow = overflow.div_ceil(16) * 16;
                }
                placed.push((overflow, Part::LongDouble(w)));
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
                    self.libc_call(
                        "memcpy",
                        vec![Type::Ptr, Type::Ptr, self.pint()],
                        Some(Type::Ptr),
                        vec![at, src, n],
                    )?;
                }
                Part::LongDouble(w) => self.store_wide(at, &w),
            }
        }
        Ok(area)
    }

    /// `fshl(a, b, s)`: the high half of `a:b << (s mod w)`; `fshr`: the
    /// low half of `a:b >> (s mod w)`.
    pub(super) fn funnel_shift(&mut self, left: bool, a: Operand, b: Operand, s: Operand) -> Operand {
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

    pub(super) fn int_cast(&mut self, o: Operand, to: Type, signed: bool) -> Operand {
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
    pub(super) fn libc_call(
        &mut self,
        name: &str,
        params: Vec<Type>,
        ret: Option<Type>,
        args: Vec<Operand>,
    ) -> Res<Option<Operand>> {
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
                Some(&want) if want != have && want.is_int() && have.is_int() => {
                    coerced.push(self.int_cast(a, want, false))
                }
                Some(&want) if want != have => {
                    return Err(self.unsupported(format!("@{name} declared with a parameter of type {want}")))
                }
                _ => coerced.push(a),
            }
        }
        Ok(self.emit(InstKind::Call { callee: Callee::Direct(f), args: coerced, ret: fret }).map(Operand::Value))
    }

    // ------------------------------------------------------------ terminators
}
