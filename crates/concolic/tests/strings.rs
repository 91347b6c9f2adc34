//! The string and memory functions the tracer follows as byte loops
//! (`symex::strings`), on programs of our own: traced runs agree with the
//! interpreter, their path conditions hold for their own inputs, and the
//! branch points of long strings are capped. What the search reaches with
//! them is in the `str_*.c` filetests.

use std::path::Path;
use std::time::{Duration, Instant};
use walkdown_concolic::symex::{Trace, Tracer};
use walkdown_concolic::TraceLimits;
use walkdown_frontend::FrontendSettings;
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::Program;
use walkdown_smt::{Assignment, ExprPool};

fn compile(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/strings").join(name);
    walkdown_frontend::compile_c(&path, &FrontendSettings::default()).expect("program lowers")
}

/// Traces `values` on `program` with default limits.
fn trace(tracer: &mut Tracer<'_>, pool: &mut ExprPool, values: &[InputValue]) -> Trace {
    let deadline = Instant::now() + Duration::from_secs(20);
    tracer.run(pool, values, &TraceLimits::default(), deadline)
}

/// Whether the trace's path condition holds for the inputs it ran on.
fn path_holds(pool: &ExprPool, t: &Trace) -> bool {
    let mut a = Assignment::new();
    for i in &t.inputs {
        if let Some(s) = i.sym {
            a.set_sym(s, u128::from(i.bits));
        }
    }
    pool.satisfies(&t.path, &a)
}

/// Vectors over an alphabet that makes the strings of `agree.c` equal,
/// short, long and full of the character searched for, from a fixed seed.
fn vectors(count: usize) -> Vec<TestVector> {
    const CHARS: [i128; 8] = [0, 0x61, 0x61, 0x78, 0x2a, -1, 127, -128];
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    (0..count)
        .map(|_| {
            let mut values: Vec<InputValue> = (0..14).map(|_| InputValue::Int(CHARS[next(8) as usize])).collect();
            // Often the same two strings, so the comparisons run to the end.
            if next(3) == 0 {
                for i in 0..7 {
                    values[2 * i + 1] = values[2 * i];
                }
            }
            values.push(InputValue::Int(next(9) as i128));
            values.push(InputValue::Int(CHARS[next(8) as usize]));
            TestVector { values }
        })
        .collect()
}

#[test]
fn traced_string_functions_agree_with_the_interpreter() {
    let program = compile("agree.c");
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let mut tracer = Tracer::new(&program, &goals, interp.prepared());
    let mut pool = ExprPool::new();
    let mut points = 0;
    for (k, v) in vectors(300).iter().enumerate() {
        let t = trace(&mut tracer, &mut pool, &v.values);
        let r = interp.run(v, &RunOptions::default());
        assert_eq!(t.covered, r.covered, "vector {k} ({v:?}): the trace covers other goals than the interpreter");
        assert!(path_holds(&pool, &t), "vector {k} ({v:?}): the path condition is false for its own inputs");
        points += t.points.iter().filter(|p| p.alternatives.iter().all(|a| a.goal.is_none())).count();
    }
    assert!(points > 3000, "only {points} branch points of library loops in 300 runs");
}

#[test]
fn long_strings_are_capped() {
    let program = compile("long.c");
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let mut tracer = Tracer::new(&program, &goals, interp.prepared());
    let mut pool = ExprPool::new();
    let limits = TraceLimits::default();
    let values = vec![InputValue::Int(0x61); 1000];
    let t = trace(&mut tracer, &mut pool, &values);
    let library = t.points.iter().filter(|p| p.alternatives.iter().all(|a| a.goal.is_none())).count();
    // Ten calls of 100 decisions each (the terminators are no inputs):
    // the first calls record the per-call cap until the block's is used
    // up, and the rest are dropped.
    assert_eq!(library as u32, limits.max_string_points_per_site);
    assert!(limits.max_string_points_per_site.is_multiple_of(limits.max_string_points));
    assert!(t.dropped_constraints >= 10 * 100 - u64::from(limits.max_string_points_per_site));
    assert!(path_holds(&pool, &t));
}

#[test]
fn a_branch_the_path_already_decides_offers_nothing() {
    let program = compile("implied.c");
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).expect("prepares");
    let mut tracer = Tracer::new(&program, &goals, interp.prepared());
    let mut pool = ExprPool::new();
    let main = program.funcs.iter().find(|(_, f)| f.name == "main").map(|(id, _)| id).expect("main");
    // "ab" and two terminators: strlen decides s[0], s[1] and s[2].
    let values: Vec<InputValue> = [0x61, 0x62, 0, 0].into_iter().map(InputValue::Int).collect();
    let t = trace(&mut tracer, &mut pool, &values);
    assert!(path_holds(&pool, &t));
    // The first loop's condition is on a counter, the second's on bytes
    // strlen walked: of main's points with a goal (strlen's have none),
    // none may be the byte loop's.
    let byte_points: Vec<_> = t
        .points
        .iter()
        .filter(|p| p.site.0 == main)
        .filter(|p| p.alternatives.iter().any(|a| a.goal.is_some() && !pool.symbols_of(a.cond).is_empty()))
        .collect();
    assert!(byte_points.is_empty(), "{} points of the byte loop", byte_points.len());
    // strlen's own decisions are still offered, so the search can change
    // the length.
    assert!(t.points.iter().any(|p| p.alternatives.iter().all(|a| a.goal.is_none())));
}
