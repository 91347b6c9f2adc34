//! Building and running small fixture programs natively: outcomes, input
//! conversion, `nondet` counts and gcov line/branch counts.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::DataModel;
use walkdown_native::{BuildSettings, NativeBuild, NativeOutcome, NativeRun, RunLimits};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn gcc_available() -> bool {
    let found = Command::new("gcc").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipping: gcc is not installed");
    }
    found
}

fn build(name: &str, data_model: DataModel) -> NativeBuild {
    NativeBuild::compile(&fixture(name), data_model, &BuildSettings::default())
        .unwrap_or_else(|e| panic!("building {name}: {e}"))
}

fn limits() -> RunLimits {
    RunLimits::with_timeout(Duration::from_secs(5))
}

fn run_ints(build: &NativeBuild, values: &[i128]) -> NativeRun {
    build.run(&TestVector::from_ints(values.iter().copied()), &limits()).unwrap()
}

#[test]
fn outcomes_of_the_scenarios() {
    if !gcc_available() {
        return;
    }
    let build = build("outcomes.c", DataModel::LP64);
    assert!(build.has_reach_error_hook());

    let exit = run_ints(&build, &[0, 42]);
    assert_eq!(exit.outcome, NativeOutcome::Exit(42));
    assert_eq!((exit.nondet_calls, exit.inputs_exhausted, exit.harness_reported), (2, false, true));

    assert_eq!(run_ints(&build, &[1]).outcome, NativeOutcome::ReachError);
    assert_eq!(run_ints(&build, &[2, 0]).outcome, NativeOutcome::AssertionFailure);
    assert_eq!(run_ints(&build, &[2, 1]).outcome, NativeOutcome::Exit(0));
    assert_eq!(run_ints(&build, &[3, 0]).outcome, NativeOutcome::Abort);
    assert_eq!(run_ints(&build, &[3, 1]).outcome, NativeOutcome::Exit(3));
    assert_eq!(run_ints(&build, &[4, 0]).outcome, NativeOutcome::Signal(libc::SIGFPE));
    assert_eq!(run_ints(&build, &[4, 5]).outcome, NativeOutcome::Exit(2));

    let assumed = run_ints(&build, &[6, 0]);
    assert_eq!(assumed.outcome, NativeOutcome::Exit(0));
    assert!(assumed.assume_failed);
    assert!(!run_ints(&build, &[6, 1]).assume_failed);
}

#[test]
fn crashes_keep_their_report_and_coverage() {
    if !gcc_available() {
        return;
    }
    let build = build("outcomes.c", DataModel::LP64);
    let division = run_ints(&build, &[4, 0]);
    assert_eq!(division.outcome, NativeOutcome::Signal(libc::SIGFPE));
    assert!(division.harness_reported);
    assert_eq!(division.nondet_calls, 2);
    let source = std::fs::read_to_string(fixture("outcomes.c")).unwrap();
    let division_line = source.lines().position(|l| l.contains("10 / divisor")).unwrap() as u32 + 1;
    assert_eq!(build.coverage().unwrap().lines.get(&division_line), Some(&1));

    // A stack overflow is handled on the alternate stack.
    let overflow = run_ints(&build, &[13]);
    assert_eq!(overflow.outcome, NativeOutcome::Signal(libc::SIGSEGV));
    assert!(overflow.harness_reported);
    let recursion_line = source.lines().position(|l| l.contains("frame[0] = (char)depth")).unwrap() as u32 + 1;
    assert!(build.coverage().unwrap().lines[&recursion_line] > 1000);
}

#[test]
fn timeout_kills_an_infinite_loop_and_keeps_its_count() {
    if !gcc_available() {
        return;
    }
    let build = build("outcomes.c", DataModel::LP64);
    let limits = RunLimits { timeout: Duration::from_millis(300), ..RunLimits::default() };
    let run = build.run(&TestVector::from_ints([5]), &limits).unwrap();
    assert_eq!(run.outcome, NativeOutcome::Timeout);
    // SIGTERM reaches the harness, which still reports.
    assert!(run.harness_reported);
    assert_eq!(run.nondet_calls, 1);
    assert!(run.elapsed >= Duration::from_millis(300));
    // The looping line was executed, and its coverage was saved on SIGTERM.
    let coverage = build.coverage().unwrap();
    assert!(coverage.lines_covered > 0);
}

