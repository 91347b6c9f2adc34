//! `check`: every possible runtime error of a finished run's program (or,
//! in unit mode, of the unit's functions) settled one by one, from the
//! run's [`Outcome`] in memory. Each error goal is *confirmed* when a test
//! reaches it and the test's native run (gcc, then gcc with ASan and UBSan
//! when a plain run goes through silently; through `walkdown-native`) ends
//! the same way, *refuted* when an engine proved it unreachable (the proof
//! is named), *excluded* when (in unit mode, reporting the API's contract)
//! the test that reaches it breaks a clause of the contract, and *unknown*
//! otherwise (a bound, the budget, or a native run that did not show the
//! error).

use std::path::{Path, PathBuf};
use std::time::Duration;

use walkdown_formats::report::{CheckEntry, GoalEntry, Report, UnitEntry};
use walkdown_ir::DataModel;
use walkdown_native::unit::{UnitBuild, UnitRun};
use walkdown_native::{BuildSettings, NativeBuild, NativeOutcome, RunLimits};

use crate::error::{DriverError, Step};
use crate::outcome::Outcome;

/// The SARIF log of the verdicts, in OUT.
pub const CHECK_SARIF: &str = "check.sarif";

/// How a native run ended: a signal, an exit code, what it printed.
struct NativeEnd {
    signal: Option<i32>,
    code: Option<i32>,
    said: String,
    words: String,
}

impl NativeEnd {
    fn new(signal: Option<i32>, code: Option<i32>, said: String) -> NativeEnd {
        NativeEnd { signal, code, words: describe_end(signal, code, &said), said }
    }
}

/// Whether a native end shows an error of `kind` (a `CheckKind` name).
fn shows(kind: &str, end: &NativeEnd) -> bool {
    let said = end.said.as_str();
    let sig = end.signal;
    match kind {
        // A program's own reach_error usually fails an assertion naming it.
        "reach_error" => end.code == Some(walkdown_unit::tests_c::REACH_ERROR_EXIT) || said.contains("reach_error"),
        "assertion" => sig == Some(libc::SIGABRT) || said.contains("Assertion"),
        "div_by_zero" => sig == Some(libc::SIGFPE) || said.contains("division by zero"),
        "overflow" => {
            sig == Some(libc::SIGFPE)
                || said.contains("overflow")
                || said.contains("cannot be represented")
                || said.contains("negation of")
        }
        "null_deref" => {
            sig == Some(libc::SIGSEGV)
                || said.contains("SEGV on unknown address 0x000000000")
                || said.contains("null pointer")
        }
        "out_of_bounds" => {
            sig == Some(libc::SIGSEGV)
                || said.contains("buffer-overflow")
                || said.contains("out of bounds")
                || said.contains("SEGV")
        }
        "use_after_free" => said.contains("use-after-free"),
        "double_free" => sig == Some(libc::SIGABRT) || said.contains("double-free") || said.contains("double free"),
        "invalid_free" => sig == Some(libc::SIGABRT) || said.contains("bad-free") || said.contains("invalid"),
        _ => false,
    }
}

fn describe_end(signal: Option<i32>, code: Option<i32>, said: &str) -> String {
    let line = said
        .lines()
        .find(|l| l.contains("runtime error:") || l.starts_with("SUMMARY:") || l.contains("ERROR: AddressSanitizer"))
        .map(|l| format!(": {}", l.trim()))
        .unwrap_or_default();
    match (signal, code) {
        (Some(s), _) => format!("signal {s}{line}"),
        (None, Some(c)) if c == walkdown_unit::tests_c::REACH_ERROR_EXIT => "reach_error".into(),
        (None, Some(c)) => format!("exit {c}{line}"),
        (None, None) => "timeout".into(),
    }
}

/// The unit tests, built plainly and with sanitizers (each on first use),
/// run one test a process.
struct UnitRunner {
    source: PathBuf,
    data_model: DataModel,
    plain: Option<Option<UnitBuild>>,
    sanitized: Option<Option<UnitBuild>>,
}

impl UnitRunner {
    fn end(build: &UnitBuild, test: &str) -> NativeEnd {
        match build.run(test) {
            Ok(UnitRun { signal, code, said }) => NativeEnd::new(signal, code, said),
            Err(e) => NativeEnd { signal: None, code: None, said: String::new(), words: format!("not run: {e}") },
        }
    }

