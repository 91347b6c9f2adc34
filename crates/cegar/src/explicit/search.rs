//! The search itself: concrete states at the model's loop heads, and the
//! *step* from one to the next, explored symbolically.
//!
//! A state is a loop head of the inlined `main` with the values of its
//! parameters and its memory, all concrete. From a state, every path of
//! blocks up to the next loop head (or to the end of the program) is
//! walked with the steps' terms, the state's values substituted in: with
//! the values concrete, most guards fold to constants; those that do not
//! (they read inputs of this step) are decided by the solver under the
//! path condition so far, and both ways are followed when both are
//! feasible. At the next loop head the path's state must be *determined*
//! by its path condition up to a few valuations: the valuations of its
//! terms are found one at a time, each query excluding the ones found,
//! until the solver says there is no other (usually at once: one value);
//! more than [`SearchSettings::max_splits`] make the search give up. Each
//! state, made canonical (memory as its bytes that differ from zero,
//! stored in address order), is looked up in a hash table; a new one
//! joins the frontier.
//!
//! Every goal a feasible step or failing check shows is reported with the
//! inputs of one run there (the path's model, its states' inputs before).
//! Anything that would make the explored states miss executions ends the
//! search with a [`GiveUp`]: a state the path condition leaves open
//! among too many valuations, memory that is not bytes over zero, a recursion cut, the
//! solver's `unknown`, a limit, the budget.

use std::collections::{HashMap, HashSet, VecDeque};

use walkdown_encode::vc::InputSite;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalId;
use walkdown_ir::{Block, Body};
use walkdown_smt::{Answer, Assignment, ExprId, Leaf, Node, Query, Solver, SolverStack};

use crate::model::Model;
use crate::CegarError;

/// Limits of one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// States (distinct loop-head states) the search may keep. Default
    /// 10,000 (a few seconds of search).
    pub max_states: usize,
    /// Paths one step may have (forks on inputs). Default 4,096.
    pub max_paths: usize,
    /// States one path of a step may end in (valuations its path
    /// condition allows, as when an input from a range is added to a
    /// global); more make the state undetermined. Default 64.
    pub max_splits: usize,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings { max_states: 10_000, max_paths: 4_096, max_splits: 64 }
    }
}

/// Why the search stopped before its frontier was empty: the explored
/// states may miss executions, so nothing is proved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GiveUp {
    /// A path's state at a loop head is not determined by its path
    /// condition up to a few valuations (it keeps an input's value, say).
    #[error("a state at the loop head of line {line} depends on the inputs beyond the path taken")]
    Undetermined {
        /// The loop head's source line.
        line: u32,
    },
    /// The memory at a loop head is not bytes over zero memory (unknown
    /// memory from an unmodelled call, or a store the engine cannot place).
    #[error("memory at the loop head of line {line} the engine cannot hash ({what})")]
    Memory {
        /// The loop head's source line.
        line: u32,
        /// What the memory is.
        what: &'static str,
    },
    /// A path reaches recursion deeper than the inlining bound.
    #[error("a path reaches recursion deeper than the inlining bound (line {line})")]
    Cut {
        /// The cut's source line.
        line: u32,
    },
    /// The solver answered `unknown`.
    #[error("solver unknown: {0}")]
    Unknown(String),
    /// More states than [`SearchSettings::max_states`].
    #[error("more than {0} states")]
    States(usize),
    /// A step with more paths than [`SearchSettings::max_paths`].
    #[error("a step with more than {0} paths")]
    Paths(usize),
    /// The budget ended (or the campaign stopped the engine).
    #[error("budget")]
    Budget,
}

/// How a search ended.
#[derive(Debug)]
pub enum SearchEnd {
    /// The frontier is empty: every execution's loop-head states were
    /// explored, and every goal some execution reaches is in `reached`.
    Complete {
        /// The states explored.
        states: usize,
        /// Goals a feasible step or failing check reached.
        reached: HashSet<GoalId>,
    },
    /// The search stopped early (no proof).
    GaveUp {
        /// Why.
        why: GiveUp,
        /// The states explored by then.
        states: usize,
    },
}

