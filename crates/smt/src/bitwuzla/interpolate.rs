//! Sequence interpolants from Bitwuzla, read back into the pool.
//!
//! Given parts `F1, ..., Fn` whose conjunction is unsatisfiable,
//! [`Interpolator::sequence`] returns `I1, ..., I(n-1)` with `F1 => I1`,
//! `I(k) and F(k+1) => I(k+1)`, `I(n-1) and Fn` unsatisfiable, and each
//! `Ik` over the leaves `F1..Fk` share with `F(k+1)..Fn`. The model
//! checker asks for them on an infeasible path whose parts are its steps,
//! so `Ik` is a fact about the state after step `k` that rules the path
//! out (see `walkdown_cegar`'s refinement).
//!
//! **What Bitwuzla supports.** Bitwuzla 0.10.0 interpolates bit-vector
//! formulas fully and arrays partly: a proof that mixes the two sides in
//! an array lemma raises an error, which comes back as
//! [`Interpolation::Unsupported`] (see [`ffi::catching`]), never as an
//! exit. Parts with floats are not sent: the float results' bits are
//! fresh constants of this backend (see the parent module), which an
//! interpolant could mention but the pool has no name for.
//!
//! **Reading back.** An interpolant is a Bitwuzla term over the parts'
//! constants (found through the translation's own table) built with
//! Bitwuzla's operators, some of which the pool lacks (`bvnand`,
//! rotations, `bvcomp`, ...); each is rebuilt from the pool's. A kind with
//! no rebuilding (`bvsmod`, quantifiers, ...) makes the answer
//! `Unsupported`. Every rebuilt interpolant is a pool expression; the
//! caller checks what it relies on, as the model checker checks every
//! predicate by asking the solver, so a misread interpolant can cost
//! precision, never soundness.

use std::collections::HashMap;
use std::ffi::CStr;
use std::time::Instant;

use super::{ffi, BitwuzlaSolver, Instance, UNITS_PER_CALL};
use crate::expr::{ExprId, ExprPool};
use crate::fold::{BvBinOp, BvUnOp, CmpOp};
use crate::solver::{BackendSettings, SolverError};
use bitwuzla_sys as bw;
use bw::BitwuzlaTerm;

/// What [`Interpolator::sequence`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The parts are unsatisfiable; one interpolant per cut (between part
    /// `k` and part `k + 1`), in order.
    Interpolants(Vec<ExprId>),
    /// The parts are satisfiable together.
    Sat,
    /// The solver gave up (the reason: a limit, or `unknown`).
    Unknown(String),
    /// Unsatisfiable, but no interpolants: the parts or the proof use what
    /// Bitwuzla or the reading back does not support (the reason).
    Unsupported(String),
}

/// Computes sequence interpolants with Bitwuzla. Keeps its translated
/// terms across calls on the same pool, as a solver does.
pub struct Interpolator {
    solver: BitwuzlaSolver,
}

impl Interpolator {
    /// An interpolator whose checks follow `settings` (timeout and work
    /// limit per call).
    pub fn new(settings: BackendSettings) -> Self {
        Interpolator { solver: BitwuzlaSolver::new(settings) }
    }

    /// Ends every later call at `deadline` too.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.solver.deadline = deadline;
    }

    /// Work so far, in the units the backend reports (see the parent
    /// module).
    pub fn work(&self) -> u64 {
        self.solver.work
    }

    /// Sequence interpolants of `parts` (at least two Boolean
    /// expressions), built in `pool`.
    pub fn sequence(&mut self, pool: &mut ExprPool, parts: &[ExprId]) -> Result<Interpolation, SolverError> {
        if parts.len() < 2 {
            return Err(SolverError::Backend("interpolation needs at least two parts".into()));
        }
        if pool.uses_arrays_and_floats(parts).1 {
            return Ok(Interpolation::Unsupported("floats".into()));
        }
        let s = &mut self.solver;
        s.follow_pool(pool);
        let mut terms = Vec::with_capacity(parts.len());
        for &p in parts {
            terms.push(s.term(pool, p)?);
        }
        let inst = Instance::interpolating(&s.tm);
        let max_calls = s.settings.work_limit.map(|w| u64::from(w).div_ceil(UNITS_PER_CALL));
        inst.arm(s.query_end(), max_calls);
        // SAFETY: Boolean terms of this interpolator's manager.
        let result = unsafe {
            for &t in &terms {
                bw::bitwuzla_assert(inst.raw, t);
            }
            bw::bitwuzla_check_sat(inst.raw)
        };
        let (calls, hit) = inst.outcome();
        s.work += calls * UNITS_PER_CALL;
        match result {
            bw::BITWUZLA_SAT => return Ok(Interpolation::Sat),
            bw::BITWUZLA_UNSAT => {}
            _ => return Ok(Interpolation::Unknown(hit.unwrap_or("unknown").to_string())),
        }
        let raw_itps = match interpolants(&inst, &terms) {
            Ok(v) => v,
            Err(why) => return Ok(Interpolation::Unsupported(why)),
        };
        let leaves = s.leaf_table(pool, parts);
        let mut reader = Reader { pool, leaves, memo: HashMap::new() };
        let mut out = Vec::with_capacity(raw_itps.len());
        for t in raw_itps {
            match reader.read(t) {
                Ok(e) => out.push(e),
                Err(why) => return Ok(Interpolation::Unsupported(why)),
            }
        }
        Ok(Interpolation::Interpolants(out))
    }
}

