//! The whole-program interval analysis and its results: block states, the
//! branch outcomes proved dead, and invariants at loop heads.
//!
//! Interprocedural strategy: **function summaries**, bottom-up. Every
//! defined function is first analyzed with its parameters unconstrained,
//! callees before callers (strongly connected components of the direct
//! call graph in reverse topological order), and summarized by the
//! interval of what it returns, or by "never returns" when no `ret` is
//! reachable ([`return_summaries`]). A call then yields its callee's
//! summary; calls into a recursive component, and indirect calls, return
//! top. Why summaries rather than call-site contexts: a summary computed
//! under unconstrained parameters holds for every caller, so each function
//! is analyzed a bounded number of times whatever the number of call sites
//! (the public tasks have functions with hundreds of callers), and the
//! summary is what makes helper functions that always `abort` or return a
//! clamped value useful to their callers. The price is that a callee's
//! own branches are not refined by its callers' arguments. Since memory is
//! not tracked, calls have no other effect to model.
//!
//! Then functions are analyzed again, with the summaries, on demand
//! starting from `main` and every function whose address is taken; a
//! function only called from blocks proved unreachable is never entered,
//! so all its branch outcomes are dead.

use crate::domain::Domain;
use crate::fixpoint::{solve, FixpointOptions, Solution};
use crate::interval::{norm, Interval};
use crate::state::IntervalState;
use crate::transfer::{IntervalTransfer, ReturnSummary, Summaries};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::time::{Duration, Instant};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::{BinOp, Block, Callee, FuncId, InstKind, Operand, Program, RelocTarget, Terminator};

/// Why a query on an [`Analysis`] has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbsintError {
    /// No function of the program has this name.
    UnknownFunction(String),
    /// The function has no body (it is external).
    NotDefined(String),
    /// The function has no such block.
    UnknownBlock {
        /// The function's name.
        func: String,
        /// The block's number.
        block: u32,
    },
}

impl std::fmt::Display for AbsintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AbsintError::UnknownFunction(n) => write!(f, "no function named {n}"),
            AbsintError::NotDefined(n) => write!(f, "function {n} has no body"),
            AbsintError::UnknownBlock { func, block } => write!(f, "function {func} has no block b{block}"),
        }
    }
}

impl std::error::Error for AbsintError {}

/// The result of [`analyze`].
pub struct Analysis<'p> {
    program: &'p Program,
    /// Per analyzed function, its block states. Defined functions that are
    /// absent were never reached.
    funcs: BTreeMap<FuncId, Solution<IntervalState>>,
    /// What each summarized function returns.
    pub summaries: Summaries,
    /// Wall-clock time of the analysis.
    pub elapsed: Duration,
    /// Whether it assumed that no `add`, `sub` or `mul` overflows.
    no_signed_overflow: bool,
    /// Whether it ran to its end (not cut by [`FixpointOptions::deadline`]).
    pub complete: bool,
}

/// The functions an analysis starts from: `main` and every function whose
/// address is taken, or every defined function when there is no `main`.
pub(crate) fn roots(program: &Program) -> BTreeSet<FuncId> {
    let mut roots: BTreeSet<FuncId> = BTreeSet::new();
    match program.entry() {
        Some(m) => {
            roots.insert(m);
            for (_, f) in program.funcs.iter() {
                let Some(body) = &f.body else { continue };
                for inst in body.insts.values() {
                    // A direct callee is not "address taken".
                    let mut note = |op: &Operand| {
                        if let Operand::Func(t) = op {
                            roots.insert(*t);
                        }
                    };
                    match &inst.kind {
                        InstKind::Call { callee, args, .. } => {
                            if let Callee::Indirect(p) = callee {
                                note(p);
                            }
                            args.iter().for_each(&mut note);
                        }
                        k => k.for_each_operand(note),
                    }
                }
                for data in body.blocks.values() {
                    for c in data.term.successors() {
                        c.args.iter().for_each(|op| {
                            if let Operand::Func(t) = op {
                                roots.insert(*t);
                            }
                        });
                    }
                    if let Terminator::Return(Some(Operand::Func(t))) = &data.term {
                        roots.insert(*t);
                    }
                }
            }
            for g in program.globals.values() {
                for r in &g.relocs {
                    if let RelocTarget::Func(t) = r.target {
                        roots.insert(t);
                    }
                }
            }
        }
        None => roots.extend(program.funcs.iter().filter(|(_, f)| f.body.is_some()).map(|(id, _)| id)),
    }
    roots
}

