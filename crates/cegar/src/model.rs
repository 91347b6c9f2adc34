//! The program as the model checker sees it: `main` with every call
//! inlined and every block self-contained (values flow only through block
//! parameters, [`walkdown_encode::localize`]), so the state at a block's
//! entry is its parameters and the memory. Each location gets symbols for
//! that state, and each edge a *step*: the formula of executing the source
//! block and taking the edge, over the source's state symbols, with the
//! target's state as terms. Steps are encoded once, by the encoder the
//! bounded engine uses, so both engines give instructions one meaning.

use std::collections::HashMap;

use crate::CegarError;
use walkdown_encode::inline::{inline_main, InlineSettings};
use walkdown_encode::localize::localize;
use walkdown_encode::origin::{Cut, Provenance};
use walkdown_encode::vc::{encode_in, EntryState, InputSite, Summaries, Termination, VcSettings};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::{Block, Body, FuncId, GlobalId, Operand, Program, Terminator, Value};
use walkdown_smt::{ExprId, ExprPool, Leaf};

/// Settings of [`Model::build`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelSettings {
    /// How many activations of one function may be nested when inlining;
    /// deeper calls are cut, and a reachable cut takes away the right to
    /// claim a goal unreachable. Default 2.
    pub recursion_bound: u32,
    /// Blocks the inlined `main` may have. Default 20,000.
    pub max_blocks: usize,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings { recursion_bound: 2, max_blocks: 20_000 }
    }
}

/// The state symbols of one location.
#[derive(Clone, Debug)]
pub struct State {
    /// One symbol per block parameter.
    pub params: Vec<ExprId>,
    /// The memory (an array symbol); the entry block has none (it starts
    /// from the program's initial memory).
    pub mem: Option<ExprId>,
}

/// Executing a block and leaving it by one edge.
#[derive(Clone, Debug)]
pub struct Step {
    /// The source block.
    pub from: Block,
    /// The successor number.
    pub succ: u32,
    /// The target block.
    pub to: Block,
    /// The edge is taken (all assumptions and checks on the way hold),
    /// over the source's state symbols and the step's own leaves.
    pub guard: ExprId,
    /// The target's parameters after the step.
    pub post_params: Vec<ExprId>,
    /// The memory after the step.
    pub post_mem: ExprId,
    /// Inputs the block reads, in order.
    pub inputs: Vec<InputSite>,
    /// The leaves of the step other than the source's state (inputs,
    /// auxiliary variables), renamed apart in path formulas.
    pub locals: Vec<Leaf>,
    /// The branch-outcome goal the edge is a copy of.
    pub goal: Option<GoalId>,
}

/// A `check` of a block failing.
#[derive(Clone, Debug)]
pub struct ErrorStep {
    /// The error-site goal.
    pub goal: GoalId,
    /// The check is reached and fails, over the block's state symbols and
    /// the locals.
    pub fails: ExprId,
    /// Inputs the block reads before it (all of the block's, in order; the
    /// replay reads only what it needs).
    pub inputs: Vec<InputSite>,
    /// As for [`Step::locals`].
    pub locals: Vec<Leaf>,
}

/// What encoding a block needs besides the model: the inlined program,
/// its goals, the interpreter's addresses and the encoder's settings.
struct Env<'a> {
    program: &'a Program,
    goals: &'a Goals,
    global_addr: &'a dyn Fn(GlobalId) -> u64,
    func_addr: &'a dyn Fn(FuncId) -> u64,
    settings: VcSettings,
}

/// The transformed program with its state symbols and steps.
pub struct Model {
    /// Terms of every formula the checker builds.
    pub pool: ExprPool,
    /// The inlined, self-contained `main`.
    pub body: Body,
    /// Where its blocks come from.
    pub prov: Provenance,
    /// Per block: its state symbols.
    pub states: Vec<State>,
    /// Per block: its outgoing steps, in successor order.
    pub steps: Vec<Vec<Step>>,
    /// Per block: its checks that may fail.
    pub errors: Vec<Vec<ErrorStep>>,
    /// Per block: every error-site goal of its instructions (encoded or
    /// not: memory errors are goals the checker does not aim at).
    pub site_goals: Vec<Vec<GoalId>>,
    /// Per block: the cut it is (recursion deeper than the bound).
    pub cuts: Vec<Option<Cut>>,
    /// Where the encoding over-approximates (still sound for proofs).
    pub approximations: usize,
    /// Per block: it lies on a cycle (may run again).
    on_cycle: Vec<bool>,
    /// Where the objects of the block being encoded start.
    alloc_base: u64,
    /// Where the objects of the next block may start: every block gets
    /// addresses of its own.
    alloc_next: u64,
}

