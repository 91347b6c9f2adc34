//! `walkdown check`: every possible runtime error of a program (or, with
//! `--entry`, of one function) settled one by one. `gen` runs first (the
//! static pass proves what it can, the engines look for tests); then each
//! error goal is *confirmed* when a test reaches it and the test's native
//! run (gcc, then gcc with ASan and UBSan when a plain run goes through
//! silently) ends the same way, *refuted* when an engine proved it
//! unreachable (the proof is named), and *unknown* otherwise (a bound, the
//! budget, or a native run that did not show the error).

use super::gen::GenArgs;
use anyhow::{Context, Result};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use walkdown_formats::report::{CheckEntry, Report};
use walkdown_native::{BuildSettings, NativeBuild, NativeOutcome, RunLimits};

/// The SARIF log of the verdicts, in OUT.
pub const CHECK_SARIF: &str = "check.sarif";

/// How a native run ended: a signal, an exit code, what it printed.
struct NativeEnd {
    signal: Option<i32>,
    code: Option<i32>,
    said: String,
    words: String,
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
            sig == Some(libc::SIGFPE) || said.contains("overflow") || said.contains("cannot be represented") || said.contains("negation of")
        }
        "null_deref" => sig == Some(libc::SIGSEGV) || said.contains("SEGV on unknown address 0x000000000") || said.contains("null pointer"),
        "out_of_bounds" => sig == Some(libc::SIGSEGV) || said.contains("buffer-overflow") || said.contains("out of bounds") || said.contains("SEGV"),
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

/// The unit tests, built plainly and with sanitizers (lazily), run one
/// test a process.
struct UnitRunner {
    source: PathBuf,
    /// `-m32` or `-m64`, as the program's data model.
    arch: &'static str,
    dir: tempfile::TempDir,
    plain: Option<PathBuf>,
    sanitized: Option<Option<PathBuf>>,
}

impl UnitRunner {
    fn build(&self, name: &str, flags: &[&str]) -> Option<PathBuf> {
        let exe = self.dir.path().join(name);
        let ok = Command::new("gcc")
            .args(["-g", "-w", "-O0", self.arch])
            .args(flags)
            .arg(&self.source)
            .arg("-o")
            .arg(&exe)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        ok.then_some(exe)
    }
    fn run(exe: &Path, test: &str) -> NativeEnd {
        match Command::new(exe).arg(test).output() {
            Ok(o) => {
                let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
                let (signal, code) = (o.status.signal(), o.status.code());
                NativeEnd { signal, code, words: describe_end(signal, code, &said), said }
            }
            Err(e) => NativeEnd { signal: None, code: None, said: String::new(), words: format!("not run: {e}") },
        }
    }
    /// The plain run, then the sanitized one when the plain one does not
    /// show `kind`.
    fn confirm(&mut self, test: &str, kind: &str) -> (bool, String) {
        let Some(plain) = &self.plain else { return (false, "unit_tests.c does not compile with gcc".into()) };
        let end = Self::run(plain, test);
        if shows(kind, &end) {
            return (true, format!("native run: {}", end.words));
        }
        if self.sanitized.is_none() {
            self.sanitized = Some(self.build("unit_tests_asan", walkdown_native::compile::SANITIZE_FLAGS));
        }
        match self.sanitized.as_ref().and_then(|s| s.as_ref()) {
            Some(exe) => {
                let s = Self::run(exe, test);
                let ok = shows(kind, &s);
                (ok, format!("native run: {}; with ASan+UBSan: {}", end.words, s.words))
            }
            None => (false, format!("native run: {} (no sanitizer build)", end.words)),
        }
    }
}

