//! The sandbox every native run of a program under test goes through.
//!
//! Why: walkdown builds the program with gcc and runs it on generated
//! inputs, which are by design the inputs nobody tried: the one that
//! deletes a file, fills the disk or forks without end. A test generator
//! that replays them on the user's machine, as the user, must contain them.
//!
//! How (first preference, Debian's `bubblewrap`): the program runs as
//!
//! ```text
//! bwrap --unshare-user --unshare-pid --unshare-net --unshare-ipc --unshare-uts
//!       --new-session --die-with-parent
//!       --ro-bind / /  --dev /dev  --proc /proc
//!       --tmpfs /tmp  [--tmpfs $HOME]
//!       --ro-bind BUILD BUILD            (the executable, the inputs)
//!       --bind RUN RUN                   (its private working directory)
//!       --bind REPORT REPORT  --bind GCOV GCOV
//!       --remount-ro /tmp  [--remount-ro $HOME]  --chdir RUN
//!       -- prlimit --nproc=N --fsize=B --nofile=N --cpu=S:H --core=0 -- PROGRAM ARGS
//! ```
//!
//! so the file system is read-only except its own directory, the harness's
//! report file and the gcov data directory (gcov writes there through
//! `GCOV_PREFIX`, and [`crate::gcov`] copies the data back beside the
//! objects); `/tmp` and the user's home are empty and read-only; the
//! network namespace has only its own loopback, where nothing listens; the
//! device directory is a fresh one. The limits are set by util-linux's
//! `prlimit` *inside* the user namespace, where `RLIMIT_NPROC` counts the
//! sandbox's processes only (set outside, it would count all of the user's
//! and could stop the first fork); root is exempt from `RLIMIT_NPROC`, so
//! the harness also counts forks (below). `--new-session` takes the
//! terminal away (no `TIOCSTI`) and makes the sandbox's first process the
//! leader of the program's process group: a timeout sends SIGTERM to that
//! group (not to `bwrap`, which would die of it and report the run over
//! while the program is still saving coverage), and SIGKILL to that first
//! process, which as init of the PID namespace takes every process of the
//! run with it, even one that left the group.
//!
//! When the sandbox cannot be built (no `bwrap`, no user namespaces in an
//! unprivileged container: [`availability`] tries `bwrap` once per
//! process), walkdown says so once, in words, and runs the program with
//! the same limits (without `RLIMIT_NPROC`) in a private working directory,
//! and kills what the program left running in its process group.
//! [`set_policy`] (`--no-sandbox`, `--sandbox=required`; otherwise
//! `$WALKDOWN_SANDBOX`) makes the choice explicit.
//!
//! What the sandbox denied: the harness (`c/walkdown_harness.c`) is linked
//! with `--wrap` for the C library's calls that write, delete, connect or
//! fork ([`WRAPPED_CALLS`]); each wrapper calls the real function and, when
//! it fails the way the sandbox makes it fail (EROFS, EACCES, EPERM; ENOENT
//! under a hidden directory; any failed connection inside the sandbox;
//! EAGAIN of fork), notes the action in the run's report. This needs no
//! `LD_PRELOAD`, no seccomp and no tracer, sees only the program's own
//! calls (not those inside the C library or of programs it starts), and
//! changes nothing the program sees. A file-size or CPU limit shows as the
//! signal that ended the run (SIGXFSZ, SIGXCPU). Programs without the
//! harness (unit test files, Csmith programs: [`run_confined`]) report
//! only those signals.
//!
//! Why the harness also counts forks: root is exempt from `RLIMIT_NPROC`,
//! and outside a user namespace the limit would count all of the user's
//! processes; a budget shared by the run's processes (a `MAP_SHARED`
//! page) holds in every case for programs built with the harness.

use std::ffi::OsString;
use std::io::Write as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use crate::NativeError;

/// Whether native runs must, may or must not be sandboxed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// Sandbox when it can be built; otherwise say so once and run with
    /// limits only (the default).
    Auto,
    /// Sandbox or fail.
    Required,
    /// Never sandbox (limits and a private working directory only).
    Off,
}

impl SandboxPolicy {
    /// The policy named `auto`, `required` or `off`.
    pub fn parse(text: &str) -> Option<SandboxPolicy> {
        match text {
            "auto" => Some(SandboxPolicy::Auto),
            "required" => Some(SandboxPolicy::Required),
            "off" | "no" | "none" => Some(SandboxPolicy::Off),
            _ => None,
        }
    }
}

