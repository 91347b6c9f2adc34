//! Reproduces the solver-mode table in `src/z3backend.rs`: the same
//! queries on a fresh default solver, a fresh `QF_ABV` solver, a fresh
//! `smt`-tactic solver and push/pop on one default solver. Also times
//! push/pop against a fresh solver per query on the concolic sequence of
//! the layer tests. Run with `cargo bench -p walkdown-smt --bench z3_modes`.

use std::time::Instant;

#[path = "../tests/common/mod.rs"]
#[allow(dead_code)]
mod common;

use common::{concolic_queries, program};
use walkdown_smt::{BackendSettings, Query, Solver as _, Z3Solver};

use z3::ast::{Array, Bool, BV};
use z3::{SatResult, Solver, Sort, Tactic};

fn queries() -> Vec<(&'static str, Vec<Bool>)> {
    let k = |v: u64, w: u32| BV::from_u64(v, w);
    let a = BV::new_const("a", 32);
    let x = BV::new_const("x", 64);
    let y = BV::new_const("y", 64);
    let x32 = BV::new_const("x32", 32);
    let y32 = BV::new_const("y32", 32);
    let m = Array::new_const("m", &Sort::bitvector(32), &Sort::bitvector(8));
    let i = BV::new_const("i", 32);
    let st = m.store(&i, &k(9, 8));
    let byte = |arr: &Array, at: u64| arr.select(&k(at, 32)).as_bv().expect("byte");
    vec![
        ("trivial", vec![a.bvadd(k(1, 32)).bvslt(&a)]),
        ("64-bit div/rem", vec![x.bvudiv(k(7, 64)).eq(k(1_234_567, 64)), x.bvurem(k(7, 64)).eq(k(3, 64))]),
        ("32-bit factoring", vec![x32.bvmul(&y32).eq(k(3_000_000_021, 32)), x32.bvugt(k(1, 32)), y32.bvugt(k(1, 32))]),
        ("64-bit mul", vec![x.bvmul(k(0x1_2345_6789, 64)).eq(k(0xdead_beef_cafe, 64))]),
        ("array", vec![byte(&st, 5).eq(k(9, 8)), byte(&m, 5).eq(k(3, 8))]),
        (
            "signed div/rem",
            vec![x.bvsrem(&y).eq(k(5, 64)), y.bvslt(k(100, 64)), y.bvsgt(k(0, 64)), x.bvsdiv(&y).eq(k(77_777, 64))],
        ),
    ]
}

fn solver_modes() {
    let qs = queries();
    let reuse = Solver::new();
    let smt = Tactic::new("smt");
    for mode in ["fresh default", "fresh QF_ABV", "fresh smt tactic", "push/pop default"] {
        let mut line = format!("{mode:>18}:");
        for (name, q) in &qs {
            let n = 5;
            let t = Instant::now();
            for _ in 0..n {
                let owned;
                let s = match mode {
                    "fresh default" => {
                        owned = Solver::new();
                        &owned
                    }
                    "fresh QF_ABV" => {
                        owned = Solver::new_for_logic("QF_ABV").expect("logic");
                        &owned
                    }
                    "fresh smt tactic" => {
                        owned = smt.solver();
                        &owned
                    }
                    _ => {
                        reuse.push();
                        &reuse
                    }
                };
                for c in q {
                    s.assert(c);
                }
                assert_eq!(s.check(), SatResult::Sat, "{name}");
                assert!(s.get_model().is_some());
                if mode == "push/pop default" {
                    s.pop(1);
                }
            }
            line += &format!(" {name} {:.2?}", t.elapsed() / n);
        }
        println!("{line}");
    }
}

/// Measures push/pop on one Z3 solver against a fresh solver per query on
/// the concolic sequence; prints the times.
fn push_pop_vs_fresh() {
    let mut prog = program();
    let qs = concolic_queries(&mut prog, 64, 11);
    for incremental in [false, true, false, true] {
        let mut s = Z3Solver::new(BackendSettings::default());
        s.set_incremental(incremental);
        let t = std::time::Instant::now();
        for q in &qs {
            s.check(&prog.pool, &Query::new(&q.constraints)).unwrap();
        }
        println!("{} queries, {}: {:?}", qs.len(), if incremental { "push/pop" } else { "fresh" }, t.elapsed());
    }
}

fn main() {
    solver_modes();
    push_pop_vs_fresh();
}
