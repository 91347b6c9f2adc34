//! Running a natively built task on one test vector: the program runs in
//! the sandbox (`sandbox`: its own directory, nothing else writable, no
//! network, limits on processes, file size, open files and CPU time), in
//! its own process group under a time limit (SIGTERM first, so the harness
//! can save coverage, then SIGKILL), and the outcome combines the exit
//! status with what the harness reported, including what it was denied.

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use walkdown_ir::testvec::TestVector;

use crate::compile::NativeBuild;
use crate::harness::{
    input_file_text, HarnessReport, ReportedEnd, ENV_EXHAUSTED, ENV_INPUTS, ENV_MEMORY_LIMIT_MB, ENV_REPORT,
};
use crate::sandbox::{decode_status, denial_of_signal, Denial, Jail, Running};
use crate::NativeError;

/// What a `nondet` call does once the test vector is used up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExhaustedInputs {
    /// Return 0 and go on (the reference measurement's default).
    #[default]
    ReturnZero,
    /// End the run with exit status 1 (TestCov's behaviour).
    Exit,
}

/// Limits and choices for one run. The defaults are those of the reference
/// measurement (`measure.py`): 2 s per test, 2 s between SIGTERM and
/// SIGKILL, 4096 MiB of address space, 0 for missing inputs.
#[derive(Clone, Debug)]
pub struct RunLimits {
    /// Wall-clock time the program may run.
    pub timeout: Duration,
    /// How long a timed-out program may take to save coverage after
    /// SIGTERM before it is killed outright.
    pub kill_grace: Duration,
    /// Address-space limit in MiB; `None` for no limit.
    pub memory_limit_mb: Option<u64>,
    /// What a `nondet` call past the end of the vector does.
    pub on_exhausted: ExhaustedInputs,
    /// Keep the end of what the program writes to standard error (in
    /// [`NativeRun::stderr`]); otherwise it is discarded.
    pub capture_stderr: bool,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            timeout: Duration::from_secs(2),
            kill_grace: Duration::from_secs(2),
            memory_limit_mb: Some(4096),
            on_exhausted: ExhaustedInputs::ReturnZero,
            capture_stderr: false,
        }
    }
}

impl RunLimits {
    /// The default limits with another timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        RunLimits { timeout, ..RunLimits::default() }
    }
}

/// How a native run ended, most telling first: reaching the error beats
/// everything, a timeout beats the signal that ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeOutcome {
    /// The program exited with this status (also after a failed
    /// `__VERIFIER_assume`, which exits with 0).
    Exit(i32),
    /// `reach_error` (or `__VERIFIER_error`) was entered.
    ReachError,
    /// An `assert()` failed.
    AssertionFailure,
    /// The program aborted (`abort()`, e.g. in `assume_abort_if_not`).
    Abort,
    /// The program died of this signal (SIGSEGV, SIGFPE, ...).
    Signal(i32),
    /// The program ran past the time limit and was killed.
    Timeout,
}

impl NativeOutcome {
    /// The end in words, as `replay` prints it (`killed by signal 11
    /// (SIGSEGV)`).
    pub fn describe(&self) -> String {
        match self {
            NativeOutcome::Exit(code) => format!("exit {code}"),
            NativeOutcome::ReachError => "reach_error reached".into(),
            NativeOutcome::AssertionFailure => "assertion failed".into(),
            NativeOutcome::Abort => "abort (SIGABRT)".into(),
            NativeOutcome::Signal(sig) => format!("killed by signal {sig} ({})", signal_name(*sig)),
            NativeOutcome::Timeout => "timeout".into(),
        }
    }
}

/// The usual name of a fatal signal.
fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGFPE => "SIGFPE",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => "other",
    }
}

/// The result of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeRun {
    /// How the run ended.
    pub outcome: NativeOutcome,
    /// `nondet` calls executed, including those past the end of the vector.
    pub nondet_calls: u64,
    /// Some `nondet` call found no value left.
    pub inputs_exhausted: bool,
    /// `__VERIFIER_assume` was called with a false condition.
    pub assume_failed: bool,
    /// The harness wrote its report; false when the program was killed
    /// with SIGKILL or ended with `_exit`, so the counts above are unknown
    /// (reported as 0 / false).
    pub harness_reported: bool,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// The last 8 KiB of standard error, with [`RunLimits::capture_stderr`].
    pub stderr: Option<String>,
    /// What the run tried that the sandbox or a limit denied, in order.
    pub denied: Vec<Denial>,
    /// Whether it ran in the sandbox (see [`crate::sandbox`]).
    pub sandboxed: bool,
}

