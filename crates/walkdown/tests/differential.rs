//! Differential test, the interpreter against gcc: every seed program and
//! public task runs 20 seeded input vectors (`support::input_vectors`:
//! empty, constant, boundary, short, floating-point and random vectors of
//! up to 4096 values) in the interpreter and natively (gcc -O0 with
//! coverage and walkdown's harness, as `walkdown validate` runs them), and
//! both must agree on
//!
//! - the outcome: `Exit(c)` ↔ exit status `c & 0xff`, a failed assumption ↔
//!   the harness's `assume_failed` (exit 0), `abort` ↔ SIGABRT,
//!   `reach_error` and failed assertions ↔ the harness's report, division
//!   by zero and `MIN / -1` ↔ SIGFPE, null dereference ↔ SIGSEGV, the step
//!   limit ↔ the time limit;
//! - the number of `nondet` calls and whether the vector ran out: past its
//!   end both sides return 0 and count the call (the harness's default,
//!   that of the reference measurement);
//! - for every line of the task file that both gcov and the interpreter
//!   hold code for, whether it ran.
//!
//! Limits are matched, not compared: each vector runs natively first
//! (500 ms); a native time-out gives the interpreter a budget of 2*10^7
//! steps (it is 20 to 50 times slower than gcc -O0 code); when it ends
//! within them (fast-forwarding jumped over loop iterations to the end of
//! the run, or a busy machine slowed the native run) the native run is
//! repeated with 60 s and compared. A native end gives it 1.5*10^9 steps. Memory: 1 GiB of live heap
//! and stack in the interpreter, the same plus 64 MiB of address space
//! natively. Runs stopped by the limits are compared on the outcome only.
//!
//! An out-of-bounds access in the interpreter that natively dies of
//! SIGSEGV agrees (both fault there: a pointer cut to 32 bits and widened
//! again points at no object in the interpreter, whose addresses lie above
//! 4 GiB under LP64 as natively, and at no mapping natively).
//!
//! Excluded, and listed by name with the reason:
//! - runs whose behaviour C leaves undefined: the interpreter reports an
//!   out-of-bounds access (which does not fault natively), a use after
//!   free, a double or invalid free; or a
//!   disagreeing run's interpreter result changes when fresh stack and heap
//!   memory is filled with a pattern instead of zeros (an uninitialized
//!   read);
//! - runs that end natively within the time limit but need more than the
//!   interpreter's budget ("nonterminating within budget").
//!
//! Lines not compared, and said so: the lines of the function a fault
//! (SIGSEGV, SIGFPE) cut short, whose gcov counts come partly from flow
//! conservation, which the fault breaks; and those of functions the task
//! defines under names the C runtime calls itself (`pthread_mutex_lock`,
//! called by libgcov when it writes the coverage data).
//!
//! Everything else must agree. Each program is compiled natively once; a
//! long interpreter run (10^7 steps or more) is not repeated for a later
//! vector that starts with the same consumed inputs (the interpreter is
//! deterministic). Skips (and passes) when `../shared` is absent. Run with
//! `--nocapture` to see the per-program table, the exclusions and the
//! summary line.
//!
//! The project's own programs (`tests/differential/*.c`: pointers passed
//! through `unsigned int`) run the same way under both data models without
//! `../shared`, and there no run may be excluded.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
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
/// The native time limit of one run.
const NATIVE_TIMEOUT: Duration = Duration::from_millis(500);
/// The native time limit of a run the interpreter finished by
/// fast-forwarding loops where the native run timed out.
const FAST_FORWARDED_NATIVE_TIMEOUT: Duration = Duration::from_secs(60);
/// Steps (executed and jumped over) past which a run is not compared
/// natively: some hours at 10^9 a second.
const NOT_NATIVE_STEPS: f64 = 1e13;
/// The interpreter's step budget for a run that ended natively within
/// [`NATIVE_TIMEOUT`] (some 10 s of interpretation). gcc -O0 code runs up
/// to a few 10^9 IR instructions' worth a second, so a run could need
/// more: it would be listed as "nonterminating within budget".
const MAX_STEPS: u64 = 1_500_000_000;
/// The budget for a run that timed out natively: the interpreter must not
/// end within it (it runs 20 to 50 times slower than gcc -O0 code), and
/// need not run longer to show that.
const STEPS_IF_TIMEOUT: u64 = 20_000_000;
/// The interpreter's memory limit (live stack and heap bytes) ...
const INTERP_MEMORY: u64 = 1 << 30;
/// ... and the native address-space limit that corresponds to it: the same
/// plus what the process maps besides the program's data (code, libc,
/// stacks), so `malloc` fails on both sides for the same sizes.
const NATIVE_MEMORY_MB: u64 = 1024 + 64;
/// Interpreter runs of at least this many steps are not repeated for a
/// vector that would repeat them.
const REUSE_STEPS: u64 = 10_000_000;
/// Fills (pattern seeds) of fresh stack and heap memory tried when a run
/// disagrees.
const UNINITIALIZED_FILLS: [u64; 3] = [1, 2, 3];
/// The task file (file 0 of every lowered program).
const TASK_FILE: FileId = FileId::from_u32(0);
/// Functions the native C runtime calls by itself (libgcov's lock around
/// writing coverage data): a task that defines one runs it natively.
const RUNTIME_CALLED: &[&str] = &["pthread_mutex_lock", "pthread_mutex_unlock"];

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
    /// Lines left out of the comparison, and why.
    lines_not_compared: Option<String>,
    /// Runs whose interpreter result was that of an earlier vector.
    reused: usize,
    /// Runs that ended by a fault (lines of the faulting function not
    /// compared).
    fault_runs: usize,
    /// (interp runs, native runs + gcov) time.
    interp_time: Duration,
    native_time: Duration,
}