/// The interpolation sequence of the last (unsatisfiable) check of
/// `inst`, whose assertions are `terms`, one increment per part but the
/// last.
fn interpolants(inst: &Instance, terms: &[BitwuzlaTerm]) -> Result<Vec<BitwuzlaTerm>, String> {
    let n = terms.len() - 1;
    let mut singles: Vec<[BitwuzlaTerm; 1]> = terms[..n].iter().map(|&t| [t]).collect();
    let mut ptrs: Vec<*mut BitwuzlaTerm> = singles.iter_mut().map(|a| a.as_mut_ptr()).collect();
    let mut counts = vec![1u32; n];
    let mut size = 0usize;
    let (ptr, raised) = ffi::catching(|| {
        // SAFETY: `n` increments of one asserted term each; the arrays
        // live across the call; the result is copied before any other call.
        unsafe { ffi::bitwuzla_get_interpolants(inst.raw, n as u32, counts.as_mut_ptr(), ptrs.as_mut_ptr(), &mut size) }
    });
    if let Some(msg) = raised {
        return Err(format!("bitwuzla: {msg}"));
    }
    if ptr.is_null() || size != n {
        return Err(format!("bitwuzla gave {size} interpolants for {n} cuts"));
    }
    // SAFETY: Bitwuzla returned `size` terms at `ptr`, valid until its next call.
    Ok(unsafe { std::slice::from_raw_parts(ptr, size) }.to_vec())
}

impl BitwuzlaSolver {
    /// The pool leaves under `roots` by their Bitwuzla constants (terms
    /// are unique per manager, so the handle identifies the constant).
    fn leaf_table(&self, pool: &ExprPool, roots: &[ExprId]) -> HashMap<BitwuzlaTerm, ExprId> {
        let mut table = HashMap::new();
        for &r in roots {
            for &leaf in pool.symbols_of(r) {
                let e = match leaf {
                    crate::expr::Leaf::Sym(s) => pool.symbol_expr(s),
                    crate::expr::Leaf::Array(a) => pool.array_expr(a),
                };
                if let Some(&t) = self.terms.get(&e) {
                    table.insert(t, e);
                }
            }
        }
        table
    }
}

/// Rebuilds Bitwuzla terms in the pool.
struct Reader<'p> {
    pool: &'p mut ExprPool,
    leaves: HashMap<BitwuzlaTerm, ExprId>,
    memo: HashMap<BitwuzlaTerm, ExprId>,
}

/// A Bitwuzla term's kind, children and indices.
fn parts_of(t: BitwuzlaTerm) -> (bw::BitwuzlaKind, Vec<BitwuzlaTerm>, Vec<u64>) {
    // SAFETY: a valid term; the arrays Bitwuzla returns are copied before
    // its next call.
    unsafe {
        let kind = bw::bitwuzla_term_get_kind(t);
        let mut n = 0usize;
        let cs = bw::bitwuzla_term_get_children(t, &mut n);
        let children = if cs.is_null() { Vec::new() } else { std::slice::from_raw_parts(cs, n).to_vec() };
        let mut m = 0usize;
        let is = if bw::bitwuzla_term_is_indexed(t) {
            bw::bitwuzla_term_get_indices(t, &mut m)
        } else {
            std::ptr::null_mut()
        };
        let indices = if is.is_null() { Vec::new() } else { std::slice::from_raw_parts(is, m).to_vec() };
        (kind, children, indices)
    }
}

