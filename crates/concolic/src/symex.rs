//! The symbolic shadow: runs a test vector concretely on the IR while every
//! value that depends on an input also carries an SMT expression over the
//! input symbols, and records the path condition with the alternatives
//! that a search may take at each branch, switch and check.
//!
//! Concrete semantics come from `walkdown_interp::eval` (the interpreter's
//! own functions), so the concrete half of a traced run computes what the
//! interpreter computes; the engine still replays every candidate test in
//! the interpreter, which is the judge. Floating-point values are followed
//! as IEEE-754 terms over their bits (`walkdown_semantics`), unless
//! [`TraceLimits::symbolic_floats`] is off; `sqrt` stays concrete. Where
//! the shadow cannot follow a value symbolically (pointers used as call
//! targets or allocation sizes), it keeps the concrete value: for addresses and sizes
//! the equality with the concrete value joins the path condition, so the
//! solver never proposes inputs that would silently change them.

mod calls;
mod control;
mod memory;
mod strings;
mod trip;

use std::collections::HashMap;
use std::rc::Rc;
pub use trip::TripLoop;
use walkdown_campaign::{Monitor, MonitorPosition};
use walkdown_interp::code::{FuncKind, Model, Prepared};
use walkdown_interp::eval::{eval_bin, eval_cast, eval_cmp, eval_fabs, eval_select, eval_sqrt, eval_un};
use walkdown_interp::memory::{Memory, ObjectKind};
use walkdown_interp::{input_bits, ExecLimits};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::testvec::InputValue;
use walkdown_ir::{
    Block, BlockCall, Body, Builtin, Callee, CheckKind, DataModel, FuncId, Inst, InstKind, Operand, Program,
    Terminator, Type, Value,
};
use walkdown_semantics::Sym;
use walkdown_smt::{CmpOp, ExprId, Node, SymId};

/// The tracer's view of the interpreter's fast-forward table: the loop
/// headed by each block, the first program counter of each block of a
/// function with such a loop, and the values each loop reads.
#[allow(clippy::type_complexity)]
fn fast_forward_tables(
    program: &Program,
    prepared: &Prepared,
) -> (HashMap<(FuncId, Block), usize>, HashMap<(FuncId, Block), u32>, Vec<Vec<Value>>) {
    let (mut heads, mut starts) = (HashMap::new(), HashMap::new());
    let mut used = vec![Vec::new(); prepared.ff.loops.len()];
    if prepared.ff.loops.is_empty() {
        return (heads, starts, used);
    }
    let loop_pcs: std::collections::HashSet<u32> = prepared.ff.loops.iter().map(|l| l.head).collect();
    let mut by_pc: HashMap<u32, (FuncId, Block)> = HashMap::new();
    for (fid, f) in program.funcs.iter() {
        let Some(body) = &f.body else { continue };
        let Some(FuncKind::Defined { entry, .. }) = prepared.funcs.get(fid.index()).map(|x| &x.kind) else { continue };
        let mut pc = *entry;
        let mut mine = Vec::new();
        for (b, data) in body.blocks.iter() {
            mine.push(((fid, b), pc));
            pc += data.insts.len() as u32 + 1;
        }
        if mine.iter().any(|(_, pc)| loop_pcs.contains(pc)) {
            for (k, pc) in mine {
                starts.insert(k, pc);
                by_pc.insert(pc, k);
            }
        }
    }
    for (li, l) in prepared.ff.loops.iter().enumerate() {
        let Some(&(fid, hb)) = by_pc.get(&l.head) else { continue };
        let Some(body) = &program.funcs[fid].body else { continue };
        let mut vs: Vec<Value> = body.blocks[hb].params.clone();
        for start in &l.blocks {
            let Some(&(_, b)) = by_pc.get(start) else { continue };
            let data = &body.blocks[b];
            let mut add = |o: &Operand| {
                if let Operand::Value(v) = o {
                    vs.push(*v);
                }
            };
            for &inst in &data.insts {
                body.insts[inst].kind.for_each_operand(&mut add);
            }
            match &data.term {
                Terminator::Branch { cond, .. } => add(cond),
                Terminator::Switch { value, .. } => add(value),
                Terminator::Return(Some(v)) => add(v),
                _ => {}
            }
            for call in data.term.successors() {
                call.args.iter().for_each(&mut add);
            }
        }
        vs.sort_by_key(|v| v.index());
        vs.dedup();
        heads.insert((fid, hb), li);
        used[li] = vs;
    }
    (heads, starts, used)
}

/// Allocation sizes (bytes) offered besides the one a run used.
const ALTERNATIVE_SIZES: [u64; 6] = [1, 4, 16, 64, 256, 4096];

/// Counter values loop acceleration jumps to.
const ACCELERATION_TARGETS: [i128; 7] = [128, 256, 1024, 4096, 65_536, 1_000_001, 16_777_216];

