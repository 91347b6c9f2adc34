//! What a complete abstract reachability graph proves, kept so others can
//! check it and print it. Per location of the model, the disjunction of the
//! graph's node states there is an inductive invariant that excludes the
//! proved error sites; at the heads of source loops it is translated into a
//! [`Formula`] over the original function's values (dropping the atoms it
//! cannot say that way: memory, values of other functions, values a writer
//! cannot name), which is what a correctness witness states.
//!
//! [`Certificate::check`] re-checks such a set of loop-head formulas, one
//! step at a time under the same encoding the checker and the bounded
//! engine use: from the formula at a head (the graph's invariant
//! elsewhere), every step stays within the invariant of its target, and no
//! proved check can fail. Only formulas that pass are worth writing: a
//! weakened formula may lose inductiveness.

use std::collections::{HashMap, HashSet};

use crate::model::Model;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::formula::{is_term_op, Formula, Term};
use walkdown_ir::goals::GoalId;
use walkdown_ir::{BinOp, Block, CastOp, CmpPred, Const, FuncId, Operand, Type, Value};
use walkdown_smt::{BvBinOp, BvUnOp, CmpOp, ExprId, Leaf, Node, Solver, SolverSettings, SolverStack, Sort, SymId};

/// Steps an error check looks back when its block's invariant alone does
/// not exclude it (see [`Certificate::excluded_looking_back`]).
const LOOK_BACK: usize = 4;
/// Queries one check's look-back may ask at most.
const LOOK_BACK_QUERIES: usize = 64;

/// A formula claimed to hold on every entry to a loop head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadInvariant {
    /// The original function.
    pub func: FuncId,
    /// The loop's head in it.
    pub head: Block,
    /// Over the function's values available at the head.
    pub formula: Formula,
}

/// The outcome of [`Certificate::check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Every step and check passed.
    pub valid: bool,
    /// Steps and checks asked about.
    pub queries: u64,
    /// What failed first, in words (empty when valid).
    pub failure: String,
}

/// Where a certificate's invariants come from.
enum Source {
    /// A complete abstract reachability graph.
    Graph {
        /// Per location: the node states, each a conjunction of literals.
        states: Vec<Vec<Vec<ExprId>>>,
        /// The literals that state a tracked value (`param == constant`).
        value_literals: HashSet<ExprId>,
    },
    /// A formula per original block (the abstract interpretation's states;
    /// `None`: unreachable), which holds at every piece of its copies (values
    /// are SSA: a value keeps its value after an inlined call).
    Formulas(HashMap<(FuncId, Block), Option<Formula>>),
}

/// Invariants over a model that prove goals unreachable: a complete
/// graph's, or another analysis' per-block formulas.
pub struct Certificate {
    model: Model,
    source: Source,
    /// The goals proved unreachable.
    proved: Vec<GoalId>,
    /// Per state symbol: its location and parameter number.
    sym_param: HashMap<SymId, (Block, usize)>,
}

impl Certificate {
    /// The certificate of a complete run over `model` whose node states
    /// per location are `states`, of which `value_literals` state tracked
    /// values ([`crate::Checker::location_states`]).
    pub fn new(
        model: Model,
        states: Vec<Vec<Vec<ExprId>>>,
        value_literals: HashSet<ExprId>,
        proved: Vec<GoalId>,
    ) -> Certificate {
        Certificate::with_source(model, Source::Graph { states, value_literals }, proved)
    }

    /// The certificate that the formulas `formula_of` gives per original
    /// block (`None`: no execution gets there) prove `proved` unreachable
    /// — to be confirmed by [`Certificate::check`].
    pub fn from_formulas(
        model: Model,
        formula_of: &dyn Fn(FuncId, Block) -> Option<Formula>,
        proved: Vec<GoalId>,
    ) -> Certificate {
        let mut by_origin = HashMap::new();
        for b in model.body.blocks.keys() {
            if let Some(o) = model.prov.blocks.get(b) {
                by_origin.entry((o.func, o.block)).or_insert_with(|| formula_of(o.func, o.block));
            }
            for &(f, cb) in model.prov.call_sites.get(b) {
                by_origin.entry((f, cb)).or_insert_with(|| formula_of(f, cb));
            }
        }
        Certificate::with_source(model, Source::Formulas(by_origin), proved)
    }

    /// Whether the invariants come from a model checker's graph (else from
    /// per-block formulas).
    pub fn from_graph(&self) -> bool {
        matches!(self.source, Source::Graph { .. })
    }