/// A timeout that interrupts the program inside malloc (or after it used up
/// its memory) used to lose the run's coverage: `__gcov_dump` ran in the
/// signal handler, where it deadlocked or failed to allocate. The watchdog
/// thread dumps it in an ordinary context.
#[test]
fn timeout_inside_malloc_keeps_the_coverage() {
    if !gcc_available() {
        return;
    }
    let source = std::fs::read_to_string(fixture("timeout_in_malloc.c")).unwrap();
    let line_of = |text: &str| source.lines().position(|l| l.contains(text)).unwrap() as u32 + 1;
    for data_model in [DataModel::LP64, DataModel::ILP32] {
        let build = build("timeout_in_malloc.c", data_model);
        // 1: the leak reaches the address-space limit; 0: malloc and free
        // in turn, so most of the time is spent inside the allocator.
        for (input, branch_line) in [(1, line_of("rounds = 1;")), (0, line_of("rounds = 2;"))] {
            for attempt in 0..3 {
                build.reset_coverage().unwrap();
                let limits = RunLimits {
                    timeout: Duration::from_millis(700),
                    memory_limit_mb: Some(256),
                    ..RunLimits::default()
                };
                let run = build.run(&TestVector::from_ints([input]), &limits).unwrap();
                assert_eq!(run.outcome, NativeOutcome::Timeout);
                assert!(run.harness_reported, "{data_model} input {input} attempt {attempt}: no report");
                let coverage = build.coverage().unwrap();
                assert_eq!(
                    coverage.lines.get(&branch_line),
                    Some(&1),
                    "{data_model} input {input} attempt {attempt}: the coverage of the timed-out run was lost"
                );
                assert!(coverage.lines[&line_of("rounds++;")] > 1000, "{data_model} input {input}");
            }
        }
    }
}

#[test]
fn values_convert_like_c_casts() {
    if !gcc_available() {
        return;
    }
    let build = build("outcomes.c", DataModel::LP64);
    assert_eq!(run_ints(&build, &[7, -1]).outcome, NativeOutcome::Exit(7));
    let floats = TestVector { values: vec![InputValue::Int(8), InputValue::Float(1.5), InputValue::Float(-2.7)] };
    assert_eq!(build.run(&floats, &limits()).unwrap().outcome, NativeOutcome::Exit(8));
    assert_eq!(run_ints(&build, &[9, 255]).outcome, NativeOutcome::Exit(9));
    assert_eq!(run_ints(&build, &[11, (1 << 32) + 5]).outcome, NativeOutcome::Exit(64));
    assert_eq!(run_ints(&build, &[12, 2]).outcome, NativeOutcome::Exit(12));
    assert_eq!(run_ints(&build, &[12, 0]).outcome, NativeOutcome::Exit(1));
}

