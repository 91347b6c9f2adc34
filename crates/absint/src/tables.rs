//! Loads from memory that never changes: the interval of an integer of
//! 8 to 64 bits read from a constant global (a lookup table, a string
//! literal), or from a stack slot whose only write is one `memcpy` of a
//! whole constant global (how clang initializes a local array:
//! `int dest[20] = {1, 3, ...}`), is the hull of the values the table
//! holds at the offsets the load may read. Every other load stays top.
//!
//! **Why it is sound.** A constant global is never written (the program
//! may not). A slot qualifies only if its address, and every address
//! derived from it by `ptradd`, is used for nothing but loads and as the
//! destination of that one `memcpy`, whose source is a constant global of
//! at least the slot's size; the slot cannot be written by anyone else,
//! since its address never leaves the function's SSA values. A load from
//! it counts only where the `memcpy` dominates the load, so the slot holds
//! the global's bytes. Offsets keep a stride (`4 * j` reads only offsets
//! that are multiples of 4 from the table's base), so unaligned mixtures
//! of neighbouring elements are not counted; a table with an address
//! inside it (a relocation) is never read this way.

use std::collections::{BTreeMap, BTreeSet};

use crate::domain::Domain;
use crate::interval::{from_bits, Interval};
use walkdown_ir::verify::Dominators;
use walkdown_ir::{BinOp, Body, Builtin, Callee, CastOp, GlobalId, InstKind, Operand, Program, Type, Value, ValueDef};

/// More candidate offsets than this give up (top).
const MAX_OFFSETS: i128 = 1 << 16;

/// The loads of one function body that read a table, by their result.
#[derive(Debug, Default)]
pub struct Tables {
    loads: BTreeMap<Value, GlobalId>,
}

/// The constant global a pointer-valued SSA value points into: the root
/// object of its `ptradd` chain, if that is a global or an alloca.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    Global(GlobalId),
    Slot(Value),
}

fn root(program: &Program, body: &Body, op: &Operand, depth: u32) -> Option<Root> {
    match op {
        Operand::Global(g) => Some(Root::Global(*g)),
        Operand::Value(v) if depth < 16 => match body.values.get(*v)?.def {
            ValueDef::Inst(i) => match &body.insts[i].kind {
                InstKind::PtrAdd { base, .. } => root(program, body, base, depth + 1),
                // `memcpy` returns its destination: an alias of the slot.
                InstKind::Call { callee: Callee::Direct(f), args, .. } if is_memcpy(program, *f) => {
                    root(program, body, args.first()?, depth + 1)
                }
                InstKind::Alloca { size: Operand::Const(_), .. } => Some(Root::Slot(*v)),
                _ => None,
            },
            ValueDef::Param(..) => None,
        },
        _ => None,
    }
}

