//! Differential test of loop fast-forwarding: every program of
//! `tests/fastforward/` (affine counters, unsigned wrap-around at 8, 16
//! and 32 bits, nested loops, branches and a switch on the counter inside
//! loop bodies, loops that must not be fast-forwarded, and nests whose
//! outer loops are jumped whole: inner loops that run to an outer counter,
//! compare their counters with outer ones, break where they meet one, or
//! wrap around) runs on a few input vectors, in both data models,
//!
//! - in the interpreter with fast-forwarding and without it (the plain
//!   run, iteration by iteration): outcome, goals covered, inputs consumed,
//!   and every line count must be the same, and the steps executed plus
//!   the steps jumped over must be the plain run's steps;
//! - natively (gcc -O0 with coverage and walkdown's harness, as `walkdown
//!   validate` runs tests): the outcome and the number of `nondet` calls
//!   must match, and every line's gcov count must equal the fast-forwarded
//!   run's count wherever the plain run's count equals gcov's (the plain
//!   interpreter and gcov count a few lines differently, `for` headers
//!   among them; fast-forwarding must not add a difference).
//!
//! The loops are small enough to run plainly, and each program must make
//! at least one jump (the nests: few enough executed steps that their
//! outer loops must have been jumped), so the comparison is not vacuous. Needs gcc with
//! 32-bit support (as `real_c.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{Interpreter, Outcome, RunOptions, RunResult};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::{CheckKind, DataModel, FileId};
use walkdown_native::{BuildSettings, NativeBuild, NativeOutcome, RunLimits};

const TASK_FILE: FileId = FileId::from_u32(0);

/// The programs and their vectors.
fn fixtures() -> Vec<(PathBuf, Vec<Vec<i128>>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fastforward");
    let vectors: &[(&str, &[&[i128]])] = &[
        ("affine_counters.c", &[&[], &[77777], &[1234], &[-3], &[99999]]),
        ("wrap_around.c", &[&[], &[5, 3], &[9, 250], &[255, 0], &[10, 7], &[1234, 3000]]),
        ("nested.c", &[&[], &[1], &[17], &[300], &[301]]),
        ("inbody_branches.c", &[&[], &[-3], &[0], &[1], &[3001], &[7000], &[7001], &[20000], &[99999]]),
        ("not_affine.c", &[&[], &[1, 1, 1, 1, 1]]),
        ("nested_meet.c", &[&[], &[5, 3], &[17, 16], &[40, 39], &[120, 1000], &[120, 0], &[121, 1], &[120, 119]]),
        ("nested_segments.c", &[&[], &[0], &[1], &[5], &[699], &[700], &[701], &[994], &[1100], &[3000]]),
        ("nested_wrap.c", &[&[], &[7], &[100], &[156], &[200], &[255]]),
    ];
    let mut listed: Vec<String> = vectors.iter().map(|(n, _)| n.to_string()).collect();
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/fastforward")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    listed.sort();
    present.sort();
    assert_eq!(listed, present, "every fixture has its vectors here");
    vectors.iter().map(|(name, vs)| (dir.join(name), vs.iter().map(|v| v.to_vec()).collect())).collect()
}

/// Steps a fixture's fast-forwarded runs may execute in all (per data
/// model) where outer loops are jumped whole, not only their inner loops
/// (with inner jumps alone, and walks through short inner loops, they
/// execute 440,624 and 275,066 steps).
fn max_executed(name: &str) -> Option<u64> {
    match name {
        "nested_meet.c" => Some(3_000),
        "nested_segments.c" => Some(30_000),
        _ => None,
    }
}

fn native_expected(o: &Outcome) -> Option<NativeOutcome> {
    match o {
        Outcome::Exit(c) => Some(NativeOutcome::Exit(c & 0xff)),
        Outcome::Abort => Some(NativeOutcome::Abort),
        Outcome::Error { kind: CheckKind::ReachError, .. } => Some(NativeOutcome::ReachError),
        _ => None,
    }
}

/// The differences between the fast-forwarded and the plain run.
fn against_plain(ff: &RunResult, plain: &RunResult) -> Vec<String> {
    let mut d = Vec::new();
    if ff.outcome != plain.outcome {
        d.push(format!("outcome {:?} vs plain {:?}", ff.outcome, plain.outcome));
    }
    if ff.covered != plain.covered {
        d.push(format!("goals {:?} vs plain {:?}", ff.covered, plain.covered));
    }
    if ff.inputs != plain.inputs
        || ff.nondet_calls != plain.nondet_calls
        || ff.inputs_exhausted != plain.inputs_exhausted
    {
        d.push("inputs consumed differ".into());
    }
    for (a, b) in ff.line_counts.iter().zip(&plain.line_counts) {
        if a != b {
            d.push(format!("line {}: {} vs plain {}", a.line, a.count, b.count));
        }
    }
    if ff.line_counts.len() != plain.line_counts.len() {
        d.push("line tables differ".into());
    }
    if u128::from(ff.steps) + ff.skipped_steps != u128::from(plain.steps) || plain.skipped_steps != 0 {
        d.push(format!("steps {} + {} jumped over vs plain {}", ff.steps, ff.skipped_steps, plain.steps));
    }
    d
}

