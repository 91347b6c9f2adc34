//! Calls: entering defined functions (frame layout, argument passing,
//! constants, depth limit), resolving function pointers, and dispatching to
//! the library models and the by-name models.

use crate::api::Outcome;
use crate::code::{CallSite, CallTarget, FuncKind, Model, Opnd, NONE};
use crate::eval::mask;
use crate::exec::{Flow, Frame, JmpPoint, Machine};
use walkdown_ir::{CheckKind, Type};

/// Marks a `jmp_buf` that `setjmp` filled (the high half of its first 8
/// bytes; the low half numbers the point).
const JMP_MAGIC: u64 = 0x5e71_3b0f;

impl Machine<'_, '_> {
    /// The `i`th argument of a call site.
    #[inline]
    pub(crate) fn arg(&self, regs: &[u64], site: &CallSite, base: usize, i: usize) -> Option<u64> {
        if i >= site.args_len as usize {
            return None;
        }
        let o: Opnd = self.p.args[site.args_start as usize + i];
        Some(regs[o.slot(base)])
    }

    /// Executes a call: enters a defined function or runs a model.
    pub(crate) fn call(&mut self, regs: &mut Vec<u64>, site: &CallSite, pc: usize, base: usize, frame: usize) -> Flow {
        let p = self.p;
        let fno =
            match site.target {
                CallTarget::Direct(f) => f,
                CallTarget::Indirect(o) => {
                    let addr = regs[o.slot(base)];
                    let i = p.func_addrs.partition_point(|&(a, _)| a < addr);
                    match p.func_addrs.get(i) {
                        Some(&(a, f)) if a == addr => {
                            let callee = &p.funcs[f as usize];
                            let n = site.args_len as usize;
                            if n < callee.params.len() || (!callee.variadic && n != callee.params.len()) {
                                return Flow::Stop(self.unsupported(
                                    pc,
                                    format!(
                                        "indirect call of @{} with {n} arguments; it takes {}",
                                        callee.name,
                                        callee.params.len()
                                    ),
                                ));
                            }
                            if site.ret.is_some() && callee.ret.is_none() {
                                return Flow::Stop(self.unsupported(
                                    pc,
                                    format!("indirect call of void @{} expects a result", callee.name),
                                ));
                            }
                            f
                        }
                        _ => {
                            let kind = if addr < crate::memory::NULL_LIMIT {
                                CheckKind::NullDeref
                            } else {
                                CheckKind::OutOfBounds
                            };
                            return Flow::Stop(self.error(pc, kind));
                        }
                    }
                }
            };
        let callee = &p.funcs[fno as usize];
        match &callee.kind {
            FuncKind::Defined { entry, frame: callee_frame, params, consts_start, consts_len } => {
                let depth = self.frames.len() + 1;
                if depth >= self.limits.max_call_depth as usize {
                    return Flow::Stop(Outcome::DepthLimit);
                }
                let new_base = base + frame;
                let end = new_base + *callee_frame as usize;
                if end > u32::MAX as usize {
                    return Flow::Stop(Outcome::DepthLimit);
                }
                if regs.len() < end {
                    regs.resize(end, 0);
                }
                let (cs, cl) = (*consts_start as usize, *consts_len as usize);
                regs[end - cl..end].copy_from_slice(&p.consts[cs..cs + cl]);
                let dm = p.dm;
                for (i, (&r, ty)) in params.iter().zip(&callee.params).enumerate() {
                    let o = p.args[site.args_start as usize + i];
                    let v = regs[o.slot(base)] & mask(ty.bits(dm));
                    regs[new_base + r as usize] = v;
                }
                self.frames.push(Frame {
                    ret_pc: pc as u32 + 1,
                    base: base as u32,
                    frame: frame as u32,
                    dst: site.dst,
                    ret_mask: site.ret.map_or(0, |t| mask(t.bits(dm))),
                    alloca_mark: self.allocas.len() as u32,
                });
                Flow::Enter { pc: *entry as usize, base: new_base, frame: *callee_frame as usize }
            }
            FuncKind::Builtin(b) => {
                let b = *b;
                if b == walkdown_ir::Builtin::Print {
                    self.capture_print(&callee.name, regs, site, base);
                }
                self.call_builtin(regs, b, callee.params.first().copied(), site, pc, base)
            }
            FuncKind::Model(m) => match *m {
                Model::ReachError => {
                    self.count_line(callee.entry_line);
                    for &g in &callee.entry_goals {
                        self.cover(g);
                    }
                    Flow::Stop(self.error(pc, CheckKind::ReachError))
                }
                Model::AssertFail => {
                    let in_reach_error = match self.arg(regs, site, base, 3) {
                        Some(f) => self.read_cstring(f, 64).is_ok_and(|s| s == b"reach_error"),
                        None => false,
                    };
                    let kind = if in_reach_error { CheckKind::ReachError } else { CheckKind::Assertion };
                    Flow::Stop(self.error(pc, kind))
                }
                Model::Assume => match self.arg(regs, site, base, 0) {
                    Some(0) => Flow::Stop(Outcome::AssumeFailed),
                    _ => Flow::Next,
                },
                Model::Nondet { signed } => {
                    if let Some(ty) = site.ret {
                        let v = self.nondet(ty, signed && ty.is_int() && ty != Type::I1);
                        self.set_result(regs, site, base, v);
                    }
                    Flow::Next
                }
                Model::Setjmp => self.setjmp(regs, site, pc, base, frame),
                Model::Longjmp => self.longjmp(regs, site, pc, base),
            },
            FuncKind::Unknown => {
                self.note_unknown(fno);
                // An integer result may be anything the function could
                // return, so it is an input of the test. A pointer cannot:
                // an input value is a wild address, and every later access
                // through it a false memory error. The run stops here,
                // keeping what it covered, with its own outcome.
                if site.ret == Some(Type::Ptr) {
                    let what = format!(
                        "stopped at `{}`, which has neither a body nor a model: its pointer result cannot be an input",
                        callee.name
                    );
                    return Flow::Stop(self.unsupported(pc, what));
                }
                if let Some(ty) = site.ret {
                    let v = self.nondet(ty, ty.is_int() && ty != Type::I1);
                    self.set_result(regs, site, base, v);
                }
                Flow::Next
            }
        }
    }

