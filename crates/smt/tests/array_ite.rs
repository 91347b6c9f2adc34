//! If-then-else between arrays (the bounded engine's memory at a join):
//! Z3 and the evaluator agree on which branch a `select` reads.

use walkdown_smt::{ExprPool, Solver, SolverSettings, SolverStack};

#[test]
fn select_through_array_ite() {
    let mut p = ExprPool::new();
    let (_, base) = p.new_array("m", 64).unwrap();
    let (c_sym, c) = p.new_symbol("c", 1).unwrap();
    let (_, i) = p.new_symbol("i", 64).unwrap();
    let one = p.bv_const(8, 1).unwrap();
    let two = p.bv_const(8, 2).unwrap();
    let a = p.store(base, i, one).unwrap();
    let b = p.store(base, i, two).unwrap();
    let bit = p.bv_const(1, 1).unwrap();
    let cond = p.eq(c, bit).unwrap();
    let m = p.ite(cond, a, b).unwrap();
    let r = p.select(m, i).unwrap();
    let want = p.eq(r, two).unwrap();
    let mut s = SolverStack::build(&SolverSettings {
        cache: false,
        slicing: false,
        cex_cache: false,
        timeout_ms: Some(5000),
        work_limit: None,
    });
    let model = s.model(&p, &[want]).unwrap().expect("sat");
    assert_eq!(model.sym(c_sym), Some(0));
    assert!(p.satisfies(&[want], &model));
    let three = p.bv_const(8, 3).unwrap();
    let no = p.eq(r, three).unwrap();
    assert_eq!(s.is_sat(&p, &[no]).unwrap(), Some(false));
}
