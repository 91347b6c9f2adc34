//! Differential test, the interpreter against gcc: every seed program and
//! public task runs 20 seeded input vectors in the interpreter and natively
//! (gcc -O0 with coverage and walkdown's harness, as `walkdown validate`
//! does), and both must agree on
//!
//! - the outcome: `Exit(c)` ↔ exit status `c & 0xff`, a failed assumption ↔
//!   the harness's `assume_failed`, `abort` ↔ SIGABRT, `reach_error` and
//!   failed assertions ↔ the harness's report, division by zero and
//!   `MIN / -1` ↔ SIGFPE, null dereference ↔ SIGSEGV, the step limit ↔ the
//!   time limit;
//! - the number of inputs consumed (and whether they ran out);
//! - for every line of the task file that both gcov and the interpreter
//!   hold code for, whether it ran.
//!
//! Runs whose behaviour C leaves undefined (the interpreter reports an
//! out-of-bounds access, a use after free, a double or invalid free) are
//! excluded and listed with the reason; so are runs that need more steps
//! than the interpreter's budget although they end natively within the
//! time limit ("nonterminating within budget"). Everything else must agree.
//!
//! Skips (and passes) when `../shared` is absent. Run with `--nocapture` to
//! see the per-program table, the exclusions and the summary.

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use support::CorpusProgram;
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions, RunResult};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::{CheckKind, FileId};
use walkdown_native::{BuildSettings, GcovCoverage, NativeBuild, NativeOutcome, NativeRun, RunLimits};

/// Vectors per program.
const VECTORS: usize = 20;
/// The interpreter's step budget. It is far below what the native time
/// limit allows (gcc -O0 runs some 10^8 IR-instruction equivalents per
/// second), so a native time-out implies an interpreter step limit; the
/// converse is checked run by run.
const MAX_STEPS: u64 = 20_000_000;
/// The native time limit of one run.
const NATIVE_TIMEOUT: Duration = Duration::from_secs(2);

const SIGFPE: i32 = 8;
const SIGSEGV: i32 = 11;

/// How one run compares.
enum Verdict {
    Agree,
    /// Not compared, with the reason (undefined behaviour, budget).
    Excluded(String),
    /// A real disagreement, described.
    Disagree(String),
}

#[derive(Default)]
struct ProgramReport {
    name: String,
    data_model: String,
    runs: usize,
    agreeing: usize,
    /// (run, reason)
    excluded: Vec<(String, String)>,
    disagreements: Vec<String>,
    /// The program could not be compiled or run at all.
    failure: Option<String>,
    /// (interp runs, native runs + gcov) time.
    interp_time: Duration,
    native_time: Duration,
}

#[test]
fn interpreter_agrees_with_gcc() {
    let Some(corpus) = support::corpus("interpreter_agrees_with_gcc") else { return };
    let started = Instant::now();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<Option<ProgramReport>>> = Mutex::new((0..corpus.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(program) = corpus.get(i) else { break };
                let report = check_program(program);
                reports.lock().unwrap()[i] = Some(report);
            });
        }
    });
    let reports: Vec<ProgramReport> = reports.into_inner().unwrap().into_iter().map(Option::unwrap).collect();

    // The table, the exclusions, the disagreements, the summary.
    println!("{:<52} {:>5} {:>4} {:>5} {:>4} {:>4} {:>8} {:>8}", "program", "dm", "runs", "agree", "excl", "DIS", "interp", "native");
    for r in &reports {
        println!(
            "{:<52} {:>5} {:>4} {:>5} {:>4} {:>4} {:>7.2}s {:>7.2}s{}",
            r.name,
            r.data_model,
            r.runs,
            r.agreeing,
            r.excluded.len(),
            r.disagreements.len(),
            r.interp_time.as_secs_f64(),
            r.native_time.as_secs_f64(),
            r.failure.as_ref().map_or(String::new(), |f| format!("  FAILED: {f}")),
        );
    }
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    let excluded: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            r.excluded.iter().map(move |(run, reason)| format!("{} {run}: {reason}", r.name))
        })
        .collect();
    for r in &reports {
        for (_, reason) in &r.excluded {
            *by_reason.entry(reason_class(reason)).or_default() += 1;
        }
    }
    if !excluded.is_empty() {
        println!("excluded runs ({}):", excluded.len());
        for e in &excluded {
            println!("  {e}");
        }
    }
    let failures: Vec<String> = reports
        .iter()
        .filter_map(|r| r.failure.as_ref().map(|f| format!("{}: {f}", r.name)))
        .chain(reports.iter().flat_map(|r| r.disagreements.iter().map(move |d| format!("{} {d}", r.name))))
        .collect();
    if !failures.is_empty() {
        println!("DISAGREEMENTS / FAILURES ({}):", failures.len());
        for f in &failures {
            println!("  {f}");
        }
    }
    let runs: usize = reports.iter().map(|r| r.runs).sum();
    let agreeing: usize = reports.iter().map(|r| r.agreeing).sum();
    let excluded_count: usize = reports.iter().map(|r| r.excluded.len()).sum();
    let reasons = if by_reason.is_empty() {
        "none".to_string()
    } else {
        by_reason.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", ")
    };
    let compared = runs - excluded_count;
    println!(
        "differential summary: {} programs, {runs} runs, {agreeing} of {compared} compared runs agree ({:.1}%), \
         {excluded_count} excluded ({reasons}); {:.1}s on {workers} threads",
        reports.len(),
        if compared == 0 { 100.0 } else { 100.0 * agreeing as f64 / compared as f64 },
        started.elapsed().as_secs_f64(),
    );
    assert!(failures.is_empty(), "{} disagreements or failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(agreeing, compared);
}