/// Environment variable with the policy when [`set_policy`] was not called.
pub const ENV_POLICY: &str = "WALKDOWN_SANDBOX";
/// Environment variable naming the `bwrap` to use instead of the one on
/// `PATH` (a path that does not exist makes the sandbox unavailable).
pub const ENV_BWRAP: &str = "WALKDOWN_BWRAP";

/// Forks the harness allows one run (all its processes together).
pub const MAX_FORKS: u32 = 64;
/// `RLIMIT_NPROC` inside the sandbox: the run's processes and threads.
pub const MAX_PROCESSES: u64 = 128;
/// `RLIMIT_FSIZE`: the largest file a run may write.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// `RLIMIT_NOFILE`: open files of one process.
pub const MAX_OPEN_FILES: u64 = 256;

/// The C library calls the harness wraps (`-Wl,--wrap=NAME`) to see what
/// the sandbox denied; the harness defines `__wrap_NAME` for each.
pub const WRAPPED_CALLS: &[&str] = &[
    "open",
    "open64",
    "openat",
    "openat64",
    "creat",
    "creat64",
    "fopen",
    "fopen64",
    "freopen",
    "freopen64",
    "unlink",
    "unlinkat",
    "remove",
    "rename",
    "renameat",
    "rmdir",
    "mkdir",
    "mkdirat",
    "truncate",
    "truncate64",
    "link",
    "symlink",
    "connect",
    "fork",
];

static POLICY: AtomicU8 = AtomicU8::new(0);
static WARNED: AtomicBool = AtomicBool::new(false);
static AVAILABILITY: OnceLock<Availability> = OnceLock::new();

/// Chooses the policy of this process's native runs (the command line's
/// `--sandbox`); call before the first run.
pub fn set_policy(policy: SandboxPolicy) {
    let code = match policy {
        SandboxPolicy::Auto => 1,
        SandboxPolicy::Required => 2,
        SandboxPolicy::Off => 3,
    };
    POLICY.store(code, Ordering::Relaxed);
}

/// The policy in force: [`set_policy`]'s, else `$WALKDOWN_SANDBOX`'s, else
/// [`SandboxPolicy::Auto`].
pub fn policy() -> SandboxPolicy {
    match POLICY.load(Ordering::Relaxed) {
        1 => SandboxPolicy::Auto,
        2 => SandboxPolicy::Required,
        3 => SandboxPolicy::Off,
        _ => std::env::var(ENV_POLICY).ok().and_then(|v| SandboxPolicy::parse(&v)).unwrap_or(SandboxPolicy::Auto),
    }
}

/// Whether `bwrap` can build the sandbox on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    /// It can, with these tools.
    Ready {
        /// The `bwrap` that worked.
        bwrap: PathBuf,
        /// util-linux's `prlimit`.
        prlimit: PathBuf,
    },
    /// It cannot, for this reason (in words).
    Unavailable(String),
}

/// Tries the sandbox once per process (a `bwrap` run of `true` with every
/// namespace and mount a run uses).
pub fn availability() -> &'static Availability {
    AVAILABILITY.get_or_init(probe)
}

fn probe() -> Availability {
    let bwrap = match std::env::var_os(ENV_BWRAP) {
        Some(path) => PathBuf::from(path),
        None => match find_on_path("bwrap") {
            Some(path) => path,
            None => return Availability::Unavailable("bwrap (Debian's bubblewrap) is not installed".into()),
        },
    };
    let Some(prlimit) = find_system("prlimit") else {
        return Availability::Unavailable("util-linux's prlimit is not installed".into());
    };
    let Some(truth) = find_system("true") else {
        return Availability::Unavailable("no `true` program on PATH to try bwrap with".into());
    };
    let mut args = namespace_args();
    args.extend(file_system_args(&[], &[], None));
    let mut command = Command::new(&bwrap);
    command.args(&args).arg("--").arg(&prlimit).arg(format!("--nproc={MAX_PROCESSES}")).arg("--").arg(truth);
    match command.stdin(Stdio::null()).stdout(Stdio::null()).output() {
        Err(e) => Availability::Unavailable(format!("cannot run {}: {e}", bwrap.display())),
        Ok(out) if out.status.success() => Availability::Ready { bwrap, prlimit },
        Ok(out) => {
            let said = String::from_utf8_lossy(&out.stderr);
            let first = said.lines().next().unwrap_or("").trim();
            Availability::Unavailable(format!(
                "`bwrap --ro-bind / / true` fails here ({first}): are user namespaces off?"
            ))
        }
    }
}

