//! Native runs in the sandbox (`walkdown_native::sandbox`, docs/sandbox.md).
//!
//! `tests/sandbox/escape.c`, on some input, writes a file in the user's
//! home and in /tmp, deletes a file it was not given, connects to
//! 127.0.0.1, forks in a loop and writes a large file. Through `gen
//! --lcov`, `validate`, `replay` and `check` with `--sandbox=required`:
//! afterwards no file outside walkdown's temporary directories changed, a
//! listening socket saw no connection, no process of the program is left,
//! and each run's outcome names what was denied. Without bubblewrap (a
//! `bwrap` that does not exist), walkdown says once that runs are not
//! sandboxed and keeps the limits; `--no-sandbox` says nothing;
//! `--sandbox=required` is an error.
//!
//! The sandboxed test needs a working `bwrap` (scripts/setup installs it;
//! CI runs as root, where it works): without one it fails under CI and is
//! skipped with a message elsewhere.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The tests look for the fixture's processes by name: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sandbox/escape.c")
}

/// The program's world: a home outside /tmp, a tag for its /tmp files, a
/// port nobody else listens on, and the files that must not change.
struct World {
    home: PathBuf,
    work: tempfile::TempDir,
    tag: String,
    listener: TcpListener,
    victim: PathBuf,
}

impl World {
    fn new() -> World {
        let tag = format!("{}-{}", std::process::id(), Instant::now().elapsed().as_nanos());
        // Not under /tmp, so that the home is hidden on its own.
        let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sandbox-home-{tag}"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("precious"), "the user's file\n").unwrap();
        let victim = PathBuf::from(format!("/tmp/wd-sandbox-{tag}-victim"));
        std::fs::write(&victim, "not the program's to delete\n").unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        World { home, work: tempfile::tempdir().unwrap(), tag, listener, victim }
    }

    fn walkdown(&self, args: &[&str]) -> Output {
        let port = self.listener.local_addr().unwrap().port().to_string();
        Command::new(env!("CARGO_BIN_EXE_walkdown"))
            .args(args)
            .current_dir(self.work.path())
            .env("HOME", &self.home)
            .env("SANDBOX_FIXTURE_TAG", &self.tag)
            .env("SANDBOX_FIXTURE_PORT", port)
            .env_remove("WALKDOWN_SANDBOX")
            .env_remove("WALKDOWN_BWRAP")
            .output()
            .unwrap()
    }

    /// Every file of the home and the working directory, and the
    /// program's /tmp files, with their contents.
    fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        for dir in [self.home.as_path(), self.work.path()] {
            for entry in walk(dir) {
                let content = std::fs::read(&entry).unwrap_or_default();
                files.insert(entry, content);
            }
        }
        for name in ["victim", "written"] {
            let path = PathBuf::from(format!("/tmp/wd-sandbox-{}-{name}", self.tag));
            if let Ok(content) = std::fs::read(&path) {
                files.insert(path, content);
            }
        }
        files
    }

    fn assert_no_connection(&self) {
        match self.listener.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("the program connected to the test's socket: {other:?}"),
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
        let _ = std::fs::remove_file(&self.victim);
        let _ = std::fs::remove_file(format!("/tmp/wd-sandbox-{}-written", self.tag));
    }
}

/// Files under `dir`, except walkdown's own output (`out*`).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with("out") {
            continue;
        }
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// Why the sandbox cannot be built here, if it cannot.
fn sandbox_missing() -> Option<String> {
    match walkdown_native::sandbox::availability() {
        walkdown_native::sandbox::Availability::Ready { .. } => None,
        walkdown_native::sandbox::Availability::Unavailable(reason) => Some(reason.clone()),
    }
}

/// Processes still running the fixture's native build.
fn leftover_processes() -> Vec<String> {
    let mut left = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains("escape.wd.exe") {
            left.push(format!("{}: {cmdline}", entry.file_name().to_string_lossy()));
        }
    }
    left
}

/// The action each test of `suite` takes (its first value).
fn actions(suite: &Path) -> Vec<(PathBuf, i128)> {
    let mut tests: Vec<PathBuf> = std::fs::read_dir(suite)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("test-")))
        .collect();
    tests.sort();
    tests
        .into_iter()
        .map(|t| {
            let case = walkdown_formats::read_testcase(&t).unwrap();
            let first = match case.vector.values.first() {
                Some(walkdown_ir::testvec::InputValue::Int(v)) => *v,
                _ => 0,
            };
            (t, first)
        })
        .collect()
}

/// What the outcome of a run of action `action` must name.
fn named_denial(action: i128, port: u16) -> Option<String> {
    Some(match action {
        1 => "sandbox-home-".into(),
        2 => "write to /tmp/wd-sandbox-".into(),
        3 => "deletion of /tmp/wd-sandbox-".into(),
        4 => format!("connection to 127.0.0.1:{port} denied"),
        5 => "fork denied by the process limit".into(),
        6 => "file-size limit".into(),
        7 => "fork denied by the process limit".into(),
        _ => return None,
    })
}