impl Model {
    /// Inlines, localizes and encodes `program`'s `main`.
    pub fn build(
        program: &Program,
        goals: &Goals,
        global_addr: &dyn Fn(GlobalId) -> u64,
        func_addr: &dyn Fn(FuncId) -> u64,
        settings: &ModelSettings,
    ) -> Result<Model, CegarError> {
        let inline =
            InlineSettings { recursion_bound: settings.recursion_bound.max(1), max_blocks: settings.max_blocks };
        let (inlined, prov) = inline_main(program, &inline)?;
        let main = inlined.entry().ok_or(CegarError::NoEntry)?;
        let mut body = inlined.funcs[main].body.clone().ok_or(CegarError::NoEntry)?;
        let mut prov = prov;
        for (param, carried) in localize(&mut body, &inlined.funcs[main].name)? {
            let origin = *prov.values.get(carried);
            prov.values.set(param, origin);
        }
        if body.blocks.iter().any(|(_, d)| d.term.successors().any(|c| c.block == Body::ENTRY)) {
            return Err(CegarError::Unsupported {
                construct: "a jump back to the entry block of main".into(),
                line: body.blocks[Body::ENTRY].term_loc.line,
            });
        }
        let n = body.blocks.len();
        let mut pool = ExprPool::new();
        let pw = program.data_model.pointer_bits();
        let mut states = Vec::with_capacity(n);
        for (b, d) in body.blocks.iter() {
            let mut params = Vec::new();
            for (j, &p) in d.params.iter().enumerate() {
                let w = body.values[p].ty.bits(program.data_model);
                params.push(pool.new_symbol(&format!("s{}_{}", b.as_u32(), j), w)?.1);
            }
            let mem = if b == Body::ENTRY { None } else { Some(pool.new_array(&format!("m{}", b.as_u32()), pw)?.1) };
            states.push(State { params, mem });
        }
        let cuts: Vec<Option<Cut>> = (0..n).map(|i| prov.cut(Block::new(i)).copied()).collect();
        let site_goals: Vec<Vec<GoalId>> = body
            .blocks
            .iter()
            .map(|(_, d)| {
                d.insts
                    .iter()
                    .filter_map(|&i| (*prov.insts.get(i)).and_then(|(f, oi)| goals.error_site(f, oi)))
                    .collect()
            })
            .collect();
        let vc_settings = VcSettings { termination: Termination::Prefix, block_memory: true, ..VcSettings::default() };
        let mut model = Model {
            pool,
            body,
            prov,
            states,
            steps: Vec::with_capacity(n),
            errors: Vec::with_capacity(n),
            cuts,
            site_goals,
            approximations: 0,
            on_cycle: Vec::new(),
            alloc_base: 0,
            alloc_next: if pw == 64 { 0x7e00_0000_0000 } else { 0xa000_0000 },
        };
        model.on_cycle = on_cycle(&model.body);
        // Blocks no path from the entry reaches (after a call that never
        // returns, say) have no steps: the graph never gets there.
        let mut reachable = vec![false; n];
        for b in walkdown_ir::verify::reverse_postorder(&model.body) {
            reachable[b.index()] = true;
        }
        let env = Env { program: &inlined, goals, global_addr, func_addr, settings: vc_settings };
        for (i, &reached) in reachable.iter().enumerate() {
            let b = Block::new(i);
            if !reached {
                model.steps.push(Vec::new());
                model.errors.push(Vec::new());
                continue;
            }
            let nsucc = model.body.blocks[b].term.successors().count();
            // Every encoding of the block (one per edge, one for its
            // checks) gives its objects the same addresses, which no
            // other block's objects have.
            model.alloc_base = model.alloc_next;
            let mut steps = Vec::with_capacity(nsucc);
            for s in 0..nsucc {
                steps.push(model.encode_step(&env, b, s as u32)?);
            }
            model.steps.push(steps);
            let errors = model.encode_errors(&env, b)?;
            model.errors.push(errors);
        }
        Ok(model)
    }

