//! Constrained Horn clauses over pool terms, solved by Z3's Spacer engine
//! (the fixedpoint API of libz3).
//!
//! A [`HornSystem`] has relations, each with the pool symbols (bit-vector
//! symbols or byte arrays) that stand for its arguments, and clauses
//! `R1(a1) ∧ … ∧ Rk(ak) ∧ φ → H(h)`, where a clause without a head is a
//! *query*: its body must never hold. [`HornSystem::solve`] asks whether
//! some chosen queries can hold. When none can, Spacer's answer is a
//! solution: per relation a formula over its arguments that every clause
//! respects; it is read back into the pool over the relation's symbols, so
//! a caller can check it with its own encoding and print it.
//!
//! Every variable of a clause is universally quantified: each clause goes
//! to Z3 as `forall leaves. body → head`. Z3 rewrites the system before
//! solving (it inlines relations used once, slices arguments), and its
//! answer states the solution for the original relations through the
//! rewrites' model converter; that answer is a conjunction of
//! `forall x. R(x) = body` (or `R = body` for a relation without
//! arguments), which is what [`read_answer`] expects.
//!
//! Nothing here dispatches on Z3's declaration kinds (wrong in the `z3`
//! crate for libz3 4.8.12, see [`crate::Z3Solver`]): a solution is read by
//! the names of its operators, and an operator this reader does not know
//! makes the conjunct it sits in `true` (the solution gets weaker, which a
//! caller's check then notices if it mattered).

use std::collections::HashMap;
use std::ffi::CStr;

use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, Params, SatResult, Sort};
use z3_sys::{Z3_ast, Z3_context};

use crate::expr::{ExprId, ExprPool, Leaf, Sort as PSort};
use crate::fold::{BvBinOp, BvUnOp, CmpOp};
use crate::solver::BackendSettings;
use crate::solver::SolverError;
use crate::z3backend::{Term, Z3Solver};

/// A relation of a [`HornSystem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

/// A use of a relation: the relation and its arguments.
pub type Atom = (RelId, Vec<ExprId>);

/// One clause: `body ∧ constraint → head`; no head: a query.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The relations that must hold, with their arguments.
    pub body: Vec<Atom>,
    /// A Boolean pool term over the arguments and other leaves.
    pub constraint: ExprId,
    /// What follows; `None`: the clause is a query.
    pub head: Option<Atom>,
}

struct Relation {
    name: String,
    /// The pool symbols that stand for the arguments in a solution.
    params: Vec<ExprId>,
}

/// Settings of [`HornSystem::solve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HornSettings {
    /// Wall-clock limit in milliseconds.
    pub timeout_ms: u32,
    /// Keep every relation through Z3's rewrites (inlining, slicing), so
    /// that a solution states each one; with the rewrites a query they
    /// decide alone has the empty answer `true`. Default `true`.
    pub keep_relations: bool,
}

impl Default for HornSettings {
    fn default() -> Self {
        HornSettings { timeout_ms: 10_000, keep_relations: true }
    }
}

/// What [`HornSystem::solve`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HornAnswer {
    /// No chosen query can hold. Per relation (in the order added) a
    /// formula over its parameter symbols that every clause respects and
    /// that excludes the chosen queries, as far as it could be read back.
    Safe(Vec<ExprId>),
    /// Some chosen query holds for some derivation.
    Reachable,
    /// Spacer gave up (the reason in its words: a timeout, a theory it does
    /// not support).
    Unknown(String),
}

/// A system of constrained Horn clauses over one [`ExprPool`].
#[derive(Default)]
pub struct HornSystem {
    relations: Vec<Relation>,
    clauses: Vec<Clause>,
}

impl HornSystem {
    /// An empty system.
    pub fn new() -> HornSystem {
        HornSystem::default()
    }

    /// Adds a relation whose arguments `params` stand for (bit-vector
    /// symbols or byte arrays of the pool); solutions are stated over them.
    pub fn add_relation(&mut self, name: &str, params: Vec<ExprId>) -> RelId {
        self.relations.push(Relation { name: name.to_string(), params });
        RelId(self.relations.len() as u32 - 1)
    }

    /// Adds a clause; returns its number (queries are chosen by it).
    pub fn add_clause(&mut self, clause: Clause) -> usize {
        self.clauses.push(clause);
        self.clauses.len() - 1
    }

