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

mod trip;

pub use trip::TripLoop;
use walkdown_ir::entity::EntityRef;
use walkdown_semantics::Sym;
use walkdown_campaign::{Monitor, MonitorPosition};
use std::rc::Rc;
use std::collections::HashMap;
use walkdown_interp::code::{FuncKind, Model, Prepared};
use walkdown_interp::eval::{eval_bin, eval_cast, eval_cmp, eval_fabs, eval_select, eval_sqrt, eval_un};
use walkdown_interp::memory::{Memory, ObjectKind};
use walkdown_interp::{input_bits, ExecLimits};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::testvec::InputValue;
use walkdown_ir::{
    Block, BlockCall, Body, Builtin, Callee, CheckKind, DataModel, FuncId, Inst, InstKind, Operand, Program,
    Terminator, Type, Value,
};
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
            max_trip_symbols: 64,
            symbolic_floats: true,
            max_float_ops: 2_000,
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
    visits: HashMap<(FuncId, Block), u32>,
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

    /// Runs `inputs` and returns the trace.
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
            visits: HashMap::new(),
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

impl<'p, 'a> Run<'p, 'a> {
    fn start(&mut self) -> Result<(), Stop> {
        let entry = self.t.program.entry().ok_or_else(|| unsupported("the program has no `main`".into()))?;
        let main_args = self.t.prepared.main_args.clone();
        self.enter(entry, &main_args.iter().map(|&v| (v, None)).collect::<Vec<_>>(), None)?;
        loop {
            if self.trace.steps >= self.limits.exec.max_steps {
                return Err(Stop::End(TraceEnd::Limit));
            }
            if self.trace.steps % 4096 == 0 && std::time::Instant::now() >= self.deadline {
                return Err(Stop::End(TraceEnd::Limit));
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
        if self.sym.is_true(taken) {
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
        let alternatives: Vec<Alternative> =
            alternatives.into_iter().filter(|a| !self.sym.is_false(a.cond)).collect();
        if !alternatives.is_empty() {
            self.trace.points.push(BranchPoint { prefix, alternatives, site });
        }
        self.push_constraint(taken);
    }

    /// Adds a constraint to the path condition, up to `max_path`; past it
    /// the run records nothing more (its later branch points would rest on
    /// an incomplete prefix anyway).
    fn push_constraint(&mut self, c: ExprId) {
        if self.trace.path.len() < self.limits.max_path {
            self.trace.path.push(c);
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
        let current: i128 = if signed && w < 128 && (c >> (w - 1)) & 1 == 1 { c as i128 - (1i128 << w) } else { c as i128 };
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
            alts.push(Alternative { cond, goal: None, kind: AltKind::Branch, target: Some(target), useless: false, distance: None });
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
                alts.push(Alternative { cond, goal: None, kind: AltKind::Branch, target: None, useless: false, distance: None });
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
                let a = Alternative { cond: holds, goal: None, kind: AltKind::TryFirst, target: None, useless: false, distance: None };
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

    /// Checks a memory access of `n` bytes through a pointer whose address
    /// may be symbolic: offers the out-of-bounds alternative, then fixes
    /// the address unless the load can read it symbolically.
    fn address(&mut self, inst: Inst, addr: u64, sp: Option<ExprId>, n: u64) -> Result<u64, Stop> {
        let Some(e) = sp else { return Ok(addr) };
        let w = self.dm.pointer_bits();
        let site = (self.frame().func, self.frame().block);
        if let Some(obj) = self.mem.find(addr).and_then(|i| self.mem.object(i)).filter(|o| o.live) {
            let (base, size) = (obj.base, obj.size);
            if size >= n && addr >= base && addr + n <= base + size {
                let lo = self.sym.bv(base, w);
                let hi = self.sym.bv(base + size - n, w);
                let ge = self.sym.cmp(walkdown_ir::CmpPred::Uge, e, lo);
                let le = self.sym.cmp(walkdown_ir::CmpPred::Ule, e, hi);
                let inside = self.sym.and(ge, le);
                let outside = self.sym.not(inside);
                let goal = self.t.goals.error_site(self.frame().func, inst);
                let alt = Alternative { cond: outside, goal, kind: AltKind::Check(CheckKind::OutOfBounds), target: None, useless: false, distance: None };
                self.branch_point(site, vec![alt], inside);
            }
        }
        Ok(addr)
    }

    /// The shadow of `n` bytes loaded from `addr` as a value of `ty`.
    fn load_shadow(&mut self, addr: u64, n: u64, ty: Type, sp: Option<ExprId>) -> Option<ExprId> {
        if !self.tracked(ty) {
            if sp.is_some() {
                self.concretize(addr, sp, self.dm.pointer_bits());
            }
            return None;
        }
        let w = self.width(ty);
        if let Some(pe) = sp {
            if let Some(e) = self.symbolic_read(addr, pe, n, w) {
                return Some(e);
            }
            self.concretize(addr, sp, self.dm.pointer_bits());
        }
        self.bytes_shadow(addr, n, w)
    }

    /// The value at a concrete address from the byte shadows.
    fn bytes_shadow(&mut self, addr: u64, n: u64, w: u32) -> Option<ExprId> {
        if self.mem_shadow.is_empty() || !(0..n).any(|i| self.mem_shadow.contains_key(&(addr + i))) {
            return None;
        }
        let mut acc: Option<ExprId> = None;
        for i in (0..n).rev() {
            let byte = match self.mem_shadow.get(&(addr + i)) {
                Some(&e) => e,
                None => {
                    let v = self.mem.load(addr + i, 1).unwrap_or(0);
                    self.sym.bv(v, 8)
                }
            };
            acc = Some(match acc {
                None => byte,
                Some(hi) => self.sym.concat(hi, byte),
            });
        }
        let e = acc.expect("n > 0");
        Some(if w < 8 * n as u32 { self.sym.extract(e, w - 1, 0) } else { e })
    }

    /// A read through a symbolic address within a small object: the choice
    /// over every aligned position the address may take.
    fn symbolic_read(&mut self, addr: u64, pe: ExprId, n: u64, w: u32) -> Option<ExprId> {
        let idx = self.mem.find(addr)?;
        let obj = self.mem.object(idx)?;
        if !obj.live || obj.size > self.limits.max_symbolic_object || obj.size < n {
            return None;
        }
        let (base, size) = (obj.base, obj.size);
        let phase = (addr - base) % n;
        let pw = self.dm.pointer_bits();
        let mut positions: Vec<u64> = Vec::new();
        let mut off = phase;
        while off + n <= size {
            positions.push(base + off);
            off += n;
        }
        let mut acc: Option<ExprId> = None;
        for &p in positions.iter().rev() {
            let v = match self.bytes_shadow(p, n, w) {
                Some(e) => e,
                None => {
                    let bits = self.mem.load(p, n).ok()?;
                    self.sym.bv(bits, w)
                }
            };
            acc = Some(match acc {
                None => v,
                Some(rest) => {
                    let pc = self.sym.bv(p, pw);
                    let at = self.sym.eq(pe, pc);
                    self.sym.ite(at, v, rest)
                }
            });
        }
        // Keep the address on its alignment class, which the choice assumes.
        self.keep_alignment(pe, base, n, phase);
        acc
    }

    /// A write through a symbolic address within a small object: every
    /// aligned position the address may take gets `addr == position ?
    /// value : old`, byte by byte (the array-store semantics, spelled over
    /// the byte shadows). False when the object is too large or unknown;
    /// the caller then fixes the address.
    fn symbolic_write(&mut self, addr: u64, pe: ExprId, n: u64, v: u64, sv: Option<ExprId>, w: u32) -> bool {
        let Some(obj) = self.mem.find(addr).and_then(|i| self.mem.object(i)) else { return false };
        if !obj.live || obj.size > self.limits.max_symbolic_object || obj.size < n {
            return false;
        }
        let (base, size) = (obj.base, obj.size);
        let phase = (addr - base) % n;
        let pw = self.dm.pointer_bits();
        let full = (8 * n) as u32;
        let value = match sv {
            Some(e) if w < full => self.sym.cast(walkdown_ir::CastOp::ZExt, w, full, e),
            Some(e) => e,
            None => self.sym.bv(v, full.min(64)),
        };
        let mut off = phase;
        while off + n <= size {
            let p = base + off;
            let pc = self.sym.bv(p, pw);
            let here = self.sym.eq(pe, pc);
            for i in 0..n {
                let lo = (8 * i) as u32;
                let new_byte = self.sym.extract(value, lo + 7, lo);
                let old_byte = match self.mem_shadow.get(&(p + i)) {
                    Some(&e) => e,
                    None => {
                        let b = self.mem.load(p + i, 1).unwrap_or(0);
                        self.sym.bv(b, 8)
                    }
                };
                let byte = self.sym.ite(here, new_byte, old_byte);
                if self.sym.const_value(byte).is_some() {
                    self.mem_shadow.remove(&(p + i));
                } else {
                    self.mem_shadow.insert(p + i, byte);
                }
            }
            off += n;
        }
        self.keep_alignment(pe, base, n, phase);
        true
    }

    /// Keeps a symbolic address `pe` on the alignment class (offset from
    /// `base` modulo the access size `n` equal to `phase`) that a choice
    /// over an object's aligned positions assumes.
    fn keep_alignment(&mut self, pe: ExprId, base: u64, n: u64, phase: u64) {
        if phase == 0 && n == 1 {
            return;
        }
        let pw = self.dm.pointer_bits();
        let nn = self.sym.bv(n, pw);
        let b = self.sym.bv(base, pw);
        let rel = self.sym.bin(walkdown_ir::BinOp::Sub, pw, pe, b);
        let r = self.sym.bin(walkdown_ir::BinOp::URem, pw, rel, nn);
        let ph = self.sym.bv(phase, pw);
        let aligned = self.sym.eq(r, ph);
        if !self.sym.is_true(aligned) {
            self.push_constraint(aligned);
        }
    }

    fn clear_shadow(&mut self, addr: u64, n: u64) {
        if self.mem_shadow.is_empty() {
            return;
        }
        if n > 4096 {
            self.mem_shadow.retain(|&a, _| a < addr || a >= addr + n);
        } else {
            for i in 0..n {
                self.mem_shadow.remove(&(addr + i));
            }
        }
    }

    fn store_shadow(&mut self, addr: u64, n: u64, sv: Option<ExprId>, w: u32) {
        let Some(e) = sv else {
            self.clear_shadow(addr, n);
            return;
        };
        let full = (8 * n) as u32;
        let e = if w < full { self.sym.cast(walkdown_ir::CastOp::ZExt, w, full, e) } else { e };
        for i in 0..n {
            let lo = (8 * i) as u32;
            let byte = self.sym.extract(e, lo + 7, lo);
            if self.sym.const_value(byte).is_some() {
                self.mem_shadow.remove(&(addr + i));
            } else {
                self.mem_shadow.insert(addr + i, byte);
            }
        }
    }

    fn enter(&mut self, f: FuncId, args: &[(u64, Option<ExprId>)], ret_to: Option<Value>) -> Result<(), Stop> {
        if self.frames.len() as u64 >= u64::from(self.limits.exec.max_call_depth) {
            return Err(Stop::End(TraceEnd::Limit));
        }
        let body = self.t.program.funcs[f].body.as_ref().ok_or_else(|| unsupported("call of a function without body".into()))?;
        let nvals = body.values.len();
        let mut frame = Frame {
            func: f,
            body,
            vals: vec![0; nvals],
            shadow: vec![None; nvals],
            block: Body::ENTRY,
            pos: 0,
            ret_to,
            stack_objects: Vec::new(),
        };
        for (i, &p) in body.blocks[Body::ENTRY].params.iter().enumerate() {
            if let Some(&(v, s)) = args.get(i) {
                frame.vals[p.index()] = v;
                frame.shadow[p.index()] = s;
            }
        }
        self.frames.push(frame);
        Ok(())
    }

    fn call(
        &mut self,
        inst: Inst,
        target: FuncId,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<(), Stop> {
        let xf = &self.t.prepared.funcs[target.index()];
        match &xf.kind {
            FuncKind::Defined { .. } => self.enter(target, args, result),
            FuncKind::Model(Model::ReachError) => {
                self.cover(self.t.goals.error_site(self.frame().func, inst));
                Err(error("reach_error".into()))
            }
            FuncKind::Model(Model::AssertFail) => {
                self.cover(self.t.goals.error_site(self.frame().func, inst));
                Err(error("assertion".into()))
            }
            FuncKind::Model(Model::Assume) => {
                let (c, sc) = args.first().copied().unwrap_or((1, None));
                if let Some(e) = sc {
                    let w = self.sym.width(e);
                    let zero = self.sym.bv(0, w);
                    let nz = self.sym.eq(e, zero);
                    let nz = if c != 0 { self.sym.not(nz) } else { nz };
                    self.push_constraint(nz);
                }
                if c == 0 {
                    return Err(Stop::End(TraceEnd::AssumeFailed));
                }
                Ok(())
            }
            // An input is consumed even when the result is unused, as the
            // interpreter does, so that positions in the vector agree.
            FuncKind::Model(Model::Nondet { signed }) => {
                if let Some(ty) = ret {
                    let (bits, shadow) = self.next_input(ty, *signed && ty.is_int() && ty != Type::I1);
                    if let Some(r) = result {
                        self.set(r, bits, shadow);
                    }
                }
                Ok(())
            }
            // The shadow follows no non-local jump: a run that takes one
            // ends here, and is judged by the interpreter's replay.
            FuncKind::Model(Model::Setjmp) => {
                if let Some(r) = result {
                    self.set(r, 0, None);
                }
                Ok(())
            }
            FuncKind::Model(Model::Longjmp) => Err(unsupported("longjmp".into())),
            FuncKind::Unknown => {
                if let Some(ty) = ret {
                    let (bits, shadow) = self.next_input(ty, ty.is_int() && ty != Type::I1);
                    if let Some(r) = result {
                        self.set(r, bits, shadow);
                    }
                }
                Ok(())
            }
            FuncKind::Builtin(b) => self.builtin(*b, args, result, ret),
        }
    }

    fn builtin(
        &mut self,
        b: Builtin,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<(), Stop> {
        let pw = self.dm.pointer_bits();
        let arg = |i: usize| args.get(i).copied().unwrap_or((0, None));
        let fault = |k: CheckKind| error(format!("{} in a library call", k.name()));
        if let Some(need) = walkdown_interp::libc::arity(b) {
            return self.shared_builtin(b, need, args, result, ret);
        }
        let value: u64 = match b {
            Builtin::Malloc | Builtin::Calloc | Builtin::Realloc => {
                let (a0, s0) = arg(0);
                let (a1, s1) = arg(1);
                if b == Builtin::Realloc {
                    self.concretize(a0, s0, pw);
                } else {
                    self.concretize_size(a0, s0);
                }
                if b != Builtin::Malloc {
                    self.concretize_size(a1, s1);
                }
                let n = match b {
                    Builtin::Malloc => Some(a0),
                    Builtin::Calloc => a0.checked_mul(a1),
                    _ => Some(a1),
                };
                match n.map(|n| self.mem.alloc(n, 16, ObjectKind::Heap, false)) {
                    Some(Ok((_, addr))) => {
                        if b == Builtin::Realloc && a0 != 0 {
                            let old = self.mem.heap_block(a0).map_err(fault)?;
                            let old_size = self.mem.object(old).map_or(0, |o| o.size);
                            let len = old_size.min(a1);
                            self.copy(addr, a0, len)?;
                            self.mem.release(old);
                        }
                        addr
                    }
                    _ => 0,
                }
            }
            Builtin::Free => {
                let (p, sp) = arg(0);
                self.concretize(p, sp, pw);
                self.mem.free_heap(p).map_err(fault)?;
                0
            }
            Builtin::Memset => {
                let (p, sp) = arg(0);
                let (c, sc) = arg(1);
                let (n, sn) = arg(2);
                self.concretize(p, sp, pw);
                self.concretize(n, sn, pw);
                self.mem.bytes_mut(p, n).map_err(|f| fault(f.kind))?.fill(c as u8);
                match sc {
                    Some(e) => {
                        let w = self.sym.width(e);
                        let byte = if w >= 8 { self.sym.extract(e, 7, 0) } else { self.sym.cast(walkdown_ir::CastOp::ZExt, w, 8, e) };
                        for i in 0..n {
                            self.mem_shadow.insert(p + i, byte);
                        }
                    }
                    None => self.clear_shadow(p, n),
                }
                p
            }
            Builtin::Memcpy | Builtin::Memmove => {
                let (d, sd) = arg(0);
                let (s, ss) = arg(1);
                let (n, sn) = arg(2);
                self.concretize(d, sd, pw);
                self.concretize(s, ss, pw);
                self.concretize(n, sn, pw);
                self.copy(d, s, n)?;
                d
            }
            Builtin::Exit => return Err(Stop::End(TraceEnd::Exit)),
            Builtin::Abort => return Err(error("abort".into())),
            Builtin::Print | Builtin::NoOp | Builtin::Annotation => 0,
            Builtin::Prune | Builtin::TryFirst => {
                self.annotation_point(b, arg(0))?;
                0
            }
            Builtin::Fabs | Builtin::Sqrt => {
                let ty = ret.unwrap_or(Type::F64);
                let (v, sv) = arg(0);
                if b == Builtin::Fabs {
                    if let (Some(e), Some(r)) = (sv, result) {
                        if self.tracked(ty) && self.sym.width(e) == self.width(ty) {
                            let abs = self.sym.fabs(self.width(ty), e);
                            self.set(r, eval_fabs(ty, v), Some(abs));
                            return Ok(());
                        }
                    }
                    eval_fabs(ty, v)
                } else {
                    eval_sqrt(ty, v)
                }
            }
            // String and comparison functions run concretely: their
            // pointer arguments are fixed, their results carry no shadow.
            Builtin::Memcmp | Builtin::Strlen | Builtin::Strcmp | Builtin::Strncmp | Builtin::Strcpy
            | Builtin::Strncpy | Builtin::Strchr => {
                for &(v, s) in args {
                    self.concretize(v, s, pw);
                }
                self.string_builtin(b, args.iter().map(|a| a.0).collect())?
            }
            // Run by `shared_builtin` above.
            _ => 0,
        };
        if let (Some(r), Some(ty)) = (result, ret) {
            let bits = walkdown_interp::eval::truncate(value, ty.bits(self.dm));
            self.set(r, bits, None);
        }
        Ok(())
    }

    /// A model of `walkdown_interp::libc`, run as the interpreter runs it.
    /// `abs` keeps its argument's shadow (`x < 0 ? -x : x`); the other
    /// models run on concrete arguments (fixed by the path condition) and
    /// give a concrete result, and the bytes they write lose their shadows.
    fn shared_builtin(
        &mut self,
        b: Builtin,
        need: usize,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<(), Stop> {
        let arg = |i: usize| args.get(i).copied().unwrap_or((0, None));
        let param0 = None;
        let concrete: Vec<u64> = (0..need).map(|i| arg(i).0).collect();
        let effect = walkdown_interp::libc::call(&mut self.mem, b, &concrete, ret, param0)
            .map_err(|f| error(format!("{} in a library call", f.kind.name())))?;
        if let Some((at, n)) = effect.written {
            self.clear_shadow(at, n);
        }
        let (Some(r), Some(ty)) = (result, ret) else { return Ok(()) };
        let w = ty.bits(self.dm);
        let bits = walkdown_interp::eval::truncate(effect.value, w);
        let shadow = match (b, arg(0).1) {
            (Builtin::Abs, Some(e)) if ty.is_int() => {
                let x = self.sym.resize(e, self.sym.width(e), w, true);
                let zero = self.sym.bv(0, w);
                let neg = self.sym.cmp(walkdown_ir::CmpPred::Slt, x, zero);
                let minus = self.sym.bin(walkdown_ir::BinOp::Sub, w, zero, x);
                Some(self.sym.ite(neg, minus, x))
            }
            _ => {
                for &(v, sv) in args.iter().take(need) {
                    self.concretize(v, sv, 0);
                }
                None
            }
        };
        self.set(r, bits, shadow);
        Ok(())
    }

    fn string_builtin(&mut self, b: Builtin, a: Vec<u64>) -> Result<u64, Stop> {
        let fault = |f: walkdown_interp::memory::MemFault| error(format!("{} in a library call", f.kind.name()));
        let a0 = a.first().copied().unwrap_or(0);
        let a1 = a.get(1).copied().unwrap_or(0);
        let a2 = a.get(2).copied().unwrap_or(0);
        let cstr = |mem: &mut Memory, p: u64, max: u64| -> Result<Vec<u8>, Stop> {
            let mut out = Vec::new();
            let mut i = 0;
            while i < max {
                let c = mem.load(p + i, 1).map_err(fault)? as u8;
                out.push(c);
                if c == 0 {
                    break;
                }
                i += 1;
            }
            Ok(out)
        };
        Ok(match b {
            Builtin::Strlen => cstr(&mut self.mem, a0, u64::MAX)?.len() as u64 - 1,
            Builtin::Strcmp | Builtin::Strncmp => {
                let max = if b == Builtin::Strcmp { u64::MAX } else { a2 };
                let mut i = 0;
                loop {
                    if i >= max {
                        break 0;
                    }
                    let x = self.mem.load(a0 + i, 1).map_err(fault)? as u8;
                    let y = self.mem.load(a1 + i, 1).map_err(fault)? as u8;
                    if x != y {
                        break (i32::from(x) - i32::from(y)) as i64 as u64;
                    }
                    if x == 0 {
                        break 0;
                    }
                    i += 1;
                }
            }
            Builtin::Memcmp => {
                let mut r = 0u64;
                for i in 0..a2 {
                    let x = self.mem.load(a0 + i, 1).map_err(fault)? as u8;
                    let y = self.mem.load(a1 + i, 1).map_err(fault)? as u8;
                    if x != y {
                        r = (i32::from(x) - i32::from(y)) as i64 as u64;
                        break;
                    }
                }
                r
            }
            Builtin::Strcpy => {
                let s = cstr(&mut self.mem, a1, u64::MAX)?;
                self.mem.write_bytes(a0, &s).map_err(fault)?;
                self.clear_shadow(a0, s.len() as u64);
                a0
            }
            Builtin::Strncpy => {
                let mut s = cstr(&mut self.mem, a1, a2)?;
                s.resize(a2 as usize, 0);
                self.mem.write_bytes(a0, &s).map_err(fault)?;
                self.clear_shadow(a0, a2);
                a0
            }
            Builtin::Strchr => {
                let s = cstr(&mut self.mem, a0, u64::MAX)?;
                let c = a1 as u8;
                match s.iter().position(|&x| x == c) {
                    Some(i) => a0 + i as u64,
                    None => 0,
                }
            }
            _ => 0,
        })
    }

    /// `memmove` with shadows.
    fn copy(&mut self, dst: u64, src: u64, n: u64) -> Result<(), Stop> {
        self.mem.copy(dst, src, n).map_err(|f| error(format!("{} in a library call", f.kind.name())))?;
        if self.mem_shadow.is_empty() {
            return Ok(());
        }
        let moved: Vec<(u64, Option<ExprId>)> =
            (0..n).map(|i| (dst + i, self.mem_shadow.get(&(src + i)).copied())).collect();
        for (a, s) in moved {
            match s {
                Some(e) => {
                    self.mem_shadow.insert(a, e);
                }
                None => {
                    self.mem_shadow.remove(&a);
                }
            }
        }
        Ok(())
    }

    /// Whether the monitor shows successor `succ` of the branch at `site`
    /// leads to no open goal from where the run is.
    fn monitor_useless(&self, site: (FuncId, Block), succ: u32) -> bool {
        match &self.t.monitor {
            Some(m) => !m.useful(&self.monitor_at, site, succ),
            None => false,
        }
    }

    /// The monitor's distance from successor `succ` of the branch at
    /// `site` to an open goal's edge.
    fn monitor_distance(&self, site: (FuncId, Block), succ: u32) -> Option<u32> {
        self.t.monitor.as_ref().and_then(|m| m.distance(&self.monitor_at, site, succ))
    }

    /// Steps the monitor over the run's decision at `site`.
    fn monitor_step(&mut self, site: (FuncId, Block), succ: u32) {
        if let Some(m) = &self.t.monitor {
            let at = std::mem::replace(&mut self.monitor_at, MonitorPosition::Anywhere);
            self.monitor_at = m.step(at, site, succ);
        }
    }

    /// Moves to `call`'s block with its arguments.
    fn jump(&mut self, call: &BlockCall) {
        let (func, from) = (self.frame().func, self.frame().block);
        let vals: Vec<(u64, Option<ExprId>)> = call.args.iter().map(|a| self.operand(a)).collect();
        let body = self.frame().body;
        let params = &body.blocks[call.block].params;
        for (p, (v, s)) in params.iter().zip(vals) {
            self.set(*p, v, s);
        }
        let f = self.frame_mut();
        f.block = call.block;
        f.pos = 0;
        if let Some(&li) = self.t.ff_heads.get(&(func, call.block)) {
            self.fast_forward(func, from, call.block, li);
        }
    }

    /// At the head of fast-forward loop `li`, entered from `from`: jumps
    /// over the iterations the interpreter would jump over, when every
    /// value the loop reads is concrete (the skipped iterations then add
    /// nothing to the path condition); otherwise the loop runs as it is.
    fn fast_forward(&mut self, func: FuncId, from: Block, head: Block, li: usize) {
        let p = self.t.prepared;
        let Some(l) = p.ff.loops.get(li) else { return };
        // Only back edges: the interpreter, too, first runs an iteration.
        match self.t.ff_starts.get(&(func, from)) {
            Some(pc) if l.blocks.binary_search(pc).is_ok() => {}
            _ => return,
        }
        let wait = self.ff_wait.entry(li).or_insert((0, 0));
        if wait.0 > 0 {
            wait.0 -= 1;
            return;
        }
        let jumped = self.try_fast_forward(func, head, li);
        if jumped {
            // The monitor counts decisions; the iterations jumped over
            // decided branches it did not see.
            self.monitor_at = MonitorPosition::Anywhere;
        }
        let wait = self.ff_wait.entry(li).or_insert((0, 0));
        if jumped {
            wait.1 = 0;
        } else {
            wait.1 = (wait.1 + 1).min(10);
            wait.0 = (1u32 << wait.1) - 1;
        }
    }

    fn try_fast_forward(&mut self, func: FuncId, head: Block, li: usize) -> bool {
        let p = self.t.prepared;
        let f = self.frame();
        if self.t.ff_used.get(li).is_none_or(|used| used.iter().any(|v| f.shadow.get(v.index()).is_none_or(|s| s.is_some()))) {
            return false;
        }
        let FuncKind::Defined { frame, consts_start, consts_len, .. } = &p.funcs[func.index()].kind else {
            return false;
        };
        // The interpreter's frame layout: values, a sink, constants.
        let (cs, cl) = (*consts_start as usize, *consts_len as usize);
        let mut regs = vec![0u64; *frame as usize];
        let n = f.vals.len();
        let (Some(consts), true) = (p.consts.get(cs..cs + cl), n + cl <= regs.len()) else {
            return false;
        };
        regs[..n].copy_from_slice(&f.vals);
        let cb = regs.len() - cl;
        regs[cb..].copy_from_slice(consts);
        let Some(jump) = walkdown_interp::fastforward::plan(p, li, &regs, 0, &mut Vec::new()) else {
            return false;
        };
        let params = &f.body.blocks[head].params;
        let after: Vec<(Value, u64)> =
            params.iter().enumerate().map(|(i, &v)| (v, jump.value_after(i, f.vals[v.index()]))).collect();
        for (v, bits) in after {
            self.set(v, bits, None);
        }
        for &g in jump.goals() {
            self.cover(Some(GoalId::new(g as usize)));
        }
        true
    }

    /// Executes a terminator; true when the program ended.
    fn exec_term(&mut self, term: &Terminator) -> Result<bool, Stop> {
        let func = self.frame().func;
        let block = self.frame().block;
        match term {
            Terminator::Jump(call) => self.jump(call),
            Terminator::Branch { cond, if_true, if_false } => {
                let (c, sc) = self.operand(cond);
                let taken = c & 1 != 0;
                let (taken_succ, other_succ) = if taken { (0, 1) } else { (1, 0) };
                let other_useless = self.monitor_useless((func, block), other_succ);
                let other_distance = self.monitor_distance((func, block), other_succ);
                self.monitor_step((func, block), taken_succ);
                let goal = |succ: u32| self.t.goals.edge(func, block, succ);
                let (g_taken, g_other) = if taken { (goal(0), goal(1)) } else { (goal(1), goal(0)) };
                self.cover(g_taken);
                let exit = if self.t.trip_exits.is_empty() {
                    None
                } else {
                    self.t.trip_exits.get(&(func, block, if taken { 0 } else { 1 })).copied()
                };
                let trip = match exit {
                    Some(k) => {
                        let loops = Rc::clone(&self.t.trip_loops);
                        self.trip_exit(&loops[k], cond, taken)
                    }
                    None => None,
                };
                if let Some(trip) = trip {
                    // The exit constraint in the trip count replaces the
                    // branch's own (which would pin the count to this
                    // run's), and is kept past the site's visit cap: it is
                    // what later branches on the head's values rest on.
                    let mut alts = Vec::new();
                    if let Some(e) = sc {
                        let b = self.sym.bv1_to_bool(e);
                        let stay = if taken { self.sym.not(b) } else { b };
                        let other = if taken { if_false.block } else { if_true.block };
                        alts.push(Alternative { cond: stay, goal: g_other, kind: AltKind::Branch, target: Some((func, other)), useless: other_useless, distance: other_distance });
                    }
                    if self.may_record((func, block)) && !alts.is_empty() {
                        let prefix = self.trace.path.len();
                        self.trace.points.push(BranchPoint { prefix, alternatives: alts, site: (func, block) });
                    }
                    self.push_constraint(trip.constraint);
                    // Rebound before the jump, whose arguments may pass
                    // the head's values on.
                    for (v, e) in trip.rebind {
                        let bits = self.frame().vals[v.index()];
                        self.set(v, bits, Some(e));
                    }
                    self.jump(if taken { if_true } else { if_false });
                    return Ok(false);
                }
                if let Some(e) = sc {
                    let b = self.sym.bv1_to_bool(e);
                    let nb = self.sym.not(b);
                    let (t, alt) = if taken { (b, nb) } else { (nb, b) };
                    let other = if taken { if_false.block } else { if_true.block };
                    let a = Alternative { cond: alt, goal: g_other, kind: AltKind::Branch, target: Some((func, other)), useless: other_useless, distance: other_distance };
                    let mut alts = vec![a];
                    if self.limits.accelerate {
                        self.note_counter((func, block), t);
                        let visits = self.visits.get(&(func, block)).copied().unwrap_or(0);
                        if visits + 1 == self.limits.max_visits_per_site {
                            let stay = if taken { if_true.block } else { if_false.block };
                            alts.extend(self.acceleration((func, block), t, (func, stay)));
                        }
                    }
                    self.branch_point((func, block), alts, t);
                }
                self.jump(if taken { if_true } else { if_false });
            }
            Terminator::Switch { ty, value, cases, default } => {
                let (v, sv) = self.operand(value);
                let w = self.width(*ty);
                let v = walkdown_interp::eval::truncate(v, w);
                let chosen = cases.iter().position(|(k, _)| walkdown_interp::eval::truncate(*k, w) == v);
                let succ = chosen.unwrap_or(cases.len()) as u32;
                self.cover(self.t.goals.edge(func, block, succ));
                let useless: Vec<bool> = (0..=cases.len() as u32).map(|k| self.monitor_useless((func, block), k)).collect();
                let distance: Vec<Option<u32>> = (0..=cases.len() as u32).map(|k| self.monitor_distance((func, block), k)).collect();
                self.monitor_step((func, block), succ);
                if let Some(e) = sv {
                    let mut eqs = Vec::with_capacity(cases.len());
                    for (k, _) in cases {
                        let kc = self.sym.bv(*k, w);
                        eqs.push(self.sym.eq(e, kc));
                    }
                    let mut none = self.sym.bool(true);
                    for &q in &eqs {
                        let nq = self.sym.not(q);
                        none = self.sym.and(none, nq);
                    }
                    let mut alts = Vec::new();
                    for (i, &q) in eqs.iter().enumerate() {
                        if Some(i) != chosen {
                            let goal = self.t.goals.edge(func, block, i as u32);
                            alts.push(Alternative { cond: q, goal, kind: AltKind::Branch, target: Some((func, cases[i].1.block)), useless: useless[i], distance: distance[i] });
                        }
                    }
                    if chosen.is_some() {
                        let goal = self.t.goals.edge(func, block, cases.len() as u32);
                        alts.push(Alternative { cond: none, goal, kind: AltKind::Branch, target: Some((func, default.block)), useless: useless[cases.len()], distance: distance[cases.len()] });
                    }
                    let taken = match chosen {
                        Some(i) => eqs[i],
                        None => none,
                    };
                    self.branch_point((func, block), alts, taken);
                }
                let call = match chosen {
                    Some(i) => &cases[i].1,
                    None => default,
                };
                self.jump(call);
            }
            Terminator::Return(val) => {
                let rv = val.as_ref().map(|v| self.operand(v));
                let frame = self.frames.pop().expect("a frame is active");
                for idx in frame.stack_objects.iter().rev() {
                    if let Some(o) = self.mem.object(*idx) {
                        let (base, size) = (o.base, o.size);
                        self.clear_shadow(base, size);
                    }
                    self.mem.release(*idx);
                }
                if self.frames.is_empty() {
                    return Ok(true);
                }
                if let (Some(r), Some((v, s))) = (frame.ret_to, rv) {
                    self.set(r, v, s);
                }
            }
            Terminator::Unreachable => return Err(unsupported("`unreachable` reached".into())),
        }
        Ok(false)
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
