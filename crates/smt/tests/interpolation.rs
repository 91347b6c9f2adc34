//! Bitwuzla's sequence interpolants, read back into the pool, are
//! interpolants: each follows from the parts before its cut (and the
//! interpolant before), rules out the parts after it, and mentions only
//! leaves both sides share. Each property is checked by asking Z3, so the
//! reading back is checked against an independent solver.

use walkdown_smt::{
    Answer, BackendSettings, ExprId, ExprPool, Interpolation, Interpolator, Leaf, Query, Solver, Z3Solver,
};

fn unsat(pool: &ExprPool, conj: &[ExprId]) -> bool {
    let mut z3 = Z3Solver::new(BackendSettings::default());
    matches!(z3.check(pool, &Query::new(conj)).unwrap(), Answer::Unsat)
}

/// Checks the three properties of a sequence `itps` for `parts`.
fn check_sequence(pool: &mut ExprPool, parts: &[ExprId], itps: &[ExprId]) {
    assert_eq!(itps.len(), parts.len() - 1);
    for (k, &i) in itps.iter().enumerate() {
        let not_i = pool.not(i).unwrap();
        // Parts 0..=k, with the previous interpolant, imply I_k.
        let mut before = vec![parts[k], not_i];
        if k > 0 {
            before.push(itps[k - 1]);
        }
        assert!(unsat(pool, &before), "cut {k}: {} does not follow", pool.display(i));
        let mut after: Vec<ExprId> = parts[k + 1..].to_vec();
        after.push(i);
        assert!(unsat(pool, &after), "cut {k}: {} does not rule out the rest", pool.display(i));
        let left: Vec<Leaf> = parts[..=k].iter().flat_map(|&p| pool.symbols_of(p).to_vec()).collect();
        let right: Vec<Leaf> = parts[k + 1..].iter().flat_map(|&p| pool.symbols_of(p).to_vec()).collect();
        for l in pool.symbols_of(i) {
            assert!(left.contains(l) && right.contains(l), "cut {k}: {} names an unshared leaf", pool.display(i));
        }
    }
}

fn interpolants(pool: &mut ExprPool, parts: &[ExprId]) -> Interpolation {
    Interpolator::new(BackendSettings::default()).sequence(pool, parts).unwrap()
}

/// A three-step path: `x1 = x0 + 1` with `x0 < 5`, `x2 = x1 * 2`, then
/// `x2 > 20`, over 8 bits: impossible, since x2 is at most 10.
#[test]
fn a_path_gets_one_interpolant_per_cut() {
    let mut pool = ExprPool::new();
    let x0 = pool.new_symbol("x0", 8).unwrap().1;
    let x1 = pool.new_symbol("x1", 8).unwrap().1;
    let x2 = pool.new_symbol("x2", 8).unwrap().1;
    let k = |p: &mut ExprPool, v| p.bv_const(8, v).unwrap();
    let (one, two, five, twenty) = (k(&mut pool, 1), k(&mut pool, 2), k(&mut pool, 5), k(&mut pool, 20));
    let inc = pool.add(x0, one).unwrap();
    let step1 = pool.eq(x1, inc).unwrap();
    let small = pool.ult(x0, five).unwrap();
    let f1 = pool.and2(step1, small).unwrap();
    let dbl = pool.mul(x1, two).unwrap();
    let f2 = pool.eq(x2, dbl).unwrap();
    let f3 = pool.ugt(x2, twenty).unwrap();
    let parts = [f1, f2, f3];
    match interpolants(&mut pool, &parts) {
        Interpolation::Interpolants(itps) => {
            check_sequence(&mut pool, &parts, &itps);
            assert_eq!(pool.symbols_of(itps[0]), pool.symbols_of(x1));
            assert_eq!(pool.symbols_of(itps[1]), pool.symbols_of(x2));
        }
        other => panic!("expected interpolants, got {other:?}"),
    }
}