#[test]
fn interpreter_agrees_with_gcc() {
    let Some(corpus) = support::corpus("interpreter_agrees_with_gcc") else { return };
    let started = Instant::now();
    let reports: Vec<ProgramReport> = support::map_corpus(&corpus, check_program);

    // The table, the exclusions, the disagreements, the summary.
    println!(
        "{:<52} {:>5} {:>4} {:>5} {:>4} {:>4} {:>8} {:>8}",
        "program", "dm", "runs", "agree", "excl", "DIS", "interp", "native"
    );
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
        .flat_map(|r| r.excluded.iter().map(move |(run, reason)| format!("{} {run}: {reason}", r.name)))
        .collect();
    for r in &reports {
        for (_, reason) in &r.excluded {
            *by_reason.entry(reason_class(reason)).or_default() += 1;
        }
    }
    for r in &reports {
        if let Some(note) = &r.lines_not_compared {
            println!("{}: {note}", r.name);
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
    let reused: usize = reports.iter().map(|r| r.reused).sum();
    let fault_runs: usize = reports.iter().map(|r| r.fault_runs).sum();
    println!(
        "notes: {reused} interpreter results of long runs reused for a vector that starts with the same \
         consumed inputs; {fault_runs} runs ended by a fault (SIGSEGV/SIGFPE), the lines of the faulting \
         function not compared"
    );
    println!(
        "differential summary: {} programs, {runs} runs, {agreeing} of {compared} compared runs agree ({:.1}%), \
         {excluded_count} excluded ({reasons}); {:.1}s on {} threads",
        reports.len(),
        if compared == 0 { 100.0 } else { 100.0 * agreeing as f64 / compared as f64 },
        started.elapsed().as_secs_f64(),
        support::corpus_workers(),
    );
    assert!(failures.is_empty(), "{} disagreements or failures (listed above)", failures.len());
    assert_eq!(agreeing, compared);
}

/// The programs of `tests/differential/`, each under both data models:
/// every run is compared (none excluded) and agrees. Under LP64 their
/// pointers lose their upper half in an `unsigned int` and fault natively;
/// the interpreter, whose addresses are shaped like a native process's,
/// must fault there too rather than reach `reach_error`.
#[test]
fn own_programs_agree_with_gcc() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/differential")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no programs in {}", dir.display());
    let programs: Vec<CorpusProgram> = files
        .iter()
        .flat_map(|path| {
            let name = path.file_name().expect("name").to_string_lossy().into_owned();
            [walkdown_ir::DataModel::LP64, walkdown_ir::DataModel::ILP32].map(|data_model| CorpusProgram {
                path: path.clone(),
                data_model,
                name: format!("{name} {data_model}"),
            })
        })
        .collect();
    let mut faults = 0;
    for r in support::map_corpus(&programs, check_program) {
        assert_eq!(r.failure, None, "{}", r.name);
        assert!(r.disagreements.is_empty(), "{}: {:?}", r.name, r.disagreements);
        assert!(r.excluded.is_empty(), "{}: {:?}", r.name, r.excluded);
        assert_eq!(r.agreeing, r.runs, "{}", r.name);
        if r.data_model == "LP64" {
            faults += r.fault_runs;
        }
    }
    assert!(faults > 0, "no LP64 run faulted: the pointers kept their upper half");
}

