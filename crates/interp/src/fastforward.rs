//! Fast-forwarding of deterministic loops: a run that reaches the head of a
//! loop whose iteration is a pure affine update of the head's values jumps
//! straight to the first iteration that takes a different path.
//!
//! Why: some programs' only interesting behaviour lies behind a loop of
//! 10^8 or 2^32 iterations that reads no input (`x += 2` until unsigned
//! wrap-around). Running them plainly costs seconds to hours; every
//! iteration but the last does the same thing. The jump is exact: what the
//! skipped iterations would have done is added to the run (goals, line
//! counts multiplied, steps counted apart in [`crate::RunResult::skipped_steps`]).
//!
//! Two parts:
//! - once per program ([`analyze_function`], called by `prepare`): the
//!   natural loops of each function whose blocks hold only instructions
//!   without side effects (no memory access, call, input, allocation or
//!   return); each back edge into such a loop's head is marked with the
//!   loop's index in [`FastForward::loops`] (the field [`Edge::ff`] of the
//!   executable form; the IR itself gains nothing).
//! - in a run (`Machine::fast_forward`, called when a marked edge is
//!   taken): one iteration is walked twice from the head without touching
//!   the machine, first concretely (which path, and the values the back
//!   edge carries: each head value's step), then with each head value as
//!   `a + s*k` modulo its width and every value computed from them as such
//!   an affine form when it is one. Every comparison on the path is a
//!   predicate on `k`; the smallest `k >= 1` at which any of them changes
//!   its outcome is solved exactly in machine arithmetic (wrap-around
//!   included), and the run jumps there. Anything the walk cannot express
//!   (a value not affine in `k` reaching a branch, a comparison of two
//!   varying values for order, a step too coarse for the interval it must
//!   hit) means no jump: the loop runs plainly. When in doubt, the run is
//!   the plain run.
//!
//! Nested loops: a walk that reaches the head of an inner marked loop
//! summarizes that loop's whole run ([`summarize`]) as segments, stretches
//! of iterations on one path, each walked with the inner head's values
//! affine in a variable of its own (values are affine in up to [`NV`]
//! variables: the jumped loop's count `k` and one per segment being
//! walked). Each segment's comparisons become conditions ([`Cons`]) that
//! must hold over its whole range, `0..l0 + l1*k`; the jump goes to the
//! first `k` at which one would fail. Whole outer iterations of nests like
//! five loops of 2^32 iterations each are so jumped over; line counts of
//! the inner lines are sums over `k` of products of segment lengths.
//! A block calling a function that never returns (`reach_error`) counts as
//! leaving the loop, so such a call under a condition does not keep the
//! loop from being marked.
//!
//! A loop that fails the dynamic conditions is retried after exponentially
//! more arrivals (up to 1024), so the cost on loops that never qualify is a
//! fraction of a percent.

mod marking;
mod nest;
mod solve;

use crate::code::{Edge, Prepared, XInst, NONE};
use crate::eval::{eval_bin_bits, eval_cast, eval_cmp_bits, eval_select, eval_un_bits, mask};
pub(crate) use marking::analyze_function;
use nest::*;
use solve::*;
use std::collections::{HashMap, HashSet};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::{BinOp, InstKind, Operand, Value};
use walkdown_ir::{Body, CastOp, CmpPred, DataModel, Type};

/// The fast-forward side table of a prepared program.
#[derive(Clone, Debug)]
pub struct FastForward {
    /// Whether runs fast-forward (default true; see
    /// [`crate::Interpreter::set_fast_forward`]).
    pub enabled: bool,
    /// The loops that qualify statically, indexed by [`Edge::ff`].
    pub loops: Vec<FfLoop>,
    /// Their heads' first program counters with their indices, sorted.
    heads: Vec<(u32, u32)>,
}

impl FastForward {
    /// The loop whose head starts at `pc`.
    pub(crate) fn loop_at(&self, pc: u32) -> Option<usize> {
        let i = self.heads.binary_search_by_key(&pc, |&(h, _)| h).ok()?;
        Some(self.heads[i].1 as usize)
    }
}

impl Default for FastForward {
    fn default() -> Self {
        FastForward { enabled: true, loops: Vec::new(), heads: Vec::new() }
    }
}

/// A loop without side effects in its blocks.
#[derive(Clone, Debug)]
pub struct FfLoop {
    /// The head's first program counter.
    pub head: u32,
    /// The head's parameters: register and width in bits (0 for floats,
    /// which must not change from one iteration to the next).
    pub params: Vec<(u32, u8)>,
    /// First program counters of the loop's blocks, sorted.
    pub blocks: Vec<u32>,
}

/// A jump over loop iterations, as [`plan`] finds it.
pub struct Jump {
    /// Each head value's step per iteration (modulo its width).
    steps: Vec<u64>,
    /// Each head value's width (0: not an integer; its step is 0).
    bits: Vec<u8>,
    /// The iterations jumped over (at least 2): all take the path of
    /// [`Jump::walk`].
    pub iterations: u128,
    /// One of those iterations.
    pub walk: Walk,
}