/// Floating-point values for integer inputs, in range or not, convert in
/// both data models as the interpreter converts them
/// (`InputValue::to_int_bits`, `InputValue::to_bool`), and the input file
/// spells every `f64` exactly.
#[test]
fn float_inputs_convert_like_the_interpreter() {
    if !gcc_available() {
        return;
    }
    let values = [
        0.5,
        -2.75,
        3e9,
        -3e9,
        1e10,
        9.3e18,
        -9.3e18,
        1e19,
        -1e19,
        1.2345678901234568e18,
        2e19,
        1e20,
        -1e20,
        1.8446744073709552e19,
        1.7e38,
        -1.7e38,
        4e38,
        1e300,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for data_model in [DataModel::LP64, DataModel::ILP32] {
        let build = build("float_inputs.c", data_model);
        for f in values {
            let value = InputValue::Float(f);
            let vector = TestVector {
                values: vec![
                    InputValue::Int(i128::from(value.to_int_bits(64, true) as i64)),
                    value,
                    value,
                    InputValue::Int(i128::from(value.to_bool())),
                ],
            };
            let run = build.run(&vector, &limits()).unwrap();
            assert_eq!(run.outcome, NativeOutcome::Exit(0), "{f:e} ({data_model})");
        }
    }
}

#[test]
fn nondet_calls_are_counted_past_the_end_of_the_vector() {
    if !gcc_available() {
        return;
    }
    let build = build("outcomes.c", DataModel::LP64);
    let full = run_ints(&build, &[10, 1, 2, 3]);
    assert_eq!(full.outcome, NativeOutcome::Exit(6));
    assert_eq!((full.nondet_calls, full.inputs_exhausted), (4, false));
    let short = run_ints(&build, &[10, 4]);
    assert_eq!(short.outcome, NativeOutcome::Exit(4));
    assert_eq!((short.nondet_calls, short.inputs_exhausted), (4, true));
    let empty = run_ints(&build, &[]);
    assert_eq!(empty.outcome, NativeOutcome::Exit(0));
    assert_eq!((empty.nondet_calls, empty.inputs_exhausted), (2, true));

    let exit_on_end = RunLimits { on_exhausted: walkdown_native::ExhaustedInputs::Exit, ..limits() };
    let cut = build.run(&TestVector::from_ints([10, 4]), &exit_on_end).unwrap();
    assert_eq!(cut.outcome, NativeOutcome::Exit(1));
    assert_eq!((cut.nondet_calls, cut.inputs_exhausted), (3, true));
}

#[test]
fn ilp32_builds_have_32_bit_longs() {
    if !gcc_available() {
        return;
    }
    let build = build("outcomes.c", DataModel::ILP32);
    assert_eq!(run_ints(&build, &[11, (1 << 32) + 5]).outcome, NativeOutcome::Exit(32));
    assert_eq!(run_ints(&build, &[1]).outcome, NativeOutcome::ReachError);
    assert_eq!(run_ints(&build, &[4, 0]).outcome, NativeOutcome::Signal(libc::SIGFPE));
}

#[test]
fn a_tasks_own_reach_error_is_seen_on_entry() {
    if !gcc_available() {
        return;
    }
    let own = build("own_reach_error.c", DataModel::LP64);
    assert_eq!(run_ints(&own, &[42]).outcome, NativeOutcome::ReachError);
    assert_eq!(run_ints(&own, &[1]).outcome, NativeOutcome::Exit(0));

    let svcomp = build("svcomp_reach_error.c", DataModel::LP64);
    assert_eq!(run_ints(&svcomp, &[7]).outcome, NativeOutcome::ReachError);
    assert_eq!(run_ints(&svcomp, &[8]).outcome, NativeOutcome::Exit(0));
}

#[test]
fn line_and_branch_counts_of_a_preprocessed_task() {
    if !gcc_available() {
        return;
    }
    let build = build("lines.i", DataModel::LP64);
    let before = build.coverage().unwrap();
    assert_eq!((before.branches_total, before.branches_covered, before.lines_covered), (2, 0, 0));

    run_ints(&build, &[5]);
    run_ints(&build, &[7]);
    let coverage = build.coverage().unwrap();
    // Line numbers are those of lines.i: the line markers became blanks.
    assert_eq!(coverage.lines.get(&5), Some(&2), "{:?}", coverage.lines);
    assert_eq!(coverage.lines.get(&8), Some(&2));
    assert_eq!(coverage.lines.get(&10), Some(&0));
    assert!(!coverage.lines.contains_key(&1) && !coverage.lines.contains_key(&3));
    assert_eq!((coverage.branches_total, coverage.branches_covered), (2, 1));
    assert_eq!(coverage.branch_counts.get(&7), Some(&vec![2, 0]));
    assert_eq!(coverage.lines_total, coverage.lines.len() as u64);

    run_ints(&build, &[-1]);
    let both = build.coverage().unwrap();
    assert_eq!(both.branches_covered, 2);
    assert_eq!(both.lines_covered, both.lines_total);

    build.reset_coverage().unwrap();
    assert_eq!(build.coverage().unwrap().lines_covered, 0);
}

#[test]
fn compile_errors_are_reported() {
    if !gcc_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.c");
    std::fs::write(&broken, "int main(void) { return }\n").unwrap();
    let error = NativeBuild::compile(&broken, DataModel::LP64, &BuildSettings::default()).unwrap_err();
    assert!(matches!(error, walkdown_native::NativeError::CompileFailed { .. }), "{error}");
    let missing = NativeBuild::compile(&dir.path().join("none.c"), DataModel::LP64, &BuildSettings::default());
    assert!(matches!(missing, Err(walkdown_native::NativeError::ReadTask { .. })));
}

#[test]
fn builds_without_the_reach_error_hook_when_the_compiler_rejects_it() {
    if !gcc_available() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let picky_gcc = dir.path().join("picky-gcc");
    std::fs::write(
        &picky_gcc,
        "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -finstrument-functions ] && exit 1; done\nexec gcc \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&picky_gcc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let settings = BuildSettings { compiler: picky_gcc, ..BuildSettings::default() };

    let own = NativeBuild::compile(&fixture("own_reach_error.c"), DataModel::LP64, &settings).unwrap();
    assert!(!own.has_reach_error_hook());
    // Without the hook an empty reach_error body goes unnoticed...
    assert_eq!(run_ints(&own, &[42]).outcome, NativeOutcome::Exit(3));
    // ...but one that goes through __assert_fail is still seen.
    let svcomp = NativeBuild::compile(&fixture("svcomp_reach_error.c"), DataModel::LP64, &settings).unwrap();
    assert_eq!(run_ints(&svcomp, &[7]).outcome, NativeOutcome::ReachError);
}
