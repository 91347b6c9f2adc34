//! The IR verifier: checks that a program is well formed.
//!
//! It runs after lowering and after every transformation in tests; an error
//! always means a bug in whatever produced the IR. It checks:
//! - every referenced block, value, global and function exists;
//! - each instruction appears in exactly one block and its result value
//!   points back at it; block parameters point back at their block;
//! - the entry block's parameters match the function's parameter types;
//! - operand types match what each operation expects (equal operand types,
//!   `i1` conditions, pointer addresses, pointer-width offsets and sizes,
//!   legal casts, call arguments against the callee's signature, returns
//!   against the function's return type);
//! - jumps pass one argument of the right type per block parameter;
//! - every use is dominated by its definition (block parameters are defined
//!   at the top of their block, instruction results right after the
//!   instruction).

use crate::entities::{Block, FuncId, Inst, Value};
use crate::entity::{EntityRef, SecondaryMap};
use crate::inst::{BlockCall, Callee, CastOp, InstKind, Operand, Terminator};
use crate::loc::Loc;
use crate::program::{Body, Program, ValueDef};
use crate::types::Type;
use std::fmt;

/// One well-formedness violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function it is in.
    pub func: String,
    /// The block, if it is in one.
    pub block: Option<Block>,
    /// The source location of the offending instruction, if known.
    pub loc: Loc,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.func)?;
        if let Some(b) = self.block {
            write!(f, " {b}")?;
        }
        if self.loc.is_known() {
            write!(f, " (line {})", self.loc.line)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// All violations of a program, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

/// Whether [`verify_after`] checks: in debug builds always, in release
/// builds when `WALKDOWN_VERIFY_IR=1` (the test suite sets it).
pub fn verify_after_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| cfg!(debug_assertions) || std::env::var_os("WALKDOWN_VERIFY_IR").is_some_and(|v| v == "1"))
}

/// Verifies `p` after the transformation `what` (as Cranelift's
/// `verify_if`): a transformation that breaks the IR fails where it broke
/// it, naming itself, not later in an engine that trips over the result.
/// Off in release runs unless asked for ([`verify_after_enabled`]): every
/// run would pay a pass over the program per transformation.
#[track_caller]
pub fn verify_after(what: &str, p: &Program) {
    if verify_after_enabled() {
        if let Err(e) = verify_program(p) {
            panic!("the IR is broken after {what}:\n{e}");
        }
    }
}

/// Checks the whole program.
pub fn verify_program(p: &Program) -> Result<(), VerifyErrors> {
    let mut errors = Vec::new();
    for (gid, g) in p.globals.iter() {
        for r in &g.relocs {
            let ok = match r.target {
                crate::RelocTarget::Global(t) => p.globals.is_valid(t),
                crate::RelocTarget::Func(t) => p.funcs.is_valid(t),
            };
            if !ok || r.offset + p.data_model.pointer_bytes() > g.size {
                errors.push(VerifyError {
                    func: format!("global {}", g.name),
                    block: None,
                    loc: g.loc,
                    message: format!("bad relocation at offset {} of {gid}", r.offset),
                });
            }
        }
        if g.init.len() as u64 > g.size {
            errors.push(VerifyError {
                func: format!("global {}", g.name),
                block: None,
                loc: g.loc,
                message: "initializer longer than the object".into(),
            });
        }
    }
    for (fid, f) in p.funcs.iter() {
        if let Some(body) = &f.body {
            FuncVerifier { p, fid, body, errors: &mut errors }.run();
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(errors))
    }
}

struct FuncVerifier<'a> {
    p: &'a Program,
    fid: FuncId,
    body: &'a Body,
    errors: &'a mut Vec<VerifyError>,
}

/// Where a value becomes available: block and position (parameters at 0,
/// the result of the `n`th instruction at `n + 1`).
#[derive(Clone, Copy, Default)]
struct DefPoint {
    block: Option<Block>,
    pos: u32,
}

