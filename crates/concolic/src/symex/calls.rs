//! Calls in a traced run: entering defined functions, and the library
//! functions the interpreter models (with shadows where their results
//! depend on inputs; the string functions are in the `strings` module).

use super::*;

impl Run<'_, '_> {
    pub(super) fn enter(
        &mut self,
        f: FuncId,
        args: &[(u64, Option<ExprId>)],
        ret_to: Option<Value>,
    ) -> Result<(), Stop> {
        if self.frames.len() as u64 >= u64::from(self.limits.exec.max_call_depth) {
            return Err(Stop::End(TraceEnd::Limit));
        }
        let body = self.t.program.funcs[f]
            .body
            .as_ref()
            .ok_or_else(|| unsupported("call of a function without body".into()))?;
        let nvals = body.values.len();
        let mut frame = Frame {
            func: f,
            body,
            vals: vec![0; nvals],
            shadow: vec![None; nvals],
            block: Body::ENTRY,
            pos: 0,
            ret_to,
            stack_objects: Vec::new(),
        };
        for (i, &p) in body.blocks[Body::ENTRY].params.iter().enumerate() {
            if let Some(&(v, s)) = args.get(i) {
                frame.vals[p.index()] = v;
                frame.shadow[p.index()] = s;
            }
        }
        self.frames.push(frame);
        Ok(())
    }