impl Jump {
    /// Head value number `i` (in the order of the head's parameters) after
    /// the jump, given its value `now`.
    pub fn value_after(&self, i: usize, now: u64) -> u64 {
        let (Some(&s), Some(&bits)) = (self.steps.get(i), self.bits.get(i)) else {
            return now;
        };
        if s == 0 {
            return now;
        }
        let v = u128::from(now).wrapping_add(u128::from(s).wrapping_mul(self.iterations)) as u64;
        v & mask(u32::from(bits))
    }

    /// The goals of the edges of the path (its branch outcomes).
    pub fn goals(&self) -> &[u32] {
        &self.walk.goals
    }

    /// Steps one iteration of the path takes (its inner loops' segments
    /// not counted).
    pub fn steps_per_iteration(&self) -> usize {
        self.walk.pcs.len()
    }

    /// Each program counter the jumped-over iterations run, with how
    /// often (saturating); a program counter may come more than once.
    pub fn runs(&self) -> impl Iterator<Item = (u32, u128)> + '_ {
        let k = self.iterations;
        self.walk.pcs.iter().map(move |&pc| (pc, k)).chain(self.walk.wpcs.iter().map(move |(pc, w)| (*pc, w.total(k))))
    }

    /// The steps the jumped-over iterations take (saturating).
    pub fn skipped_steps(&self) -> u128 {
        self.runs().fold(0u128, |acc, (_, n)| acc.saturating_add(n))
    }
}

/// A value in the walk, `k` counting iterations from the current one:
/// - `Aff`: the register holds `(a + s*k) mod 2^bits`, zero-extended;
///   `s == 0` is a value that does not change (then `bits` does not
///   matter);
/// - `SAff`: it holds that value sign-extended to `to` bits (a promoted
///   `signed char`);
/// - `Low`: only its low `bits` bits are known to be that (arithmetic on a
///   promoted narrow value, until it is truncated back);
/// - `Opaque`: anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V {
    /// See the type.
    Aff {
        /// The value now.
        a: u64,
        /// Its step per variable.
        s: St,
        /// Its width.
        bits: u8,
    },
    /// See the type.
    SAff {
        /// The value now (of `bits` bits).
        a: u64,
        /// Its step per variable.
        s: St,
        /// Its width.
        bits: u8,
        /// The width it is extended to.
        to: u8,
    },
    /// See the type.
    Low {
        /// The low bits now.
        a: u64,
        /// Their step per variable.
        s: St,
        /// How many.
        bits: u8,
    },
    /// See the type.
    Opaque,
}

/// How many variables a value may be affine in: the jumped loop's
/// iteration count (variable 0) and, while an inner loop is summarized
/// inside an iteration, the iteration counts of its segments (1, 2, ...,
/// one per level of nesting).
pub const NV: usize = 6;

/// A value's step per variable.
pub type St = [u64; NV];

const Z: St = [0; NV];

fn konst(v: u64) -> V {
    V::Aff { a: v, s: Z, bits: 64 }
}

/// `s` with each step cut to `m`.
fn masked(s: St, m: u64) -> St {
    s.map(|x| x & m)
}

/// A step in variable 0 alone.
fn step0(s: u64) -> St {
    let mut v = Z;
    v[0] = s;
    v
}

impl V {
    fn constant(self) -> Option<u64> {
        match self {
            V::Aff { a, s, .. } if s == Z => Some(a),
            _ => None,
        }
    }

    /// `(a, s, bits)`: the low `bits` bits of the register are
    /// `a + s*k`.
    fn low(self) -> Option<(u64, St, u32)> {
        match self {
            V::Aff { a, s, .. } if s == Z => Some((a, Z, 64)),
            V::Aff { a, s, bits } | V::SAff { a, s, bits, .. } | V::Low { a, s, bits } => Some((a, s, u32::from(bits))),
            V::Opaque => None,
        }
    }
}

/// Why a walk gives up (no jump).
#[derive(Debug)]
pub(crate) struct GiveUp;

/// A comparison on the path; its outcome must stay what it is at `k = 0`.
#[derive(Clone, Copy, Debug)]
struct Pred {
    pred: CmpPred,
    /// The comparison's width (64 for the raw comparisons of zero-extended
    /// registers).
    bits: u32,
    x: V,
    y: V,
}

/// The outcome of one iteration's walk.
#[derive(Default)]
pub struct Walk {
    /// Every program counter executed once an iteration, in order (line
    /// counts and steps).
    pub(crate) pcs: Vec<u32>,
    /// Program counters of inner loops' segments, each with how often it
    /// runs in an iteration (a product of segment lengths).
    pub(crate) wpcs: Vec<(u32, Weight)>,
    /// The goals of the edges taken.
    pub(crate) goals: Vec<u32>,
    /// The head's values at the next iteration.
    pub(crate) next: Vec<V>,
    /// The comparisons of this iteration's own path.
    preds: Vec<Pred>,
    /// What inner loops' summaries need to stay as they are.
    cons: Vec<Cons>,
}

/// A segment length as a function of the jumped loop's iteration count
/// `k`: `l0 + l1*k`.
pub(crate) type Len = (i128, i128);