/// A system program, which runs inside the sandbox: only from the system's
/// directories, never from a `PATH` entry the sandbox may hide (`~/bin`).
fn find_system(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].iter().map(|dir| Path::new(dir).join(name)).find(|p| p.is_file())
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// Whether this process's native runs are sandboxed: the policy against
/// what the machine offers. Under [`SandboxPolicy::Auto`] an unavailable
/// sandbox is said once on standard error; under
/// [`SandboxPolicy::Required`] it is an error.
pub fn sandboxed() -> Result<bool, NativeError> {
    let policy = policy();
    if policy == SandboxPolicy::Off {
        return Ok(false);
    }
    match (availability(), policy) {
        (Availability::Ready { .. }, _) => Ok(true),
        (Availability::Unavailable(reason), SandboxPolicy::Required) => {
            Err(NativeError::SandboxUnavailable { reason: reason.clone() })
        }
        (Availability::Unavailable(reason), _) => {
            if !WARNED.swap(true, Ordering::Relaxed) {
                // Written directly: a closed standard error must not fail a run.
                let _ = writeln!(
                    std::io::stderr(),
                    "walkdown: native runs are not sandboxed: {reason}. They run with time, memory, file-size, \
                     open-file and CPU limits in a private working directory, but can read and write your files \
                     and use the network. Install bubblewrap (scripts/setup) for the sandbox, or pass --no-sandbox \
                     to choose this."
                );
            }
            Ok(false)
        }
    }
}

/// The namespaces and session of a sandboxed run.
fn namespace_args() -> Vec<OsString> {
    [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--new-session",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    .map(OsString::from)
    .to_vec()
}

/// The directories a run does not see: `/tmp` and the user's home.
fn hidden_dirs() -> Vec<PathBuf> {
    let mut hidden = vec![PathBuf::from("/tmp")];
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        // A home of `/` (some service accounts) cannot be hidden without
        // hiding everything.
        if home.is_absolute() && home.parent().is_some() && home.is_dir() && !hidden.iter().any(|h| home.starts_with(h))
        {
            hidden.push(home);
        }
    }
    hidden
}

/// The mounts: hidden directories as empty read-only tmpfs, then what the
/// run sees (`visible`, read-only) and writes (`writable`), then `cwd`.
fn file_system_args(visible: &[&Path], writable: &[&Path], cwd: Option<&Path>) -> Vec<OsString> {
    let hidden = hidden_dirs();
    let mut args = Vec::new();
    let mut pair = |flag: &str, path: &Path| {
        args.push(OsString::from(flag));
        args.push(path.as_os_str().to_owned());
        if flag.ends_with("bind") {
            args.push(path.as_os_str().to_owned());
        }
    };
    for dir in &hidden {
        pair("--tmpfs", dir);
    }
    for path in visible {
        pair("--ro-bind", path);
    }
    for path in writable.iter().copied().chain(cwd) {
        pair("--bind", path);
    }
    for dir in &hidden {
        pair("--remount-ro", dir);
    }
    if let Some(cwd) = cwd {
        pair("--chdir", cwd);
    }
    args
}

/// One run to start: the program, where it runs and what it may touch.
#[derive(Debug)]
pub(crate) struct Jail<'a> {
    pub program: &'a Path,
    pub args: &'a [OsString],
    /// The private working directory, the one writable directory.
    pub cwd: &'a Path,
    /// Seen read-only (the build directory with the executable).
    pub visible: &'a [&'a Path],
    /// Written besides `cwd` (the report file, the gcov directory).
    pub writable: &'a [&'a Path],
    /// Start from an empty environment.
    pub clear_env: bool,
    /// Variables set (`Some`) or removed (`None`).
    pub env: Vec<(&'static str, Option<OsString>)>,
    /// The CPU-time limit in seconds (soft; the hard one is a second later).
    pub cpu_seconds: u64,
}

