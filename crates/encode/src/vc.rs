//! The reachability verification condition (the paper's Section 4) of an
//! acyclic, self-contained body (after [`crate::inline`],
//! [`crate::localize`] and the bounded engine's unwinding).
//!
//! The body is already in SSA form; it is made *passive* by giving every
//! block parameter a symbol and turning each jump's arguments into
//! equalities guarded by the edge being taken, so every assignment is an
//! equality. Memory is an SMT byte array over the flat address space,
//! threaded through stores; where paths join, the memory of the join is
//! that of the edge taken: reads at constant addresses (globals, fixed
//! cells) become if-then-else of the incoming values, like SSA variables,
//! and reads at symbolic addresses select from an if-then-else of the
//! incoming arrays.
//!
//! Per block `b` there are two Boolean variables (1-bit symbols, so a model
//! names them):
//! - `ok_b`: a terminating execution starts at `b` (the paper's
//!   `wlp(b, false)` negated, defined from the successors' `ok`);
//! - `r_b`: the execution from the initial state reaches `b` (defined from
//!   the predecessors' edges) and, with `ok_b`, terminates;
//!
//! and per edge a variable `t_e` that the edge is taken. The definitions
//! are equivalences over shared sub-terms, so the formula is linear in the
//! size of the body.
//!
//! What "terminates" means is a setting ([`Termination`]): the paper counts
//! only executions that get to the end (failed assumptions and cut points
//! block); walkdown's tests cover every goal an execution passes before it
//! stops, however it stops, so the engine counts every execution prefix
//! (then `ok` is the constant true: every execution stops somewhere).
//!
//! What is not encoded exactly is over-approximated (more executions, never
//! fewer), so an unsatisfiable query still proves a block infeasible, and a
//! model that is not a real execution is caught by the interpreter's
//! replay: floating-point operations, library functions without a model
//! here and unknown externals' effects give fresh symbols; an access
//! outside every object reads and writes the array instead of stopping;
//! `malloc` may return null. Each such place is listed in
//! [`Vc::approximations`]. Stack and heap objects get fixed addresses of
//! their own (globals and functions the interpreter's), so control flow
//! that depends on the numeric value of a stack or heap address may differ
//! from the interpreter's.

mod enc;

use crate::inline::is_reach_error;
use crate::origin::{BlockOrigin, Provenance};
use crate::EncodeError;
use enc::{Enc, MemNode};
use std::collections::VecDeque;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::{
    Block, Body, Builtin, Callee, CastOp, FuncId, GlobalId, InstKind, Loc, Operand, Program, Terminator, Type, UnOp,
};
use walkdown_semantics::Sym;
use walkdown_smt::{ExprId, ExprPool, Model, SymId};

/// Which executions count as terminating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Every execution prefix: returning, exiting, failing a check or an
    /// assumption, and reaching a cut point all end an execution whose
    /// goals count (what the interpreter judges). The engine's default.
    Prefix,
    /// The paper's: only executions that return (or exit, or fail a check)
    /// count; failed assumptions and cut points block.
    Complete,
}

/// Settings of [`encode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcSettings {
    /// Which executions count. Default [`Termination::Prefix`].
    pub termination: Termination,
    /// `memset`/`memcpy`/`memmove` with a constant length up to this many
    /// bytes are encoded byte by byte; longer or symbolic ones make memory
    /// unknown. Default 4096.
    pub max_bulk_bytes: u64,
    /// With [`Termination::Complete`]: define `ok_b` backward from the
    /// successors, as the paper does (true, the default), or only require
    /// that control reaches a `ret` with every assumption on the way
    /// holding (false: the strongest-postcondition reading, `ok` is then
    /// the constant true and the reachability variables alone say which
    /// blocks the execution passes). Both have the same models.
    pub backward_ok: bool,
    /// The loop abstraction of the bounded engine's induction step: at the first header
    /// copy of every loop entry ([`crate::origin::LoopEntry`]), the
    /// parameters the loop changes and (if the loop writes memory) memory
    /// take arbitrary values. Default off.
    pub havoc_loop_entries: bool,
    /// Record each block's memory at its entry as an array term
    /// ([`BlockVars::memory`]); the model checker reads a step's memory
    /// after it there. Default off (the term costs nodes).
    pub block_memory: bool,
    /// The most expression nodes an encoding may make before it gives up
    /// as [`EncodeError::TooLarge`]. Programs that inline the C library's
    /// formatter at many call sites grow to tens of thousands of blocks;
    /// a bound on the encoding's size (not its time, so `--jobs 1` runs
    /// stay reproducible) keeps an engine from spending its whole budget,
    /// uninterruptibly, on one formula it could not solve anyway.
    /// Default 3,000,000 (a few hundred MB).
    pub max_nodes: usize,
    /// When the encoding gives up ([`EncodeError::OutOfTime`]): the
    /// engine's share of the time left. The node bound keeps runs
    /// reproducible; this one keeps an encoding whose nodes are few but
    /// slow to build (long chains of memory stores over the C library's
    /// tables) from holding the only worker of a `--jobs 1` run until the
    /// budget ends. Default none.
    pub deadline: Option<std::time::Instant>,
    /// Encode float instructions as IEEE-754 terms (exact, as the
    /// interpreter computes them) instead of fresh values (an
    /// over-approximation). Exact terms let a model cover float branches
    /// but can make queries slow. Default off.
    pub float_terms: bool,
}