/// Limits of one traced run.
#[derive(Clone, Debug)]
pub struct TraceLimits {
    /// Execution limits (steps, call depth, memory), as in the interpreter;
    /// default 2,000,000 steps, since a traced step costs more than a
    /// concrete one.
    pub exec: ExecLimits,
    /// Branch points recorded per run; later branches are followed but
    /// offer no alternatives. Default 10,000.
    pub max_points: usize,
    /// Alternatives recorded per branch site and run: a loop's branch offers
    /// alternatives in its first iterations only. Default 64.
    pub max_visits_per_site: u32,
    /// Constraints in one run's path condition at most. Default 20,000.
    pub max_path: usize,
    /// Branch points one call of a string or memory function records at
    /// most (the decisions of its byte loop on bytes that have shadows;
    /// see the `strings` module); later decisions are followed but add
    /// nothing to the path condition. Default 64.
    pub max_string_points: u32,
    /// Branch points the string and memory functions called in one block
    /// record per run at most: a call in a loop offers alternatives in its
    /// first iterations only, as a loop's own branch does. Default 256.
    pub max_string_points_per_site: u32,
    /// Offer loop-acceleration alternatives (see `Run::acceleration`).
    /// Default on.
    pub accelerate: bool,
    /// Objects up to this size (bytes) are read through a symbolic offset
    /// as a choice over their contents; larger ones concretize the offset.
    /// Default 256.
    pub max_symbolic_object: u64,
    /// Loop exits summarized by a trip-count symbol per run at most (see
    /// [`Tracer::with_trip_loops`]); later exits are traced as plain
    /// branches. Default 64.
    pub max_trip_symbols: u32,
    /// Float inputs get symbols and float instructions IEEE-754 terms;
    /// off, floats stay concrete (the solver never sees them). Default on.
    pub symbolic_floats: bool,
    /// Float operations, comparisons and conversions traced as IEEE-754
    /// terms per run at most; later ones are concrete (see `float_budget`).
    /// A run of a long float loop (`float-benchs/filter1.c`: 10^6
    /// iterations) otherwise spends the budget building terms no query can
    /// solve. Default 2,000.
    pub max_float_ops: u64,
    /// Expression-pool work a run may build ([`Trace::built`]); a run
    /// past it ends as [`TraceEnd::Limit`], as at the step limit. Steps do
    /// not bound a run whose terms grow with it (an input summed per
    /// iteration: `jain_7-2.c`'s first run took the whole 30 s budget,
    /// so no other engine had a turn), and one run is never preempted
    /// for another engine's turn. Default 2^26, about a second of merging.
    pub max_built: u64,
}

impl Default for TraceLimits {
    fn default() -> Self {
        TraceLimits {
            exec: ExecLimits { max_steps: 2_000_000, ..ExecLimits::default() },
            max_points: 10_000,
            max_visits_per_site: 64,
            max_symbolic_object: 256,
            accelerate: true,
            max_path: 20_000,
            max_string_points: 64,
            max_string_points_per_site: 256,
            max_trip_symbols: 64,
            symbolic_floats: true,
            max_float_ops: 2_000,
            max_built: 1 << 26,
        }
    }
}

/// Why an alternative exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AltKind {
    /// The other side of a branch or another switch case.
    Branch,
    /// The failure of a check (or a memory access that can leave its object).
    Check(CheckKind),
    /// The side of a `tryfirst` condition the run did not take: inputs for
    /// which every later execution must be unverified (tried first).
    TryFirst,
}

/// Another way a run could have gone at a branch point.
#[derive(Clone, Copy, Debug)]
pub struct Alternative {
    /// Boolean condition under which the run goes this way.
    pub cond: ExprId,
    /// The goal it would cover (the branch edge or the error site).
    pub goal: Option<GoalId>,
    /// What it is.
    pub kind: AltKind,
    /// The function and block it leads to (for branches), for distances.
    pub target: Option<(FuncId, Block)>,
    /// A model checker's monitor, stepped along the run, shows this way
    /// leads to no goal that was open (see [`walkdown_campaign::Monitor`]).
    pub useless: bool,
    /// The monitor's count of further branch decisions before this way
    /// can reach an open goal's edge (`None`: no monitor, or the run is
    /// lost in it).
    pub distance: Option<u32>,
}

/// A point where the run could have gone another way.
#[derive(Clone, Debug)]
pub struct BranchPoint {
    /// Length of the path-condition prefix that leads here.
    pub prefix: usize,
    /// The other ways.
    pub alternatives: Vec<Alternative>,
    /// The site (function, block).
    pub site: (FuncId, Block),
}

/// One input the run consumed, with its symbol (none for floats when
/// they are not symbolic).
#[derive(Clone, Copy, Debug)]
pub struct TracedInput {
    /// Its type.
    pub ty: Type,
    /// How tests print it.
    pub signed: bool,
    /// Its bits in this run.
    pub bits: u64,
    /// Its symbol.
    pub sym: Option<SymId>,
}

/// A traced run.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Path condition: boolean expressions, each true on this run.
    pub path: Vec<ExprId>,
    /// Branch points in order.
    pub points: Vec<BranchPoint>,
    /// Inputs in order of consumption.
    pub inputs: Vec<TracedInput>,
    /// Goals the run covered (edges and reached error sites).
    pub covered: Vec<GoalId>,
    /// How it ended, in words (the interpreter's replay gives the real
    /// outcome).
    pub end: TraceEnd,
    /// Steps executed.
    pub steps: u64,
    /// The expression pool's work during the run ([`ExprPool::work`]:
    /// terms built and leaf-set elements merged). Steps alone undercount a
    /// run whose terms grow with it: a loop that sums an input per
    /// iteration merges a leaf set as long as the iteration count at each
    /// step, and a run of a few thousand steps takes seconds.
    ///
    /// [`ExprPool::work`]: walkdown_smt::ExprPool::work
    pub built: u64,
    /// The run ended at [`TraceLimits::max_built`].
    pub over_built: bool,
    /// Values concretized with their equality recorded.
    pub concretizations: u64,
    /// Branch constraints left out of `path` (past a site's visit cap, the
    /// point limit or `max_path`).
    pub dropped_constraints: u64,
    /// Float operations, comparisons and conversions traced symbolically.
    pub float_ops: u64,
}