#[test]
fn the_sandbox_contains_every_escape() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(reason) = sandbox_missing() {
        assert!(std::env::var_os("CI").is_none(), "CI must run native runs in the sandbox: {reason}");
        eprintln!("sandbox: skipped, the sandbox cannot be built here: {reason}");
        return;
    }
    let world = World::new();
    let before = world.files();
    let port = world.listener.local_addr().unwrap().port();
    let program = fixture();
    let program = program.to_str().unwrap();
    let started = Instant::now();

    let gen = world.walkdown(&[
        "gen",
        program,
        "--engines",
        "concolic",
        "--time",
        "8",
        "--out",
        "out",
        "--lcov",
        "--sandbox=required",
    ]);
    assert!(matches!(gen.status.code(), Some(0 | 1)), "gen: {}", text(&gen));
    let suite = world.work.path().join("out/test-suite");
    let tests = actions(&suite);
    for action in 1..=7 {
        assert!(tests.iter().any(|(_, a)| *a == action), "gen found no test of action {action}: {tests:?}");
    }

    let validate = world.walkdown(&["validate", program, suite.to_str().unwrap(), "--sandbox=required"]);
    assert_eq!(validate.status.code(), Some(0), "validate: {}", text(&validate));
    let said = text(&validate);
    for (test, action) in &tests {
        let name = test.file_name().unwrap().to_string_lossy();
        if let Some(denial) = named_denial(*action, port) {
            let line = said.lines().find(|l| l.starts_with(&*name)).unwrap_or_else(|| panic!("{name}: {said}"));
            assert!(line.contains(&denial), "validate of {name} (action {action}) names {denial:?}: {line}");
        }
    }

    for (test, action) in &tests {
        let replay = world.walkdown(&["replay", program, test.to_str().unwrap(), "--sandbox=required"]);
        let first = text(&replay).lines().next().unwrap_or("").to_string();
        match named_denial(*action, port) {
            Some(denial) => assert!(first.contains(&denial), "replay of action {action} names {denial:?}: {first}"),
            None => assert!(!first.contains("denied"), "replay of action {action} is denied nothing: {first}"),
        }
    }

    let check = world.walkdown(&[
        "check",
        program,
        "--engines",
        "concolic",
        "--time",
        "8",
        "--out",
        "out-check",
        "--sandbox=required",
    ]);
    assert_eq!(check.status.code(), Some(1), "check confirms the error: {}", text(&check));
    let confirmed = text(&check).lines().find(|l| l.starts_with("CONFIRMED")).unwrap_or_default().to_string();
    for denial in
        ["write to /tmp/wd-sandbox-", "deletion of /tmp/wd-sandbox-", "connection to 127.0.0.1", "fork denied"]
    {
        assert!(confirmed.contains(denial), "check's evidence names {denial:?}: {confirmed}");
    }

    assert_eq!(world.files(), before, "no file outside walkdown's temporary directories changed");
    world.assert_no_connection();
    assert_eq!(leftover_processes(), Vec::<String>::new(), "no process of the program is left");
    // The fork loops and the large file did not hold the machine: the
    // whole test (two searches of 8 s, some thirty native runs) is quick.
    assert!(started.elapsed() < Duration::from_secs(240), "took {:?}", started.elapsed());
}

/// A suite of hand-written tests with these first values.
fn suite_of(dir: &Path, actions: &[i32]) -> PathBuf {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for (k, action) in actions.iter().enumerate() {
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
             <!DOCTYPE testcase PUBLIC \"+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN\" \
             \"https://sosy-lab.org/test-format/testcase-1.1.dtd\">\n<testcase>\n  <input>{action}</input>\n</testcase>\n"
        );
        std::fs::write(suite.join(format!("test-{k:05}.xml")), xml).unwrap();
    }
    suite
}

#[test]
fn without_the_sandbox_walkdown_says_so_once_and_keeps_the_limits() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let world = World::new();
    // Only the tests the limits stop: without the sandbox the others would
    // really write, delete and connect.
    let suite = suite_of(world.work.path(), &[0, 5, 6, 0]);
    let program = fixture();
    let (program, suite) = (program.to_str().unwrap(), suite.to_str().unwrap());
    let no_bwrap = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_walkdown"));
        command.args(args).current_dir(world.work.path()).env("HOME", &world.home);
        command.env("WALKDOWN_BWRAP", "/nonexistent/bwrap").env_remove("WALKDOWN_SANDBOX");
        command.output().unwrap()
    };

    let auto = no_bwrap(&["validate", program, suite]);
    assert_eq!(auto.status.code(), Some(0), "validate: {}", text(&auto));
    let stderr = String::from_utf8_lossy(&auto.stderr);
    assert_eq!(stderr.matches("native runs are not sandboxed").count(), 1, "said once: {stderr}");
    assert!(stderr.contains("bwrap"), "says why: {stderr}");
    let stdout = String::from_utf8_lossy(&auto.stdout);
    assert!(stdout.contains("test-00001.xml: exit 0; the sandbox denied: fork denied"), "{stdout}");
    assert!(stdout.contains("test-00002.xml: killed by signal 25 (SIGXFSZ)"), "{stdout}");
    assert!(stdout.contains("outcomes: 3 exit 0, 1 signal 25"), "{stdout}");

    let off = no_bwrap(&["validate", program, suite, "--no-sandbox"]);
    assert_eq!(off.status.code(), Some(0), "validate --no-sandbox: {}", text(&off));
    assert!(!text(&off).contains("not sandboxed"), "--no-sandbox is a choice, not news: {}", text(&off));
    assert_eq!(String::from_utf8_lossy(&off.stdout), stdout, "the same runs, the same outcomes");

    let required = no_bwrap(&["validate", program, suite, "--sandbox=required"]);
    assert_eq!(required.status.code(), Some(2), "{}", text(&required));
    assert!(text(&required).contains("the sandbox cannot be built"), "{}", text(&required));
    assert_eq!(leftover_processes(), Vec::<String>::new(), "the fork loop's children are gone");
}
