//! Loop unwinding that adds no executions (the paper's Section 3): every
//! loop becomes a tree of copies, one per iteration, so the program is
//! acyclic. An execution that would run a loop's body more than `k` times
//! jumps to a cut point (`assume false`) instead: it is cut, never
//! changed, so every execution of the unwound program is a prefix of one
//! of the original.
//!
//! Blocks are copied per *iteration context*, the iteration number of every
//! loop around them. Iterations `0..k` of a loop copy all of its blocks;
//! iteration `k` copies only the header, so a loop that runs exactly `k`
//! times can still take its exit (a `for (i = 0; i < k; i++)` loop is
//! complete with unwinding `k`); any edge from that last header copy into
//! the body is cut. Back edges go to the next iteration's header, edges
//! leaving a loop drop its counter.
//!
//! The input must be self-contained per block ([`crate::localize`]), so a
//! copy needs only its own values; loops are the natural loops of the
//! dominator tree, and irreducible control flow is unsupported.

use crate::origin::{Cut, CutReason, LoopEntry, Provenance};
use crate::BmcError;
use std::collections::HashMap;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::verify::{reverse_postorder, Dominators};
use walkdown_ir::{Block, BlockCall, Body, Const, FuncId, InstKind, Operand, Terminator, Value};

/// Settings of [`unwind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnwindSettings {
    /// Loop body executions kept per loop entry (at least 1). Default 2.
    pub k: u32,
    /// Blocks the unwound body may have. Default 200,000.
    pub max_blocks: usize,
}

impl Default for UnwindSettings {
    fn default() -> Self {
        UnwindSettings { k: 2, max_blocks: 200_000 }
    }
}

/// A natural loop.
#[derive(Clone, Debug)]
pub struct Loop {
    /// Its header.
    pub header: Block,
    /// Its blocks (the header included), as a membership table.
    pub blocks: Vec<bool>,
    /// How many blocks.
    pub size: usize,
}

/// The natural loops of `body` (one per header), and whether the rest of
/// the control flow is acyclic (false: irreducible).
pub fn find_loops(body: &Body) -> (Vec<Loop>, bool) {
    let n = body.blocks.len();
    let doms = Dominators::compute(body);
    let rpo = reverse_postorder(body);
    let mut preds: Vec<Vec<Block>> = vec![Vec::new(); n];
    for &b in &rpo {
        for c in body.blocks[b].term.successors() {
            preds[c.block.index()].push(b);
        }
    }
    let mut latches: Vec<(Block, Vec<Block>)> = Vec::new();
    for &b in &rpo {
        for c in body.blocks[b].term.successors() {
            if doms.dominates(c.block, b) {
                match latches.iter_mut().find(|(h, _)| *h == c.block) {
                    Some((_, l)) => l.push(b),
                    None => latches.push((c.block, vec![b])),
                }
            }
        }
    }
    let mut loops = Vec::new();
    for (h, ls) in latches {
        let mut blocks = vec![false; n];
        blocks[h.index()] = true;
        let mut stack: Vec<Block> = ls.into_iter().filter(|l| *l != h).collect();
        for &l in &stack {
            blocks[l.index()] = true;
        }
        while let Some(b) = stack.pop() {
            for &p in &preds[b.index()] {
                if !blocks[p.index()] {
                    blocks[p.index()] = true;
                    stack.push(p);
                }
            }
        }
        let size = blocks.iter().filter(|&&x| x).count();
        loops.push(Loop { header: h, blocks, size });
    }
    // Without back edges the graph must be acyclic (Kahn's algorithm).
    let is_back = |b: Block, s: Block| loops.iter().any(|l: &Loop| l.header == s && l.blocks[b.index()]);
    let mut indeg = vec![0usize; n];
    for &b in &rpo {
        for c in body.blocks[b].term.successors() {
            if !is_back(b, c.block) {
                indeg[c.block.index()] += 1;
            }
        }
    }
    let mut ready: Vec<Block> = rpo.iter().copied().filter(|b| indeg[b.index()] == 0).collect();
    let mut seen = 0;
    while let Some(b) = ready.pop() {
        seen += 1;
        for c in body.blocks[b].term.successors() {
            if !is_back(b, c.block) {
                indeg[c.block.index()] -= 1;
                if indeg[c.block.index()] == 0 {
                    ready.push(c.block);
                }
            }
        }
    }
    (loops, seen == rpo.len())
}