/// Runs the command: exit code 1 when something is confirmed.
pub fn check(args: &GenArgs) -> Result<i32> {
    let code = super::gen::gen(args)?;
    if code == 3 {
        eprintln!("walkdown: check: a proof conflict (see above); verdicts below may be wrong");
    }
    let out = args.out_dir();
    let report_path = out.join("report.json");
    let mut report: Report = walkdown_formats::report::read_report(&report_path)?;
    let arch = if report.data_model == "ILP32" { "-m32" } else { "-m64" };
    let mut runner = match &report.unit {
        Some(u) => {
            let mut r = UnitRunner {
                source: PathBuf::from(&u.unit_tests),
                arch,
                dir: tempfile::tempdir().context("cannot make a scratch directory")?,
                plain: None,
                sanitized: None,
            };
            r.plain = r.build("unit_tests", &[]);
            Some(r)
        }
        None => None,
    };
    let data_model = if report.data_model == "ILP32" { walkdown_ir::DataModel::ILP32 } else { walkdown_ir::DataModel::LP64 };
    let program = PathBuf::from(&report.program);
    let mut builds: [Option<Result<NativeBuild, String>>; 2] = [None, None];
    let suite = out.join("test-suite");
    let mut entries = Vec::new();
    for g in &report.goals {
        if !g.kind.starts_with("error") {
            continue;
        }
        // The harness's own code is not the program's.
        // and functions the entry does not call are not the unit's.
        if report.unit.as_ref().is_some_and(|u| !u.functions.contains(&g.function)) {
            continue;
        }
        // In unit mode, locations name the program, whose lines the
        // harness program keeps.
        let location = match &report.unit {
            Some(u) if !u.program.is_empty() => g.location.replacen(&u.harness_program, &u.program, 1),
            _ => g.location.clone(),
        };
        let mut settle = |verdict: &str, evidence: String, kind: String| {
            entries.push(CheckEntry {
                goal: g.id.clone(),
                kind,
                location: location.clone(),
                function: g.function.clone(),
                verdict: verdict.into(),
                evidence,
            });
        };
        match g.status.as_str() {
            "covered" => {
                // One site may fail in several ways (a null and an
                // out-of-bounds access): each error the run found there.
                let mut found: Vec<(String, String)> =
                    report.errors.iter().filter(|e| e.location == g.location).map(|e| (e.kind.clone(), e.test.clone())).collect();
                if found.is_empty() {
                    found.push((g.kind.trim_start_matches("error ").to_string(), g.test.clone().unwrap_or_default()));
                }
                for (kind, test) in found {
                    let (ok, how) = match (&mut runner, &report.unit) {
                        (Some(r), Some(u)) => {
                            let function = u.tests.iter().find(|t| t.file == test).map(|t| t.function.clone()).unwrap_or_default();
                            let (ok, how) = r.confirm(&function, &kind);
                            (ok, format!("{function} in unit_tests.c ({test}): {how}"))
                        }
                        _ => native_whole(&program, data_model, &suite.join(&test), &kind, &mut builds),
                    };
                    if ok {
                        settle("confirmed", how, format!("error {kind}"));
                    } else {
                        settle("unknown", format!("reached in the interpreter, but the native run did not show it: {how}"), format!("error {kind}"));
                    }
                }
            }
            "unreachable" => settle("refuted", format!("proved unreachable by {}", g.proved_by.clone().unwrap_or_default()), g.kind.clone()),
            "infeasible" => settle(
                "unknown",
                format!("no execution within the bound reaches it ({})", g.proved_by.clone().unwrap_or_default()),
                g.kind.clone(),
            ),
            _ => settle(
                "unknown",
                if g.open_reasons.is_empty() {
                    "no test reached it and no proof within the budget".into()
                } else {
                    format!("no test reached it; {}", g.open_reasons.join("; "))
                },
                g.kind.clone(),
            ),
        }
    }
    let count = |v: &str| entries.iter().filter(|e| e.verdict == v).count();
    println!(
        "check: {} possible runtime errors: {} confirmed, {} refuted, {} unknown",
        entries.len(),
        count("confirmed"),
        count("refuted"),
        count("unknown")
    );
    for e in &entries {
        println!("{:<9} {} {} in {} ({}): {}", e.verdict.to_uppercase(), e.kind, e.location, e.function, e.goal, e.evidence);
    }
    let confirmed = count("confirmed") > 0;
    report.check = entries;
    walkdown_formats::report::write_report(&report_path, &report)?;
    // Listed in gen's manifest, so the next run into OUT removes it.
    let listed = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join(super::outdir::MANIFEST_FILE))
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{CHECK_SARIF}\n").as_bytes()));
    listed.with_context(|| format!("cannot list {CHECK_SARIF} in {}", out.display()))?;
    let sarif = out.join(CHECK_SARIF);
    walkdown_formats::sarif::write_check_sarif(&sarif, &report)?;
    Ok(if confirmed { 1 } else { 0 })
}

/// Confirms an error of a whole program by its test's native run.
fn native_whole(
    program: &Path,
    data_model: walkdown_ir::DataModel,
    test: &Path,
    kind: &str,
    builds: &mut [Option<Result<NativeBuild, String>>; 2],
) -> (bool, String) {
    let vector = match walkdown_formats::read_testcase(test) {
        Ok(case) => case.vector,
        Err(e) => return (false, format!("cannot read {}: {e}", test.display())),
    };
    let mut said_all = Vec::new();
    for (i, sanitize) in [false, true].into_iter().enumerate() {
        let build = builds[i].get_or_insert_with(|| {
            let settings = BuildSettings { debug: true, sanitize, ..BuildSettings::default() };
            NativeBuild::compile(program, data_model, &settings).map_err(|e| e.to_string())
        });
        let build = match build {
            Ok(b) => b,
            Err(e) => {
                said_all.push(format!("no build: {e}"));
                continue;
            }
        };
        let limits = RunLimits {
            timeout: Duration::from_secs(5),
            capture_stderr: true,
            memory_limit_mb: if sanitize { None } else { RunLimits::default().memory_limit_mb },
            ..RunLimits::default()
        };
        let run = match build.run(&vector, &limits) {
            Ok(r) => r,
            Err(e) => {
                said_all.push(format!("not run: {e}"));
                continue;
            }
        };
        let (signal, code) = match run.outcome {
            NativeOutcome::Signal(s) => (Some(s), None),
            NativeOutcome::Abort | NativeOutcome::AssertionFailure => (Some(libc::SIGABRT), None),
            NativeOutcome::Exit(c) => (None, Some(c)),
            NativeOutcome::ReachError => (None, Some(walkdown_unit::tests_c::REACH_ERROR_EXIT)),
            NativeOutcome::Timeout => (None, None),
        };
        let said = run.stderr.unwrap_or_default();
        let end = NativeEnd { signal, code, words: describe_end(signal, code, &said), said };
        let label = if sanitize { "with ASan+UBSan" } else { "native run" };
        said_all.push(format!("{label}: {}", end.words));
        if shows(kind, &end) {
            return (true, format!("{}: {}", test.file_name().unwrap_or_default().to_string_lossy(), said_all.join("; ")));
        }
    }
    (false, said_all.join("; "))
}
