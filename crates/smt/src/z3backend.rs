//! The Z3 backend: translates pool expressions to Z3 terms, runs Z3 with a
//! timeout and reads the model back.
//!
//! This links Z3 5.4.1 from PyPI's `z3-solver` wheel (`scripts/fetch-z3`)
//! through the `z3` crate 0.22. Nothing here asks Z3 what kind a term is
//! (the crate's numbering of declaration kinds did not match Debian's
//! 4.8.12, linked before): terms go in from our own node kinds, and values
//! come out by evaluating our own symbols in the model (with model
//! completion) and reading numerals.
//!
//! Z3's context is implicit and thread-local, so a [`Z3Solver`] (and any
//! stack holding one) stays on the thread that made it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use z3::ast::{Array, Ast, Bool, Float, BV};
use z3::{Params, SatResult, Sort, Tactic};

use crate::display::{array_label, sym_label};
use crate::eval::Assignment;
use crate::expr::{ArrayId, ExprId, ExprPool, Node, Sort as PSort, SymId};
use crate::hash::FxHashMap;
use crate::solver::{Answer, BackendSettings, Counter, LayerStats, Query, Solver, SolverError};

#[derive(Clone)]
pub(crate) enum Term {
    Bool(Bool),
    Bv(BV),
    Array(Array),
}

/// Answers queries with Z3.
///
/// Translated terms are kept for the life of the solver (per pool), since
/// successive path-condition queries share almost all their nodes. Each
/// query then runs on a fresh solver made from Z3's `smt` tactic. Measured
/// with libz3 4.8.12 on a busy 2-core machine (`tests/bench_z3_modes.rs`),
/// milliseconds per query:
///
/// | solver                       | trivial | 64-bit div/rem | 32-bit factoring | signed div/rem | 64-bit mul | array |
/// |------------------------------|---------|----------------|------------------|----------------|------------|-------|
/// | fresh `smt` tactic (this)    | 0.8     | 38             | 7                | 52             | 0.4        | 0.7   |
/// | push/pop on one solver       | 2.4     | 135            | 20               | 156            | 0.6        | 0.4   |
/// | fresh default solver         | 16      | 130            | 43               | 370            | 8          | 10    |
/// | fresh `QF_ABV` solver        | 6       | 110            | 38               | 410            | 0.8        | 1.0   |
///
/// The default solver runs a preprocessing pipeline per check that
/// dominates the small queries concolic testing asks, and after a push it
/// switches to the core the `smt` tactic uses, but carrying old state. On
/// the concolic sequence of `tests/layers.rs` (`push_pop_vs_fresh`, 576
/// queries) this mode took 4.0–4.5 s against 6.0–6.5 s for push/pop.
pub struct Z3Solver {
    settings: BackendSettings,
    pool_uid: u64,
    terms: FxHashMap<ExprId, Term>,
    counter: Counter,
    tactic: Option<Tactic>,
    fp_tactic: Option<Tactic>,
    incremental: Option<z3::Solver>,
    /// With the incremental solver: constraints asserted once, at the base
    /// level, which queries then need not assert again.
    base: std::collections::HashSet<ExprId>,
    deadline: Option<std::time::Instant>,
    /// Z3's resource count summed over queries (see [`Solver::work`]).
    work: u64,
}

impl Z3Solver {
    /// A backend with the given settings.
    pub fn new(settings: BackendSettings) -> Self {
        Z3Solver {
            settings,
            pool_uid: 0,
            terms: FxHashMap::default(),
            counter: Counter::default(),
            tactic: None,
            fp_tactic: None,
            incremental: None,
            base: Default::default(),
            deadline: None,
            work: 0,
        }
    }

    /// An incremental backend: one Z3 solver kept across queries, with
    /// constraints given to [`Solver::assert_base`] asserted once and
    /// kept (and what Z3 learnt about them); each query pushes its other
    /// constraints and pops them. For a sequence of queries over one large
    /// formula plus a small changing part (the bounded engine's cover
    /// algorithms), where re-solving the formula from scratch each time
    /// dominates.
    pub fn incremental(settings: BackendSettings) -> Self {
        let mut s = Z3Solver::new(settings);
        s.incremental = Some(z3::Solver::new());
        s
    }