/// What the search reports to (the campaign, or a test).
pub trait Hooks {
    /// Whether to go on (called every few blocks).
    fn keep_going(&mut self) -> bool;
    /// Whether a run to `goal` is wanted (it is open and not yet tried).
    fn wants(&mut self, goal: GoalId) -> bool;
    /// A run that reaches `goal`: the inputs it reads, in order.
    fn reached(&mut self, goal: GoalId, inputs: &[(InputSite, u64)]);
    /// Work done: blocks walked and solver queries asked since the last call.
    fn charge(&mut self, blocks: u64, queries: u64);
}

/// A concrete state at a loop head: the block, its parameters' values and
/// its memory as a canonical term (equal memories are the same term).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    block: Block,
    params: Vec<u128>,
    mem: ExprId,
}

/// A kept state: how the search got there.
struct Kept {
    key: Key,
    /// The state the step started from (`None`: the program's start).
    parent: Option<usize>,
    /// The step's inputs with the values of one run.
    inputs: Vec<(InputSite, u64)>,
}

/// A path of one step, being walked.
#[derive(Clone)]
struct Path {
    block: Block,
    params: Vec<ExprId>,
    /// `None` only at the entry (which starts from the initial memory).
    mem: Option<ExprId>,
    pc: Vec<ExprId>,
    inputs: Vec<InputSite>,
    /// A model of `pc`.
    model: Assignment,
}

/// One state a path may end in: its parameters' values, its canonical
/// memory, and a model of the path that gives them.
struct Valuation {
    params: Vec<u128>,
    mem: ExprId,
    model: Assignment,
}

/// Memory as stores over a base that holds one byte everywhere.
struct Peeled {
    /// (address, byte) terms, the last store first.
    stores: Vec<(ExprId, ExprId)>,
    base: ExprId,
    default: u8,
}

/// A feasible condition, as [`Search::decide`] leaves it.
struct Decided {
    model: Assignment,
    /// What the path condition gets.
    pc: Vec<ExprId>,
    /// Symbols the condition fixes, and their constants.
    fixed: HashMap<Leaf, ExprId>,
}

/// The explicit-state search over a model.
pub struct Search<'m> {
    model: &'m mut Model,
    solver: SolverStack,
    settings: SearchSettings,
    /// Per block of the model: it is a loop head (a state).
    heads: Vec<bool>,
    states: Vec<Kept>,
    index: HashMap<Key, usize>,
    reached: HashSet<GoalId>,
    /// Blocks walked and queries asked since the last charge.
    blocks: u64,
    queries: u64,
    /// Solver queries in all.
    pub total_queries: u64,
}

/// A result that may end the search.
type Step<T> = Result<T, Stop>;

/// What ends the search early: a reason to give up, or an error.
enum Stop {
    GiveUp(GiveUp),
    Error(CegarError),
}

impl From<CegarError> for Stop {
    fn from(e: CegarError) -> Stop {
        Stop::Error(e)
    }
}

impl From<walkdown_smt::ExprError> for Stop {
    fn from(e: walkdown_smt::ExprError) -> Stop {
        Stop::Error(CegarError::Expr(e))
    }
}

