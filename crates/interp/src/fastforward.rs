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

use crate::code::{Edge, Prepared, XInst, NONE};
use crate::eval::{eval_bin_bits, eval_cast, eval_cmp_bits, eval_select, eval_un_bits, mask};
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
        FastForward {
            enabled: true,
            loops: Vec::new(),
            heads: Vec::new(),
        }
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

/// Whether `x` may be part of a loop that is fast-forwarded.
fn pure(x: &XInst) -> bool {
    !matches!(
        x,
        XInst::Load { .. }
            | XInst::Store { .. }
            | XInst::Alloca { .. }
            | XInst::Call { .. }
            | XInst::Nondet { .. }
            | XInst::Ret { .. }
            | XInst::Unreachable
            | XInst::Trap { .. }
    )
}

/// Whether `kind` is a call that never returns (`reach_error`, `abort`,
/// `exit`, a failed `assert`, or a defined function without a `return`):
/// a block holding one leaves every loop around it (a loop whose body
/// reaches `reach_error` under a condition may still be fast-forwarded;
/// the jump ends before the iteration that calls it).
fn never_returns(program: &walkdown_ir::Program, kind: &InstKind) -> bool {
    let InstKind::Call { callee: walkdown_ir::Callee::Direct(f), .. } = kind else {
        return false;
    };
    let Some(fd) = program.funcs.get(*f) else {
        return false;
    };
    match &fd.body {
        Some(b) => !b.blocks.iter().any(|(_, d)| matches!(d.term, walkdown_ir::Terminator::Return(_))),
        None => matches!(
            fd.name.as_str(),
            "reach_error" | "__VERIFIER_error" | "abort" | "exit" | "_Exit" | "_exit" | "__assert_fail" | "__assert"
                | "__assert_rtn" | "__assert_perror_fail"
        ),
    }
}

/// The edges a terminator takes.
fn term_edges(x: &XInst, switches: &[crate::code::SwitchTable], cases: &[(u64, u32)]) -> Vec<u32> {
    match *x {
        XInst::Jump { edge } => vec![edge],
        XInst::Branch { t, f, .. } => vec![t, f],
        XInst::Switch { table } => {
            let Some(t) = switches.get(table as usize) else {
                return Vec::new();
            };
            let start = t.cases_start as usize;
            let mut v: Vec<u32> = cases
                .get(start..start + t.cases_len as usize)
                .unwrap_or(&[])
                .iter()
                .map(|&(_, e)| e)
                .collect();
            v.push(t.default);
            v
        }
        _ => Vec::new(),
    }
}

/// Finds the side-effect-free natural loops of one function (laid out from
/// `starts`, its blocks' first program counters) and marks their back
/// edges.
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyze_function(
    program: &walkdown_ir::Program,
    body: &Body,
    starts: &[u32],
    code: &[XInst],
    edges: &mut [Edge],
    switches: &[crate::code::SwitchTable],
    cases: &[(u64, u32)],
    dm: DataModel,
    out: &mut FastForward,
) {
    let n = starts.len();
    let block_of = |pc: u32| starts.binary_search(&pc).ok();
    // Successor blocks by edge, from the executable form (what runs).
    let mut succ: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    let mut pure_block = vec![true; n];
    for (b, data) in body.blocks.iter().enumerate().map(|(i, (_, d))| (i, d)) {
        let s = starts[b] as usize;
        let end = s + data.insts.len();
        let Some(insts) = code.get(s..=end) else {
            return;
        };
        pure_block[b] = insts.iter().all(pure);
        if data.insts.iter().any(|&i| body.insts.get(i).is_some_and(|d| never_returns(program, &d.kind))) {
            // The run ends here: for the loops, an exit.
            continue;
        }
        for e in term_edges(&insts[insts.len() - 1], switches, cases) {
            if let Some(t) = edges.get(e as usize).and_then(|ed| block_of(ed.pc)) {
                succ[b].push((e, t));
            }
        }
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &(_, t) in ss {
            pred[t].push(b);
        }
    }
    // Back edges of a depth-first search from the entry (iterative: a
    // function may have thousands of blocks).
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the stack, 2 done
    let mut back: Vec<(usize, usize)> = Vec::new();
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    if n > 0 {
        state[0] = 1;
    }
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if let Some(&(_, t)) = succ[b].get(*i) {
            *i += 1;
            match state[t] {
                0 => {
                    state[t] = 1;
                    stack.push((t, 0));
                }
                1 => back.push((b, t)),
                _ => {}
            }
        } else {
            state[b] = 2;
            stack.pop();
        }
    }
    // One loop per head: the union of the natural loops of its back edges.
    let mut heads: Vec<usize> = back.iter().map(|&(_, h)| h).collect();
    heads.sort_unstable();
    heads.dedup();
    for h in heads {
        let mut inloop = vec![false; n];
        inloop[h] = true;
        let mut work: Vec<usize> = back.iter().filter(|&&(_, t)| t == h).map(|&(u, _)| u).collect();
        while let Some(b) = work.pop() {
            if !inloop[b] {
                inloop[b] = true;
                work.extend(pred[b].iter().copied());
            }
        }
        if (0..n).any(|b| inloop[b] && !pure_block[b]) || !updates_may_be_affine(body, &inloop, h) {
            continue;
        }
        let Some((_, hdata)) = body.blocks.iter().nth(h) else {
            continue;
        };
        let params = hdata
            .params
            .iter()
            .map(|&v| {
                let ty = body.values.get(v).map_or(Type::F64, |d| d.ty);
                let bits = if ty.is_int_or_ptr() { ty.bits(dm) as u8 } else { 0 };
                (v.index() as u32, bits)
            })
            .collect();
        let idx = out.loops.len() as u32;
        let mut blocks: Vec<u32> = (0..n).filter(|&b| inloop[b]).map(|b| starts[b]).collect();
        blocks.sort_unstable();
        let at = out.heads.partition_point(|&(pc, _)| pc < starts[h]);
        out.heads.insert(at, (starts[h], idx));
        out.loops.push(FfLoop {
            head: starts[h],
            params,
            blocks,
        });
        for (b, ss) in succ.iter().enumerate() {
            if !inloop[b] {
                continue;
            }
            for &(e, t) in ss {
                if t == h {
                    if let Some(ed) = edges.get_mut(e as usize) {
                        ed.ff = idx;
                    }
                }
            }
        }
    }
}


