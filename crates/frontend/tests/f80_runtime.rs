//! The `long double` soft-float runtime (`runtime/f80.c`) against gcc's x87
//! `long double`, bit for bit: the native checker `runtime/f80_check.c`
//! runs every runtime function on all pairs of its special values, on
//! sweeps of exponents and alignments and on random cases from a fixed
//! seed, with f80.c compiled by gcc and by
//! clang-14 -O1 with the flags walkdown uses (that object is the code
//! walkdown lowers), in -m64 and -m32. A second test holds clang's IR of
//! the runtime to what walkdown's engines want: no floating point, no
//! memory but the stores of results' signs and exponents, no calls but a
//! few intrinsics, no vectors,
//! no integers wider than 64 bits, no branches but the square root's
//! fixed-count loop.
//!
//! Needs gcc with -m32 support and clang-14; skips with a message without them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags walkdown compiles the runtime with (besides -m64/-m32).
const CLANG_FLAGS: &[&str] = walkdown_frontend::F80_RUNTIME_FLAGS;
/// Random rounds per configuration: each round is one random case per
/// operation; the special-value pairs come on top.
const ROUNDS: &str = "100000";
const SEED: &str = "20261127";

fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime")
}

fn run(cmd: &mut Command) -> Result<std::process::Output, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{cmd:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ))
    }
}

/// Why the tools this test needs are not usable, if they are not.
fn missing_tools(dir: &Path) -> Option<String> {
    for tool in ["gcc", "clang-14"] {
        if run(Command::new(tool).arg("--version")).is_err() {
            return Some(format!("{tool} not found"));
        }
    }
    let src = dir.join("probe.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").expect("write the probe");
    let exe = dir.join("probe");
    if run(Command::new("gcc").arg("-m32").arg(&src).arg("-o").arg(&exe)).is_err()
        || run(&mut Command::new(&exe)).is_err()
    {
        return Some("gcc -m32 cannot build and run a program (no multilib)".into());
    }
    None
}

/// Builds the checker with f80.c by clang-14 and by gcc in data model
/// `-m{bits}`, runs both; returns the failures.
fn check_data_model(dir: &Path, f80: &Path, check: &Path, bits: &str) -> Vec<String> {
    let m = format!("-m{bits}");
    // f80.c by clang-14 (what walkdown lowers), the driver by gcc -O0.
    let obj = dir.join(format!("f80_clang{bits}.o"));
    run(Command::new("clang-14").arg(&m).args(CLANG_FLAGS).arg("-c").arg(f80).arg("-o").arg(&obj))
        .expect("clang-14 compiles f80.c");
    let clang_exe = dir.join(format!("check_clang{bits}"));
    run(Command::new("gcc").args(["-O0", &m]).arg(check).arg(&obj).arg("-o").arg(&clang_exe).arg("-lm"))
        .expect("gcc links the checker");
    // Everything by gcc.
    let gcc_exe = dir.join(format!("check_gcc{bits}"));
    run(Command::new("gcc").args(["-O0", &m]).arg(check).arg(f80).arg("-o").arg(&gcc_exe).arg("-lm"))
        .expect("gcc builds the checker");
    let mut failures = Vec::new();
    for (what, exe) in [("clang-14 -O1", &clang_exe), ("gcc", &gcc_exe)] {
        let out = Command::new(exe).args([SEED, ROUNDS]).output().expect("run the checker");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        println!("f80.c by {what}, {m}:\n{text}");
        if !out.status.success() || !text.contains("OK: 0 mismatches") {
            failures.push(format!("f80.c by {what}, {m}: {}", text.lines().last().unwrap_or("no output")));
        }
    }
    failures
}

#[test]
fn runtime_is_bit_exact_against_the_x87_in_both_data_models_and_both_compilers() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    if let Some(why) = missing_tools(tmp.path()) {
        eprintln!("skipping the long double runtime check: {why}");
        return;
    }
    let rt = runtime_dir();
    let (f80, check) = (rt.join("f80.c"), rt.join("f80_check.c"));
    let dir = tmp.path();
    // One data model per thread: the machine has two cores.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = ["64", "32"]
            .map(|bits| {
                scope.spawn({
                    let (f80, check) = (&f80, &check);
                    move || check_data_model(dir, f80, check, bits)
                })
            })
            .into_iter()
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("checker thread")).collect()
    });
    assert!(failures.is_empty(), "mismatches against the x87: {failures:#?}");
}

#[test]
fn runtime_ir_has_no_floats_memory_calls_vectors_or_data_dependent_branches() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    if run(Command::new("clang-14").arg("--version")).is_err() {
        eprintln!("skipping the long double runtime IR check: clang-14 not found");
        return;
    }
    const INTRINSICS: &[&str] = &[
        "llvm.ctlz",
        "llvm.cttz",
        "llvm.ctpop",
        "llvm.bswap",
        "llvm.fshl",
        "llvm.fshr",
        "llvm.umin",
        "llvm.umax",
        "llvm.smin",
        "llvm.smax",
        "llvm.abs",
        "llvm.uadd.with.overflow",
        "llvm.sadd.with.overflow",
        "llvm.usub.with.overflow",
        "llvm.ssub.with.overflow",
        "llvm.umul.with.overflow",
        "llvm.smul.with.overflow",
        "llvm.lifetime",
        "llvm.dbg",
    ];
    for bits in ["64", "32"] {
        let ll = tmp.path().join(format!("f80_{bits}.ll"));
        run(Command::new("clang-14")
            .arg(format!("-m{bits}"))
            .args(CLANG_FLAGS)
            .args(["-S", "-emit-llvm"])
            .arg(runtime_dir().join("f80.c"))
            .arg("-o")
            .arg(&ll))
        .expect("clang-14 compiles f80.c");
        let ir = std::fs::read_to_string(&ll).expect("read the IR");
        let mut functions = 0;
        let mut branches = 0;
        for line in ir.lines() {
            let code = line.split(';').next().unwrap_or("");
            // The module's header, attribute groups and metadata are not code.
            if ["target ", "source_filename", "attributes ", "!"].iter().any(|p| code.starts_with(p)) {
                continue;
            }
            if code.starts_with("define ") {
                functions += 1;
            }
            let words: Vec<&str> = code
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '@'))
                .filter(|w| !w.is_empty())
                .collect();
            for bad in [
                "float", "double", "x86_fp80", "fadd", "fmul", "fdiv", "alloca", "load", "switch", "udiv", "sdiv",
                "urem", "srem", "i128",
            ] {
                assert!(!words.contains(&bad), "-m{bits}: `{bad}` in the runtime's IR: {line}");
            }
            assert!(!code.contains(" x i"), "-m{bits}: a vector in the runtime's IR: {line}");
            if let Some(wide) = words.iter().find(|w| w.starts_with('i') && w[1..].parse::<u32>().is_ok_and(|n| n > 64))
            {
                panic!("-m{bits}: {wide} in the runtime's IR: {line}");
            }
            if let Some(at) = code.find("call ") {
                let callee = code[at..].split('@').nth(1).unwrap_or("");
                assert!(
                    INTRINSICS.iter().any(|i| callee.starts_with(i)),
                    "-m{bits}: a call of something but an allowed intrinsic: {line}"
                );
            }
            if code.trim_start().starts_with("br i1") {
                branches += 1;
            }
        }
        assert_eq!(functions, 13, "-m{bits}: the runtime defines its 13 functions");
        // The square root's loop, of a fixed trip count (the division's
        // is unrolled, so that bounded engines need no unwinding for it).
        assert!(branches <= 1, "-m{bits}: {branches} conditional branches in the runtime's IR");
    }
}