    /// The leaves of the state symbols of `b`.
    pub fn state_leaves(&self, b: Block) -> Vec<Leaf> {
        let st = &self.states[b.index()];
        let mut out: Vec<Leaf> = st.params.iter().flat_map(|&p| self.pool.symbols_of(p).iter().copied()).collect();
        if let Some(m) = st.mem {
            out.extend(self.pool.symbols_of(m).iter().copied());
        }
        out
    }

    /// The substitution that puts `params`/`mem` in place of `b`'s state.
    pub fn state_map(&self, b: Block, params: &[ExprId], mem: Option<ExprId>) -> HashMap<Leaf, ExprId> {
        let st = &self.states[b.index()];
        let mut map = HashMap::new();
        for (&s, &t) in st.params.iter().zip(params) {
            if let Some(&l) = self.pool.symbols_of(s).first() {
                map.insert(l, t);
            }
        }
        if let (Some(s), Some(t)) = (st.mem, mem) {
            if let Some(&l) = self.pool.symbols_of(s).first() {
                map.insert(l, t);
            }
        }
        map
    }

    fn encode_block(
        &mut self,
        env: &Env<'_>,
        b: Block,
        succ: Option<u32>,
    ) -> Result<walkdown_encode::vc::Vc, CegarError> {
        let (tiny, tprov) = single_block(&self.body, &self.prov, b, succ);
        let st = &self.states[b.index()];
        let entry = EntryState {
            params: Some(st.params.clone()),
            memory: st.mem,
            alloc_base: Some(self.alloc_base),
            repeats: self.on_cycle[b.index()],
        };
        let pool = std::mem::take(&mut self.pool);
        let vc = encode_in(
            pool,
            env.program,
            &tiny,
            &tprov,
            env.goals,
            env.global_addr,
            env.func_addr,
            &env.settings,
            &Summaries::default(),
            &entry,
        )?;
        self.alloc_next = self.alloc_next.max(vc.next_addr);
        Ok(vc)
    }

    fn encode_step(&mut self, env: &Env<'_>, b: Block, succ: u32) -> Result<Step, CegarError> {
        let to = self.body.blocks[b].term.successors().nth(succ as usize).map(|c| c.block).expect("successor exists");
        let vc = self.encode_block(env, b, Some(succ))?;
        let walkdown_encode::vc::Vc { mut pool, assertions, blocks, edges, approximations, .. } = vc;
        let edge = &edges[blocks[0].out_edges[succ as usize]];
        let mut conj = assertions;
        conj.push(edge.taken);
        let guard = pool.and(&conj)?;
        let target = &blocks[1];
        let post_params = target.params.clone();
        let post_mem = target.memory.expect("block memory is recorded");
        let goal = edge.goal;
        let inputs = blocks[0].inputs.clone();
        self.pool = pool;
        self.approximations += approximations.len();
        let locals = self.locals_of(b, &[&[guard, post_mem], post_params.as_slice()].concat());
        Ok(Step { from: b, succ, to, guard, post_params, post_mem, inputs, locals, goal })
    }

    fn encode_errors(&mut self, env: &Env<'_>, b: Block) -> Result<Vec<ErrorStep>, CegarError> {
        // Checks, and calls of a defined `reach_error` (whose body's checks
        // are reached on entry).
        let has_check = self.body.blocks[b].insts.iter().any(|&i| match &self.body.insts[i].kind {
            walkdown_ir::InstKind::Check { .. } => true,
            walkdown_ir::InstKind::Call { callee: walkdown_ir::Callee::Direct(f), .. } => {
                walkdown_encode::inline::is_reach_error(&env.program.funcs[*f].name)
            }
            _ => false,
        });
        if !has_check {
            return Ok(Vec::new());
        }
        let vc = self.encode_block(env, b, None)?;
        let walkdown_encode::vc::Vc { mut pool, assertions, blocks, errors, .. } = vc;
        let mut out = Vec::new();
        let inputs = blocks[0].inputs.clone();
        let mut made = Vec::new();
        for e in &errors {
            let Some(goal) = e.goal else { continue };
            let mut conj = assertions.clone();
            conj.push(e.fails);
            let fails = pool.and(&conj)?;
            made.push((goal, fails));
        }
        self.pool = pool;
        for (goal, fails) in made {
            let locals = self.locals_of(b, &[fails]);
            out.push(ErrorStep { goal, fails, inputs: inputs.clone(), locals });
        }
        Ok(out)
    }