impl Default for VcSettings {
    fn default() -> Self {
        VcSettings {
            termination: Termination::Prefix,
            max_bulk_bytes: 4096,
            backward_ok: true,
            havoc_loop_entries: false,
            block_memory: false,
            float_terms: false,
            max_nodes: 3_000_000,
            deadline: None,
        }
    }
}

/// One execution of a summarized function: its arguments' bits and its
/// result's bits (none for `void`).
pub type SummaryPair = (Vec<u64>, Option<u64>);

/// Procedure summaries (the paper's Section 6): per function, input/output
/// pairs of executions found for it (argument bits, return bits). A call of
/// a summarized function is encoded as "the arguments and the result are
/// one of the pairs": an under-approximation, so models are still real
/// executions but unsatisfiability proves nothing.
#[derive(Clone, Debug, Default)]
pub struct Summaries {
    /// The pairs of each summarized function.
    pub funcs: std::collections::HashMap<FuncId, Vec<SummaryPair>>,
}

/// A `nondet` (or an unknown external's result) in a block.
#[derive(Clone, Copy, Debug)]
pub struct InputSite {
    /// The symbol of its value.
    pub sym: SymId,
    /// The type the program reads.
    pub ty: Type,
    /// Whether tests print it signed.
    pub signed: bool,
}

/// The variables of one block.
#[derive(Clone, Debug)]
pub struct BlockVars {
    /// `r_b`: reached (and, with [`Termination::Complete`], terminating).
    pub reach: ExprId,
    /// Its symbol.
    pub reach_sym: SymId,
    /// `ok_b`: a terminating execution starts here.
    pub ok: ExprId,
    /// Control reaches the block (whether or not the execution terminates).
    pub control: ExprId,
    /// Inputs read in the block, in order.
    pub inputs: Vec<InputSite>,
    /// Where it comes from.
    pub origin: Option<BlockOrigin>,
    /// Whether it is a cut point.
    pub cut: bool,
    /// Its outgoing edges (indices into [`Vc::edges`]), in successor order.
    pub out_edges: Vec<usize>,
    /// The terms of its parameters.
    pub params: Vec<ExprId>,
    /// Its memory at entry, with [`VcSettings::block_memory`].
    pub memory: Option<ExprId>,
}

/// The state the entry block starts in, when it is not the program's
/// initial state (the model checker encodes one block from an arbitrary
/// state): terms of the caller's pool.
#[derive(Clone, Debug, Default)]
pub struct EntryState {
    /// The entry block's parameters (instead of fresh symbols).
    pub params: Option<Vec<ExprId>>,
    /// The memory (an array term) instead of the initial memory (zero
    /// everywhere, globals' initial bytes).
    pub memory: Option<ExprId>,
    /// The address of the first object the body allocates (instead of the
    /// start of the allocation area). Blocks encoded one at a time need
    /// ranges of their own ([`Vc::next_addr`] ends one): objects of
    /// different blocks must not share addresses.
    pub alloc_base: Option<u64>,
    /// The entry block may run again while objects it allocated before are
    /// live (it is on a cycle): a heap allocation, or a stack allocation
    /// that is not part of its function's frame, gets an address of its
    /// own at every execution (a fresh symbol in an area of its own), and
    /// a frame allocation, whose earlier object is dead by then, keeps its
    /// address but starts zeroed again, as the interpreter's fresh objects
    /// do.
    pub repeats: bool,
}

/// One edge of the body.
#[derive(Clone, Debug)]
pub struct EdgeVar {
    /// Source block.
    pub from: Block,
    /// Destination.
    pub to: Block,
    /// Successor number in the source's terminator.
    pub succ: u32,
    /// `t_e`: taken (by an execution that terminates, with `Complete`).
    pub taken: ExprId,
    /// Its symbol.
    pub taken_sym: SymId,
    /// The branch-outcome goal of the original program it is a copy of.
    pub goal: Option<GoalId>,
}

/// A `check` that may fail.
#[derive(Clone, Debug)]
pub struct ErrorVar {
    /// Its block.
    pub block: Block,
    /// The check fails here.
    pub fails: ExprId,
    /// The error-site goal of the original program.
    pub goal: Option<GoalId>,
}

/// The verification condition.
pub struct Vc {
    /// The expressions.
    pub pool: ExprPool,
    /// The formula: these all hold.
    pub assertions: Vec<ExprId>,
    /// Per block of the body (indexed by block).
    pub blocks: Vec<BlockVars>,
    /// Every edge.
    pub edges: Vec<EdgeVar>,
    /// Every `check`.
    pub errors: Vec<ErrorVar>,
    /// Blocks in topological order.
    pub order: Vec<Block>,
    /// Where the encoding over-approximates, with the construct.
    pub approximations: Vec<(String, Loc)>,
    /// The entry block's parameters (the function's arguments).
    pub entry_params: Vec<ExprId>,
    /// The value each `ret` block returns.
    pub returns: std::collections::HashMap<Block, Option<ExprId>>,
    /// The address after the last object the body allocates at a fixed
    /// address (where the next body's [`EntryState::alloc_base`] may
    /// start).
    pub next_addr: u64,
}