    fn with_source(model: Model, source: Source, proved: Vec<GoalId>) -> Certificate {
        let mut sym_param = HashMap::new();
        for (b, st) in model.states.iter().enumerate() {
            for (j, &p) in st.params.iter().enumerate() {
                if let Node::Var { sym, .. } = model.pool.get(p) {
                    sym_param.insert(*sym, (Block::new(b), j));
                }
            }
        }
        Certificate { model, source, proved, sym_param }
    }

    /// The goals the graph proved unreachable.
    pub fn proved(&self) -> &[GoalId] {
        &self.proved
    }

    /// The model blocks that are copies of the start of `head` of `func`.
    fn copies(&self, func: FuncId, head: Block) -> Vec<Block> {
        self.model
            .body
            .blocks
            .keys()
            .filter(
                |&b| matches!(self.model.prov.blocks.get(b), Some(o) if o.func == func && o.block == head && o.start),
            )
            .collect()
    }

    /// For per-block formulas: what held at the calls block `b` is inlined
    /// in, about the callers' values `b` carries.
    fn call_site_terms(&mut self, b: Block) -> Vec<ExprId> {
        let Source::Formulas(by_origin) = &self.source else { return Vec::new() };
        let sites: Vec<(FuncId, Formula)> = self
            .model
            .prov
            .call_sites
            .get(b)
            .iter()
            .filter_map(|&(cf, cb)| by_origin.get(&(cf, cb)).cloned().flatten().map(|f| (cf, f)))
            .collect();
        let mut terms = Vec::new();
        for (func, f) in sites {
            let f = f.restrict(&|v| self.param_of(b, func, v).is_some());
            terms.push(self.encode_formula(&f, b, func, &mut HashMap::new()));
        }
        terms
    }

    /// The parameter number of block `b` that carries value `v` of `func`.
    fn param_of(&self, b: Block, func: FuncId, v: Value) -> Option<usize> {
        self.model.body.blocks[b].params.iter().position(|p| *self.model.prov.values.get(*p) == Some((func, v)))
    }

    /// The original value state symbol `sym` stands for, if it is a
    /// parameter of a copy of a block of `func`.
    fn original(&self, sym: SymId, func: FuncId) -> Option<Value> {
        let &(b, j) = self.sym_param.get(&sym)?;
        let param = self.model.body.blocks[b].params[j];
        match *self.model.prov.values.get(param) {
            Some((f, v)) if f == func => Some(v),
            _ => None,
        }
    }