/// Analyzes every function reachable from `main` (or every defined function
/// when there is no `main`).
pub fn analyze(program: &Program) -> Analysis<'_> {
    analyze_with(program, FixpointOptions::default())
}

/// [`analyze`] with explicit iteration settings.
pub fn analyze_with(program: &Program, opts: FixpointOptions) -> Analysis<'_> {
    let start = Instant::now();
    let (summaries, mut solved) = summarize(program, opts);
    let roots = roots(program);
    let mut funcs = BTreeMap::new();
    let mut work: Vec<FuncId> = roots.into_iter().rev().collect();
    while let Some(f) = work.pop() {
        if funcs.contains_key(&f) {
            continue;
        }
        if opts.over() {
            break;
        }
        let Some(body) = program.funcs.get(f).and_then(|d| d.body.as_ref()) else { continue };
        let t = IntervalTransfer::new(program, body)
            .with_summaries(&summaries)
            .assuming_no_signed_overflow(opts.no_signed_overflow);
        // Functions summarized were solved with every callee's summary
        // already: the same solution.
        let sol = solved.remove(&f).unwrap_or_else(|| solve(body, &t, opts));
        for c in reached_callees(body, &t, |b| sol.entry[b].clone()) {
            if !funcs.contains_key(&c) {
                work.push(c);
            }
        }
        funcs.insert(f, sol);
    }
    // A cut solve implies the deadline passed, and time only goes on.
    let complete = !opts.over();
    Analysis {
        program,
        funcs,
        summaries,
        elapsed: start.elapsed(),
        complete,
        no_signed_overflow: opts.no_signed_overflow,
    }
}

/// The return summaries of every defined function outside a recursive
/// component (see the module documentation).
pub fn return_summaries(program: &Program, opts: FixpointOptions) -> Summaries {
    summarize(program, opts).0
}

/// The return summaries, and the solutions they were read from.
fn summarize(program: &Program, opts: FixpointOptions) -> (Summaries, BTreeMap<FuncId, Solution<IntervalState>>) {
    let mut summaries = Summaries::new();
    let mut solutions = BTreeMap::new();
    for scc in call_graph_sccs(program) {
        let &[f] = scc.as_slice() else { continue };
        let Some(body) = program.funcs.get(f).and_then(|d| d.body.as_ref()) else { continue };
        if direct_callees(body).contains(&f) {
            continue;
        }
        let t = IntervalTransfer::new(program, body)
            .with_summaries(&summaries)
            .assuming_no_signed_overflow(opts.no_signed_overflow);
        let sol = solve(body, &t, opts);
        let mut ret: Option<Interval> = None;
        for (b, data) in body.blocks.iter() {
            let Terminator::Return(val) = &data.term else { continue };
            let out = &sol.out[b];
            if out.is_bottom() {
                continue;
            }
            let iv = match val {
                Some(op) => t.operand(out, op),
                None => Interval::TOP,
            };
            ret = Some(ret.map_or(iv, |r| r.join(&iv)));
        }
        summaries.insert(f, ret.map_or(ReturnSummary::Never, ReturnSummary::Returns));
        solutions.insert(f, sol);
    }
    (summaries, solutions)
}

fn direct_callees(body: &walkdown_ir::Body) -> BTreeSet<FuncId> {
    body.insts
        .values()
        .filter_map(|i| match &i.kind {
            InstKind::Call { callee: Callee::Direct(c), .. } => Some(*c),
            _ => None,
        })
        .collect()
}

