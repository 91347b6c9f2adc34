//! The command line under bad conditions (issue 14): output into a pipe
//! that is already closed, file names that are not UTF-8, directories,
//! wrong extensions and binary files as FILE, verifier errors of `.wir`
//! files, out-of-range test values, empty suites, deep recursion, and the
//! safety of `gen`'s output directory (lock, manifest, nothing touched
//! before the program lowers, SIGTERM).

mod support;

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::FromRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/classify.c")
}

/// The write end of a pipe whose read end is already closed: the first
/// write to it fails with EPIPE (or raises SIGPIPE).
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: pipe fills two descriptors we then own; the read end is
    // closed at once and the write end handed to the child.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    }
}

/// Whether a process ended without a panic: not exit code 101, no
/// "panicked" on stderr.
fn assert_no_panic(what: &str, status: std::process::ExitStatus, stderr: &[u8]) {
    let stderr = String::from_utf8_lossy(stderr);
    assert!(status.code() != Some(101) && !stderr.contains("panicked"), "{what}: panicked ({status}):\n{stderr}");
}

/// Runs `args` with stdout into a closed pipe; returns the exit status and
/// stderr after checking there was no panic.
fn into_closed_pipe(args: &[&std::ffi::OsStr], close_stderr: bool) -> (std::process::ExitStatus, Vec<u8>) {
    let mut cmd = walkdown();
    cmd.args(args).stdout(closed_pipe()).stdin(Stdio::null());
    let stderr = if close_stderr {
        cmd.stderr(closed_pipe());
        Vec::new()
    } else {
        cmd.stderr(Stdio::piped());
        Vec::new()
    };
    let out = cmd.output().unwrap();
    let what = format!("walkdown {:?}", args);
    let stderr = if close_stderr { stderr } else { out.stderr };
    assert_no_panic(&what, out.status, &stderr);
    (out.status, stderr)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

#[test]
fn every_command_ends_quietly_into_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let wir = dir.path().join("classify.wir");
    let printed = walkdown().arg("ir").arg(example()).output().unwrap();
    fs::write(&wir, &printed.stdout).unwrap();
    // The corpus: the example, its IR, and the seeds when ../shared is there.
    let mut programs = vec![example(), wir];
    match support::shared_dir() {
        Some(shared) => {
            let mut seeds: Vec<PathBuf> = fs::read_dir(shared.join("bench/seeds"))
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "c"))
                .collect();
            seeds.sort();
            programs.extend(seeds);
        }
        None => eprintln!("every_command_ends_quietly_into_a_closed_pipe: seeds skipped: ../shared is not present"),
    }
    for program in &programs {
        let p = program.as_os_str();
        for args in [
            vec![os("ir"), p],
            vec![os("goals"), p],
            vec![os("analyze"), p],
            vec![os("run"), p, os("--inputs"), os("1,2,3"), os("-v")],
        ] {
            let (status, _) = into_closed_pipe(&args, false);
            // Like a Unix filter: killed by SIGPIPE, or done before it wrote.
            assert!(
                status.signal() == Some(libc::SIGPIPE) || status.code().is_some_and(|c| c <= 1),
                "{args:?}: {status}"
            );
        }
    }
    into_closed_pipe(&[os("--help")], false);
    into_closed_pipe(&[os("gen"), os("--help")], false);
    // gen must finish its report whatever happens to its output, even with
    // stderr (the progress line, the warnings) closed too.
    let example = example();
    for close_stderr in [false, true] {
        let args = [os("gen"), example.as_os_str(), os("--time"), os("3"), os("--out"), out.as_os_str()];
        let (status, _) = into_closed_pipe(&args, close_stderr);
        assert!(matches!(status.code(), Some(0 | 1)), "gen into a closed pipe: {status}");
        let report = walkdown_formats::report::read_report(&out.join("report.json")).unwrap();
        assert_eq!(report.status, "finished");
    }
    let suite = out.join("test-suite");
    let (status, _) = into_closed_pipe(&[os("validate"), example.as_os_str(), suite.as_os_str()], false);
    assert!(status.signal() == Some(libc::SIGPIPE) || status.success(), "validate: {status}");
}

