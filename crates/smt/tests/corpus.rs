//! The query corpus (`--dump-queries`): a query a backend answers is
//! written as SMT-LIB 2 (by that backend's own printer) that Z3 reads back
//! and answers the same way, with the header the replay script reads; each
//! backend's figures and version are what the run reports.
//!
//! One test, since the corpus directory and the figures are process-wide.

use walkdown_smt::{dump, tally, Answer, Backend, BackendSettings, ExprPool, Query};

#[test]
fn queries_are_written_read_back_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut pool = ExprPool::new();
    let (_, x) = pool.new_symbol("x", 8).unwrap();
    let (three, twelve, two) =
        (pool.bv_const(8, 3).unwrap(), pool.bv_const(8, 12).unwrap(), pool.bv_const(8, 2).unwrap());
    let prod = pool.mul(x, three).unwrap();
    let sat = pool.eq(prod, twelve).unwrap();
    // x * 2 is even, so it is never 3.
    let doubled = pool.mul(x, two).unwrap();
    let unsat = pool.eq(doubled, three).unwrap();

    tally::reset();
    dump::configure(Some(dir.path()), "/tasks/alias swap.c").unwrap();
    let _label = dump::engine_scope("concolic");
    for backend in Backend::LINKED {
        let mut solver = backend.make(BackendSettings::default(), false);
        assert!(solver.check(&pool, &Query::new(&[sat])).unwrap().is_sat());
        assert_eq!(solver.check(&pool, &Query::new(&[unsat])).unwrap(), Answer::Unsat);
    }
    dump::configure(None, "").unwrap();

    let mut files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let expected: Vec<String> = (0..4).map(|n| format!("alias_swap.c.concolic.{n:06}.smt2")).collect();
    assert_eq!(names, expected);
    let answers = ["sat", "unsat", "sat", "unsat"];
    let backends = ["z3", "z3", "bitwuzla", "bitwuzla"];
    for ((file, answer), backend) in files.iter().zip(answers).zip(backends) {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains("; engine: concolic\n; task: /tasks/alias swap.c\n"), "{text}");
        assert!(text.contains(&format!("; backend: {backend} ")), "{text}");
        assert!(text.contains(&format!("; answer: {answer}\n")), "{text}");
        assert!(text.contains("(set-logic QF_BV)") && text.contains("(check-sat)"), "{text}");
        // Z3 itself reads the file and gives the recorded answer.
        let replay = z3::Solver::new();
        replay.from_string(text.as_str());
        let expected = if answer == "sat" { z3::SatResult::Sat } else { z3::SatResult::Unsat };
        assert_eq!(replay.check(), expected, "{text}");
    }

    let figures = tally::figures();
    let row = |f: &tally::BackendFigures| (f.backend, f.queries, f.sat, f.unsat, f.timeouts, f.unknown);
    assert_eq!(figures.iter().map(row).collect::<Vec<_>>(), [("z3", 2, 1, 1, 0, 0), ("bitwuzla", 2, 1, 1, 0, 0)]);
    assert!(figures[0].work > 0, "Z3 counts work on every query");
    // The linked library is the wheel's, not Debian's 4.8.12.
    let version: Vec<u32> = figures[0].version.split('.').map(|p| p.parse().unwrap()).collect();
    assert!(version >= vec![4, 12], "Z3 {}", figures[0].version);
    assert_eq!(figures[1].version, "0.10.0");
    assert_eq!(
        walkdown_smt::backend_versions(),
        vec![("z3", figures[0].version.clone()), ("bitwuzla", "0.10.0".to_string())]
    );
}