    /// The graph's invariant at each of `heads` as a formula over the
    /// original function's values: the disjunction over the head's copies
    /// and their nodes of the conjunction of the literals it can translate
    /// (values `keep` accepts, integer operations C can state); the others
    /// are dropped, so the formula is weaker but still holds at the head.
    /// Heads the graph never reached get `false`. Without `with_values`,
    /// the literals of values the graph tracked explicitly are left out
    /// too (a loop unrolled by value gives one disjunct per iteration; the
    /// predicates alone are often enough, and readable).
    pub fn head_invariants(
        &self,
        heads: &[(FuncId, Block)],
        keep: &dyn Fn(FuncId, Block, Value) -> bool,
        with_values: bool,
    ) -> Vec<HeadInvariant> {
        let mut out = Vec::new();
        let (states, value_literals) = match &self.source {
            Source::Graph { states, value_literals } => (states, value_literals),
            Source::Formulas(by_origin) => {
                for &(func, head) in heads {
                    // A value the head's copies do not carry is dead there:
                    // nothing checked speaks about it.
                    let copies = self.copies(func, head);
                    let live = |v: Value| copies.iter().all(|&b| self.param_of(b, func, v).is_some());
                    let formula = match by_origin.get(&(func, head)) {
                        Some(Some(f)) => f.restrict(&|v| keep(func, head, v) && live(v)),
                        _ => Formula::Bool(false),
                    };
                    out.push(HeadInvariant { func, head, formula });
                }
                return out;
            }
        };
        for &(func, head) in heads {
            let mut disjuncts = Vec::new();
            for b in self.copies(func, head) {
                for lits in &states[b.index()] {
                    let mut conj = Vec::new();
                    for &l in lits {
                        if !with_values && value_literals.contains(&l) {
                            continue;
                        }
                        let t = Translate { c: self, func, head, keep };
                        let f = t.formula(l);
                        if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                            eprintln!("certificate: block {}: {} -> {f:?}", b.as_u32(), self.model.pool.display(l));
                        }
                        if let Some(f) = f {
                            conj.push(f);
                        }
                    }
                    disjuncts.push(Formula::and(conj));
                }
            }
            out.push(HeadInvariant { func, head, formula: Formula::or(disjuncts) });
        }
        out
    }

    /// Checks that `invariants` at their heads, with the graph's own
    /// invariant everywhere else, are inductive under the model's steps
    /// and exclude every check the graph proved and every check of
    /// `exclude`; at most `time` is spent.
    pub fn check(
        &mut self,
        invariants: &[HeadInvariant],
        exclude: &[GoalId],
        time: std::time::Duration,
    ) -> CheckReport {
        let deadline = std::time::Instant::now() + time;
        let n = self.model.body.blocks.len();
        let mut inv: Vec<ExprId> = Vec::with_capacity(n);
        for b in 0..n {
            let block = Block::new(b);
            let term = match &self.source {
                Source::Graph { states, .. } => {
                    let parts: Vec<ExprId> =
                        states[b].iter().map(|lits| self.model.pool.and(lits).expect("Boolean")).collect();
                    self.model.pool.or(&parts).expect("Boolean")
                }
                Source::Formulas(by_origin) => match self.model.prov.blocks.get(block) {
                    Some(o) => match by_origin.get(&(o.func, o.block)).cloned().flatten() {
                        Some(f) => {
                            // The block's own state, and what held at the
                            // calls it is inlined in about the callers'
                            // values it carries (SSA values keep their
                            // value through a call).
                            let f = f.restrict(&|v| self.param_of(block, o.func, v).is_some());
                            let mut terms = vec![self.encode_formula(&f, block, o.func, &mut HashMap::new())];
                            terms.extend(self.call_site_terms(block));
                            self.model.pool.and(&terms).expect("Boolean")
                        }
                        None => self.model.pool.bool_const(false),
                    },
                    // A block a pass made up: nothing claimed there.
                    None => self.model.pool.bool_const(true),
                },
            };
            inv.push(term);
        }
        for hi in invariants {
            for b in self.copies(hi.func, hi.head) {
                let mut fresh = HashMap::new();
                let mut terms = vec![self.encode_formula(&hi.formula, b, hi.func, &mut fresh)];
                // What held at the calls the loop's function is inlined in,
                // about the callers' values the head carries (no C
                // expression at the loop can name them, but the steps after
                // the head may need them).
                terms.extend(self.call_site_terms(b));
                inv[b.index()] = self.model.pool.and(&terms).expect("Boolean");
            }
        }
        let mut solver = SolverStack::build(&SolverSettings::default());
        solver.set_deadline(Some(deadline));
        let proved: HashSet<GoalId> = self.proved.iter().chain(exclude).copied().collect();
        let mut report = CheckReport { valid: true, queries: 0, failure: String::new() };
        let f = self.model.pool.bool_const(false);
        // A block no step can enter from the invariants of its
        // predecessors is unreached: its invariant is `false` (an analysis
        // that proved an edge dead need not have a bottom state after it).
        // One pass in reverse postorder; a later predecessor's invariant
        // is used as it is, which is only weaker.
        let mut incoming: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for (b, steps) in self.model.steps.iter().enumerate() {
            for (k, s) in steps.iter().enumerate() {
                incoming[s.to.index()].push((b, k));
            }
        }
        let heads_fixed: HashSet<usize> =
            invariants.iter().flat_map(|hi| self.copies(hi.func, hi.head)).map(|b| b.index()).collect();
        for b in walkdown_ir::verify::reverse_postorder(&self.model.body) {
            let i = b.index();
            if b == walkdown_ir::Body::ENTRY || inv[i] == f || heads_fixed.contains(&i) {
                continue;
            }
            let mut entered = false;
            for &(p, k) in &incoming[i] {
                if inv[p] == f {
                    continue;
                }
                let q = self.model.pool.and(&[inv[p], self.model.steps[p][k].guard]).expect("Boolean");
                report.queries += 1;
                if !matches!(solver.is_sat(&self.model.pool, &[q]), Ok(Some(false))) {
                    entered = true;
                    break;
                }
            }
            if !entered {
                inv[i] = f;
            }
        }
        for b in 0..n {
            if inv[b] == f {
                continue;
            }
            for k in 0..self.model.steps[b].len() {
                let (to, guard, post_params, post_mem) = {
                    let s = &self.model.steps[b][k];
                    (s.to, s.guard, s.post_params.clone(), s.post_mem)
                };
                let map = self.model.state_map(to, &post_params, Some(post_mem));
                let post = self
                    .model
                    .pool
                    .substitute(inv[to.index()], &map, &mut HashMap::new())
                    .expect("substitution keeps sorts");
                let not_post = self.model.pool.not(post).expect("Boolean");
                let q = self.model.pool.and(&[inv[b], guard, not_post]).expect("Boolean");
                report.queries += 1;
                match solver.is_sat(&self.model.pool, &[q]) {
                    Ok(Some(false)) => {}
                    answer => {
                        if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                            eprintln!("certificate: from {}: {}", b, self.model.pool.display(inv[b]));
                            eprintln!("certificate: to {}: {}", to.as_u32(), self.model.pool.display(inv[to.index()]));
                            eprintln!("certificate: guard: {}", self.model.pool.display(guard));
                        }
                        report.valid = false;
                        report.failure = format!(
                            "the step from {} to {} {}",
                            self.describe(Block::new(b)),
                            self.describe(to),
                            if matches!(answer, Ok(Some(true))) {
                                "leaves the invariant"
                            } else {
                                "could not be decided"
                            }
                        );
                        return report;
                    }
                }
            }
            for k in 0..self.model.errors[b].len() {
                let (goal, fails) = (self.model.errors[b][k].goal, self.model.errors[b][k].fails);
                if !proved.contains(&goal) {
                    continue;
                }
                let q = self.model.pool.and(&[inv[b], fails]).expect("Boolean");
                report.queries += 1;
                match solver.is_sat(&self.model.pool, &[q]) {
                    Ok(Some(false)) => {}
                    _ if self.excluded_looking_back(&inv, &incoming, Block::new(b), k, &mut solver, &mut report) => {}
                    _ => {
                        report.valid = false;
                        report.failure = format!(
                            "the proved check {goal} may fail at {} under the invariant",
                            self.describe(Block::new(b))
                        );
                        return report;
                    }
                }
            }
        }
        report
    }

    /// Whether error check `ei` of block `b` cannot fail on any execution,
    /// looking back up to [`LOOK_BACK`] steps: a check whose own block's
    /// invariant does not exclude it may still be excluded by what held a
    /// few steps earlier (an assertion's callee, whose parameter the
    /// caller's invariant constrains only through the call's argument).
    ///
    /// Sound because every visit of `b` is the end of some sequence of
    /// steps, and every block's invariant holds at each of its visits
    /// (the steps were checked inductive): each backward path is either
    /// closed by an unsatisfiable query from its first block's invariant,
    /// or extended by every step into that block. A path that would start
    /// at the entry (where an execution may begin), repeat a block, or
    /// grow past the limit leaves the check failed.
    fn excluded_looking_back(
        &mut self,
        inv: &[ExprId],
        incoming: &[Vec<(usize, usize)>],
        b: Block,
        ei: usize,
        solver: &mut SolverStack,
        report: &mut CheckReport,
    ) -> bool {
        let f = self.model.pool.bool_const(false);
        // Paths (forward order, as (block, step)) still to close.
        let mut open: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
        let mut asked = 0;
        while let Some(path) = open.pop() {
            let start = path.first().map_or(b.index(), |&(p, _)| p);
            if path.len() >= LOOK_BACK || Block::new(start) == walkdown_ir::Body::ENTRY {
                return false;
            }
            for &(p, k) in &incoming[start] {
                if inv[p] == f {
                    continue;
                }
                if p == b.index() || path.iter().any(|&(q, _)| q == p) {
                    return false;
                }
                let mut longer = vec![(p, k)];
                longer.extend_from_slice(&path);
                asked += 1;
                if asked > LOOK_BACK_QUERIES {
                    return false;
                }
                let q = self.path_to_error(inv[p], &longer, b, ei);
                report.queries += 1;
                let ans = solver.is_sat(&self.model.pool, &[q]);
                if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                    let path: Vec<String> = longer.iter().map(|&(x, _)| self.describe(Block::new(x))).collect();
                    eprintln!(
                        "certificate: look-back {path:?} -> {ans:?}; start inv {}",
                        self.model.pool.display(inv[p])
                    );
                }
                if !matches!(ans, Ok(Some(false))) {
                    open.push(longer);
                }
            }
        }
        true
    }

    /// `start_inv` at the first block of `path`, its steps, and error check
    /// `ei` of `b` failing at its end, as one formula (each step's locals
    /// renamed apart).
    fn path_to_error(&mut self, start_inv: ExprId, path: &[(usize, usize)], b: Block, ei: usize) -> ExprId {
        let first = path[0].0;
        let mut params = self.model.states[first].params.clone();
        let mut mem = self.model.states[first].mem;
        let mut conds = vec![start_inv];
        for (pos, &(loc, k)) in path.iter().enumerate() {
            let mut map = self.model.state_map(Block::new(loc), &params, mem);
            let step = &self.model.steps[loc][k];
            let (guard, post_params, post_mem, locals) =
                (step.guard, step.post_params.clone(), step.post_mem, step.locals.clone());
            for l in locals {
                map.insert(l, self.renamed(l, pos));
            }
            let mut memo = HashMap::new();
            let pool = &mut self.model.pool;
            conds.push(pool.substitute(guard, &map, &mut memo).expect("substitution keeps sorts"));
            params = post_params.iter().map(|&t| pool.substitute(t, &map, &mut memo).expect("sorts")).collect();
            mem = Some(pool.substitute(post_mem, &map, &mut memo).expect("sorts"));
        }
        let mut map = self.model.state_map(b, &params, mem);
        let (fails, locals) = (self.model.errors[b.index()][ei].fails, self.model.errors[b.index()][ei].locals.clone());
        for l in locals {
            map.insert(l, self.renamed(l, path.len()));
        }
        let fails = self.model.pool.substitute(fails, &map, &mut HashMap::new()).expect("substitution keeps sorts");
        conds.push(fails);
        self.model.pool.and(&conds).expect("Boolean")
    }

    /// A fresh copy of a step's local leaf for position `pos` of a path.
    fn renamed(&mut self, leaf: Leaf, pos: usize) -> ExprId {
        let pool = &mut self.model.pool;
        match leaf {
            Leaf::Sym(s) => {
                let (w, name) = (pool.symbol_width(s), format!("{}@back{pos}", pool.symbol_name(s)));
                pool.new_symbol(&name, w).expect("width is valid").1
            }
            Leaf::Array(a) => {
                let (w, name) = (pool.array_index_width(a), format!("{}@back{pos}", pool.array_name(a)));
                pool.new_array(&name, w).expect("width is valid").1
            }
        }
    }

    fn describe(&self, b: Block) -> String {
        let loc = self.model.body.blocks[b]
            .insts
            .first()
            .map(|&i| self.model.body.insts[i].loc)
            .unwrap_or(self.model.body.blocks[b].term_loc);
        format!("block {} (line {})", b.as_u32(), loc.line)
    }

    /// `formula` over the state symbols of copy `b`; a value that is not
    /// a parameter there becomes a fresh symbol (nothing known of it).
    fn encode_formula(
        &mut self,
        formula: &Formula,
        b: Block,
        func: FuncId,
        fresh: &mut HashMap<Value, ExprId>,
    ) -> ExprId {
        let pool_err = "formula terms have matching sorts";
        match formula {
            Formula::Bool(v) => self.model.pool.bool_const(*v),
            Formula::Cmp { pred, ty, lhs, rhs } => {
                let l = self.encode_term(lhs, *ty, b, func, fresh);
                let r = self.encode_term(rhs, *ty, b, func, fresh);
                let p = &mut self.model.pool;
                match pred {
                    CmpPred::Eq => p.eq(l, r).expect(pool_err),
                    CmpPred::Ne => {
                        let e = p.eq(l, r).expect(pool_err);
                        p.not(e).expect(pool_err)
                    }
                    CmpPred::Ult => p.cmp(CmpOp::Ult, l, r).expect(pool_err),
                    CmpPred::Ule => p.cmp(CmpOp::Ule, l, r).expect(pool_err),
                    CmpPred::Slt => p.cmp(CmpOp::Slt, l, r).expect(pool_err),
                    CmpPred::Sle => p.cmp(CmpOp::Sle, l, r).expect(pool_err),
                    CmpPred::Ugt => p.cmp(CmpOp::Ult, r, l).expect(pool_err),
                    CmpPred::Uge => p.cmp(CmpOp::Ule, r, l).expect(pool_err),
                    CmpPred::Sgt => p.cmp(CmpOp::Slt, r, l).expect(pool_err),
                    CmpPred::Sge => p.cmp(CmpOp::Sle, r, l).expect(pool_err),
                    _ => p.bool_const(true),
                }
            }
            Formula::Not(f) => {
                let x = self.encode_formula(f, b, func, fresh);
                self.model.pool.not(x).expect(pool_err)
            }
            Formula::And(fs) | Formula::Or(fs) => {
                let xs: Vec<ExprId> = fs.iter().map(|f| self.encode_formula(f, b, func, fresh)).collect();
                if matches!(formula, Formula::And(_)) {
                    self.model.pool.and(&xs).expect(pool_err)
                } else {
                    self.model.pool.or(&xs).expect(pool_err)
                }
            }
        }
    }

    fn encode_term(
        &mut self,
        term: &Term,
        ty: Type,
        b: Block,
        func: FuncId,
        fresh: &mut HashMap<Value, ExprId>,
    ) -> ExprId {
        let pool_err = "formula terms have matching sorts";
        // Formulas are over integers (pointers are never translated).
        let bits = |ty: Type| ty.bits(walkdown_ir::DataModel::LP64);
        match term {
            Term::Operand(Operand::Value(v)) => {
                if let Some(j) = self.param_of(b, func, *v) {
                    return self.model.states[b.index()].params[j];
                }
                if let Some(&e) = fresh.get(v) {
                    return e;
                }
                let name = format!("unbound_{}_{}", b.as_u32(), v.as_u32());
                let e = self.model.pool.new_symbol(&name, bits(ty)).expect(pool_err).1;
                fresh.insert(*v, e);
                e
            }
            Term::Operand(Operand::Const(c)) => self.model.pool.bv_const(bits(ty), u128::from(c.bits)).expect(pool_err),
            Term::Operand(_) => {
                let name = format!("address_{}_{}", b.as_u32(), fresh.len());
                self.model.pool.new_symbol(&name, bits(ty)).expect(pool_err).1
            }
            Term::Bin { op, ty, lhs, rhs } => {
                let l = self.encode_term(lhs, *ty, b, func, fresh);
                let r = self.encode_term(rhs, *ty, b, func, fresh);
                let bop = match op {
                    BinOp::Add => BvBinOp::Add,
                    BinOp::Sub => BvBinOp::Sub,
                    BinOp::Mul => BvBinOp::Mul,
                    BinOp::And => BvBinOp::And,
                    BinOp::Or => BvBinOp::Or,
                    _ => BvBinOp::Xor,
                };
                self.model.pool.binop(bop, l, r).expect(pool_err)
            }
            Term::Cast { op, from, to, arg } => {
                let a = self.encode_term(arg, *from, b, func, fresh);
                let w = bits(*to);
                match op {
                    CastOp::ZExt => self.model.pool.zext(a, w).expect(pool_err),
                    CastOp::SExt => self.model.pool.sext(a, w).expect(pool_err),
                    _ => self.model.pool.extract(a, w - 1, 0).expect(pool_err),
                }
            }
        }
    }
}