#[test]
fn fast_forwarded_runs_are_plain_runs() {
    let mut problems = Vec::new();
    let mut table = Vec::new();
    for (path, vectors) in fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for dm in [DataModel::LP64, DataModel::ILP32] {
            let settings = FrontendSettings { data_model: dm, ..FrontendSettings::default() };
            let program = compile_c(&path, &settings).unwrap_or_else(|e| panic!("{name}: {e}"));
            let goals = Goals::compute(&program);
            let ff = Interpreter::new(&program, &goals).expect("prepare");
            let mut plain = ff.clone();
            plain.set_fast_forward(false);
            let build = NativeBuild::compile(&path, dm, &BuildSettings::default())
                .unwrap_or_else(|e| panic!("{name} {dm}: gcc: {e}"));
            let options = RunOptions { record_lines: true, ..RunOptions::default() };
            let (mut jumps, mut skipped, mut executed) = (0u64, 0u128, 0u64);
            let (mut lines_compared, mut lines_gcov) = (0usize, 0usize);
            for v in &vectors {
                let tv = TestVector::from_ints(v.iter().copied());
                let what = format!("{name} {dm} {v:?}");
                let rf = ff.run(&tv, &options);
                let rp = plain.run(&tv, &options);
                jumps += rf.fast_forwards;
                skipped += rf.skipped_steps;
                executed += rf.steps;
                for d in against_plain(&rf, &rp) {
                    problems.push(format!("{what}: {d}"));
                }
                // Natively.
                build.reset_coverage().expect("reset gcov data");
                let run = build.run(&tv, &RunLimits::with_timeout(Duration::from_secs(20))).expect("native run");
                let cov = build.coverage().expect("gcov");
                match native_expected(&rf.outcome) {
                    Some(want) if want == run.outcome => {}
                    want => problems.push(format!("{what}: natively {:?}, expected {want:?}", run.outcome)),
                }
                if run.nondet_calls != rf.nondet_calls {
                    problems.push(format!(
                        "{what}: {} nondet calls natively, {} interpreted",
                        run.nondet_calls, rf.nondet_calls
                    ));
                }
                let mut compared = 0;
                for (lf, lp) in rf.line_counts.iter().zip(&rp.line_counts) {
                    if lf.file != TASK_FILE {
                        continue;
                    }
                    let Some(&g) = cov.lines.get(&lf.line) else { continue };
                    lines_gcov += 1;
                    if lp.count == g {
                        compared += 1;
                        if lf.count != g {
                            problems.push(format!("{what}: line {}: {} fast-forwarded, gcov {g}", lf.line, lf.count));
                        }
                    }
                }
                lines_compared += compared;
                if compared == 0 {
                    problems.push(format!("{what}: no line count compared with gcov"));
                }
            }
            if jumps == 0 {
                problems.push(format!("{name} {dm}: no loop was fast-forwarded"));
            }
            if let Some(most) = max_executed(&name) {
                if executed > most {
                    problems.push(format!(
                        "{name} {dm}: {executed} steps executed, more than {most}: outer loops not jumped"
                    ));
                }
            }
            table.push(format!(
                "{name:<22} {dm:<5} {:>2} vectors {jumps:>5} jumps {executed:>9} steps executed {skipped:>10} jumped over, {lines_compared}/{lines_gcov} line counts compared with gcov",
                vectors.len()
            ));
        }
    }
    for line in &table {
        eprintln!("{line}");
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// Four nested loops of nearly 2^32 iterations each
/// (`tests/fastforward_unbounded/four_deep.c`): no plain or native run ends,
/// so the check is that the fast-forwarded run reaches the error at the
/// input's counters (or the end, when the input is no counter value) in a
/// few hundred executed steps, with the saturated counts it reports.
#[test]
fn nests_of_2_to_the_32_iterations_reach_their_end() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fastforward_unbounded/four_deep.c");
    for dm in [DataModel::LP64, DataModel::ILP32] {
        let settings = FrontendSettings { data_model: dm, ..FrontendSettings::default() };
        let program = compile_c(&path, &settings).expect("four_deep.c");
        let goals = Goals::compute(&program);
        let interp = Interpreter::new(&program, &goals).expect("prepare");
        let options = RunOptions { record_lines: true, ..RunOptions::default() };
        for (t, error) in [
            (0i128, true),
            (1, true),
            (4_000_000_000, true),
            (0xffff_ffef, true),
            (0xffff_fff0, false),
            (0xffff_ffff, false),
        ] {
            let r = interp.run(&TestVector::from_ints([t]), &options);
            let what = format!("{dm} t={t}");
            match (&r.outcome, error) {
                (Outcome::Error { kind: CheckKind::ReachError, .. }, true) | (Outcome::Exit(0), false) => {}
                (o, _) => panic!("{what}: {o:?}"),
            }
            assert!(r.steps < 2_000, "{what}: {} steps executed", r.steps);
            if t > 1 {
                // Past the first outer iteration: the outer loop was jumped.
                let outer = r
                    .jumps
                    .iter()
                    .find(|j| j.loc.line == 10)
                    .unwrap_or_else(|| panic!("{what}: no jump of the outer loop"));
                // Its head carries all four counters (used after the loops).
                assert!(outer.after.contains(&(t as u64).min(0xffff_fff0)), "{what}: {:?}", outer.after);
                assert_eq!(r.skipped_steps, u128::MAX, "{what}: the steps jumped over saturate");
                let innermost = r.line_counts.iter().find(|l| l.line == 14).expect("line 14");
                assert!(
                    innermost.count >= walkdown_interp::LINE_COUNT_SATURATED,
                    "{what}: line 14 ran {} times",
                    innermost.count
                );
            }
        }
    }
}
