//! The Bitwuzla backend: translates pool expressions to Bitwuzla terms
//! through its C API, runs Bitwuzla under a deadline and a work limit, and
//! reads the model back.
//!
//! Bitwuzla 0.10.0 is built by `scripts/fetch-bitwuzla` from PyPI's source
//! package and linked statically (see `.cargo/config.toml`), through the
//! `bitwuzla-sys` 0.8.0 bindings with the corrections of [`ffi`]. It answers the same [`Query`]s as the Z3 backend
//! and returns models in the same form, checked the same way: the
//! evaluator runs the query under the model, so a translation that
//! disagrees with [`ExprPool::eval`] is an error, never a wrong test.
//!
//! **Terms.** A term manager lives as long as the solver (per pool), and
//! translated terms are kept, as in the Z3 backend, since successive
//! path-condition queries share most of their nodes. Queries run on one
//! Bitwuzla instance over that manager, each between a push and a pop
//! (an instance costs about 15 ms to set up; it is replaced every
//! [`RECYCLE_AFTER`] queries); the incremental mode keeps its instance,
//! with the base constraints asserted once (the bounded engine's covers).
//!
//! **Floats.** The pool keeps floats as their IEEE bits. SMT-LIB (and so
//! Bitwuzla) can read bits as a float (`to_fp`) but has no operation that
//! gives a float's bits back, which Z3 has as an extension. A float result
//! that must become bits is therefore a fresh bit-vector constant `b` with
//! the definition `(= ((_ to_fp e s) b) r)`, asserted with every query
//! that uses it. SMT-LIB's `=` on floats is identity (it tells +0 from -0
//! and relates every NaN), which pins `b` except for NaN results; every
//! such place already maps a NaN result to the one NaN x86 gives, as the
//! Z3 backend does, so the bits are a function of the operands.
//!
//! **Limits and work.** Bitwuzla calls a termination callback at points of
//! its search that depend only on the query (its own loops and CaDiCaL's,
//! whose interval is counted in search steps, not time). The callback
//! counts its calls: that count is the backend's work, the same for the
//! same queries on any machine and at any load, and the work limit ends a
//! query after a fixed number of calls. The callback also ends the query
//! at its wall-clock end (the per-query timeout, cut to the deadline).

mod ffi;
pub mod interpolate;
mod stray;

use std::ffi::{c_void, CStr, CString};
use std::time::{Duration, Instant};

use bitwuzla_sys as bw;
use bw::{BitwuzlaKind as Kind, BitwuzlaSort, BitwuzlaTerm};

use crate::display::{array_label, sym_label};
use crate::eval::Assignment;
use crate::expr::{ArrayId, ExprId, ExprPool, Node, Sort as PSort, SymId};
use crate::hash::FxHashMap;
use crate::solver::{Answer, BackendSettings, Counter, LayerStats, Query, Solver, SolverError};

/// Units of work this backend reports per termination-callback call:
/// scaled so that a second of Bitwuzla's search counts about as much as a
/// second of Z3's resource count (0.4 to 4.5 million units), since
/// schedulers compare the two and work limits count in these units.
/// Bitwuzla 0.10.0 calls back 70,000 to 200,000 times a second on the
/// float queries of `bench/floats/product.c` (0.8.0: 1,300 to 15,000,
/// when this was 200, which with 0.10.0 ended those queries at a tenth
/// of their time).
const UNITS_PER_CALL: u64 = 20;

/// Queries a non-incremental solver's instance answers before it is
/// replaced: one instance with push and pop per query avoids Bitwuzla's
/// set-up cost (about 15 ms an instance, measured on the explicit-state
/// engine's queries), and replacing it now and then keeps what it
/// remembers of old queries from growing without bound.
const RECYCLE_AFTER: u32 = 256;

/// Terms above which a query counts as large (see `Instance::new`): the
/// bounded engine's formulas have thousands, concolic and model-checker
/// queries after slicing tens to hundreds.
const LARGE_QUERY: usize = 2_000;

/// Whether the terms under `roots` number more than `limit`.
fn larger_than(pool: &ExprPool, roots: &[ExprId], limit: usize) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = roots.to_vec();
    while let Some(e) = stack.pop() {
        if seen.insert(e) {
            if seen.len() > limit {
                return true;
            }
            stack.extend(pool.get(e).children());
        }
    }
    false
}

/// The linked Bitwuzla's version (`0.10.0`).
pub fn bitwuzla_version() -> String {
    // SAFETY: Bitwuzla returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(bw::bitwuzla_version()) }.to_string_lossy().into_owned()
}

/// Owns a term manager; every term and sort made with it dies with it.
struct Manager(*mut bw::BitwuzlaTermManager);

impl Manager {
    fn new() -> Manager {
        // SAFETY: plain constructor.
        Manager(unsafe { bw::bitwuzla_term_manager_new() })
    }
}

impl Drop for Manager {
    fn drop(&mut self) {
        // SAFETY: made by `bitwuzla_term_manager_new`, deleted once; the
        // instances using it are deleted before (they borrow the solver).
        unsafe { bw::bitwuzla_term_manager_delete(self.0) }
    }
}