    /// The plain run, then the sanitized one when the plain one does not
    /// show `kind`.
    fn confirm(&mut self, test: &str, kind: &str) -> (bool, String) {
        let (source, dm) = (&self.source, self.data_model);
        let plain = self.plain.get_or_insert_with(|| UnitBuild::compile(source, dm, false).ok());
        let Some(plain) = plain else {
            return (false, "unit_tests.c does not compile with gcc".into());
        };
        let end = Self::end(plain, test);
        if shows(kind, &end) {
            return (true, format!("native run: {}", end.words));
        }
        match self.sanitized.get_or_insert_with(|| UnitBuild::compile(source, dm, true).ok()) {
            Some(exe) => {
                let s = Self::end(exe, test);
                (shows(kind, &s), format!("native run: {}; with ASan+UBSan: {}", end.words, s.words))
            }
            None => (false, format!("native run: {} (no sanitizer build)", end.words)),
        }
    }
}

/// The native builds of a whole program (plain, sanitized), each made on
/// first use.
struct WholeRunner<'a> {
    units: &'a [walkdown_ir::units::Unit],
    data_model: DataModel,
    environment: Option<walkdown_ir::env::Environment>,
    builds: [Option<Result<NativeBuild, String>>; 2],
}

/// Settles every error goal of `outcome`'s report.
pub fn settle(outcome: &Outcome) -> Vec<CheckEntry> {
    let report = &outcome.report;
    let data_model = outcome.program.data_model;
    let mut unit = report.unit.as_ref().map(|u| UnitRunner {
        source: PathBuf::from(&u.unit_tests),
        data_model,
        plain: None,
        sanitized: None,
    });
    let environment = outcome.program.environment.clone();
    let mut whole = WholeRunner { units: &outcome.units, data_model, environment, builds: [None, None] };
    let mut entries = Vec::new();
    for g in report.goals.iter().filter(|g| g.kind.starts_with("error")) {
        // The harness's own code is not the program's, and functions the
        // entry does not call are not the unit's.
        if report.unit.as_ref().is_some_and(|u| !u.functions.contains(&g.function)) {
            continue;
        }
        settle_goal(report, g, &outcome.suite_dir, &mut unit, &mut whole, &mut entries);
    }
    entries
}

/// Settles one error goal: one entry, or one per error a covered site has.
fn settle_goal(
    report: &Report,
    g: &GoalEntry,
    suite: &Path,
    unit: &mut Option<UnitRunner>,
    whole: &mut WholeRunner<'_>,
    entries: &mut Vec<CheckEntry>,
) {
    // In unit mode, locations name the program, whose lines the harness
    // program keeps.
    let location = match &report.unit {
        Some(u) if !u.program.is_empty() => g.location.replacen(&u.harness_program, &u.program, 1),
        _ => g.location.clone(),
    };
    let mut settle = |verdict: &str, evidence: String, kind: String| {
        let (goal, function, location) = (g.id.clone(), g.function.clone(), location.clone());
        entries.push(CheckEntry { goal, kind, location, function, verdict: verdict.into(), evidence });
    };
    let proof = || g.proved_by.clone().unwrap_or_default();
    match g.status.as_str() {
        "covered" => {
            for (kind, test) in errors_at(report, g) {
                if let Some(why) = excluded(report.unit.as_ref(), &test) {
                    settle("excluded", why, format!("error {kind}"));
                    continue;
                }
                let (ok, how) = match (unit.as_mut(), &report.unit) {
                    (Some(r), Some(u)) => confirm_unit(r, u, &test, &kind),
                    _ => whole.confirm(&suite.join(&test), &kind),
                };
                match ok {
                    true => settle("confirmed", how, format!("error {kind}")),
                    false => settle(
                        "unknown",
                        format!("reached in the interpreter, but the native run did not show it: {how}"),
                        format!("error {kind}"),
                    ),
                }
            }
        }
        "unreachable" => settle("refuted", format!("proved unreachable by {}", proof()), g.kind.clone()),
        "infeasible" => {
            settle("unknown", format!("no execution within the bound reaches it ({})", proof()), g.kind.clone())
        }
        _ => settle("unknown", open_words(g), g.kind.clone()),
    }
}

/// Why an error its unit test reaches does not count: the test breaks
/// the API's contract (report mode), so no caller that keeps it meets the
/// error.
fn excluded(unit: Option<&UnitEntry>, test: &str) -> Option<String> {
    let t = unit?.tests.iter().find(|t| t.file == test)?;
    (!t.broken.is_empty()).then(|| {
        format!(
            "needs a precondition the API's contract excludes: {} in unit_tests.c ({test}) breaks {}",
            t.function,
            t.broken.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
        )
    })
}

/// One site may fail in several ways (a null and an out-of-bounds
/// access): each error the run found there, with its test.
fn errors_at(report: &Report, g: &GoalEntry) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> =
        report.errors.iter().filter(|e| e.location == g.location).map(|e| (e.kind.clone(), e.test.clone())).collect();
    if found.is_empty() {
        found.push((g.kind.trim_start_matches("error ").to_string(), g.test.clone().unwrap_or_default()));
    }
    found
}