impl Jail<'_> {
    /// The command that runs the program in the sandbox (when
    /// [`sandboxed`]) or with limits only, and whether it is sandboxed.
    pub(crate) fn command(&self) -> Result<(Command, bool), NativeError> {
        let sandbox = sandboxed()?;
        let mut command = self.launcher(sandbox);
        command.args(self.args);
        if self.clear_env {
            command.env_clear();
        }
        for (name, value) in &self.env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        command.env(ENV_MAX_FORKS, MAX_FORKS.to_string());
        if sandbox {
            command.env(ENV_SANDBOXED, "1");
            command.env(ENV_HIDDEN, std::env::join_paths(hidden_dirs()).unwrap_or_default());
        } else {
            command.env_remove(ENV_SANDBOXED).env_remove(ENV_HIDDEN);
        }
        // Its own process group: a timeout reaches whatever it started
        // (sandboxed, `--new-session` makes the group inside; see `Running`).
        command.process_group(0);
        Ok((command, sandbox))
    }

    /// `bwrap ... -- prlimit ... -- PROGRAM`, or without the sandbox
    /// `prlimit ... -- PROGRAM` in the working directory (the program
    /// alone when there is no `prlimit`).
    fn launcher(&self, sandbox: bool) -> Command {
        let limits = self.limits(sandbox);
        match (sandbox, availability()) {
            (true, Availability::Ready { bwrap, prlimit }) => {
                let mut command = Command::new(bwrap);
                command.args(namespace_args()).args(file_system_args(self.visible, self.writable, Some(self.cwd)));
                command.arg("--").arg(prlimit).args(&limits).arg("--").arg(self.program);
                command
            }
            _ => {
                let mut command = match find_system("prlimit") {
                    Some(prlimit) => {
                        let mut command = Command::new(prlimit);
                        command.args(&limits).arg("--").arg(self.program);
                        command
                    }
                    None => Command::new(self.program),
                };
                command.current_dir(self.cwd);
                command
            }
        }
    }

    /// `prlimit`'s options: `RLIMIT_NPROC` only inside the sandbox's user
    /// namespace (outside it would count all of the user's processes).
    fn limits(&self, sandbox: bool) -> Vec<String> {
        let mut limits = vec![
            format!("--fsize={MAX_FILE_BYTES}"),
            format!("--nofile={MAX_OPEN_FILES}"),
            format!("--cpu={}:{}", self.cpu_seconds, self.cpu_seconds + 1),
            "--core=0".into(),
        ];
        if sandbox {
            limits.push(format!("--nproc={MAX_PROCESSES}"));
        }
        limits
    }
}

/// Environment variable telling the harness it runs in the sandbox.
pub const ENV_SANDBOXED: &str = "WD_SANDBOX";
/// Environment variable listing the hidden directories (`:`-separated).
pub const ENV_HIDDEN: &str = "WD_HIDDEN";
/// Environment variable with the harness's fork budget.
pub const ENV_MAX_FORKS: &str = "WD_MAX_FORKS";

/// A started run.
pub(crate) struct Running {
    child: Child,
    sandboxed: bool,
}

impl Running {
    pub(crate) fn spawn(mut command: Command, sandboxed: bool, program: &Path) -> Result<Running, NativeError> {
        let child =
            command.spawn().map_err(|source| NativeError::ToolNotRun { tool: program.to_path_buf(), source })?;
        Ok(Running { child, sandboxed })
    }

    /// Waits for the run; past `timeout`, SIGTERM, and past `grace` more,
    /// SIGKILL. Returns the status and whether it timed out.
    pub(crate) fn wait(&mut self, timeout: Duration, grace: Duration) -> Result<(ExitStatus, bool), NativeError> {
        let ended = self.wait_for_end(timeout, grace)?;
        if !self.sandboxed {
            // What the program left running in its group (sandboxed, the
            // PID namespace ended with it). The group outlives its leader
            // while it has members, so its number is still its own.
            if let Ok(group) = libc::pid_t::try_from(self.child.id()) {
                // SAFETY: killpg only sends a signal; ESRCH when none is left.
                unsafe {
                    libc::killpg(group, libc::SIGKILL);
                }
            }
        }
        Ok(ended)
    }

    fn wait_for_end(&mut self, timeout: Duration, grace: Duration) -> Result<(ExitStatus, bool), NativeError> {
        if let Some(status) = self.poll_until(Instant::now() + timeout)? {
            return Ok((status, false));
        }
        self.signal(libc::SIGTERM);
        if let Some(status) = self.poll_until(Instant::now() + grace)? {
            return Ok((status, true));
        }
        self.signal(libc::SIGKILL);
        let status = self
            .child
            .wait()
            .map_err(|source| NativeError::Io { context: "waiting for the program".into(), source })?;
        Ok((status, true))
    }