/// Unwinds every loop of `body` (a function of `func`, self-contained per
/// block) `settings.k` times. Returns the acyclic body and its provenance
/// (composed with `prov`, the input's).
pub fn unwind(
    body: &Body,
    func_name: &str,
    func: FuncId,
    prov: &Provenance,
    settings: &UnwindSettings,
) -> Result<(Body, Provenance), BmcError> {
    let k = settings.k.max(1);
    let (loops, reducible) = find_loops(body);
    if !reducible {
        return Err(BmcError::unsupported("irreducible control flow", func_name, body.blocks[Body::ENTRY].term_loc));
    }
    // Each block's loops, outermost first (nested loops are smaller).
    let n = body.blocks.len();
    let mut chain: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, c) in chain.iter_mut().enumerate() {
        let mut ls: Vec<usize> = (0..loops.len()).filter(|&l| loops[l].blocks[i]).collect();
        ls.sort_by_key(|&l| std::cmp::Reverse(loops[l].size));
        *c = ls;
    }
    let mut order = vec![usize::MAX; n];
    for (i, b) in reverse_postorder(body).into_iter().enumerate() {
        order[b.index()] = i;
    }
    let facts: Vec<(Vec<bool>, bool)> = loops.iter().map(|l| loop_facts(body, l, &order)).collect();
    let mut u = Unwinder {
        facts: &facts,
        body,
        func,
        prov,
        settings,
        k,
        loops: &loops,
        chain: &chain,
        out: Body::default(),
        oprov: Provenance::default(),
        copies: HashMap::new(),
        work: Vec::new(),
        cut_blocks: HashMap::new(),
    };
    let entry_ctx = vec![0; chain[Body::ENTRY.index()].len()];
    u.copy_of(Body::ENTRY, entry_ctx)?;
    while let Some((b, ctx, nb)) = u.work.pop() {
        u.fill(b, &ctx, nb)?;
    }
    Ok((u.out, u.oprov))
}