/// Strongly connected components of the direct call graph over defined
/// functions, callees before callers (Tarjan's order).
fn call_graph_sccs(program: &Program) -> Vec<Vec<FuncId>> {
    let ids: Vec<FuncId> = program.funcs.iter().filter(|(_, f)| f.body.is_some()).map(|(id, _)| id).collect();
    let succ: BTreeMap<FuncId, Vec<FuncId>> = ids
        .iter()
        .map(|&f| {
            let body = program.funcs[f].body.as_ref().expect("defined");
            (
                f,
                direct_callees(body)
                    .into_iter()
                    .filter(|c| program.funcs.get(*c).is_some_and(|d| d.body.is_some()))
                    .collect(),
            )
        })
        .collect();
    // Iterative Tarjan (call chains can be deep).
    let mut index: BTreeMap<FuncId, (u32, u32)> = BTreeMap::new();
    let mut on_stack: BTreeSet<FuncId> = BTreeSet::new();
    let mut stack: Vec<FuncId> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0u32;
    for &root in &ids {
        if index.contains_key(&root) {
            continue;
        }
        let mut frames: Vec<(FuncId, usize)> = vec![(root, 0)];
        index.insert(root, (next, next));
        next += 1;
        stack.push(root);
        on_stack.insert(root);
        while let Some(&mut (v, ref mut i)) = frames.last_mut() {
            let children = &succ[&v];
            if *i < children.len() {
                let w = children[*i];
                *i += 1;
                if let std::collections::btree_map::Entry::Vacant(e) = index.entry(w) {
                    e.insert((next, next));
                    next += 1;
                    stack.push(w);
                    on_stack.insert(w);
                    frames.push((w, 0));
                } else if on_stack.contains(&w) {
                    let wi = index[&w].0;
                    let e = index.get_mut(&v).expect("indexed");
                    e.1 = e.1.min(wi);
                }
                continue;
            }
            frames.pop();
            let (vi, vl) = index[&v];
            if let Some(&(p, _)) = frames.last() {
                let e = index.get_mut(&p).expect("indexed");
                e.1 = e.1.min(vl);
            }
            if vi == vl {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack.remove(&w);
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(scc);
            }
        }
    }
    out
}

/// The functions `body` calls directly from code its solution reaches. The
/// block is replayed from its entry state (`entry`), so a call after one
/// that never returns (such as `reach_error`) is not counted.
pub(crate) fn reached_callees(
    body: &walkdown_ir::Body,
    t: &IntervalTransfer<'_>,
    entry: impl Fn(Block) -> IntervalState,
) -> Vec<FuncId> {
    let mut out = Vec::new();
    for (b, data) in body.blocks.iter() {
        let mut st = entry(b);
        for &i in &data.insts {
            if st.is_bottom() {
                break;
            }
            let Some(inst) = body.insts.get(i) else { continue };
            if let InstKind::Call { callee: Callee::Direct(c), .. } = &inst.kind {
                out.push(*c);
            }
            t.inst(&mut st, &inst.kind, inst.result);
        }
    }
    out
}

/// Why [`Analysis::safe_error_sites`] calls a site safe.
const SITE_NEVER_RUNS: &str = "interval analysis: the site's block is unreachable";
const SITE_CHECK_HOLDS: &str = "interval analysis: the checked condition always holds";
const SITE_IN_BOUNDS: &str = "interval analysis: the access stays inside its global object";
const SITE_IN_SLOT: &str = "interval analysis: the access stays inside its stack slot";
const SITE_CALL_IN_BOUNDS: &str =
    "interval analysis: every byte the call touches stays inside its global or stack slot";

/// An object an address points into: a global (never freed), or a stack
/// slot of constant size of the function being analysed (alive while the
/// function runs, and an address computed from the slot's own value is
/// used only then).
#[derive(Clone, Copy)]
enum Object {
    Global(walkdown_ir::GlobalId),
    Slot(u64),
}

impl Object {
    fn size(self, program: &Program) -> u64 {
        match self {
            Object::Global(g) => program.globals[g].size,
            Object::Slot(size) => size,
        }
    }

    fn reason(self) -> &'static str {
        match self {
            Object::Global(_) => SITE_IN_BOUNDS,
            Object::Slot(_) => SITE_IN_SLOT,
        }
    }
}

