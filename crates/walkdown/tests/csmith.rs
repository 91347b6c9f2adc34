//! Csmith differential test: random C programs from Debian's `csmith`, with
//! fixed seeds, run natively (gcc -O0, `-m32` for ILP32, in the sandbox of
//! native runs) and in walkdown's
//! interpreter (clang-14, the frontend, `Interpreter::run_with_output`);
//! the exit code and the printed checksum (`checksum = ...`, the program's
//! whole output) must be the same, in both data models.
//!
//! [`SEEDS`] programs per data model, generated with options that keep them
//! small and quick (the same as `scripts/csmith-diff`, which runs thousands
//! and prints the table). A program whose native run does not end within
//! [`NATIVE_TIMEOUT`] is not compared (Csmith does not promise
//! termination), and one the frontend refuses is listed with the construct;
//! every other program must agree, and at least [`MIN_COMPARED`] per data
//! model must be compared, so that a frontend refusing everything fails.
//!
//! A second test runs seeds whose programs hold integers
//! wider than 64 bits (runs of packed bit-fields), none of which may be
//! refused.
//!
//! Skips, saying so, when `csmith` or its headers (`libcsmith-dev`) are not
//! installed; `scripts/setup` installs both. Run with `--nocapture` for the
//! per-program lines.

use std::path::Path;
use std::process::Command;
use std::time::Duration;
use walkdown_frontend::{compile_c, FrontendError, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::DataModel;

/// Seeds 1..=SEEDS in each data model.
const SEEDS: u64 = 20;
/// Programs per data model that must be compared (not refused, not timed out).
const MIN_COMPARED: usize = 15;
/// The csmith runtime headers.
const INCLUDE: &str = "/usr/include/csmith";
/// Small programs that end quickly (as `scripts/csmith-diff`).
const CSMITH_OPTIONS: &[&str] = &[
    "--max-funcs",
    "3",
    "--max-block-depth",
    "3",
    "--max-block-size",
    "4",
    "--max-expr-complexity",
    "6",
    "--max-array-dim",
    "2",
    "--max-array-len-per-dim",
    "5",
    "--max-struct-fields",
    "6",
    "--max-union-fields",
    "4",
    "--no-argc",
];
const NATIVE_TIMEOUT: Duration = Duration::from_secs(5);
/// Steps for the interpreter (gcc -O0 code ending within the native time
/// limit needs fewer on the programs these options make).
const MAX_STEPS: u64 = 300_000_000;

enum Result1 {
    Agree,
    NativeTimeout,
    Unsupported(String),
    Disagree(String),
}

/// Runs `exe` in the sandbox of native runs with a time limit; `None` on
/// time-out. A death by signal `n` reads as code `-n`.
fn run_native(exe: &Path) -> Result<Option<(i32, String)>, walkdown_native::NativeError> {
    let dir = exe.parent().unwrap_or(Path::new("/"));
    let run = walkdown_native::sandbox::run_confined(exe, &[], &[dir], None, NATIVE_TIMEOUT)?;
    if run.timed_out {
        return Ok(None);
    }
    let code = run.code.or(run.signal.map(|s| -s)).unwrap_or(-1);
    Ok(Some((code, String::from_utf8_lossy(&run.stdout).into_owned())))
}

fn one(seed: u64, dm: DataModel) -> Result1 {
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join(format!("csmith{seed}.c"));
    let gen = Command::new("csmith")
        .current_dir(dir.path()) // it writes platform.info there
        .args(["--seed", &seed.to_string()])
        .args(CSMITH_OPTIONS)
        .arg("-o")
        .arg(&src)
        .output()
        .expect("run csmith");
    assert!(gen.status.success(), "csmith --seed {seed}: {}", String::from_utf8_lossy(&gen.stderr));
    let exe = dir.path().join("native");
    let arch = if dm == DataModel::ILP32 { "-m32" } else { "-m64" };
    let cc = Command::new("gcc")
        .args(["-w", "-O0", arch, "-I", INCLUDE])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run gcc");
    assert!(cc.status.success(), "gcc on csmith seed {seed} {dm}: {}", String::from_utf8_lossy(&cc.stderr));
    let Some((code, native_out)) = run_native(&exe).expect("run the native program") else {
        return Result1::NativeTimeout;
    };
    let settings = FrontendSettings {
        data_model: dm,
        extra_flags: vec!["-I".into(), INCLUDE.into()],
        ..FrontendSettings::default()
    };
    let program = match compile_c(&src, &settings) {
        Ok(p) => p,
        Err(FrontendError::Unsupported { construct, line, .. }) => {
            return Result1::Unsupported(format!("line {line}: {construct}"))
        }
        Err(e) => return Result1::Disagree(format!("the frontend failed: {e}")),
    };
    let goals = Goals::compute(&program);
    let interp = match Interpreter::new(&program, &goals) {
        Ok(i) => i,
        Err(e) => return Result1::Disagree(format!("cannot prepare: {e}")),
    };
    let options =
        RunOptions { limits: ExecLimits { max_steps: MAX_STEPS, ..ExecLimits::default() }, ..RunOptions::default() };
    let (r, out) = interp.run_with_output(&TestVector::default(), &options);
    let out = String::from_utf8_lossy(&out).into_owned();
    match r.outcome {
        Outcome::Exit(c) if c & 0xff == code && out == native_out => Result1::Agree,
        outcome => Result1::Disagree(format!(
            "gcc: exit {code}, {:?}; walkdown: {outcome:?}, {:?}",
            native_out.trim(),
            out.trim()
        )),
    }
}

/// Whether csmith and its headers are installed; says the test is skipped
/// when they are not.
fn csmith_installed() -> bool {
    let have_csmith = Command::new("csmith").arg("--version").output().is_ok_and(|o| o.status.success());
    if !have_csmith || !Path::new(INCLUDE).join("csmith.h").exists() {
        eprintln!("skipped: csmith or its headers ({INCLUDE}) are not installed; scripts/setup installs csmith and libcsmith-dev");
        return false;
    }
    true
}

/// Runs [`one`] on every job, on two workers: generation, gcc, clang and
/// the run are independent.
fn run_all(jobs: &[(u64, DataModel)]) -> Vec<(u64, DataModel, Result1)> {
    std::thread::scope(|scope| {
        let (a, b) = jobs.split_at(jobs.len() / 2);
        let run = |part: &[(u64, DataModel)]| part.iter().map(|&(s, dm)| (s, dm, one(s, dm))).collect::<Vec<_>>();
        let h = scope.spawn(move || run(a));
        let mut second = run(b);
        let mut first = h.join().expect("worker");
        first.append(&mut second);
        first
    })
}

#[test]
fn csmith_programs_agree_with_gcc() {
    if !csmith_installed() {
        return;
    }
    let jobs: Vec<(u64, DataModel)> =
        [DataModel::LP64, DataModel::ILP32].into_iter().flat_map(|dm| (1..=SEEDS).map(move |s| (s, dm))).collect();
    let results = run_all(&jobs);
    let mut problems = Vec::new();
    for dm in [DataModel::LP64, DataModel::ILP32] {
        let (mut agree, mut timeout, mut unsupported) = (0, 0, 0);
        for (seed, _, r) in results.iter().filter(|(_, d, _)| *d == dm) {
            match r {
                Result1::Agree => agree += 1,
                Result1::NativeTimeout => {
                    timeout += 1;
                    eprintln!("seed {seed} {dm}: not compared: the native run does not end within {NATIVE_TIMEOUT:?}");
                }
                Result1::Unsupported(what) => {
                    unsupported += 1;
                    eprintln!("seed {seed} {dm}: unsupported: {what}");
                }
                Result1::Disagree(what) => problems.push(format!("seed {seed} {dm}: {what}")),
            }
        }
        eprintln!(
            "{dm}: {SEEDS} programs, {agree} agree, {} disagree, {unsupported} unsupported, {timeout} native time-outs",
            SEEDS as usize - agree - unsupported - timeout
        );
        if agree < MIN_COMPARED {
            problems
                .push(format!("{dm}: only {agree} of {SEEDS} programs compared (at least {MIN_COMPARED} expected)"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Seeds whose programs pack runs of bit-fields into one integer wider
/// than 64 bits (`i72` to `i152` in LP64; found by compiling each with
/// clang-14 and looking for such types): all 13 of 7001-7300, and four of
/// 7301-8000 (`i128`, `i144`, and 7901, whose array of packed `i96`
/// structs is 12 bytes an element in ILP32). All were refused before the
/// frontend lowered wide integers to `i64` limbs.
const WIDE_SEEDS: &[u64] =
    &[7034, 7039, 7045, 7056, 7061, 7065, 7131, 7177, 7185, 7202, 7261, 7263, 7272, 7573, 7584, 7794, 7901];

#[test]
fn csmith_programs_with_wide_bit_field_runs_agree_with_gcc() {
    if !csmith_installed() {
        return;
    }
    let jobs: Vec<(u64, DataModel)> = [DataModel::LP64, DataModel::ILP32]
        .into_iter()
        .flat_map(|dm| WIDE_SEEDS.iter().map(move |&s| (s, dm)))
        .collect();
    let results = run_all(&jobs);
    let mut problems = Vec::new();
    let mut compared = 0;
    for (seed, dm, r) in &results {
        match r {
            Result1::Agree => compared += 1,
            Result1::NativeTimeout => {
                eprintln!("seed {seed} {dm}: not compared: the native run does not end within {NATIVE_TIMEOUT:?}")
            }
            Result1::Unsupported(what) => problems.push(format!("seed {seed} {dm}: unsupported: {what}")),
            Result1::Disagree(what) => problems.push(format!("seed {seed} {dm}: {what}")),
        }
    }
    // Most of them end natively in time (a few loop for long).
    if compared < WIDE_SEEDS.len() {
        problems.push(format!("only {compared} of {} runs compared", jobs.len()));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