impl NativeRun {
    /// How the run ended, with what was denied it (`exit 0; the sandbox
    /// denied: write to /home/u/x denied (EROFS)`).
    pub fn describe(&self) -> String {
        let end = self.outcome.describe();
        match self.denied_words() {
            Some(denied) => format!("{end}; {denied}"),
            None => end,
        }
    }

    /// What was denied, in words (`the sandbox denied: ...`), if anything.
    pub fn denied_words(&self) -> Option<String> {
        if self.denied.is_empty() {
            return None;
        }
        let denied: Vec<String> = self.denied.iter().map(Denial::describe).collect();
        Some(format!("the sandbox denied: {}", denied.join(", ")))
    }

    /// Whether the end itself came from a limit (SIGXFSZ, SIGXCPU), so it
    /// shows no error of the program.
    pub fn ended_by_limit(&self) -> bool {
        matches!(self.outcome, NativeOutcome::Signal(s) if crate::sandbox::denial_of_signal(s).is_some())
    }
}

impl NativeBuild {
    /// Run the program on `vector`. Coverage accumulates in the build's
    /// gcov data across runs until [`NativeBuild::reset_coverage`].
    ///
    /// With an environment ([`BuildSettings::environment`](crate::BuildSettings)),
    /// the vector's prefix is decoded into arguments, standard input and
    /// files: the program gets the arguments on its command line, reads the
    /// input from a file, and runs in a directory of its own that holds the
    /// files; the harness gets the values after the prefix.
    pub fn run(&self, vector: &TestVector, limits: &RunLimits) -> Result<NativeRun, NativeError> {
        let id = self.run_counter.fetch_add(1, Ordering::Relaxed);
        let files = RunFiles::new(&self.run_dir, id);
        let result = self.run_in(vector, limits, &files);
        // Leftover files only cost space in a directory removed with the
        // build; failing the run for them would lose its result.
        files.remove();
        result
    }

    /// [`NativeBuild::run`] with the run's files named.
    fn run_in(&self, vector: &TestVector, limits: &RunLimits, files: &RunFiles) -> Result<NativeRun, NativeError> {
        let staged = self.stage(vector, files)?;
        let stderr = if limits.capture_stderr {
            Stdio::from(fs::File::create(&files.stderr).map_err(io(format!("creating {}", files.stderr.display())))?)
        } else {
            Stdio::null()
        };
        let gcov_dir = self.gcov_data_dir();
        let build_dir = self.run_dir.parent().unwrap_or(&self.run_dir);
        let jail = Jail {
            program: &self.executable,
            args: &staged.args,
            cwd: &files.cwd,
            visible: &[build_dir],
            writable: &[&files.report, &gcov_dir],
            // The program's environment has no variables in walkdown's
            // runs (env.c's getenv), so none natively either.
            clear_env: self.environment.is_some(),
            env: self.variables(limits, files),
            cpu_seconds: limits.timeout.as_secs() + 2,
        };
        let (mut command, sandboxed) = jail.command()?;
        command.stdin(staged.stdin).stdout(Stdio::null()).stderr(stderr);

        let started = Instant::now();
        let mut running = Running::spawn(command, sandboxed, &self.executable)?;
        let (status, timed_out) = running.wait(limits.timeout, limits.kill_grace)?;
        let elapsed = started.elapsed();

        let report = fs::read_to_string(&files.report).ok().and_then(|text| HarnessReport::parse(&text));
        let stderr = limits.capture_stderr.then(|| {
            let bytes = fs::read(&files.stderr).unwrap_or_default();
            String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(8192)..]).into_owned()
        });
        let harness_reported = report.is_some();
        let report = report.unwrap_or_default();
        let exited = report.end == Some(ReportedEnd::Exit);
        let (code, signal) = decode_status(status, sandboxed, exited);
        let mut denied = report.denied.clone();
        denied.extend(signal.and_then(denial_of_signal));
        Ok(NativeRun {
            outcome: classify(&report, code, signal, timed_out),
            nondet_calls: report.nondet_calls,
            inputs_exhausted: report.inputs_exhausted,
            assume_failed: report.assume_failed,
            harness_reported,
            elapsed,
            stderr,
            denied,
            sandboxed,
        })
    }

    /// Writes what the run reads (the harness's values; with an
    /// environment, its files in the run's directory and its standard
    /// input) and makes the directories and the report file the sandbox
    /// binds.
    fn stage(&self, vector: &TestVector, files: &RunFiles) -> Result<Staged, NativeError> {
        let env = self.environment.as_ref().map(|env| {
            let (inputs, own) = env.decode_lenient(&vector.values);
            (inputs, TestVector { values: own })
        });
        let own = env.as_ref().map_or_else(|| vector.clone(), |(_, own)| own.clone());
        fs::write(&files.inputs, input_file_text(&own)).map_err(io(format!("writing {}", files.inputs.display())))?;
        fs::write(&files.report, b"").map_err(io(format!("creating {}", files.report.display())))?;
        // Every run gets a directory of its own, sandboxed or not.
        fs::create_dir_all(&files.cwd).map_err(io(format!("creating {}", files.cwd.display())))?;
        let gcov_dir = self.gcov_data_dir();
        fs::create_dir_all(&gcov_dir).map_err(io(format!("creating {}", gcov_dir.display())))?;
        let Some((inputs, _)) = env else { return Ok(Staged { stdin: Stdio::null(), args: Vec::new() }) };
        for (name, data) in &inputs.files {
            let path = files.cwd.join(name);
            fs::write(&path, data).map_err(io(format!("writing {}", path.display())))?;
        }
        fs::write(&files.stdin, &inputs.stdin).map_err(io(format!("writing {}", files.stdin.display())))?;
        let file = fs::File::open(&files.stdin).map_err(io(format!("opening {}", files.stdin.display())))?;
        let args = inputs.args.iter().map(|a| OsString::from_vec(a.clone())).collect();
        Ok(Staged { stdin: Stdio::from(file), args })
    }

    /// The program's environment variables: the harness's files and
    /// choices, gcov's directory, the sanitizers' options.
    fn variables(&self, limits: &RunLimits, files: &RunFiles) -> Vec<(&'static str, Option<OsString>)> {
        let mut vars: Vec<(&'static str, Option<OsString>)> = vec![
            (ENV_INPUTS, Some(files.inputs.clone().into())),
            (ENV_REPORT, Some(files.report.clone().into())),
            // gcov's data goes to the one directory the sandbox lets it
            // write; `coverage` copies it back beside the objects.
            ("GCOV_PREFIX", Some(self.gcov_data_dir().into())),
            (ENV_MEMORY_LIMIT_MB, limits.memory_limit_mb.map(|mb| mb.to_string().into())),
            (ENV_EXHAUSTED, (limits.on_exhausted == ExhaustedInputs::Exit).then(|| "exit".into())),
        ];
        if self.sanitized {
            vars.push(("ASAN_OPTIONS", Some("abort_on_error=1:detect_leaks=0".into())));
            vars.push(("UBSAN_OPTIONS", Some("halt_on_error=1:abort_on_error=1:print_stacktrace=1".into())));
        }
        vars
    }

    /// Where the runs' gcov data goes (`GCOV_PREFIX`).
    pub(crate) fn gcov_data_dir(&self) -> PathBuf {
        self.run_dir.with_file_name("gcov-data")
    }
}

