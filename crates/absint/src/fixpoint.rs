//! The fixpoint engine: Bourdoncle's weak topological order of a function's
//! blocks and the recursive iteration strategy over it, with widening at
//! component heads and then narrowing passes.
//!
//! The engine is generic over a [`Transfer`] (what a block and an edge do
//! to a state of some [`Domain`]), so every domain reuses it. Results are
//! side tables keyed by [`Block`] ids.
//!
//! **Branches on a joined condition.** `while (a && b)` compiles to a block
//! per operand, each passing `true` or `false` to a block that only
//! branches on that parameter. The state at that block is the join of its
//! incoming edges, which forgets which guard held with which value, so its
//! branch could not refine `a`'s and `b`'s operands (SV-COMP's
//! `SpamAssassin-loop`: `j < limit` was lost, `j` widened past the top and
//! wrapped). The edges out of such a block ([`param_branches`]) are taken
//! from each edge into it separately (`edge_state`); that is the same
//! states joined in another order, so only as precise or more. Loop heads
//! are left out, since the iteration widens there.

use std::collections::HashSet;

use crate::domain::Domain;
use walkdown_ir::entity::SecondaryMap;
use walkdown_ir::{Block, Body};

/// What blocks and edges do to abstract states.
pub trait Transfer {
    /// The abstract state.
    type State: Domain;
    /// The state on entry to the function.
    fn initial(&self) -> Self::State;
    /// The state after `block`'s instructions, from its entry state.
    fn block(&self, block: Block, entry: &Self::State) -> Self::State;
    /// The entry state contribution of successor number `succ` of
    /// `block`'s terminator (branch: 0 true, 1 false; switch: cases, then
    /// default), from the block's state after its instructions: the guard
    /// assumed and the arguments bound to the target's parameters.
    fn edge(&self, block: Block, out: &Self::State, succ: u32) -> Self::State;
}

/// An element of a weak topological order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WtoElem {
    /// A block outside any cycle of its level.
    Vertex(Block),
    /// A strongly connected component: its head and the rest, in order.
    Component(Block, Vec<WtoElem>),
}

/// The control-flow graph of a body: successors with their numbers, and
/// predecessors.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Per block, `(target, succ)` in terminator order.
    pub succs: SecondaryMap<Block, Vec<(Block, u32)>>,
    /// Per block, `(source, succ)`.
    pub preds: SecondaryMap<Block, Vec<(Block, u32)>>,
}

impl Cfg {
    /// The CFG of `body`.
    pub fn new(body: &Body) -> Cfg {
        let mut succs = SecondaryMap::new();
        let mut preds: SecondaryMap<Block, Vec<(Block, u32)>> = SecondaryMap::new();
        for (b, data) in body.blocks.iter() {
            let s: Vec<(Block, u32)> = data.term.successors().enumerate().map(|(i, c)| (c.block, i as u32)).collect();
            for &(t, i) in &s {
                if body.blocks.is_valid(t) {
                    preds.entry(t).push((b, i));
                }
            }
            succs.set(b, s.into_iter().filter(|(t, _)| body.blocks.is_valid(*t)).collect());
        }
        Cfg { succs, preds }
    }
}

/// Bourdoncle's weak topological order of the blocks reachable from the
/// entry (hierarchical decomposition into nested strongly connected
/// components, heads first).
pub fn wto(body: &Body, cfg: &Cfg) -> Vec<WtoElem> {
    if body.blocks.is_empty() {
        return Vec::new();
    }
    let mut w = WtoBuilder { cfg, dfn: vec![0; body.blocks.len()], stack: Vec::new(), num: 0 };
    let mut part = Vec::new();
    w.visit(Body::ENTRY, &mut part);
    part.reverse();
    part
}

struct WtoBuilder<'a> {
    cfg: &'a Cfg,
    dfn: Vec<u32>,
    stack: Vec<Block>,
    num: u32,
}

impl WtoBuilder<'_> {
    // Recursion depth is bounded by the longest acyclic path of the CFG.
    fn visit(&mut self, v: Block, part: &mut Vec<WtoElem>) -> u32 {
        self.stack.push(v);
        self.num += 1;
        self.dfn[v.index()] = self.num;
        let mut head = self.num;
        let mut is_loop = false;
        let succs: Vec<Block> = self.cfg.succs[v].iter().map(|(t, _)| *t).collect();
        for w in succs {
            let min = if self.dfn[w.index()] == 0 { self.visit(w, part) } else { self.dfn[w.index()] };
            if min <= head {
                head = min;
                is_loop = true;
            }
        }
        if head == self.dfn[v.index()] {
            self.dfn[v.index()] = u32::MAX;
            let mut e = self.stack.pop().unwrap_or(v);
            if is_loop {
                while e != v {
                    self.dfn[e.index()] = 0;
                    e = self.stack.pop().unwrap_or(v);
                }
                let c = self.component(v);
                part.push(c);
            } else {
                part.push(WtoElem::Vertex(v));
            }
        }
        head
    }

    fn component(&mut self, v: Block) -> WtoElem {
        let mut part = Vec::new();
        let succs: Vec<Block> = self.cfg.succs[v].iter().map(|(t, _)| *t).collect();
        for w in succs {
            if self.dfn[w.index()] == 0 {
                self.visit(w, &mut part);
            }
        }
        part.reverse();
        WtoElem::Component(v, part)
    }
}