#[test]
fn a_c_file_whose_name_is_not_utf8_is_lowered() {
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"cl\xffassify.c");
    let file = dir.path().join(name);
    fs::copy(example(), &file).unwrap();
    let out = walkdown().arg("goals").arg(&file).output().unwrap();
    assert_no_panic("goals on a non-UTF-8 name", out.status, &out.stderr);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listing = String::from_utf8_lossy(&out.stdout);
    // Goals carry the file's (lossy) name and a line of the task file.
    assert!(listing.lines().any(|l| l.contains("cl\u{fffd}assify.c:8:")), "{listing}");
    let run = walkdown().arg("run").arg(&file).args(["--inputs", "7,-3"]).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // validate compiles it with gcc, which takes any name.
    let suite = dir.path().join("suite");
    fs::create_dir(&suite).unwrap();
    fs::write(suite.join("t.xml"), "<testcase><input>7</input><input>-3</input></testcase>").unwrap();
    let validate = walkdown().arg("validate").arg(&file).arg(&suite).output().unwrap();
    assert_no_panic("validate on a non-UTF-8 name", validate.status, &validate.stderr);
    assert!(validate.status.success(), "{}", String::from_utf8_lossy(&validate.stderr));
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn directories_other_extensions_and_binaries_are_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["goals", "gen", "validate"] {
        let mut cmd = walkdown();
        cmd.arg(command).arg(dir.path());
        if command == "validate" {
            cmd.arg(dir.path());
        }
        if command == "gen" {
            cmd.arg("--out").arg(dir.path().join("o"));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let e = stderr_of(&out);
        assert!(e.contains("is a directory") && !e.contains("no such file"), "{command}: {e}");
    }
    // A C file under another name: refused before clang and opt-14 run.
    let txt = dir.path().join("classify.txt");
    fs::copy(example(), &txt).unwrap();
    let out = walkdown().arg("goals").arg(&txt).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_of(&out);
    assert!(
        e.contains("unknown kind of file") && e.contains(".c") && !e.contains("opt-14") && !e.contains("clang"),
        "{e}"
    );
    // A binary: named as one, none of its bytes echoed.
    let binary = dir.path().join("prog.c");
    fs::copy(env!("CARGO_BIN_EXE_walkdown"), &binary).unwrap();
    let out = walkdown().arg("goals").arg(&binary).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_of(&out);
    assert!(e.contains("binary file") && e.len() < 300, "{} bytes: {e:.300}", e.len());
    // Garbage without NUL bytes gets as far as clang, whose complaints are
    // cut short and keep no control characters.
    let mut rng = support::Rng::new(14);
    let garbage: Vec<u8> = (0..200_000).map(|_| 1 + rng.below(255) as u8).collect();
    let junk = dir.path().join("junk.c");
    fs::write(&junk, garbage).unwrap();
    let out = walkdown().arg("goals").arg(&junk).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_of(&out);
    assert!(e.len() < 3000, "{} bytes of error", e.len());
    assert!(!e.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{e}");
}

#[test]
fn wir_verifier_errors_name_the_wir_line() {
    let dir = tempfile::tempdir().unwrap();
    let wir = dir.path().join("bad.wir");
    // Line 7 adds an i64 to an i32; the C location says line 5.
    let text = "datamodel LP64\nfile \"a.c\"\n\ndefine @main() -> i32 !3:1 {\nb0:\n  v0 = add i32 i32 1, i32 2 !5:3\n  v1 = add i32 v0, i64 1 !5:7\n  ret v1 !6:3\n}\n";
    fs::write(&wir, text).unwrap();
    let out = walkdown().arg("goals").arg(&wir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_of(&out);
    assert!(e.contains("line 7: @main b0"), "{e}");
}

#[test]
fn test_values_out_of_range_for_their_type_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("uchar.c");
    fs::write(
        &c,
        "extern unsigned char __VERIFIER_nondet_uchar(void);\nint main(void) {\n  unsigned char c = __VERIFIER_nondet_uchar();\n  if (c == 44) return 1;\n  return 0;\n}\n",
    )
    .unwrap();
    let suite = dir.path().join("suite");
    fs::create_dir(&suite).unwrap();
    let test = suite.join("t.xml");
    fs::write(&test, "<testcase><input type=\"unsigned char\">300</input></testcase>").unwrap();
    let out = walkdown().arg("run").arg(&c).arg("--test").arg(&test).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "a warning, not an error: the value is valid Test-Comp");
    let e = stderr_of(&out);
    assert!(e.contains("warning: input 1") && e.contains("300") && e.contains("wraps to 44"), "{e}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("outcome: exit 1"));
    // In range (either signedness of the width): no warning.
    let quiet = walkdown().arg("run").arg(&c).args(["--inputs", "-1"]).output().unwrap();
    assert!(!stderr_of(&quiet).contains("warning"), "{}", stderr_of(&quiet));
    let validate = walkdown().arg("validate").arg(&c).arg(&suite).output().unwrap();
    assert!(validate.status.success(), "{}", stderr_of(&validate));
    assert!(stderr_of(&validate)
        .contains("t.xml: input 1 (counting from 1) is 300, out of range for its type `unsigned char`"));
}

#[test]
fn validate_on_an_empty_suite_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    fs::create_dir(&suite).unwrap();
    fs::write(suite.join("notes.xml"), "<testcase><input>bogus</input></testcase>").unwrap();
    let out = walkdown().arg("validate").arg(example()).arg(&suite).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("the suite has no tests (1 invalid files skipped)"), "{}", stderr_of(&out));
}