/// What a run reads besides its values.
struct Staged {
    stdin: Stdio,
    args: Vec<OsString>,
}

/// An I/O failure while `context`.
fn io(context: String) -> impl FnOnce(std::io::Error) -> NativeError {
    move |source| NativeError::Io { context, source }
}

/// The files of run `id`, all in the build's run directory.
struct RunFiles {
    inputs: PathBuf,
    report: PathBuf,
    stdin: PathBuf,
    stderr: PathBuf,
    /// Its working directory.
    cwd: PathBuf,
}

impl RunFiles {
    fn new(run_dir: &Path, id: u64) -> RunFiles {
        let file = |suffix: &str| run_dir.join(format!("run-{id}.{suffix}"));
        RunFiles {
            inputs: file("in"),
            report: file("report"),
            stdin: file("stdin"),
            stderr: file("err"),
            cwd: file("d"),
        }
    }

    fn remove(&self) {
        for file in [&self.inputs, &self.report, &self.stdin, &self.stderr] {
            let _ = fs::remove_file(file);
        }
        let _ = fs::remove_dir_all(&self.cwd);
    }
}

fn classify(report: &HarnessReport, code: Option<i32>, signal: Option<i32>, timed_out: bool) -> NativeOutcome {
    if report.reach_error {
        return NativeOutcome::ReachError;
    }
    if timed_out {
        return NativeOutcome::Timeout;
    }
    if report.assert_fail {
        return NativeOutcome::AssertionFailure;
    }
    match (code, signal) {
        (Some(code), _) => NativeOutcome::Exit(code),
        (None, Some(libc::SIGABRT)) => NativeOutcome::Abort,
        (None, Some(signal)) => NativeOutcome::Signal(signal),
        // An exit status is either a code or a signal on Unix; a stopped
        // child is not reported by wait without WUNTRACED.
        (None, None) => NativeOutcome::Signal(0),
    }
}