use walkdown_ir::entity::EntityRef;

/// Settings of the iteration.
#[derive(Clone, Copy, Debug)]
pub struct FixpointOptions {
    /// Iterations of a component that join before widening starts.
    pub widen_delay: u32,
    /// Descending (narrowing) passes after the ascending fixpoint.
    pub narrow_passes: u32,
    /// Assume that no integer `add`, `sub` or `mul` overflows the signed
    /// range of its type (executions where one does are cut there).
    /// Unsound on its own: its proofs hold under the assumption at each
    /// site [`crate::Analysis::no_overflow_sites`] lists, which is how the
    /// verification annotations use them. Default false.
    pub no_signed_overflow: bool,
    /// When to give up: past it, [`solve`] returns at once with a partial
    /// solution, which proves nothing (the analyses then say they are not
    /// complete). Default none. The relational domain's cost grows with the
    /// square of the inputs a function reads, so a long straight-line
    /// program could otherwise take minutes of a seconds budget.
    pub deadline: Option<std::time::Instant>,
}

impl Default for FixpointOptions {
    fn default() -> Self {
        FixpointOptions { widen_delay: 2, narrow_passes: 2, no_signed_overflow: false, deadline: None }
    }
}

impl FixpointOptions {
    /// Whether the deadline has passed.
    pub fn over(&self) -> bool {
        self.deadline.is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// States at the entry of and after every block.
#[derive(Clone, Debug)]
pub struct Solution<S: Domain> {
    /// State on entry (block parameters bound); bottom when unreachable.
    pub entry: SecondaryMap<Block, S>,
    /// State after the block's instructions.
    pub out: SecondaryMap<Block, S>,
    /// The weak topological order used.
    pub wto: Vec<WtoElem>,
    /// The blocks whose outgoing edges are taken edge by edge (see
    /// [`param_branches`]).
    pub joined: HashSet<Block>,
}

struct Engine<'a, T: Transfer> {
    t: &'a T,
    cfg: &'a Cfg,
    sol: Solution<T::State>,
    opts: FixpointOptions,
}

/// The blocks that only branch on one of their own parameters and are not
/// the entry or a loop head (see the module doc).
fn param_branches(body: &Body, order: &[WtoElem]) -> HashSet<Block> {
    let loop_heads: HashSet<Block> = component_heads(order).into_iter().collect();
    body.blocks
        .iter()
        .filter(|(b, data)| {
            *b != Body::ENTRY
                && data.insts.is_empty()
                && !loop_heads.contains(b)
                && matches!(&data.term, walkdown_ir::Terminator::Branch { cond: walkdown_ir::Operand::Value(v), .. }
                    if data.params.contains(v))
        })
        .map(|(b, _)| b)
        .collect()
}

/// The heads of the components of a weak topological order, outermost
/// first: the loop heads.
pub fn component_heads(order: &[WtoElem]) -> Vec<Block> {
    fn walk(els: &[WtoElem], out: &mut Vec<Block>) {
        for e in els {
            if let WtoElem::Component(h, body) = e {
                out.push(*h);
                walk(body, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(order, &mut out);
    out
}

/// The state on edge `succ` out of `p` from the states after the blocks
/// `out`: for a block of `joined`, from each edge into it separately.
fn edge_state<T: Transfer>(
    t: &T,
    cfg: &Cfg,
    joined: &HashSet<Block>,
    out: &SecondaryMap<Block, T::State>,
    p: Block,
    succ: u32,
) -> T::State {
    if !joined.contains(&p) {
        return t.edge(p, &out[p], succ);
    }
    let mut s = T::State::bottom();
    for &(q, j) in &cfg.preds[p] {
        if out[q].is_bottom() {
            continue;
        }
        let into = t.edge(q, &out[q], j);
        if !into.is_bottom() {
            s = s.join(&t.edge(p, &t.block(p, &into), succ));
        }
    }
    s
}

/// Computes the states of every block of `body`.
pub fn solve<T: Transfer>(body: &Body, t: &T, opts: FixpointOptions) -> Solution<T::State> {
    let cfg = Cfg::new(body);
    let order = wto(body, &cfg);
    let sol = Solution {
        entry: SecondaryMap::with_default(T::State::bottom()),
        out: SecondaryMap::with_default(T::State::bottom()),
        wto: Vec::new(),
        joined: param_branches(body, &order),
    };
    let mut e = Engine { t, cfg: &cfg, sol, opts };
    for el in &order {
        if opts.over() {
            break;
        }
        e.ascend(el);
    }
    for _ in 0..opts.narrow_passes {
        for el in &order {
            if opts.over() {
                break;
            }
            e.descend(el);
        }
    }
    e.sol.wto = order;
    e.sol
}

impl<T: Transfer> Engine<'_, T> {
    fn incoming(&self, b: Block) -> T::State {
        let mut s = if b == Body::ENTRY { self.t.initial() } else { T::State::bottom() };
        for &(p, i) in &self.cfg.preds[b] {
            let out = &self.sol.out[p];
            if out.is_bottom() {
                continue;
            }
            s = s.join(&edge_state(self.t, self.cfg, &self.sol.joined, &self.sol.out, p, i));
        }
        s
    }

    fn update(&mut self, b: Block, entry: T::State) {
        let out = if entry.is_bottom() { T::State::bottom() } else { self.t.block(b, &entry) };
        self.sol.entry.set(b, entry);
        self.sol.out.set(b, out);
    }

    fn ascend(&mut self, el: &WtoElem) {
        match el {
            WtoElem::Vertex(b) => {
                let s = self.incoming(*b);
                self.update(*b, s);
            }
            WtoElem::Component(h, body) => {
                let s = self.incoming(*h);
                self.update(*h, s);
                let mut iter = 0u32;
                loop {
                    if self.opts.over() {
                        return;
                    }
                    for e in body {
                        self.ascend(e);
                    }
                    let inc = self.incoming(*h);
                    let old = self.sol.entry[*h].clone();
                    if inc.leq(&old) {
                        break;
                    }
                    let new = if iter < self.opts.widen_delay { old.join(&inc) } else { old.widen(&inc) };
                    self.update(*h, new);
                    iter += 1;
                }
            }
        }
    }

    fn descend(&mut self, el: &WtoElem) {
        match el {
            WtoElem::Vertex(b) => {
                let s = self.incoming(*b);
                self.update(*b, s);
            }
            WtoElem::Component(h, body) => {
                let inc = self.incoming(*h);
                let new = self.sol.entry[*h].narrow(&inc);
                self.update(*h, new);
                for e in body {
                    self.descend(e);
                }
            }
        }
    }
}

/// The states on the edges into `b` that some execution may take, one per
/// edge in predecessor order, when `b` is a block of [`param_branches`]
/// (its entry state is their join, which loses what the successors keep);
/// `None` for any other block.
pub fn edge_states_into<T: Transfer>(body: &Body, t: &T, sol: &Solution<T::State>, b: Block) -> Option<Vec<T::State>> {
    if !sol.joined.contains(&b) {
        return None;
    }
    let cfg = Cfg::new(body);
    let states = cfg.preds[b]
        .iter()
        .filter(|&&(q, _)| !sol.out[q].is_bottom())
        .map(|&(q, j)| t.edge(q, &sol.out[q], j))
        .filter(|s| !s.is_bottom())
        .collect();
    Some(states)
}

/// Branch and switch outcomes of `body` that no execution takes, given the
/// function's solution (`None`: the function is never entered, so every
/// outcome is dead): the block is unreachable or the edge's guard makes
/// the state bottom. Appends `(block, succ)` pairs in block order.
pub fn dead_edges_of<T: Transfer>(
    body: &walkdown_ir::Body,
    t: &T,
    sol: Option<&Solution<T::State>>,
    out: &mut Vec<(Block, u32)>,
) {
    let cfg = Cfg::new(body);
    for (b, data) in body.blocks.iter() {
        let n = match &data.term {
            walkdown_ir::Terminator::Branch { .. } => 2,
            walkdown_ir::Terminator::Switch { cases, .. } => cases.len() as u32 + 1,
            _ => continue,
        };
        for succ in 0..n {
            let dead = match sol {
                None => true,
                Some(sol) => {
                    let state = &sol.out[b];
                    state.is_bottom() || edge_state(t, &cfg, &sol.joined, &sol.out, b, succ).is_bottom()
                }
            };
            if dead {
                out.push((b, succ));
            }
        }
    }
}