impl FuncVerifier<'_> {
    fn err(&mut self, block: Option<Block>, loc: Loc, message: String) {
        self.errors.push(VerifyError { func: self.p.funcs[self.fid].name.clone(), block, loc, message });
    }

    fn run(mut self) {
        let body = self.body;
        let func = &self.p.funcs[self.fid];
        if body.blocks.is_empty() {
            self.err(None, func.loc, "a defined function has no blocks".into());
            return;
        }
        let entry_types: Vec<Type> = body.blocks[Body::ENTRY].params.iter().map(|v| self.vty(*v)).collect();
        if entry_types != func.params {
            self.err(
                Some(Body::ENTRY),
                func.loc,
                format!("entry parameters {entry_types:?} differ from the signature {:?}", func.params),
            );
        }

        // Definitions: each value defined once, where it says.
        let mut defs: SecondaryMap<Value, DefPoint> = SecondaryMap::new();
        let mut inst_seen: SecondaryMap<Inst, bool> = SecondaryMap::new();
        for (b, data) in body.blocks.iter() {
            for (n, &v) in data.params.iter().enumerate() {
                if !body.values.is_valid(v) {
                    self.err(Some(b), Loc::UNKNOWN, format!("parameter {v} does not exist"));
                    continue;
                }
                if body.values[v].def != ValueDef::Param(b, n as u32) {
                    self.err(Some(b), Loc::UNKNOWN, format!("parameter {v} does not point back to {b}"));
                }
                defs.set(v, DefPoint { block: Some(b), pos: 0 });
            }
            for (n, &i) in data.insts.iter().enumerate() {
                if !body.insts.is_valid(i) {
                    self.err(Some(b), Loc::UNKNOWN, format!("instruction {i} does not exist"));
                    continue;
                }
                if std::mem::replace(inst_seen.entry(i), true) {
                    self.err(Some(b), body.insts[i].loc, format!("instruction {i} is listed twice"));
                }
                let d = &body.insts[i];
                match (d.result, d.kind.result_type()) {
                    (Some(v), Some(ty)) => {
                        if !body.values.is_valid(v) || body.values[v].def != ValueDef::Inst(i) {
                            self.err(Some(b), d.loc, format!("result {v} does not point back to {i}"));
                        } else {
                            if body.values[v].ty != ty {
                                self.err(
                                    Some(b),
                                    d.loc,
                                    format!("result {v} has type {} but the operation yields {ty}", body.values[v].ty),
                                );
                            }
                            defs.set(v, DefPoint { block: Some(b), pos: n as u32 + 1 });
                        }
                    }
                    (None, None) => {}
                    (Some(v), None) => {
                        self.err(Some(b), d.loc, format!("{v} is the result of an operation without one"))
                    }
                    (None, Some(_)) => self.err(Some(b), d.loc, format!("{i} has no result value")),
                }
            }
        }

        let doms = Dominators::compute(body);
        for (b, data) in body.blocks.iter() {
            if !doms.reachable(b) {
                continue; // uses in unreachable blocks cannot execute
            }
            for (n, &i) in data.insts.iter().enumerate() {
                if !body.insts.is_valid(i) {
                    continue;
                }
                let d = &body.insts[i];
                let mut uses = Vec::new();
                d.kind.for_each_operand(|o| uses.push(*o));
                for o in uses {
                    self.check_use(&defs, &doms, b, n as u32 + 1, &o, d.loc);
                }
                self.check_inst_types(b, &d.kind, d.loc);
            }
            let pos = data.insts.len() as u32 + 1;
            let loc = data.term_loc;
            let mut uses = Vec::new();
            match &data.term {
                Terminator::Branch { cond, .. } => {
                    uses.push(*cond);
                    self.expect(b, loc, cond, Type::I1, "branch condition");
                }
                Terminator::Switch { ty, value, .. } => {
                    uses.push(*value);
                    if !ty.is_int() {
                        self.err(Some(b), loc, format!("switch on non-integer type {ty}"));
                    }
                    self.expect(b, loc, value, *ty, "switch value");
                }
                Terminator::Return(v) => {
                    let want = func.ret;
                    let got = v.as_ref().map(|o| self.oty(o));
                    if want != got {
                        self.err(Some(b), loc, format!("returns {got:?} from a function returning {want:?}"));
                    }
                    uses.extend(v.iter().copied());
                }
                Terminator::Jump(_) | Terminator::Unreachable => {}
            }
            for dest in data.term.successors() {
                self.check_block_call(b, loc, dest);
                uses.extend(dest.args.iter().copied());
            }
            for o in uses {
                self.check_use(&defs, &doms, b, pos, &o, loc);
            }
        }
    }

    fn vty(&self, v: Value) -> Type {
        self.body.values.get(v).map_or(Type::I1, |d| d.ty)
    }

    fn oty(&self, o: &Operand) -> Type {
        match o {
            Operand::Value(v) => self.vty(*v),
            Operand::Const(c) => c.ty,
            Operand::Global(_) | Operand::Func(_) => Type::Ptr,
        }
    }

    fn expect(&mut self, b: Block, loc: Loc, o: &Operand, ty: Type, what: &str) {
        let got = self.oty(o);
        if got != ty {
            self.err(Some(b), loc, format!("{what} has type {got}, expected {ty}"));
        }
    }

    fn check_use(
        &mut self,
        defs: &SecondaryMap<Value, DefPoint>,
        doms: &Dominators,
        b: Block,
        pos: u32,
        o: &Operand,
        loc: Loc,
    ) {
        match *o {
            Operand::Value(v) => {
                if !self.body.values.is_valid(v) {
                    self.err(Some(b), loc, format!("use of nonexistent value {v}"));
                    return;
                }
                let d = defs[v];
                let ok = match d.block {
                    None => false,
                    Some(db) if db == b => d.pos < pos || (d.pos == 0 && pos == 0),
                    Some(db) => doms.dominates(db, b),
                };
                if !ok {
                    self.err(Some(b), loc, format!("{v} is used where its definition does not dominate"));
                }
            }
            Operand::Global(g) if !self.p.globals.is_valid(g) => {
                self.err(Some(b), loc, format!("use of nonexistent global {g}"))
            }
            Operand::Func(f) if !self.p.funcs.is_valid(f) => {
                self.err(Some(b), loc, format!("use of nonexistent function {f}"))
            }
            Operand::Const(c) => {
                let bits = c.ty.bits(self.p.data_model);
                if bits < 64 && c.bits >> bits != 0 {
                    self.err(Some(b), loc, format!("constant {:#x} does not fit {}", c.bits, c.ty));
                }
            }
            _ => {}
        }
    }

    fn check_block_call(&mut self, b: Block, loc: Loc, dest: &BlockCall) {
        if !self.body.blocks.is_valid(dest.block) {
            self.err(Some(b), loc, format!("jump to nonexistent block {}", dest.block));
            return;
        }
        if dest.block.index() == 0 {
            self.err(Some(b), loc, "jump to the entry block".into());
        }
        let params = &self.body.blocks[dest.block].params;
        if params.len() != dest.args.len() {
            self.err(Some(b), loc, format!("{} takes {} arguments, got {}", dest.block, params.len(), dest.args.len()));
            return;
        }
        for (p, a) in params.clone().iter().zip(&dest.args) {
            let want = self.vty(*p);
            self.expect(b, loc, a, want, "block argument");
        }
    }

    fn check_inst_types(&mut self, b: Block, kind: &InstKind, loc: Loc) {
        let pint = self.p.data_model.pointer_int();
        match kind {
            InstKind::Bin { op, ty, lhs, rhs } => {
                if op.is_float() != ty.is_float() || *ty == Type::Ptr {
                    self.err(Some(b), loc, format!("{op} on type {ty}"));
                }
                self.expect(b, loc, lhs, *ty, "left operand");
                self.expect(b, loc, rhs, *ty, "right operand");
            }
            InstKind::Un { op, ty, arg } => {
                if (*op == crate::UnOp::FNeg) != ty.is_float() || *ty == Type::Ptr {
                    self.err(Some(b), loc, format!("{op} on type {ty}"));
                }
                self.expect(b, loc, arg, *ty, "operand");
            }
            InstKind::Cmp { pred, ty, lhs, rhs } => {
                if pred.is_float() != ty.is_float() {
                    self.err(Some(b), loc, format!("comparison {pred} on type {ty}"));
                }
                self.expect(b, loc, lhs, *ty, "left operand");
                self.expect(b, loc, rhs, *ty, "right operand");
            }
            InstKind::Cast { op, from, to, arg } => {
                self.expect(b, loc, arg, *from, "cast operand");
                let dm = self.p.data_model;
                let ok = match op {
                    CastOp::Trunc => from.is_int() && to.is_int() && from.bits(dm) > to.bits(dm),
                    CastOp::ZExt | CastOp::SExt => from.is_int() && to.is_int() && from.bits(dm) < to.bits(dm),
                    CastOp::FpToUi | CastOp::FpToSi => from.is_float() && to.is_int(),
                    CastOp::UiToFp | CastOp::SiToFp => from.is_int() && to.is_float(),
                    CastOp::FpTrunc => *from == Type::F64 && *to == Type::F32,
                    CastOp::FpExt => *from == Type::F32 && *to == Type::F64,
                    CastOp::PtrToInt => *from == Type::Ptr && to.is_int(),
                    CastOp::IntToPtr => from.is_int() && *to == Type::Ptr,
                    CastOp::Bitcast => from != to && from.bits(dm) == to.bits(dm) && (from.is_float() != to.is_float()),
                };
                if !ok {
                    self.err(Some(b), loc, format!("illegal cast {op} from {from} to {to}"));
                }
            }
            InstKind::Select { ty, cond, if_true, if_false } => {
                self.expect(b, loc, cond, Type::I1, "select condition");
                self.expect(b, loc, if_true, *ty, "select operand");
                self.expect(b, loc, if_false, *ty, "select operand");
            }
            InstKind::Load { ptr, .. } => self.expect(b, loc, ptr, Type::Ptr, "load address"),
            InstKind::Store { ty, ptr, value } => {
                self.expect(b, loc, ptr, Type::Ptr, "store address");
                self.expect(b, loc, value, *ty, "stored value");
            }
            InstKind::Alloca { size, align } => {
                self.expect(b, loc, size, pint, "alloca size");
                if !align.is_power_of_two() {
                    self.err(Some(b), loc, format!("alignment {align} is not a power of two"));
                }
            }
            InstKind::PtrAdd { base, offset } => {
                self.expect(b, loc, base, Type::Ptr, "ptradd base");
                self.expect(b, loc, offset, pint, "ptradd offset");
            }
            InstKind::Call { callee, args, ret } => match callee {
                Callee::Direct(f) => {
                    let Some(fd) = self.p.funcs.get(*f) else {
                        self.err(Some(b), loc, format!("call of nonexistent function {f}"));
                        return;
                    };
                    let (params, fret, variadic, name) = (fd.params.clone(), fd.ret, fd.variadic, fd.name.clone());
                    if args.len() < params.len() || (!variadic && args.len() != params.len()) {
                        self.err(Some(b), loc, format!("@{name} takes {} arguments, got {}", params.len(), args.len()));
                    }
                    for (p, a) in params.iter().zip(args) {
                        self.expect(b, loc, a, *p, "call argument");
                    }
                    if fret != *ret {
                        self.err(Some(b), loc, format!("@{name} returns {fret:?}, the call expects {ret:?}"));
                    }
                }
                Callee::Indirect(op) => self.expect(b, loc, op, Type::Ptr, "callee"),
            },
            InstKind::Nondet { .. } => {}
            InstKind::Assume { cond } => self.expect(b, loc, cond, Type::I1, "assume condition"),
            InstKind::Check { cond, .. } => self.expect(b, loc, cond, Type::I1, "check condition"),
        }
    }
}