impl Tables {
    /// Finds the table loads of `body`.
    pub fn of(program: &Program, body: &Body) -> Tables {
        // Slots whose address is used for anything but loads, address
        // arithmetic and one initializing memcpy.
        let mut escaped: BTreeSet<Value> = BTreeSet::new();
        // The one initializing memcpy of each slot: (source, instruction).
        let mut init: BTreeMap<Value, (GlobalId, walkdown_ir::Inst)> = BTreeMap::new();
        let slot_of = |op: &Operand| match root(program, body, op, 0) {
            Some(Root::Slot(s)) => Some(s),
            _ => None,
        };
        let escape = |a: &Operand, escaped: &mut BTreeSet<Value>| {
            if let Some(s) = slot_of(a) {
                escaped.insert(s);
            }
        };
        for (_, data) in body.blocks.iter() {
            for &i in &data.insts {
                let kind = &body.insts[i].kind;
                match kind {
                    InstKind::Load { .. } | InstKind::Alloca { .. } => {}
                    InstKind::PtrAdd { offset, .. } => escape(offset, &mut escaped),
                    InstKind::Call { callee: Callee::Direct(f), args, .. } if is_memcpy(program, *f) => {
                        match initializer(program, body, args) {
                            Some((slot, g)) if !init.contains_key(&slot) => {
                                init.insert(slot, (g, i));
                            }
                            _ => args.iter().for_each(|a| escape(a, &mut escaped)),
                        }
                    }
                    _ => kind.for_each_operand(|a| escape(a, &mut escaped)),
                }
            }
            match &data.term {
                walkdown_ir::Terminator::Branch { cond: v, .. }
                | walkdown_ir::Terminator::Switch { value: v, .. }
                | walkdown_ir::Terminator::Return(Some(v)) => escape(v, &mut escaped),
                _ => {}
            }
            for c in data.term.successors() {
                c.args.iter().for_each(|a| escape(a, &mut escaped));
            }
        }
        let mut loads = BTreeMap::new();
        let mut dom: Option<Dominators> = None;
        let block_of = body.inst_blocks();
        for (b, data) in body.blocks.iter() {
            for (pos, &i) in data.insts.iter().enumerate() {
                let (InstKind::Load { ptr, .. }, Some(r)) = (&body.insts[i].kind, body.insts[i].result) else {
                    continue;
                };
                match root(program, body, ptr, 0) {
                    Some(Root::Global(g)) if program.globals[g].constant => {
                        loads.insert(r, g);
                    }
                    Some(Root::Slot(s)) if !escaped.contains(&s) => {
                        let Some(&(g, copy)) = init.get(&s) else { continue };
                        let Some(cb) = block_of[copy] else { continue };
                        let dom = dom.get_or_insert_with(|| Dominators::compute(body));
                        let before = if cb == b { data.insts[..pos].contains(&copy) } else { dom.dominates(cb, b) };
                        if before {
                            loads.insert(r, g);
                        }
                    }
                    _ => {}
                }
            }
        }
        Tables { loads }
    }

    /// The interval a load (by its result) reads: the hull of the table's
    /// values of `ty` at the offsets its pointer `ptr` may have (`operand`
    /// gives the intervals of the offsets it adds); `None` when the load
    /// reads no table or the hull is not known.
    pub fn load(
        &self,
        program: &Program,
        body: &Body,
        result: Value,
        ty: Type,
        ptr: &Operand,
        operand: &dyn Fn(&Operand) -> Interval,
    ) -> Option<Interval> {
        let g = *self.loads.get(&result)?;
        let dm = program.data_model;
        if !ty.is_int() {
            return None;
        }
        let (w, n) = (ty.bits(dm), ty.store_size(dm));
        // Whole bytes of at most 64 bits: an `i1` load's reading of a
        // byte, and wide integers, are left to top.
        if w != 8 * n as u32 || w > 64 {
            return None;
        }
        let global = &program.globals[g];
        let (range, stride, residue) = offsets(program, body, ptr, operand, 0)?;
        let last = i128::from(global.size) - i128::from(n);
        let (lo, hi) = (range.lo.max(0), range.hi.min(last));
        if lo > hi {
            return None;
        }
        let (first, step) = match stride {
            0 if (lo..=hi).contains(&residue) => (residue, 1),
            0 => return None,
            s => (lo + (residue - lo).rem_euclid(s), s),
        };
        if (hi - first) / step > MAX_OFFSETS {
            return None;
        }
        let ptr_bytes = Type::Ptr.store_size(dm);
        let mut hull = Interval::BOTTOM;
        let mut o = first;
        while o <= hi {
            let at = o as u64;
            if global.relocs.iter().any(|r| r.offset < at + n && at < r.offset + ptr_bytes) {
                return None;
            }
            let mut bits: u64 = 0;
            for k in (0..n).rev() {
                bits = (bits << 8) | u64::from(global.init.get((at + k) as usize).copied().unwrap_or(0));
            }
            hull = hull.join(&Interval::constant(from_bits(bits, w)));
            if stride == 0 {
                break;
            }
            o += step;
        }
        (!hull.is_bottom()).then_some(hull)
    }
}