/// The object an address points into and the interval of its offset, when
/// the address is a global or a constant-size stack slot plus a chain of
/// `ptradd`s (at most 8 deep).
fn object_offset(
    body: &walkdown_ir::Body,
    t: &IntervalTransfer<'_>,
    s: &IntervalState,
    ptr: &Operand,
    depth: u32,
) -> Option<(Object, Interval)> {
    match ptr {
        Operand::Global(g) => Some((Object::Global(*g), Interval::constant(0))),
        Operand::Value(v) if depth < 8 => match body.values[*v].def {
            walkdown_ir::ValueDef::Inst(i) => match &body.insts[i].kind {
                InstKind::PtrAdd { base, offset } => {
                    let (o, before) = object_offset(body, t, s, base, depth + 1)?;
                    let off = t.operand(s, offset);
                    if off.is_bottom() || off.lo == i128::MIN || off.hi == i128::MAX {
                        return None;
                    }
                    Some((o, Interval::new(before.lo.checked_add(off.lo)?, before.hi.checked_add(off.hi)?)))
                }
                InstKind::Alloca { size: Operand::Const(c), .. } => Some((Object::Slot(c.bits), Interval::constant(0))),
                _ => None,
            },
            walkdown_ir::ValueDef::Param(..) => None,
        },
        _ => None,
    }
}

/// Whether `len` bytes (an interval) at `ptr` stay inside one object; the
/// object when they do.
fn span_in_bounds(
    program: &Program,
    body: &walkdown_ir::Body,
    t: &IntervalTransfer<'_>,
    s: &IntervalState,
    ptr: &Operand,
    len: Interval,
) -> Option<Object> {
    if len.is_bottom() || len.lo < 0 || len.hi == i128::MAX {
        return None;
    }
    let (o, off) = object_offset(body, t, s, ptr, 0)?;
    (off.lo >= 0 && off.hi.checked_add(len.hi)? <= i128::from(o.size(program))).then_some(o)
}

impl<'p> Analysis<'p> {
    /// The analysed program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Whether `func` was analyzed (it is defined and may run).
    pub fn is_reached(&self, func: FuncId) -> bool {
        self.funcs.contains_key(&func)
    }

    /// The state on entry to `block` of `func` (its parameters bound);
    /// bottom when the block is unreachable or the function never runs.
    pub fn entry_state(&self, func: FuncId, block: Block) -> IntervalState {
        self.funcs.get(&func).map(|s| s.entry[block].clone()).unwrap_or_else(IntervalState::bottom)
    }

    /// The states on the edges into `block` when it only branches on a
    /// parameter (see [`crate::fixpoint::edge_states_into`]).
    pub fn edge_states_into(&self, func: FuncId, block: Block) -> Option<Vec<IntervalState>> {
        let sol = self.funcs.get(&func)?;
        let body = self.program.funcs.get(func)?.body.as_ref()?;
        let t = IntervalTransfer::new(self.program, body)
            .with_summaries(&self.summaries)
            .assuming_no_signed_overflow(self.no_signed_overflow);
        crate::fixpoint::edge_states_into(body, &t, sol, block)
    }

    /// The interval of value `v` on entry to `block` of `func`, clamped to
    /// its type (top for floats and pointers).
    pub fn interval_at(&self, func: FuncId, block: Block, v: walkdown_ir::Value) -> Interval {
        let s = self.entry_state(func, block);
        let Some(body) = self.program.funcs.get(func).and_then(|f| f.body.as_ref()) else { return Interval::BOTTOM };
        match body.values.get(v) {
            Some(d) if d.ty.is_int() => norm(s.get(v), d.ty.bits(self.program.data_model)),
            Some(_) if !s.is_bottom() => Interval::TOP,
            _ => Interval::BOTTOM,
        }
    }

    /// Looks a block up by function name and block number.
    pub fn lookup(&self, func: &str, block: u32) -> Result<(FuncId, Block), AbsintError> {
        let f = self.program.func_by_name(func).ok_or_else(|| AbsintError::UnknownFunction(func.to_string()))?;
        let body = self.program.funcs[f].body.as_ref().ok_or_else(|| AbsintError::NotDefined(func.to_string()))?;
        let b = Block::from_u32(block);
        if !body.blocks.is_valid(b) {
            return Err(AbsintError::UnknownBlock { func: func.to_string(), block });
        }
        Ok((f, b))
    }

