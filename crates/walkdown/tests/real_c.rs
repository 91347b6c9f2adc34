//! C constructs real programs use, each checked against gcc: every program
//! of `tests/real_c/` is compiled natively with gcc -O0 (with `-m32` for
//! ILP32) and run, and run in walkdown's interpreter (clang-14 and the
//! frontend, then `Interpreter::run_with_output`); the exit code and what
//! the program prints must be the same, in both data models. The programs
//! are correct C: none reaches `reach_error`, so a run that reports an error
//! is a false error of walkdown.
//!
//! A program whose first line says `/* LP64 only */` runs in LP64 alone.
//! The test needs gcc with 32-bit support (scripts/setup installs it) and
//! fails, naming the program and data model, if gcc cannot build one.

use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::DataModel;

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_c");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/real_c")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

/// (exit code, stdout) of the native build.
fn native(src: &Path, dm: DataModel) -> Result<(i32, String), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let exe = dir.path().join("prog");
    // The medium code model lets static objects exceed 2 GiB (huge_static.c).
    let arch: &[&str] = if dm == DataModel::ILP32 { &["-m32"] } else { &["-m64", "-mcmodel=medium"] };
    let out = Command::new("gcc")
        .args(["-w", "-O0"])
        .args(arch)
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .map_err(|e| format!("gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!("gcc failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let run = Command::new(&exe).output().map_err(|e| e.to_string())?;
    let code = run.status.code().ok_or("the native run ended by a signal")?;
    Ok((code, String::from_utf8_lossy(&run.stdout).into_owned()))
}

/// (outcome, stdout) of the interpreter.
fn interpreted(src: &Path, dm: DataModel) -> Result<(Outcome, String), String> {
    let settings = FrontendSettings { data_model: dm, ..FrontendSettings::default() };
    let program = compile_c(src, &settings).map_err(|e| e.to_string())?;
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).map_err(|e| e.to_string())?;
    let (r, out) = interp.run_with_output(&TestVector::default(), &RunOptions::default());
    Ok((r.outcome, String::from_utf8_lossy(&out).into_owned()))
}

/// Runs one fixture in both data models; the differences found.
fn check(name: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_c").join(name);
    let text = std::fs::read_to_string(&src).expect("fixture");
    let dms: &[DataModel] =
        if text.starts_with("/* LP64 only */") { &[DataModel::LP64] } else { &[DataModel::LP64, DataModel::ILP32] };
    let mut problems = Vec::new();
    for &dm in dms {
        let (code, out) = match native(&src, dm) {
            Ok(x) => x,
            Err(e) => {
                problems.push(format!("{name} {dm}: native: {e}"));
                continue;
            }
        };
        match interpreted(&src, dm) {
            Ok((Outcome::Exit(c), o)) if c & 0xff == code && o == out => {}
            Ok((outcome, o)) => problems
                .push(format!("{name} {dm}: gcc exit {code} printing {out:?}; walkdown {outcome:?} printing {o:?}")),
            Err(e) => problems.push(format!("{name} {dm}: walkdown: {e}")),
        }
    }
    problems
}

macro_rules! fixtures {
    ($($test:ident => $file:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let problems = check($file);
                assert!(problems.is_empty(), "{}", problems.join("\n"));
            }
        )*
        /// Every program of the directory has its test above.
        #[test]
        fn every_fixture_is_listed() {
            let listed = [$($file),*];
            for p in programs() {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                assert!(listed.contains(&n.as_str()), "tests/real_c/{n} has no test in real_c.rs");
            }
        }
    };
}

fixtures! {
    struct_by_value_is_copied => "byval.c",
    odd_width_integers => "odd_ints.c",
    constant_address_comparisons => "const_addr_cmp.c",
    struct_returns_in_registers => "struct_returns.c",
    variadic_definitions => "varargs.c",
    huge_static_objects => "huge_static.c",
    setjmp_longjmp => "setjmp.c",
    libc_models => "libc_models.c",
    packed_bit_field_runs_wider_than_64_bits => "packed_bitfields.c",
    int128_arithmetic => "int128.c",
    int128_float_conversions => "int128_floats.c",
    packed_bit_field_runs_wider_than_128_bits => "wide_runs.c",
    long_double_arithmetic_bit_for_bit => "long_double.c",
}

/// Integers wider than 64 bits and `long double` lower to ordinary IR
/// (`i64` limbs; `long double` operations as calls of the soft-float
/// runtime linked into the program): the lowered programs of those
/// fixtures print as textual IR that reads back, verifies and prints the
/// same, and the program read back runs as gcc's build does.
#[test]
fn wide_integer_programs_survive_the_textual_ir() {
    for name in ["packed_bitfields.c", "int128.c", "wide_runs.c", "long_double.c"] {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_c").join(name);
        let program = compile_c(&src, &FrontendSettings::default()).expect("lowers");
        let text = walkdown_ir::write::program_to_string(&program);
        let back = walkdown_ir_reader::parse_and_verify(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(walkdown_ir::write::program_to_string(&back), text, "{name}: the text changes on a round trip");
        let goals = Goals::compute(&back);
        let interp = Interpreter::new(&back, &goals).expect("interpreter");
        let (r, out) = interp.run_with_output(&TestVector::default(), &RunOptions::default());
        let (code, native_out) = native(&src, DataModel::LP64).expect("gcc");
        assert!(
            matches!(r.outcome, Outcome::Exit(c) if c & 0xff == code) && String::from_utf8_lossy(&out) == native_out,
            "{name}: gcc exit {code} printing {native_out:?}; walkdown {:?} printing {:?}",
            r.outcome,
            String::from_utf8_lossy(&out)
        );
    }
}

/// `walkdown run --show-output` prints what the program prints, verbatim,
/// before the report; without the flag, nothing of it.
#[test]
fn run_shows_the_program_output() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_c/byval.c");
    let run = |show: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_walkdown"));
        cmd.arg("run").arg(&src).args(["--inputs", "0"]);
        if show {
            cmd.arg("--show-output");
        }
        let out = cmd.output().expect("run walkdown");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = run(true);
    assert!(shown.starts_with("100 4 42\noutcome: exit 0\n"), "{shown}");
    let plain = run(false);
    assert!(plain.starts_with("outcome: exit 0\n"), "{plain}");
}