/// How a traced run ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TraceEnd {
    /// Normal exit or `exit`.
    #[default]
    Exit,
    /// An error or `abort`.
    Error(String),
    /// An `assume` failed.
    AssumeFailed,
    /// A `prune` of the annotation pass stopped it: every later execution
    /// is verified.
    Pruned,
    /// A limit was hit.
    Limit,
    /// Something the shadow cannot execute.
    Unsupported(String),
}

struct Frame<'p> {
    func: FuncId,
    body: &'p Body,
    vals: Vec<u64>,
    shadow: Vec<Option<ExprId>>,
    block: Block,
    pos: usize,
    ret_to: Option<Value>,
    stack_objects: Vec<usize>,
}

enum Stop {
    End(TraceEnd),
}

/// Runs vectors with the symbolic shadow.
pub struct Tracer<'p> {
    program: &'p Program,
    goals: &'p Goals,
    prepared: &'p Prepared,
    /// Input symbols by position, created once so that traces share them.
    symbols: Vec<(SymId, ExprId, u32)>,
    /// Address of each global, by global index.
    global_addrs: Vec<u64>,
    /// Trip-count symbols by position within a run, created once.
    trip_symbols: Vec<ExprId>,
    /// Loops whose exits get trip-count symbols, and their exit edges
    /// `(function, block, successor)` with the loop's index.
    trip_loops: Rc<[TripLoop]>,
    trip_exits: HashMap<(FuncId, Block, u32), usize>,
    /// The monitor runs step along, if a model checker shared one.
    monitor: Option<std::sync::Arc<Monitor>>,
    /// Fast-forwarding of loops (the interpreter's side table): the loop
    /// headed by each block, each block's first program counter in the
    /// executable form, and the values each loop reads.
    ff_heads: HashMap<(FuncId, Block), usize>,
    ff_starts: HashMap<(FuncId, Block), u32>,
    ff_used: Vec<Vec<Value>>,
}

struct Run<'p, 'a> {
    t: &'a mut Tracer<'p>,
    sym: Sym<'a>,
    limits: &'a TraceLimits,
    inputs: &'a [InputValue],
    next_input: usize,
    mem: Memory,
    mem_shadow: HashMap<u64, ExprId>,
    frames: Vec<Frame<'p>>,
    trace: Trace,
    deadline: std::time::Instant,
    /// The pool's work when the run began.
    work_start: u64,
    /// The pool's work at which the clock is read next (besides every
    /// 4096 steps), so a run of costly steps ends near its deadline too.
    clock_at_work: u64,
    visits: HashMap<(FuncId, Block), u32>,
    /// Branch points of string functions per calling block (apart from
    /// `visits`, so a call's loop does not use up its block's own branch).
    string_visits: HashMap<(FuncId, Block), u32>,
    /// The constraints of the path condition, as a set: a branch whose
    /// outcome is one of them already (a second walk over the same bytes,
    /// a loop over a string `strlen` measured) adds nothing, and its
    /// alternative contradicts the path, so it is not offered.
    path_facts: std::collections::HashSet<ExprId>,
    counter_sites: HashMap<(FuncId, Block), (u128, bool)>,
    covered_bits: Vec<u64>,
    dm: DataModel,
    trip_symbols_used: u32,
    /// Where the run is in the tracer's monitor.
    monitor_at: MonitorPosition,
    /// Per fast-forward loop: arrivals to let pass, failed tries in a row.
    ff_wait: HashMap<usize, (u32, u8)>,
}

impl<'p> Tracer<'p> {
    /// A tracer for `program` (prepared by the interpreter as `prepared`).
    pub fn new(program: &'p Program, goals: &'p Goals, prepared: &'p Prepared) -> Self {
        let mut global_addrs = vec![0; program.globals.len()];
        for o in prepared.memory.objects() {
            if let ObjectKind::Global(g) = o.kind {
                global_addrs[g.index()] = o.base;
            }
        }
        let (ff_heads, ff_starts, ff_used) = fast_forward_tables(program, prepared);
        Tracer {
            program,
            goals,
            prepared,
            symbols: Vec::new(),
            global_addrs,
            trip_symbols: Vec::new(),
            trip_loops: Rc::from(Vec::new()),
            trip_exits: HashMap::new(),
            monitor: None,
            ff_heads,
            ff_starts,
            ff_used,
        }
    }

    /// Steps later runs along `monitor` (none: no pruning).
    pub fn set_monitor(&mut self, monitor: Option<std::sync::Arc<Monitor>>) {
        self.monitor = monitor;
    }

    /// Summarizes the exits of `loops` with trip-count symbols (see the
    /// `trip` module).
    pub fn with_trip_loops(mut self, loops: Vec<TripLoop>) -> Self {
        self.trip_exits.clear();
        for (k, l) in loops.iter().enumerate() {
            for &(b, succ) in &l.forms.exits {
                self.trip_exits.insert((l.forms.func, b, succ), k);
            }
        }
        self.trip_loops = Rc::from(loops);
        self
    }

