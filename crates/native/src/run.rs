//! Running a natively built task on one test vector: the program runs in
//! its own process group under a time limit (SIGTERM first, so the harness
//! can save coverage, then SIGKILL), and the outcome combines the exit
//! status with what the harness reported.

use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use walkdown_ir::testvec::TestVector;

use crate::compile::NativeBuild;
use crate::harness::{input_file_text, HarnessReport, ENV_EXHAUSTED, ENV_INPUTS, ENV_MEMORY_LIMIT_MB, ENV_REPORT};
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
        let inputs_path = self.run_dir.join(format!("run-{id}.in"));
        let report_path = self.run_dir.join(format!("run-{id}.report"));
        let env = self.environment.as_ref().map(|env| {
            let (inputs, own) = env.decode_lenient(&vector.values);
            (inputs, TestVector { values: own })
        });
        let own = env.as_ref().map_or_else(|| vector.clone(), |(_, own)| own.clone());
        fs::write(&inputs_path, input_file_text(&own))
            .map_err(|source| NativeError::Io { context: format!("writing {}", inputs_path.display()), source })?;
        let io = |context: String| move |source| NativeError::Io { context, source };
        let (cwd, stdin, args) = match &env {
            None => (self.run_dir.clone(), Stdio::null(), Vec::new()),
            Some((inputs, _)) => {
                let cwd = self.run_dir.join(format!("run-{id}.d"));
                fs::create_dir_all(&cwd).map_err(io(format!("creating {}", cwd.display())))?;
                for (name, data) in &inputs.files {
                    let path = cwd.join(name);
                    fs::write(&path, data).map_err(io(format!("writing {}", path.display())))?;
                }
                let stdin_path = self.run_dir.join(format!("run-{id}.stdin"));
                fs::write(&stdin_path, &inputs.stdin).map_err(io(format!("writing {}", stdin_path.display())))?;
                let file = fs::File::open(&stdin_path).map_err(io(format!("opening {}", stdin_path.display())))?;
                let args: Vec<std::ffi::OsString> =
                    inputs.args.iter().map(|a| std::os::unix::ffi::OsStringExt::from_vec(a.clone())).collect();
                (cwd, Stdio::from(file), args)
            }
        };

        let stderr_path = self.run_dir.join(format!("run-{id}.err"));
        let stderr =
            if limits.capture_stderr {
                Stdio::from(fs::File::create(&stderr_path).map_err(|source| NativeError::Io {
                    context: format!("creating {}", stderr_path.display()),
                    source,
                })?)
            } else {
                Stdio::null()
            };
        let mut command = Command::new(&self.executable);
        if env.is_some() {
            // The program's environment has no variables in walkdown's
            // runs (env.c's getenv), so none natively either.
            command.env_clear();
        }
        if self.sanitized {
            command
                .env("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=0")
                .env("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1");
        }
        command
            .args(&args)
            .current_dir(&cwd)
            .env(ENV_INPUTS, &inputs_path)
            .env(ENV_REPORT, &report_path)
            .stdin(stdin)
            .stdout(Stdio::null())
            .stderr(stderr)
            // Its own process group, so a timeout reaches whatever the
            // program started too.
            .process_group(0);
        match limits.memory_limit_mb {
            Some(mb) => command.env(ENV_MEMORY_LIMIT_MB, mb.to_string()),
            None => command.env_remove(ENV_MEMORY_LIMIT_MB),
        };
        match limits.on_exhausted {
            ExhaustedInputs::Exit => command.env(ENV_EXHAUSTED, "exit"),
            ExhaustedInputs::ReturnZero => command.env_remove(ENV_EXHAUSTED),
        };

        let started = Instant::now();
        let mut child =
            command.spawn().map_err(|source| NativeError::ToolNotRun { tool: self.executable.clone(), source })?;
        let (status, timed_out) = wait_with_timeout(&mut child, limits)?;
        let elapsed = started.elapsed();

        let report = fs::read_to_string(&report_path).ok().and_then(|text| HarnessReport::parse(&text));
        // Leftover files only cost space in a directory removed with the
        // build; failing the run for them would lose its result.
        let _ = fs::remove_file(&inputs_path);
        let _ = fs::remove_file(&report_path);
        if env.is_some() {
            let _ = fs::remove_file(self.run_dir.join(format!("run-{id}.stdin")));
            let _ = fs::remove_dir_all(&cwd);
        }
        let stderr = limits.capture_stderr.then(|| {
            let bytes = fs::read(&stderr_path).unwrap_or_default();
            let _ = fs::remove_file(&stderr_path);
            String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(8192)..]).into_owned()
        });

        let harness_reported = report.is_some();
        let report = report.unwrap_or_default();
        Ok(NativeRun {
            outcome: classify(&report, status, timed_out),
            nondet_calls: report.nondet_calls,
            inputs_exhausted: report.inputs_exhausted,
            assume_failed: report.assume_failed,
            harness_reported,
            elapsed,
            stderr,
        })
    }
}

fn classify(report: &HarnessReport, status: ExitStatus, timed_out: bool) -> NativeOutcome {
    if report.reach_error {
        return NativeOutcome::ReachError;
    }
    if timed_out {
        return NativeOutcome::Timeout;
    }
    if report.assert_fail {
        return NativeOutcome::AssertionFailure;
    }
    match (status.code(), status.signal()) {
        (Some(code), _) => NativeOutcome::Exit(code),
        (None, Some(libc::SIGABRT)) => NativeOutcome::Abort,
        (None, Some(signal)) => NativeOutcome::Signal(signal),
        // An exit status is either a code or a signal on Unix; a stopped
        // child is not reported by wait without WUNTRACED.
        (None, None) => NativeOutcome::Signal(0),
    }
}

/// Wait for `child`; past the timeout, SIGTERM its process group, and past
/// the grace period SIGKILL it. Returns the status and whether it timed out.
fn wait_with_timeout(child: &mut Child, limits: &RunLimits) -> Result<(ExitStatus, bool), NativeError> {
    if let Some(status) = poll_until(child, Instant::now() + limits.timeout)? {
        return Ok((status, false));
    }
    signal_group(child, libc::SIGTERM);
    if let Some(status) = poll_until(child, Instant::now() + limits.kill_grace)? {
        return Ok((status, true));
    }
    signal_group(child, libc::SIGKILL);
    let status =
        child.wait().map_err(|source| NativeError::Io { context: "waiting for the program".into(), source })?;
    Ok((status, true))
}

/// Poll the child until it exits or `deadline` passes.
fn poll_until(child: &mut Child, deadline: Instant) -> Result<Option<ExitStatus>, NativeError> {
    // Start with short naps: most test runs take a millisecond or two, and
    // a generator replays thousands of them.
    let mut nap = Duration::from_micros(100);
    loop {
        let waited =
            child.try_wait().map_err(|source| NativeError::Io { context: "waiting for the program".into(), source })?;
        if let Some(status) = waited {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        thread::sleep(nap.min(deadline - now));
        nap = (nap * 2).min(Duration::from_millis(10));
    }
}

fn signal_group(child: &Child, signal: libc::c_int) {
    // The child has not been reaped (try_wait saw it running), so its pid
    // still names its process group and cannot have been reused.
    let Ok(group) = libc::pid_t::try_from(child.id()) else { return };
    // SAFETY: killpg only sends a signal; an already-exited group yields
    // ESRCH, which is harmless here.
    unsafe {
        libc::killpg(group, signal);
    }
}
