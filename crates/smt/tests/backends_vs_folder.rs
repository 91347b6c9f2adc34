//! The key soundness test of the folder and the translator: for random
//! constants, each backend (Z3, Bitwuzla) must compute every operator to exactly the value the
//! pool's constant folder gives.
//!
//! Each check asserts `x = c1 ∧ y = c2 ∧ r = op(x, y) ∧ r ≠ fold(c1, c2)`
//! and expects unsat. `x`, `y` and `r` are symbols, so the pool cannot
//! fold or rewrite `op(x, y)` away and the backend has to evaluate it; the sat twin
//! (`r = fold(...)`) checks the model read-back, including 128-bit values.

#[allow(dead_code)] // each test uses part of the shared fixtures
mod common;

use common::Rng;
use walkdown_smt::{Answer, Backend, BackendSettings, BvBinOp, BvUnOp, CmpOp, ExprId, ExprPool, Query, Solver};

const WIDTHS: [u32; 6] = [1, 7, 8, 32, 64, 128];
const SAMPLES: usize = 12;

struct Check {
    pool: ExprPool,
    backend: Backend,
    solver: Box<dyn Solver>,
    checks: usize,
}

impl Check {
    fn new(backend: Backend) -> Self {
        Check {
            pool: ExprPool::new(),
            backend,
            solver: backend.make(
                BackendSettings {
                    timeout_ms: Some(60_000),
                    // The folder check multiplies on purpose.
                    max_nonlinear: None,
                    work_limit: None,
                },
                false,
            ),
            checks: 0,
        }
    }

    fn c(&mut self, w: u32, v: u128) -> ExprId {
        self.pool.bv_const(w, v).unwrap()
    }

    /// `pins` fix the inputs; `r = term` names the result; `r` must equal
    /// `want` in every model and can differ in none.
    fn expect(&mut self, what: &str, pins: &[(ExprId, ExprId)], term: ExprId, want: ExprId) {
        let w = self.pool.width(term).unwrap();
        let r = self.pool.new_symbol("r", w).unwrap().1;
        let mut cs: Vec<ExprId> = pins.iter().map(|&(s, v)| self.pool.eq(s, v).unwrap()).collect();
        cs.push(self.pool.eq(r, term).unwrap());
        let differs = self.pool.ne(r, want).unwrap();
        let same = self.pool.eq(r, want).unwrap();
        let mut bad = cs.clone();
        bad.push(differs);
        let a = self.solver.check(&self.pool, &Query::new(&bad)).unwrap();
        assert_eq!(
            a,
            Answer::Unsat,
            "{what}: {} computes something other than {}",
            self.backend,
            self.pool.display(want)
        );
        let mut good = cs;
        good.push(same);
        match self.solver.check(&self.pool, &Query::new(&good)).unwrap() {
            Answer::Sat(m) => {
                for &(s, v) in pins {
                    let sym = match self.pool.get(s) {
                        walkdown_smt::Node::Var { sym, .. } => *sym,
                        _ => unreachable!(),
                    };
                    assert_eq!(m.sym(sym), self.pool.as_bv_const(v), "{what}: model read-back");
                }
            }
            other => panic!("{what}: expected sat, got {other:?}"),
        }
        self.checks += 2;
    }
}

#[test]
fn backends_agree_with_folder_on_binary_operators() {
    for backend in Backend::LINKED {
        backends_agree_with_folder_on_binary_operators_on(backend);
    }
}

fn backends_agree_with_folder_on_binary_operators_on(backend: Backend) {
    let mut k = Check::new(backend);
    let mut rng = Rng::new(21);
    for &w in &WIDTHS {
        let x = k.pool.new_symbol("x", w).unwrap().1;
        let y = k.pool.new_symbol("y", w).unwrap().1;
        for op in BvBinOp::ALL {
            for s in 0..SAMPLES {
                let c1 = rng.value(w);
                // Every other sample divides or shifts by a boundary value.
                let c2 = if s % 4 == 0 { 0 } else { rng.value(w) };
                let (k1, k2) = (k.c(w, c1), k.c(w, c2));
                let folded = k.pool.binop(op, k1, k2).unwrap();
                assert!(k.pool.as_bv_const(folded).is_some());
                let term = k.pool.binop(op, x, y).unwrap();
                k.expect(&format!("{op:?} w{w} {c1:#x} {c2:#x}"), &[(x, k1), (y, k2)], term, folded);
            }
        }
    }
    println!("{} {backend} checks", k.checks);
}

#[test]
fn backends_agree_with_folder_on_comparisons_and_unary_operators() {
    for backend in Backend::LINKED {
        backends_agree_with_folder_on_comparisons_and_unary_operators_on(backend);
    }
}