const DEEP: &str = "extern int __VERIFIER_nondet_int(void);
int down(int n) {
  if (n == 0)
    return 0;
  return 1 + down(n - 1);
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 95000)
    return 0;
  if (n == 90000) {
    if (down(n) == 90000)
      return 2;
    return 3;
  }
  return down(n) > 5;
}
";

#[test]
fn call_depth_has_a_flag_and_a_gcc_like_default() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("deep.c");
    fs::write(&c, DEEP).unwrap();
    // 90,000 frames run natively with gcc; the default lets them run here.
    let out = walkdown().arg("run").arg(&c).args(["--inputs", "90000"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("outcome: exit 2"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = walkdown().arg("run").arg(&c).args(["--inputs", "90000", "--max-call-depth", "1000"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("call-depth limit (--max-call-depth)"));
    let out = walkdown().arg("run").arg(&c).args(["--inputs", "990", "--max-call-depth", "1000"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("outcome: exit 1"));
    // gen traces and replays the deep recursion without overflowing a stack
    // (frames are data, not Rust recursion).
    let out_dir = dir.path().join("out");
    let gen = walkdown()
        .arg("gen")
        .arg(&c)
        .args(["--time", "8", "-q", "--engine", "concolic", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_no_panic("gen on deep recursion", gen.status, &gen.stderr);
    assert_eq!(gen.status.code(), Some(0), "{}", stderr_of(&gen));
    let report = walkdown_formats::report::read_report(&out_dir.join("report.json")).unwrap();
    assert_eq!(report.status, "finished");
    // The test for n == 90000 was traced and replayed 90,000 calls deep.
    assert!(report.tests.iter().any(|t| t.outcome == "exit 2"), "no test ran the 90,000-deep path: {:?}", report.tests);
}

/// Every file below `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().map(|e| e.unwrap()) {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                files.push((e.path(), fs::read(e.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn gen(program: &Path, out: &Path, extra: &[&str]) -> Output {
    walkdown().arg("gen").arg(program).args(["--time", "3", "-q", "--out"]).arg(out).args(extra).output().unwrap()
}

#[test]
fn gen_removes_only_the_files_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let first = gen(&example(), &out, &[]);
    assert!(matches!(first.status.code(), Some(0 | 1)), "{}", stderr_of(&first));
    let suite = out.join("test-suite");
    let tests_before = fs::read_dir(&suite).unwrap().count();
    assert!(tests_before > 2);
    // Files of the user's: kept across runs, whatever their names.
    fs::write(suite.join("mine.xml"), "<testcase><input>1</input></testcase>").unwrap();
    fs::write(suite.join("Test-1.xml"), "<testcase><input>2</input></testcase>").unwrap();
    fs::write(out.join("notes.txt"), "keep me").unwrap();
    // A second run with a single execution writes fewer tests: the first
    // run's other tests must go, the user's files stay.
    let second = gen(&example(), &out, &["--engine", "concolic", "--max-executions", "1", "--no-static"]);
    assert!(matches!(second.status.code(), Some(0 | 1)), "{}", stderr_of(&second));
    assert!(stderr_of(&second).contains("files walkdown did not write"), "{}", stderr_of(&second));
    assert_eq!(fs::read_to_string(suite.join("mine.xml")).unwrap(), "<testcase><input>1</input></testcase>");
    assert!(suite.join("Test-1.xml").exists() && out.join("notes.txt").exists());
    let report = walkdown_formats::report::read_report(&out.join("report.json")).unwrap();
    let mut ours: Vec<String> = fs::read_dir(&suite)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("test-"))
        .collect();
    ours.sort();
    let mut reported: Vec<String> = report.tests.iter().map(|t| t.file.clone()).collect();
    reported.sort();
    assert_eq!(ours, reported, "the suite holds exactly this run's tests");
    assert!(ours.len() < tests_before - 1);
    // Every file the manifest lists exists; it lists each test.
    let manifest = fs::read_to_string(out.join(".walkdown-manifest")).unwrap();
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        assert!(out.join(line).exists(), "{line}");
    }
    for t in &reported {
        assert!(manifest.lines().any(|l| l == format!("test-suite/{t}")), "{t} not in the manifest");
    }
}

#[test]
fn gen_refuses_to_overwrite_a_file_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::create_dir_all(out.join("test-suite")).unwrap();
    fs::write(out.join("test-suite/test-00000.xml"), "someone else's").unwrap();
    let before = snapshot(&out);
    let run = gen(&example(), &out, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr_of(&run).contains("test-00000.xml was not written by walkdown gen"), "{}", stderr_of(&run));
    let after: Vec<_> = snapshot(&out).into_iter().filter(|(p, _)| !p.ends_with(".walkdown-lock")).collect();
    assert!(after == before, "the directory changed");
}

#[test]
fn gen_on_a_program_without_main_leaves_the_earlier_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(matches!(gen(&example(), &out, &[]).status.code(), Some(0 | 1)));
    let before = snapshot(&out);
    let lib = dir.path().join("lib.c");
    fs::write(&lib, "int twice(int x) { return 2 * x; }\n").unwrap();
    let run = gen(&lib, &out, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr_of(&run).contains("no defined `main`"), "{}", stderr_of(&run));
    let after = snapshot(&out);
    let names = |s: &[(PathBuf, Vec<u8>)]| s.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert!(
        after == before,
        "the earlier run's output changed: {:?} became {:?} (or their contents)",
        names(&before),
        names(&after)
    );
}