/// Translation of one literal of a node state into a [`Formula`] over the
/// original values of `func` at `head`.
struct Translate<'a> {
    c: &'a Certificate,
    func: FuncId,
    head: Block,
    keep: &'a dyn Fn(FuncId, Block, Value) -> bool,
}

impl Translate<'_> {
    fn formula(&self, e: ExprId) -> Option<Formula> {
        let pool = &self.c.model.pool;
        match pool.get(e) {
            Node::Bool(b) => Some(Formula::Bool(*b)),
            Node::Not(a) => Some(self.formula(*a)?.negate()),
            Node::And(xs) => Some(Formula::and(xs.iter().map(|&x| self.formula(x)).collect::<Option<Vec<_>>>()?)),
            Node::Or(xs) => Some(Formula::or(xs.iter().map(|&x| self.formula(x)).collect::<Option<Vec<_>>>()?)),
            Node::Eq(a, b) if matches!(pool.sort(*a), Sort::BitVec(_)) => self.compare(CmpPred::Eq, *a, *b),
            Node::Eq(a, b) => {
                // Two Booleans: both or neither.
                let (x, y) = (self.formula(*a)?, self.formula(*b)?);
                Some(Formula::or(vec![
                    Formula::and(vec![x.clone(), y.clone()]),
                    Formula::and(vec![x.negate(), y.negate()]),
                ]))
            }
            Node::Ite { cond, then, els } if pool.sort(e) == Sort::Bool => {
                let c = self.formula(*cond)?;
                let (t, f) = (self.formula(*then)?, self.formula(*els)?);
                Some(Formula::or(vec![Formula::and(vec![c.clone(), t]), Formula::and(vec![c.negate(), f])]))
            }
            Node::Cmp(op, a, b) => {
                let pred = match op {
                    CmpOp::Ult => CmpPred::Ult,
                    CmpOp::Ule => CmpPred::Ule,
                    CmpOp::Slt => CmpPred::Slt,
                    CmpOp::Sle => CmpPred::Sle,
                };
                self.compare(pred, *a, *b)
            }
            _ => None,
        }
    }

    /// `a pred b`; an `ite` operand is split into its two cases (branch
    /// conditions compare `ite`s of flags), and a comparison of constants
    /// is decided.
    fn compare(&self, pred: CmpPred, a: ExprId, b: ExprId) -> Option<Formula> {
        let pool = &self.c.model.pool;
        for (x, other, x_left) in [(a, b, true), (b, a, false)] {
            if let Node::Ite { cond, then, els } = pool.get(x) {
                let c = self.formula(*cond)?;
                let arm = |v: ExprId| if x_left { self.compare(pred, v, other) } else { self.compare(pred, other, v) };
                let (t, f) = (arm(*then)?, arm(*els)?);
                return Some(Formula::or(vec![Formula::and(vec![c.clone(), t]), Formula::and(vec![c.negate(), f])]));
            }
        }
        let w = pool.width(a)?;
        if let (Node::Bv { value: x, .. }, Node::Bv { value: y, .. }) = (pool.get(a), pool.get(b)) {
            let signed = |v: u128| -> i128 {
                if w < 128 && (v >> (w - 1)) & 1 == 1 {
                    v as i128 - (1i128 << w)
                } else {
                    v as i128
                }
            };
            let holds = match pred {
                CmpPred::Eq => x == y,
                CmpPred::Ult => x < y,
                CmpPred::Ule => x <= y,
                CmpPred::Slt => signed(*x) < signed(*y),
                CmpPred::Sle => signed(*x) <= signed(*y),
                _ => return None,
            };
            return Some(Formula::Bool(holds));
        }
        if let Some(f) = self.compare_low_bits(pred, a, b) {
            return Some(f);
        }
        if let Some(f) = self.compare_high_bits(pred, a, b) {
            return Some(f);
        }
        // C has no 1-bit integers to compare.
        let ty = Type::int(w).filter(|t| *t != Type::I1)?;
        Some(Formula::Cmp { pred, ty, lhs: self.term(a)?, rhs: self.term(b)? })
    }

    /// A comparison of the low bits of wider values (`(_ extract 0 0) x`,
    /// as in parity invariants), stated on the values masked: `(x & 1) ==
    /// 1`. Unsigned comparisons and equality only: masking keeps their
    /// meaning, not a signed reading's.
    fn compare_low_bits(&self, pred: CmpPred, a: ExprId, b: ExprId) -> Option<Formula> {
        if !matches!(pred, CmpPred::Eq | CmpPred::Ult | CmpPred::Ule) {
            return None;
        }
        let pool = &self.c.model.pool;
        let low = |e: ExprId| match pool.get(e) {
            Node::Extract { arg, hi, lo: 0 } => Some((*arg, *hi)),
            _ => None,
        };
        let (wide, hi) = low(a).or_else(|| low(b))?;
        let width = pool.width(wide)?;
        let ty = Type::int(width).filter(|t| *t != Type::I1)?;
        let mask = (1u64 << (hi + 1)) - 1;
        let side = |e: ExprId| -> Option<Term> {
            match (pool.get(e), low(e)) {
                (Node::Bv { value, .. }, _) => Some(Term::Operand(Operand::Const(Const { ty, bits: *value as u64 }))),
                (_, Some((arg, h))) if h == hi && pool.width(arg) == Some(width) => Some(Term::Bin {
                    op: BinOp::And,
                    ty,
                    lhs: Box::new(self.term(arg)?),
                    rhs: Box::new(Term::Operand(Operand::Const(Const { ty, bits: mask }))),
                }),
                _ => None,
            }
        };
        Some(Formula::Cmp { pred, ty, lhs: side(a)?, rhs: side(b)? })
    }

    /// A comparison of the high bits of a value with a constant
    /// (`(_ extract 31 7) x == 0`, as Spacer states `x < 128`), stated on
    /// the value itself: its high bits `hb` (from bit `lo` up) are `k`
    /// exactly when `k << lo <= x <= ((k + 1) << lo) - 1`, below `k` when
    /// `x < k << lo`. Unsigned comparisons and equality only.
    fn compare_high_bits(&self, pred: CmpPred, a: ExprId, b: ExprId) -> Option<Formula> {
        let pool = &self.c.model.pool;
        let high = |e: ExprId| match pool.get(e) {
            Node::Extract { arg, hi, lo } if *lo > 0 && pool.width(*arg) == Some(hi + 1) => Some((*arg, *lo)),
            _ => None,
        };
        // `k pred hb` is the negation of `hb pred' k` (`k < hb` is not
        // `hb <= k`); `==` is the same both ways.
        let (wide, lo, k, pred, negated) = match (high(a), high(b)) {
            (Some((x, lo)), None) => (x, lo, pool.as_bv_const(b)?, pred, false),
            (None, Some((x, lo))) => match pred {
                CmpPred::Eq => (x, lo, pool.as_bv_const(a)?, pred, false),
                CmpPred::Ult => (x, lo, pool.as_bv_const(a)?, CmpPred::Ule, true),
                CmpPred::Ule => (x, lo, pool.as_bv_const(a)?, CmpPred::Ult, true),
                _ => return None,
            },
            _ => return None,
        };
        let width = pool.width(wide)?;
        let ty = Type::int(width).filter(|t| *t != Type::I1 && width <= 64)?;
        // Below 64: `lo` is at least 1 and the width at most 64.
        let high_bits = width - lo;
        let c = |bits: u64| Term::Operand(Operand::Const(Const { ty, bits }));
        let f = if k >> high_bits != 0 {
            // `k` has more bits than the high part: never equal, always above.
            Formula::Bool(pred != CmpPred::Eq)
        } else {
            let k = k as u64;
            let x = self.term(wide)?;
            let cmp = |pred: CmpPred, lhs: Term, rhs: Term| Formula::Cmp { pred, ty, lhs, rhs };
            // The last value whose high bits are `k` (none when `k` is
            // their largest value: then every value up to the top).
            let last = ((k + 1) >> high_bits == 0).then(|| ((k + 1) << lo) - 1);
            match pred {
                CmpPred::Ult => cmp(CmpPred::Ult, x, c(k << lo)),
                CmpPred::Ule => last.map_or(Formula::Bool(true), |v| cmp(CmpPred::Ule, x, c(v))),
                CmpPred::Eq => {
                    let mut both = Vec::new();
                    if k > 0 {
                        both.push(cmp(CmpPred::Ule, c(k << lo), x.clone()));
                    }
                    both.extend(last.map(|v| cmp(CmpPred::Ule, x, c(v))));
                    Formula::and(both)
                }
                _ => return None,
            }
        };
        Some(if negated { f.negate() } else { f })
    }

    fn term(&self, e: ExprId) -> Option<Term> {
        let pool = &self.c.model.pool;
        let width = pool.width(e)?;
        let ty = Type::int(width)?;
        match pool.get(e) {
            Node::Bv { value, .. } => Some(Term::Operand(Operand::Const(Const { ty, bits: *value as u64 }))),
            Node::Var { sym, .. } => {
                let v = self.c.original(*sym, self.func)?;
                (self.keep)(self.func, self.head, v).then(|| Term::value(v))
            }
            Node::BvBin(op, a, b) => {
                let op = match op {
                    BvBinOp::Add => BinOp::Add,
                    BvBinOp::Sub => BinOp::Sub,
                    BvBinOp::Mul => BinOp::Mul,
                    BvBinOp::And => BinOp::And,
                    BvBinOp::Or => BinOp::Or,
                    BvBinOp::Xor => BinOp::Xor,
                    _ => return None,
                };
                debug_assert!(is_term_op(op));
                Some(Term::Bin { op, ty, lhs: Box::new(self.term(*a)?), rhs: Box::new(self.term(*b)?) })
            }
            Node::BvUn(op, a) => {
                let x = self.term(*a)?;
                let (op, k) = match op {
                    BvUnOp::Neg => (BinOp::Sub, 0u64),
                    BvUnOp::Not => (BinOp::Xor, if width >= 64 { u64::MAX } else { (1u64 << width) - 1 }),
                };
                let c = Term::Operand(Operand::Const(Const { ty, bits: k }));
                Some(match op {
                    BinOp::Sub => Term::Bin { op, ty, lhs: Box::new(c), rhs: Box::new(x) },
                    _ => Term::Bin { op, ty, lhs: Box::new(x), rhs: Box::new(c) },
                })
            }
            Node::ZExt { arg, .. } | Node::SExt { arg, .. } => {
                let from = Type::int(pool.width(*arg)?)?;
                let op = if matches!(pool.get(e), Node::ZExt { .. }) { CastOp::ZExt } else { CastOp::SExt };
                Some(Term::Cast { op, from, to: ty, arg: Box::new(self.term(*arg)?) })
            }
            Node::Extract { arg, hi, lo: 0 } if *hi + 1 == width => {
                let from = Type::int(pool.width(*arg)?)?;
                Some(Term::Cast { op: CastOp::Trunc, from, to: ty, arg: Box::new(self.term(*arg)?) })
            }
            _ => None,
        }
    }
}
