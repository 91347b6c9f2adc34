//! A query a backend cannot finish in 100 ms comes back `Unknown`,
//! promptly; a work limit ends it at the same point on every run. Both
//! for each backend (Z3, Bitwuzla).

use std::time::{Duration, Instant};

use walkdown_smt::{Answer, Backend, ExprPool, Query, Solver, SolverSettings, SolverStack};

fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
}

/// `x * y == n` for two unrelated 31- and 32-bit primes; factors near
/// 2^32 would be easy, since the bounds then pin them.
fn factoring_query(pool: &mut ExprPool) -> Vec<walkdown_smt::ExprId> {
    let p = (2_147_000_000u64..).find(|&n| is_prime(n)).unwrap();
    let q = (3_221_000_000u64..).find(|&n| is_prime(n)).unwrap();
    let n = p * q;

    let x = pool.new_symbol("x", 64).unwrap().1;
    let y = pool.new_symbol("y", 64).unwrap().1;
    let k = |pool: &mut ExprPool, v: u128| pool.bv_const(64, v).unwrap();
    let (one, limit, nn) = (k(pool, 1), k(pool, 1 << 32), k(pool, u128::from(n)));
    let xy = pool.mul(x, y).unwrap();
    let cs = [
        pool.ugt(x, one).unwrap(),
        pool.ugt(y, one).unwrap(),
        pool.ult(x, limit).unwrap(),
        pool.ult(y, limit).unwrap(),
        pool.eq(xy, nn).unwrap(),
    ];
    cs.to_vec()
}

#[test]
fn factoring_a_64_bit_semiprime_times_out() {
    for backend in Backend::LINKED {
        times_out_on(backend);
    }
}

fn times_out_on(backend: Backend) {
    let mut pool = ExprPool::new();
    let cs = factoring_query(&mut pool);
    let settings = SolverSettings { timeout_ms: Some(100), ..SolverSettings::default() };
    let mut solver = SolverStack::build_with(&settings, backend);
    let start = Instant::now();
    let answer = solver.check(&pool, &Query::new(&cs)).unwrap();
    let took = start.elapsed();
    match &answer {
        Answer::Unknown(reason) => assert!(reason.contains("timeout"), "{backend}: {reason}"),
        other => panic!("{backend}: expected unknown, got {other:?}"),
    }
    assert!(took < Duration::from_secs(3), "{backend} took {took:?}");
    let report = solver.report();
    assert_eq!(report.last().map(|s| s.unknown), Some(1));
    for line in &report {
        println!("{line}");
    }
}

/// A work limit ends the query at the same point on every run: the same
/// answer and the same work, however busy the machine.
#[test]
fn a_work_limit_ends_the_query_reproducibly() {
    for backend in Backend::LINKED {
        work_limit_on(backend);
    }
}

fn work_limit_on(backend: Backend) {
    let run = || {
        std::thread::spawn(move || {
            let mut pool = ExprPool::new();
            let cs = factoring_query(&mut pool);
            let settings =
                SolverSettings { timeout_ms: Some(60_000), work_limit: Some(200_000), ..SolverSettings::default() };
            let mut solver = SolverStack::build_with(&settings, backend);
            let start = Instant::now();
            let answer = solver.check(&pool, &Query::new(&cs)).unwrap();
            (answer, solver.work(), start.elapsed())
        })
        .join()
        .unwrap()
    };
    let (a1, w1, took) = run();
    let (a2, w2, _) = run();
    assert!(matches!(a1, Answer::Unknown(_)), "{backend}: {a1:?}");
    assert_eq!(format!("{a1:?}"), format!("{a2:?}"), "{backend}");
    assert_eq!(w1, w2, "{backend}");
    assert!(w1 >= 200_000, "{backend}: the limit was reached: {w1}");
    assert!(took < Duration::from_secs(30), "{backend} took {took:?}");
    println!("{backend}: work {w1} in {took:?}");
}

/// `y == 12345` after `n` steps of `y = (x_k == k) ? y + k % 7 : y - 1`
/// over fresh inputs `x_k`: the shape of the bounded engine's formula of
/// a long straight-line program, which Bitwuzla bit-blasts for seconds
/// without a termination callback. The query and, for a later query that
/// contradicts it, `x_0 == 2` against its `x_0 == 1`.
fn long_sum(pool: &mut ExprPool, n: u128) -> (walkdown_smt::ExprId, walkdown_smt::ExprId, walkdown_smt::ExprId) {
    let mut y = pool.bv_const(32, 0).unwrap();
    let mut first = None;
    for k in 0..n {
        let x = pool.new_symbol(&format!("x{k}"), 32).unwrap().1;
        first.get_or_insert(x);
        let (kk, step, one) =
            (pool.bv_const(32, k).unwrap(), pool.bv_const(32, k % 7).unwrap(), pool.bv_const(32, 1).unwrap());
        let hit = pool.eq(x, kk).unwrap();
        let (up, down) = (pool.add(y, step).unwrap(), pool.sub(y, one).unwrap());
        y = pool.ite(hit, up, down).unwrap();
    }
    let target = pool.bv_const(32, 12345).unwrap();
    let goal = pool.eq(y, target).unwrap();
    let x0 = first.unwrap();
    let (c1, c2) = (pool.bv_const(32, 1).unwrap(), pool.bv_const(32, 2).unwrap());
    (goal, pool.eq(x0, c1).unwrap(), pool.eq(x0, c2).unwrap())
}

/// A large check ends at the deadline, though Bitwuzla cannot be stopped
/// while it bit-blasts (a campaign with a 2 s budget ran 4.8 s); the
/// solver answers correctly afterwards, the check it walked away from
/// popped (`x_0 == 1` is gone), in both modes (an incremental solver
/// runs every check on the instance it keeps).
///
/// Bitwuzla only: Z3 cannot be stopped while it internalizes a formula
/// either (this one: 1.5 s at a 100 ms deadline), and its context belongs
/// to the thread that made it, so a check cannot be walked away from.
/// The portfolio sends the large formulas (the bounded engine's and
/// induction's) to Bitwuzla.
#[test]
fn a_large_check_ends_at_the_deadline() {
    for backend in [Backend::Bitwuzla] {
        for incremental in [false, true] {
            let mut pool = ExprPool::new();
            let (goal, one, two) = long_sum(&mut pool, 4000);
            let mut solver = backend.make(walkdown_smt::BackendSettings::default(), incremental);
            let start = Instant::now();
            solver.set_deadline(Some(start + Duration::from_millis(100)));
            let answer = solver.check(&pool, &Query::new(&[goal, one])).unwrap();
            let took = start.elapsed();
            let case = format!("{backend}, incremental {incremental}");
            assert!(matches!(answer, Answer::Unknown(_)) || took < Duration::from_millis(100), "{case}: {answer:?}");
            assert!(took < Duration::from_millis(800), "{case}: the check took {took:?} of 100 ms");
            solver.set_deadline(None);
            let small = pool.new_symbol("z", 8).unwrap().1;
            let three = pool.bv_const(8, 3).unwrap();
            let z3 = pool.eq(small, three).unwrap();
            let later = solver.check(&pool, &Query::new(&[z3, two])).unwrap();
            assert!(later.is_sat(), "{case}: {later:?}");
        }
    }
}