impl Reader<'_> {
    fn read(&mut self, root: BitwuzlaTerm) -> Result<ExprId, String> {
        let mut stack = vec![(root, false)];
        while let Some((t, expanded)) = stack.pop() {
            if self.memo.contains_key(&t) {
                continue;
            }
            let (kind, children, indices) = parts_of(t);
            if !expanded {
                stack.push((t, true));
                stack.extend(children.iter().filter(|c| !self.memo.contains_key(c)).map(|&c| (c, false)));
                continue;
            }
            let args: Vec<ExprId> = children.iter().map(|c| self.memo[c]).collect();
            let e = self.rebuild(t, kind, &args, &indices)?;
            self.memo.insert(t, e);
        }
        Ok(self.memo[&root])
    }

    /// The pool's form of `t`, whose operands are `a` (read already).
    fn rebuild(
        &mut self,
        t: BitwuzlaTerm,
        kind: bw::BitwuzlaKind,
        a: &[ExprId],
        idx: &[u64],
    ) -> Result<ExprId, String> {
        let p = &mut *self.pool;
        let r = match kind {
            bw::BITWUZLA_KIND_CONSTANT => {
                return self.leaves.get(&t).copied().ok_or_else(|| "an interpolant names a constant of no part".into())
            }
            bw::BITWUZLA_KIND_VALUE => return value(p, t),
            bw::BITWUZLA_KIND_CONST_ARRAY => {
                let (Some(w), Some(v)) = (index_width(t), p.as_bv_const(a[0])) else {
                    return Err("an interpolant has a constant array of a symbolic value".into());
                };
                p.const_array(w, v as u8)
            }
            _ => match logic(p, kind, a).or_else(|| words(p, kind, a)).or_else(|| bits(p, kind, a, idx)) {
                Some(r) => r,
                None => {
                    // SAFETY: Bitwuzla returns a static string for each kind.
                    let name = unsafe { CStr::from_ptr(bw::bitwuzla_kind_to_string(kind)) }.to_string_lossy();
                    return Err(format!("an interpolant uses {name}, which the pool lacks"));
                }
            },
        };
        r.map_err(|e| format!("rebuilding an interpolant: {e}"))
    }
}

/// Boolean connectives, `=`, `distinct`, `ite` and arrays' operations.
fn logic(p: &mut ExprPool, kind: bw::BitwuzlaKind, a: &[ExprId]) -> Option<R> {
    Some(match kind {
        bw::BITWUZLA_KIND_NOT => p.not(a[0]),
        bw::BITWUZLA_KIND_AND => p.and(a),
        bw::BITWUZLA_KIND_OR => p.or(a),
        bw::BITWUZLA_KIND_IMPLIES => p.implies(a[0], a[1]),
        bw::BITWUZLA_KIND_XOR => p.xor(a[0], a[1]),
        bw::BITWUZLA_KIND_IFF => p.eq(a[0], a[1]),
        bw::BITWUZLA_KIND_ITE => p.ite(a[0], a[1], a[2]),
        bw::BITWUZLA_KIND_EQUAL => chain(p, a, |p, x, y| p.eq(x, y)),
        bw::BITWUZLA_KIND_DISTINCT => distinct(p, a),
        bw::BITWUZLA_KIND_ARRAY_SELECT => p.select(a[0], a[1]),
        bw::BITWUZLA_KIND_ARRAY_STORE => p.store(a[0], a[1], a[2]),
        _ => return None,
    })
}