    /// Trip-count symbol number `index` (created on first use).
    fn trip_symbol(&mut self, pool: &mut walkdown_smt::ExprPool, index: usize, width: u32) -> ExprId {
        while self.trip_symbols.len() <= index {
            let k = self.trip_symbols.len();
            let (_, e) = pool.new_symbol(&format!("trip{k}"), width).expect("trip widths are 64 bits");
            self.trip_symbols.push(e);
        }
        self.trip_symbols[index]
    }

    /// Forgets the symbols made in the pool traces used so far: the next
    /// trace may use a fresh pool (the engine's restart under a memory
    /// bound).
    pub fn forget_pool(&mut self) {
        self.symbols.clear();
        self.trip_symbols.clear();
    }

    /// Runs `inputs` and returns the trace; a run still going at `deadline`
    /// ends as [`TraceEnd::Limit`].
    pub fn run(
        &mut self,
        pool: &mut walkdown_smt::ExprPool,
        inputs: &[InputValue],
        limits: &TraceLimits,
        deadline: std::time::Instant,
    ) -> Trace {
        let dm = self.program.data_model;
        let mut mem = self.prepared.memory.clone();
        mem.set_max_live_bytes(limits.exec.max_memory);
        let goal_words = self.goals.len().div_ceil(64);
        let work_before = pool.work();
        let mut run = Run {
            t: self,
            sym: Sym::new(pool),
            limits,
            inputs,
            next_input: 0,
            mem,
            mem_shadow: HashMap::new(),
            frames: Vec::new(),
            trace: Trace::default(),
            deadline,
            work_start: work_before,
            clock_at_work: work_before + CLOCK_WORK,
            visits: HashMap::new(),
            string_visits: HashMap::new(),
            path_facts: std::collections::HashSet::new(),
            counter_sites: HashMap::new(),
            covered_bits: vec![0; goal_words],
            dm,
            trip_symbols_used: 0,
            monitor_at: MonitorPosition::Anywhere,
            ff_wait: HashMap::new(),
        };
        if let Some(m) = &run.t.monitor {
            run.monitor_at = m.start();
        }
        let end = match run.start() {
            Ok(()) => TraceEnd::Exit,
            Err(Stop::End(e)) => e,
        };
        run.trace.end = end;
        run.trace.built = run.sym.pool().work() - work_before;
        let mut trace = run.trace;
        trace.covered.sort();
        trace
    }

    /// The symbol of input number `index` (created on first use).
    fn input_symbol(&mut self, pool: &mut walkdown_smt::ExprPool, index: usize, width: u32) -> (SymId, ExprId) {
        while self.symbols.len() <= index {
            let k = self.symbols.len();
            let (s, e) = pool.new_symbol(&format!("in{k}"), width).expect("input widths are 1 to 64 bits");
            self.symbols.push((s, e, width));
        }
        let (s, e, w) = self.symbols[index];
        if w == width {
            (s, e)
        } else {
            // The same position read with another type in another run: a
            // fresh symbol keeps the widths of both apart.
            let (s, e) = pool.new_symbol(&format!("in{index}_{width}"), width).expect("input widths are 1 to 64 bits");
            self.symbols[index] = (s, e, width);
            (s, e)
        }
    }
}

/// Pool work between two readings of the clock within a run (a few
/// milliseconds of merging leaf sets).
const CLOCK_WORK: u64 = 1 << 20;

impl<'p, 'a> Run<'p, 'a> {
    fn start(&mut self) -> Result<(), Stop> {
        let entry = self.t.program.entry().ok_or_else(|| unsupported("the program has no `main`".into()))?;
        let main_args = self.t.prepared.main_args.clone();
        self.enter(entry, &main_args.iter().map(|&v| (v, None)).collect::<Vec<_>>(), None)?;
        loop {
            if self.trace.steps >= self.limits.exec.max_steps {
                return Err(Stop::End(TraceEnd::Limit));
            }
            let work = self.sym.pool().work();
            if self.trace.steps.is_multiple_of(4096) || work >= self.clock_at_work {
                self.clock_at_work = work + CLOCK_WORK;
                self.trace.over_built = work - self.work_start >= self.limits.max_built;
                if self.trace.over_built || std::time::Instant::now() >= self.deadline {
                    return Err(Stop::End(TraceEnd::Limit));
                }
            }
            self.trace.steps += 1;
            let frame = self.frames.last().expect("a frame is active");
            let body = frame.body;
            let data = &body.blocks[frame.block];
            if frame.pos < data.insts.len() {
                let inst = data.insts[frame.pos];
                self.frames.last_mut().expect("a frame is active").pos += 1;
                self.exec_inst(inst)?;
            } else if self.exec_term(&data.term)? {
                return Ok(());
            }
        }
    }