    /// `setjmp(env)`: remembers this activation and call, writes the
    /// point's number and [`JMP_MAGIC`] into the first 8 bytes of `env`
    /// (every `jmp_buf` is larger), returns 0.
    fn setjmp(&mut self, regs: &mut [u64], site: &CallSite, pc: usize, base: usize, frame: usize) -> Flow {
        let Some(env) = self.arg(regs, site, base, 0) else {
            return Flow::Stop(self.unsupported(pc, "setjmp without an argument".into()));
        };
        let point = JmpPoint {
            depth: self.frames.len(),
            base,
            frame,
            pc,
            dst: site.dst,
            ret_mask: site.ret.map_or(0, |t| mask(t.bits(self.p.dm))),
        };
        let token = (JMP_MAGIC << 32) | self.jmp_points.len() as u64;
        if let Err(f) = self.mem.store(env, 8, token) {
            return Flow::Stop(self.error(pc, f.kind));
        }
        self.jmp_points.push(point);
        self.set_result(regs, site, base, 0);
        Flow::Next
    }

    /// `longjmp(env, val)`: back to the `setjmp` call `env` records, in the
    /// activation that made it (which must not have returned), with the
    /// frames and stack slots of the functions in between released; the
    /// call returns `val`, or 1 for 0. Local variables keep the values they
    /// have now (C leaves the non-volatile ones changed since `setjmp`
    /// indeterminate).
    fn longjmp(&mut self, regs: &mut [u64], site: &CallSite, pc: usize, base: usize) -> Flow {
        let (Some(env), Some(val)) = (self.arg(regs, site, base, 0), self.arg(regs, site, base, 1)) else {
            return Flow::Stop(self.unsupported(pc, "longjmp without two arguments".into()));
        };
        let token = match self.mem.load(env, 8) {
            Ok(t) => t,
            Err(f) => return Flow::Stop(self.error(pc, f.kind)),
        };
        let point = match self.jmp_points.get((token & 0xffff_ffff) as usize) {
            Some(p) if token >> 32 == JMP_MAGIC => *p,
            _ => return Flow::Stop(self.unsupported(pc, "longjmp with a jmp_buf no setjmp filled".into())),
        };
        // The activation is live when the frame records of its callers
        // are still there and the record of its own call (if it called
        // further) names its frame.
        let live = self.frames.len() >= point.depth
            && self
                .frames
                .get(point.depth)
                .map_or(base == point.base, |f| f.base as usize == point.base && f.frame as usize == point.frame);
        if !live {
            return Flow::Stop(self.unsupported(pc, "longjmp to a function that has returned".into()));
        }
        while self.frames.len() > point.depth {
            let Some(f) = self.frames.pop() else { break };
            while self.allocas.len() > f.alloca_mark as usize {
                if let Some(i) = self.allocas.pop() {
                    self.mem.release(i);
                }
            }
        }
        let v = u64::from((val as u32).max(1));
        if point.dst != NONE {
            regs[point.base + point.dst as usize] = v & point.ret_mask;
        }
        Flow::Resume { pc: point.pc + 1, base: point.base, frame: point.frame }
    }

    /// Writes a call's result, truncated to the type the caller expects.
    pub(crate) fn set_result(&self, regs: &mut [u64], site: &CallSite, base: usize, v: u64) {
        if site.dst != NONE {
            let m = site.ret.map_or(0, |t| mask(t.bits(self.p.dm)));
            regs[base + site.dst as usize] = v & m;
        }
    }
}