/// What the termination callback reads and counts. Boxed, so its address
/// stays fixed while Bitwuzla holds it.
struct Limits {
    /// Wall-clock end of the current query.
    end: Option<Instant>,
    /// Calls so far in the current query.
    calls: u64,
    /// Calls after which the query ends (the work limit).
    max_calls: Option<u64>,
    /// Whether a limit ended the query (for the unknown reason).
    hit: Option<&'static str>,
}

unsafe extern "C" fn terminate(state: *mut c_void) -> i32 {
    // SAFETY: `state` is the `Limits` box of the instance being run, which
    // outlives the instance (see `Instance`).
    let limits = unsafe { &mut *(state as *mut Limits) };
    limits.calls += 1;
    if limits.max_calls.is_some_and(|m| limits.calls > m) {
        limits.hit = Some("resource limit");
        return 1;
    }
    if limits.end.is_some_and(|e| Instant::now() >= e) {
        limits.hit = Some("timeout");
        return 1;
    }
    0
}

/// One Bitwuzla instance with models on and the callback installed.
struct Instance {
    raw: *mut bw::Bitwuzla,
    /// The callback's state: owned here (from `Box::into_raw`), freed
    /// after the instance, and touched only between checks or by the
    /// callback during one, all on this thread.
    limits: *mut Limits,
}

impl Instance {
    /// A new instance; `large` for one that answers large formulas (a
    /// kept base, see [`BitwuzlaSolver::incremental`], or one query of
    /// more than [`LARGE_QUERY`] terms).
    fn new(tm: &Manager, large: bool) -> Instance {
        Instance::with_options(tm, |options| {
            // SAFETY: a valid options object; numbers of the linked version.
            unsafe {
                bw::bitwuzla_set_option(options, ffi::OPT_PRODUCE_MODELS, 1);
                if large {
                    // Variable substitution runs over the whole formula on
                    // every check without calling the termination callback:
                    // on the bounded engine's cover of bench/real/base58.c
                    // one check sat in it (seen in gdb, `is_direct_cycle`)
                    // past the campaign's deadline. Not off for small
                    // queries: those that pin symbols to constants (the float
                    // tests') need it, or Bitwuzla bit-blasts whole float
                    // circuits (minutes, gigabytes).
                    bw::bitwuzla_set_option(options, ffi::OPT_PP_VARIABLE_SUBST, 0);
                }
            }
        })
    }

    /// A new instance that produces interpolants (see [`interpolate`]).
    fn interpolating(tm: &Manager) -> Instance {
        // Interpolants by substitution: where the symbols local to one
        // side can be substituted away, the other side (so rewritten) is
        // the interpolant, at the word level (`0 < x`, `x = y`) where
        // the proof's interpolant is a conjunction of bits. On the model
        // checker's paths of NetBSD_loop it gave `x = 0` and `0 < x` in
        // 50 ms where the proof gave bits in 330 ms.
        // SAFETY: a valid options object; numbers of the linked version.
        Instance::with_options(tm, |options| unsafe {
            bw::bitwuzla_set_option(options, ffi::OPT_PRODUCE_INTERPOLANTS, 1);
            bw::bitwuzla_set_option(options, ffi::OPT_INTERPOLANTS_SUBST, 1);
        })
    }

    /// A new instance with the options `set` sets, and the callback.
    fn with_options(tm: &Manager, set: impl FnOnce(*mut bw::BitwuzlaOptions)) -> Instance {
        debug_assert_eq!(bitwuzla_version(), ffi::HEADER_VERSION, "option numbers of another version");
        let limits = Box::into_raw(Box::new(Limits { end: None, calls: 0, max_calls: None, hit: None }));
        // SAFETY: the options are copied by `bitwuzla_new`; the callback
        // state outlives the instance (see `Drop`).
        unsafe {
            let options = bw::bitwuzla_options_new();
            set(options);
            let raw = bw::bitwuzla_new(tm.0, options);
            bw::bitwuzla_options_delete(options);
            bw::bitwuzla_set_termination_callback(raw, Some(terminate), limits as *mut c_void);
            Instance { raw, limits }
        }
    }

    /// Starts the limits of the next check.
    fn arm(&self, end: Option<Instant>, max_calls: Option<u64>) {
        // SAFETY: no check is running (see the field).
        unsafe { *self.limits = Limits { end, calls: 0, max_calls, hit: None } };
    }

    /// The callback's calls in the last check, and the limit it hit.
    fn outcome(&self) -> (u64, Option<&'static str>) {
        // SAFETY: no check is running (see the field).
        let l = unsafe { &*self.limits };
        (l.calls, l.hit)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: made by `bitwuzla_new` and `Box::into_raw`, freed once,
        // the instance first so the callback cannot run afterwards.
        unsafe {
            bw::bitwuzla_delete(self.raw);
            drop(Box::from_raw(self.limits));
        }
    }
}

/// Answers queries with Bitwuzla.
pub struct BitwuzlaSolver {
    settings: BackendSettings,
    pool_uid: u64,
    /// The instance queries run on, made on first use; declared before
    /// `tm`, so it is deleted before it.
    instance: Option<Instance>,
    /// Queries the instance has answered (see [`RECYCLE_AFTER`]).
    instance_queries: u32,
    /// Whether base constraints are kept ([`BitwuzlaSolver::incremental`]).
    keeps_base: bool,
    tm: Manager,
    terms: FxHashMap<ExprId, BitwuzlaTerm>,
    /// Definitions of the fresh constants that stand for float results'
    /// bits (see the module doc), by the node they translate.
    fp_defs: FxHashMap<ExprId, BitwuzlaTerm>,
    base: std::collections::HashSet<ExprId>,
    counter: Counter,
    deadline: Option<Instant>,
    work: u64,
    fresh: u64,
    /// A check left running at its query's end (see [`stray`]).
    stray: Option<stray::Stray>,
}