    /// The clauses, in the order added.
    pub fn clauses(&self) -> &[Clause] {
        &self.clauses
    }

    /// Whether any of the queries numbered `queries` can hold, asked of
    /// Spacer within the settings' time limit. The other queries are left
    /// out. Solutions are built in `pool`.
    pub fn solve(
        &self,
        pool: &mut ExprPool,
        queries: &[usize],
        settings: &HornSettings,
    ) -> Result<HornAnswer, SolverError> {
        let mut tr = Z3Solver::new(BackendSettings::default());
        let decls = self.declarations(pool)?;
        let goal = FuncDecl::new("query!goal", &[], &Sort::bool());
        let fp = spacer(settings);
        for d in &decls {
            fp.register_relation(d);
        }
        fp.register_relation(&goal);
        for (k, c) in self.clauses.iter().enumerate() {
            if c.head.is_none() && !queries.contains(&k) {
                continue;
            }
            let rule = self.rule(pool, &mut tr, &decls, &goal, c)?;
            fp.add_rule(&rule, None);
        }
        if std::env::var_os("WALKDOWN_HORN_DEBUG").is_some() {
            eprintln!("horn: clauses:\n{fp}");
        }
        // Spacer honours its `timeout` (a timer that cancels the query and
        // then undoes the cancel). No watchdog interrupts the context as
        // for the SMT backend: an interrupt that lands between two queries
        // would cancel every later query on this thread.
        let start = std::time::Instant::now();
        let result = fp.query_relations(&[&goal]);
        if std::env::var_os("WALKDOWN_HORN_DEBUG").is_some() {
            eprintln!("horn: {result:?} after {:?} ({})", start.elapsed(), fp.get_reason_unknown());
        }
        Ok(match result {
            SatResult::Sat => HornAnswer::Reachable,
            SatResult::Unknown => HornAnswer::Unknown(fp.get_reason_unknown()),
            SatResult::Unsat => {
                let answer = fp.get_answer().ok_or_else(|| SolverError::Backend("unsat without an answer".into()))?;
                if std::env::var_os("WALKDOWN_HORN_DEBUG").is_some() {
                    eprintln!("horn: answer: {answer}");
                }
                let names: HashMap<String, usize> = decls.iter().enumerate().map(|(i, d)| (d.name(), i)).collect();
                let mut solution = vec![pool.bool_const(true); self.relations.len()];
                read_answer(pool, &answer, &names, &self.relations, &mut solution)?;
                HornAnswer::Safe(solution)
            }
        })
    }

    /// One Z3 relation per relation of the system, over its parameters'
    /// sorts. Names are made unique per system: Z3 identifies declarations
    /// by name and signature, and the context is shared by the thread.
    fn declarations(&self, pool: &ExprPool) -> Result<Vec<FuncDecl>, SolverError> {
        let mut decls = Vec::with_capacity(self.relations.len());
        for (i, r) in self.relations.iter().enumerate() {
            let sorts = r.params.iter().map(|&p| sort_of(pool, p)).collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Sort> = sorts.iter().collect();
            decls.push(FuncDecl::new(format!("{}!r{i}", r.name), &refs, &Sort::bool()));
        }
        Ok(decls)
    }

    /// Clause `c` as a closed Z3 formula.
    fn rule(
        &self,
        pool: &ExprPool,
        tr: &mut Z3Solver,
        decls: &[FuncDecl],
        goal: &FuncDecl,
        c: &Clause,
    ) -> Result<Bool, SolverError> {
        let mut leaves: Vec<Leaf> = pool.symbols_of(c.constraint).to_vec();
        let mut body = vec![as_bool(tr.term(pool, c.constraint)?, c.constraint)?];
        for (rel, args) in &c.body {
            body.push(self.apply(pool, tr, decls, *rel, args, &mut leaves)?);
        }
        let head = match &c.head {
            Some((rel, args)) => self.apply(pool, tr, decls, *rel, args, &mut leaves)?,
            None => goal.apply(&[]).as_bool().ok_or_else(|| SolverError::Backend("the goal is not Boolean".into()))?,
        };
        leaves.sort();
        leaves.dedup();
        let mut bound: Vec<Dynamic> = Vec::with_capacity(leaves.len());
        for l in leaves {
            let e = match l {
                Leaf::Sym(s) => pool.symbol_expr(s),
                Leaf::Array(a) => pool.array_expr(a),
            };
            bound.push(dynamic(tr.term(pool, e)?));
        }
        let refs: Vec<&dyn Ast> = bound.iter().map(|d| d as &dyn Ast).collect();
        let imp = Bool::and(&body).implies(&head);
        Ok(if refs.is_empty() { imp } else { z3::ast::forall_const(&refs, &[], &imp) })
    }