    /// Switches between a fresh `smt`-tactic solver per query (`false`,
    /// the default) and push/pop on one default solver (`true`); kept so
    /// the measurement above can be repeated on another Z3.
    #[doc(hidden)]
    pub fn set_incremental(&mut self, on: bool) {
        self.incremental = if on { Some(z3::Solver::new()) } else { None };
    }

    pub(crate) fn term(&mut self, pool: &ExprPool, root: ExprId) -> Result<Term, SolverError> {
        if let Some(t) = self.terms.get(&root) {
            return Ok(t.clone());
        }
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if self.terms.contains_key(&id) {
                continue;
            }
            let node = pool.get(id);
            if !expanded {
                stack.push((id, true));
                for c in node.children() {
                    if !self.terms.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            let t = self.build(pool, id, node)?;
            self.terms.insert(id, t);
        }
        self.terms.get(&root).cloned().ok_or_else(|| SolverError::Backend(format!("{root} was not translated")))
    }

    fn child(&self, id: ExprId) -> Result<&Term, SolverError> {
        self.terms.get(&id).ok_or_else(|| SolverError::Backend(format!("operand {id} not translated")))
    }

    fn bool_of(&self, id: ExprId) -> Result<Bool, SolverError> {
        match self.child(id)? {
            Term::Bool(b) => Ok(b.clone()),
            _ => Err(SolverError::Backend(format!("{id} is not Boolean"))),
        }
    }

    fn bv_of(&self, id: ExprId) -> Result<BV, SolverError> {
        match self.child(id)? {
            Term::Bv(b) => Ok(b.clone()),
            _ => Err(SolverError::Backend(format!("{id} is not a bit-vector"))),
        }
    }

    fn array_of(&self, id: ExprId) -> Result<Array, SolverError> {
        match self.child(id)? {
            Term::Array(a) => Ok(a.clone()),
            _ => Err(SolverError::Backend(format!("{id} is not an array"))),
        }
    }

    // Operands are translated already; the pool guarantees sorts match,
    // which is what keeps the z3 crate's internal unwraps from firing.
    fn build(&self, pool: &ExprPool, id: ExprId, node: &Node) -> Result<Term, SolverError> {
        use crate::fold::{BvBinOp as B, BvUnOp as U, CmpOp as C};
        let width = |e: ExprId| pool.width(e).unwrap_or(1);
        Ok(match *node {
            Node::Bool(b) => Term::Bool(Bool::from_bool(b)),
            Node::Bv { width, value } => Term::Bv(bv_numeral(width, value)?),
            Node::Var { sym, width } => Term::Bv(BV::new_const(sym_label(pool, sym), width)),
            Node::ArrayVar { array, index_width } => Term::Array(Array::new_const(
                array_label(pool, array),
                &Sort::bitvector(index_width),
                &Sort::bitvector(8),
            )),
            Node::ConstArray { index_width, value } => {
                Term::Array(Array::const_array(&Sort::bitvector(index_width), &BV::from_u64(u64::from(value), 8)))
            }
            Node::Not(a) => Term::Bool(self.bool_of(a)?.not()),
            Node::And(ref xs) | Node::Or(ref xs) => {
                let args = xs.iter().map(|&x| self.bool_of(x)).collect::<Result<Vec<_>, _>>()?;
                Term::Bool(if matches!(node, Node::And(_)) { Bool::and(&args) } else { Bool::or(&args) })
            }
            Node::Ite { cond, then, els } => {
                let c = self.bool_of(cond)?;
                match pool.sort(id) {
                    PSort::Bool => Term::Bool(c.ite(&self.bool_of(then)?, &self.bool_of(els)?)),
                    PSort::Array { .. } => Term::Array(c.ite(&self.array_of(then)?, &self.array_of(els)?)),
                    _ => Term::Bv(c.ite(&self.bv_of(then)?, &self.bv_of(els)?)),
                }
            }
            Node::Eq(a, b) => match pool.sort(a) {
                PSort::Bool => Term::Bool(self.bool_of(a)?.eq(self.bool_of(b)?)),
                _ => Term::Bool(self.bv_of(a)?.eq(self.bv_of(b)?)),
            },
            Node::BvUn(op, a) => {
                let a = self.bv_of(a)?;
                Term::Bv(match op {
                    U::Not => a.bvnot(),
                    U::Neg => a.bvneg(),
                })
            }
            Node::BvBin(op, a, b) => {
                let (a, b) = (self.bv_of(a)?, self.bv_of(b)?);
                Term::Bv(match op {
                    B::Add => a.bvadd(b),
                    B::Sub => a.bvsub(b),
                    B::Mul => a.bvmul(b),
                    B::UDiv => a.bvudiv(b),
                    B::SDiv => a.bvsdiv(b),
                    B::URem => a.bvurem(b),
                    B::SRem => a.bvsrem(b),
                    B::Shl => a.bvshl(b),
                    B::LShr => a.bvlshr(b),
                    B::AShr => a.bvashr(b),
                    B::And => a.bvand(b),
                    B::Or => a.bvor(b),
                    B::Xor => a.bvxor(b),
                })
            }
            Node::Cmp(op, a, b) => {
                let (a, b) = (self.bv_of(a)?, self.bv_of(b)?);
                Term::Bool(match op {
                    C::Ult => a.bvult(b),
                    C::Ule => a.bvule(b),
                    C::Slt => a.bvslt(b),
                    C::Sle => a.bvsle(b),
                })
            }
            Node::ZExt { arg, width: to } => Term::Bv(self.bv_of(arg)?.zero_ext(to - width(arg))),
            Node::SExt { arg, width: to } => Term::Bv(self.bv_of(arg)?.sign_ext(to - width(arg))),
            Node::Extract { arg, hi, lo } => Term::Bv(self.bv_of(arg)?.extract(hi, lo)),
            Node::Concat(h, l) => Term::Bv(self.bv_of(h)?.concat(self.bv_of(l)?)),
            Node::FpBin(op, a, b) => {
                let w = width(a);
                let (ba, bb) = (self.bv_of(a)?, self.bv_of(b)?);
                Term::Bv(fp_bin_term(op, w, &ba, &bb))
            }
            Node::FpCmp(op, a, b) => {
                let w = width(a);
                let (fa, fb) = (fp_of(&self.bv_of(a)?, w), fp_of(&self.bv_of(b)?, w));
                Term::Bool(match op {
                    crate::float::FpCmpOp::Lt => fa.lt(&fb),
                    crate::float::FpCmpOp::Le => fa.le(&fb),
                    crate::float::FpCmpOp::Eq => fa.eq_fpa(&fb),
                })
            }
            Node::FpConv { arg, width: to } => Term::Bv(fp_conv_term(width(arg), to, &self.bv_of(arg)?)),
            Node::FpToSbv { arg, width: to } => Term::Bv(fp_to_sbv_term(width(arg), to, &self.bv_of(arg)?)),
            Node::BvToFp { arg, width: to, signed } => {
                let a = self.bv_of(arg)?;
                let ctx = a.get_ctx().get_z3_context();
                let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
                let sort = fp_sort(to);
                // SAFETY: every handle belongs to this thread's context.
                let f = unsafe {
                    let raw = if signed {
                        z3_sys::Z3_mk_fpa_to_fp_signed(ctx, rne.get_z3_ast(), a.get_z3_ast(), sort.get_z3_sort())
                    } else {
                        z3_sys::Z3_mk_fpa_to_fp_unsigned(ctx, rne.get_z3_ast(), a.get_z3_ast(), sort.get_z3_sort())
                    };
                    Float::wrap(a.get_ctx(), raw.ok_or_else(|| SolverError::Backend("to_fp".into()))?)
                };
                Term::Bv(f.to_ieee_bv())
            }
            Node::Select { array, index } => {
                let byte = self.array_of(array)?.select(&self.bv_of(index)?);
                Term::Bv(byte.as_bv().ok_or_else(|| SolverError::Backend(format!("select {id} is not a byte")))?)
            }
            Node::Store { array, index, value } => {
                Term::Array(self.array_of(array)?.store(&self.bv_of(index)?, &self.bv_of(value)?))
            }
        })
    }

    /// Forgets every term when `pool` is not the one they were made for.
    fn follow_pool(&mut self, pool: &ExprPool) {
        if pool.uid() != self.pool_uid {
            self.terms.clear();
            self.base.clear();
            if let Some(s) = &self.incremental {
                s.reset();
            }
            self.pool_uid = pool.uid();
        }
    }

    fn solve(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        self.follow_pool(pool);
        let mut asserted = Vec::with_capacity(query.constraints.len());
        for &c in query.constraints {
            if self.base.contains(&c) {
                continue;
            }
            if pool.sort(c) != PSort::Bool {
                return Err(SolverError::NotBool(c));
            }
            match self.term(pool, c)? {
                Term::Bool(b) => asserted.push(b),
                _ => return Err(SolverError::NotBool(c)),
            }
        }
        let mut params = Params::new();
        // The per-query limit, cut to what is left before the deadline.
        let left_ms = self.deadline.map(|d| {
            d.saturating_duration_since(std::time::Instant::now()).as_millis().clamp(1, u128::from(u32::MAX)) as u32
        });
        let timeout_ms = match (self.settings.timeout_ms, left_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(ms) = timeout_ms {
            params.set_u32("timeout", ms);
        }
        if let Some(units) = self.settings.work_limit {
            params.set_u32("rlimit", units);
        }
        let fresh;
        let solver = match &self.incremental {
            Some(s) => {
                s.push();
                s
            }
            None => {
                // Floating-point queries without arrays go to Z3's QF_FPBV
                // tactic: on `v * 3.0 == 7.5 && w / v == 0.125` over
                // doubles it answered in 11 s where `smt` timed out at 30 s
                // (libz3 4.8.12, busy 2-core machine).
                fresh = if pool.uses_arrays_and_floats(query.constraints) == (false, true) {
                    self.fp_tactic.get_or_insert_with(|| Tactic::new("qffpbv")).solver()
                } else {
                    self.tactic.get_or_insert_with(|| Tactic::new("smt")).solver()
                };
                &fresh
            }
        };
        solver.set_params(&params);
        for b in &asserted {
            solver.assert(b);
        }
        // The `timeout` parameter is not honoured by every solver Z3 builds
        // from a tactic (seen: a nonlinear query ran for minutes at a
        // 10 s limit), so a watchdog also interrupts the context.
        let watchdog = timeout_ms.map(|ms| Watchdog::arm(std::time::Duration::from_millis(u64::from(ms))));
        let before = resource_count(solver);
        let result = solver.check();
        drop(watchdog);
        let count = resource_count(solver);
        let answer = match result {
            SatResult::Unsat => Ok(Answer::Unsat),
            SatResult::Unknown => {
                Ok(Answer::Unknown(solver.get_reason_unknown().unwrap_or_else(|| "unknown".to_string())))
            }
            SatResult::Sat => match solver.get_model() {
                Some(m) => self.read_model(pool, query, &m).map(Answer::Sat),
                None => Err(SolverError::Backend("sat without a model".to_string())),
            },
        };
        if self.incremental.is_some() {
            solver.pop(1);
        }
        self.work += count.saturating_sub(before);
        answer
    }

    fn read_model(&self, pool: &ExprPool, query: &Query<'_>, model: &z3::Model) -> Result<Assignment, SolverError> {
        crate::solver::checked_model(
            pool,
            query,
            |sym| self.sym_value(pool, sym, model),
            |array, index| self.byte_value(pool, array, index, model),
        )
    }

    /// Byte `index` of `array` in `model`.
    fn byte_value(&self, pool: &ExprPool, array: ArrayId, index: u128, model: &z3::Model) -> Result<u8, SolverError> {
        match self.terms.get(&pool.array_expr(array)) {
            Some(Term::Array(a)) => {
                let i = bv_numeral(pool.array_index_width(array), index)?;
                let sel = a
                    .select(&i)
                    .as_bv()
                    .ok_or_else(|| SolverError::Backend("array element is not a bit-vector".to_string()))?;
                read_bv(model, &sel, 8).map(|b| b as u8)
            }
            _ => Err(SolverError::Backend(format!("array {} not translated", array.0))),
        }
    }

    fn sym_value(&self, pool: &ExprPool, sym: SymId, model: &z3::Model) -> Result<u128, SolverError> {
        let Some(Term::Bv(bv)) = self.terms.get(&pool.symbol_expr(sym)) else {
            return Err(SolverError::Backend(format!("symbol {} not translated", sym.0)));
        };
        read_bv(model, bv, pool.symbol_width(sym))
    }
}

impl Z3Solver {
    /// Writes the query to the corpus (see [`crate::dump`]) as Z3's own
    /// SMT-LIB printer shows its terms: every constraint, the incremental
    /// backend's base ones too, so the file stands alone.
    fn dump(&self, pool: &ExprPool, query: &Query<'_>, answer: Option<&Answer>, time: Duration, work: u64) {
        let mut terms = Vec::with_capacity(query.constraints.len());
        for c in query.constraints {
            match self.terms.get(c) {
                Some(Term::Bool(b)) => terms.push(b.clone()),
                // Not translated (an error or a panic cleared the table).
                _ => return,
            }
        }
        // SMT-LIB's `and` takes two operands or more (Bitwuzla refuses one).
        let formula = if terms.len() == 1 { terms[0].clone() } else { Bool::and(&terms) };
        let logic = crate::dump::logic(pool, query.constraints);
        let ctx = formula.get_ctx().get_z3_context();
        let (name, logic_c, status, attrs) =
            (c"walkdown", std::ffi::CString::new(logic).unwrap_or_default(), c"unknown", c"");
        // SAFETY: the formula belongs to this thread's context, and Z3 owns
        // the returned string until its next call on the context, so it is
        // copied at once.
        let text = unsafe {
            let raw = z3_sys::Z3_benchmark_to_smtlib_string(
                ctx,
                name.as_ptr(),
                logic_c.as_ptr(),
                status.as_ptr(),
                attrs.as_ptr(),
                0,
                std::ptr::null(),
                formula.get_z3_ast(),
            );
            if raw.is_null() {
                return;
            }
            std::ffi::CStr::from_ptr(raw).to_string_lossy().into_owned()
        };
        let backend = format!("z3 {}", z3_version());
        crate::dump::write(&crate::dump::Record { backend: &backend, smtlib: &text, answer, time, work });
    }
}

/// The linked Z3's version (`5.4.1`), read from the library at run time.
pub fn z3_version() -> String {
    let full = z3::full_version();
    let numbers = full.trim_start_matches("Z3 ").split(|c: char| !c.is_ascii_digit() && c != '.').next().unwrap_or("");
    numbers.split('.').take(3).collect::<Vec<_>>().join(".")
}

impl Default for Z3Solver {
    fn default() -> Self {
        Self::new(BackendSettings::default())
    }
}

fn bv_numeral(width: u32, value: u128) -> Result<BV, SolverError> {
    match u64::try_from(value) {
        Ok(v) => Ok(BV::from_u64(v, width)),
        Err(_) => BV::from_str(width, &value.to_string())
            .ok_or_else(|| SolverError::Backend(format!("numeral {value} of width {width}"))),
    }
}

// ----- floating point (see `crate::float` for the meaning) ---------------

fn fp_sort(width: u32) -> Sort {
    if width == 32 {
        Sort::float32()
    } else {
        Sort::double()
    }
}

/// The float whose IEEE bits are `bv`.
fn fp_of(bv: &BV, width: u32) -> Float {
    let sort = fp_sort(width);
    // SAFETY: both handles belong to this thread's context, and a 32- or
    // 64-bit vector has the size of the sort's bits.
    unsafe {
        let raw = z3_sys::Z3_mk_fpa_to_fp_bv(bv.get_ctx().get_z3_context(), bv.get_z3_ast(), sort.get_z3_sort())
            .expect("Z3 makes to_fp of a bit-vector of the float's size");
        Float::wrap(bv.get_ctx(), raw)
    }
}

fn quiet_bit(width: u32) -> u64 {
    if width == 32 {
        1 << 22
    } else {
        1 << 51
    }
}

fn default_nan(width: u32) -> BV {
    if width == 32 {
        BV::from_u64(0xffc0_0000, 32)
    } else {
        BV::from_u64(0xfff8_0000_0000_0000, 64)
    }
}

/// The bits of `r`, a result of an operation on `a` and `b`, with NaNs the
/// x86 way: the first NaN operand made quiet, else the default NaN.
fn x86_nan(width: u32, a: &BV, b: Option<&BV>, r: &Float) -> BV {
    let q = BV::from_u64(quiet_bit(width), width);
    let mut out = r.is_nan().ite(&default_nan(width), &r.to_ieee_bv());
    if let Some(b) = b {
        out = fp_of(b, width).is_nan().ite(&b.bvor(&q), &out);
    }
    fp_of(a, width).is_nan().ite(&a.bvor(&q), &out)
}

fn fp_bin_term(op: crate::float::FpBinOp, width: u32, a: &BV, b: &BV) -> BV {
    use crate::float::FpBinOp as F;
    let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
    let (fa, fb) = (fp_of(a, width), fp_of(b, width));
    let r = match op {
        F::Add => fa.add_with_rounding_mode(&fb, &rne),
        F::Sub => fa.sub_with_rounding_mode(&fb, &rne),
        F::Mul => fa.mul_with_rounding_mode(&fb, &rne),
        F::Div => fa.div_with_rounding_mode(&fb, &rne),
        F::Rem => {
            // fmod from the IEEE remainder: where the remainder's sign
            // differs from the dividend's, one more |b| of the dividend's
            // sign gives the truncated quotient's remainder (exactly, since
            // that value is representable).
            let r = fa.rem(&fb);
            let abs_b = fb.unary_abs();
            let step = fa.is_negative().ite(&abs_b.unary_neg(), &abs_b);
            let wrong = Bool::and(&[r.is_zero().not(), r.is_negative().eq(fa.is_negative()).not()]);
            wrong.ite(&r.add_with_rounding_mode(&step, &rne), &r)
        }
    };
    x86_nan(width, a, Some(b), &r)
}

fn fp_conv_term(from: u32, to: u32, a: &BV) -> BV {
    if from == to {
        return a.clone();
    }
    let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
    let r = fp_of(a, from).to_fp_with_rounding_mode(&rne, &fp_sort(to)).to_ieee_bv();
    // A NaN keeps its sign and top payload bits, made quiet.
    let nan = if from == 32 {
        let sign = a.extract(31, 31).zero_ext(63).bvshl(BV::from_u64(63, 64));
        let payload = a.extract(22, 0).zero_ext(41).bvshl(BV::from_u64(29, 64));
        sign.bvor(&payload).bvor(BV::from_u64(0x7ff8_0000_0000_0000, 64))
    } else {
        let sign = a.extract(63, 63).zero_ext(31).bvshl(BV::from_u64(31, 32));
        let payload = a.extract(51, 29).zero_ext(9);
        sign.bvor(&payload).bvor(BV::from_u64(0x7fc0_0000, 32))
    };
    fp_of(a, from).is_nan().ite(&nan, &r)
}

fn fp_to_sbv_term(from: u32, to: u32, a: &BV) -> BV {
    let rtz = z3::ast::RoundingMode::round_towards_zero();
    let f = fp_of(a, from);
    let t = f.round_to_integral_with_rounding_mode(&rtz);
    let bound = 2f64.powi(to as i32 - 1);
    let bits = |v: f64| {
        if from == 32 {
            BV::from_u64(u64::from((v as f32).to_bits()), 32)
        } else {
            BV::from_u64(v.to_bits(), 64)
        }
    };
    let (lo, hi) = (fp_of(&bits(-bound), from), fp_of(&bits(bound), from));
    let in_range = Bool::and(&[t.ge(&lo), t.lt(&hi)]);
    in_range.ite(&f.to_sbv_with_rounding_mode(&rtz, to), &BV::from_u64(1u64 << (to - 1), to))
}

// Numerals are read 64 bits at a time, since the crate's numeral readers
// stop at u64 and the string form would need parsing.
fn read_bv(model: &z3::Model, bv: &BV, width: u32) -> Result<u128, SolverError> {
    let word = |t: &BV| -> Result<u128, SolverError> {
        model
            .eval(t, true)
            .and_then(|v| v.as_u64())
            .map(u128::from)
            .ok_or_else(|| SolverError::Backend(format!("no value for {t}")))
    };
    if width <= 64 {
        word(bv)
    } else {
        let lo = word(&bv.extract(63, 0))?;
        let hi = word(&bv.extract(width - 1, 64))?;
        Ok((hi << 64) | lo)
    }
}

impl Solver for Z3Solver {
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.deadline = deadline;
    }

    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let start = Instant::now();
        if let Some(budget) = self.settings.max_nonlinear {
            if nonlinear_weight(pool, query.constraints, budget) > budget {
                let answer = Ok(Answer::Unknown("nonlinear budget".to_string()));
                self.counter.record(&answer, false, start.elapsed());
                return answer;
            }
        }
        let work_before = self.work;
        // The z3 crate unwraps null results from Z3; a panic there must not
        // take the whole run down, so it becomes an error and the term
        // table (possibly half-filled) is dropped.
        let answer = match catch_unwind(AssertUnwindSafe(|| self.solve(pool, query))) {
            Ok(a) => a,
            Err(payload) => {
                self.terms.clear();
                self.base.clear();
                if let Some(s) = &self.incremental {
                    s.reset();
                }
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_string());
                Err(SolverError::Backend(format!("z3 panicked: {msg}")))
            }
        };
        let time = start.elapsed();
        self.counter.record(&answer, false, time);
        let work = self.work - work_before;
        crate::tally::record("z3", z3_version, &answer, time, work);
        if crate::dump::enabled() {
            self.dump(pool, query, answer.as_ref().ok(), time, work);
        }
        answer
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        out.push(self.counter.stats("z3", vec![("rlimit", self.work)]));
    }

    fn assert_base(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<(), SolverError> {
        if self.incremental.is_none() {
            return Ok(());
        }
        self.follow_pool(pool);
        for &c in constraints {
            if self.base.contains(&c) {
                continue;
            }
            let b = match self.term(pool, c)? {
                Term::Bool(b) => b,
                _ => return Err(SolverError::NotBool(c)),
            };
            self.incremental.as_ref().unwrap().assert(&b);
            self.base.insert(c);
        }
        Ok(())
    }

    fn work(&self) -> u64 {
        self.work
    }
}