impl Vc {
    /// Whether the model sets the 1-bit variable `s`.
    pub fn holds(model: &Model, s: SymId) -> bool {
        model.sym(s) == Some(1)
    }

    /// The blocks the model's execution passes, in order: from the entry,
    /// along the taken edges (on a model, at most one edge of a block is
    /// taken).
    pub fn path(&self, model: &Model) -> Vec<Block> {
        let mut path = Vec::new();
        let Some(&entry) = self.order.first() else { return path };
        let mut b = entry;
        loop {
            path.push(b);
            let next = self.blocks[b.index()]
                .out_edges
                .iter()
                .map(|&e| &self.edges[e])
                .find(|e| Vc::holds(model, e.taken_sym));
            match next {
                Some(e) => b = e.to,
                None => break,
            }
        }
        path
    }

    /// What path cover blocks on: each block's reachability variable, and
    /// each block's successors (as block indices).
    pub fn path_graph(&self) -> (Vec<(SymId, ExprId)>, Vec<Vec<usize>>) {
        let vars = self.blocks.iter().map(|b| (b.reach_sym, b.reach)).collect();
        let succs =
            self.blocks.iter().map(|b| b.out_edges.iter().map(|&e| self.edges[e].to.index()).collect()).collect();
        (vars, succs)
    }

    /// The input values (register bits) the model's execution reads, in
    /// the order it reads them.
    pub fn inputs(&self, model: &Model) -> Vec<(InputSite, u64)> {
        self.path(model)
            .into_iter()
            .flat_map(|b| self.blocks[b.index()].inputs.iter().map(|i| (*i, model.sym(i.sym).unwrap_or(0) as u64)))
            .collect()
    }

    /// Terms in the formula (the pool's size).
    pub fn size(&self) -> usize {
        self.pool.len()
    }
}

/// An edge into a block: (edge index, selection condition, memory state,
/// arguments).
type Incoming = (usize, ExprId, usize, Vec<ExprId>);

/// What ends the execution inside a block, for the backward `ok` pass.
enum Event {
    Assume(ExprId),
    Check(ExprId),
    Stop,
}

/// Encodes `body` (the acyclic `main` of `program`) with provenance
/// `prov`; `goals` are the original program's, `globals`/`funcs` the
/// interpreter's addresses.
pub fn encode(
    program: &Program,
    body: &Body,
    prov: &Provenance,
    goals: &Goals,
    global_addr: &dyn Fn(GlobalId) -> u64,
    func_addr: &dyn Fn(FuncId) -> u64,
    settings: &VcSettings,
) -> Result<Vc, EncodeError> {
    encode_with(program, body, prov, goals, global_addr, func_addr, settings, &Summaries::default())
}

/// [`encode`], with calls of the functions in `summaries` (left as calls
/// by [`crate::inline::inline_function`]) encoded by their summaries.
#[allow(clippy::too_many_arguments)]
pub fn encode_with(
    program: &Program,
    body: &Body,
    prov: &Provenance,
    goals: &Goals,
    global_addr: &dyn Fn(GlobalId) -> u64,
    func_addr: &dyn Fn(FuncId) -> u64,
    settings: &VcSettings,
    summaries: &Summaries,
) -> Result<Vc, EncodeError> {
    encode_in(
        ExprPool::new(),
        program,
        body,
        prov,
        goals,
        global_addr,
        func_addr,
        settings,
        summaries,
        &EntryState::default(),
    )
}