    fn locals_of(&self, b: Block, terms: &[ExprId]) -> Vec<Leaf> {
        let state = self.state_leaves(b);
        let mut out: Vec<Leaf> = terms
            .iter()
            .flat_map(|&t| self.pool.symbols_of(t).iter().copied())
            .filter(|l| !state.contains(l))
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Per block of `body`: whether it lies on a cycle (a strongly connected
/// component with an edge inside), by Tarjan's algorithm without recursion.
fn on_cycle(body: &Body) -> Vec<bool> {
    let n = body.blocks.len();
    let succs: Vec<Vec<usize>> =
        body.blocks.iter().map(|(_, d)| d.term.successors().map(|c| c.block.index()).collect()).collect();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = vec![false; n];
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (block, next successor to visit)
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = succs[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("the component is on the stack");
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                let cyclic = comp.len() > 1 || succs[v].contains(&v);
                for w in comp {
                    out[w] = cyclic;
                }
            }
        }
    }
    out
}

/// A body of block `b` alone (as the entry, with its own parameters),
/// where successor `succ` goes to a block that only has the target's
/// parameters and every other successor to an empty block; instructions
/// keep their provenance.
fn single_block(body: &Body, prov: &Provenance, b: Block, succ: Option<u32>) -> (Body, Provenance) {
    let data = &body.blocks[b];
    // The encoder wants every block reachable: only the blocks used.
    let nsucc = data.term.successors().count();
    let mut t = Body::default();
    let entry = t.add_block();
    let target = if succ.is_some() { t.add_block() } else { entry };
    let sink = if nsucc > usize::from(succ.is_some()) { t.add_block() } else { entry };
    let mut tprov = Provenance::default();
    let mut vmap: HashMap<Value, Value> = HashMap::new();
    for &p in &data.params {
        let np = t.add_param(entry, body.values[p].ty);
        vmap.insert(p, np);
    }
    let map_op = |vmap: &HashMap<Value, Value>, o: &Operand| -> Operand {
        match o {
            Operand::Value(v) => {
                Operand::Value(*vmap.get(v).expect("a reachable self-contained block defines what it uses"))
            }
            other => *other,
        }
    };
    for &i in &data.insts {
        let idata = &body.insts[i];
        let mut kind = idata.kind.clone();
        kind.for_each_operand_mut(|o| *o = map_op(&vmap, o));
        let ni = t.create_inst(kind, idata.loc);
        t.blocks[entry].insts.push(ni);
        if let (Some(old), Some(new)) = (idata.result, t.insts[ni].result) {
            vmap.insert(old, new);
        }
        tprov.insts.set(ni, *prov.insts.get(i));
    }
    let mut term = data.term.clone();
    match &mut term {
        Terminator::Branch { cond, .. } => *cond = map_op(&vmap, cond),
        Terminator::Switch { value, .. } => *value = map_op(&vmap, value),
        Terminator::Return(Some(o)) => *o = map_op(&vmap, o),
        _ => {}
    }
    for (k, call) in term.successors_mut().into_iter().enumerate() {
        if succ == Some(k as u32) {
            for &p in &body.blocks[call.block].params {
                t.add_param(target, body.values[p].ty);
            }
            call.block = target;
            for a in call.args.iter_mut() {
                *a = map_op(&vmap, a);
            }
        } else {
            call.block = sink;
            call.args.clear();
        }
    }
    t.set_term(entry, term, data.term_loc);
    tprov.blocks.set(entry, *prov.blocks.get(b));
    if let Some(c) = prov.cut(b) {
        tprov.cuts.push(Cut { block: entry, reason: c.reason });
    }
    (t, tprov)
}