/// The reason without its run-specific details, for the summary.
fn reason_class(reason: &str) -> String {
    reason.split(':').next().unwrap_or(reason).to_string()
}

fn check_program(program: &CorpusProgram) -> ProgramReport {
    let mut report = ProgramReport {
        name: program.name.clone(),
        data_model: program.data_model.to_string(),
        ..Default::default()
    };
    let settings = FrontendSettings { data_model: program.data_model, ..Default::default() };
    let ir = match compile_c(&program.path, &settings) {
        Ok(p) => p,
        Err(e) => {
            report.failure = Some(format!("frontend: {e}"));
            return report;
        }
    };
    let interp = match Interpreter::new(&ir, &Goals::compute(&ir)) {
        Ok(i) => i,
        Err(e) => {
            report.failure = Some(format!("interpreter: {e}"));
            return report;
        }
    };
    let build = match NativeBuild::compile(&program.path, program.data_model, &BuildSettings::default()) {
        Ok(b) => b,
        Err(e) => {
            report.failure = Some(format!("native build: {e}"));
            return report;
        }
    };
    let options = RunOptions { limits: ExecLimits { max_steps: MAX_STEPS, ..ExecLimits::default() }, record_lines: true };
    let limits = RunLimits::with_timeout(NATIVE_TIMEOUT);
    let task_file = FileId::from_u32(0);
    for (index, vector) in support::input_vectors(&program.name, VECTORS).iter().enumerate() {
        let run_name = format!("#{index} ({})", describe(vector));
        report.runs += 1;
        let t = Instant::now();
        let result = interp.run(vector, &options);
        report.interp_time += t.elapsed();
        let t = Instant::now();
        let native = build.reset_coverage().and_then(|()| build.run(vector, &limits)).and_then(|run| {
            let coverage = build.coverage()?;
            Ok((run, coverage))
        });
        report.native_time += t.elapsed();
        let (native, coverage) = match native {
            Ok(x) => x,
            Err(e) => {
                report.disagreements.push(format!("{run_name}: native run failed: {e}"));
                continue;
            }
        };
        match compare(&result, &native, &coverage, task_file, &ir) {
            Verdict::Agree => report.agreeing += 1,
            Verdict::Excluded(reason) => report.excluded.push((run_name, reason)),
            Verdict::Disagree(what) => report.disagreements.push(format!("{run_name}: {what}")),
        }
    }
    report
}

/// A short description of a vector for the report.
fn describe(vector: &TestVector) -> String {
    let mut s = format!("{} values", vector.values.len());
    if !vector.values.is_empty() {
        s.push_str(": ");
        for (i, v) in vector.values.iter().take(4).enumerate() {
            if i > 0 {
                s.push(',');
            }
            match v {
                InputValue::Int(x) => write!(s, "{x}").unwrap(),
                InputValue::Float(f) => write!(s, "{f:?}").unwrap(),
            }
        }
        if vector.values.len() > 4 {
            s.push_str(",..");
        }
    }
    s
}