/// [`encode_with`] into `pool` (which the returned [`Vc`] owns; take it
/// back from there), from the entry state `entry`.
#[allow(clippy::too_many_arguments)]
pub fn encode_in(
    mut pool: ExprPool,
    program: &Program,
    body: &Body,
    prov: &Provenance,
    goals: &Goals,
    global_addr: &dyn Fn(GlobalId) -> u64,
    func_addr: &dyn Fn(FuncId) -> u64,
    settings: &VcSettings,
    summaries: &Summaries,
    entry: &EntryState,
) -> Result<Vc, EncodeError> {
    let dm = program.data_model;
    let pw = dm.pointer_bits();
    let main_name = program.entry().map(|f| program.funcs[f].name.clone()).unwrap_or_else(|| "main".into());
    let n = body.blocks.len();
    // Topological order (Kahn), which also checks the body is acyclic.
    let mut indeg = vec![0usize; n];
    for (_, d) in body.blocks.iter() {
        for c in d.term.successors() {
            indeg[c.block.index()] += 1;
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut ready: VecDeque<Block> = VecDeque::from([Body::ENTRY]);
    while let Some(b) = ready.pop_front() {
        order.push(b);
        for c in body.blocks[b].term.successors() {
            indeg[c.block.index()] -= 1;
            if indeg[c.block.index()] == 0 {
                ready.push_back(c.block);
            }
        }
    }
    if order.len() != n {
        return Err(EncodeError::unsupported(
            "a cycle left after unwinding (or unreachable blocks)",
            &main_name,
            Loc::UNKNOWN,
        ));
    }

    let mut e = Enc {
        mems: Vec::new(),
        reads: std::collections::HashMap::new(),
        arrays: std::collections::HashMap::new(),
        pool: &mut pool,
        program,
        pw,
        assertions: Vec::new(),
        approximations: Vec::new(),
        next_addr: entry.alloc_base.unwrap_or(if pw == 64 { 0x7e00_0000_0000 } else { 0xa000_0000 }),
        repeats: entry.repeats,
        settings,
    };
    // Initial memory: zero everywhere (fresh stack and heap memory reads as
    // zero in the interpreter), globals' initial bytes and addresses.
    let mut mem0 = match entry.memory {
        Some(m) => m,
        None => e.x(|p| p.const_array(pw, 0)),
    };
    for (g, gd) in program.globals.iter().filter(|_| entry.memory.is_none()) {
        let base = global_addr(g);
        // Only the bytes the initializer and the relocations give: the
        // rest is zero, as the base array is, and a huge zeroed global (a
        // program's 1 GiB static array) must not be spelled out byte by
        // byte.
        let size = gd.size.max(gd.init.len() as u64);
        let mut bytes: std::collections::BTreeMap<u64, u8> =
            gd.init.iter().enumerate().filter(|(_, &b)| b != 0).map(|(i, &b)| (i as u64, b)).collect();
        for r in &gd.relocs {
            let target = match r.target {
                walkdown_ir::RelocTarget::Global(t) => global_addr(t),
                walkdown_ir::RelocTarget::Func(f) => func_addr(f),
            };
            let v = target.wrapping_add(r.addend as u64);
            for i in 0..dm.pointer_bytes() {
                let at = r.offset + i;
                if at < size {
                    bytes.insert(at, (v >> (8 * i)) as u8);
                }
            }
        }
        for (&i, &byte) in &bytes {
            if byte != 0 {
                let idx = e.bv(base.wrapping_add(i), pw);
                let val = e.bv(u64::from(byte), 8);
                mem0 = e.x(|p| p.store(mem0, idx, val));
            }
        }
    }
    e.mems.push(MemNode::Base(mem0));
    let mem0 = 0usize;

    let mut vals: Vec<Option<ExprId>> = vec![None; body.values.len()];
    let mut blocks: Vec<Option<BlockVars>> = vec![None; n];
    let mut edges: Vec<EdgeVar> = Vec::new();
    let mut errors: Vec<ErrorVar> = Vec::new();
    // Per block: incoming (edge index, selection condition, memory, args).
    let mut incoming: Vec<Vec<Incoming>> = vec![Vec::new(); n];
    // Per block: events and guards for the backward pass.
    let mut events: Vec<Vec<Event>> = (0..n).map(|_| Vec::new()).collect();
    let mut guards: Vec<Vec<ExprId>> = vec![Vec::new(); n];
    let mut passes: Vec<ExprId> = vec![e.pool.tt(); n];
    let mut returns = std::collections::HashMap::new();
    let mut entry_params = Vec::new();

    let havoc_at: std::collections::HashMap<Block, &crate::origin::LoopEntry> = if settings.havoc_loop_entries {
        prov.loop_entries.iter().map(|l| (l.block, l)).collect()
    } else {
        Default::default()
    };
    for &b in &order {
        if e.pool.len() > settings.max_nodes {
            return Err(EncodeError::TooLarge { what: "expression nodes of the encoding", limit: settings.max_nodes });
        }
        if settings.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(EncodeError::OutOfTime);
        }
        let data = &body.blocks[b];
        let (reach_sym, reach) = e.var(&format!("r{}", b.as_u32()));
        let cut = prov.cut(b).is_some();
        // Control reaches b: the entry always, others through a taken edge.
        let control = if b == Body::ENTRY {
            e.pool.tt()
        } else {
            let sels: Vec<ExprId> = incoming[b.index()].iter().map(|x| x.1).collect();
            e.x(|p| p.or(&sels))
        };
        let havoc = havoc_at.get(&b).copied();
        // Parameters: passive equalities on the incoming edges.
        for (j, &pv) in data.params.iter().enumerate() {
            let w = e.width(body.values[pv].ty);
            if let (true, Some(given)) = (b == Body::ENTRY, entry.params.as_ref().and_then(|ps| ps.get(j))) {
                vals[pv.index()] = Some(*given);
                continue;
            }
            if havoc.is_some_and(|h| !h.invariant.get(j).copied().unwrap_or(false)) {
                let (_, s) = e.sym(&format!("h{}", pv.as_u32()), w);
                vals[pv.index()] = Some(s);
                continue;
            }
            let ins = &incoming[b.index()];
            let first = ins.first().map(|x| x.3[j]);
            let v = match first {
                Some(a) if ins.iter().all(|x| x.3[j] == a) => a,
                _ => {
                    let (_, s) = e.sym(&format!("p{}", pv.as_u32()), w);
                    for (_, sel, _, args) in ins {
                        let eq = e.x(|p| p.eq(s, args[j]));
                        let imp = e.x(|p| p.implies(*sel, eq));
                        e.assertions.push(imp);
                    }
                    s
                }
            };
            vals[pv.index()] = Some(v);
        }
        // Memory: the memory of the edge taken.
        let mut mem = if b == Body::ENTRY {
            mem0
        } else {
            let ins = &incoming[b.index()];
            match ins.first() {
                Some(first) if ins.iter().all(|x| x.2 == first.2) => first.2,
                Some(_) => e.merge(ins.iter().map(|x| (x.1, x.2)).collect()),
                None => mem0,
            }
        };
        if havoc.is_some_and(|h| h.writes_memory) {
            let pw = e.pw;
            let t = e.x2(|p| p.new_array(&format!("hmem{}", b.as_u32()), pw)).1;
            e.mems.push(MemNode::Base(t));
            mem = e.mems.len() - 1;
        }
        let memory_in = settings.block_memory.then(|| e.array_of(mem));
        let param_terms: Vec<ExprId> =
            data.params.iter().map(|p| vals[p.index()].expect("parameters are encoded first")).collect();
        let mut pass = e.pool.tt();
        let mut inputs = Vec::new();
        for &inst in &data.insts {
            let idata = &body.insts[inst];
            let loc = idata.loc;
            let opv = |e: &mut Enc, vals: &[Option<ExprId>], o: &Operand| -> ExprId {
                match o {
                    Operand::Value(v) => vals[v.index()].expect("values are encoded before their uses"),
                    Operand::Const(c) => {
                        let w = e.width(c.ty);
                        e.bv(c.bits, w)
                    }
                    Operand::Global(g) => e.bv(global_addr(*g), pw),
                    Operand::Func(f) => e.bv(func_addr(*f), pw),
                }
            };
            let result: Option<ExprId> = match &idata.kind {
                InstKind::Bin { op, ty, lhs, rhs } => {
                    let (a, c) = (opv(&mut e, &vals, lhs), opv(&mut e, &vals, rhs));
                    if op.is_float() && settings.float_terms {
                        Some(Sym::new(e.pool).fbin(*op, a, c))
                    } else if op.is_float() || ty.is_float() {
                        Some(e.havoc(&format!("{op}"), if op.yields_bool() { 1 } else { e.width(*ty) }, loc))
                    } else {
                        let w = e.width(*ty);
                        Some(Sym::new(e.pool).bin(*op, w, a, c))
                    }
                }
                InstKind::Un { op, ty, arg } => {
                    let a = opv(&mut e, &vals, arg);
                    let w = e.width(*ty);
                    match (op, ty.is_float()) {
                        (UnOp::FNeg, true) if settings.float_terms => Some(Sym::new(e.pool).fneg(w, a)),
                        (UnOp::FNeg, _) | (_, true) => Some(e.havoc(op.name(), w, loc)),
                        _ => Sym::new(e.pool).un(*op, w, a),
                    }
                }
                InstKind::Cmp { pred, ty, lhs, rhs } => {
                    let (a, c) = (opv(&mut e, &vals, lhs), opv(&mut e, &vals, rhs));
                    if pred.is_float() && settings.float_terms {
                        let w = e.width(*ty);
                        let mut s = Sym::new(e.pool);
                        let bit = s.fcmp(*pred, w, a, c);
                        Some(s.bool_to_bv1(bit))
                    } else if pred.is_float() {
                        Some(e.havoc(pred.name(), 1, loc))
                    } else {
                        let mut s = Sym::new(e.pool);
                        let bit = s.cmp(*pred, a, c);
                        Some(s.bool_to_bv1(bit))
                    }
                }
                InstKind::Cast { op, from, to, arg } => {
                    let a = opv(&mut e, &vals, arg);
                    let (fw, tw) = (e.width(*from), e.width(*to));
                    match op {
                        CastOp::Trunc | CastOp::ZExt | CastOp::SExt | CastOp::PtrToInt | CastOp::IntToPtr => {
                            Some(Sym::new(e.pool).cast(*op, fw, tw, a))
                        }
                        CastOp::Bitcast if fw == tw => Some(a),
                        _ if settings.float_terms => Some(Sym::new(e.pool).fcast(*op, fw, tw, a, program.data_model)),
                        _ => Some(e.havoc(op.name(), tw, loc)),
                    }
                }
                InstKind::Select { cond, if_true, if_false, .. } => {
                    let c = opv(&mut e, &vals, cond);
                    let (t, f) = (opv(&mut e, &vals, if_true), opv(&mut e, &vals, if_false));
                    let mut s = Sym::new(e.pool);
                    let cb = s.bv1_to_bool(c);
                    Some(s.ite(cb, t, f))
                }
                InstKind::Load { ty, ptr } => {
                    let p = opv(&mut e, &vals, ptr);
                    Some(e.load(mem, p, *ty))
                }
                InstKind::Store { ty, ptr, value } => {
                    let p = opv(&mut e, &vals, ptr);
                    let v = opv(&mut e, &vals, value);
                    mem = e.store(mem, p, v, *ty);
                    None
                }
                InstKind::Alloca { size, .. } => {
                    let size = match size {
                        Operand::Const(c) => Some(c.bits),
                        _ => None,
                    };
                    if !e.repeats {
                        Some(e.fresh_object(size))
                    } else {
                        // Only a function's entry block allocates its
                        // frame (once per activation); other allocas (VLAs,
                        // `alloca()`) may pile up in a loop.
                        let frame = prov.blocks.get(b).is_some_and(|o| o.block == Body::ENTRY);
                        match size {
                            Some(n) if frame && n <= settings.max_bulk_bytes => {
                                let a = e.fresh_object(Some(n));
                                let zero = e.bv(0, 8);
                                for i in 0..n {
                                    let off = e.bv(i, pw);
                                    let at = e.x(|p| p.add(a, off));
                                    mem = e.store_byte(mem, at, zero);
                                }
                                Some(a)
                            }
                            _ => Some(e.repeated_object(&format!("alloca{}", inst.as_u32()), loc)),
                        }
                    }
                }
                InstKind::PtrAdd { base, offset } => {
                    let (a, c) = (opv(&mut e, &vals, base), opv(&mut e, &vals, offset));
                    Some(e.x(|p| p.add(a, c)))
                }
                InstKind::Nondet { ty, signed } => {
                    let w = e.width(*ty);
                    let (sym, x) = e.sym(&format!("in{}", inst.as_u32()), w);
                    inputs.push(InputSite { sym, ty: *ty, signed: *signed });
                    Some(x)
                }
                InstKind::Assume { cond } => {
                    let c = opv(&mut e, &vals, cond);
                    let cb = Sym::new(e.pool).bv1_to_bool(c);
                    events[b.index()].push(Event::Assume(cb));
                    pass = e.x(|p| p.and2(pass, cb));
                    None
                }
                InstKind::Check { cond, .. } => {
                    let c = opv(&mut e, &vals, cond);
                    let cb = Sym::new(e.pool).bv1_to_bool(c);
                    let ncb = e.x(|p| p.not(cb));
                    let fails = e.x(|p| p.and(&[control, pass, ncb]));
                    let goal = prov.insts.get(inst).and_then(|(f, i)| goals.error_site(f, i));
                    errors.push(ErrorVar { block: b, fails, goal });
                    events[b.index()].push(Event::Check(cb));
                    pass = e.x(|p| p.and2(pass, cb));
                    None
                }
                InstKind::Call { callee, args, ret } => {
                    let f = match callee {
                        Callee::Direct(f) => *f,
                        Callee::Indirect(_) => return Err(EncodeError::unsupported("indirect call", &main_name, loc)),
                    };
                    let fd = &program.funcs[f];
                    let argv: Vec<ExprId> = args.iter().map(|a| opv(&mut e, &vals, a)).collect();
                    let ret_w = ret.map(|t| e.width(t));
                    if is_reach_error(&fd.name) {
                        // Entering a defined `reach_error` reaches the
                        // goals of its body's checks (the interpreter
                        // covers them there), though the body never runs.
                        if let Some(rb) = &fd.body {
                            for (_, d) in rb.blocks.iter() {
                                for &ri in &d.insts {
                                    if let InstKind::Check { kind: walkdown_ir::CheckKind::ReachError, .. } =
                                        rb.insts[ri].kind
                                    {
                                        if let Some(goal) = goals.error_site(f, ri) {
                                            let fails = e.x(|p| p.and2(control, pass));
                                            errors.push(ErrorVar { block: b, fails, goal: Some(goal) });
                                        }
                                    }
                                }
                            }
                        }
                        events[b.index()].push(Event::Stop);
                        pass = e.pool.ff();
                        ret_w.map(|w| e.bv(0, w))
                    } else if let Some(pairs) = summaries.funcs.get(&f) {
                        // The arguments and the result are one of the
                        // pairs found for the callee.
                        let r = ret.map(|t| {
                            let w = e.width(t);
                            e.sym(&format!("sum{}", inst.as_u32()), w).1
                        });
                        let mut alts = Vec::new();
                        for (a, rv) in pairs {
                            let mut conj = Vec::new();
                            for (x, &bits) in argv.iter().zip(a) {
                                let w = e.pool.width(*x).unwrap_or(1);
                                let k = e.bv(bits, w);
                                conj.push(e.x(|p| p.eq(*x, k)));
                            }
                            if let (Some(r), Some(bits)) = (r, rv) {
                                let w = e.pool.width(r).unwrap_or(1);
                                let k = e.bv(*bits, w);
                                conj.push(e.x(|p| p.eq(r, k)));
                            }
                            alts.push(e.x(|p| p.and(&conj)));
                        }
                        let cb = e.x(|p| p.or(&alts));
                        events[b.index()].push(Event::Assume(cb));
                        pass = e.x(|p| p.and2(pass, cb));
                        r
                    } else if fd.body.is_some() {
                        return Err(EncodeError::unsupported(
                            format!("call of @{} left after inlining", fd.name),
                            &main_name,
                            loc,
                        ));
                    } else if let Some(bi) = fd.builtin {
                        e.builtin(bi, &argv, ret_w, &mut mem, &mut pass, &mut events[b.index()], loc)?
                    } else if matches!(
                        fd.name.as_str(),
                        "__assert_fail" | "__assert" | "__assert_rtn" | "__assert_perror_fail"
                    ) {
                        events[b.index()].push(Event::Stop);
                        pass = e.pool.ff();
                        None
                    } else if fd.name == "__VERIFIER_assume" {
                        let a = argv.first().copied().unwrap_or_else(|| e.bv(1, 1));
                        let w = e.pool.width(a).unwrap_or(1);
                        let zero = e.bv(0, w);
                        let cb = e.x(|p| p.ne(a, zero));
                        events[b.index()].push(Event::Assume(cb));
                        pass = e.x(|p| p.and2(pass, cb));
                        None
                    } else {
                        // A nondet or an unknown external: the interpreter
                        // gives it the next input value.
                        let signed = match fd.name.strip_prefix("__VERIFIER_nondet_") {
                            Some(rest) => {
                                !(rest.starts_with('u')
                                    || matches!(rest, "bool" | "_Bool" | "size_t" | "pointer" | "char_ptr" | "pchar"))
                            }
                            None => true,
                        };
                        match ret {
                            Some(t) => {
                                let w = e.width(*t);
                                let (sym, x) = e.sym(&format!("in{}", inst.as_u32()), w);
                                inputs.push(InputSite { sym, ty: *t, signed: signed && t.is_int() && *t != Type::I1 });
                                if !fd.name.starts_with("__VERIFIER_nondet_") {
                                    // Its effects on memory are unknown.
                                    mem = e.unknown_memory(&format!("call of unknown @{}", fd.name), loc);
                                }
                                Some(x)
                            }
                            None => None,
                        }
                    }
                }
            };
            if let (Some(r), Some(x)) = (idata.result, result) {
                vals[r.index()] = Some(x);
            }
        }
        if let Terminator::Return(op) = &data.term {
            let v = op.as_ref().map(|o| match o {
                Operand::Value(v) => vals[v.index()].unwrap(),
                Operand::Const(c) => {
                    let w = e.width(c.ty);
                    e.bv(c.bits, w)
                }
                Operand::Global(g) => e.bv(global_addr(*g), pw),
                Operand::Func(f) => e.bv(func_addr(*f), pw),
            });
            returns.insert(b, v);
        }
        if b == Body::ENTRY {
            entry_params = data.params.iter().map(|p| vals[p.index()].unwrap()).collect();
        }
        // Terminator: one guard per successor.
        let gs: Vec<ExprId> = match &data.term {
            Terminator::Jump(_) => vec![e.pool.tt()],
            Terminator::Branch { cond, .. } => {
                let c = match cond {
                    Operand::Value(v) => vals[v.index()].unwrap(),
                    Operand::Const(c) => e.bv(c.bits, 1),
                    _ => e.bv(1, 1),
                };
                let cb = Sym::new(e.pool).bv1_to_bool(c);
                let nc = e.x(|p| p.not(cb));
                vec![cb, nc]
            }
            Terminator::Switch { ty, value, cases, .. } => {
                let w = e.width(*ty);
                let v = match value {
                    Operand::Value(x) => vals[x.index()].unwrap(),
                    Operand::Const(c) => e.bv(c.bits, w),
                    _ => return Err(EncodeError::unsupported("switch on an address", &main_name, data.term_loc)),
                };
                // The first matching case wins, as in the interpreter.
                let mut none_before = e.pool.tt();
                let mut out = Vec::new();
                for (k, _) in cases {
                    let kv = e.bv(*k, w);
                    let eq = e.x(|p| p.eq(v, kv));
                    out.push(e.x(|p| p.and2(none_before, eq)));
                    let ne = e.x(|p| p.not(eq));
                    none_before = e.x(|p| p.and2(none_before, ne));
                }
                out.push(none_before);
                out
            }
            Terminator::Return(_) | Terminator::Unreachable => Vec::new(),
        };
        let origin = *prov.blocks.get(b);
        let mut out_edges = Vec::new();
        for (i, c) in data.term.successors().enumerate() {
            let sel = e.x(|p| p.and(&[control, pass, gs[i]]));
            let (taken_sym, taken) = e.var(&format!("t{}_{}", b.as_u32(), i));
            let goal = origin.filter(|o| o.terminator).and_then(|o| goals.edge(o.func, o.block, i as u32));
            let idx = edges.len();
            edges.push(EdgeVar { from: b, to: c.block, succ: i as u32, taken, taken_sym, goal });
            out_edges.push(idx);
            let args: Vec<ExprId> = c
                .args
                .iter()
                .map(|a| match a {
                    Operand::Value(v) => vals[v.index()].unwrap(),
                    Operand::Const(k) => {
                        let w = e.width(k.ty);
                        e.bv(k.bits, w)
                    }
                    Operand::Global(g) => e.bv(global_addr(*g), pw),
                    Operand::Func(f) => e.bv(func_addr(*f), pw),
                })
                .collect();
            incoming[c.block.index()].push((idx, sel, mem, args));
        }
        guards[b.index()] = gs;
        passes[b.index()] = pass;
        // r_b for now is "control reaches b"; the definition with ok_b is
        // added after the backward pass.
        blocks[b.index()] = Some(BlockVars {
            reach,
            reach_sym,
            ok: control,
            control,
            inputs,
            origin,
            cut,
            out_edges,
            params: param_terms,
            memory: memory_in,
        });
    }

    // Backward pass: ok_b, the paper's "a terminating execution starts here".
    let complete = settings.termination == Termination::Complete;
    let mut oks: Vec<ExprId> = vec![e.pool.tt(); n];
    if complete && !settings.backward_ok {
        // Some block ending in `ret` is reached and passed to its end.
        let ends: Vec<ExprId> = order
            .iter()
            .filter(|b| matches!(body.blocks[**b].term, Terminator::Return(_)))
            .map(|b| {
                let bv = blocks[b.index()].as_ref().unwrap();
                let pass = passes[b.index()];
                e.x(|p| p.and2(bv.control, pass))
            })
            .collect();
        let any = e.x(|p| p.or(&ends));
        e.assertions.push(any);
    }
    if complete && settings.backward_ok {
        let mut ok_vars: Vec<Option<ExprId>> = vec![None; n];
        for &b in order.iter().rev() {
            let (_, okv) = e.var(&format!("ok{}", b.as_u32()));
            ok_vars[b.index()] = Some(okv);
            let bv = blocks[b.index()].as_ref().unwrap();
            let mut w = match &body.blocks[b].term {
                Terminator::Return(_) => e.pool.tt(),
                Terminator::Unreachable => e.pool.ff(),
                _ => {
                    let alts: Vec<ExprId> = bv
                        .out_edges
                        .iter()
                        .enumerate()
                        .map(|(i, &ei)| {
                            let to = edges[ei].to;
                            let okt = ok_vars[to.index()].unwrap();
                            let g = guards[b.index()][i];
                            e.x(|p| p.and2(g, okt))
                        })
                        .collect();
                    e.x(|p| p.or(&alts))
                }
            };
            if bv.cut {
                w = e.pool.ff();
            }
            for ev in events[b.index()].iter().rev() {
                w = match ev {
                    Event::Assume(a) => e.x(|p| p.and2(*a, w)),
                    Event::Check(c) => {
                        let nc = e.x(|p| p.not(*c));
                        e.x(|p| p.or2(nc, w))
                    }
                    Event::Stop => e.pool.tt(),
                };
            }
            let def = e.x(|p| p.eq(okv, w));
            e.assertions.push(def);
            oks[b.index()] = okv;
        }
        let ok_entry = oks[Body::ENTRY.index()];
        e.assertions.push(ok_entry);
    }
    // Definitions of r_b and t_e.
    for &b in &order {
        let bv = blocks[b.index()].as_mut().unwrap();
        let control = bv.control;
        let okb = oks[b.index()];
        let rdef = e.pool.and2(control, okb).map_err(|x| EncodeError::Expr(x.to_string()))?;
        let def = e.x(|p| p.eq(bv.reach, rdef));
        e.assertions.push(def);
        bv.ok = okb;
    }
    for (idx, ed) in edges.iter().enumerate() {
        let sel = incoming[ed.to.index()].iter().find(|x| x.0 == idx).unwrap().1;
        let okt = oks[ed.to.index()];
        let tdef = e.x(|p| p.and2(sel, okt));
        let def = e.x(|p| p.eq(ed.taken, tdef));
        e.assertions.push(def);
    }
    let Enc { assertions, approximations, next_addr, .. } = e;
    Ok(Vc {
        pool,
        assertions,
        blocks: blocks.into_iter().map(|b| b.unwrap()).collect(),
        edges,
        errors,
        order,
        approximations,
        entry_params,
        returns,
        next_addr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::{Body, FuncData, GlobalData, InstKind, Operand, Reloc, RelocTarget, Terminator, Type};

    /// A huge zeroed global (a 1 TiB static array) costs its initialized
    /// bytes only: the encoding used to spell out every byte.
    #[test]
    fn huge_globals_are_not_materialized() {
        let mut p = Program::new(walkdown_ir::DataModel::LP64);
        let small = p.globals.push(GlobalData {
            name: "small".into(),
            size: 8,
            align: 8,
            constant: false,
            init: vec![7],
            relocs: Vec::new(),
            loc: Loc::UNKNOWN,
        });
        let huge = p.globals.push(GlobalData {
            name: "huge".into(),
            size: 1 << 40,
            align: 16,
            constant: false,
            init: vec![0, 0, 3],
            relocs: vec![Reloc { offset: 16, target: RelocTarget::Global(small), addend: 0 }],
            loc: Loc::UNKNOWN,
        });
        let mut body = Body::default();
        let b = body.add_block();
        let (_, v) = body.append(b, InstKind::Load { ty: Type::I8, ptr: Operand::Global(huge) }, Loc::UNKNOWN);
        body.set_term(
            b,
            Terminator::Return(v.map(|_| Operand::Const(walkdown_ir::Const { ty: Type::I32, bits: 0 }))),
            Loc::UNKNOWN,
        );
        p.funcs.push(FuncData { body: Some(body), ..FuncData::external("main", vec![], Some(Type::I32), false) });
        let (inlined, prov) = crate::inline::inline_main(&p, &Default::default()).expect("inlines");
        let main = inlined.func_by_name("main").expect("main");
        let body = inlined.funcs[main].body.as_ref().expect("body");
        let goals = Goals::compute(&p);
        let addr = |g: GlobalId| 0x10000 + (g.index() as u64) * 0x100;
        let vc = encode(&inlined, body, &prov, &goals, &addr, &|_| 0x9000, &VcSettings::default()).expect("encodes");
        // Stores of 7, of 3 and of the relocation's non-zero address bytes.
        assert!(vc.size() < 1000, "{}", vc.size());
    }
}