    fn frame(&self) -> &Frame<'p> {
        self.frames.last().expect("a frame is active")
    }

    fn frame_mut(&mut self) -> &mut Frame<'p> {
        self.frames.last_mut().expect("a frame is active")
    }

    /// Concrete value and shadow of an operand in the current frame.
    fn operand(&self, op: &Operand) -> (u64, Option<ExprId>) {
        match *op {
            Operand::Value(v) => {
                let f = self.frame();
                (f.vals[v.index()], f.shadow[v.index()])
            }
            Operand::Const(c) => (c.bits, None),
            Operand::Global(g) => (self.t.prepared_global(g), None),
            Operand::Func(f) => (self.t.prepared.funcs[f.index()].addr, None),
        }
    }

    fn set(&mut self, v: Value, bits: u64, shadow: Option<ExprId>) {
        let f = self.frame_mut();
        f.vals[v.index()] = bits;
        f.shadow[v.index()] = shadow;
    }

    fn width(&self, ty: Type) -> u32 {
        ty.bits(self.dm)
    }

    /// Whether another float operation may become an IEEE-754 term in this
    /// run ([`TraceLimits::max_float_ops`]); past the limit, its symbolic
    /// operands are fixed to their values (the equalities join the path
    /// condition) and its result stays concrete.
    fn float_budget(&mut self, operands: &[(u64, Option<ExprId>)]) -> bool {
        if self.trace.float_ops < self.limits.max_float_ops {
            return true;
        }
        for &(bits, shadow) in operands {
            self.concretize(bits, shadow, 64);
        }
        false
    }

    /// Whether values of `ty` carry shadows: integers and pointers always,
    /// floats when they are symbolic.
    fn tracked(&self, ty: Type) -> bool {
        ty.is_int_or_ptr() || (self.limits.symbolic_floats && ty.is_float())
    }

    fn cover(&mut self, goal: Option<GoalId>) {
        if let Some(g) = goal {
            let i = g.index();
            if self.covered_bits[i / 64] & (1 << (i % 64)) == 0 {
                self.covered_bits[i / 64] |= 1 << (i % 64);
                self.trace.covered.push(g);
            }
        }
    }

    /// Whether branch points may still be recorded at `site`.
    fn may_record(&mut self, site: (FuncId, Block)) -> bool {
        if self.trace.points.len() >= self.limits.max_points || self.trace.path.len() >= self.limits.max_path {
            return false;
        }
        let n = self.visits.entry(site).or_insert(0);
        *n += 1;
        *n <= self.limits.max_visits_per_site
    }

    /// Records a point with `alternatives` and then adds `taken` to the path.
    fn branch_point(&mut self, site: (FuncId, Block), alternatives: Vec<Alternative>, taken: ExprId) {
        // Implied by the path: every alternative would be a query sure to
        // be unsatisfiable (seen: a third of a command-line tool's queries,
        // its loops over strings `strlen` had walked).
        let key = self.fact_key(taken);
        if self.sym.is_true(taken) || self.path_facts.contains(&key) {
            return;
        }
        if !self.may_record(site) {
            // Past the visit cap (or the point limit) the branch's
            // constraint is dropped too: a long loop would otherwise put
            // one constraint per iteration into every later query (seen:
            // 600,000 of them, which Z3 could not even preprocess). Later
            // queries become approximate; every test is replayed anyway,
            // so a dropped constraint costs a divergence, never a false
            // result.
            self.trace.dropped_constraints += 1;
            return;
        }
        let prefix = self.trace.path.len();
        let alternatives: Vec<Alternative> = alternatives.into_iter().filter(|a| !self.sym.is_false(a.cond)).collect();
        if !alternatives.is_empty() {
            self.trace.points.push(BranchPoint { prefix, alternatives, site });
        }
        self.push_constraint(taken);
    }

    /// The form of a constraint in `path_facts`: a program's `i1` for a
    /// comparison compared with a constant (`ite(c, 0, 1) = 0`, as
    /// `x != 0` comes out) is the comparison `c` or its negation, as a
    /// library walk's test of the same byte is. Only the key is folded;
    /// the path keeps the constraint as it is (folding it in the pool for
    /// every engine changed the bounded engine's induction queries and
    /// lost a proof).
    fn fact_key(&mut self, e: ExprId) -> ExprId {
        let pool = self.sym.pool();
        let (negated, inner) = match *pool.get(e) {
            Node::Not(x) => (true, x),
            _ => (false, e),
        };
        let Node::Eq(a, b) = *pool.get(inner) else { return e };
        let Some(k) = pool.as_bv_const(b) else { return e };
        let Node::Ite { cond, then, els } = *pool.get(a) else { return e };
        let (Some(t), Some(f)) = (pool.as_bv_const(then), pool.as_bv_const(els)) else { return e };
        let holds = match (k == t, k == f) {
            (true, false) => cond,
            (false, true) => self.sym.not(cond),
            _ => return e,
        };
        if negated {
            self.sym.not(holds)
        } else {
            holds
        }
    }

    /// Adds a constraint to the path condition, up to `max_path`; past it
    /// the run records nothing more (its later branch points would rest on
    /// an incomplete prefix anyway).
    fn push_constraint(&mut self, c: ExprId) {
        if self.trace.path.len() < self.limits.max_path {
            self.trace.path.push(c);
            let key = self.fact_key(c);
            self.path_facts.insert(key);
        } else {
            self.trace.dropped_constraints += 1;
        }
    }

    /// Loop acceleration: at the last recorded visit of a branch that
    /// compares a concrete value (the loop counter) with a symbolic one
    /// (the bound), alternatives under which the same comparison still
    /// holds with the counter at far larger values, so one solved query
    /// makes the loop run to (or past) a boundary instead of one iteration
    /// more per query.
    fn acceleration(&mut self, site: (FuncId, Block), taken: ExprId, target: (FuncId, Block)) -> Vec<Alternative> {
        let pool = self.sym.pool();
        let (negated, cmp) = match *pool.get(taken) {
            Node::Not(inner) => (true, inner),
            _ => (false, taken),
        };
        let Node::Cmp(op, a, b) = *pool.get(cmp) else { return Vec::new() };
        let (counter_left, c, w) = match (pool.as_bv_const(a), pool.as_bv_const(b)) {
            (Some(c), None) => (true, c, pool.width(a).unwrap_or(64)),
            (None, Some(c)) => (false, c, pool.width(b).unwrap_or(64)),
            _ => return Vec::new(),
        };
        // Only a value that changed between visits is a counter; a literal
        // bound (`p <= 0`) is not.
        if !self.counter_sites.get(&site).is_some_and(|&(_, varies)| varies) {
            return Vec::new();
        }
        let signed = matches!(op, CmpOp::Slt | CmpOp::Sle);
        let current: i128 =
            if signed && w < 128 && (c >> (w - 1)) & 1 == 1 { c as i128 - (1i128 << w) } else { c as i128 };
        let max: i128 = if signed { (1i128 << (w - 1)) - 1 } else { (1i128 << w.min(126)) - 1 };
        let mut alts = Vec::new();
        for m in ACCELERATION_TARGETS {
            if m <= current || m > max {
                continue;
            }
            let mc = self.sym.bv(m as u64, w);
            let (x, y) = if counter_left { (mc, b) } else { (a, mc) };
            let pool = self.sym.pool();
            let Ok(moved) = pool.cmp(op, x, y) else { continue };
            let cond = if negated { self.sym.not(moved) } else { moved };
            alts.push(Alternative {
                cond,
                goal: None,
                kind: AltKind::Branch,
                target: Some(target),
                useless: false,
                distance: None,
            });
        }
        alts
    }

    /// Remembers the concrete side of a comparison at a branch site, and
    /// whether it has changed between visits.
    fn note_counter(&mut self, site: (FuncId, Block), cond: ExprId) {
        let pool = self.sym.pool();
        let cmp = match *pool.get(cond) {
            Node::Not(inner) => inner,
            _ => cond,
        };
        let Node::Cmp(_, a, b) = *pool.get(cmp) else { return };
        let Some(c) = pool.as_bv_const(a).or_else(|| pool.as_bv_const(b)) else { return };
        let entry = self.counter_sites.entry(site).or_insert((c, false));
        if entry.0 != c {
            *entry = (c, true);
        }
    }

    /// Fixes an input-dependent allocation size to its concrete value (the
    /// equality joins the path condition) and offers a few other sizes as
    /// alternatives, so the search is not stuck with the first run's size
    /// (often 0, or a huge one the allocator refuses).
    fn concretize_size(&mut self, bits: u64, shadow: Option<ExprId>) {
        let Some(e) = shadow else { return };
        let w = self.sym.width(e);
        let site = (self.frame().func, self.frame().block);
        let mut alts = Vec::new();
        for k in ALTERNATIVE_SIZES {
            if k != bits {
                let kc = self.sym.bv(k, w);
                let cond = self.sym.eq(e, kc);
                alts.push(Alternative {
                    cond,
                    goal: None,
                    kind: AltKind::Branch,
                    target: None,
                    useless: false,
                    distance: None,
                });
            }
        }
        let c = self.sym.bv(bits, w);
        let taken = self.sym.eq(e, c);
        self.trace.concretizations += 1;
        self.branch_point(site, alts, taken);
    }

    /// Fixes a symbolic value to its concrete value, recording the equality.
    fn concretize(&mut self, bits: u64, shadow: Option<ExprId>, _width: u32) {
        if let Some(e) = shadow {
            // The expression's own width: call arguments may be narrower
            // than the parameter the model reads them as.
            let width = self.sym.width(e);
            let c = self.sym.bv(bits, width);
            let eq = self.sym.eq(e, c);
            if !self.sym.is_true(eq) {
                self.push_constraint(eq);
                self.trace.concretizations += 1;
            }
        }
    }

    fn next_input(&mut self, ty: Type, signed: bool) -> (u64, Option<ExprId>) {
        let index = self.trace.inputs.len();
        let bits = match self.inputs.get(self.next_input) {
            Some(&v) => {
                self.next_input += 1;
                input_bits(v, ty, signed, self.dm)
            }
            None => 0,
        };
        // Past the float budget, new float inputs stay concrete.
        let budget_left = self.trace.float_ops < self.limits.max_float_ops;
        let (sym, expr) = if self.tracked(ty) && (!ty.is_float() || budget_left) {
            let width = self.width(ty);
            let (s, e) = self.t.input_symbol(self.sym.pool(), index, width);
            (Some(s), Some(e))
        } else {
            (None, None)
        };
        self.trace.inputs.push(TracedInput { ty, signed, bits, sym });
        (bits, expr)
    }

    fn exec_inst(&mut self, inst: Inst) -> Result<(), Stop> {
        let body = self.frame().body;
        let data = &body.insts[inst];
        let dm = self.dm;
        match &data.kind {
            InstKind::Bin { op, ty, lhs, rhs } => {
                let (a, sa) = self.operand(lhs);
                let (b, sb) = self.operand(rhs);
                let bits = if op.is_float() {
                    walkdown_interp::eval::eval_fbin(*op, *ty, a, b)
                } else {
                    eval_bin(*op, *ty, a, b, dm)
                };
                let shadow = if sa.is_none() && sb.is_none() {
                    None
                } else if op.is_float() {
                    if self.limits.symbolic_floats && self.float_budget(&[(a, sa), (b, sb)]) {
                        let w = self.width(*ty);
                        let ea = sa.unwrap_or_else(|| self.sym.bv(a, w));
                        let eb = sb.unwrap_or_else(|| self.sym.bv(b, w));
                        self.trace.float_ops += 1;
                        Some(self.sym.fbin(*op, ea, eb))
                    } else {
                        None
                    }
                } else {
                    let w = self.width(*ty);
                    let ea = sa.unwrap_or_else(|| self.sym.bv(a, w));
                    let eb = sb.unwrap_or_else(|| self.sym.bv(b, w));
                    Some(self.sym.bin(*op, w, ea, eb))
                };
                self.set(data.result.expect("bin has a result"), bits, shadow);
            }
            InstKind::Un { op, ty, arg } => {
                let (a, sa) = self.operand(arg);
                let bits = eval_un(*op, *ty, a, dm);
                let shadow = match sa {
                    Some(e) if ty.is_int_or_ptr() => self.sym.un(*op, self.width(*ty), e),
                    Some(e) if self.tracked(*ty) => {
                        // A sign flip builds no IEEE-754 term: no budget.
                        Some(self.sym.fneg(self.width(*ty), e))
                    }
                    _ => None,
                };
                self.set(data.result.expect("un has a result"), bits, shadow);
            }
            InstKind::Cmp { pred, ty, lhs, rhs } => {
                let (a, sa) = self.operand(lhs);
                let (b, sb) = self.operand(rhs);
                let bits = u64::from(eval_cmp(*pred, *ty, a, b, dm));
                let shadow = if (sa.is_none() && sb.is_none())
                    || (pred.is_float() && !(self.tracked(*ty) && self.float_budget(&[(a, sa), (b, sb)])))
                {
                    None
                } else {
                    let w = self.width(*ty);
                    let ea = sa.unwrap_or_else(|| self.sym.bv(a, w));
                    let eb = sb.unwrap_or_else(|| self.sym.bv(b, w));
                    let c = if ty.is_float() {
                        self.trace.float_ops += 1;
                        self.sym.fcmp(*pred, w, ea, eb)
                    } else {
                        self.sym.cmp(*pred, ea, eb)
                    };
                    Some(self.sym.bool_to_bv1(c))
                };
                self.set(data.result.expect("cmp has a result"), bits, shadow);
            }
            InstKind::Cast { op, from, to, arg } => {
                let (a, sa) = self.operand(arg);
                let bits = eval_cast(*op, *from, *to, a, dm);
                let shadow = match sa {
                    Some(e) if from.is_int_or_ptr() && to.is_int_or_ptr() => {
                        Some(self.sym.cast(*op, self.width(*from), self.width(*to), e))
                    }
                    Some(e) if self.tracked(*from) && self.tracked(*to) => {
                        if self.float_budget(&[(a, sa)]) {
                            self.trace.float_ops += 1;
                            Some(self.sym.fcast(*op, self.width(*from), self.width(*to), e, dm))
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                self.set(data.result.expect("cast has a result"), bits, shadow);
            }
            InstKind::Select { ty, cond, if_true, if_false } => {
                let (c, sc) = self.operand(cond);
                let (t, st) = self.operand(if_true);
                let (f, sf) = self.operand(if_false);
                let bits = eval_select(c, t, f);
                let shadow = if !self.tracked(*ty) {
                    if sc.is_some() {
                        // A float chosen by a symbolic condition: keep the
                        // condition's value fixed so the choice stays right.
                        self.concretize(c, sc, 1);
                    }
                    None
                } else if sc.is_none() {
                    if c & 1 != 0 {
                        st
                    } else {
                        sf
                    }
                } else {
                    let w = self.width(*ty);
                    let et = st.unwrap_or_else(|| self.sym.bv(t, w));
                    let ef = sf.unwrap_or_else(|| self.sym.bv(f, w));
                    let cb = self.sym.bv1_to_bool(sc.expect("checked"));
                    Some(self.sym.ite(cb, et, ef))
                };
                self.set(data.result.expect("select has a result"), bits, shadow);
            }
            InstKind::Load { ty, ptr } => {
                let (addr, sp) = self.operand(ptr);
                let n = ty.store_size(dm);
                let addr = self.address(inst, addr, sp, n)?;
                let bits = match self.mem.load(addr, n) {
                    Ok(v) => v,
                    Err(fault) => return Err(error(format!("{} at load", fault.kind.name()))),
                };
                let shadow = self.load_shadow(addr, n, *ty, sp);
                self.set(data.result.expect("load has a result"), bits, shadow);
            }
            InstKind::Store { ty, ptr, value } => {
                let (addr, sp) = self.operand(ptr);
                let (v, sv) = self.operand(value);
                let n = ty.store_size(dm);
                let addr = self.address(inst, addr, sp, n)?;
                let sv = if self.tracked(*ty) { sv } else { None };
                let w = self.width(*ty);
                // The symbolic write reads the old contents, so it goes first.
                let symbolic = match sp {
                    Some(pe) if self.mem.load(addr, n).is_ok() => self.symbolic_write(addr, pe, n, v, sv, w),
                    _ => false,
                };
                if let Err(fault) = self.mem.store(addr, n, v) {
                    return Err(error(format!("{} at store", fault.kind.name())));
                }
                if !symbolic {
                    if sp.is_some() {
                        self.concretize(addr, sp, dm.pointer_bits());
                    }
                    self.store_shadow(addr, n, sv, w);
                }
            }
            InstKind::Alloca { size, align } => {
                let (n, sn) = self.operand(size);
                self.concretize_size(n, sn);
                match self.mem.alloc(n, u64::from(*align), ObjectKind::Stack, false) {
                    Ok((idx, addr)) => {
                        self.frame_mut().stack_objects.push(idx);
                        self.clear_shadow(addr, n);
                        self.set(data.result.expect("alloca has a result"), addr, None);
                    }
                    Err(_) => return Err(Stop::End(TraceEnd::Limit)),
                }
            }
            InstKind::PtrAdd { base, offset } => {
                let (b, sb) = self.operand(base);
                let (o, so) = self.operand(offset);
                let bits = walkdown_interp::eval::eval_ptradd(b, o, dm);
                let shadow = if sb.is_none() && so.is_none() {
                    None
                } else {
                    let w = dm.pointer_bits();
                    let eb = sb.unwrap_or_else(|| self.sym.bv(b, w));
                    let eo = so.unwrap_or_else(|| self.sym.bv(o, w));
                    Some(self.sym.bin(walkdown_ir::BinOp::Add, w, eb, eo))
                };
                self.set(data.result.expect("ptradd has a result"), bits, shadow);
            }
            InstKind::Call { callee, args, ret } => {
                let target = match callee {
                    Callee::Direct(f) => *f,
                    Callee::Indirect(op) => {
                        let (addr, sa) = self.operand(op);
                        self.concretize(addr, sa, dm.pointer_bits());
                        match self.t.prepared.func_addrs.binary_search_by_key(&addr, |&(a, _)| a) {
                            Ok(i) => FuncId::new(self.t.prepared.func_addrs[i].1 as usize),
                            Err(_) => return Err(error("call through a pointer that is no function".into())),
                        }
                    }
                };
                let argv: Vec<(u64, Option<ExprId>)> = args.iter().map(|a| self.operand(a)).collect();
                self.call(inst, target, &argv, data.result, *ret)?;
            }
            InstKind::Nondet { ty, signed } => {
                let (bits, shadow) = self.next_input(*ty, *signed);
                self.set(data.result.expect("nondet has a result"), bits, shadow);
            }
            InstKind::Assume { cond } => {
                let (c, sc) = self.operand(cond);
                if let Some(e) = sc {
                    let b = self.sym.bv1_to_bool(e);
                    let b = if c & 1 != 0 { b } else { self.sym.not(b) };
                    self.push_constraint(b);
                }
                if c & 1 == 0 {
                    return Err(Stop::End(TraceEnd::AssumeFailed));
                }
            }
            InstKind::Check { kind, cond } => {
                let (c, sc) = self.operand(cond);
                let goal = self.t.goals.error_site(self.frame().func, inst);
                if let Some(e) = sc {
                    let holds = self.sym.bv1_to_bool(e);
                    let fails = self.sym.not(holds);
                    let site = (self.frame().func, self.frame().block);
                    let (taken, alt) = if c & 1 != 0 { (holds, fails) } else { (fails, holds) };
                    let alternative = Alternative {
                        cond: alt,
                        goal: if c & 1 != 0 { goal } else { None },
                        kind: if c & 1 != 0 { AltKind::Check(*kind) } else { AltKind::Branch },
                        target: None,
                        useless: false,
                        distance: None,
                    };
                    self.branch_point(site, vec![alternative], taken);
                }
                if c & 1 == 0 {
                    self.cover(goal);
                    return Err(error(kind.name().into()));
                }
            }
        }
        Ok(())
    }

    /// The annotation pass's instrumentation (see `walkdown-annot`).
    /// `prune(c)`: where `c` holds the run goes on under it; where it fails,
    /// every later execution is verified, so the run stops and the one way
    /// on is the alternative `c`, tried first. `tryfirst(c)`: a branch point whose side
    /// `c` is an [`AltKind::TryFirst`] alternative, which the search tries
    /// before others.
    fn annotation_point(&mut self, b: Builtin, (c, sc): (u64, Option<ExprId>)) -> Result<(), Stop> {
        let holds_now = c & 1 != 0;
        let Some(e) = sc else {
            return if b == Builtin::Prune && !holds_now { Err(Stop::End(TraceEnd::Pruned)) } else { Ok(()) };
        };
        let holds = self.sym.bv1_to_bool(e);
        let fails = self.sym.not(holds);
        let site = (self.frame().func, self.frame().block);
        let (taken, alt) = if holds_now { (holds, fails) } else { (fails, holds) };
        match (b, holds_now) {
            (Builtin::Prune, true) => self.push_constraint(holds),
            (Builtin::Prune, false) => {
                // The one way from this prefix to an unverified execution:
                // tried first, as a must-unverified condition is.
                let a = Alternative {
                    cond: holds,
                    goal: None,
                    kind: AltKind::TryFirst,
                    target: None,
                    useless: false,
                    distance: None,
                };
                self.branch_point(site, vec![a], fails);
                return Err(Stop::End(TraceEnd::Pruned));
            }
            _ => {
                let kind = if holds_now { AltKind::Branch } else { AltKind::TryFirst };
                let a = Alternative { cond: alt, goal: None, kind, target: None, useless: false, distance: None };
                self.branch_point(site, vec![a], taken);
            }
        }
        Ok(())
    }
}

impl Tracer<'_> {
    fn prepared_global(&self, g: walkdown_ir::GlobalId) -> u64 {
        self.global_addrs.get(g.index()).copied().unwrap_or(0)
    }
}

fn error(what: String) -> Stop {
    Stop::End(TraceEnd::Error(what))
}

fn unsupported(what: String) -> Stop {
    Stop::End(TraceEnd::Unsupported(what))
}