/// The slot and constant global of `memcpy(slot, global, size of slot)`
/// whose source holds at least the slot's bytes.
fn initializer(program: &Program, body: &Body, args: &[Operand]) -> Option<(Value, GlobalId)> {
    let [Operand::Value(dst), Operand::Global(g), Operand::Const(len), ..] = args else { return None };
    let InstKind::Alloca { size: Operand::Const(size), .. } = &body.insts[def_inst(body, *dst)?].kind else {
        return None;
    };
    let global = &program.globals[*g];
    (global.constant && len.bits == size.bits && global.size >= len.bits).then_some((*dst, *g))
}

fn is_memcpy(program: &Program, f: walkdown_ir::FuncId) -> bool {
    program.funcs.get(f).is_some_and(|d| d.builtin == Some(Builtin::Memcpy))
}

fn def_inst(body: &Body, v: Value) -> Option<walkdown_ir::Inst> {
    match body.values.get(v)?.def {
        ValueDef::Inst(i) => Some(i),
        ValueDef::Param(..) => None,
    }
}

/// The offsets a pointer may have from its root object: their interval,
/// and a stride and residue (every offset is `residue` modulo `stride`;
/// stride 0: exactly one offset).
fn offsets(
    program: &Program,
    body: &Body,
    ptr: &Operand,
    operand: &dyn Fn(&Operand) -> Interval,
    depth: u32,
) -> Option<(Interval, i128, i128)> {
    match ptr {
        Operand::Global(_) => Some((Interval::constant(0), 0, 0)),
        Operand::Value(v) if depth < 16 => match &body.insts[def_inst(body, *v)?].kind {
            InstKind::Alloca { .. } => Some((Interval::constant(0), 0, 0)),
            InstKind::Call { callee: Callee::Direct(f), args, .. } if is_memcpy(program, *f) => {
                offsets(program, body, args.first()?, operand, depth + 1)
            }
            InstKind::PtrAdd { base, offset } => {
                let (before, s1, r1) = offsets(program, body, base, operand, depth + 1)?;
                let off = operand(offset);
                if off.is_bottom() || off.lo == i128::MIN || off.hi == i128::MAX {
                    return None;
                }
                let (s2, r2) = match off.singleton() {
                    Some(k) => (0, k),
                    None => (stride_of(body, offset, 0), 0),
                };
                let stride = gcd(s1, s2);
                let residue = r1 + r2;
                let range = Interval::new(before.lo.checked_add(off.lo)?, before.hi.checked_add(off.hi)?);
                Some((range, stride, if stride == 0 { residue } else { residue.rem_euclid(stride) }))
            }
            _ => None,
        },
        _ => None,
    }
}

/// A number every value of the integer operand is a multiple of (1 when
/// nothing better is known): `x * c`, `x << k`, and their extensions.
fn stride_of(body: &Body, op: &Operand, depth: u32) -> i128 {
    let Operand::Value(v) = op else { return 1 };
    let Some(i) = def_inst(body, *v) else { return 1 };
    if depth > 4 {
        return 1;
    }
    let konst = |o: &Operand| match o {
        Operand::Const(c) => Some(c.bits),
        _ => None,
    };
    match &body.insts[i].kind {
        // Wrapping keeps a power-of-two factor; other factors only if the
        // product cannot wrap, so only powers of two are trusted.
        InstKind::Bin { op: BinOp::Mul, lhs, rhs, .. } => {
            let c = konst(rhs).or_else(|| konst(lhs)).unwrap_or(1);
            let pow2 = if c == 0 { 1 } else { 1i128 << c.trailing_zeros().min(32) };
            let other = if konst(rhs).is_some() { lhs } else { rhs };
            pow2 * stride_of(body, other, depth + 1)
        }
        InstKind::Bin { op: BinOp::Shl, lhs, rhs, .. } => match konst(rhs) {
            Some(k) if k < 32 => (1i128 << k) * stride_of(body, lhs, depth + 1),
            _ => 1,
        },
        InstKind::Cast { op: CastOp::SExt | CastOp::ZExt, arg, .. } => stride_of(body, arg, depth + 1),
        _ => 1,
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
