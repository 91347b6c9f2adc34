//! `walkdown replay`: a test run natively (gcc -g and walkdown's harness)
//! ends as the interpreter said. On a fixture with every way a run can end
//! (exit code, reach_error, SIGFPE, SIGSEGV, failed assert, and with
//! `--sanitize` out-of-bounds writes and signed overflow); the standalone
//! driver of `--emit-driver` builds with plain gcc and ends the same; gdb
//! runs the test (skipped with a message when gdb is absent); and every
//! error of the seeds' suites (`gen` on each seed of `../shared`, skipped
//! with a message when it is absent) is reproduced natively, at its line.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay/ends.c")
}

fn said(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

fn replay(program: &Path, test: &Path, extra: &[&str]) -> Output {
    walkdown().arg("replay").args(extra).arg(program).arg(test).output().unwrap()
}

#[test]
fn every_way_a_run_ends_is_reported_natively() {
    let tmp = tempfile::tempdir().unwrap();
    let program = fixture();
    let cases: &[(&str, &[&str], &str, i32)] = &[
        ("0\n0\n", &[], "exit 3", 0),
        ("1\n0\n", &[], "reach_error reached", 1),
        ("2\n0\n", &[], "killed by signal 8 (SIGFPE)", 1),
        ("3\n0\n", &[], "killed by signal 11 (SIGSEGV)", 1),
        ("4\n-1\n", &[], "assertion failed", 1),
        ("5\n9\n", &[], "exit 0", 0),
        ("5\n9\n", &["--sanitize"], "ends.c:19:25: runtime error: index 9 out of bounds", 1),
        ("6\n5\n", &[], "exit 4", 0),
        ("6\n5\n", &["--sanitize"], "ends.c:20:27: runtime error: signed integer overflow", 1),
    ];
    for (i, (values, flags, expect, code)) in cases.iter().enumerate() {
        let test = tmp.path().join(format!("t{i}.txt"));
        std::fs::write(&test, values).unwrap();
        let o = replay(&program, &test, flags);
        assert!(said(&o).contains(expect), "{values:?} {flags:?}: want {expect:?}, got {}", said(&o));
        assert_eq!(o.status.code(), Some(*code), "{values:?}: {}", said(&o));
    }
    // The assertion's own message is shown, naming the original file.
    let test = tmp.path().join("t4.txt");
    let o = replay(&program, &test, &[]);
    assert!(said(&o).contains(&format!("{}:18: main: Assertion `x > 0' failed.", program.display())), "{}", said(&o));

    // A Test-Comp XML test works the same.
    let xml = tmp.path().join("t.xml");
    std::fs::write(&xml, "<?xml version=\"1.0\"?>\n<testcase>\n<input>1</input>\n<input>7</input>\n</testcase>\n")
        .unwrap();
    assert!(said(&replay(&program, &xml, &[])).contains("reach_error reached"));

    // The standalone driver: plain gcc, no walkdown, the same end.
    let driver = tmp.path().join("driver.c");
    let o = walkdown().arg("replay").arg(&program).arg(&test).arg("--emit-driver").arg(&driver).output().unwrap();
    assert!(o.status.success(), "{}", said(&o));
    let exe = tmp.path().join("replay-exe");
    let gcc = Command::new("gcc").arg("-g").arg(&program).arg(&driver).arg("-lm").arg("-o").arg(&exe).output().unwrap();
    assert!(gcc.status.success(), "the driver builds: {}", said(&gcc));
    let run = Command::new(&exe).output().unwrap();
    let text = said(&run);
    assert!(text.contains("Assertion `x > 0' failed") && text.contains("assert_fail 1"), "{text}");
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&run.status), Some(6), "ends with SIGABRT as assert does");

    // Bad input: clear errors.
    let o = replay(&program, tmp.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(said(&o).contains("is a directory"), "{}", said(&o));
    let bad = tmp.path().join("bad.txt");
    std::fs::write(&bad, "12\nzwölf\n").unwrap();
    assert!(said(&replay(&program, &bad, &[])).contains("bad.txt:2: bad value"));

    // gdb runs the program with the test's values and sees the SIGFPE.
    if Command::new("gdb").arg("--version").output().is_err() {
        eprintln!("replay: gdb part skipped: gdb is not installed (Debian `gdb`; scripts/setup installs it)");
        return;
    }
    let fpe = tmp.path().join("t2.txt");
    let mut child = walkdown()
        .args(["replay", "--gdb"])
        .arg(&program)
        .arg(&fpe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"run\nbt\nkill\nquit\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let text = said(&o);
    assert!(text.contains("SIGFPE") && text.contains("ends.c:16"), "gdb shows the division: {text}");
}

/// Runs `gen` on every seed and replays each error's test natively: reach_error,
/// null dereference and division by zero as they are, the others (out of
/// bounds, overflow) with `--sanitize`; each ends at the error's line.
#[test]
fn every_error_of_the_seed_suites_replays_natively() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("replay: seed part skipped: ../shared (WALKDOWN_SHARED) not found");
        return;
    };
    let seeds = shared.join("bench/seeds");
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&seeds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    entries.sort();
    for seed in entries {
        let out = tmp.path().join(seed.file_stem().unwrap());
        let status =
            walkdown().args(["gen", "--quiet", "--time", "10", "--out"]).arg(&out).arg(&seed).status().unwrap();
        assert!(matches!(status.code(), Some(0 | 1)), "gen {}: {status}", seed.display());
        let report = walkdown_formats::report::read_report(&out.join("report.json")).unwrap();
        for e in &report.errors {
            let line = e.location.rsplit(':').nth(1).unwrap();
            let test = out.join("test-suite").join(&e.test);
            let (flags, expect): (&[&str], String) = match e.kind.as_str() {
                "reach_error" => (&[], "reach_error reached".into()),
                "div_by_zero" => (&[], "(SIGFPE)".into()),
                "null_deref" => (&[], "(SIGSEGV)".into()),
                _ => (&["--sanitize"], format!("{}:{line}", seed.file_name().unwrap().to_string_lossy())),
            };
            let o = replay(&seed, &test, flags);
            let text = said(&o);
            assert!(text.contains(&expect), "{} {} ({}): want {expect:?}, got {text}", seed.display(), e.kind, e.test);
            assert_eq!(o.status.code(), Some(1), "{text}");
            checked += 1;
        }
    }
    eprintln!("replay: {checked} errors of the seed suites reproduced natively");
    assert!(checked >= 8, "the seeds have at least 8 distinct errors ({checked})");
}
