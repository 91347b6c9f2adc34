//! glibc's GNU regex interface as walkdown runs it (`runtime/libc/gnuregex.c`
//! over musl's regex engine) against glibc's own, natively: the cases of
//! `tests/libc_glibc/gnu_regex.c` built with gcc print glibc's results;
//! the same program, with those lines as its table `expected`, runs in the
//! interpreter, one case per run. A disagreement names the case, glibc's
//! line and the interpreter's (read back byte by byte through the exit
//! status). LP64 only: the programs that call this interface (GNU
//! coreutils, as `bench/coreutils` builds them) are.

use std::path::Path;
use std::process::Command;
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};

const PROGRAM: &str = include_str!("libc_glibc/gnu_regex.c");

/// glibc's result lines.
fn native(dir: &Path) -> Vec<String> {
    let src = dir.join("glibc.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let exe = dir.join("glibc");
    let st = Command::new("gcc").args(["-O0", "-w", "-DPRINT", "-o"]).arg(&exe).arg(&src).status().expect("gcc runs");
    assert!(st.success(), "gcc fails on {}", src.display());
    let o = Command::new(&exe).output().expect("runs");
    assert!(o.status.success(), "native run fails: {:?}", o.status);
    String::from_utf8(o.stdout).expect("ASCII").lines().map(str::to_string).collect()
}

/// The program with glibc's lines as `expected[]`, before its `main`.
fn with_expected(lines: &[String]) -> String {
    let marker = "/* EXPECTED: the test puts glibc's lines here, as `expected[]`. */";
    let at = PROGRAM.find(marker).expect("marker in gnu_regex.c");
    let mut table = String::from("static const char *const expected[] = {\n");
    for l in lines {
        table.push_str(&format!("{:?},\n", l));
    }
    table.push_str("};\n");
    format!("{}{table}{}", &PROGRAM[..at], &PROGRAM[at..])
}

#[test]
fn gnu_regex_agrees_with_glibc() {
    let dir = tempfile::tempdir().unwrap();
    let expected = native(dir.path());
    assert!(expected.len() >= 30, "the table has its cases: {expected:?}");
    assert!(expected.iter().any(|l| l == "error"), "some patterns do not compile");
    assert!(expected.iter().any(|l| l.contains(" -1,-1")), "some group takes no part");
    let src = dir.path().join("musl.c");
    std::fs::write(&src, with_expected(&expected)).unwrap();
    let ir = compile_c(&src, &FrontendSettings::default()).expect("lowers");
    let goals = Goals::compute(&ir);
    let interp = Interpreter::new(&ir, &goals).expect("prepares");
    let opts = RunOptions { limits: ExecLimits { max_steps: 200_000_000, ..Default::default() }, ..Default::default() };
    let status = |k: usize, j: i64| -> i32 {
        let v = TestVector { values: vec![InputValue::Int(k as i128), InputValue::Int(j.into())] };
        match interp.run(&v, &opts).outcome {
            Outcome::Exit(c) => c,
            other => panic!("interpreter on case {k}: {other:?}"),
        }
    };
    let mut report = String::new();
    for (k, glibc) in expected.iter().enumerate() {
        if status(k, -1) == 0 {
            continue;
        }
        let mine: Vec<u8> = (0..).map(|j| status(k, j) as u8).take_while(|&b| b != 0).take(512).collect();
        report.push_str(&format!("case {k}\n  glibc: {glibc}\n  walkdown: {}\n", String::from_utf8_lossy(&mine)));
    }
    assert!(report.is_empty(), "GNU regex cases that differ from glibc:\n{report}");
}