/// How often a program counter runs in one iteration: the product of the
/// lengths of the segments it is nested in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Weight {
    f: [Len; NV],
    n: u8,
}

impl Weight {
    fn one() -> Self {
        Weight { f: [(0, 0); NV], n: 0 }
    }

    fn times(mut self, l: Len) -> Result<Self, GiveUp> {
        let slot = self.f.get_mut(usize::from(self.n)).ok_or(GiveUp)?;
        *slot = l;
        self.n += 1;
        Ok(self)
    }

    /// The runs over iterations `0..k` of the jumped loop: the sum over
    /// them of the product of the lengths (saturating).
    pub(crate) fn total(&self, k: u128) -> u128 {
        weighted_sum(&self.f[..usize::from(self.n)], k)
    }
}

/// A condition an inner loop's summary rests on.
#[derive(Clone, Copy, Debug)]
#[allow(clippy::large_enum_variant)] // a few per walk, never moved in bulk
enum Cons {
    /// The comparison keeps its outcome wherever its variables range: the
    /// variables of segments ranging over `0..l0 + l1*k` (by index; 0 for
    /// the others).
    Pred { p: Pred, ranges: [Option<Len>; NV] },
    /// A segment length never negative: `l0 + l1*k >= 0`.
    NonNeg(Len),
}

/// The longest iteration walked (program counters).
const MAX_PATH: usize = 512;

/// `rb`-bit arithmetic on `x` and `y` (`fa` on the values at `k = 0`,
/// `fs` on the steps): exact (`Aff`) when every varying operand is known
/// on at least `rb` bits, else known on the low bits all of them are
/// (`Low`).
fn lin(x: V, y: V, rb: u32, fa: impl Fn(u64, u64) -> u64, fs: impl Fn(u64, u64) -> u64) -> V {
    let (Some((xa, xs, xb)), Some((ya, ys, yb))) = (x.low(), y.low()) else {
        return V::Opaque;
    };
    let w = rb.min(xb).min(yb);
    let m = mask(w);
    let a = fa(xa, ya) & m;
    let mut s = Z;
    for i in 0..NV {
        s[i] = fs(xs[i], ys[i]) & m;
    }
    if w == rb {
        V::Aff { a, s, bits: rb as u8 }
    } else {
        V::Low { a, s, bits: w as u8 }
    }
}

/// The register's value at `k = 0`, when the walk knows all of it.
fn reg_now(v: V) -> Option<u64> {
    match v {
        V::Aff { a, .. } => Some(a),
        V::SAff { a, bits, to, .. } => Some(crate::eval::sext(a, u32::from(bits)) as u64 & mask(u32::from(to))),
        _ => None,
    }
}

/// What a walk sees besides the values it computes: the machine's
/// registers, and the state of nested summaries.
pub(crate) struct Ctx<'a> {
    p: &'a crate::code::Prepared,
    r: &'a [u64],
    base: usize,
    /// The next free variable (0 is the jumped loop's iteration count).
    depth: usize,
    /// Program counters left to walk over all the walks of one plan
    /// (inner loops' segments are walked twice each).
    budget: usize,
}

/// How an iteration's walk ends.
pub(crate) enum End {
    /// Back at the loop's head ([`Walk::next`] holds its values).
    Back,
    /// Out of the loop, at this program counter.
    Exit(u32),
}

/// All program counters walked for one plan, nested walks included.
const NEST_BUDGET: usize = 8192;

/// Segments of one inner loop's run (stretches of iterations taking one
/// path) a summary may have.
const MAX_SEGMENTS: usize = 8;