    /// Under [`FixpointOptions::no_signed_overflow`], the `add`, `sub` and
    /// `mul` instructions where the assumption cut something: the states
    /// reaching them allow an overflow. Its proofs hold for every execution
    /// that does not overflow at these sites. Empty otherwise. Sorted.
    pub fn no_overflow_sites(&self) -> Vec<(FuncId, walkdown_ir::Inst)> {
        let mut out = Vec::new();
        if !self.no_signed_overflow {
            return out;
        }
        for (fid, f) in self.program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            let Some(solution) = self.funcs.get(&fid) else { continue };
            let t = IntervalTransfer::new(self.program, body)
                .with_summaries(&self.summaries)
                .assuming_no_signed_overflow(true);
            for (bid, b) in body.blocks.iter() {
                let mut state = solution.entry[bid].clone();
                for &inst in &b.insts {
                    if state.is_bottom() {
                        break;
                    }
                    let data = &body.insts[inst];
                    if let InstKind::Bin { op: op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), ty, lhs, rhs } = &data.kind
                    {
                        if ty.is_int() && *ty != walkdown_ir::Type::I1 {
                            let w = ty.bits(self.program.data_model);
                            let (_, cut) = crate::interval::binop_no_signed_overflow(
                                *op,
                                t.operand(&state, lhs),
                                t.operand(&state, rhs),
                                w,
                            );
                            if cut {
                                out.push((fid, inst));
                            }
                        }
                    }
                    t.inst(&mut state, &data.kind, data.result);
                }
            }
        }
        out.sort();
        out
    }

    /// Branch and switch outcomes that no execution takes: the guard
    /// contradicts the state at the block, or the block (or its whole
    /// function) is unreachable. Sorted.
    pub fn dead_edges(&self) -> Vec<(FuncId, Block, u32)> {
        let mut out = Vec::new();
        let mut edges = Vec::new();
        for (fid, f) in self.program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            let t = IntervalTransfer::new(self.program, body)
                .with_summaries(&self.summaries)
                .assuming_no_signed_overflow(self.no_signed_overflow);
            edges.clear();
            crate::fixpoint::dead_edges_of(body, &t, self.funcs.get(&fid), &mut edges);
            out.extend(edges.iter().map(|&(b, succ)| (fid, b, succ)));
        }
        out
    }

    /// The goals of [`Analysis::dead_edges`] (outcomes without a goal, such
    /// as compiler-made branches without a source line, are left out).
    pub fn dead_goals(&self, goals: &Goals) -> Vec<GoalId> {
        let mut v: Vec<GoalId> = self.dead_edges().into_iter().filter_map(|(f, b, s)| goals.edge(f, b, s)).collect();
        v.sort();
        v
    }

    /// Error sites no execution fails at, with the reason in words: every
    /// site of a function that never runs or of a block no execution
    /// reaches; a `check` whose condition's interval is `[1, 1]`; a load,
    /// store, `memcpy`, `memmove` or `memset` whose addresses are globals
    /// or constant-size stack slots of the function plus offsets whose
    /// intervals keep every byte inside the object (globals are never
    /// freed; a slot lives while its function runs). Sorted.
    pub fn safe_error_sites(&self, goals: &Goals) -> Vec<(GoalId, &'static str)> {
        let dm = self.program.data_model;
        let mut out = Vec::new();
        for (fid, f) in self.program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            let Some(solution) = self.funcs.get(&fid) else {
                for (_, b) in body.blocks.iter() {
                    out.extend(b.insts.iter().filter_map(|&i| goals.error_site(fid, i)).map(|g| (g, SITE_NEVER_RUNS)));
                }
                continue;
            };
            let t = IntervalTransfer::new(self.program, body)
                .with_summaries(&self.summaries)
                .assuming_no_signed_overflow(self.no_signed_overflow);
            for (bid, b) in body.blocks.iter() {
                let mut state = solution.entry[bid].clone();
                if state.is_bottom() {
                    out.extend(b.insts.iter().filter_map(|&i| goals.error_site(fid, i)).map(|g| (g, SITE_NEVER_RUNS)));
                    continue;
                }
                for &inst in &b.insts {
                    let data = &body.insts[inst];
                    if let Some(g) = goals.error_site(fid, inst) {
                        let safe = match &data.kind {
                            InstKind::Check { cond, .. } => {
                                (t.operand(&state, cond) == Interval::constant(1)).then_some(SITE_CHECK_HOLDS)
                            }
                            InstKind::Load { ty, ptr } | InstKind::Store { ty, ptr, .. } => {
                                let width = Interval::constant(i128::from(ty.store_size(dm)));
                                span_in_bounds(self.program, body, &t, &state, ptr, width).map(Object::reason)
                            }
                            // `memcpy`, `memmove` and `memset` of a length
                            // whose interval keeps every byte inside the
                            // objects (the initializer of a local array).
                            InstKind::Call { callee: walkdown_ir::Callee::Direct(callee), args, .. } => {
                                use walkdown_ir::Builtin::{Memcpy, Memmove, Memset};
                                let spans: &[usize] = match self.program.funcs[*callee].builtin {
                                    Some(Memcpy | Memmove) => &[0, 1],
                                    Some(Memset) => &[0],
                                    _ => &[],
                                };
                                match (spans, args.get(2)) {
                                    ([], _) | (_, None) => None,
                                    (spans, Some(n)) => {
                                        let len = t.operand(&state, n);
                                        spans
                                            .iter()
                                            .all(|&k| {
                                                span_in_bounds(self.program, body, &t, &state, &args[k], len).is_some()
                                            })
                                            .then_some(SITE_CALL_IN_BOUNDS)
                                    }
                                }
                            }
                            _ => None,
                        };
                        if let Some(why) = safe {
                            out.push((g, why));
                        }
                    }
                    t.inst(&mut state, &data.kind, data.result);
                    if state.is_bottom() {
                        break;
                    }
                }
            }
        }
        out.sort_by_key(|(g, _)| *g);
        out
    }

    /// The loop heads of `func` (heads of the weak topological order's
    /// components), outermost first.
    pub fn loop_heads(&self, func: FuncId) -> Vec<Block> {
        self.funcs.get(&func).map(|s| crate::fixpoint::component_heads(&s.wto)).unwrap_or_default()
    }

    /// A report of the invariants at every loop head (the intervals of the
    /// head's parameters and of other constrained values, named as in the
    /// textual IR, with the source location) and of the dead branch
    /// outcomes.
    pub fn report(&self) -> String {
        let p = self.program;
        let dm = p.data_model;
        let mut s = String::new();
        for (fid, sol) in &self.funcs {
            let f = &p.funcs[*fid];
            let Some(body) = &f.body else { continue };
            if walkdown_ir::goals::is_foreign_code(f) {
                continue; // walkdown's own code, not the program's
            }
            for h in self.loop_heads(*fid) {
                let data = &body.blocks[h];
                let loc = data.insts.first().map(|i| body.insts[*i].loc).unwrap_or(data.term_loc);
                let _ = write!(s, "loop head @{} {} ({})", f.name, h, p.describe_loc(loc));
                let st = &sol.entry[h];
                if st.is_bottom() {
                    let _ = writeln!(s, ": unreachable");
                    continue;
                }
                let _ = writeln!(s, ":");
                for &v in &data.params {
                    let ty = body.values[v].ty;
                    if ty.is_int() {
                        let _ = writeln!(s, "  {v}: {ty} in {}", norm(st.get(v), ty.bits(dm)));
                    } else {
                        let _ = writeln!(s, "  {v}: {ty} unconstrained");
                    }
                }
                for (v, iv) in st.constrained() {
                    if data.params.contains(&v) {
                        continue;
                    }
                    if let Some(d) = body.values.get(v) {
                        if d.ty.is_int() {
                            let _ = writeln!(s, "  {v}: {} in {}", d.ty, norm(iv, d.ty.bits(dm)));
                        }
                    }
                }
            }
        }
        for (fid, b, succ) in self.dead_edges() {
            let f = &p.funcs[fid];
            let Some(body) = &f.body else { continue };
            if walkdown_ir::goals::is_foreign_code(f) {
                continue;
            }
            let data = &body.blocks[b];
            let label = match (&data.term, succ) {
                (Terminator::Branch { .. }, 0) => "true".to_string(),
                (Terminator::Branch { .. }, _) => "false".to_string(),
                (Terminator::Switch { cases, .. }, k) if (k as usize) < cases.len() => format!("case #{k}"),
                _ => "default".to_string(),
            };
            let _ = writeln!(s, "dead @{} {} {} ({})", f.name, b, label, p.describe_loc(data.term_loc));
        }
        s
    }
}
