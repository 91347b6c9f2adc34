//! Shared fixtures: a seeded generator, a small program's branch
//! conditions built in the pool, and the concolic query sequence it yields.

use std::cell::Cell;
use std::rc::Rc;

use walkdown_smt::{
    Answer, ArrayId, ArrayValue, Assignment, BackendSettings, ExprId, ExprPool, LayerStats, Query, Solver, SolverError,
    SolverSettings, SolverStack, SymId, Z3Solver,
};

/// splitmix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A `width`-bit value, often a boundary value.
    pub fn value(&mut self, width: u32) -> u128 {
        let m = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
        let smin = 1u128 << (width - 1);
        let r = (u128::from(self.next()) << 64) | u128::from(self.next());
        let v = match self.below(10) {
            0 => 0,
            1 => 1,
            2 => m,
            3 => smin,
            4 => smin.wrapping_sub(1),
            5 => u128::from(self.below(u64::from(width) + 3)),
            _ => r,
        };
        v & m
    }
}

/// The branch conditions of a small program over independent inputs:
///
/// ```c
/// int a, b, z; char c, d; __int128 w; char mem[]; int i;
/// if (a + 1 < a) ...                 // signed overflow: a == INT_MAX
/// if ((char)(c * 3) == 12) ...       // 8-bit: c == 4
/// if (b < 10u) ...
/// if (z == 0) ...
/// if (b / z == 0xffffffff) ...       // SMT-LIB: always true when z == 0
/// mem[i] = d; if (mem[5] == 7) ...   // symbolic index
/// if (d > 100u) ...
/// if (w * 3 == K) ...                // 128-bit
/// if (w >> 120 == 0xab) ...
/// ```
pub struct Program {
    pub pool: ExprPool,
    pub branches: Vec<ExprId>,
    pub syms: Vec<(SymId, u32)>,
    pub mem: ArrayId,
    /// The unique `w` with `w * 3 == K`.
    pub w_solution: u128,
}

pub const K128: u128 = (1u128 << 100) + 0x1234_5678_9abc_def1;

pub fn program() -> Program {
    let mut p = ExprPool::new();
    let mut syms = Vec::new();
    let mut sym = |p: &mut ExprPool, name: &str, w: u32| {
        let (s, e) = p.new_symbol(name, w).unwrap();
        syms.push((s, w));
        e
    };
    let a = sym(&mut p, "a", 32);
    let b = sym(&mut p, "b", 32);
    let c = sym(&mut p, "c", 8);
    let d = sym(&mut p, "d", 8);
    let i = sym(&mut p, "i", 32);
    let w = sym(&mut p, "w", 128);
    let z = sym(&mut p, "z", 32);
    let (mem, m) = p.new_array("mem", 32).unwrap();
    let k = |p: &mut ExprPool, w: u32, v: u128| p.bv_const(w, v).unwrap();

    let mut br = Vec::new();
    let one = k(&mut p, 32, 1);
    let a1 = p.add(a, one).unwrap();
    br.push(p.slt(a1, a).unwrap());
    let three8 = k(&mut p, 8, 3);
    let c3 = p.mul(c, three8).unwrap();
    let twelve = k(&mut p, 8, 12);
    br.push(p.eq(c3, twelve).unwrap());
    let ten = k(&mut p, 32, 10);
    br.push(p.ult(b, ten).unwrap());
    let zero = k(&mut p, 32, 0);
    br.push(p.eq(z, zero).unwrap());
    let q = p.udiv(b, z).unwrap();
    let ones = k(&mut p, 32, 0xffff_ffff);
    br.push(p.eq(q, ones).unwrap());
    let st = p.store(m, i, d).unwrap();
    let five = k(&mut p, 32, 5);
    let r = p.select(st, five).unwrap();
    let seven = k(&mut p, 8, 7);
    br.push(p.eq(r, seven).unwrap());
    let hundred = k(&mut p, 8, 100);
    br.push(p.ugt(d, hundred).unwrap());
    let three = k(&mut p, 128, 3);
    let w3 = p.mul(w, three).unwrap();
    let kk = k(&mut p, 128, K128);
    br.push(p.eq(w3, kk).unwrap());
    let sh = k(&mut p, 128, 120);
    let top = p.lshr(w, sh).unwrap();
    let ab = k(&mut p, 128, 0xab);
    br.push(p.eq(top, ab).unwrap());

    // 3 is odd, so it has an inverse mod 2^128 (Newton's iteration).
    let mut inv: u128 = 1;
    for _ in 0..7 {
        inv = inv.wrapping_mul(2u128.wrapping_sub(3u128.wrapping_mul(inv)));
    }
    Program { pool: p, branches: br, syms, mem, w_solution: K128.wrapping_mul(inv) }
}