    /// Polls the child until it exits or `deadline` passes.
    fn poll_until(&mut self, deadline: Instant) -> Result<Option<ExitStatus>, NativeError> {
        // Start with short naps: most test runs take a millisecond or two,
        // and a generator replays thousands of them.
        let mut nap = Duration::from_micros(100);
        loop {
            let waited = self
                .child
                .try_wait()
                .map_err(|source| NativeError::Io { context: "waiting for the program".into(), source })?;
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

    /// Sends `signal` to the program's process group: sandboxed, the group
    /// of the PID namespace's init (the program's parent inside), which
    /// SIGKILL ends with every process of the namespace.
    fn signal(&self, signal: libc::c_int) {
        // The child has not been reaped (try_wait saw it running), so its
        // pid still names its process group and cannot have been reused;
        // nor can its own child's, which it reaps only when that ends.
        let Ok(own) = libc::pid_t::try_from(self.child.id()) else { return };
        // SAFETY: kill and killpg only send signals; a group or process
        // that is gone yields ESRCH, which is harmless here.
        unsafe {
            if self.sandboxed {
                if let Some(init) = child_of(own) {
                    libc::killpg(init, signal);
                    if signal == libc::SIGKILL {
                        libc::kill(init, signal);
                    }
                }
                if signal == libc::SIGKILL {
                    libc::killpg(own, signal);
                }
            } else {
                libc::killpg(own, signal);
            }
        }
    }
}

/// A child of process `parent`, from `/proc` (only on a timeout: the
/// sandbox's init is `bwrap`'s one child).
fn child_of(parent: libc::pid_t) -> Option<libc::pid_t> {
    let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children")).ok();
    if let Some(first) = children.as_deref().and_then(|c| c.split_whitespace().next()) {
        return first.parse().ok();
    }
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: libc::pid_t = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        // `pid (name) state ppid ...`: the name may hold spaces and parentheses.
        let after = &stat[stat.rfind(')')? + 1..];
        let ppid: libc::pid_t = after.split_whitespace().nth(1)?.parse().ok()?;
        (ppid == parent).then_some(pid)
    })
}

/// The exit code and the signal of a run: `bwrap` reports a death by
/// signal `n` as exit code `128 + n` (the shell's encoding), so a
/// sandboxed code above 128 is read as a signal unless `exited` says the
/// program itself exited (the harness's report).
pub(crate) fn decode_status(status: ExitStatus, sandboxed: bool, exited: bool) -> (Option<i32>, Option<i32>) {
    match (status.code(), status.signal()) {
        (Some(code), _) if sandboxed && !exited && (129..=128 + 64).contains(&code) => (None, Some(code - 128)),
        (code, signal) => (code, signal),
    }
}

/// How a program run by [`run_confined`] ended, and what it said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfinedRun {
    /// Its exit code, if it exited.
    pub code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// It ran past its time limit and was stopped.
    pub timed_out: bool,
    /// What it wrote to standard output.
    pub stdout: Vec<u8>,
    /// What it wrote to standard error.
    pub stderr: Vec<u8>,
}