/// Dominator tree of a function's reachable blocks (Cooper, Harvey and
/// Kennedy's iterative algorithm over reverse postorder).
pub struct Dominators {
    idom: SecondaryMap<Block, Option<Block>>,
    rpo_index: SecondaryMap<Block, u32>,
}

impl Dominators {
    /// Computes the dominators of `body`.
    pub fn compute(body: &Body) -> Dominators {
        let rpo = reverse_postorder(body);
        let mut rpo_index: SecondaryMap<Block, u32> = SecondaryMap::with_default(u32::MAX);
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index.set(b, i as u32);
        }
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in &rpo {
            for s in body.blocks[b].term.successors() {
                if body.blocks.is_valid(s.block) {
                    preds.entry(s.block).push(b);
                }
            }
        }
        let mut idom: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
        if rpo.is_empty() {
            return Dominators { idom, rpo_index };
        }
        idom.set(rpo[0], Some(rpo[0]));
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<Block> = None;
                for &p in preds.get(b) {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(n) => intersect(&idom, &rpo_index, p, n),
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom.set(b, new);
                    changed = true;
                }
            }
        }
        Dominators { idom, rpo_index }
    }

    /// Whether `b` is reachable from the entry.
    pub fn reachable(&self, b: Block) -> bool {
        self.rpo_index[b] != u32::MAX
    }

    /// Whether `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: Block, mut b: Block) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// The immediate dominator of `b` (the entry's is itself).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b]
    }
}

fn intersect(
    idom: &SecondaryMap<Block, Option<Block>>,
    rpo: &SecondaryMap<Block, u32>,
    mut a: Block,
    mut b: Block,
) -> Block {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a].unwrap_or(a);
        }
        while rpo[b] > rpo[a] {
            b = idom[b].unwrap_or(b);
        }
    }
    a
}

/// Blocks reachable from the entry in reverse postorder.
pub fn reverse_postorder(body: &Body) -> Vec<Block> {
    let n = body.blocks.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    if n == 0 {
        return order;
    }
    // Iterative DFS: (block, next successor index).
    let mut stack: Vec<(Block, usize)> = vec![(Body::ENTRY, 0)];
    seen[0] = true;
    while let Some((b, i)) = stack.last_mut() {
        let succ = body.blocks[*b].term.successors().nth(*i).map(|c| c.block);
        *i += 1;
        match succ {
            Some(s) if s.index() < n && !seen[s.index()] => {
                seen[s.index()] = true;
                stack.push((s, 0));
            }
            Some(_) => {}
            None => {
                order.push(*b);
                stack.pop();
            }
        }
    }
    order.reverse();
    order
}