/// A program whose last goal no engine settles quickly, for runs that
/// must still be going when they are disturbed.
const SLOW: &str = "extern unsigned __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned h = 2166136261u;
  unsigned n = __VERIFIER_nondet_uint();
  for (unsigned i = 0; i < n; i++) {
    unsigned x = __VERIFIER_nondet_uint();
    h = (h ^ x) * 16777619u;
    h = h ^ (h >> 13);
    h = h * h + x * 0x9e3779b9u;
    if (h % 1000003u == 77u && i > 40)
      return 3;
  }
  if (h == 0xdeadbeeeu)
    return 1;
  return 0;
}
";

fn spawn_gen(program: &Path, out: &Path, extra: &[&str]) -> Child {
    walkdown()
        .arg("gen")
        .arg(program)
        .args(["-q", "--out"])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn report_status(out: &Path) -> Option<String> {
    walkdown_formats::report::read_report(&out.join("report.json")).ok().map(|r| r.status)
}

fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "{what}: not after {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_gen_into_one_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("slow.c");
    fs::write(&c, SLOW).unwrap();
    let out = dir.path().join("out");
    let mut first = spawn_gen(&c, &out, &["--time", "60", "--engine", "concolic"]);
    wait_for("the first run's report", Duration::from_secs(30), || report_status(&out).is_some());
    let second = gen(&example(), &out, &[]);
    let e = stderr_of(&second);
    assert_eq!(second.status.code(), Some(2), "{e}");
    assert!(e.contains("is in use by another walkdown gen") && e.contains(&format!("pid {}", first.id())), "{e}");
    // SIGTERM (as `timeout` and batch systems send) ends the first run
    // cleanly, with its report whole.
    // SAFETY: kill sends a signal to our own child.
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    let status = first.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    assert_eq!(report_status(&out).as_deref(), Some("interrupted"));
    // The lock went with the process.
    let third = gen(&example(), &out, &[]);
    assert!(matches!(third.status.code(), Some(0 | 1)), "{}", stderr_of(&third));
}

#[test]
fn sigterm_during_a_long_solver_query_marks_the_report_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("slow.c");
    fs::write(&c, SLOW).unwrap();
    let out = dir.path().join("out");
    let mut child =
        spawn_gen(&c, &out, &["--time", "120", "--engine", "bmc", "--unwind", "3", "--solver-timeout-ms", "60000"]);
    wait_for("the report", Duration::from_secs(30), || report_status(&out).as_deref() == Some("running"));
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill sends a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    // A supervisor gives a stopped process a few seconds before SIGKILL;
    // by then the report must no longer claim the run is going on.
    let marked = Instant::now();
    while report_status(&out).as_deref() == Some("running") && marked.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let status_after_grace = report_status(&out);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status_after_grace.as_deref(), Some("interrupted"));
}