    fn apply(
        &self,
        pool: &ExprPool,
        tr: &mut Z3Solver,
        decls: &[FuncDecl],
        rel: RelId,
        args: &[ExprId],
        leaves: &mut Vec<Leaf>,
    ) -> Result<Bool, SolverError> {
        let r = &self.relations[rel.0 as usize];
        if args.len() != r.params.len() {
            return Err(SolverError::Backend(format!(
                "{} takes {} arguments, not {}",
                r.name,
                r.params.len(),
                args.len()
            )));
        }
        let mut terms = Vec::with_capacity(args.len());
        for &a in args {
            leaves.extend_from_slice(pool.symbols_of(a));
            terms.push(dynamic(tr.term(pool, a)?));
        }
        let refs: Vec<&dyn Ast> = terms.iter().map(|d| d as &dyn Ast).collect();
        decls[rel.0 as usize]
            .apply(&refs)
            .as_bool()
            .ok_or_else(|| SolverError::Backend("a relation is not Boolean".into()))
    }
}

/// A fixedpoint context that solves with Spacer within the settings'
/// time limit.
fn spacer(settings: &HornSettings) -> z3::Fixedpoint {
    let fp = z3::Fixedpoint::new();
    let mut params = Params::new();
    params.set_symbol("engine", "spacer");
    params.set_u32("timeout", settings.timeout_ms);
    if settings.keep_relations {
        // Without these rewrites every relation stays in Spacer's own
        // problem, so its answer states a solution for each.
        for p in ["xform.inline_eager", "xform.inline_linear", "xform.slice", "xform.coi", "xform.compress_unbound"] {
            params.set_bool(p, false);
        }
    }
    fp.set_params(&params);
    fp
}

fn sort_of(pool: &ExprPool, e: ExprId) -> Result<Sort, SolverError> {
    Ok(match pool.sort(e) {
        PSort::Bool => Sort::bool(),
        PSort::BitVec(w) => Sort::bitvector(w),
        PSort::Array { index_width } => Sort::array(&Sort::bitvector(index_width), &Sort::bitvector(8)),
    })
}

fn dynamic(t: Term) -> Dynamic {
    match t {
        Term::Bool(b) => Dynamic::from_ast(&b),
        Term::Bv(b) => Dynamic::from_ast(&b),
        Term::Array(a) => Dynamic::from_ast(&a),
    }
}

fn as_bool(t: Term, e: ExprId) -> Result<Bool, SolverError> {
    match t {
        Term::Bool(b) => Ok(b),
        _ => Err(SolverError::NotBool(e)),
    }
}

/// Reads Spacer's answer (a conjunction of `forall x. R(x) = body`) into
/// `solution`, one formula per relation over its parameter symbols.
fn read_answer(
    pool: &mut ExprPool,
    answer: &Bool,
    names: &HashMap<String, usize>,
    relations: &[Relation],
    solution: &mut [ExprId],
) -> Result<(), SolverError> {
    let ctx = answer.get_ctx().get_z3_context();
    let mut reader = Reader { ctx, vars: HashMap::new() };
    let mut parts = Vec::new();
    reader.conjuncts(answer.get_z3_ast(), &mut parts);
    for part in parts {
        let mut a = part;
        // SAFETY (here and below): every handle is of this thread's context
        // and kept alive by the answer.
        unsafe {
            if z3_sys::Z3_get_ast_kind(ctx, a) == z3_sys::AstKind::Quantifier {
                a = z3_sys::Z3_get_quantifier_body(ctx, a).ok_or_else(|| backend("a quantifier without a body"))?;
            }
        }
        let Some((name, args)) = reader.app(a) else { continue };
        if !matches!(name.as_str(), "=" | "iff") || args.len() != 2 {
            continue;
        }
        let Some((rel_name, rel_args)) = reader.app(args[0]) else { continue };
        let Some(&r) = names.get(&rel_name) else { continue };
        // The bound variables are the relation's arguments, in whatever
        // order the quantifier lists them.
        reader.vars.clear();
        for (i, &v) in rel_args.iter().enumerate() {
            unsafe {
                if z3_sys::Z3_get_ast_kind(ctx, v) == z3_sys::AstKind::Var {
                    reader.vars.insert(z3_sys::Z3_get_index_value(ctx, v), relations[r].params[i]);
                }
            }
        }
        let f = reader.weakened(pool, args[1]);
        solution[r] = pool.and(&[solution[r], f])?;
    }
    Ok(())
}