impl<'m> Search<'m> {
    /// A search over `model` asking `solver` (which must not slice: the
    /// engine evaluates terms under its models).
    pub fn new(model: &'m mut Model, solver: SolverStack, settings: SearchSettings) -> Search<'m> {
        let heads = loop_heads(&model.body);
        Search {
            model,
            solver,
            settings,
            heads,
            states: Vec::new(),
            index: HashMap::new(),
            reached: HashSet::new(),
            blocks: 0,
            queries: 0,
            total_queries: 0,
        }
    }

    /// The states kept so far: each loop head of the model with its
    /// parameters' values (in the order of the model's state parameters).
    pub fn head_states(&self) -> impl Iterator<Item = (Block, &[u128])> {
        self.states.iter().map(|k| (k.key.block, k.key.params.as_slice()))
    }

    /// Explores the states from the program's start until the frontier is
    /// empty or a reason to give up.
    pub fn run(&mut self, hooks: &mut dyn Hooks) -> Result<SearchEnd, CegarError> {
        match self.explore(hooks) {
            Ok(()) => Ok(SearchEnd::Complete { states: self.states.len(), reached: std::mem::take(&mut self.reached) }),
            Err(Stop::GiveUp(why)) => Ok(SearchEnd::GaveUp { why, states: self.states.len() }),
            Err(Stop::Error(e)) => Err(e),
        }
    }

    fn explore(&mut self, hooks: &mut dyn Hooks) -> Step<()> {
        let entry = Path {
            block: Body::ENTRY,
            params: self.model.states[Body::ENTRY.index()].params.clone(),
            mem: None,
            pc: Vec::new(),
            inputs: Vec::new(),
            model: Assignment::new(),
        };
        let mut frontier = VecDeque::new();
        self.step_from(None, entry, &mut frontier, hooks)?;
        while let Some(s) = frontier.pop_front() {
            let key = self.states[s].key.clone();
            let params = key.params.iter().zip(&self.model.states[key.block.index()].params);
            let params = params
                .map(|(&v, &sym)| self.model.pool.bv_const(self.model.pool.width(sym).unwrap_or(64), v))
                .collect::<Result<Vec<_>, _>>()?;
            let start = Path {
                block: key.block,
                params,
                mem: Some(key.mem),
                pc: Vec::new(),
                inputs: Vec::new(),
                model: Assignment::new(),
            };
            self.step_from(Some(s), start, &mut frontier, hooks)?;
        }
        hooks.charge(self.blocks, self.queries);
        Ok(())
    }

    /// Walks every path of one step from `start` (the state `from`, or the
    /// program's start), keeping the loop-head states it ends in.
    fn step_from(
        &mut self,
        from: Option<usize>,
        start: Path,
        frontier: &mut VecDeque<usize>,
        hooks: &mut dyn Hooks,
    ) -> Step<()> {
        let mut work = vec![start];
        let mut paths = 1usize;
        while let Some(path) = work.pop() {
            self.blocks += 1;
            if self.blocks >= 256 {
                hooks.charge(self.blocks, self.queries);
                (self.blocks, self.queries) = (0, 0);
                if !hooks.keep_going() {
                    return Err(Stop::GiveUp(GiveUp::Budget));
                }
            }
            let b = path.block;
            if self.model.cuts[b.index()].is_some() {
                return Err(Stop::GiveUp(GiveUp::Cut { line: self.line(b) }));
            }
            let map = (b != Body::ENTRY).then(|| self.model.state_map(b, &path.params, path.mem));
            let map = map.unwrap_or_default();
            let mut memo = HashMap::new();
            for k in 0..self.model.errors[b.index()].len() {
                let e = &self.model.errors[b.index()][k];
                let (goal, inputs, fails) = (e.goal, e.inputs.clone(), e.fails);
                let fails = self.model.pool.substitute(fails, &map, &mut memo)?;
                if let Some(d) = self.decide(&path.pc, fails, &path.model, &inputs)? {
                    self.reach(goal, from, &path.inputs, &inputs, &d.model, hooks);
                }
            }
            for k in 0..self.model.steps[b.index()].len() {
                let Some(next) = self.take(from, &path, k, &map, &mut memo, hooks)? else { continue };
                if self.heads[next.block.index()] {
                    self.arrive(from, next, frontier)?;
                } else {
                    paths += 1;
                    if paths > self.settings.max_paths {
                        return Err(Stop::GiveUp(GiveUp::Paths(self.settings.max_paths)));
                    }
                    work.push(next);
                }
            }
        }
        Ok(())
    }

    /// The path after step `k` of its block (its state substituted by
    /// `map`), if that step is feasible.
    fn take(
        &mut self,
        from: Option<usize>,
        path: &Path,
        k: usize,
        map: &HashMap<Leaf, ExprId>,
        memo: &mut HashMap<ExprId, ExprId>,
        hooks: &mut dyn Hooks,
    ) -> Step<Option<Path>> {
        let s = &self.model.steps[path.block.index()][k];
        let (to, goal, step_inputs) = (s.to, s.goal, s.inputs.clone());
        let (guard, post, post_mem) = (s.guard, s.post_params.clone(), s.post_mem);
        let guard = self.model.pool.substitute(guard, map, memo)?;
        let Some(d) = self.decide(&path.pc, guard, &path.model, &step_inputs)? else { return Ok(None) };
        if let Some(g) = goal {
            self.reach(g, from, &path.inputs, &step_inputs, &d.model, hooks);
        }
        let mut params = Vec::with_capacity(post.len());
        let mut fixed_memo = HashMap::new();
        for p in post {
            let p = self.model.pool.substitute(p, map, memo)?;
            params.push(self.model.pool.substitute(p, &d.fixed, &mut fixed_memo)?);
        }
        let mem = self.model.pool.substitute(post_mem, map, memo)?;
        let mem = self.model.pool.substitute(mem, &d.fixed, &mut fixed_memo)?;
        let mut pc = path.pc.clone();
        pc.extend(d.pc);
        let mut inputs = path.inputs.clone();
        inputs.extend(step_inputs);
        Ok(Some(Path { block: to, params, mem: Some(mem), pc, inputs, model: d.model }))
    }

    /// Whether `pc ∧ cond` is satisfiable, and if so what the path keeps:
    /// `cond` with the symbols its conjuncts fix (`input == 3`, the
    /// encoder's reach flags) replaced by their constants, those values,
    /// and a model. Of the fixed symbols, the inputs' values stay in the
    /// path condition (later models must keep them, for the test); the
    /// others occur nowhere else.
    fn decide(
        &mut self,
        pc: &[ExprId],
        cond: ExprId,
        model: &Assignment,
        inputs: &[InputSite],
    ) -> Step<Option<Decided>> {
        let (simple, fixed) = propagate(&mut self.model.pool, cond)?;
        let Some(mut model) = self.feasible(pc, simple, model)? else { return Ok(None) };
        let mut keep = Vec::new();
        if self.model.pool.as_bool_const(simple) != Some(true) {
            keep.push(simple);
        }
        // In the symbols' order, so the path condition (and the solver's
        // models, and the tests) are the same from run to run.
        let mut fixed_syms: Vec<(Leaf, ExprId)> = fixed.iter().map(|(&l, &c)| (l, c)).collect();
        fixed_syms.sort_unstable();
        for (leaf, c) in fixed_syms {
            let Leaf::Sym(sym) = leaf else { continue };
            model.set_sym(sym, self.model.pool.as_bv_const(c).expect("fixed to a constant"));
            if inputs.iter().any(|i| i.sym == sym) {
                let x = self.model.pool.symbol_expr(sym);
                keep.push(self.model.pool.eq(x, c)?);
            }
        }
        Ok(Some(Decided { model, pc: keep, fixed }))
    }

    /// `Some(model)` when `pc ∧ cond` is satisfiable: the path's model if it
    /// satisfies `cond`, else the solver's.
    fn feasible(&mut self, pc: &[ExprId], cond: ExprId, model: &Assignment) -> Step<Option<Assignment>> {
        match self.model.pool.as_bool_const(cond) {
            Some(true) => return Ok(Some(model.clone())),
            Some(false) => return Ok(None),
            None => {}
        }
        if self.model.pool.eval(cond, model).as_bool() == Some(true) {
            return Ok(Some(model.clone()));
        }
        let mut q = pc.to_vec();
        q.push(cond);
        match self.ask(&q)? {
            Answer::Sat(m) => Ok(Some(m)),
            Answer::Unsat => Ok(None),
            Answer::Unknown(why) => Err(Stop::GiveUp(GiveUp::Unknown(why))),
        }
    }

    fn ask(&mut self, q: &[ExprId]) -> Step<Answer> {
        self.queries += 1;
        self.total_queries += 1;
        self.solver.check(&self.model.pool, &Query::new(q)).map_err(|e| Stop::GiveUp(GiveUp::Unknown(e.to_string())))
    }

    /// A run reaches `goal`: report it with its inputs when wanted.
    fn reach(
        &mut self,
        goal: GoalId,
        from: Option<usize>,
        path_inputs: &[InputSite],
        step_inputs: &[InputSite],
        m: &Assignment,
        hooks: &mut dyn Hooks,
    ) {
        self.reached.insert(goal);
        if !hooks.wants(goal) {
            return;
        }
        let mut inputs = self.inputs_to(from);
        for s in path_inputs.iter().chain(step_inputs) {
            inputs.push((*s, m.sym(s.sym).unwrap_or(0) as u64));
        }
        hooks.reached(goal, &inputs);
    }

    /// The inputs of a run from the program's start to state `s`.
    fn inputs_to(&self, mut s: Option<usize>) -> Vec<(InputSite, u64)> {
        let mut chain = Vec::new();
        while let Some(i) = s {
            chain.push(i);
            s = self.states[i].parent;
        }
        chain.iter().rev().flat_map(|&i| self.states[i].inputs.iter().copied()).collect()
    }

    /// A path of a step from `from` arrives at a loop head: each state its
    /// path condition allows, made concrete, is kept if new.
    fn arrive(&mut self, from: Option<usize>, path: Path, frontier: &mut VecDeque<usize>) -> Step<()> {
        let line = self.line(path.block);
        let mem = path.mem.expect("a loop head is not the entry");
        for Valuation { params, mem, model } in self.concretize(&path.params, mem, &path.pc, path.model, line)? {
            let key = Key { block: path.block, params, mem };
            if self.index.contains_key(&key) {
                continue;
            }
            if self.states.len() >= self.settings.max_states {
                return Err(Stop::GiveUp(GiveUp::States(self.settings.max_states)));
            }
            let inputs = path.inputs.iter().map(|s| (*s, model.sym(s.sym).unwrap_or(0) as u64)).collect();
            self.index.insert(key.clone(), self.states.len());
            frontier.push_back(self.states.len());
            self.states.push(Kept { key, parent: from, inputs });
        }
        Ok(())
    }

    /// Every valuation of `params` and `mem` the path condition allows
    /// (parameters' values, canonical memory, a model of the path that
    /// gives them), found one at a time with the ones found excluded, up to
    /// [`SearchSettings::max_splits`].
    fn concretize(
        &mut self,
        params: &[ExprId],
        mem: ExprId,
        pc: &[ExprId],
        model: Assignment,
        line: u32,
    ) -> Step<Vec<Valuation>> {
        let Peeled { stores, base, default } = self.peel(mem, line)?;
        // Every term of the state; those the values do not fix yet.
        let terms: Vec<ExprId> = params.iter().copied().chain(stores.iter().flat_map(|&(i, v)| [i, v])).collect();
        let open: Vec<ExprId> = terms.iter().copied().filter(|&t| self.model.pool.as_bv_const(t).is_none()).collect();
        let mut out = Vec::new();
        let mut q = pc.to_vec();
        let mut model = model;
        loop {
            let values: Vec<u128> =
                terms.iter().map(|&t| self.model.pool.eval(t, &model).as_bv().unwrap_or(0)).collect();
            let (param_values, store_values) = values.split_at(params.len());
            let canon = self.canonical(base, default, store_values)?;
            out.push(Valuation { params: param_values.to_vec(), mem: canon, model });
            if open.is_empty() {
                return Ok(out);
            }
            if out.len() > self.settings.max_splits {
                return Err(Stop::GiveUp(GiveUp::Undetermined { line }));
            }
            let mut differs = Vec::with_capacity(open.len());
            for &t in &open {
                let v = self.model.pool.eval(t, &out.last().expect("just pushed").model).as_bv().unwrap_or(0);
                let c = self.model.pool.bv_const(self.model.pool.width(t).unwrap_or(64), v)?;
                let eq = self.model.pool.eq(t, c)?;
                differs.push(self.model.pool.not(eq)?);
            }
            q.push(self.model.pool.or(&differs)?);
            match self.ask(&q)? {
                Answer::Unsat => return Ok(out),
                Answer::Sat(m) => model = m,
                Answer::Unknown(why) => return Err(Stop::GiveUp(GiveUp::Unknown(why))),
            }
        }
    }

    /// The stores of `mem` (last first) down to its base, the base and the
    /// byte it holds everywhere; memory of another form ends the search.
    fn peel(&self, mem: ExprId, line: u32) -> Step<Peeled> {
        let mut stores = Vec::new();
        let mut cur = mem;
        loop {
            match *self.model.pool.get(cur) {
                Node::Store { array, index, value } => {
                    stores.push((index, value));
                    cur = array;
                }
                Node::ConstArray { value, .. } => return Ok(Peeled { stores, base: cur, default: value }),
                Node::ArrayVar { .. } => return Err(Stop::GiveUp(GiveUp::Memory { line, what: "unknown memory" })),
                _ => return Err(Stop::GiveUp(GiveUp::Memory { line, what: "memory chosen by a condition" })),
            }
        }
    }

    /// The canonical memory: the bytes `stores` (address, value pairs, last
    /// first) leave different from `default`, stored on `base` in address
    /// order, so equal memories are one term.
    fn canonical(&mut self, base: ExprId, default: u8, stores: &[u128]) -> Step<ExprId> {
        let mut bytes = std::collections::BTreeMap::new();
        for pair in stores.chunks(2).rev() {
            bytes.insert(pair[0], pair[1] as u8);
        }
        let pw = match self.model.pool.sort(base) {
            walkdown_smt::Sort::Array { index_width } => index_width,
            _ => unreachable!("memory is an array"),
        };
        let mut canon = base;
        for (&at, &byte) in bytes.iter().filter(|(_, &b)| b != default) {
            let i = self.model.pool.bv_const(pw, at)?;
            let v = self.model.pool.bv_const(8, u128::from(byte))?;
            canon = self.model.pool.store(canon, i, v)?;
        }
        Ok(canon)
    }

    /// The source line of a block of the model (0 when unknown).
    fn line(&self, b: Block) -> u32 {
        self.model.body.blocks[b].term_loc.line
    }
}

/// `cond` with the symbols its conjuncts fix replaced by their constants
/// (again while that fixes more), and those symbols' constants. Any
/// model of `cond` gives the symbols those values, so `cond` holds in a
/// model exactly when the result does and the symbols have the values.
fn propagate(
    pool: &mut walkdown_smt::ExprPool,
    cond: ExprId,
) -> Result<(ExprId, HashMap<Leaf, ExprId>), walkdown_smt::ExprError> {
    let mut all = HashMap::new();
    let mut g = cond;
    while pool.as_bool_const(g).is_none() {
        let fixed = fixed_by(pool, g)?;
        if fixed.is_empty() {
            break;
        }
        g = pool.substitute(g, &fixed, &mut HashMap::new())?;
        all.extend(fixed);
    }
    Ok((g, all))
}

/// The symbols `cond` fixes to constants: its conjuncts `symbol ==
/// constant`, and `symbol != constant` for a 1-bit symbol.
fn fixed_by(pool: &mut walkdown_smt::ExprPool, cond: ExprId) -> Result<HashMap<Leaf, ExprId>, walkdown_smt::ExprError> {
    let mut out = HashMap::new();
    let mut todo = vec![(cond, true)];
    while let Some((c, positive)) = todo.pop() {
        match pool.get(c).clone() {
            Node::And(xs) if positive => todo.extend(xs.iter().map(|&x| (x, true))),
            Node::Not(x) => todo.push((x, !positive)),
            Node::Eq(a, b) => {
                // `(c ? 0 : 1) == 0`: the comparison `c` (of a `!=` cast to
                // an integer), with its polarity.
                for (x, k) in [(a, b), (b, a)] {
                    let (Node::Ite { cond, then, els }, Some(v)) = (pool.get(x).clone(), pool.as_bv_const(k)) else {
                        continue;
                    };
                    match (pool.as_bv_const(then), pool.as_bv_const(els)) {
                        (Some(t), Some(e)) if t != e && v == t => todo.push((cond, positive)),
                        (Some(t), Some(e)) if t != e && v == e => todo.push((cond, !positive)),
                        _ => {}
                    }
                }
                for (x, k) in [(a, b), (b, a)] {
                    let (Node::Var { sym, .. }, Some(v)) = (pool.get(x).clone(), pool.as_bv_const(k)) else { continue };
                    if positive {
                        out.insert(Leaf::Sym(sym), k);
                    } else if pool.width(x) == Some(1) {
                        out.insert(Leaf::Sym(sym), pool.bv_const(1, 1 - v)?);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Per block of `body`: it is the target of a retreating edge of a
/// depth-first walk from the entry, so every cycle passes through one and
/// the blocks between two such heads form no cycle.
fn loop_heads(body: &Body) -> Vec<bool> {
    let n = body.blocks.len();
    let succs: Vec<Vec<usize>> =
        body.blocks.iter().map(|(_, d)| d.term.successors().map(|c| c.block.index()).collect()).collect();
    // 0: unvisited, 1: on the walk's stack, 2: done.
    let mut mark = vec![0u8; n];
    let mut heads = vec![false; n];
    let mut stack = vec![(Body::ENTRY.index(), 0usize)];
    mark[Body::ENTRY.index()] = 1;
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if let Some(&w) = succs[v].get(*i) {
            *i += 1;
            match mark[w] {
                0 => {
                    mark[w] = 1;
                    stack.push((w, 0));
                }
                1 => heads[w] = true,
                _ => {}
            }
            continue;
        }
        mark[v] = 2;
        stack.pop();
    }
    heads
}