/// Z3's resource count as `solver`'s statistics show it (it accumulates
/// over the thread's context): deterministic, unlike time.
fn resource_count(solver: &z3::Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
        Some(z3::StatisticsValue::Double(d)) => d as u64,
        None => 0,
    }
}

/// Interrupts this thread's Z3 context when a query outlives its limit.
/// Disarmed (and joined) on drop; the flag is read and the interrupt sent
/// under one lock, so a finished query is never interrupted afterwards.
struct Watchdog {
    done: std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn arm(limit: std::time::Duration) -> Watchdog {
        // A grace period lets Z3's own timeout answer first where it works.
        let limit = limit + limit / 10 + std::time::Duration::from_millis(50);
        let ctx = z3::Context::thread_local().get_z3_context().as_ptr() as usize;
        let done = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
        let flag = std::sync::Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let (lock, cvar) = &*flag;
            let Ok(guard) = lock.lock() else { return };
            let Ok((guard, _)) = cvar.wait_timeout_while(guard, limit, |finished| !*finished) else { return };
            if !*guard {
                // SAFETY: the context outlives this thread: the query that
                // owns it waits in `drop` for the join.
                if let Some(ptr) = std::ptr::NonNull::new(ctx as *mut z3_sys::_Z3_context) {
                    unsafe { z3_sys::Z3_interrupt(ptr) };
                }
            }
        });
        Watchdog { done, thread: Some(thread) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (lock, cvar) = &*self.done;
        if let Ok(mut finished) = lock.lock() {
            *finished = true;
            cvar.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The nonlinear weight of the terms under `roots` (see
/// [`BackendSettings::max_nonlinear`]); stops counting past `cap`.
fn nonlinear_weight(pool: &ExprPool, roots: &[ExprId], cap: u32) -> u32 {
    use crate::fold::BvBinOp::{Mul, SDiv, SRem, UDiv, URem};
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<ExprId> = roots.to_vec();
    let mut weight = 0u32;
    while let Some(e) = stack.pop() {
        if !seen.insert(e) || pool.symbols_of(e).is_empty() {
            continue;
        }
        let node = pool.get(e);
        if let Node::BvBin(Mul | UDiv | SDiv | URem | SRem, a, b) = *node {
            if pool.as_bv_const(a).is_none() && pool.as_bv_const(b).is_none() {
                weight += pool.width(e).unwrap_or(8).div_ceil(8);
                if weight > cap {
                    return weight;
                }
            }
        }
        stack.extend(node.children());
    }
    weight
}