fn backend(what: &str) -> SolverError {
    SolverError::Backend(what.to_string())
}

/// Reads Z3 terms into the pool; bound variables by their de Bruijn index.
struct Reader {
    ctx: Z3_context,
    vars: HashMap<u32, ExprId>,
}

impl Reader {
    fn conjuncts(&self, a: Z3_ast, out: &mut Vec<Z3_ast>) {
        match self.app(a) {
            Some((name, args)) if name == "and" => {
                for x in args {
                    self.conjuncts(x, out);
                }
            }
            _ => out.push(a),
        }
    }

    /// The operator's name and the arguments of an application.
    fn app(&self, a: Z3_ast) -> Option<(String, Vec<Z3_ast>)> {
        // SAFETY: `a` is a live term of this context.
        unsafe {
            if z3_sys::Z3_get_ast_kind(self.ctx, a) != z3_sys::AstKind::App {
                return None;
            }
            let app = z3_sys::Z3_to_app(self.ctx, a)?;
            let decl = z3_sys::Z3_get_app_decl(self.ctx, app)?;
            let sym = z3_sys::Z3_get_decl_name(self.ctx, decl)?;
            let name = CStr::from_ptr(z3_sys::Z3_get_symbol_string(self.ctx, sym)).to_string_lossy().into_owned();
            let n = z3_sys::Z3_get_app_num_args(self.ctx, app);
            let args = (0..n).map(|i| z3_sys::Z3_get_app_arg(self.ctx, app, i)).collect::<Option<Vec<_>>>()?;
            Some((name, args))
        }
    }

    fn int_param(&self, a: Z3_ast, k: u32) -> Option<u32> {
        // SAFETY: `a` is a live application of this context.
        unsafe {
            let app = z3_sys::Z3_to_app(self.ctx, a)?;
            let decl = z3_sys::Z3_get_app_decl(self.ctx, app)?;
            if z3_sys::Z3_get_decl_num_parameters(self.ctx, decl) <= k {
                return None;
            }
            u32::try_from(z3_sys::Z3_get_decl_int_parameter(self.ctx, decl, k)).ok()
        }
    }

    fn bv_width(&self, a: Z3_ast) -> Option<u32> {
        // SAFETY: `a` is a live term of this context.
        unsafe {
            let s = z3_sys::Z3_get_sort(self.ctx, a)?;
            (z3_sys::Z3_get_sort_kind(self.ctx, s) == z3_sys::SortKind::Bv)
                .then(|| z3_sys::Z3_get_bv_sort_size(self.ctx, s))
        }
    }

    /// A Boolean term as a pool formula it implies: conjuncts and disjuncts
    /// in positive position that cannot be read are `true`.
    fn weakened(&self, pool: &mut ExprPool, a: Z3_ast) -> ExprId {
        match self.app(a) {
            Some((name, args)) if name == "and" || name == "or" => {
                let xs: Vec<ExprId> = args.iter().map(|&x| self.weakened(pool, x)).collect();
                let r = if name == "and" { pool.and(&xs) } else { pool.or(&xs) };
                r.unwrap_or_else(|_| pool.bool_const(true))
            }
            _ => self.term(pool, a).filter(|&e| pool.sort(e) == PSort::Bool).unwrap_or_else(|| pool.bool_const(true)),
        }
    }