/// Inputs biased so that every branch goes both ways across a few runs.
pub fn random_input(rng: &mut Rng, prog: &Program) -> Assignment {
    let mut a = Assignment::new();
    let special: [u128; 7] = [0x7fff_ffff, 5, 4, 7, 5, prog.w_solution, 0];
    for (k, &(s, w)) in prog.syms.iter().enumerate() {
        let v = if rng.below(2) == 0 { special[k] } else { rng.value(w) };
        a.set_sym(s, v);
    }
    let mut mem = ArrayValue { default: rng.below(256) as u8, ..ArrayValue::default() };
    if rng.below(2) == 0 {
        mem.bytes.insert(5, 7);
    }
    a.set_array(prog.mem, mem);
    a
}

/// One query: the constraints (path prefix, then the negated branch) and
/// the input of the run it came from.
pub struct PathQuery {
    pub constraints: Vec<ExprId>,
    pub input: Assignment,
}

/// Runs `runs` random inputs through the branches and asks, at every
/// branch, for an input that takes the other side (the concolic loop).
pub fn concolic_queries(prog: &mut Program, runs: usize, seed: u64) -> Vec<PathQuery> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..runs {
        let input = random_input(&mut rng, prog);
        let mut prefix = Vec::new();
        for &b in &prog.branches.clone() {
            let taken = prog.pool.eval(b, &input).as_bool().unwrap();
            let lit = if taken { b } else { prog.pool.not(b).unwrap() };
            let flipped = prog.pool.not(lit).unwrap();
            let mut q = prefix.clone();
            q.push(flipped);
            out.push(PathQuery { constraints: q, input: input.clone() });
            prefix.push(lit);
        }
    }
    out
}

/// Z3 with counters the test can read after the stack owns it.
pub struct CountingZ3 {
    pub inner: Z3Solver,
    pub calls: Rc<Cell<u64>>,
    pub constraints: Rc<Cell<u64>>,
}

impl Solver for CountingZ3 {
    fn check(&mut self, pool: &ExprPool, q: &Query<'_>) -> Result<Answer, SolverError> {
        self.calls.set(self.calls.get() + 1);
        self.constraints.set(self.constraints.get() + q.constraints.len() as u64);
        self.inner.check(pool, q)
    }
    fn stats(&self, out: &mut Vec<LayerStats>) {
        self.inner.stats(out)
    }
}

pub struct RunResult {
    /// `Some(true)` sat, `Some(false)` unsat, `None` unknown, per query.
    pub answers: Vec<Option<bool>>,
    pub z3_calls: u64,
    pub z3_constraints: u64,
    pub report: Vec<LayerStats>,
}

/// Runs every query through a stack with `settings` and checks each model
/// the way a concolic engine uses it: merged into the run's input, it must
/// satisfy the whole query, and it must not mention symbols outside it.
pub fn run(settings: SolverSettings, prog: &Program, queries: &[PathQuery]) -> RunResult {
    let calls = Rc::new(Cell::new(0));
    let constraints = Rc::new(Cell::new(0));
    let backend = CountingZ3 {
        inner: Z3Solver::new(BackendSettings { timeout_ms: settings.timeout_ms, ..BackendSettings::default() }),
        calls: calls.clone(),
        constraints: constraints.clone(),
    };
    let mut stack = SolverStack::build_on(&settings, Box::new(backend));
    let mut answers = Vec::new();
    for (n, pq) in queries.iter().enumerate() {
        let q = Query::new(&pq.constraints);
        let a = stack.check(&prog.pool, &q).unwrap();
        if let Answer::Sat(m) = &a {
            let leaves = q.leaves(&prog.pool);
            for (s, _) in m.syms() {
                assert!(leaves.contains(&walkdown_smt::Leaf::Sym(s)), "query {n}: stray symbol");
            }
            let mut merged = pq.input.clone();
            merged.extend_from(m);
            assert!(prog.pool.satisfies(&pq.constraints, &merged), "query {n}: model {m:?} does not satisfy the query");
        }
        assert!(!matches!(a, Answer::Unknown(_)), "query {n}: {a:?}");
        answers.push(a.as_bool());
    }
    RunResult { answers, z3_calls: calls.get(), z3_constraints: constraints.get(), report: stack.report() }
}

pub const ALL_OFF: SolverSettings =
    SolverSettings { cache: false, slicing: false, cex_cache: false, timeout_ms: Some(10_000), work_limit: None };
