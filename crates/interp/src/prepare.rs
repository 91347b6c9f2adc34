//! Building the executable form ([`crate::code`]) of a program: code
//! layout, operand resolution, edges with their goals, line slots, and the
//! memory image of globals (initial bytes, relocations), function objects
//! and `main`'s arguments, which each run starts from a copy of.

use crate::api::InterpError;
use crate::code::*;
use crate::memory::{Memory, ObjectKind};
use std::collections::{BTreeMap, HashMap};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::Goals;
use walkdown_ir::{
    BinOp, BlockCall, Callee, CmpPred, FileId, FuncId, InstKind, Operand, Program, RelocTarget, Terminator, Type,
};

fn malformed(func: &str, message: impl Into<String>) -> InterpError {
    InterpError::Malformed { func: func.to_string(), message: message.into() }
}

/// Whether calling the function `name` is the `reach_error` error (defined
/// or not).
fn is_reach_error(name: &str) -> bool {
    matches!(name, "reach_error" | "__VERIFIER_error")
}

/// The model of an external function without [`Builtin`], by name.
pub(crate) fn model_of(name: &str) -> Option<Model> {
    Some(match name {
        _ if is_reach_error(name) => Model::ReachError,
        "__assert_fail" | "__assert" | "__assert_rtn" | "__assert_perror_fail" => Model::AssertFail,
        "__VERIFIER_assume" => Model::Assume,
        "setjmp" | "_setjmp" | "sigsetjmp" | "__sigsetjmp" => Model::Setjmp,
        "longjmp" | "_longjmp" | "siglongjmp" | "__longjmp_chk" => Model::Longjmp,
        _ => {
            let rest = name.strip_prefix("__VERIFIER_nondet_")?;
            let unsigned =
                rest.starts_with('u') || matches!(rest, "bool" | "_Bool" | "size_t" | "pointer" | "char_ptr" | "pchar");
            Model::Nondet { signed: !unsigned }
        }
    })
}

/// The function being translated.
struct FnCx<'c> {
    name: &'c str,
    fid: FuncId,
    nvalues: usize,
    starts: &'c [u32],
    body: &'c walkdown_ir::Body,
}

struct Builder<'a> {
    p: &'a Program,
    goals: &'a Goals,
    out: Prepared,
    /// The current function's constants: slots and values.
    const_slots: HashMap<u64, u32>,
    fconsts: Vec<u64>,
    /// The register of the current function's first constant.
    fconst_base: u32,
    global_addrs: Vec<u64>,
    /// Per pc, the line key, resolved to slots at the end.
    line_keys: Vec<Option<(FileId, u32)>>,
}

/// Builds the executable form of `p`.
pub(crate) fn prepare(p: &Program, goals: &Goals) -> Result<Prepared, InterpError> {
    let entry = p.entry().ok_or(InterpError::NoEntry)?;
    let dm = p.data_model;
    let mut b = Builder {
        p,
        goals,
        out: Prepared {
            dm,
            code: Vec::new(),
            meta: Vec::new(),
            line_slot: Vec::new(),
            lines: Vec::new(),
            consts: Vec::new(),
            edges: Vec::new(),
            moves: Vec::new(),
            switches: Vec::new(),
            cases: Vec::new(),
            calls: Vec::new(),
            args: Vec::new(),
            funcs: Vec::new(),
            func_addrs: Vec::new(),
            messages: Vec::new(),
            entry: entry.index() as u32,
            main_args: Vec::new(),
            memory: Memory::new(dm),
            goal_count: goals.len(),
            ff: crate::fastforward::FastForward::default(),
        },
        const_slots: HashMap::new(),
        fconsts: Vec::new(),
        fconst_base: 0,
        global_addrs: Vec::new(),
        line_keys: Vec::new(),
    };
    b.layout()?;
    for (fid, _) in p.funcs.iter() {
        b.function(fid)?;
    }
    b.finish_lines();
    Ok(b.out)
}

