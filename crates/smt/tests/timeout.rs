//! A query Z3 cannot finish in 100 ms comes back `Unknown`, promptly.

use std::time::{Duration, Instant};

use walkdown_smt::{Answer, ExprPool, Query, Solver, SolverSettings, SolverStack};

fn is_prime(n: u64) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

#[test]
fn factoring_a_64_bit_semiprime_times_out() {
    // Two unrelated 31- and 32-bit primes; factors near 2^32 would be
    // easy, since the bound below then pins them.
    let p = (2_147_000_000u64..).find(|&n| is_prime(n)).unwrap();
    let q = (3_221_000_000u64..).find(|&n| is_prime(n)).unwrap();
    let n = p * q;

    let mut pool = ExprPool::new();
    let x = pool.new_symbol("x", 64).unwrap().1;
    let y = pool.new_symbol("y", 64).unwrap().1;
    let k = |pool: &mut ExprPool, v: u128| pool.bv_const(64, v).unwrap();
    let (one, limit, nn) = (
        k(&mut pool, 1),
        k(&mut pool, 1 << 32),
        k(&mut pool, u128::from(n)),
    );
    let xy = pool.mul(x, y).unwrap();
    let cs = [
        pool.ugt(x, one).unwrap(),
        pool.ugt(y, one).unwrap(),
        pool.ult(x, limit).unwrap(),
        pool.ult(y, limit).unwrap(),
        pool.eq(xy, nn).unwrap(),
    ];
    let settings = SolverSettings {
        timeout_ms: Some(100),
        ..SolverSettings::default()
    };
    let mut solver = SolverStack::build(&settings);
    let start = Instant::now();
    let answer = solver.check(&pool, &Query::new(&cs)).unwrap();
    let took = start.elapsed();
    match &answer {
        Answer::Unknown(reason) => assert!(reason.contains("timeout"), "{reason}"),
        other => panic!("expected unknown, got {other:?}"),
    }
    assert!(took < Duration::from_secs(3), "took {took:?}");
    let report = solver.report();
    assert_eq!(report.last().map(|s| s.unknown), Some(1));
    for line in &report {
        println!("{line}");
    }
}