/// The reason without its run-specific details, for the summary.
fn reason_class(reason: &str) -> String {
    reason.split(':').next().unwrap_or(reason).to_string()
}

fn check_program(program: &CorpusProgram) -> ProgramReport {
    let mut report =
        ProgramReport { name: program.name.clone(), data_model: program.data_model.to_string(), ..Default::default() };
    let settings = FrontendSettings { data_model: program.data_model, ..Default::default() };
    let ir = match compile_c(&program.path, &settings) {
        Ok(p) => p,
        Err(e) => {
            report.failure = Some(format!("frontend: {e}"));
            return report;
        }
    };
    let goals = Goals::compute(&ir);
    let interp = match Interpreter::new(&ir, &goals) {
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
    let (runtime_lines, why) = runtime_called_lines(&ir);
    if !runtime_lines.is_empty() {
        report.lines_not_compared = Some(format!("lines {} not compared: {why}", line_ranges(&runtime_lines)));
    }
    let limits = RunLimits { timeout: NATIVE_TIMEOUT, memory_limit_mb: Some(NATIVE_MEMORY_MB), ..RunLimits::default() };
    let mut filled: Vec<Interpreter> = Vec::new();
    let mut earlier: Vec<(u64, Consumed, RunResult)> = Vec::new();
    let mut long_native: Vec<(Consumed, NativeRun, GcovCoverage)> = Vec::new();
    for (index, vector) in support::input_vectors(&program.name, VECTORS).iter().enumerate() {
        let run_name = format!("#{index} ({})", describe(vector));
        report.runs += 1;
        // Natively first: a native time-out sets the interpreter's budget.
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
        let max_steps = if native.outcome == NativeOutcome::Timeout { STEPS_IF_TIMEOUT } else { MAX_STEPS };
        let options = RunOptions {
            limits: ExecLimits { max_steps, max_memory: INTERP_MEMORY, ..ExecLimits::default() },
            record_lines: true,
        };
        // The interpreter is deterministic: a vector that starts with the
        // inputs an earlier run consumed (and, if that run ran out of them,
        // has no more) gives the same run. Long runs are not repeated
        // (loops-crafted-1/Mono1_1-1.c reads no input and runs 3*10^8
        // steps); the others are.
        let result = match earlier.iter().find(|(steps, done, _)| *steps == max_steps && same_run(done, vector)) {
            Some((_, _, r)) => {
                report.reused += 1;
                r.clone()
            }
            None => {
                let t = Instant::now();
                let r = interp.run(vector, &options);
                report.interp_time += t.elapsed();
                if r.steps >= REUSE_STEPS {
                    earlier.push((max_steps, Consumed::of(&r, vector), r.clone()));
                }
                r
            }
        };
        // A run that jumps over more loop iterations than a native run gets
        // through in hours (`loop-simple/deep-nested.c`: nested loops of
        // 2^32 iterations each, at least 2^128 steps) cannot be compared
        // natively (report.json says so of such tests); the fast-forward
        // test checks the same loops with small bounds.
        if native.outcome == NativeOutcome::Timeout
            && result.steps as f64 + result.skipped_steps as f64 > NOT_NATIVE_STEPS
            && !matches!(result.outcome, Outcome::StepLimit | Outcome::TimeLimit)
        {
            report.excluded.push((
                run_name,
                format!("not replayable natively: {:.1e} steps jumped over", result.skipped_steps as f64),
            ));
            continue;
        }
        // The interpreter's fast-forwarding jumps over loop iterations the
        // native run had no time for (`bitvector-loops/overflow_1-2.c`:
        // 2^31 of them, 2 to 3 s natively): the native run gets the time
        // it needs, once per distinct run. So does a run the interpreter
        // ended within its few steps while the native one timed out: on a
        // machine busy with other work, a short run can miss 500 ms
        // (`loop-invgen/down.i` with no input did, under a load of 14); a
        // native run that really does not end still times out then.
        let (native, coverage) = if native.outcome == NativeOutcome::Timeout
            && !matches!(result.outcome, Outcome::StepLimit | Outcome::TimeLimit)
        {
            match long_native.iter().find(|(done, _, _)| same_run(done, vector)) {
                Some((_, run, cov)) => (run.clone(), cov.clone()),
                None => {
                    let long = RunLimits {
                        timeout: FAST_FORWARDED_NATIVE_TIMEOUT,
                        memory_limit_mb: Some(NATIVE_MEMORY_MB),
                        ..RunLimits::default()
                    };
                    let t = Instant::now();
                    let again = build.reset_coverage().and_then(|()| build.run(vector, &long)).and_then(|run| {
                        let coverage = build.coverage()?;
                        Ok((run, coverage))
                    });
                    report.native_time += t.elapsed();
                    match again {
                        Ok((run, cov)) => {
                            long_native.push((Consumed::of(&result, vector), run.clone(), cov.clone()));
                            (run, cov)
                        }
                        Err(e) => {
                            report.disagreements.push(format!("{run_name}: long native run failed: {e}"));
                            continue;
                        }
                    }
                }
            }
        } else {
            (native, coverage)
        };
        // A fault (SIGSEGV, SIGFPE) ends the function natively without
        // leaving it, which gcov's counts, partly derived from flow
        // conservation, do not expect: its lines are not compared.
        let mut skipped = runtime_lines.clone();
        if let Outcome::Error { kind, func, .. } = &result.outcome {
            let segv = native.outcome == NativeOutcome::Signal(SIGSEGV);
            if matches!(kind, CheckKind::NullDeref | CheckKind::DivByZero | CheckKind::Overflow)
                || (*kind == CheckKind::OutOfBounds && segv)
            {
                skipped.extend(function_lines(&ir, &[*func]));
                report.fault_runs += 1;
            }
        }
        let verdict = compare(&result, &native, &coverage, &skipped);
        let verdict = match verdict {
            Verdict::Disagree(what) => {
                // A run whose result depends on the contents of
                // uninitialized memory cannot be compared (natively they
                // are whatever the stack and heap held before).
                if filled.is_empty() {
                    filled = UNINITIALIZED_FILLS
                        .iter()
                        .map(|&seed| {
                            let mut i = interp.clone();
                            i.set_uninitialized_fill(seed);
                            i
                        })
                        .collect();
                }
                let reference = observable(&result, &skipped);
                match filled
                    .iter()
                    .zip(UNINITIALIZED_FILLS)
                    .find(|(i, _)| observable(&i.run(vector, &options), &skipped) != reference)
                {
                    Some((_, seed)) => Verdict::Excluded(format!(
                        "uninitialized read: the interpreter's result changes when fresh stack and heap \
                         memory holds pattern {seed} instead of zeros ({what})"
                    )),
                    None => Verdict::Disagree(what),
                }
            }
            v => v,
        };
        match verdict {
            Verdict::Agree => report.agreeing += 1,
            Verdict::Excluded(reason) => report.excluded.push((run_name, reason)),
            Verdict::Disagree(what) => report.disagreements.push(format!("{run_name}: {what}")),
        }
    }
    report
}

/// What the interpreter observed of a run, for telling whether it depends
/// on uninitialized memory.
fn observable(r: &RunResult, skipped: &BTreeSet<u32>) -> (String, u64, Vec<u32>) {
    let outcome = match &r.outcome {
        Outcome::Error { kind, loc, .. } => format!("{kind}@{}", loc.line),
        o => format!("{o:?}"),
    };
    let ran = r
        .line_counts
        .iter()
        .filter(|lc| lc.file == TASK_FILE && lc.count > 0 && !skipped.contains(&lc.line))
        .map(|lc| lc.line)
        .collect();
    (outcome, r.nondet_calls, ran)
}

/// The inputs a run consumed, to recognise a vector that gives the same
/// run.
struct Consumed {
    /// The values read.
    prefix: Vec<InputValue>,
    /// Whether the run asked for more than the vector held.
    exhausted: bool,
}

impl Consumed {
    fn of(r: &RunResult, vector: &TestVector) -> Consumed {
        let n = (r.nondet_calls as usize).min(vector.values.len());
        Consumed { prefix: vector.values[..n].to_vec(), exhausted: r.inputs_exhausted }
    }
}

/// Whether `vector` makes the interpreter repeat the run that consumed
/// `done` (values compared bit for bit: `-0.0` is not `0.0`).
fn same_run(done: &Consumed, vector: &TestVector) -> bool {
    let n = done.prefix.len();
    let fits = if done.exhausted { vector.values.len() == n } else { vector.values.len() >= n };
    fits && done.prefix.iter().zip(&vector.values).all(|(a, b)| match (a, b) {
        (InputValue::Int(x), InputValue::Int(y)) => x == y,
        (InputValue::Float(x), InputValue::Float(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    })
}

/// The lines of the task file that hold code of `funcs` or of the
/// functions they call directly, transitively.
fn function_lines(ir: &walkdown_ir::Program, funcs: &[walkdown_ir::FuncId]) -> BTreeSet<u32> {
    let mut todo = funcs.to_vec();
    let mut seen: BTreeSet<walkdown_ir::FuncId> = todo.iter().copied().collect();
    let mut lines = BTreeSet::new();
    while let Some(f) = todo.pop() {
        let Some(body) = &ir.funcs[f].body else { continue };
        let mut add = |loc: walkdown_ir::Loc| {
            if loc.file == TASK_FILE && loc.line > 0 {
                lines.insert(loc.line);
            }
        };
        add(ir.funcs[f].loc);
        for (_, block) in body.blocks.iter() {
            add(block.term_loc);
            for &inst in &block.insts {
                let data = &body.insts[inst];
                add(data.loc);
                if let walkdown_ir::InstKind::Call { callee: walkdown_ir::Callee::Direct(g), .. } = data.kind {
                    if ir.funcs[g].body.is_some() && seen.insert(g) {
                        todo.push(g);
                    }
                }
            }
        }
    }
    lines
}

/// Lines of the functions the task defines under a name the C runtime
/// itself calls natively, and of everything they call. Such a function
/// (`pthread_mutex_lock` in the ddv-machzwd tasks) runs natively when
/// libgcov's `__gcov_dump` takes its lock, which no C statement of the
/// task asked for (the name is reserved to the implementation, so C leaves
/// the behaviour undefined).
fn runtime_called_lines(ir: &walkdown_ir::Program) -> (BTreeSet<u32>, String) {
    let roots: Vec<walkdown_ir::FuncId> = ir
        .funcs
        .iter()
        .filter(|(_, f)| f.body.is_some() && RUNTIME_CALLED.contains(&f.name.as_str()))
        .map(|(id, _)| id)
        .collect();
    let names: Vec<&str> = roots.iter().map(|&f| ir.funcs[f].name.as_str()).collect();
    let why = format!(
        "the task defines {} (names reserved to the C implementation), which libgcov calls natively \
         when it writes the coverage data",
        names.join(" and ")
    );
    (function_lines(ir, &roots), why)
}

/// `1-3, 7` for {1, 2, 3, 7}.
fn line_ranges(lines: &BTreeSet<u32>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = lines.iter().copied().peekable();
    while let Some(start) = iter.next() {
        let mut end = start;
        while iter.peek() == Some(&(end + 1)) {
            end = iter.next().unwrap();
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
    }
    parts.join(", ")
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
        Outcome::StepLimit | Outcome::TimeLimit => Expected::Outcome(NativeOutcome::Timeout),
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

fn compare(result: &RunResult, native: &NativeRun, coverage: &GcovCoverage, skipped: &BTreeSet<u32>) -> Verdict {
    let error_line = || match &result.outcome {
        Outcome::Error { loc, .. } => loc.line,
        _ => 0,
    };
    let out_of_bounds = matches!(result.outcome, Outcome::Error { kind: CheckKind::OutOfBounds, .. });
    let expected = match expected_native(&result.outcome, error_line) {
        // Both fault: compared as a null dereference is.
        Err(_) if out_of_bounds && native.outcome == NativeOutcome::Signal(SIGSEGV) => {
            Expected::Outcome(NativeOutcome::Signal(SIGSEGV))
        }
        Ok(e) => e,
        Err(reason) => return Verdict::Excluded(reason),
    };
    let mut problems = Vec::new();
    match expected {
        Expected::Outcome(NativeOutcome::Timeout) => {
            if native.outcome != NativeOutcome::Timeout {
                return Verdict::Excluded(format!(
                    "nonterminating within budget: the interpreter stopped after {} steps; natively {:?} after {} ms",
                    result.steps,
                    native.outcome,
                    native.elapsed.as_millis()
                ));
            }
            // Both stopped, at different points: nothing more to compare.
            return Verdict::Agree;
        }
        Expected::Outcome(o) => {
            if native.outcome != o || native.assume_failed {
                problems.push(format!("outcome: native {:?}", native.outcome));
            }
        }
        Expected::AssumeFailed => {
            if !(native.assume_failed && native.outcome == NativeOutcome::Exit(0)) {
                problems.push(format!("outcome: native {:?} (assume_failed {})", native.outcome, native.assume_failed));
            }
        }
        Expected::Unmodelled(what) => {
            problems.push(format!("outcome: interp {what}, native {:?}", native.outcome));
        }
    }
    if !native.harness_reported {
        problems.push("the harness wrote no report".into());
    }
    if result.nondet_calls != native.nondet_calls {
        problems.push(format!("inputs consumed: interp {}, native {}", result.nondet_calls, native.nondet_calls));
    }
    if result.inputs_exhausted != native.inputs_exhausted {
        problems
            .push(format!("inputs exhausted: interp {}, native {}", result.inputs_exhausted, native.inputs_exhausted));
    }
    let mut line_diffs = Vec::new();
    for lc in result.line_counts.iter().filter(|lc| lc.file == TASK_FILE && !skipped.contains(&lc.line)) {
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
        Verdict::Disagree(format!("[interp {}] {}", short_outcome(&result.outcome), problems.join("; ")))
    }
}

fn short_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Error { kind, loc, .. } => format!("{kind} at line {}", loc.line),
        other => format!("{other:?}"),
    }
}