/// Bit-vector arithmetic, logic and comparisons.
fn words(p: &mut ExprPool, kind: bw::BitwuzlaKind, a: &[ExprId]) -> Option<R> {
    // Binary operators, folded over n operands (Bitwuzla's associative
    // ones are n-ary), the negated ones negated after.
    let op = match kind {
        bw::BITWUZLA_KIND_BV_ADD => Some(BvBinOp::Add),
        bw::BITWUZLA_KIND_BV_MUL => Some(BvBinOp::Mul),
        bw::BITWUZLA_KIND_BV_AND | bw::BITWUZLA_KIND_BV_NAND => Some(BvBinOp::And),
        bw::BITWUZLA_KIND_BV_OR | bw::BITWUZLA_KIND_BV_NOR => Some(BvBinOp::Or),
        bw::BITWUZLA_KIND_BV_XOR | bw::BITWUZLA_KIND_BV_XNOR => Some(BvBinOp::Xor),
        bw::BITWUZLA_KIND_BV_SUB => Some(BvBinOp::Sub),
        bw::BITWUZLA_KIND_BV_UDIV => Some(BvBinOp::UDiv),
        bw::BITWUZLA_KIND_BV_UREM => Some(BvBinOp::URem),
        bw::BITWUZLA_KIND_BV_SDIV => Some(BvBinOp::SDiv),
        bw::BITWUZLA_KIND_BV_SREM => Some(BvBinOp::SRem),
        bw::BITWUZLA_KIND_BV_SHL => Some(BvBinOp::Shl),
        bw::BITWUZLA_KIND_BV_SHR => Some(BvBinOp::LShr),
        bw::BITWUZLA_KIND_BV_ASHR => Some(BvBinOp::AShr),
        _ => None,
    };
    if let Some(op) = op {
        let negated = matches!(kind, bw::BITWUZLA_KIND_BV_NAND | bw::BITWUZLA_KIND_BV_NOR | bw::BITWUZLA_KIND_BV_XNOR);
        let r = fold(p, a, op);
        return Some(if negated { r.and_then(|x| p.unop(BvUnOp::Not, x)) } else { r });
    }
    Some(match kind {
        bw::BITWUZLA_KIND_BV_NOT => p.unop(BvUnOp::Not, a[0]),
        bw::BITWUZLA_KIND_BV_NEG => p.unop(BvUnOp::Neg, a[0]),
        bw::BITWUZLA_KIND_BV_INC | bw::BITWUZLA_KIND_BV_DEC => step(p, kind == bw::BITWUZLA_KIND_BV_INC, a[0]),
        bw::BITWUZLA_KIND_BV_ULT => p.cmp(CmpOp::Ult, a[0], a[1]),
        bw::BITWUZLA_KIND_BV_ULE => p.cmp(CmpOp::Ule, a[0], a[1]),
        bw::BITWUZLA_KIND_BV_SLT => p.cmp(CmpOp::Slt, a[0], a[1]),
        bw::BITWUZLA_KIND_BV_SLE => p.cmp(CmpOp::Sle, a[0], a[1]),
        bw::BITWUZLA_KIND_BV_UGT => p.ugt(a[0], a[1]),
        bw::BITWUZLA_KIND_BV_UGE => p.uge(a[0], a[1]),
        bw::BITWUZLA_KIND_BV_SGT => p.sgt(a[0], a[1]),
        bw::BITWUZLA_KIND_BV_SGE => p.sge(a[0], a[1]),
        _ => return None,
    })
}

/// Operations on a bit-vector's bits: slices, extensions, rotations and
/// reductions.
fn bits(p: &mut ExprPool, kind: bw::BitwuzlaKind, a: &[ExprId], idx: &[u64]) -> Option<R> {
    Some(match kind {
        bw::BITWUZLA_KIND_BV_CONCAT => chain_fold(p, a, |p, x, y| p.concat(x, y)),
        bw::BITWUZLA_KIND_BV_EXTRACT => p.extract(a[0], idx[0] as u32, idx[1] as u32),
        bw::BITWUZLA_KIND_BV_ZERO_EXTEND => extend(p, false, a[0], idx[0]),
        bw::BITWUZLA_KIND_BV_SIGN_EXTEND => extend(p, true, a[0], idx[0]),
        bw::BITWUZLA_KIND_BV_REPEAT => chain_fold(p, &vec![a[0]; idx[0] as usize], |p, x, y| p.concat(x, y)),
        bw::BITWUZLA_KIND_BV_ROLI => rotate_left(p, a[0], idx[0]),
        bw::BITWUZLA_KIND_BV_RORI => {
            // Rotating right by k is rotating left by w - k.
            let w = u64::from(p.width(a[0]).unwrap_or(1));
            rotate_left(p, a[0], w - idx[0] % w)
        }
        bw::BITWUZLA_KIND_BV_COMP => p.eq(a[0], a[1]).and_then(|eq| bit(p, eq)),
        bw::BITWUZLA_KIND_BV_REDOR | bw::BITWUZLA_KIND_BV_REDAND => reduce(p, kind == bw::BITWUZLA_KIND_BV_REDOR, a[0]),
        _ => return None,
    })
}