    pub(super) fn call(
        &mut self,
        inst: Inst,
        target: FuncId,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<(), Stop> {
        let xf = &self.t.prepared.funcs[target.index()];
        match &xf.kind {
            FuncKind::Defined { .. } => self.enter(target, args, result),
            FuncKind::Model(Model::ReachError) => {
                self.cover(self.t.goals.error_site(self.frame().func, inst));
                Err(error("reach_error".into()))
            }
            FuncKind::Model(Model::AssertFail) => {
                self.cover(self.t.goals.error_site(self.frame().func, inst));
                Err(error("assertion".into()))
            }
            FuncKind::Model(Model::Assume) => {
                let (c, sc) = args.first().copied().unwrap_or((1, None));
                if let Some(e) = sc {
                    let w = self.sym.width(e);
                    let zero = self.sym.bv(0, w);
                    let nz = self.sym.eq(e, zero);
                    let nz = if c != 0 { self.sym.not(nz) } else { nz };
                    self.push_constraint(nz);
                }
                if c == 0 {
                    return Err(Stop::End(TraceEnd::AssumeFailed));
                }
                Ok(())
            }
            // An input is consumed even when the result is unused, as the
            // interpreter does, so that positions in the vector agree.
            FuncKind::Model(Model::Nondet { signed }) => {
                if let Some(ty) = ret {
                    let (bits, shadow) = self.next_input(ty, *signed && ty.is_int() && ty != Type::I1);
                    if let Some(r) = result {
                        self.set(r, bits, shadow);
                    }
                }
                Ok(())
            }
            // The shadow follows no non-local jump: a run that takes one
            // ends here, and is judged by the interpreter's replay.
            FuncKind::Model(Model::Setjmp) => {
                if let Some(r) = result {
                    self.set(r, 0, None);
                }
                Ok(())
            }
            FuncKind::Model(Model::Longjmp) => Err(unsupported("longjmp".into())),
            FuncKind::Unknown => {
                if let Some(ty) = ret {
                    let (bits, shadow) = self.next_input(ty, ty.is_int() && ty != Type::I1);
                    if let Some(r) = result {
                        self.set(r, bits, shadow);
                    }
                }
                Ok(())
            }
            FuncKind::Builtin(b) => self.builtin(*b, args, result, ret),
        }
    }

    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<(), Stop> {
        let pw = self.dm.pointer_bits();
        let arg = |i: usize| args.get(i).copied().unwrap_or((0, None));
        let fault = |k: CheckKind| error(format!("{} in a library call", k.name()));
        if self.string_builtin(b, args, result, ret)? {
            return Ok(());
        }
        if let Some(need) = walkdown_interp::libc::arity(b) {
            return self.shared_builtin(b, need, args, result, ret);
        }
        let value: u64 = match b {
            Builtin::Malloc | Builtin::Calloc | Builtin::Realloc => {
                let (a0, s0) = arg(0);
                let (a1, s1) = arg(1);
                if b == Builtin::Realloc {
                    self.concretize(a0, s0, pw);
                } else {
                    self.concretize_size(a0, s0);
                }
                if b != Builtin::Malloc {
                    self.concretize_size(a1, s1);
                }
                let n = match b {
                    Builtin::Malloc => Some(a0),
                    Builtin::Calloc => a0.checked_mul(a1),
                    _ => Some(a1),
                };
                match n.map(|n| self.mem.alloc(n, 16, ObjectKind::Heap, false)) {
                    Some(Ok((_, addr))) => {
                        if b == Builtin::Realloc && a0 != 0 {
                            let old = self.mem.heap_block(a0).map_err(fault)?;
                            let old_size = self.mem.object(old).map_or(0, |o| o.size);
                            let len = old_size.min(a1);
                            self.copy(addr, a0, len)?;
                            self.mem.release(old);
                        }
                        addr
                    }
                    _ => 0,
                }
            }
            Builtin::Free => {
                let (p, sp) = arg(0);
                self.concretize(p, sp, pw);
                self.mem.free_heap(p).map_err(fault)?;
                0
            }
            Builtin::Memset => {
                let (p, sp) = arg(0);
                let (c, sc) = arg(1);
                let (n, sn) = arg(2);
                self.concretize(p, sp, pw);
                self.concretize(n, sn, pw);
                self.mem.bytes_mut(p, n).map_err(|f| fault(f.kind))?.fill(c as u8);
                match sc {
                    Some(e) => {
                        let w = self.sym.width(e);
                        let byte = if w >= 8 {
                            self.sym.extract(e, 7, 0)
                        } else {
                            self.sym.cast(walkdown_ir::CastOp::ZExt, w, 8, e)
                        };
                        for i in 0..n {
                            self.mem_shadow.insert(p + i, byte);
                        }
                    }
                    None => self.clear_shadow(p, n),
                }
                p
            }
            Builtin::Memcpy | Builtin::Memmove => {
                let (d, sd) = arg(0);
                let (s, ss) = arg(1);
                let (n, sn) = arg(2);
                self.concretize(d, sd, pw);
                self.concretize(s, ss, pw);
                self.concretize(n, sn, pw);
                self.copy(d, s, n)?;
                d
            }
            Builtin::Exit => return Err(Stop::End(TraceEnd::Exit)),
            Builtin::Abort => return Err(error("abort".into())),
            Builtin::Print | Builtin::NoOp | Builtin::Annotation => 0,
            Builtin::Prune | Builtin::TryFirst => {
                self.annotation_point(b, arg(0))?;
                0
            }
            Builtin::Fabs | Builtin::Sqrt => {
                let ty = ret.unwrap_or(Type::F64);
                let (v, sv) = arg(0);
                if b == Builtin::Fabs {
                    if let (Some(e), Some(r)) = (sv, result) {
                        if self.tracked(ty) && self.sym.width(e) == self.width(ty) {
                            let abs = self.sym.fabs(self.width(ty), e);
                            self.set(r, eval_fabs(ty, v), Some(abs));
                            return Ok(());
                        }
                    }
                    eval_fabs(ty, v)
                } else {
                    eval_sqrt(ty, v)
                }
            }
            // Run by `string_builtin` or `shared_builtin` above.
            _ => 0,
        };
        if let (Some(r), Some(ty)) = (result, ret) {
            let bits = walkdown_interp::eval::truncate(value, ty.bits(self.dm));
            self.set(r, bits, None);
        }
        Ok(())
    }

    /// A model of `walkdown_interp::libc`, run as the interpreter runs it
    /// (but the string functions `string_builtin` follows symbolically).
    /// `abs` keeps its argument's shadow (`x < 0 ? -x : x`); the other
    /// models (`strstr`, input, rounding) run on concrete arguments (fixed
    /// by the path condition) and give a concrete result, and the bytes
    /// they write lose their shadows.
    pub(super) fn shared_builtin(
        &mut self,
        b: Builtin,
        need: usize,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<(), Stop> {
        let arg = |i: usize| args.get(i).copied().unwrap_or((0, None));
        let param0 = None;
        let concrete: Vec<u64> = (0..need).map(|i| arg(i).0).collect();
        let effect = walkdown_interp::libc::call(&mut self.mem, b, &concrete, ret, param0)
            .map_err(|f| error(format!("{} in a library call", f.kind.name())))?;
        if let Some((at, n)) = effect.written {
            self.clear_shadow(at, n);
        }
        let (Some(r), Some(ty)) = (result, ret) else { return Ok(()) };
        let w = ty.bits(self.dm);
        let bits = walkdown_interp::eval::truncate(effect.value, w);
        let shadow = match (b, arg(0).1) {
            (Builtin::Abs, Some(e)) if ty.is_int() => {
                let x = self.sym.resize(e, self.sym.width(e), w, true);
                let zero = self.sym.bv(0, w);
                let neg = self.sym.cmp(walkdown_ir::CmpPred::Slt, x, zero);
                let minus = self.sym.bin(walkdown_ir::BinOp::Sub, w, zero, x);
                Some(self.sym.ite(neg, minus, x))
            }
            _ => {
                for &(v, sv) in args.iter().take(need) {
                    self.concretize(v, sv, 0);
                }
                None
            }
        };
        self.set(r, bits, shadow);
        Ok(())
    }
}