/// Why an open goal stays unknown.
fn open_words(g: &GoalEntry) -> String {
    if g.open_reasons.is_empty() {
        "no test reached it and no proof within the budget".into()
    } else {
        format!("no test reached it; {}", g.open_reasons.join("; "))
    }
}

/// Confirms a unit's error by its test function's native run.
fn confirm_unit(r: &mut UnitRunner, u: &UnitEntry, test: &str, kind: &str) -> (bool, String) {
    let function = u.tests.iter().find(|t| t.file == test).map(|t| t.function.clone()).unwrap_or_default();
    let (ok, how) = r.confirm(&function, kind);
    (ok, format!("{function} in unit_tests.c ({test}): {how}"))
}

impl WholeRunner<'_> {
    /// Confirms an error of a whole program by its test's native run.
    fn confirm(&mut self, test: &Path, kind: &str) -> (bool, String) {
        let vector = match walkdown_formats::read_testcase(test) {
            Ok(case) => case.vector,
            Err(e) => return (false, format!("cannot read {}: {e}", test.display())),
        };
        let mut said_all = Vec::new();
        for (i, sanitize) in [false, true].into_iter().enumerate() {
            let (units, data_model, environment) = (self.units, self.data_model, self.environment.clone());
            let build = self.builds[i].get_or_insert_with(|| {
                let settings = BuildSettings { debug: true, sanitize, environment, ..BuildSettings::default() };
                NativeBuild::compile_units(units, data_model, &settings).map_err(|e| e.to_string())
            });
            let end = match build {
                Ok(b) => native_end(b, &vector, sanitize),
                Err(e) => Err(format!("no build: {e}")),
            };
            let end = match end {
                Ok(end) => end,
                Err(words) => {
                    said_all.push(words);
                    continue;
                }
            };
            let label = if sanitize { "with ASan+UBSan" } else { "native run" };
            said_all.push(format!("{label}: {}", end.words));
            if shows(kind, &end) {
                return (
                    true,
                    format!("{}: {}", test.file_name().unwrap_or_default().to_string_lossy(), said_all.join("; ")),
                );
            }
        }
        (false, said_all.join("; "))
    }
}

/// One native run of `vector` on `build`, as an end `shows` reads.
fn native_end(
    build: &NativeBuild,
    vector: &walkdown_ir::testvec::TestVector,
    sanitize: bool,
) -> Result<NativeEnd, String> {
    let limits = RunLimits {
        timeout: Duration::from_secs(5),
        capture_stderr: true,
        memory_limit_mb: if sanitize { None } else { RunLimits::default().memory_limit_mb },
        ..RunLimits::default()
    };
    let run = build.run(vector, &limits).map_err(|e| format!("not run: {e}"))?;
    let (signal, code) = match run.outcome {
        NativeOutcome::Signal(s) => (Some(s), None),
        NativeOutcome::Abort | NativeOutcome::AssertionFailure => (Some(libc::SIGABRT), None),
        NativeOutcome::Exit(c) => (None, Some(c)),
        NativeOutcome::ReachError => (None, Some(walkdown_unit::tests_c::REACH_ERROR_EXIT)),
        NativeOutcome::Timeout => (None, None),
    };
    let mut end = NativeEnd::new(signal, code, run.stderr.clone().unwrap_or_default());
    // A run that differs because the sandbox stopped something says so.
    if let Some(denied) = run.denied_words() {
        end.words = format!("{}; {denied}", end.words);
    }
    Ok(end)
}

/// Adds `entries` to the outcome's report and writes it again
/// (`report.json`), with the verdicts as SARIF (`check.sarif`, listed in
/// the manifest so that the next run into OUT removes it).
pub fn record(outcome: &mut Outcome, entries: Vec<CheckEntry>) -> Result<(), DriverError> {
    let fail = |e: anyhow::Error| DriverError::step(Step::Check, e);
    let out = &outcome.out;
    outcome.report.check = entries;
    walkdown_formats::report::write_report(&out.join(crate::run::REPORT_FILE), &outcome.report)
        .map_err(|e| fail(e.into()))?;
    let listed = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join(crate::outdir::MANIFEST_FILE))
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{CHECK_SARIF}\n").as_bytes()));
    listed
        .map_err(|e| fail(anyhow::Error::new(e).context(format!("cannot list {CHECK_SARIF} in {}", out.display()))))?;
    walkdown_formats::sarif::write_check_sarif(&out.join(CHECK_SARIF), &outcome.report).map_err(|e| fail(e.into()))?;
    Ok(())
}
