//! `gen`'s native check of error tests (the policy is the campaign's, see
//! `walkdown_campaign::NativeVerdict`): before a test is kept for an
//! error, it runs natively (gcc, the harness, as `walkdown replay` runs
//! it). A `reach_error` or failed assertion must happen natively too; any
//! other error (out of bounds, overflow, division by zero, ...) must stop
//! a build with AddressSanitizer and UndefinedBehaviorSanitizer. Each
//! build is made once, when first needed, and kept for the run: the cost
//! is one or two gcc builds a program and one native run an error test.
//! Without gcc, or for a program that does not build natively (a `.wir`
//! file, a call of a function no library defines), errors are unchecked,
//! with the reason.

use std::sync::Mutex;
use std::time::{Duration, Instant};
use walkdown_campaign::{ErrorCheck, ErrorFound, NativeVerdict};
use walkdown_ir::testvec::TestVector;
use walkdown_ir::units::Unit;
use walkdown_ir::{CheckKind, DataModel};
use walkdown_native::{BuildSettings, NativeBuild, NativeError, NativeOutcome, RunLimits};

/// The longest one native check may take.
const MAX_RUN: Duration = Duration::from_secs(2);
/// The shortest: a check past the budget still gets this much.
const MIN_RUN: Duration = Duration::from_millis(200);

/// A build, made on first use; `Err` says why it could not be made.
type Slot = Mutex<Option<Result<NativeBuild, String>>>;

/// Checks error tests natively (see the module doc).
pub struct NativeCheck {
    units: Vec<Unit>,
    data_model: DataModel,
    environment: Option<walkdown_ir::env::Environment>,
    deadline: Instant,
    plain: Slot,
    sanitized: Slot,
}

impl NativeCheck {
    /// Checks of the program of `units` in `data_model` (with its
    /// environment); runs get at most the time left until `deadline` (but
    /// at least [`MIN_RUN`]).
    pub fn new(
        units: Vec<Unit>,
        data_model: DataModel,
        environment: Option<walkdown_ir::env::Environment>,
        deadline: Instant,
    ) -> NativeCheck {
        NativeCheck { units, data_model, environment, deadline, plain: Mutex::new(None), sanitized: Mutex::new(None) }
    }
}

/// Whether the native run of an error of `kind` needs the sanitizers to
/// stop where the interpreter did.
fn needs_sanitizer(kind: CheckKind) -> bool {
    !matches!(kind, CheckKind::ReachError | CheckKind::Assertion)
}

impl ErrorCheck for NativeCheck {
    fn check(&self, vector: &TestVector, error: &ErrorFound) -> NativeVerdict {
        let sanitize = needs_sanitizer(error.kind);
        let slot = if sanitize { &self.sanitized } else { &self.plain };
        // One build at a time; runs of concurrent engines wait for it.
        let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
        let build = guard.get_or_insert_with(|| {
            let settings =
                BuildSettings { sanitize, environment: self.environment.clone(), ..BuildSettings::default() };
            NativeBuild::compile_units(&self.units, self.data_model, &settings).map_err(|e| match e {
                NativeError::ToolNotRun { tool, source } if source.kind() == std::io::ErrorKind::NotFound => {
                    format!("{} is not installed", tool.display())
                }
                e => {
                    let text = e.to_string();
                    let text = text.lines().take(3).collect::<Vec<_>>().join(" / ");
                    format!("the program does not build natively ({text})")
                }
            })
        });
        let build = match build {
            Ok(b) => b,
            Err(e) => return NativeVerdict::Unchecked(e.clone()),
        };
        let timeout = self.deadline.saturating_duration_since(Instant::now()).clamp(MIN_RUN, MAX_RUN);
        let limits = RunLimits {
            timeout,
            kill_grace: Duration::from_millis(100),
            // AddressSanitizer reserves terabytes of address space.
            memory_limit_mb: if sanitize { None } else { RunLimits::default().memory_limit_mb },
            ..RunLimits::default()
        };
        let run = match build.run(vector, &limits) {
            Ok(r) => r,
            Err(e) => return NativeVerdict::Unchecked(format!("the native run failed ({e})")),
        };
        let confirmed = match error.kind {
            CheckKind::ReachError => run.outcome == NativeOutcome::ReachError,
            CheckKind::Assertion => run.outcome == NativeOutcome::AssertionFailure,
            // The sanitizers abort; a fault the program does not survive
            // natively (SIGSEGV, SIGFPE) ends it with a signal.
            // A signal of the sandbox's limits (SIGXFSZ, SIGXCPU) is no
            // error of the program.
            _ => matches!(run.outcome, NativeOutcome::Abort | NativeOutcome::Signal(_)) && !run.ended_by_limit(),
        };
        if confirmed {
            NativeVerdict::Confirmed
        } else {
            let how = if sanitize { "gcc with ASan+UBSan" } else { "gcc" };
            NativeVerdict::Refuted(format!("{} natively ({how})", run.describe()))
        }
    }
}