impl BitwuzlaSolver {
    /// A backend with the given settings.
    pub fn new(settings: BackendSettings) -> Self {
        BitwuzlaSolver {
            settings,
            pool_uid: 0,
            instance: None,
            instance_queries: 0,
            keeps_base: false,
            tm: Manager::new(),
            terms: FxHashMap::default(),
            fp_defs: FxHashMap::default(),
            base: Default::default(),
            counter: Counter::default(),
            deadline: None,
            work: 0,
            fresh: 0,
            stray: None,
        }
    }

    /// An incremental backend (see [`crate::Z3Solver::incremental`]): one
    /// instance kept across queries, with the constraints given to
    /// [`Solver::assert_base`] asserted once.
    pub fn incremental(settings: BackendSettings) -> Self {
        let mut s = BitwuzlaSolver::new(settings);
        s.keeps_base = true;
        s
    }

    /// Forgets every term when `pool` is not the one they were made for.
    fn follow_pool(&mut self, pool: &ExprPool) {
        if pool.uid() == self.pool_uid {
            return;
        }
        self.abandon_stray();
        self.instance = None;
        self.terms.clear();
        self.fp_defs.clear();
        self.base.clear();
        self.tm = Manager::new();
        self.pool_uid = pool.uid();
    }

    fn term(&mut self, pool: &ExprPool, root: ExprId) -> Result<BitwuzlaTerm, SolverError> {
        if let Some(&t) = self.terms.get(&root) {
            return Ok(t);
        }
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if self.terms.contains_key(&id) {
                continue;
            }
            let node = pool.get(id);
            if !expanded {
                stack.push((id, true));
                stack.extend(node.children().filter(|c| !self.terms.contains_key(c)).map(|c| (c, false)));
                continue;
            }
            let t = self.build(pool, id, node)?;
            self.terms.insert(id, t);
        }
        self.terms.get(&root).copied().ok_or_else(|| SolverError::Backend(format!("{root} was not translated")))
    }

    fn child(&self, id: ExprId) -> Result<BitwuzlaTerm, SolverError> {
        self.terms.get(&id).copied().ok_or_else(|| SolverError::Backend(format!("operand {id} not translated")))
    }

    // Operands are translated already, and the pool guarantees their sorts
    // match: Bitwuzla aborts the process on an ill-sorted term.
    fn build(&mut self, pool: &ExprPool, id: ExprId, node: &Node) -> Result<BitwuzlaTerm, SolverError> {
        use crate::fold::{BvBinOp as B, BvUnOp as U, CmpOp as C};
        let width = |e: ExprId| pool.width(e).unwrap_or(1);
        let m = Mk(self.tm.0);
        Ok(match *node {
            Node::Bool(b) => m.bool(b),
            Node::Bv { width, value } => m.bv(width, value),
            Node::Var { sym, width } => m.constant(m.bv_sort(width), &sym_label(pool, sym)),
            Node::ArrayVar { array, index_width } => m.constant(m.array_sort(index_width), &array_label(pool, array)),
            Node::ConstArray { index_width, value } => {
                // SAFETY: a valid array sort and a byte value of its element sort.
                unsafe { bw::bitwuzla_mk_const_array(m.0, m.array_sort(index_width), m.bv(8, u128::from(value))) }
            }
            Node::Not(a) => m.op(bw::BITWUZLA_KIND_NOT, &[self.child(a)?]),
            Node::And(ref xs) | Node::Or(ref xs) => {
                let and = matches!(node, Node::And(_));
                let args = xs.iter().map(|&x| self.child(x)).collect::<Result<Vec<_>, _>>()?;
                match args.len() {
                    0 => m.bool(and),
                    1 => args[0],
                    _ => m.op(if and { bw::BITWUZLA_KIND_AND } else { bw::BITWUZLA_KIND_OR }, &args),
                }
            }
            Node::Ite { cond, then, els } => {
                m.op(bw::BITWUZLA_KIND_ITE, &[self.child(cond)?, self.child(then)?, self.child(els)?])
            }
            Node::Eq(a, b) => m.op(bw::BITWUZLA_KIND_EQUAL, &[self.child(a)?, self.child(b)?]),
            Node::BvUn(op, a) => {
                let k = match op {
                    U::Not => bw::BITWUZLA_KIND_BV_NOT,
                    U::Neg => bw::BITWUZLA_KIND_BV_NEG,
                };
                m.op(k, &[self.child(a)?])
            }
            Node::BvBin(op, a, b) => {
                let k = match op {
                    B::Add => bw::BITWUZLA_KIND_BV_ADD,
                    B::Sub => bw::BITWUZLA_KIND_BV_SUB,
                    B::Mul => bw::BITWUZLA_KIND_BV_MUL,
                    B::UDiv => bw::BITWUZLA_KIND_BV_UDIV,
                    B::SDiv => bw::BITWUZLA_KIND_BV_SDIV,
                    B::URem => bw::BITWUZLA_KIND_BV_UREM,
                    B::SRem => bw::BITWUZLA_KIND_BV_SREM,
                    B::Shl => bw::BITWUZLA_KIND_BV_SHL,
                    B::LShr => bw::BITWUZLA_KIND_BV_SHR,
                    B::AShr => bw::BITWUZLA_KIND_BV_ASHR,
                    B::And => bw::BITWUZLA_KIND_BV_AND,
                    B::Or => bw::BITWUZLA_KIND_BV_OR,
                    B::Xor => bw::BITWUZLA_KIND_BV_XOR,
                };
                m.op(k, &[self.child(a)?, self.child(b)?])
            }
            Node::Cmp(op, a, b) => {
                let k = match op {
                    C::Ult => bw::BITWUZLA_KIND_BV_ULT,
                    C::Ule => bw::BITWUZLA_KIND_BV_ULE,
                    C::Slt => bw::BITWUZLA_KIND_BV_SLT,
                    C::Sle => bw::BITWUZLA_KIND_BV_SLE,
                };
                m.op(k, &[self.child(a)?, self.child(b)?])
            }
            Node::ZExt { arg, width: to } => {
                m.indexed(bw::BITWUZLA_KIND_BV_ZERO_EXTEND, &[self.child(arg)?], &[u64::from(to - width(arg))])
            }
            Node::SExt { arg, width: to } => {
                m.indexed(bw::BITWUZLA_KIND_BV_SIGN_EXTEND, &[self.child(arg)?], &[u64::from(to - width(arg))])
            }
            Node::Extract { arg, hi, lo } => {
                m.indexed(bw::BITWUZLA_KIND_BV_EXTRACT, &[self.child(arg)?], &[u64::from(hi), u64::from(lo)])
            }
            Node::Concat(h, l) => m.op(bw::BITWUZLA_KIND_BV_CONCAT, &[self.child(h)?, self.child(l)?]),
            Node::FpBin(op, a, b) => {
                let w = width(a);
                let (ba, bb) = (self.child(a)?, self.child(b)?);
                let r = m.fp_bin(op, w, ba, bb);
                let bits = self.bits_of(id, w, r);
                m.x86_nan(w, ba, Some(bb), r, bits)
            }
            Node::FpCmp(op, a, b) => {
                let w = width(a);
                let (fa, fb) = (m.fp_of(self.child(a)?, w), m.fp_of(self.child(b)?, w));
                let k = match op {
                    crate::float::FpCmpOp::Lt => bw::BITWUZLA_KIND_FP_LT,
                    crate::float::FpCmpOp::Le => bw::BITWUZLA_KIND_FP_LEQ,
                    crate::float::FpCmpOp::Eq => bw::BITWUZLA_KIND_FP_EQUAL,
                };
                m.op(k, &[fa, fb])
            }
            Node::FpConv { arg, width: to } => {
                let (from, a) = (width(arg), self.child(arg)?);
                if from == to {
                    a
                } else {
                    let (e, s) = fp_format(to);
                    let r = m.indexed(bw::BITWUZLA_KIND_FP_TO_FP_FROM_FP, &[m.rne(), m.fp_of(a, from)], &[e, s]);
                    let bits = self.bits_of(id, to, r);
                    m.conv_nan(from, a, bits)
                }
            }
            Node::FpToSbv { arg, width: to } => m.fp_to_sbv(width(arg), to, self.child(arg)?),
            Node::BvToFp { arg, width: to, signed } => {
                let k = if signed { bw::BITWUZLA_KIND_FP_TO_FP_FROM_SBV } else { bw::BITWUZLA_KIND_FP_TO_FP_FROM_UBV };
                let (e, s) = fp_format(to);
                let r = m.indexed(k, &[m.rne(), self.child(arg)?], &[e, s]);
                self.bits_of(id, to, r)
            }
            Node::Select { array, index } => {
                m.op(bw::BITWUZLA_KIND_ARRAY_SELECT, &[self.child(array)?, self.child(index)?])
            }
            Node::Store { array, index, value } => {
                m.op(bw::BITWUZLA_KIND_ARRAY_STORE, &[self.child(array)?, self.child(index)?, self.child(value)?])
            }
        })
    }

    /// A fresh constant standing for the bits of the float `r`, defined
    /// for the queries that use node `id` (see the module doc).
    fn bits_of(&mut self, id: ExprId, width: u32, r: BitwuzlaTerm) -> BitwuzlaTerm {
        let m = Mk(self.tm.0);
        self.fresh += 1;
        let b = m.constant(m.bv_sort(width), &format!("fpbits!{}", self.fresh));
        let def = m.op(bw::BITWUZLA_KIND_EQUAL, &[m.fp_of(b, width), r]);
        self.fp_defs.insert(id, def);
        b
    }

    /// The float definitions the terms under `roots` need.
    fn defs_under(&self, pool: &ExprPool, roots: &[ExprId]) -> Vec<BitwuzlaTerm> {
        if self.fp_defs.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = roots.to_vec();
        while let Some(e) = stack.pop() {
            if !seen.insert(e) {
                continue;
            }
            if let Some(&d) = self.fp_defs.get(&e) {
                out.push(d);
            }
            stack.extend(pool.get(e).children());
        }
        out
    }

    /// The terms a query asserts: its constraints not in the base, and the
    /// float definitions they need.
    fn assertions(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<Vec<BitwuzlaTerm>, SolverError> {
        let mut out = Vec::with_capacity(constraints.len());
        let mut new = Vec::with_capacity(constraints.len());
        for &c in constraints {
            if self.base.contains(&c) {
                continue;
            }
            if pool.sort(c) != PSort::Bool {
                return Err(SolverError::NotBool(c));
            }
            out.push(self.term(pool, c)?);
            new.push(c);
        }
        out.extend(self.defs_under(pool, &new));
        Ok(out)
    }

    /// The instance for the next query: the kept one, or a new one when
    /// there is none or a non-incremental one has answered
    /// [`RECYCLE_AFTER`] queries.
    fn instance_for_query(&mut self) -> &Instance {
        let worn = !self.keeps_base && self.instance_queries >= RECYCLE_AFTER;
        if self.instance.is_none() || worn {
            self.instance = None;
            self.instance = Some(Instance::new(&self.tm, self.keeps_base));
            self.instance_queries = 0;
        }
        self.instance_queries += 1;
        self.instance.as_ref().expect("made above")
    }

    /// Waits for a stray check (see [`stray`]), and pops its query from
    /// the kept instance; false, without waiting, while it still runs
    /// past the deadline.
    fn settle_stray(&mut self) -> bool {
        let Some(s) = self.stray.take() else { return true };
        if !s.is_finished() && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stray = Some(s);
            return false;
        }
        let kept = s.own.is_none();
        s.finish();
        if let (true, Some(inst)) = (kept, &self.instance) {
            // SAFETY: the stray's push, on the kept instance, which no
            // check uses any more.
            unsafe { bw::bitwuzla_pop(inst.raw, 1) };
        }
        true
    }

    /// Hands a stray check, with the instance and the manager it uses, to
    /// a thread that frees them when it ends (see [`stray`]); the solver
    /// goes on with a new manager and no terms.
    fn abandon_stray(&mut self) {
        let Some(s) = self.stray.take() else { return };
        stray::abandon(stray::Abandoned {
            stray: Some(s),
            _instance: self.instance.take(),
            _manager: std::mem::replace(&mut self.tm, Manager::new()),
        });
        self.terms.clear();
        self.fp_defs.clear();
        self.base.clear();
    }

    /// When the current query must end: its timeout, cut to the deadline.
    fn query_end(&self) -> Option<Instant> {
        let timeout = self.settings.timeout_ms.map(|ms| Instant::now() + Duration::from_millis(u64::from(ms)));
        match (timeout, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn solve(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        if !self.settle_stray() {
            return Ok(Answer::Unknown("timeout (an earlier check is still stopping)".into()));
        }
        self.follow_pool(pool);
        let asserted = self.assertions(pool, query.constraints)?;
        let end = self.query_end();
        let max_calls = self.settings.work_limit.map(|w| u64::from(w).div_ceil(UNITS_PER_CALL));
        // A large query gets an instance of its own without variable
        // substitution (see `Instance::new`); its set-up cost is small
        // beside such a query's.
        // (An incremental instance is large already: it keeps the base.)
        let large = !self.keeps_base && larger_than(pool, query.constraints, LARGE_QUERY);
        let own = large.then(|| Instance::new(&self.tm, true));
        let inst = match &own {
            Some(i) => i,
            None => self.instance_for_query(),
        };
        inst.arm(end, max_calls);
        let raw = inst.raw;
        // SAFETY: every term was made by this solver's manager.
        unsafe {
            bw::bitwuzla_push(raw, 1);
            for &t in &asserted {
                bw::bitwuzla_assert(raw, t);
            }
        }
        // Large checks, and those of a kept base, on a thread of their own
        // (see [`stray`]).
        let threaded = if large || self.keeps_base { stray::check(raw, end) } else { None };
        let result = match threaded {
            Some(stray::Checked::Done(result)) => result,
            Some(stray::Checked::Running(handle)) => {
                self.stray = Some(stray::Stray { handle, own });
                return Ok(Answer::Unknown("timeout (Bitwuzla was still bit-blasting)".into()));
            }
            // SAFETY: as above.
            None => unsafe { bw::bitwuzla_check_sat(raw) },
        };
        let inst = own.as_ref().or(self.instance.as_ref()).expect("the instance checked");
        let (calls, hit) = inst.outcome();
        let answer = match result {
            bw::BITWUZLA_UNSAT => Ok(Answer::Unsat),
            bw::BITWUZLA_SAT => self.read_model(pool, query, raw).map(Answer::Sat),
            _ => Ok(Answer::Unknown(hit.unwrap_or("unknown").to_string())),
        };
        // SAFETY: the push above, on the instance `raw` is (still held by
        // `own` or `self.instance`).
        unsafe { bw::bitwuzla_pop(raw, 1) };
        drop(own);
        self.work += calls * UNITS_PER_CALL;
        answer
    }

    fn read_model(
        &self,
        pool: &ExprPool,
        query: &Query<'_>,
        raw: *mut bw::Bitwuzla,
    ) -> Result<Assignment, SolverError> {
        crate::solver::checked_model(
            pool,
            query,
            |sym| self.sym_value(pool, sym, raw),
            |array, index| self.byte_value(pool, array, index, raw),
        )
    }

    /// Byte `index` of `array` in the last model of `raw`.
    fn byte_value(
        &self,
        pool: &ExprPool,
        array: ArrayId,
        index: u128,
        raw: *mut bw::Bitwuzla,
    ) -> Result<u8, SolverError> {
        let a = self
            .terms
            .get(&pool.array_expr(array))
            .copied()
            .ok_or_else(|| SolverError::Backend(format!("array {} not translated", array.0)))?;
        let m = Mk(self.tm.0);
        let i = m.bv(pool.array_index_width(array), index);
        value_of(raw, m.op(bw::BITWUZLA_KIND_ARRAY_SELECT, &[a, i])).map(|b| b as u8)
    }

    fn sym_value(&self, pool: &ExprPool, sym: SymId, raw: *mut bw::Bitwuzla) -> Result<u128, SolverError> {
        let t = self
            .terms
            .get(&pool.symbol_expr(sym))
            .copied()
            .ok_or_else(|| SolverError::Backend(format!("symbol {} not translated", sym.0)))?;
        value_of(raw, t)
    }
}

/// The value of the bit-vector term `t` in the last model of `raw`.
fn value_of(raw: *mut bw::Bitwuzla, t: BitwuzlaTerm) -> Result<u128, SolverError> {
    // SAFETY: the last check answered sat; Bitwuzla owns the string until
    // its next call, so it is parsed at once.
    let text = unsafe {
        let v = bw::bitwuzla_get_value(raw, t);
        CStr::from_ptr(bw::bitwuzla_term_value_get_str_fmt(v, 16)).to_string_lossy().into_owned()
    };
    u128::from_str_radix(&text, 16).map_err(|e| SolverError::Backend(format!("bitwuzla value {text:?}: {e}")))
}

impl Solver for BitwuzlaSolver {
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    fn check(&mut self, pool: &ExprPool, query: &Query<'_>) -> Result<Answer, SolverError> {
        let start = Instant::now();
        let work_before = self.work;
        let answer = self.solve(pool, query);
        let time = start.elapsed();
        self.counter.record(&answer, false, time);
        let work = self.work - work_before;
        crate::tally::record("bitwuzla", bitwuzla_version, &answer, time, work);
        if crate::dump::enabled() {
            self.dump(pool, query, answer.as_ref().ok(), time, work);
        }
        answer
    }

    fn stats(&self, out: &mut Vec<LayerStats>) {
        out.push(self.counter.stats("bitwuzla", vec![("work", self.work)]));
    }

    fn work(&self) -> u64 {
        self.work
    }

    fn assert_base(&mut self, pool: &ExprPool, constraints: &[ExprId]) -> Result<(), SolverError> {
        if !self.keeps_base {
            return Ok(());
        }
        if !self.settle_stray() {
            // Not asserted: later queries assert these constraints themselves.
            return Err(SolverError::Backend("an earlier check is still stopping".into()));
        }
        self.follow_pool(pool);
        let new: Vec<ExprId> = constraints.iter().copied().filter(|c| !self.base.contains(c)).collect();
        let terms = self.assertions(pool, &new)?;
        let inst = self.instance_for_query();
        for t in terms {
            // SAFETY: a Boolean term of this solver's manager.
            unsafe { bw::bitwuzla_assert(inst.raw, t) };
        }
        self.base.extend(new);
        Ok(())
    }
}

impl BitwuzlaSolver {
    /// Writes the query to the corpus (see [`crate::dump`]) as Bitwuzla's
    /// SMT-LIB printer shows it, from an instance holding just the query.
    fn dump(&mut self, pool: &ExprPool, query: &Query<'_>, answer: Option<&Answer>, time: Duration, work: u64) {
        // A stray past the deadline holds the manager: that query is not
        // written.
        if !self.settle_stray() {
            return;
        }
        let saved = std::mem::take(&mut self.base);
        let terms = self.assertions(pool, query.constraints);
        self.base = saved;
        let Ok(terms) = terms else { return };
        let inst = Instance::new(&self.tm, self.keeps_base);
        // SAFETY: terms of this manager; the stream is closed before the
        // buffer is read and freed.
        let text = unsafe {
            for &t in &terms {
                bw::bitwuzla_assert(inst.raw, t);
            }
            let mut buf: *mut libc::c_char = std::ptr::null_mut();
            let mut len: libc::size_t = 0;
            let stream = libc::open_memstream(&mut buf, &mut len);
            if stream.is_null() {
                return;
            }
            bw::bitwuzla_print_formula(inst.raw, c"smt2".as_ptr(), stream, 10);
            libc::fclose(stream);
            let text = String::from_utf8_lossy(std::slice::from_raw_parts(buf as *const u8, len)).into_owned();
            libc::free(buf as *mut c_void);
            text
        };
        let logic = crate::dump::logic(pool, query.constraints);
        // Bitwuzla prints `(set-logic ALL)`; the corpus names the logic.
        let text = text.replacen("(set-logic ALL)", &format!("(set-logic {logic})"), 1);
        let backend = format!("bitwuzla {}", bitwuzla_version());
        crate::dump::write(&crate::dump::Record { backend: &backend, smtlib: &text, answer, time, work });
    }
}

impl Drop for BitwuzlaSolver {
    fn drop(&mut self) {
        self.abandon_stray();
    }
}

/// (exponent, significand) bits of the float of `width` bits.
fn fp_format(width: u32) -> (u64, u64) {
    if width == 32 {
        (8, 24)
    } else {
        (11, 53)
    }
}

/// Term construction over one manager. Every method assumes well-sorted
/// operands (Bitwuzla aborts otherwise), which the pool guarantees.
#[derive(Clone, Copy)]
struct Mk(*mut bw::BitwuzlaTermManager);

impl Mk {
    fn bool(self, b: bool) -> BitwuzlaTerm {
        // SAFETY: a valid manager.
        unsafe {
            if b {
                bw::bitwuzla_mk_true(self.0)
            } else {
                bw::bitwuzla_mk_false(self.0)
            }
        }
    }

    fn bv_sort(self, width: u32) -> BitwuzlaSort {
        // SAFETY: a valid manager; widths are positive.
        unsafe { bw::bitwuzla_mk_bv_sort(self.0, u64::from(width)) }
    }

    fn array_sort(self, index_width: u32) -> BitwuzlaSort {
        // SAFETY: a valid manager and sorts.
        unsafe { bw::bitwuzla_mk_array_sort(self.0, self.bv_sort(index_width), self.bv_sort(8)) }
    }

    fn bv(self, width: u32, value: u128) -> BitwuzlaTerm {
        let sort = self.bv_sort(width);
        match u64::try_from(value) {
            // SAFETY: a valid manager and sort; the value fits the width.
            Ok(v) => unsafe { bw::bitwuzla_mk_bv_value_uint64(self.0, sort, v) },
            Err(_) => {
                let digits = CString::new(format!("{value:x}")).expect("hex digits");
                // SAFETY: as above, with the value in base 16.
                unsafe { bw::bitwuzla_mk_bv_value(self.0, sort, digits.as_ptr(), 16) }
            }
        }
    }

    fn constant(self, sort: BitwuzlaSort, name: &str) -> BitwuzlaTerm {
        let name = CString::new(name.replace('\0', "")).expect("no NUL");
        // SAFETY: a valid manager and sort; Bitwuzla copies the name.
        unsafe { bw::bitwuzla_mk_const(self.0, sort, name.as_ptr()) }
    }

    fn op(self, kind: Kind, args: &[BitwuzlaTerm]) -> BitwuzlaTerm {
        let mut args = args.to_vec();
        // SAFETY: well-sorted arguments of this manager.
        unsafe { bw::bitwuzla_mk_term(self.0, kind, args.len() as u32, args.as_mut_ptr()) }
    }

    fn indexed(self, kind: Kind, args: &[BitwuzlaTerm], idx: &[u64]) -> BitwuzlaTerm {
        let mut args = args.to_vec();
        // SAFETY: well-sorted arguments and indices in range.
        unsafe {
            bw::bitwuzla_mk_term_indexed(
                self.0,
                kind,
                args.len() as u32,
                args.as_mut_ptr(),
                idx.len() as u32,
                idx.as_ptr(),
            )
        }
    }

    fn rne(self) -> BitwuzlaTerm {
        // SAFETY: a valid manager.
        unsafe { bw::bitwuzla_mk_rm_value(self.0, bw::BITWUZLA_RM_RNE) }
    }

    fn rtz(self) -> BitwuzlaTerm {
        // SAFETY: a valid manager.
        unsafe { bw::bitwuzla_mk_rm_value(self.0, bw::BITWUZLA_RM_RTZ) }
    }

    /// The float whose IEEE bits are `bv`.
    fn fp_of(self, bv: BitwuzlaTerm, width: u32) -> BitwuzlaTerm {
        let (e, s) = fp_format(width);
        self.indexed(bw::BITWUZLA_KIND_FP_TO_FP_FROM_BV, &[bv], &[e, s])
    }

    fn is_nan(self, f: BitwuzlaTerm) -> BitwuzlaTerm {
        self.op(bw::BITWUZLA_KIND_FP_IS_NAN, &[f])
    }

    fn ite(self, c: BitwuzlaTerm, t: BitwuzlaTerm, e: BitwuzlaTerm) -> BitwuzlaTerm {
        self.op(bw::BITWUZLA_KIND_ITE, &[c, t, e])
    }

    /// The float operation `op` on the floats with bits `a` and `b`.
    fn fp_bin(self, op: crate::float::FpBinOp, width: u32, a: BitwuzlaTerm, b: BitwuzlaTerm) -> BitwuzlaTerm {
        use crate::float::FpBinOp as F;
        let (fa, fb) = (self.fp_of(a, width), self.fp_of(b, width));
        let rne = self.rne();
        match op {
            F::Add => self.op(bw::BITWUZLA_KIND_FP_ADD, &[rne, fa, fb]),
            F::Sub => self.op(bw::BITWUZLA_KIND_FP_SUB, &[rne, fa, fb]),
            F::Mul => self.op(bw::BITWUZLA_KIND_FP_MUL, &[rne, fa, fb]),
            F::Div => self.op(bw::BITWUZLA_KIND_FP_DIV, &[rne, fa, fb]),
            F::Rem => {
                // fmod from the IEEE remainder, as in the Z3 backend: where
                // the remainder's sign differs from the dividend's, one more
                // |b| of the dividend's sign (exact).
                let r = self.op(bw::BITWUZLA_KIND_FP_REM, &[fa, fb]);
                let abs_b = self.op(bw::BITWUZLA_KIND_FP_ABS, &[fb]);
                let neg_a = self.op(bw::BITWUZLA_KIND_FP_IS_NEG, &[fa]);
                let step = self.ite(neg_a, self.op(bw::BITWUZLA_KIND_FP_NEG, &[abs_b]), abs_b);
                let r_zero = self.op(bw::BITWUZLA_KIND_FP_IS_ZERO, &[r]);
                let r_neg = self.op(bw::BITWUZLA_KIND_FP_IS_NEG, &[r]);
                let same_sign = self.op(bw::BITWUZLA_KIND_EQUAL, &[r_neg, neg_a]);
                let wrong = self.op(
                    bw::BITWUZLA_KIND_AND,
                    &[self.op(bw::BITWUZLA_KIND_NOT, &[r_zero]), self.op(bw::BITWUZLA_KIND_NOT, &[same_sign])],
                );
                self.ite(wrong, self.op(bw::BITWUZLA_KIND_FP_ADD, &[rne, r, step]), r)
            }
        }
    }

    /// The bits of result `r` (given as `bits`) with NaNs the x86 way: the
    /// first NaN operand made quiet, else the default NaN.
    fn x86_nan(
        self,
        width: u32,
        a: BitwuzlaTerm,
        b: Option<BitwuzlaTerm>,
        r: BitwuzlaTerm,
        bits: BitwuzlaTerm,
    ) -> BitwuzlaTerm {
        let (quiet, default_nan) =
            if width == 32 { (1u128 << 22, 0xffc0_0000u128) } else { (1 << 51, 0xfff8_0000_0000_0000) };
        let q = self.bv(width, quiet);
        let mut out = self.ite(self.is_nan(r), self.bv(width, default_nan), bits);
        if let Some(b) = b {
            let quiet_b = self.op(bw::BITWUZLA_KIND_BV_OR, &[b, q]);
            out = self.ite(self.is_nan(self.fp_of(b, width)), quiet_b, out);
        }
        let quiet_a = self.op(bw::BITWUZLA_KIND_BV_OR, &[a, q]);
        self.ite(self.is_nan(self.fp_of(a, width)), quiet_a, out)
    }

    /// A conversion's bits (`bits`) with a NaN operand `a` kept the x86
    /// way: its sign and top payload bits, made quiet.
    fn conv_nan(self, from: u32, a: BitwuzlaTerm, bits: BitwuzlaTerm) -> BitwuzlaTerm {
        let ext = |t: BitwuzlaTerm, hi: u64, lo: u64| self.indexed(bw::BITWUZLA_KIND_BV_EXTRACT, &[t], &[hi, lo]);
        let zext = |t: BitwuzlaTerm, n: u64| self.indexed(bw::BITWUZLA_KIND_BV_ZERO_EXTEND, &[t], &[n]);
        let shl = |t: BitwuzlaTerm, w: u32, n: u128| self.op(bw::BITWUZLA_KIND_BV_SHL, &[t, self.bv(w, n)]);
        let or = |x: BitwuzlaTerm, y: BitwuzlaTerm| self.op(bw::BITWUZLA_KIND_BV_OR, &[x, y]);
        let nan = if from == 32 {
            let sign = shl(zext(ext(a, 31, 31), 63), 64, 63);
            let payload = shl(zext(ext(a, 22, 0), 41), 64, 29);
            or(or(sign, payload), self.bv(64, 0x7ff8_0000_0000_0000))
        } else {
            let sign = shl(zext(ext(a, 63, 63), 31), 32, 31);
            let payload = zext(ext(a, 51, 29), 9);
            or(or(sign, payload), self.bv(32, 0x7fc0_0000))
        };
        self.ite(self.is_nan(self.fp_of(a, from)), nan, bits)
    }

    /// C's conversion of a float to a signed integer of `to` bits (toward
    /// zero; out of range gives the x86 "integer indefinite" value).
    fn fp_to_sbv(self, from: u32, to: u32, a: BitwuzlaTerm) -> BitwuzlaTerm {
        let f = self.fp_of(a, from);
        let t = self.op(bw::BITWUZLA_KIND_FP_RTI, &[self.rtz(), f]);
        let bound = 2f64.powi(to as i32 - 1);
        let bits = |v: f64| {
            if from == 32 {
                self.fp_of(self.bv(32, u128::from((v as f32).to_bits())), 32)
            } else {
                self.fp_of(self.bv(64, u128::from(v.to_bits())), 64)
            }
        };
        let in_range = self.op(
            bw::BITWUZLA_KIND_AND,
            &[
                self.op(bw::BITWUZLA_KIND_FP_GEQ, &[t, bits(-bound)]),
                self.op(bw::BITWUZLA_KIND_FP_LT, &[t, bits(bound)]),
            ],
        );
        let conv = self.indexed(bw::BITWUZLA_KIND_FP_TO_SBV, &[self.rtz(), f], &[u64::from(to)]);
        self.ite(in_range, conv, self.bv(to, 1u128 << (to - 1)))
    }
}