type R = Result<ExprId, crate::ExprError>;

/// `a + 1` (`up`) or `a - 1`.
fn step(p: &mut ExprPool, up: bool, a: ExprId) -> R {
    let one = p.bv_const(p.width(a).unwrap_or(1), 1)?;
    p.binop(if up { BvBinOp::Add } else { BvBinOp::Sub }, a, one)
}

/// The 1-bit vector of a Boolean.
fn bit(p: &mut ExprPool, b: ExprId) -> R {
    let (one, zero) = (p.bv_const(1, 1)?, p.bv_const(1, 0)?);
    p.ite(b, one, zero)
}

/// The or (`any`) or the and of `a`'s bits, as one bit.
fn reduce(p: &mut ExprPool, any: bool, a: ExprId) -> R {
    let w = p.width(a).unwrap_or(1);
    let c = p.bv_const(w, if any { 0 } else { (1u128 << w) - 1 })?;
    let test = if any { p.ne(a, c)? } else { p.eq(a, c)? };
    bit(p, test)
}

/// `a` extended by `by` bits.
fn extend(p: &mut ExprPool, signed: bool, a: ExprId, by: u64) -> R {
    let to = p.width(a).unwrap_or(1) + by as u32;
    if signed {
        p.sext(a, to)
    } else {
        p.zext(a, to)
    }
}

/// `a` rotated left by `k` bits.
fn rotate_left(p: &mut ExprPool, a: ExprId, k: u64) -> R {
    let w = p.width(a).unwrap_or(1);
    let k = (k % u64::from(w)) as u32;
    if k == 0 {
        return Ok(a);
    }
    let hi = p.extract(a, w - k - 1, 0)?;
    let lo = p.extract(a, w - 1, w - k)?;
    p.concat(hi, lo)
}

/// `op` over `a` from the left (Bitwuzla's associative operators are
/// n-ary).
fn fold(p: &mut ExprPool, a: &[ExprId], op: BvBinOp) -> R {
    chain_fold(p, a, |p, x, y| p.binop(op, x, y))
}

fn chain_fold(p: &mut ExprPool, a: &[ExprId], f: impl Fn(&mut ExprPool, ExprId, ExprId) -> R) -> R {
    let mut acc = a[0];
    for &x in &a[1..] {
        acc = f(p, acc, x)?;
    }
    Ok(acc)
}

/// `a0 rel a1 and a1 rel a2 and ...` (Bitwuzla's `=` is chainable).
fn chain(p: &mut ExprPool, a: &[ExprId], rel: impl Fn(&mut ExprPool, ExprId, ExprId) -> R) -> R {
    let mut all = Vec::with_capacity(a.len());
    for w in a.windows(2) {
        all.push(rel(p, w[0], w[1])?);
    }
    p.and(&all)
}

fn distinct(p: &mut ExprPool, a: &[ExprId]) -> R {
    let mut all = Vec::new();
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            all.push(p.ne(a[i], a[j])?);
        }
    }
    p.and(&all)
}

/// A Boolean or bit-vector value.
fn value(p: &mut ExprPool, t: BitwuzlaTerm) -> Result<ExprId, String> {
    // SAFETY: a value term; the string is parsed before the next call.
    unsafe {
        if bw::bitwuzla_term_is_bool(t) {
            return Ok(p.bool_const(bw::bitwuzla_term_value_get_bool(t)));
        }
        if !bw::bitwuzla_term_is_bv(t) {
            return Err("an interpolant has a value that is not a bit-vector".into());
        }
        let width = bw::bitwuzla_term_bv_get_size(t) as u32;
        let text = CStr::from_ptr(bw::bitwuzla_term_value_get_str_fmt(t, 16)).to_string_lossy().into_owned();
        let v = u128::from_str_radix(&text, 16).map_err(|e| format!("bitwuzla value {text:?}: {e}"))?;
        p.bv_const(width, v).map_err(|e| e.to_string())
    }
}

/// The index width of an array term.
fn index_width(t: BitwuzlaTerm) -> Option<u32> {
    // SAFETY: a valid term.
    unsafe {
        let sort = bw::bitwuzla_term_get_sort(t);
        bw::bitwuzla_sort_is_array(sort)
            .then(|| bw::bitwuzla_sort_bv_get_size(bw::bitwuzla_sort_array_get_index(sort)) as u32)
    }
}