/// Whether some back edge of the loop headed by block `h` may carry each
/// head value's next value as a fixed step from it: no head value's next
/// value is computed by an operation that is not affine (`&`, `%`, a
/// shift by a varying amount, a product of two varying values) from
/// values that vary in the loop, and none adds another varying head value
/// to itself (an accumulator `sum += i` grows quadratically). Loops that
/// fail this never jump; rejecting them here spares every run the tries.
/// Must-facts: a join whose incoming values are all non-affine is.
fn updates_may_be_affine(body: &Body, inloop: &[bool], h: usize) -> bool {
    let blocks: Vec<(usize, &walkdown_ir::BlockData)> =
        body.blocks.iter().enumerate().filter(|(i, _)| inloop[*i]).map(|(i, (_, d))| (i, d)).collect();
    let Some((_, head)) = body.blocks.iter().nth(h) else {
        return false;
    };
    if head.params.len() > 64 {
        return true;
    }
    // Which head values each value depends on (bit i: head parameter i),
    // and which values are surely not affine in the iteration count.
    let mut opaque: HashSet<Value> = HashSet::new();
    let block_index: HashMap<walkdown_ir::Block, usize> =
        body.blocks.iter().enumerate().map(|(i, (b, _))| (b, i)).collect();
    // Head values every back edge passes on unchanged do not vary.
    let back_calls: Vec<&walkdown_ir::BlockCall> = blocks
        .iter()
        .flat_map(|&(_, data)| data.term.successors())
        .filter(|c| block_index.get(&c.block) == Some(&h))
        .collect();
    let mut deps: HashMap<Value, u64> = head
        .params
        .iter()
        .enumerate()
        .filter(|&(i, &p)| back_calls.iter().any(|c| c.args.get(i).is_some_and(|a| *a != Operand::Value(p))))
        .map(|(i, &p)| (p, 1u64 << i))
        .collect();
    let dep = |deps: &HashMap<Value, u64>, o: &Operand| match o {
        Operand::Value(v) => deps.get(v).copied().unwrap_or(0),
        _ => 0,
    };
    let is_opaque = |opaque: &HashSet<Value>, o: &Operand| matches!(o, Operand::Value(v) if opaque.contains(v));
    for _round in 0..=blocks.len() + 1 {
        let mut changed = false;
        // Joins: the incoming in-loop arguments of each non-head block.
        let mut incoming: HashMap<Value, (u64, bool)> = HashMap::new();
        for &(_, data) in &blocks {
            for call in data.term.successors() {
                let Some(&t) = block_index.get(&call.block) else { continue };
                if t == h || !inloop[t] {
                    continue;
                }
                let Some((_, td)) = body.blocks.iter().nth(t) else { continue };
                for (&p, a) in td.params.iter().zip(&call.args) {
                    let e = incoming.entry(p).or_insert((0, true));
                    e.0 |= dep(&deps, a);
                    e.1 &= is_opaque(&opaque, a);
                }
            }
        }
        for (p, (d, o)) in incoming {
            if deps.get(&p).copied().unwrap_or(0) | d != deps.get(&p).copied().unwrap_or(0) {
                *deps.entry(p).or_insert(0) |= d;
                changed = true;
            }
            if o && opaque.insert(p) {
                changed = true;
            }
        }
        for &(_, data) in &blocks {
            for &inst in &data.insts {
                let Some(d) = body.insts.get(inst) else { continue };
                let Some(r) = d.result else { continue };
                let mut all = 0u64;
                let mut any_opaque = false;
                d.kind.for_each_operand(|o| {
                    all |= dep(&deps, o);
                    any_opaque |= is_opaque(&opaque, o);
                });
                let (rd, ro) = match &d.kind {
                    InstKind::Bin { op, ty, lhs, rhs } => {
                        let non_affine = all != 0
                            && (!ty.is_int_or_ptr()
                                || match op {
                                    BinOp::Add | BinOp::Sub => false,
                                    BinOp::Mul => dep(&deps, lhs) != 0 && dep(&deps, rhs) != 0,
                                    BinOp::Shl => dep(&deps, rhs) != 0,
                                    _ => true,
                                });
                        (all, non_affine || any_opaque)
                    }
                    InstKind::Un { .. } => (all, all != 0 || any_opaque),
                    InstKind::Cast { from, to, .. } => {
                        (all, any_opaque || (all != 0 && !(from.is_int_or_ptr() && to.is_int_or_ptr())))
                    }
                    // A comparison's outcome is fixed between two jumps.
                    InstKind::Cmp { .. } => (0, false),
                    InstKind::Select { if_true, if_false, .. } => (
                        dep(&deps, if_true) | dep(&deps, if_false),
                        is_opaque(&opaque, if_true) && is_opaque(&opaque, if_false),
                    ),
                    _ => (all, any_opaque),
                };
                let old = deps.get(&r).copied().unwrap_or(0);
                if old | rd != old {
                    deps.insert(r, old | rd);
                    changed = true;
                }
                if ro && opaque.insert(r) {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Some back edge whose every argument may be a fixed step.
    blocks.iter().any(|&(_, data)| {
        data.term.successors().any(|call| {
            block_index.get(&call.block) == Some(&h)
                && head.params.iter().zip(&call.args).enumerate().all(|(i, (&p, a))| {
                    if *a == Operand::Value(p) {
                        return true;
                    }
                    let d = dep(&deps, a);
                    !is_opaque(&opaque, a) && !(d & (1u64 << i) != 0 && d & !(1u64 << i) != 0)
                })
        })
    })
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
            V::Aff { a, s, bits } | V::SAff { a, s, bits, .. } | V::Low { a, s, bits } => {
                Some((a, s, u32::from(bits)))
            }
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
                        if matches!(op, CastOp::Trunc)
                            && tb <= u32::from(bits)
                            && tb <= fb =>
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
                let cases = p
                    .cases
                    .get(t.cases_start as usize..(t.cases_start + t.cases_len) as usize)
                    .ok_or(GiveUp)?;
                if v.constant().is_none() {
                    if cases.len() > 64 {
                        return Err(GiveUp);
                    }
                    for &(k, _) in cases {
                        w.preds.push(Pred {
                            pred: CmpPred::Eq,
                            bits,
                            x: v,
                            y: konst(k),
                        });
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
        for &(dst, src) in p
            .moves
            .get(ed.moves_start as usize..(ed.moves_start + ed.moves_len) as usize)
            .ok_or(GiveUp)?
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

/// A set of residues modulo `2^w`: `lo, lo+1, ..., lo+len-1` (wrapping).
#[derive(Clone, Copy, Debug)]
struct Arc {
    lo: u128,
    len: u128,
}

fn modulus(w: u32) -> u128 {
    1u128 << w
}

fn contains(arc: Arc, v: u128, m: u128) -> bool {
    (v + m - arc.lo) % m < arc.len
}

/// The smallest `k >= 1` at which predicate `p` differs from its value at
/// `k = 0`; `Ok(None)` if it never does.
fn first_change(p: &Pred) -> Result<Option<u128>, GiveUp> {
    match arc_form(p)? {
        Some(f) => along(&f, 0),
        None => Ok(None),
    }
}

/// A comparison as residues: it has its outcome at the point where every
/// variable is 0 exactly where `(a + sum of s[i]*v[i]) mod m` lies in `rec`.
#[derive(Clone, Copy, Debug)]
struct ArcForm {
    a: u128,
    s: [u128; NV],
    m: u128,
    rec: Arc,
}

fn complement(x: Arc, m: u128) -> Arc {
    Arc { lo: (x.lo + x.len) % m, len: m - x.len }
}

/// The smallest `v >= 1` of variable `t` (the others 0) at which the
/// comparison changes its outcome; `Ok(None)` if it never does.
fn along(f: &ArcForm, t: usize) -> Result<Option<u128>, GiveUp> {
    let s = f.s.get(t).copied().unwrap_or(0);
    let target = complement(f.rec, f.m);
    if s == 0 || target.len == 0 {
        return Ok(None);
    }
    first_hit(f.a, s, f.m, target).ok_or(GiveUp)
}

/// `p` as an [`ArcForm`]; `Ok(None)` when it cannot change (no variable
/// in it).
fn arc_form(p: &Pred) -> Result<Option<ArcForm>, GiveUp> {
    let (mut x, mut y, mut pred) = (p.x, p.y, p.pred);
    let (Some((_, xs, xb)), Some((_, ys, yb))) = (x.low(), y.low()) else {
        return Err(GiveUp);
    };
    if xs == Z && ys == Z {
        return Ok(None);
    }
    if xs != Z && ys != Z {
        // Two varying values: equality is their difference against zero;
        // their order is not affine.
        if !matches!(pred, CmpPred::Eq | CmpPred::Ne) {
            return Err(GiveUp);
        }
        // Equal as registers iff equal modulo the narrower of the
        // comparison and the values (zero-extended registers).
        let zero = |v: V| matches!(v, V::Aff { .. });
        let w = if zero(x) && zero(y) && xb == yb && xb <= p.bits {
            xb
        } else if xb >= p.bits && yb >= p.bits && !matches!(x, V::Low { .. }) && !matches!(y, V::Low { .. }) {
            p.bits
        } else {
            return Err(GiveUp);
        };
        x = lin(x, y, w, u64::wrapping_sub, u64::wrapping_sub);
        y = konst(0);
    } else if xs == Z {
        std::mem::swap(&mut x, &mut y);
        pred = match pred {
            CmpPred::Ult => CmpPred::Ugt,
            CmpPred::Ule => CmpPred::Uge,
            CmpPred::Ugt => CmpPred::Ult,
            CmpPred::Uge => CmpPred::Ule,
            CmpPred::Slt => CmpPred::Sgt,
            CmpPred::Sle => CmpPred::Sge,
            CmpPred::Sgt => CmpPred::Slt,
            CmpPred::Sge => CmpPred::Sle,
            other => other,
        };
    }
    let Some(c) = y.constant() else {
        return Err(GiveUp);
    };
    let signed = matches!(pred, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge);
    let pb = p.bits;
    // The register as an integer is `u(k) + off`, `u(k) = (a + s*k) mod
    // 2^w`, as the comparison reads it; `cv` is the constant as it reads it.
    let sext_c = |c: u64| i128::from(crate::eval::sext(c, pb));
    let (a, s, w, off, cv): (u64, St, u32, i128, i128) = match x {
        V::Aff { a, s, bits } | V::SAff { a, s, bits, .. } if u32::from(bits) >= pb => {
            // The comparison sees the low `pb` bits only.
            if signed {
                let half = 1u64 << (pb - 1);
                (a.wrapping_add(half), s, pb, -i128::from(half), sext_c(c))
            } else {
                (a, s, pb, 0, i128::from(c & mask(pb)))
            }
        }
        V::Aff { a, s, bits } => {
            // Zero-extended and narrower: never negative.
            let b = u32::from(bits);
            (a, s, b, 0, if signed { sext_c(c) } else { i128::from(c & mask(pb)) })
        }
        V::SAff { a, s, bits, to } if signed && pb <= u32::from(to) => {
            let b = u32::from(bits);
            let half = 1u64 << (b - 1);
            (a.wrapping_add(half), s, b, -i128::from(half), sext_c(c))
        }
        _ => return Err(GiveUp),
    };
    if w == 0 {
        return Err(GiveUp);
    }
    let m = modulus(w);
    let (a, s) = (u128::from(a) % m, s.map(|x| u128::from(x) % m));
    if s == [0; NV] {
        return Ok(None);
    }
    let mi = m as i128;
    // `u op (cv - off)`, as an arc of residues.
    let t = cv - off;
    let from = |lo: i128| -> Arc {
        let lo = lo.max(0);
        if lo >= mi {
            Arc { lo: 0, len: 0 }
        } else {
            Arc { lo: lo as u128, len: (mi - lo) as u128 }
        }
    };
    let below = |n: i128| Arc { lo: 0, len: n.clamp(0, mi) as u128 };
    let holds = match pred {
        CmpPred::Eq | CmpPred::Ne => {
            let eq = if (0..mi).contains(&t) { Arc { lo: t as u128, len: 1 } } else { Arc { lo: 0, len: 0 } };
            if pred == CmpPred::Eq {
                eq
            } else if eq.len == 0 {
                Arc { lo: 0, len: m }
            } else {
                Arc { lo: (eq.lo + 1) % m, len: m - 1 }
            }
        }
        CmpPred::Ult | CmpPred::Slt => below(t),
        CmpPred::Ule | CmpPred::Sle => below(t + 1),
        CmpPred::Ugt | CmpPred::Sgt => from(t + 1),
        CmpPred::Uge | CmpPred::Sge => from(t),
        _ => return Err(GiveUp),
    };
    let rec = if contains(holds, a, m) { holds } else { complement(holds, m) };
    Ok(Some(ArcForm { a, s, m, rec }))
}

/// The smallest `k >= 1` with `(a + s*k) mod m` in `target`, for `a` not
/// in it: `Some(Some(k))`, `Some(None)` if there is none, `None` if this
/// solver cannot tell.
fn first_hit(a: u128, s: u128, m: u128, target: Arc) -> Option<Option<u128>> {
    // Steps no longer than the target cannot jump over it: the first
    // iteration past its lower end lands inside.
    let forward = |a: u128, s: u128, lo: u128| -> u128 {
        let d = (lo + m - a) % m;
        d.div_ceil(s)
    };
    if s <= target.len {
        return Some(Some(forward(a, s, target.lo)));
    }
    let back = m - s;
    if back <= target.len {
        // Stepping down: mirror v -> m-1-v.
        let a2 = m - 1 - a;
        let lo2 = (2 * m - target.lo - target.len) % m;
        return Some(Some(forward(a2, back, lo2)));
    }
    if target.len == 1 {
        // s*k = lo - a (mod 2^w): a linear congruence.
        let t = (target.lo + m - a) % m;
        let tz = s.trailing_zeros();
        if t % (1u128 << tz) != 0 {
            return Some(None);
        }
        let w = m.trailing_zeros() - tz;
        let u = (s >> tz) as u64; // odd
        // The inverse of an odd number modulo 2^64 (Newton's iteration).
        let mut inv: u64 = u;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(u.wrapping_mul(inv)));
        }
        let k = ((t >> tz) as u64).wrapping_mul(inv) as u128 % (1u128 << w);
        return Some(if k == 0 { None } else { Some(k) });
    }
    None
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

/// The whole run of inner loop `li`, entered with the values in `vals`
/// (affine in the variables of the loops around it), as the exit it leads
/// to; `vals` is left as after the exit, and what the run does is added
/// to `w`.
///
/// The run is cut into segments, stretches of iterations that take one
/// path. Each is walked with the head's values affine in a new variable
/// `u` (its iterations from its start); its length at the current point
/// (every variable 0) is the first `u` at which any comparison on it, its
/// inner loops' included, changes, and as a function of the jumped loop's
/// count `k` it is `l0 + l1*k`, read off the comparison that ends it when
/// that steps by one in `u` (`e == d`: the inner loop runs to the outer
/// counter), else constant. Nothing rests on the length being right: each
/// segment's comparisons become conditions to hold over its whole range
/// ([`Cons`]), and the jump ([`plan`]) goes only as far as all of them
/// hold. A segment of one iteration whatever `k` is walked without a
/// variable.
fn summarize(ctx: &mut Ctx<'_>, li: usize, vals: &mut Vec<(u32, V)>, w: &mut Walk) -> Result<u32, GiveUp> {
    let p = ctx.p;
    let l = p.ff.loops.get(li).ok_or(GiveUp)?;
    for _ in 0..MAX_SEGMENTS {
        let head: Vec<V> = l.params.iter().map(|&(reg, _)| value_of(ctx, vals, reg)).collect();
        let before = vals.clone();
        let mut probe = Walk::default();
        if let End::Exit(to) = walk_in(ctx, l, vals, &mut probe)? {
            absorb(w, probe, None)?;
            return Ok(to);
        }
        // Each head value's step, the same wherever the enclosing
        // variables are.
        let mut steps = Vec::with_capacity(head.len());
        for ((&(_, bits), h), n) in l.params.iter().zip(&head).zip(&probe.next) {
            if bits == 0 {
                if h != n || h.constant().is_none() {
                    return Err(GiveUp);
                }
                steps.push(0);
                continue;
            }
            let m = mask(u32::from(bits));
            let (V::Aff { a: ha, s: hs, bits: hb }, V::Aff { a: na, s: ns, bits: nb }) = (*h, *n) else {
                return Err(GiveUp);
            };
            if (hs != Z && hb < bits) || (ns != Z && nb < bits) || masked(hs, m) != masked(ns, m) {
                return Err(GiveUp);
            }
            steps.push(na.wrapping_sub(ha) & m);
        }
        if steps.iter().all(|&s| s == 0) {
            // The same state again: a loop that never ends.
            return Err(GiveUp);
        }
        // The head's values after `len` iterations (with `u`: in variable `u`).
        let at = |len: Len, u: Option<usize>| -> Vec<V> {
            l.params
                .iter()
                .zip(&head)
                .zip(&steps)
                .map(|((&(_, bits), &h), &st)| match h {
                    V::Aff { a, s, .. } if bits != 0 => {
                        let m = mask(u32::from(bits));
                        let mut s = masked(s, m);
                        s[0] = s[0].wrapping_add(st.wrapping_mul(len.1 as u64)) & m;
                        if let Some(u) = u {
                            s[u] = st;
                        }
                        V::Aff { a: a.wrapping_add(st.wrapping_mul(len.0 as u64)) & m, s, bits }
                    }
                    other => other,
                })
                .collect()
        };
        let u = ctx.depth;
        if u >= NV {
            return Err(GiveUp);
        }
        let head_u = at((0, 0), Some(u));
        *vals = before.clone();
        for (&(reg, _), &v) in l.params.iter().zip(&head_u) {
            set_val(vals, reg, v);
        }
        ctx.depth += 1;
        let mut uw = Walk::default();
        let end = walk_in(ctx, l, vals, &mut uw);
        ctx.depth -= 1;
        if !matches!(end?, End::Back) || uw.pcs != probe.pcs || !same_pcs(&uw.wpcs, &probe.wpcs) {
            return Err(GiveUp);
        }
        // The back edge carries exactly the next iteration's values.
        for ((&(_, bits), (hu, n)), &st) in l.params.iter().zip(head_u.iter().zip(&uw.next)).zip(&steps) {
            let ok = match (*hu, *n) {
                _ if bits == 0 => hu == n,
                (V::Aff { a: ha, s: hs, .. }, V::Aff { a: na, s: ns, bits: nb }) => {
                    let m = mask(u32::from(bits));
                    nb >= bits && na & m == ha.wrapping_add(st) & m && masked(ns, m) == masked(hs, m)
                }
                _ => false,
            };
            if !ok {
                return Err(GiveUp);
            }
        }
        // The segment's length here: the first change along `u`.
        let mut n0: Option<u128> = None;
        let mut by: Option<Pred> = None;
        for pr in &uw.preds {
            let Some(f) = arc_form(pr)? else { continue };
            if let Some(v) = along(&f, u)? {
                if n0.is_none_or(|b| v < b) {
                    n0 = Some(v);
                    by = Some(*pr);
                }
            }
        }
        for c in &uw.cons {
            if let Some(v) = first_violation(c, u)? {
                if n0.is_none_or(|b| v < b) {
                    n0 = Some(v);
                    by = match c {
                        Cons::Pred { p, .. } => Some(*p),
                        Cons::NonNeg(_) => None,
                    };
                }
            }
        }
        // A path no comparison leaves: the loop never ends.
        let n0 = n0.ok_or(GiveUp)?;
        let len = length(by, u, n0);
        *vals = before;
        if len == (1, 0) {
            for (&(reg, _), v) in l.params.iter().zip(at((1, 0), None)) {
                set_val(vals, reg, v);
            }
            absorb(w, probe, None)?;
        } else {
            for (&(reg, _), v) in l.params.iter().zip(at(len, None)) {
                set_val(vals, reg, v);
            }
            absorb(w, uw, Some((len, u)))?;
            w.cons.push(Cons::NonNeg(len));
        }
    }
    Err(GiveUp)
}

/// A segment's length `l0 + l1*k` given its length `n0` at `k = 0` and the
/// comparison that ends it (`by`), in variable `u`: exact while the
/// comparison steps by one in `u` and depends on no variable but `u` and
/// `k`; otherwise the constant `n0` (then the conditions stop the jump
/// where it is not).
fn length(by: Option<Pred>, u: usize, n0: u128) -> Len {
    let n = i128::try_from(n0).unwrap_or(i128::MAX);
    let constant = (n, 0);
    let Some(f) = by.and_then(|p| arc_form(&p).ok().flatten()) else {
        return constant;
    };
    if (1..NV).any(|i| i != u && f.s[i] != 0) {
        return constant;
    }
    let m = f.m;
    let s0 = if f.s[0] > m / 2 { f.s[0] as i128 - m as i128 } else { f.s[0] as i128 };
    // Stepping up, the comparison changes where the value leaves its arc
    // at the top; stepping down, at the bottom.
    let (expect, l1) = if f.s[u] == 1 {
        ((f.rec.lo + f.rec.len + m - f.a) % m, -s0)
    } else if f.s[u] == m - 1 {
        ((f.a + m - f.rec.lo) % m + 1, s0)
    } else {
        return constant;
    };
    if expect != n0 {
        return constant;
    }
    (n, l1)
}

/// Adds a walk of an inner loop's iterations to the walk it is part of:
/// once (`seg` None: an exit, or a segment of one iteration), or as a
/// segment of length `len` in variable `u`.
fn absorb(w: &mut Walk, child: Walk, seg: Option<(Len, usize)>) -> Result<(), GiveUp> {
    match seg {
        None => {
            w.pcs.extend(child.pcs);
            w.wpcs.extend(child.wpcs);
            w.preds.extend(child.preds);
            w.cons.extend(child.cons);
        }
        Some((len, u)) => {
            for pc in child.pcs {
                w.wpcs.push((pc, Weight::one().times(len)?));
            }
            for (pc, wt) in child.wpcs {
                w.wpcs.push((pc, wt.times(len)?));
            }
            for p in child.preds {
                let mut ranges = [None; NV];
                ranges[u] = Some(len);
                w.cons.push(Cons::Pred { p, ranges });
            }
            for mut c in child.cons {
                if let Cons::Pred { ranges, .. } = &mut c {
                    ranges[u] = Some(len);
                }
                w.cons.push(c);
            }
        }
    }
    for g in child.goals {
        if !w.goals.contains(&g) {
            w.goals.push(g);
        }
    }
    Ok(())
}

/// The smallest value `v >= 1` of variable `t` (the variables before it
/// 0) at which condition `c` fails somewhere in the ranges of the
/// variables after it; `Ok(None)` if it never does.
fn first_violation(c: &Cons, t: usize) -> Result<Option<u128>, GiveUp> {
    match *c {
        Cons::NonNeg((l0, l1)) => {
            if t != 0 || l1 >= 0 {
                return Ok(None);
            }
            if l0 < 0 {
                return Err(GiveUp);
            }
            Ok(Some((l0 / -l1 + 1) as u128))
        }
        Cons::Pred { p, ranges } => {
            let Some(f) = arc_form(&p)? else { return Ok(None) };
            let mut inner = (t + 1..NV).filter(|&j| f.s[j] != 0);
            match (inner.next(), inner.next()) {
                (None, _) => along(&f, t),
                (Some(j), None) => {
                    let (l0, l1) = ranges[j].ok_or(GiveUp)?;
                    // Before `t`, `k` is 0: the range is what it is there.
                    two_d(&f, t, j, (l0, if t == 0 { l1 } else { 0 }))
                }
                _ => Err(GiveUp),
            }
        }
    }
}

/// [`first_violation`] of a comparison in variable `t` and in the variable
/// `j` of a segment that ranges over `0..l0 + l1*t`.
fn two_d(f: &ArcForm, t: usize, j: usize, (l0, l1): Len) -> Result<Option<u128>, GiveUp> {
    let m = f.m;
    if f.rec.len == m {
        return Ok(None);
    }
    let (st, sj) = (f.s[t], f.s[j]);
    if st == 0 {
        // The range of `j` must stay below its first change.
        let Some(us) = along(f, j)? else { return Ok(None) };
        let us = i128::try_from(us).map_err(|_| GiveUp)?;
        if l0 > us {
            return Err(GiveUp);
        }
        return Ok((l1 > 0).then(|| ((us - l0) / l1 + 1) as u128));
    }
    // With a unit step in `j` the values a segment takes are an arc: at
    // `t = v` it starts `o(v)` into the arc of the recorded outcome (from
    // its bottom stepping up, from its top stepping down) and must end
    // inside it: `o(v) + len(v) <= |arc|`.
    let (o0, os) = if sj == 1 {
        ((f.a + m - f.rec.lo) % m, st)
    } else if sj == m - 1 {
        ((f.rec.lo + f.rec.len + 2 * m - 1 - f.a) % m, (m - st) % m)
    } else {
        return Err(GiveUp);
    };
    let os = if os > m / 2 { os as i128 - m as i128 } else { os as i128 };
    let (rl, o0) = (f.rec.len as i128, o0 as i128);
    // `o` is affine in `v` while it stays in the arc if its step cannot
    // jump over the rest of the circle.
    if o0 >= rl || os.unsigned_abs() > m - f.rec.len {
        return Err(GiveUp);
    }
    let leaves = match os.cmp(&0) {
        std::cmp::Ordering::Greater => Some((rl - o0 + os - 1) / os),
        std::cmp::Ordering::Less => Some(o0 / -os + 1),
        std::cmp::Ordering::Equal => None,
    };
    let overruns = first_both((l0, l1), (o0 + l0 - rl, os + l1));
    Ok(match (leaves, overruns) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
    .map(|v| v as u128))
}

/// The smallest `v >= 1` with `c1 + d1*v >= 1` and `c2 + d2*v >= 1`.
fn first_both((c1, d1): Len, (c2, d2): Len) -> Option<i128> {
    let range = |c: i128, d: i128| -> (i128, i128) {
        match d.cmp(&0) {
            std::cmp::Ordering::Equal => {
                if c >= 1 {
                    (1, i128::MAX)
                } else {
                    (1, 0)
                }
            }
            std::cmp::Ordering::Greater => ((1 - c).div_euclid(d) + i128::from((1 - c).rem_euclid(d) != 0), i128::MAX),
            std::cmp::Ordering::Less => (1, (c - 1).div_euclid(-d)),
        }
    };
    let (a1, b1) = range(c1, d1);
    let (a2, b2) = range(c2, d2);
    let (lo, hi) = (a1.max(a2).max(1), b1.min(b2));
    (lo <= hi).then_some(lo)
}

/// `sum over x in 0..k of the product of (l0 + l1*x)` over `f`,
/// saturating at `u128::MAX` (nested loops of 2^32 iterations each run
/// their bodies more often than that).
fn weighted_sum(f: &[Len], k: u128) -> u128 {
    let at = |x: i128| -> Option<i128> {
        f.iter().try_fold(1i128, |acc, &(l0, l1)| acc.checked_mul(l0.checked_add(l1.checked_mul(x)?)?))
    };
    if k <= 4096 {
        let mut sum: u128 = 0;
        for x in 0..k as i128 {
            match at(x) {
                Some(v) => sum = sum.saturating_add(v.max(0) as u128),
                None => return u128::MAX,
            }
        }
        return sum;
    }
    // A polynomial of degree `f.len()`: by its forward differences at 0,
    // the sum is `sum of d_i * C(k, i + 1)`.
    let exact = || -> Option<u128> {
        let mut row: Vec<i128> = (0..=f.len() as i128).map(at).collect::<Option<_>>()?;
        let mut total: i128 = 0;
        for i in 0..=f.len() {
            let d = *row.first()?;
            let mut c: u128 = 1;
            for j in 0..=i as u128 {
                c = c.checked_mul(k - j)? / (j + 1);
            }
            total = total.checked_add(d.checked_mul(i128::try_from(c).ok()?)?)?;
            row = row.windows(2).map(|w| w[1].checked_sub(w[0])).collect::<Option<_>>()?;
        }
        u128::try_from(total).ok()
    };
    exact().unwrap_or(u128::MAX)
}

/// The jump fast-forward loop number `li` can make from the head values in
/// the frame at `base` of register file `r` (laid out as the interpreter
/// lays out frames: values, a sink, then the function's constants); `None`
/// when it cannot (the run goes on plainly). Engines that execute the same
/// code (the concolic tracer) use it where the loop's values are concrete.
pub fn plan(p: &Prepared, li: usize, r: &[u64], base: usize, scratch: &mut Vec<(u32, V)>) -> Option<Jump> {
    let l = p.ff.loops.get(li)?;
    let cur: Vec<u64> = l
        .params
        .iter()
        .map(|&(reg, _)| r.get(base + reg as usize).copied())
        .collect::<Option<_>>()?;
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
                        let p = Pred {
                            pred,
                            bits: 8,
                            x: V::Aff { a, s: step0(s), bits: 8 },
                            y: konst(c),
                        };
                        let want = brute(a, s, 8, pred, c, 8);
                        match first_change(&p) {
                            Ok(got) => {
                                assert_eq!(got, want, "{pred:?} a={a} s={s} c={c}");
                                solved += 1;
                            }
                            Err(GiveUp) => given_up += 1,
                        }
                        // The swapped form.
                        let q = Pred {
                            pred,
                            bits: 8,
                            x: konst(c),
                            y: V::Aff { a, s: step0(s), bits: 8 },
                        };
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
                let p = Pred {
                    pred,
                    bits: 64,
                    x: V::Aff { a: 250, s: step0(3), bits: 8 },
                    y: konst(c),
                };
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
        let p = Pred {
            pred: CmpPred::Uge,
            bits: 32,
            x: V::Aff { a: 10, s: step0(2), bits: 32 },
            y: konst(10),
        };
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
                                        assert!(got.is_none_or(|g| g >= 1), "{pred:?} a={a} st={st} sj={sj} c={c} {len:?}");
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
                                    Ok(None) => panic!("{pred:?} a={a} st={st} sj={sj} c={c} {len:?}: missed the change at {want}"),
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
        let cases: &[&[Len]] = &[&[], &[(3, 1)], &[(6000, -1)], &[(5, 2), (7, 0), (1, 1)], &[(4999, -1), (0, 1), (2, 3)]];
        for f in cases {
            for k in [0u128, 1, 2, 100, 4096, 4097, 5000] {
                assert_eq!(weighted_sum(f, k), direct(f, k), "{f:?} k={k}");
            }
        }
        // Past 2^128 it saturates.
        assert_eq!(weighted_sum(&[(0, 1); 5], 1 << 40), u128::MAX);
    }

}