    /// A term read exactly, or `None`.
    fn term(&self, pool: &mut ExprPool, a: Z3_ast) -> Option<ExprId> {
        // SAFETY: `a` is a live term of this context.
        let kind = unsafe { z3_sys::Z3_get_ast_kind(self.ctx, a) };
        match kind {
            z3_sys::AstKind::Var => {
                let i = unsafe { z3_sys::Z3_get_index_value(self.ctx, a) };
                return self.vars.get(&i).copied();
            }
            z3_sys::AstKind::Numeral => {
                let w = self.bv_width(a)?;
                let s = unsafe { CStr::from_ptr(z3_sys::Z3_get_numeral_string(self.ctx, a)) };
                let v: u128 = s.to_str().ok()?.parse().ok()?;
                return pool.bv_const(w, v).ok();
            }
            z3_sys::AstKind::App => {}
            _ => return None,
        }
        let (name, args) = self.app(a)?;
        let mut xs = Vec::with_capacity(args.len());
        for &x in &args {
            xs.push(self.term(pool, x)?);
        }
        self.op(pool, a, &name, &xs)
    }

    /// Operator `name` applied to `xs` (already read), as the pool builds it.
    fn op(&self, pool: &mut ExprPool, a: Z3_ast, name: &str, xs: &[ExprId]) -> Option<ExprId> {
        let bin = |op| Some((op, *xs.first()?, *xs.get(1)?));
        let fold = |pool: &mut ExprPool, op: BvBinOp| -> Option<ExprId> {
            let mut acc = *xs.first()?;
            for &x in &xs[1..] {
                acc = pool.binop(op, acc, x).ok()?;
            }
            Some(acc)
        };
        let r = match name {
            "true" => Ok(pool.bool_const(true)),
            "false" => Ok(pool.bool_const(false)),
            "and" => pool.and(xs),
            "or" => pool.or(xs),
            "not" => pool.not(*xs.first()?),
            "=>" | "implies" => {
                let n = pool.not(*xs.first()?).ok()?;
                pool.or(&[n, *xs.get(1)?])
            }
            "=" | "iff" => pool.eq(*xs.first()?, *xs.get(1)?),
            "distinct" if xs.len() == 2 => {
                let e = pool.eq(xs[0], xs[1]).ok()?;
                pool.not(e)
            }
            "xor" if xs.len() == 2 => {
                let e = pool.eq(xs[0], xs[1]).ok()?;
                pool.not(e)
            }
            "ite" => pool.ite(*xs.first()?, *xs.get(1)?, *xs.get(2)?),
            "bvadd" => return fold(pool, BvBinOp::Add),
            "bvmul" => return fold(pool, BvBinOp::Mul),
            "bvand" => return fold(pool, BvBinOp::And),
            "bvor" => return fold(pool, BvBinOp::Or),
            "bvxor" => return fold(pool, BvBinOp::Xor),
            "bvnot" => pool.unop(BvUnOp::Not, *xs.first()?),
            "bvneg" => pool.unop(BvUnOp::Neg, *xs.first()?),
            "bvule" | "bvult" | "bvsle" | "bvslt" | "bvuge" | "bvugt" | "bvsge" | "bvsgt" => {
                let (x, y) = (*xs.first()?, *xs.get(1)?);
                let (op, swap) = match name {
                    "bvule" => (CmpOp::Ule, false),
                    "bvult" => (CmpOp::Ult, false),
                    "bvsle" => (CmpOp::Sle, false),
                    "bvslt" => (CmpOp::Slt, false),
                    "bvuge" => (CmpOp::Ule, true),
                    "bvugt" => (CmpOp::Ult, true),
                    "bvsge" => (CmpOp::Sle, true),
                    _ => (CmpOp::Slt, true),
                };
                if swap {
                    pool.cmp(op, y, x)
                } else {
                    pool.cmp(op, x, y)
                }
            }
            "concat" => {
                let mut acc = *xs.first()?;
                for &x in &xs[1..] {
                    acc = pool.concat(acc, x).ok()?;
                }
                Ok(acc)
            }
            "extract" => pool.extract(*xs.first()?, self.int_param(a, 0)?, self.int_param(a, 1)?),
            "zero_extend" | "sign_extend" => {
                let x = *xs.first()?;
                let to = pool.width(x)? + self.int_param(a, 0)?;
                if name == "zero_extend" {
                    pool.zext(x, to)
                } else {
                    pool.sext(x, to)
                }
            }
            "select" => pool.select(*xs.first()?, *xs.get(1)?),
            "store" => pool.store(*xs.first()?, *xs.get(1)?, *xs.get(2)?),
            _ => {
                // Z3's division variants that assume a non-zero divisor
                // (`bvudiv_i`) are read as the total operators: the caller
                // checks the solution anyway.
                let (op, x, y) = match name.trim_end_matches("_i") {
                    "bvsub" => bin(BvBinOp::Sub)?,
                    "bvudiv" => bin(BvBinOp::UDiv)?,
                    "bvsdiv" => bin(BvBinOp::SDiv)?,
                    "bvurem" => bin(BvBinOp::URem)?,
                    "bvsrem" => bin(BvBinOp::SRem)?,
                    "bvshl" => bin(BvBinOp::Shl)?,
                    "bvlshr" => bin(BvBinOp::LShr)?,
                    "bvashr" => bin(BvBinOp::AShr)?,
                    _ => return None,
                };
                pool.binop(op, x, y)
            }
        };
        r.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x = 0; while (x < 10) x++;` then `x > 10` is never reached; the
    /// solution must exclude it and be inductive.
    #[test]
    fn counter_loop_is_safe_with_an_invariant() {
        let mut pool = ExprPool::new();
        let (_, x) = pool.new_symbol("x", 8).unwrap();
        let (_, y) = pool.new_symbol("y", 8).unwrap();
        let mut sys = HornSystem::new();
        let inv = sys.add_relation("inv", vec![x]);
        let zero = pool.bv_const(8, 0).unwrap();
        let one = pool.bv_const(8, 1).unwrap();
        let ten = pool.bv_const(8, 10).unwrap();
        let init = pool.eq(y, zero).unwrap();
        sys.add_clause(Clause { body: vec![], constraint: init, head: Some((inv, vec![y])) });
        let guard = pool.cmp(CmpOp::Ult, y, ten).unwrap();
        let next = pool.add(y, one).unwrap();
        sys.add_clause(Clause { body: vec![(inv, vec![y])], constraint: guard, head: Some((inv, vec![next])) });
        let bad = pool.cmp(CmpOp::Ult, ten, y).unwrap();
        let q = sys.add_clause(Clause { body: vec![(inv, vec![y])], constraint: bad, head: None });
        let answer = sys.solve(&mut pool, &[q], &HornSettings::default()).unwrap();
        let HornAnswer::Safe(sol) = answer else { panic!("expected safe, got {answer:?}") };
        // The solution at `inv` over `x` excludes x > 10 and holds at 0.
        let mut s = Z3Solver::default();
        use crate::Solver;
        let bad_x = pool.cmp(CmpOp::Ult, ten, x).unwrap();
        assert_eq!(s.is_sat(&pool, &[sol[0], bad_x]).unwrap(), Some(false));
        let at_zero = pool.eq(x, zero).unwrap();
        assert_eq!(s.is_sat(&pool, &[sol[0], at_zero]).unwrap(), Some(true));
        // A query that does hold is reachable.
        let five = pool.bv_const(8, 5).unwrap();
        let reach = pool.eq(y, five).unwrap();
        let q2 = sys.add_clause(Clause { body: vec![(inv, vec![y])], constraint: reach, head: None });
        assert_eq!(sys.solve(&mut pool, &[q2], &HornSettings::default()).unwrap(), HornAnswer::Reachable);
    }

    /// Memory as an array argument: a byte stored before the loop keeps
    /// its value.
    #[test]
    fn array_arguments_are_carried() {
        let mut pool = ExprPool::new();
        let (_, m) = pool.new_array("m", 32).unwrap();
        let (_, n) = pool.new_array("n", 32).unwrap();
        let mut sys = HornSystem::new();
        let inv = sys.add_relation("inv", vec![m]);
        let addr = pool.bv_const(32, 64).unwrap();
        let seven = pool.bv_const(8, 7).unwrap();
        let read = pool.select(n, addr).unwrap();
        let init = pool.eq(read, seven).unwrap();
        sys.add_clause(Clause { body: vec![], constraint: init, head: Some((inv, vec![n])) });
        let t = pool.bool_const(true);
        sys.add_clause(Clause { body: vec![(inv, vec![n])], constraint: t, head: Some((inv, vec![n])) });
        let bad = pool.not(init).unwrap();
        let q = sys.add_clause(Clause { body: vec![(inv, vec![n])], constraint: bad, head: None });
        let answer = sys.solve(&mut pool, &[q], &HornSettings::default()).unwrap();
        assert!(matches!(answer, HornAnswer::Safe(_)), "{answer:?}");
    }
}