/// What the interpreter's outcome means natively; `Err` with the reason
/// when C leaves the behaviour undefined.
fn expected_native(outcome: &Outcome, line: impl Fn() -> u32) -> Result<Expected, String> {
    Ok(match outcome {
        Outcome::Exit(code) => Expected::Outcome(NativeOutcome::Exit(code & 0xff)),
        Outcome::AssumeFailed => Expected::AssumeFailed,
        Outcome::Abort => Expected::Outcome(NativeOutcome::Abort),
        Outcome::StepLimit => Expected::Outcome(NativeOutcome::Timeout),
        Outcome::Error { kind, .. } => match kind {
            CheckKind::ReachError => Expected::Outcome(NativeOutcome::ReachError),
            CheckKind::Assertion => Expected::Outcome(NativeOutcome::AssertionFailure),
            CheckKind::DivByZero | CheckKind::Overflow => Expected::Outcome(NativeOutcome::Signal(SIGFPE)),
            CheckKind::NullDeref => Expected::Outcome(NativeOutcome::Signal(SIGSEGV)),
            CheckKind::OutOfBounds | CheckKind::UseAfterFree | CheckKind::DoubleFree | CheckKind::InvalidFree => {
                return Err(format!("undefined behaviour ({kind}): at line {}", line()))
            }
        },
        Outcome::DepthLimit => Expected::Unmodelled("the interpreter's call-depth limit".into()),
        Outcome::Unsupported { what, loc } => {
            Expected::Unmodelled(format!("unsupported in the interpreter: {what} at line {}", loc.line))
        }
    })
}

enum Expected {
    Outcome(NativeOutcome),
    AssumeFailed,
    /// The interpreter stopped for a reason of its own.
    Unmodelled(String),
}

fn compare(
    result: &RunResult,
    native: &NativeRun,
    coverage: &GcovCoverage,
    task_file: FileId,
    _ir: &walkdown_ir::Program,
) -> Verdict {
    let error_line = || match &result.outcome {
        Outcome::Error { loc, .. } => loc.line,
        _ => 0,
    };
    let expected = match expected_native(&result.outcome, error_line) {
        Ok(e) => e,
        Err(reason) => return Verdict::Excluded(reason),
    };
    let mut problems = Vec::new();
    match expected {
        Expected::Outcome(NativeOutcome::Timeout) => {
            if native.outcome != NativeOutcome::Timeout {
                return Verdict::Excluded(format!(
                    "nonterminating within budget: the interpreter stopped after {MAX_STEPS} steps; natively {:?} after {} ms",
                    native.outcome,
                    native.elapsed.as_millis()
                ));
            }
        }
        Expected::Outcome(o) => {
            if native.outcome != o || native.assume_failed {
                problems.push(format!("outcome: interp {:?}, native {:?}", result.outcome, native.outcome));
            }
        }
        Expected::AssumeFailed => {
            if !(native.assume_failed && native.outcome == NativeOutcome::Exit(0)) {
                problems.push(format!(
                    "outcome: interp AssumeFailed, native {:?} (assume_failed {})",
                    native.outcome, native.assume_failed
                ));
            }
        }
        Expected::Unmodelled(what) => {
            problems.push(format!("outcome: interp {what}, native {:?}", native.outcome));
        }
    }
    let limited = result.outcome == Outcome::StepLimit;
    if !limited {
        if !native.harness_reported {
            problems.push("the harness wrote no report".into());
        }
        if result.nondet_calls != native.nondet_calls {
            problems.push(format!(
                "inputs consumed: interp {}, native {}",
                result.nondet_calls, native.nondet_calls
            ));
        }
        if result.inputs_exhausted != native.inputs_exhausted {
            problems.push(format!(
                "inputs exhausted: interp {}, native {}",
                result.inputs_exhausted, native.inputs_exhausted
            ));
        }
    }
    let mut line_diffs = Vec::new();
    for lc in result.line_counts.iter().filter(|lc| lc.file == task_file) {
        if let Some(&gcov_count) = coverage.lines.get(&lc.line) {
            if (lc.count > 0) != (gcov_count > 0) {
                line_diffs.push(format!("{}:{}/{}", lc.line, lc.count, gcov_count));
            }
        }
    }
    if !line_diffs.is_empty() {
        let shown = line_diffs.len().min(12);
        problems.push(format!(
            "lines ran (line:interp/gcov): {}{}",
            line_diffs[..shown].join(" "),
            if line_diffs.len() > shown { format!(" (+{} more)", line_diffs.len() - shown) } else { String::new() }
        ));
    }
    if problems.is_empty() {
        Verdict::Agree
    } else {
        Verdict::Disagree(format!("[interp {:?}] {}", short_outcome(&result.outcome), problems.join("; ")))
    }
}

fn short_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Error { kind, loc, .. } => format!("{kind} at line {}", loc.line),
        other => format!("{other:?}"),
    }
}