/// Runs `program` with `args` in the sandbox (or with limits only, as
/// [`sandboxed`] decides), for programs without walkdown's harness: in a
/// fresh working directory, seeing `visible` (the program's own
/// directory, say) read-only, writing gcov data into `gcov_dir`
/// (`GCOV_PREFIX`) if given; SIGTERM after `limit`, SIGKILL a second
/// later. A code above 128 from the sandbox is read as a signal (no
/// report tells otherwise).
pub fn run_confined(
    program: &Path,
    args: &[OsString],
    visible: &[&Path],
    gcov_dir: Option<&Path>,
    limit: Duration,
) -> Result<ConfinedRun, NativeError> {
    let io = |context: String| move |source| NativeError::Io { context, source };
    let scratch =
        tempfile::Builder::new().prefix("walkdown-run-").tempdir().map_err(io("creating a run directory".into()))?;
    let scratch_dir = std::fs::canonicalize(scratch.path()).map_err(io("locating the run directory".into()))?;
    let cwd = scratch_dir.join("d");
    std::fs::create_dir(&cwd).map_err(io(format!("creating {}", cwd.display())))?;
    if let Some(gcov_dir) = gcov_dir {
        std::fs::create_dir_all(gcov_dir).map_err(io(format!("creating {}", gcov_dir.display())))?;
    }
    // bwrap binds paths as given: symbolic links resolved first.
    let visible: Vec<PathBuf> =
        visible.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())).collect();
    let visible: Vec<&Path> = visible.iter().map(PathBuf::as_path).collect();
    let (out_path, err_path) = (scratch_dir.join("out"), scratch_dir.join("err"));
    let out = std::fs::File::create(&out_path).map_err(io(format!("creating {}", out_path.display())))?;
    let err = std::fs::File::create(&err_path).map_err(io(format!("creating {}", err_path.display())))?;
    let jail = Jail {
        program,
        args,
        cwd: &cwd,
        visible: &visible,
        writable: gcov_dir.as_slice(),
        clear_env: false,
        env: vec![("GCOV_PREFIX", gcov_dir.map(|d| d.as_os_str().to_owned()))],
        cpu_seconds: limit.as_secs() + 2,
    };
    let (mut command, sandboxed) = jail.command()?;
    command.stdin(Stdio::null()).stdout(out).stderr(err);
    let mut running = Running::spawn(command, sandboxed, program)?;
    let (status, timed_out) = running.wait(limit, Duration::from_secs(1))?;
    let (code, signal) = decode_status(status, sandboxed, false);
    let read = |path: &Path| std::fs::read(path).unwrap_or_default();
    Ok(ConfinedRun { code, signal, timed_out, stdout: read(&out_path), stderr: read(&err_path) })
}

/// What a run tried that the sandbox or a limit denied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// The kind of action.
    pub action: DeniedAction,
    /// How it failed (`EROFS`, `ECONNREFUSED`, `SIGXFSZ`, ...).
    pub error: String,
    /// What it was done to: a path, an address; empty for a fork.
    pub subject: String,
}

/// The kinds of action the sandbox denies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeniedAction {
    /// Creating or writing a file, making a directory or link.
    Write,
    /// Deleting or renaming a file or directory.
    Delete,
    /// Connecting a socket.
    Connect,
    /// Starting a process past the process limit.
    Fork,
    /// Writing past the file-size limit.
    FileSize,
    /// Running past the CPU-time limit.
    CpuTime,
}

impl DeniedAction {
    /// The harness's name of the action.
    pub fn parse(word: &str) -> Option<DeniedAction> {
        Some(match word {
            "write" => DeniedAction::Write,
            "delete" => DeniedAction::Delete,
            "connect" => DeniedAction::Connect,
            "fork" => DeniedAction::Fork,
            "fsize" => DeniedAction::FileSize,
            "cpu" => DeniedAction::CpuTime,
            _ => return None,
        })
    }
}

impl Denial {
    /// The denial in words (`write to /home/u/x denied (EROFS)`).
    pub fn describe(&self) -> String {
        let (what, subject) = (&self.error, &self.subject);
        match self.action {
            DeniedAction::Write => format!("write to {subject} denied ({what})"),
            DeniedAction::Delete => format!("deletion of {subject} denied ({what})"),
            DeniedAction::Connect => format!("connection to {subject} denied ({what})"),
            DeniedAction::Fork => format!("fork denied by the process limit ({what})"),
            DeniedAction::FileSize => format!("file-size limit of {} MiB ({what})", MAX_FILE_BYTES >> 20),
            DeniedAction::CpuTime => format!("CPU-time limit ({what})"),
        }
    }

    /// A report line's value (`write EROFS /home/u/x`).
    pub fn parse(value: &str) -> Option<Denial> {
        let mut words = value.splitn(3, ' ');
        let action = DeniedAction::parse(words.next()?)?;
        let error = words.next()?.to_string();
        let subject = words.next().unwrap_or("").to_string();
        Some(Denial { action, error, subject })
    }
}

/// The denial a run's end shows by itself: a signal of a limit.
pub fn denial_of_signal(signal: i32) -> Option<Denial> {
    let (action, error) = match signal {
        libc::SIGXFSZ => (DeniedAction::FileSize, "SIGXFSZ"),
        libc::SIGXCPU => (DeniedAction::CpuTime, "SIGXCPU"),
        _ => return None,
    };
    Some(Denial { action, error: error.into(), subject: String::new() })
}