/// Which parameters of `l`'s header the loop passes around unchanged, and
/// whether the loop may write memory. A header parameter is unchanged when
/// every back edge passes a value equal to it: itself, or a parameter of a
/// loop block that every edge into that block fills with such a value
/// (localize threads values from before the loop through the blocks'
/// parameters). Found as a greatest fixpoint.
fn loop_facts(body: &Body, l: &Loop, order: &[usize]) -> (Vec<bool>, bool) {
    let in_loop = |b: Block| l.blocks[b.index()];
    let writes_memory = body.blocks.iter().filter(|(b, _)| in_loop(*b)).any(|(_, d)| {
        d.insts.iter().any(|&i| matches!(body.insts[i].kind, InstKind::Store { .. } | InstKind::Call { .. }))
    });
    let header = &body.blocks[l.header];
    // Edges inside the loop: (from, to, args).
    let mut edges: Vec<(Block, Block, Vec<Operand>)> = Vec::new();
    for (b, d) in body.blocks.iter() {
        if in_loop(b) {
            for c in d.term.successors() {
                if in_loop(c.block) {
                    edges.push((b, c.block, c.args.clone()));
                }
            }
        }
    }
    // One pass of copy propagation for every header parameter at once: a
    // value's origin is the one header parameter it is a copy of. Starting
    // optimistic (`Top`: a loop block's parameter may copy anything) and
    // meeting the origins of the arguments every edge inside the loop
    // passes gives the greatest fixpoint, so cycles of copies stay copies.
    // Linear in the edges' arguments per round: loops of library code in
    // the block-local form pass thousands of values on each edge.
    #[derive(Clone, Copy, PartialEq)]
    enum Origin {
        Top,
        Of(usize),
        Nothing,
    }
    let meet = |a: Origin, b: Origin| match (a, b) {
        (Origin::Top, x) | (x, Origin::Top) => x,
        (Origin::Of(i), Origin::Of(j)) if i == j => a,
        _ => Origin::Nothing,
    };
    // Keyed by the loop's parameters only (defined values and parameters
    // outside the loop copy nothing): a table over every value of the body
    // would cost the body's size for each of its loops.
    let mut origin: HashMap<Value, Origin> =
        header.params.iter().enumerate().map(|(j, &p)| (p, Origin::Of(j))).collect();
    for (b, d) in body.blocks.iter() {
        if in_loop(b) && b != l.header {
            origin.extend(d.params.iter().map(|&p| (p, Origin::Top)));
        }
    }
    let of = |origin: &HashMap<Value, Origin>, a: &Operand| match a {
        Operand::Value(v) => origin.get(v).copied().unwrap_or(Origin::Nothing),
        _ => Origin::Nothing,
    };
    // Each parameter's origin falls at most twice, so rounds in the
    // blocks' reverse postorder settle quickly; a cap on the work keeps a
    // pathological loop from holding up the engine (claiming nothing
    // invariant is sound).
    edges.sort_by_key(|(from, _, _)| order[from.index()]);
    let round_work: usize = edges.iter().map(|(_, _, args)| args.len()).sum::<usize>().max(1);
    let mut rounds_left = (50_000_000 / round_work).max(2);
    loop {
        if rounds_left == 0 {
            return (vec![false; header.params.len()], writes_memory);
        }
        rounds_left -= 1;
        let mut changed = false;
        for (_, to, args) in edges.iter().filter(|(_, to, _)| *to != l.header) {
            for (j, a) in args.iter().enumerate() {
                let p = body.blocks[*to].params[j];
                let old = of(&origin, &Operand::Value(p));
                let new = meet(old, of(&origin, a));
                if new != old {
                    origin.insert(p, new);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let invariant = (0..header.params.len())
        .map(|j| {
            edges.iter().filter(|(_, to, _)| *to == l.header).all(|(_, _, args)| {
                args.get(j).is_some_and(|a| matches!(of(&origin, a), Origin::Top) || of(&origin, a) == Origin::Of(j))
            })
        })
        .collect();
    (invariant, writes_memory)
}

struct Unwinder<'a> {
    /// Per loop: its header's invariant parameters, whether it writes memory.
    facts: &'a [(Vec<bool>, bool)],
    body: &'a Body,
    func: FuncId,
    prov: &'a Provenance,
    settings: &'a UnwindSettings,
    k: u32,
    loops: &'a [Loop],
    chain: &'a [Vec<usize>],
    out: Body,
    oprov: Provenance,
    copies: HashMap<(Block, Vec<u32>), Block>,
    work: Vec<(Block, Vec<u32>, Block)>,
    cut_blocks: HashMap<usize, Block>,
}

impl Unwinder<'_> {
    fn new_block(&mut self) -> Result<Block, BmcError> {
        if self.out.blocks.len() >= self.settings.max_blocks {
            return Err(BmcError::TooLarge { what: "blocks after unwinding", limit: self.settings.max_blocks });
        }
        Ok(self.out.add_block())
    }

    /// The copy of `b` in context `ctx`, made (with its parameters) and
    /// queued if new.
    fn copy_of(&mut self, b: Block, ctx: Vec<u32>) -> Result<Block, BmcError> {
        if let Some(&nb) = self.copies.get(&(b, ctx.clone())) {
            return Ok(nb);
        }
        let nb = self.new_block()?;
        for &p in &self.body.blocks[b].params {
            self.out.add_param(nb, self.body.values[p].ty);
        }
        self.oprov.blocks.set(nb, *self.prov.blocks.get(b));
        if let Some(c) = self.prov.cut(b) {
            self.oprov.cuts.push(Cut { block: nb, reason: c.reason });
        }
        // The first iteration's header copy of the innermost loop `b` heads.
        if let Some((i, &l)) = self.chain[b.index()].iter().enumerate().next_back() {
            if self.loops[l].header == b && ctx[i] == 0 {
                let (invariant, writes_memory) = self.facts[l].clone();
                self.oprov.loop_entries.push(LoopEntry { block: nb, invariant, writes_memory });
            }
        }
        self.copies.insert((b, ctx.clone()), nb);
        self.work.push((b, ctx, nb));
        Ok(nb)
    }

    /// The cut point of loop `l`.
    fn cut_block(&mut self, l: usize) -> Result<Block, BmcError> {
        if let Some(&c) = self.cut_blocks.get(&l) {
            return Ok(c);
        }
        let h = self.loops[l].header;
        let c = self.new_block()?;
        let loc = self.body.blocks[h].term_loc;
        let (ai, _) = self.out.append(c, InstKind::Assume { cond: Operand::Const(Const::bool(false)) }, loc);
        self.oprov.insts.set(ai, None);
        self.out.set_term(c, Terminator::Unreachable, loc);
        let (func, header) = match self.prov.blocks.get(h) {
            Some(o) => (o.func, o.block),
            None => (self.func, h),
        };
        self.oprov.cuts.push(Cut { block: c, reason: CutReason::Loop { func, header } });
        self.cut_blocks.insert(l, c);
        Ok(c)
    }

    /// Where the edge `b → s` leads from the copy of `b` in `ctx`: the copy
    /// of `s` in its context, or a cut point.
    fn target(&mut self, b: Block, ctx: &[u32], s: Block) -> Result<(Block, bool), BmcError> {
        let cb = &self.chain[b.index()];
        let cs = self.chain[s.index()].clone();
        let mut nctx: Vec<u32> = cs.iter().map(|l| cb.iter().position(|x| x == l).map_or(0, |i| ctx[i])).collect();
        if let Some(&inner) = cs.last() {
            if self.loops[inner].header == s && self.loops[inner].blocks[b.index()] {
                *nctx.last_mut().unwrap() += 1;
            }
        }
        for (i, &l) in cs.iter().enumerate() {
            if nctx[i] > self.k || (nctx[i] == self.k && s != self.loops[l].header) {
                return Ok((self.cut_block(l)?, true));
            }
        }
        Ok((self.copy_of(s, nctx)?, false))
    }

    fn fill(&mut self, b: Block, ctx: &[u32], nb: Block) -> Result<(), BmcError> {
        let data = &self.body.blocks[b];
        let mut vmap: HashMap<Value, Value> = HashMap::new();
        for (i, &p) in data.params.iter().enumerate() {
            vmap.insert(p, self.out.blocks[nb].params[i]);
        }
        let map_op = |vmap: &HashMap<Value, Value>, op: &Operand| match op {
            Operand::Value(v) => Operand::Value(*vmap.get(v).expect("blocks are self-contained (localize first)")),
            o => *o,
        };
        for &inst in &data.insts {
            let idata = &self.body.insts[inst];
            let mut kind = idata.kind.clone();
            kind.for_each_operand_mut(|op| *op = map_op(&vmap, op));
            let ni = self.out.create_inst(kind, idata.loc);
            self.out.blocks[nb].insts.push(ni);
            if let (Some(old), Some(new)) = (idata.result, self.out.insts[ni].result) {
                vmap.insert(old, new);
            }
            self.oprov.insts.set(ni, *self.prov.insts.get(inst));
        }
        let call = |this: &mut Self, c: &BlockCall| -> Result<BlockCall, BmcError> {
            let (t, cut) = this.target(b, ctx, c.block)?;
            let args = if cut { Vec::new() } else { c.args.iter().map(|a| map_op(&vmap, a)).collect() };
            Ok(BlockCall { block: t, args })
        };
        let term = match &data.term {
            Terminator::Jump(c) => Terminator::Jump(call(self, c)?),
            Terminator::Branch { cond, if_true, if_false } => Terminator::Branch {
                cond: map_op(&vmap, cond),
                if_true: call(self, if_true)?,
                if_false: call(self, if_false)?,
            },
            Terminator::Switch { ty, value, cases, default } => {
                let mut nc = Vec::with_capacity(cases.len());
                for (kv, c) in cases {
                    nc.push((*kv, call(self, c)?));
                }
                Terminator::Switch { ty: *ty, value: map_op(&vmap, value), cases: nc, default: call(self, default)? }
            }
            Terminator::Return(op) => Terminator::Return(op.as_ref().map(|o| map_op(&vmap, o))),
            Terminator::Unreachable => Terminator::Unreachable,
        };
        self.out.set_term(nb, term, data.term_loc);
        Ok(())
    }
}