fn backends_agree_with_folder_on_comparisons_and_unary_operators_on(backend: Backend) {
    let mut k = Check::new(backend);
    let mut rng = Rng::new(22);
    for &w in &WIDTHS {
        let x = k.pool.new_symbol("x", w).unwrap().1;
        let y = k.pool.new_symbol("y", w).unwrap().1;
        let (one, zero) = (k.c(1, 1), k.c(1, 0));
        for s in 0..SAMPLES {
            let c1 = rng.value(w);
            let c2 = if s % 3 == 0 { c1 } else { rng.value(w) };
            let (k1, k2) = (k.c(w, c1), k.c(w, c2));
            for op in CmpOp::ALL {
                let folded = k.pool.cmp(op, k1, k2).unwrap();
                let bit = if k.pool.as_bool_const(folded).unwrap() { one } else { zero };
                // Through a 1-bit ite, since results must be bit-vectors.
                let c = k.pool.cmp(op, x, y).unwrap();
                let term = k.pool.ite(c, one, zero).unwrap();
                k.expect(&format!("{op:?} w{w} {c1:#x} {c2:#x}"), &[(x, k1), (y, k2)], term, bit);
            }
            for op in [BvUnOp::Not, BvUnOp::Neg] {
                let folded = k.pool.unop(op, k1).unwrap();
                let term = k.pool.unop(op, x).unwrap();
                k.expect(&format!("{op:?} w{w} {c1:#x}"), &[(x, k1)], term, folded);
            }
            let e = k.pool.eq(x, y).unwrap();
            let term = k.pool.ite(e, one, zero).unwrap();
            let same = if c1 == c2 { one } else { zero };
            k.expect(&format!("eq w{w}"), &[(x, k1), (y, k2)], term, same);
        }
    }
}

#[test]
fn backends_agree_with_folder_on_widths_and_arrays() {
    for backend in Backend::LINKED {
        backends_agree_with_folder_on_widths_and_arrays_on(backend);
    }
}

fn backends_agree_with_folder_on_widths_and_arrays_on(backend: Backend) {
    let mut k = Check::new(backend);
    let mut rng = Rng::new(23);
    for &w in &WIDTHS {
        let x = k.pool.new_symbol("x", w).unwrap().1;
        for _ in 0..SAMPLES {
            let c1 = rng.value(w);
            let k1 = k.c(w, c1);
            let to = w + rng.below(u64::from(128 - w) + 1) as u32;
            if to > w {
                let folded = k.pool.zext(k1, to).unwrap();
                let term = k.pool.zext(x, to).unwrap();
                k.expect(&format!("zext w{w}->{to}"), &[(x, k1)], term, folded);
                let folded = k.pool.sext(k1, to).unwrap();
                let term = k.pool.sext(x, to).unwrap();
                k.expect(&format!("sext w{w}->{to}"), &[(x, k1)], term, folded);
            }
            let lo = rng.below(u64::from(w)) as u32;
            let hi = lo + rng.below(u64::from(w - lo)) as u32;
            if hi - lo + 1 < w {
                let folded = k.pool.extract(k1, hi, lo).unwrap();
                let term = k.pool.extract(x, hi, lo).unwrap();
                k.expect(&format!("extract w{w} [{hi}:{lo}]"), &[(x, k1)], term, folded);
            }
            if w < 128 {
                let wl = 1 + rng.below(u64::from(128 - w)) as u32;
                let y = k.pool.new_symbol("y", wl).unwrap().1;
                let c2 = rng.value(wl);
                let k2 = k.c(wl, c2);
                let folded = k.pool.concat(k1, k2).unwrap();
                let term = k.pool.concat(x, y).unwrap();
                k.expect(&format!("concat w{w}+{wl}"), &[(x, k1), (y, k2)], term, folded);
            }
        }
    }
    // Store then select at symbolic indices: equal indices read the
    // stored byte, different ones the byte underneath.
    for iw in [32, 64] {
        let i = k.pool.new_symbol("i", iw).unwrap().1;
        let j = k.pool.new_symbol("j", iw).unwrap().1;
        let v = k.pool.new_symbol("v", 8).unwrap().1;
        for s in 0..SAMPLES {
            let ci = rng.value(iw);
            let cj = if s % 2 == 0 { ci } else { rng.value(iw) };
            let cv = rng.value(8);
            let base = rng.below(256) as u8;
            let mem = k.pool.const_array(iw, base).unwrap();
            let st = k.pool.store(mem, i, v).unwrap();
            let term = k.pool.select(st, j).unwrap();
            let want = k.c(8, if ci == cj { cv } else { u128::from(base) });
            let (ki, kj, kv) = (k.c(iw, ci), k.c(iw, cj), k.c(8, cv));
            k.expect(&format!("select/store i{iw}"), &[(i, ki), (j, kj), (v, kv)], term, want);
        }
    }
}