#[test]
fn satisfiable_parts_have_none() {
    let mut pool = ExprPool::new();
    let x = pool.new_symbol("x", 8).unwrap().1;
    let three = pool.bv_const(8, 3).unwrap();
    let a = pool.ugt(x, three).unwrap();
    let b = pool.ne(x, three).unwrap();
    assert_eq!(interpolants(&mut pool, &[a, b]), Interpolation::Sat);
}

#[test]
fn floats_are_not_sent() {
    let mut pool = ExprPool::new();
    let x = pool.new_symbol("x", 32).unwrap().1;
    let sum = pool.fp_bin(walkdown_smt::FpBinOp::Add, x, x).unwrap();
    let a = pool.eq(sum, x).unwrap();
    let b = pool.not(a).unwrap();
    assert!(matches!(interpolants(&mut pool, &[a, b]), Interpolation::Unsupported(_)));
}

/// A store and a select on one side, the array's index and the value
/// read on the other: Bitwuzla 0.10.0 may refuse (its array
/// interpolation is partial); either way the answer comes back, and
/// interpolants it gives are right.
#[test]
fn arrays_give_interpolants_or_a_refusal() {
    let mut pool = ExprPool::new();
    let m0 = pool.new_array("m0", 32).unwrap().1;
    let i = pool.new_symbol("i", 32).unwrap().1;
    let j = pool.new_symbol("j", 32).unwrap().1;
    let y = pool.new_symbol("y", 8).unwrap().1;
    let seven = pool.bv_const(8, 7).unwrap();
    let stored = pool.store(m0, i, seven).unwrap();
    let read = pool.select(stored, j).unwrap();
    let f1 = pool.eq(y, read).unwrap();
    let same = pool.eq(i, j).unwrap();
    let other = pool.ne(y, seven).unwrap();
    let f2 = pool.and2(same, other).unwrap();
    let parts = [f1, f2];
    match interpolants(&mut pool, &parts) {
        Interpolation::Interpolants(itps) => check_sequence(&mut pool, &parts, &itps),
        Interpolation::Unsupported(why) => assert!(!why.is_empty()),
        other => panic!("expected interpolants or a refusal, got {other:?}"),
    }
}

/// Random chains `x(k+1) = op(x(k), c)` under a first and a last bound,
/// kept when unsatisfiable: every sequence Bitwuzla gives checks out,
/// whatever operators its interpolants use.
#[test]
fn random_chains_check_out() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut checked, mut tried) = (0, 0);
    while checked < 12 && tried < 200 {
        tried += 1;
        let mut pool = ExprPool::new();
        let len = 2 + next(4) as usize;
        let xs: Vec<ExprId> = (0..=len).map(|k| pool.new_symbol(&format!("x{k}"), 8).unwrap().1).collect();
        let mut parts = Vec::new();
        for k in 0..len {
            let c = pool.bv_const(8, u128::from(next(7) + 1)).unwrap();
            let v = match next(5) {
                0 => pool.add(xs[k], c),
                1 => pool.mul(xs[k], c),
                2 => pool.bvand(xs[k], c),
                3 => pool.lshr(xs[k], c),
                _ => pool.sub(xs[k], c),
            }
            .unwrap();
            let mut step = pool.eq(xs[k + 1], v).unwrap();
            if k == 0 {
                let bound = pool.bv_const(8, u128::from(next(16))).unwrap();
                let first = pool.ule(xs[0], bound).unwrap();
                step = pool.and2(step, first).unwrap();
            }
            parts.push(step);
        }
        let bound = pool.bv_const(8, u128::from(next(256))).unwrap();
        parts.push(pool.ugt(xs[len], bound).unwrap());
        if !unsat(&pool, &parts) {
            continue;
        }
        match interpolants(&mut pool, &parts) {
            Interpolation::Interpolants(itps) => check_sequence(&mut pool, &parts, &itps),
            other => panic!("chain {tried}: expected interpolants, got {other:?}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 12, "too few unsatisfiable chains in {tried} tries");
}
