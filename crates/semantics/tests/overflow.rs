//! The signed overflow predicates (`saddo`, `ssubo`, `smulo`) as terms,
//! evaluated on symbolic operands under many assignments, agree with exact
//! arithmetic: the cheap forms (signs for add/sub, a range for a product by
//! a constant) and the double-width form alike.

use walkdown_ir::BinOp;
use walkdown_semantics::Sym;
use walkdown_smt::{Assignment, ExprPool, Value};

fn exact(op: BinOp, w: u32, a: i128, b: i128) -> bool {
    let r = match op {
        BinOp::SAddO => a + b,
        BinOp::SSubO => a - b,
        _ => a * b,
    };
    r < -(1i128 << (w - 1)) || r > (1i128 << (w - 1)) - 1
}

fn signed(bits: u128, w: u32) -> i128 {
    ((bits as i128) << (128 - w)) >> (128 - w)
}

/// Interesting values of a width: the edges, small numbers, and a spread.
fn values(w: u32, seed: &mut u64) -> Vec<u128> {
    let mask = if w == 128 { u128::MAX } else { (1u128 << w) - 1 };
    let min = 1u128 << (w - 1);
    let mut v: Vec<u128> = vec![
        0,
        1,
        2,
        3,
        7,
        10,
        mask,
        mask - 1,
        mask - 9,
        min,
        min + 1,
        min - 1,
        min - 2,
        min / 10,
        min / 10 + 1,
        min / 3,
    ];
    for _ in 0..24 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        v.push(u128::from(*seed) & mask);
    }
    v.iter().map(|x| x & mask).collect()
}

#[test]
fn overflow_predicates_agree_with_exact_arithmetic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for w in [8u32, 16, 32, 64] {
        let vals = values(w, &mut seed);
        for op in [BinOp::SAddO, BinOp::SSubO, BinOp::SMulO] {
            for &c in &vals {
                let mut pool = ExprPool::new();
                let (sx, x) = pool.new_symbol("x", w).unwrap();
                let (sy, y) = pool.new_symbol("y", w).unwrap();
                let mut sym = Sym::new(&mut pool);
                // Symbolic op constant (the cheap product form), constant op
                // symbolic, and both symbolic.
                let k = sym.bv(c as u64, w);
                let by_const = sym.bin(op, w, x, k);
                let const_by = sym.bin(op, w, k, x);
                let both = sym.bin(op, w, x, y);
                for &a in &vals {
                    let mut asg = Assignment::new();
                    asg.set_sym(sx, a);
                    asg.set_sym(sy, c);
                    let (ia, ic) = (signed(a, w), signed(c, w));
                    let bit = |e| match pool.eval(e, &asg) {
                        Value::Bv { bits, .. } => bits == 1,
                        other => panic!("{other:?}"),
                    };
                    assert_eq!(bit(by_const), exact(op, w, ia, ic), "{op:?} i{w}: {ia} op const {ic}");
                    assert_eq!(bit(const_by), exact(op, w, ic, ia), "{op:?} i{w}: const {ic} op {ia}");
                    assert_eq!(bit(both), exact(op, w, ia, ic), "{op:?} i{w}: {ia} op {ic}");
                }
            }
        }
    }
}