impl Builder<'_> {
    /// Globals, functions, relocations, `main`'s arguments.
    fn layout(&mut self) -> Result<(), InterpError> {
        let dm = self.p.data_model;
        let mem = &mut self.out.memory;
        let mut global_idx = Vec::new();
        for (gid, g) in self.p.globals.iter() {
            if g.init.len() as u64 > g.size {
                return Err(malformed(&format!("global {}", g.name), "initializer longer than the object"));
            }
            let (idx, addr) = mem
                .alloc(g.size, u64::from(g.align), ObjectKind::Global(gid), g.constant)
                .map_err(|e| InterpError::Layout(format!("global {} ({} bytes): {e:?}", g.name, g.size)))?;
            mem.init_object(idx, 0, &g.init);
            global_idx.push(idx);
            self.global_addrs.push(addr);
        }
        for (fid, f) in self.p.funcs.iter() {
            let (_, addr) = mem
                .alloc(1, 16, ObjectKind::Func(fid), true)
                .map_err(|e| InterpError::Layout(format!("function {}: {e:?}", f.name)))?;
            let kind = match (&f.body, f.builtin) {
                (Some(_), _) => FuncKind::Unknown, // filled in by `function`
                (None, Some(b)) => FuncKind::Builtin(b),
                (None, None) => model_of(&f.name).map_or(FuncKind::Unknown, FuncKind::Model),
            };
            self.out.func_addrs.push((addr, fid.index() as u32));
            self.out.funcs.push(XFunc {
                id: fid,
                name: f.name.clone(),
                params: f.params.clone(),
                ret: f.ret,
                variadic: f.variadic,
                addr,
                kind,
                entry_line: NONE,
                entry_goals: Vec::new(),
            });
        }
        let pbytes = dm.pointer_bytes();
        for ((_, g), &idx) in self.p.globals.iter().zip(&global_idx) {
            for r in &g.relocs {
                let target = match r.target {
                    RelocTarget::Global(t) => self.global_addrs.get(t.index()),
                    RelocTarget::Func(t) => self.out.funcs.get(t.index()).map(|f| &f.addr),
                };
                let Some(&target) = target else {
                    return Err(malformed(&format!("global {}", g.name), "relocation to a nonexistent object"));
                };
                let v = crate::eval::truncate(target.wrapping_add(r.addend as u64), dm.pointer_bits());
                let ok = usize::try_from(r.offset)
                    .ok()
                    .is_some_and(|off| mem.init_object(idx, off, &v.to_le_bytes()[..pbytes as usize]));
                if !ok {
                    return Err(malformed(
                        &format!("global {}", g.name),
                        format!("relocation at offset {} outside the object", r.offset),
                    ));
                }
            }
        }
        // `main`'s parameters: argc = 1, argv = {"main", NULL}, others 0.
        let main = &self.p.funcs[FuncId::new(self.out.entry as usize)];
        if !main.params.is_empty() {
            let layout_err = |e| InterpError::Layout(format!("argv: {e:?}"));
            let (si, name_addr) = mem.alloc(5, 1, ObjectKind::Runtime, false).map_err(layout_err)?;
            mem.init_object(si, 0, b"main\0");
            let (ai, argv) = mem.alloc(2 * pbytes, pbytes, ObjectKind::Runtime, false).map_err(layout_err)?;
            mem.init_object(ai, 0, &name_addr.to_le_bytes()[..pbytes as usize]);
            for (i, ty) in main.params.iter().enumerate() {
                self.out.main_args.push(match (i, ty) {
                    (0, t) if t.is_int() => 1,
                    (1, Type::Ptr) => argv,
                    _ => 0,
                });
            }
        }
        Ok(())
    }

    fn konst(&mut self, bits: u64) -> Opnd {
        let next = self.fconsts.len() as u32;
        let slot = *self.const_slots.entry(bits).or_insert(next);
        if slot == next {
            self.fconsts.push(bits);
        }
        Opnd::reg(self.fconst_base + slot)
    }

    fn operand(&mut self, fname: &str, nvalues: usize, o: &Operand) -> Result<Opnd, InterpError> {
        let dm = self.p.data_model;
        Ok(match *o {
            Operand::Value(v) if v.index() < nvalues => Opnd::reg(v.index() as u32),
            Operand::Value(v) => return Err(malformed(fname, format!("use of nonexistent value {v}"))),
            Operand::Const(c) => self.konst(crate::eval::truncate(c.bits, c.ty.bits(dm))),
            Operand::Global(g) => match self.global_addrs.get(g.index()) {
                Some(&a) => self.konst(a),
                None => return Err(malformed(fname, format!("use of nonexistent global {g}"))),
            },
            Operand::Func(f) => match self.out.funcs.get(f.index()) {
                Some(x) => {
                    let a = x.addr;
                    self.konst(a)
                }
                None => return Err(malformed(fname, format!("use of nonexistent function {f}"))),
            },
        })
    }

    fn trap(&mut self, msg: String) -> XInst {
        self.out.messages.push(msg);
        XInst::Trap { msg: self.out.messages.len() as u32 - 1 }
    }

    fn function(&mut self, fid: FuncId) -> Result<(), InterpError> {
        let p = self.p;
        let f = &p.funcs[fid];
        let Some(body) = &f.body else { return Ok(()) };
        let fname = f.name.as_str();
        if body.blocks.is_empty() {
            return Err(malformed(fname, "a defined function has no blocks"));
        }
        let nvalues = body.values.len();
        let sink = nvalues as u32;
        // Block start pcs.
        let mut starts = Vec::with_capacity(body.blocks.len());
        let mut pc = self.out.code.len();
        for (_, data) in body.blocks.iter() {
            starts.push(pc as u32);
            pc += data.insts.len() + 1;
        }
        if pc >= NONE as usize {
            return Err(malformed(fname, "the program is too large"));
        }
        let params: Vec<u32> = body.blocks[walkdown_ir::Body::ENTRY].params.iter().map(|v| v.index() as u32).collect();
        if params.iter().any(|&r| r as usize >= nvalues) {
            return Err(malformed(fname, "an entry parameter does not exist"));
        }
        self.const_slots.clear();
        self.fconsts.clear();
        self.fconst_base = sink + 1;
        for (bid, data) in body.blocks.iter() {
            let mut prev_line: Option<(FileId, u32)> = None;
            for &inst in &data.insts {
                let Some(d) = body.insts.get(inst) else {
                    return Err(malformed(fname, format!("instruction {inst} does not exist")));
                };
                let dst = d.result.map_or(sink, |v| v.index() as u32);
                if dst as usize > nvalues {
                    return Err(malformed(fname, format!("result of {inst} does not exist")));
                }
                let x = self.inst(fname, nvalues, dst, &d.kind)?;
                let goal = self.goals.error_site(fid, inst).map_or(NONE, |g| g.index() as u32);
                self.push(x, PcMeta { func: fid, inst: Some(inst), loc: d.loc, goal }, &mut prev_line);
            }
            let cx = FnCx { name: fname, fid, nvalues, starts: &starts, body };
            let x = self.term(&cx, bid, &data.term)?;
            if !data.insts.is_empty() {
                if let Some(last) = self.out.code.last_mut() {
                    if let Some(fused) = fuse(*last, x) {
                        *last = fused;
                    }
                }
            }
            let meta = PcMeta { func: fid, inst: None, loc: data.term_loc, goal: NONE };
            self.push(x, meta, &mut prev_line);
        }
        crate::fastforward::analyze_function(
            p,
            body,
            &starts,
            &self.out.code,
            &mut self.out.edges,
            &self.out.switches,
            &self.out.cases,
            p.data_model,
            &mut self.out.ff,
        );
        let consts_start = self.out.consts.len() as u32;
        let consts_len = self.fconsts.len() as u32;
        if u64::from(self.fconst_base) + u64::from(consts_len) >= u64::from(NONE) {
            return Err(malformed(fname, "too many values"));
        }
        self.out.consts.extend_from_slice(&self.fconsts);
        self.out.funcs[fid.index()].kind = if is_reach_error(fname) {
            // Entering `reach_error` is the error, whatever its body does;
            // the entry still executes the body's first line (a pc until
            // `finish_lines` turns it into a line slot).
            let first = (starts[0] as usize..self.out.code.len()).find(|&pc| self.line_keys[pc].is_some());
            self.out.funcs[fid.index()].entry_line = first.map_or(NONE, |pc| pc as u32);
            self.out.funcs[fid.index()].entry_goals = body
                .blocks
                .iter()
                .flat_map(|(_, d)| d.insts.iter().copied())
                .filter(|&i| {
                    matches!(
                        body.insts[i].kind,
                        walkdown_ir::InstKind::Check { kind: walkdown_ir::CheckKind::ReachError, .. }
                    )
                })
                .filter_map(|i| self.goals.error_site(fid, i))
                .map(|g| g.index() as u32)
                .collect();
            FuncKind::Model(Model::ReachError)
        } else {
            FuncKind::Defined {
                entry: starts[0],
                frame: self.fconst_base + consts_len,
                params,
                consts_start,
                consts_len,
            }
        };
        Ok(())
    }

    fn push(&mut self, x: XInst, meta: PcMeta, prev_line: &mut Option<(FileId, u32)>) {
        let key = meta.loc.is_known().then_some((meta.loc.file, meta.loc.line));
        let counted = key.is_some() && key != *prev_line;
        if key.is_some() {
            *prev_line = key;
        }
        self.out.code.push(x);
        self.out.meta.push(meta);
        self.line_keys.push(if counted { key } else { None });
    }

    fn finish_lines(&mut self) {
        let mut all: BTreeMap<(FileId, u32), u32> = BTreeMap::new();
        for k in self.line_keys.iter().flatten() {
            all.insert(*k, 0);
        }
        for (i, (k, slot)) in all.iter_mut().enumerate() {
            *slot = i as u32;
            self.out.lines.push(*k);
        }
        self.out.line_slot = self.line_keys.iter().map(|k| k.map_or(NONE, |k| all[&k])).collect();
        for f in &mut self.out.funcs {
            if f.entry_line != NONE {
                f.entry_line = self.out.line_slot[f.entry_line as usize];
            }
        }
    }

    fn inst(&mut self, fname: &str, nv: usize, dst: u32, kind: &InstKind) -> Result<XInst, InterpError> {
        let dm = self.p.data_model;
        Ok(match kind {
            InstKind::Bin { op, ty, lhs, rhs } => {
                let (a, b) = (self.operand(fname, nv, lhs)?, self.operand(fname, nv, rhs)?);
                let bits = ty.bits(dm);
                let sh = (64 - bits) as u8;
                match op {
                    _ if !ty.is_int_or_ptr() => XInst::Bin { op: *op, bits: bits as u8, dst, a, b },
                    BinOp::Add => XInst::Add { sh, dst, a, b },
                    BinOp::Sub => XInst::Sub { sh, dst, a, b },
                    BinOp::Mul => XInst::Mul { sh, dst, a, b },
                    BinOp::And => XInst::And { dst, a, b },
                    BinOp::Or => XInst::Or { dst, a, b },
                    BinOp::Xor => XInst::Xor { dst, a, b },
                    BinOp::Shl => XInst::Shl { sh, dst, a, b },
                    BinOp::LShr => XInst::LShr { sh, dst, a, b },
                    BinOp::AShr => XInst::AShr { sh, dst, a, b },
                    _ => XInst::Bin { op: *op, bits: bits as u8, dst, a, b },
                }
            }
            InstKind::Un { op, ty, arg } => {
                XInst::Un { op: *op, bits: ty.bits(dm) as u8, dst, a: self.operand(fname, nv, arg)? }
            }
            InstKind::Cmp { pred, ty, lhs, rhs } => {
                let (a, b) = (self.operand(fname, nv, lhs)?, self.operand(fname, nv, rhs)?);
                let bits = ty.bits(dm);
                let sh = (64 - bits) as u8;
                match pred {
                    _ if !ty.is_int_or_ptr() => XInst::Cmp { pred: *pred, bits: bits as u8, dst, a, b },
                    CmpPred::Eq => XInst::Eq { dst, a, b },
                    CmpPred::Ne => XInst::Ne { dst, a, b },
                    CmpPred::Ult => XInst::Ult { dst, a, b },
                    CmpPred::Ule => XInst::Ule { dst, a, b },
                    CmpPred::Ugt => XInst::Ult { dst, a: b, b: a },
                    CmpPred::Uge => XInst::Ule { dst, a: b, b: a },
                    CmpPred::Slt => XInst::Slt { sh, dst, a, b },
                    CmpPred::Sle => XInst::Sle { sh, dst, a, b },
                    CmpPred::Sgt => XInst::Slt { sh, dst, a: b, b: a },
                    CmpPred::Sge => XInst::Sle { sh, dst, a: b, b: a },
                    _ => XInst::Cmp { pred: *pred, bits: bits as u8, dst, a, b },
                }
            }
            InstKind::Cast { op, from, to, arg } => {
                XInst::Cast { op: *op, from: *from, to: *to, dst, a: self.operand(fname, nv, arg)? }
            }
            InstKind::Select { cond, if_true, if_false, .. } => XInst::Select {
                dst,
                c: self.operand(fname, nv, cond)?,
                t: self.operand(fname, nv, if_true)?,
                f: self.operand(fname, nv, if_false)?,
            },
            InstKind::Load { ty, ptr } => {
                XInst::Load { ty: *ty, size: ty.store_size(dm) as u8, dst, ptr: self.operand(fname, nv, ptr)? }
            }
            InstKind::Store { ty, ptr, value } => XInst::Store {
                size: ty.store_size(dm) as u8,
                ptr: self.operand(fname, nv, ptr)?,
                val: self.operand(fname, nv, value)?,
            },
            InstKind::Alloca { size, align } => {
                XInst::Alloca { dst, size: self.operand(fname, nv, size)?, align: *align }
            }
            InstKind::PtrAdd { base, offset } => {
                XInst::PtrAdd { dst, base: self.operand(fname, nv, base)?, off: self.operand(fname, nv, offset)? }
            }
            InstKind::Call { callee, args, ret } => {
                let target = match callee {
                    Callee::Direct(f) => {
                        let Some(x) = self.out.funcs.get(f.index()) else {
                            return Err(malformed(fname, format!("call of nonexistent function {f}")));
                        };
                        let (n, variadic, name) = (x.params.len(), x.variadic, x.name.clone());
                        if args.len() < n || (!variadic && args.len() != n) {
                            return Ok(
                                self.trap(format!("call of @{name} with {} arguments; it takes {n}", args.len()))
                            );
                        }
                        CallTarget::Direct(f.index() as u32)
                    }
                    Callee::Indirect(o) => CallTarget::Indirect(self.operand(fname, nv, o)?),
                };
                let args_start = self.out.args.len() as u32;
                for a in args {
                    let o = self.operand(fname, nv, a)?;
                    self.out.args.push(o);
                }
                let dst = if ret.is_some() { dst } else { NONE };
                self.out.calls.push(CallSite { target, args_start, args_len: args.len() as u32, dst, ret: *ret });
                XInst::Call { site: self.out.calls.len() as u32 - 1 }
            }
            InstKind::Nondet { ty, signed } => XInst::Nondet { ty: *ty, signed: *signed, dst },
            InstKind::Assume { cond } => XInst::Assume { c: self.operand(fname, nv, cond)? },
            InstKind::Check { kind, cond } => XInst::Check { kind: *kind, c: self.operand(fname, nv, cond)? },
        })
    }

    fn edge(
        &mut self,
        cx: &FnCx<'_>,
        bc: &BlockCall,
        goal: Option<walkdown_ir::goals::GoalId>,
    ) -> Result<u32, InterpError> {
        let (fname, nv) = (cx.name, cx.nvalues);
        let (Some(&pc), Some(target)) = (cx.starts.get(bc.block.index()), cx.body.blocks.get(bc.block)) else {
            return Err(malformed(fname, format!("jump to nonexistent block {}", bc.block)));
        };
        let params = &target.params;
        if params.len() != bc.args.len() {
            return Err(malformed(
                fname,
                format!("{} takes {} arguments, got {}", bc.block, params.len(), bc.args.len()),
            ));
        }
        let moves_start = self.out.moves.len() as u32;
        for (p, a) in params.iter().zip(&bc.args) {
            if p.index() >= nv {
                return Err(malformed(fname, format!("parameter {p} does not exist")));
            }
            let src = self.operand(fname, nv, a)?;
            let dst = p.index() as u32;
            if src != Opnd::reg(dst) {
                self.out.moves.push((dst, src));
            }
        }
        let moves = &self.out.moves[moves_start as usize..];
        let parallel = moves.iter().any(|&(_, src)| moves.iter().any(|&(d, _)| Opnd::reg(d) == src));
        self.out.edges.push(Edge {
            pc,
            moves_start,
            moves_len: moves.len() as u32,
            parallel,
            goal: goal.map_or(NONE, |g| g.index() as u32),
            ff: NONE,
        });
        Ok(self.out.edges.len() as u32 - 1)
    }

    fn term(&mut self, cx: &FnCx<'_>, bid: walkdown_ir::Block, term: &Terminator) -> Result<XInst, InterpError> {
        let (fname, nv) = (cx.name, cx.nvalues);
        let goals = self.goals;
        let goal = |k: u32| goals.edge(cx.fid, bid, k);
        Ok(match term {
            Terminator::Jump(bc) => XInst::Jump { edge: self.edge(cx, bc, None)? },
            Terminator::Branch { cond, if_true, if_false } => {
                let (gt, gf) = (goal(0), goal(1));
                let c = self.operand(fname, nv, cond)?;
                let t = self.edge(cx, if_true, gt)?;
                let f = self.edge(cx, if_false, gf)?;
                XInst::Branch { c, t, f }
            }
            Terminator::Switch { ty, value, cases, default } => {
                let goals: Vec<_> = (0..=cases.len() as u32).map(goal).collect();
                let val = self.operand(fname, nv, value)?;
                let m = crate::eval::mask(ty.bits(self.p.data_model));
                let mut table = Vec::with_capacity(cases.len());
                for (k, (v, bc)) in cases.iter().enumerate() {
                    let e = self.edge(cx, bc, goals[k])?;
                    table.push((v & m, e));
                }
                let default = self.edge(cx, default, goals[cases.len()])?;
                // Sort by value; the first occurrence of a value wins.
                table.sort_by_key(|&(v, _)| v);
                table.dedup_by_key(|&mut (v, _)| v);
                let cases_start = self.out.cases.len() as u32;
                self.out.cases.extend_from_slice(&table);
                self.out.switches.push(SwitchTable {
                    ty: *ty,
                    val,
                    cases_start,
                    cases_len: table.len() as u32,
                    default,
                });
                XInst::Switch { table: self.out.switches.len() as u32 - 1 }
            }
            Terminator::Return(v) => XInst::Ret {
                val: match v {
                    Some(o) => Some(self.operand(fname, nv, o)?),
                    None => None,
                },
            },
            Terminator::Unreachable => XInst::Unreachable,
        })
    }
}