/// Walks one iteration from the head of `l`, the head's values being set
/// in `vals` (registers of the frame at `ctx.base` give everything else).
/// Inner fast-forward loops met on the way are summarized
/// ([`summarize`]): the walk goes on at their exit.
pub(crate) fn walk_in(ctx: &mut Ctx<'_>, l: &FfLoop, vals: &mut Vec<(u32, V)>, w: &mut Walk) -> Result<End, GiveUp> {
    let (p, r, base) = (ctx.p, ctx.r, ctx.base);
    let dm = p.dm;
    let get = |vals: &Vec<(u32, V)>, o: crate::code::Opnd| -> V {
        let reg = o.index();
        match vals.iter().rev().find(|&&(r2, _)| r2 == reg) {
            Some(&(_, v)) => v,
            None => r.get(o.slot(base)).map_or(V::Opaque, |&x| konst(x)),
        }
    };
    let mut pc = l.head as usize;
    let mut moved: Vec<(u32, V)> = Vec::new();
    let mut walked = 0usize;
    loop {
        if walked >= MAX_PATH || ctx.budget == 0 {
            return Err(GiveUp);
        }
        walked += 1;
        ctx.budget -= 1;
        w.pcs.push(pc as u32);
        let x = *p.code.get(pc).ok_or(GiveUp)?;
        let set = |vals: &mut Vec<(u32, V)>, dst: u32, v: V| {
            if let Some(e) = vals.iter_mut().rev().find(|e| e.0 == dst) {
                e.1 = v;
            } else {
                vals.push((dst, v));
            }
        };
        // A comparison: its outcome now, and the predicate to keep.
        let cmp = |vals: &Vec<(u32, V)>, w: &mut Walk, pred: CmpPred, bits: u32, a, b| -> Result<bool, GiveUp> {
            let (x, y) = (get(vals, a), get(vals, b));
            let (Some(xa), Some(ya)) = (reg_now(x), reg_now(y)) else {
                return Err(GiveUp);
            };
            if x.constant().is_none() || y.constant().is_none() {
                w.preds.push(Pred { pred, bits, x, y });
            }
            Ok(eval_cmp_bits(pred, bits, xa, ya))
        };
        let mut edge: Option<u32> = None;
        match x {
            XInst::Add { sh, dst, a, b } => {
                let v = lin(get(vals, a), get(vals, b), 64 - u32::from(sh), u64::wrapping_add, u64::wrapping_add);
                set(vals, dst, v);
            }
            XInst::Sub { sh, dst, a, b } => {
                let v = lin(get(vals, a), get(vals, b), 64 - u32::from(sh), u64::wrapping_sub, u64::wrapping_sub);
                set(vals, dst, v);
            }
            XInst::Mul { sh, dst, a, b } => {
                let (x, y) = (get(vals, a), get(vals, b));
                let rb = 64 - u32::from(sh);
                let v = match (x.constant(), y.constant()) {
                    (_, Some(c)) => lin(x, konst(0), rb, |xa, _| xa.wrapping_mul(c), |xs, _| xs.wrapping_mul(c)),
                    (Some(c), _) => lin(y, konst(0), rb, |ya, _| ya.wrapping_mul(c), |ys, _| ys.wrapping_mul(c)),
                    _ => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::Shl { sh, dst, a, b } => {
                let (x, y) = (get(vals, a), get(vals, b));
                let rb = 64 - u32::from(sh);
                let v = match y.constant() {
                    Some(n) => {
                        let n = n & u64::from(63 - sh);
                        lin(x, konst(0), rb, |xa, _| xa << n, |xs, _| xs << n)
                    }
                    None => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::And { dst, a, b } | XInst::Or { dst, a, b } | XInst::Xor { dst, a, b } => {
                let v = match (get(vals, a).constant(), get(vals, b).constant()) {
                    (Some(xa), Some(ya)) => konst(match x {
                        XInst::And { .. } => xa & ya,
                        XInst::Or { .. } => xa | ya,
                        _ => xa ^ ya,
                    }),
                    _ => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::LShr { sh, dst, a, b } => {
                let v = match (get(vals, a).constant(), get(vals, b).constant()) {
                    (Some(x), Some(y)) => konst(x >> (y & u64::from(63 - sh))),
                    _ => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::AShr { sh, dst, a, b } => {
                let v = match (get(vals, a).constant(), get(vals, b).constant()) {
                    (Some(x), Some(y)) => {
                        let n = y & u64::from(63 - sh);
                        let xs = ((x << sh) as i64) >> sh;
                        konst(((xs >> n) as u64) & (u64::MAX >> sh))
                    }
                    _ => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::Bin { op, bits, dst, a, b } => {
                let v = match (get(vals, a).constant(), get(vals, b).constant()) {
                    (Some(x), Some(y)) => konst(eval_bin_bits(op, u32::from(bits), x, y)),
                    _ => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::Un { op, bits, dst, a } => {
                let v = match get(vals, a).constant() {
                    Some(x) => konst(eval_un_bits(op, u32::from(bits), x)),
                    None => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::Eq { dst, a, b } => {
                let c = cmp(vals, w, CmpPred::Eq, 64, a, b)?;
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::Ne { dst, a, b } => {
                let c = cmp(vals, w, CmpPred::Ne, 64, a, b)?;
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::Ult { dst, a, b } => {
                let c = cmp(vals, w, CmpPred::Ult, 64, a, b)?;
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::Ule { dst, a, b } => {
                let c = cmp(vals, w, CmpPred::Ule, 64, a, b)?;
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::Slt { sh, dst, a, b } => {
                let c = cmp(vals, w, CmpPred::Slt, 64 - u32::from(sh), a, b)?;
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::Sle { sh, dst, a, b } => {
                let c = cmp(vals, w, CmpPred::Sle, 64 - u32::from(sh), a, b)?;
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::Cmp { pred, bits, dst, a, b } => {
                let (x, y) = (get(vals, a), get(vals, b));
                let float = !matches!(
                    pred,
                    CmpPred::Eq
                        | CmpPred::Ne
                        | CmpPred::Ult
                        | CmpPred::Ule
                        | CmpPred::Ugt
                        | CmpPred::Uge
                        | CmpPred::Slt
                        | CmpPred::Sle
                        | CmpPred::Sgt
                        | CmpPred::Sge
                );
                let c = if float {
                    // A float comparison: only of values that do not change.
                    match (x.constant(), y.constant()) {
                        (Some(xa), Some(ya)) => eval_cmp_bits(pred, u32::from(bits), xa, ya),
                        _ => return Err(GiveUp),
                    }
                } else {
                    cmp(vals, w, pred, u32::from(bits), a, b)?
                };
                set(vals, dst, konst(u64::from(c)));
            }
            XInst::BrEq { dst, a, b, t, f }
            | XInst::BrNe { dst, a, b, t, f }
            | XInst::BrUlt { dst, a, b, t, f }
            | XInst::BrUle { dst, a, b, t, f } => {
                let pred = match x {
                    XInst::BrEq { .. } => CmpPred::Eq,
                    XInst::BrNe { .. } => CmpPred::Ne,
                    XInst::BrUlt { .. } => CmpPred::Ult,
                    _ => CmpPred::Ule,
                };
                let c = cmp(vals, w, pred, 64, a, b)?;
                set(vals, dst, konst(u64::from(c)));
                pc += 1;
                w.pcs.push(pc as u32);
                edge = Some(if c { t } else { f });
            }
            XInst::BrSlt { sh, dst, a, b, t, f } | XInst::BrSle { sh, dst, a, b, t, f } => {
                let pred = if matches!(x, XInst::BrSlt { .. }) { CmpPred::Slt } else { CmpPred::Sle };
                let c = cmp(vals, w, pred, 64 - u32::from(sh), a, b)?;
                set(vals, dst, konst(u64::from(c)));
                pc += 1;
                w.pcs.push(pc as u32);
                edge = Some(if c { t } else { f });
            }
            XInst::Cast { op, from, to, dst, a } => {
                let x = get(vals, a);
                let ints = from.is_int_or_ptr() && to.is_int_or_ptr();
                let (fb, tb) = (from.bits(dm), to.bits(dm));
                let v = match x {
                    V::Aff { a: xa, s, .. } if s == Z => konst(eval_cast(op, from, to, xa, dm)),
                    _ if !ints => V::Opaque,
                    V::Aff { a: xa, s, bits } => {
                        // The operand is first cut to its type's width.
                        let b = u32::from(bits).min(fb);
                        let (xa, s) = (xa & mask(b), masked(s, mask(b)));
                        match op {
                            CastOp::SExt if b == fb && tb > fb => V::SAff { a: xa, s, bits: b as u8, to: tb as u8 },
                            // Zero extension keeps the value; so does a
                            // sign extension of a value narrower than its
                            // type (its sign bit is 0), or to its own width.
                            CastOp::ZExt | CastOp::SExt if tb >= fb => V::Aff { a: xa, s, bits: b as u8 },
                            CastOp::Trunc | CastOp::PtrToInt | CastOp::IntToPtr | CastOp::Bitcast => {
                                let t = b.min(tb);
                                V::Aff { a: xa & mask(t), s: masked(s, mask(t)), bits: t as u8 }
                            }
                            _ => V::Opaque,
                        }
                    }
                    V::SAff { a: xa, s, bits, .. } | V::Low { a: xa, s, bits }
                        if matches!(op, CastOp::Trunc) && tb <= u32::from(bits) && tb <= fb =>
                    {
                        V::Aff { a: xa & mask(tb), s: masked(s, mask(tb)), bits: tb as u8 }
                    }
                    _ => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::Select { dst, c, t, f } => {
                let v = match get(vals, c).constant() {
                    Some(cv) => {
                        let (tv, fv) = (get(vals, t), get(vals, f));
                        if eval_select(cv, 1, 0) == 1 {
                            tv
                        } else {
                            fv
                        }
                    }
                    None => V::Opaque,
                };
                set(vals, dst, v);
            }
            XInst::PtrAdd { dst, base: b, off } => {
                let pb = dm.pointer_bits();
                let v = lin(get(vals, b), get(vals, off), pb, u64::wrapping_add, u64::wrapping_add);
                set(vals, dst, v);
            }
            XInst::Assume { c } | XInst::Check { c, .. } => {
                // Must hold now (otherwise the plain run stops here) and
                // it stays as it is: every comparison keeps its outcome.
                match get(vals, c).constant() {
                    Some(v) if v & 1 != 0 => {}
                    _ => return Err(GiveUp),
                }
            }
            XInst::Jump { edge: e } => edge = Some(e),
            XInst::Branch { c, t, f } => match get(vals, c).constant() {
                Some(v) => edge = Some(if v & 1 != 0 { t } else { f }),
                None => return Err(GiveUp),
            },
            XInst::Switch { table } => {
                let t = *p.switches.get(table as usize).ok_or(GiveUp)?;
                let v = get(vals, t.val);
                let V::Aff { a: va, .. } = v else {
                    return Err(GiveUp);
                };
                let bits = t.ty.bits(dm);
                let cases =
                    p.cases.get(t.cases_start as usize..(t.cases_start + t.cases_len) as usize).ok_or(GiveUp)?;
                if v.constant().is_none() {
                    if cases.len() > 64 {
                        return Err(GiveUp);
                    }
                    for &(k, _) in cases {
                        w.preds.push(Pred { pred: CmpPred::Eq, bits, x: v, y: konst(k) });
                    }
                }
                let vm = va & mask(bits);
                edge = Some(match cases.binary_search_by_key(&vm, |&(k, _)| k) {
                    Ok(i) => cases[i].1,
                    Err(_) => t.default,
                });
            }
            _ => return Err(GiveUp),
        }
        let Some(e) = edge else {
            pc += 1;
            continue;
        };
        let ed = *p.edges.get(e as usize).ok_or(GiveUp)?;
        if ed.goal != NONE {
            w.goals.push(ed.goal);
        }
        moved.clear();
        for &(dst, src) in
            p.moves.get(ed.moves_start as usize..(ed.moves_start + ed.moves_len) as usize).ok_or(GiveUp)?
        {
            moved.push((dst, get(vals, src)));
        }
        for &(dst, v) in &moved {
            set(vals, dst, v);
        }
        let mut to = ed.pc;
        loop {
            if to == l.head {
                w.next = l.params.iter().map(|&(reg, _)| get(vals, crate::code::Opnd::reg(reg))).collect();
                return Ok(End::Back);
            }
            if l.blocks.binary_search(&to).is_err() {
                return Ok(End::Exit(to));
            }
            match p.ff.loop_at(to) {
                // An inner loop: its whole run, and on from its exit.
                Some(inner) => to = summarize(ctx, inner, vals, w)?,
                None => break,
            }
        }
        pc = to as usize;
    }
}

/// The number of iterations from now that take the same path as this one
/// (at least 1), or `None` when the walk's predicates are not all
/// solvable or never change (a loop that never ends is left to the plain
/// run and its limits).
pub(crate) fn iterations(w: &Walk) -> Option<u128> {
    let mut best: Option<u128> = None;
    let changes = w.preds.iter().map(first_change).chain(w.cons.iter().map(|c| first_violation(c, 0)));
    for change in changes {
        match change {
            Err(GiveUp) => return None,
            Ok(None) => {}
            Ok(Some(k)) => best = Some(best.map_or(k, |b| b.min(k))),
        }
    }
    best
}

/// The value of register `reg` in the walk.
fn value_of(ctx: &Ctx<'_>, vals: &[(u32, V)], reg: u32) -> V {
    match vals.iter().rev().find(|&&(r2, _)| r2 == reg) {
        Some(&(_, v)) => v,
        None => ctx.r.get(crate::code::Opnd::reg(reg).slot(ctx.base)).map_or(V::Opaque, |&x| konst(x)),
    }
}

fn set_val(vals: &mut Vec<(u32, V)>, dst: u32, v: V) {
    if let Some(e) = vals.iter_mut().rev().find(|e| e.0 == dst) {
        e.1 = v;
    } else {
        vals.push((dst, v));
    }
}

fn same_pcs(a: &[(u32, Weight)], b: &[(u32, Weight)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0)
}

/// The jump fast-forward loop number `li` can make from the head values in
/// the frame at `base` of register file `r` (laid out as the interpreter
/// lays out frames: values, a sink, then the function's constants); `None`
/// when it cannot (the run goes on plainly). Engines that execute the same
/// code (the concolic tracer) use it where the loop's values are concrete.
pub fn plan(p: &Prepared, li: usize, r: &[u64], base: usize, scratch: &mut Vec<(u32, V)>) -> Option<Jump> {
    let l = p.ff.loops.get(li)?;
    let cur: Vec<u64> = l.params.iter().map(|&(reg, _)| r.get(base + reg as usize).copied()).collect::<Option<_>>()?;
    let mut ctx = Ctx { p, r, base, depth: 1, budget: NEST_BUDGET };
    let vals = scratch;
    vals.clear();
    for (&(reg, _), &c) in l.params.iter().zip(&cur) {
        vals.push((reg, konst(c)));
    }
    let mut first = Walk::default();
    if !matches!(walk_in(&mut ctx, l, vals, &mut first).ok()?, End::Back) {
        return None;
    }
    let mut steps = Vec::with_capacity(cur.len());
    let mut head = Vec::with_capacity(cur.len());
    for ((&(_, bits), &c), n) in l.params.iter().zip(&cur).zip(&first.next) {
        let nv = n.constant()?;
        if !matches!(n, V::Aff { .. }) {
            return None;
        }
        if bits == 0 {
            // Not an integer: it must not change.
            if nv != c {
                return None;
            }
            steps.push(0);
            head.push(konst(c));
            continue;
        }
        let m = mask(u32::from(bits));
        let s = nv.wrapping_sub(c) & m;
        steps.push(s);
        head.push(if s == 0 { konst(c) } else { V::Aff { a: c & m, s: step0(s), bits } });
    }
    if steps.iter().all(|&s| s == 0) {
        // The same state again: a loop that never ends, left to the limits.
        return None;
    }
    vals.clear();
    for (&(reg, _), &v) in l.params.iter().zip(&head) {
        vals.push((reg, v));
    }
    let mut walk = Walk::default();
    if !matches!(walk_in(&mut ctx, l, vals, &mut walk).ok()?, End::Back)
        || walk.pcs != first.pcs
        || !same_pcs(&walk.wpcs, &first.wpcs)
    {
        return None;
    }
    // The back edge must carry exactly the next iteration's values.
    for ((&(_, bits), (&c, &s)), n) in l.params.iter().zip(cur.iter().zip(&steps)).zip(&walk.next) {
        let ok = match *n {
            V::Aff { a, s: s2, bits: b2 } => {
                if s == 0 {
                    s2 == Z && a == c
                } else {
                    let m = mask(u32::from(bits));
                    b2 >= bits && a & m == c.wrapping_add(s) & m && masked(s2, m) == step0(s)
                }
            }
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    let k = iterations(&walk)?;
    (k >= 2).then(|| Jump { steps, bits: l.params.iter().map(|&(_, b)| b).collect(), iterations: k, walk })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(a: u64, s: u64, w: u32, pred: CmpPred, c: u64, bits: u32) -> Option<u128> {
        let m = 1u128 << w;
        let at = |k: u128| ((u128::from(a) + u128::from(s) * k) % m) as u64;
        let v0 = eval_cmp_bits(pred, bits, at(0), c);
        (1..=m + 1).find(|&k| eval_cmp_bits(pred, bits, at(k), c) != v0)
    }

    #[test]
    fn first_change_agrees_with_enumeration_on_8_bits() {
        let preds = [
            CmpPred::Eq,
            CmpPred::Ne,
            CmpPred::Ult,
            CmpPred::Ule,
            CmpPred::Ugt,
            CmpPred::Uge,
            CmpPred::Slt,
            CmpPred::Sle,
            CmpPred::Sgt,
            CmpPred::Sge,
        ];
        let mut solved = 0;
        let mut given_up = 0;
        for pred in preds {
            for a in (0..256u64).step_by(7) {
                for s in [1u64, 2, 3, 4, 6, 16, 100, 128, 200, 254, 255] {
                    for c in [0u64, 1, 5, 9, 10, 127, 128, 129, 200, 254, 255] {
                        let p = Pred { pred, bits: 8, x: V::Aff { a, s: step0(s), bits: 8 }, y: konst(c) };
                        let want = brute(a, s, 8, pred, c, 8);
                        match first_change(&p) {
                            Ok(got) => {
                                assert_eq!(got, want, "{pred:?} a={a} s={s} c={c}");
                                solved += 1;
                            }
                            Err(GiveUp) => given_up += 1,
                        }
                        // The swapped form.
                        let q = Pred { pred, bits: 8, x: konst(c), y: V::Aff { a, s: step0(s), bits: 8 } };
                        let m = 256u128;
                        let at = |k: u128| ((u128::from(a) + u128::from(s) * k) % m) as u64;
                        let v0 = eval_cmp_bits(pred, 8, c, at(0));
                        let want = (1..=m + 1).find(|&k| eval_cmp_bits(pred, 8, c, at(k)) != v0);
                        if let Ok(got) = first_change(&q) {
                            assert_eq!(got, want, "swapped {pred:?} a={a} s={s} c={c}");
                        }
                    }
                }
            }
        }
        assert!(solved > given_up * 4, "solved {solved}, gave up {given_up}");
    }

    #[test]
    fn narrow_value_against_raw_64_bit_comparison() {
        // An 8-bit counter compared with a 64-bit raw comparison (as the
        // interpreter compares zero-extended registers).
        for c in [0u64, 3, 255, 256, 1000] {
            for pred in [CmpPred::Ult, CmpPred::Ule, CmpPred::Eq, CmpPred::Ne] {
                let p = Pred { pred, bits: 64, x: V::Aff { a: 250, s: step0(3), bits: 8 }, y: konst(c) };
                let at = |k: u128| ((250u128 + 3 * k) % 256) as u64;
                let v0 = eval_cmp_bits(pred, 64, at(0), c);
                let want = (1..=300u128).find(|&k| eval_cmp_bits(pred, 64, at(k), c) != v0);
                if let Ok(got) = first_change(&p) {
                    assert_eq!(got, want, "{pred:?} c={c}");
                }
            }
        }
    }

    #[test]
    fn promoted_signed_char_against_a_32_bit_signed_comparison() {
        // `signed char s = 100; while (s > -100) s -= 9;`, compared as an
        // `int` after promotion, and every other start and bound.
        let mut solved = 0;
        for a in [100u64, 0, 5, 127, 128, 200, 255] {
            for c in [-100i64, -1, 0, 50, 127, -128, 300, -300] {
                let c32 = (c as u64) & mask(32);
                let p = Pred {
                    pred: CmpPred::Sgt,
                    bits: 32,
                    x: V::SAff { a, s: step0(256 - 9), bits: 8, to: 32 },
                    y: konst(c32),
                };
                let at = |k: u128| {
                    let v = ((u128::from(a) + 247 * k) % 256) as u64;
                    crate::eval::sext(v, 8) as u64 & mask(32)
                };
                let v0 = eval_cmp_bits(CmpPred::Sgt, 32, at(0), c32);
                let want = (1..=300u128).find(|&k| eval_cmp_bits(CmpPred::Sgt, 32, at(k), c32) != v0);
                assert_eq!(reg_now(p.x), Some(at(0)));
                if let Ok(got) = first_change(&p) {
                    assert_eq!(got, want, "a={a} c={c}");
                    solved += 1;
                }
            }
        }
        assert_eq!(solved, 7 * 8, "a step of -9 is never too coarse for these bounds");
    }

    #[test]
    fn wrap_around_of_a_32_bit_counter_is_solved_exactly() {
        // x = 10, x += 2 while x >= 10 (unsigned): changes at the wrap.
        let p = Pred { pred: CmpPred::Uge, bits: 32, x: V::Aff { a: 10, s: step0(2), bits: 32 }, y: konst(10) };
        let k = first_change(&p).unwrap().unwrap();
        assert_eq!(k, ((1u128 << 32) - 10) / 2);
        assert!((10 + 2 * k) % (1u128 << 32) < 10);
        assert!((10 + 2 * (k - 1)) % (1u128 << 32) >= 10);
    }

    /// `x = a + st*v + sj*u` (8 bits) against `c`: the first `v >= 1` at
    /// which some `u < l0 + l1*v` changes the comparison's outcome, by
    /// enumeration (`None` if none up to 600; `Some(None)` when `v = 0`
    /// already has one: not a case [`two_d`] is asked about).
    fn brute_two_d(pred: CmpPred, a: u64, st: u64, sj: u64, c: u64, (l0, l1): Len) -> Option<Option<u128>> {
        let at = |v: i128, u: i128| ((i128::from(a) + i128::from(st) * v + i128::from(sj) * u).rem_euclid(256)) as u64;
        let want = eval_cmp_bits(pred, 8, at(0, 0), c);
        let bad = |v: i128| (0..(l0 + l1 * v).max(0)).any(|u| eval_cmp_bits(pred, 8, at(v, u), c) != want);
        if bad(0) {
            return Some(None);
        }
        (1..=600).find(|&v| bad(v)).map(|v| Some(v as u128))
    }

    #[test]
    fn two_d_is_never_late_and_mostly_exact_on_8_bits() {
        let (mut exact, mut early, mut given_up) = (0, 0, 0);
        for pred in [CmpPred::Eq, CmpPred::Ne, CmpPred::Ult, CmpPred::Uge, CmpPred::Slt, CmpPred::Sge] {
            for a in [0u64, 3, 100, 127, 200, 250] {
                for st in [0u64, 1, 2, 3, 255, 254, 9] {
                    for sj in [1u64, 255] {
                        for c in [0u64, 5, 128, 201, 255] {
                            for len in [(3i128, 1i128), (10, 0), (40, -1), (1, 2), (60, -3), (0, 1)] {
                                let Some(want) = brute_two_d(pred, a, st, sj, c, len) else {
                                    // Never within 600: must not claim a change it cannot see.
                                    let mut s = Z;
                                    s[0] = st;
                                    s[1] = sj;
                                    let p = Pred { pred, bits: 8, x: V::Aff { a, s, bits: 8 }, y: konst(c) };
                                    let Ok(Some(f)) = arc_form(&p) else { continue };
                                    if let Ok(got) = two_d(&f, 0, 1, len) {
                                        assert!(
                                            got.is_none_or(|g| g >= 1),
                                            "{pred:?} a={a} st={st} sj={sj} c={c} {len:?}"
                                        );
                                    }
                                    continue;
                                };
                                let Some(want) = want else { continue };
                                let mut s = Z;
                                s[0] = st;
                                s[1] = sj;
                                let p = Pred { pred, bits: 8, x: V::Aff { a, s, bits: 8 }, y: konst(c) };
                                let Ok(Some(f)) = arc_form(&p) else { continue };
                                match two_d(&f, 0, 1, len) {
                                    Ok(Some(got)) => {
                                        assert!(
                                            got <= want,
                                            "{pred:?} a={a} st={st} sj={sj} c={c} {len:?}: {got} after the change at {want}"
                                        );
                                        if got == want {
                                            exact += 1;
                                        } else {
                                            early += 1;
                                        }
                                    }
                                    Ok(None) => panic!(
                                        "{pred:?} a={a} st={st} sj={sj} c={c} {len:?}: missed the change at {want}"
                                    ),
                                    Err(GiveUp) => given_up += 1,
                                }
                            }
                        }
                    }
                }
            }
        }
        // Given up: steps that may jump over the rest of the circle (a step of
        // 9 against `!=`), left to plain runs.
        assert!(exact > 2 * (early + given_up), "exact {exact}, early {early}, gave up {given_up}");
    }

    #[test]
    fn weighted_sums_match_enumeration() {
        let direct = |f: &[Len], k: u128| -> u128 {
            (0..k as i128).map(|x| f.iter().map(|&(l0, l1)| l0 + l1 * x).product::<i128>() as u128).sum()
        };
        let cases: &[&[Len]] =
            &[&[], &[(3, 1)], &[(6000, -1)], &[(5, 2), (7, 0), (1, 1)], &[(4999, -1), (0, 1), (2, 3)]];
        for f in cases {
            for k in [0u128, 1, 2, 100, 4096, 4097, 5000] {
                assert_eq!(weighted_sum(f, k), direct(f, k), "{f:?} k={k}");
            }
        }
        // Past 2^128 it saturates.
        assert_eq!(weighted_sum(&[(0, 1); 5], 1 << 40), u128::MAX);
    }
}
