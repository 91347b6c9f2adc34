//! Compiles the C library walkdown runs as code: musl 1.2.3's portable C
//! functions, for both data models, into one LLVM bitcode module each,
//! which the frontend links into a program the functions it calls and has
//! no body for (as KLEE links klee-uclibc).
//!
//! Why musl: its functions are short, portable C with no dependence on a
//! dynamic loader or on thread-local storage beyond one thread pointer,
//! and Debian ships its source (`scripts/fetch-musl` puts it under
//! `target/musl/`; nothing of it is committed). Why at build time: the
//! bitcode is then part of the binary (`include_bytes!`), rebuilt when the
//! source, the glue or this script changes, and a run never compiles the
//! library.
//!
//! What is taken: whole directories of portable code (ctype, string,
//! stdlib, multibyte, math, regex, search, locale, errno), the scanners of
//! `internal/`, and the stdio functions that work on strings (`sprintf`,
//! `sscanf` and their `v`, `n`, wide and allocating variants). What is
//! left out, file by file, and written into `libc-manifest.txt` beside the
//! bitcode:
//!
//! - files that define a function walkdown models by hand (`malloc`,
//!   `memcpy`, `strlen`, the input and output functions, ...: the list is
//!   `walkdown_ir::Builtin`), so the model stays the one every engine
//!   uses; musl's own calls of them reach the model;
//! - files with inline assembly (system calls, the x87), which the
//!   frontend cannot lower;
//! - files clang cannot compile for the data model.
//!
//! musl's internal `vfprintf` and `vfscanf` are renamed
//! (`__walkdown_libc_*`): a program's `vfprintf(stdout, ...)` is the
//! output model, while `sprintf` needs the real formatter behind it.
//! The thread pointer musl reads with assembly is replaced by one static
//! thread descriptor (`runtime/libc/pthread_arch.h`, `glue.c`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Directories of musl's `src/` taken whole.
const DIRS: &[&str] = &["ctype", "string", "stdlib", "multibyte", "math", "regex", "search", "locale", "errno"];

/// Single files taken from the rest of `src/`: the number and float
/// scanners, the library's global state, the stdio functions that read or
/// write strings rather than streams (and the buffer writer and wide
/// character functions they call), and the floating-point environment of
/// an architecture without one (round to nearest, no exception flags: the
/// interpreter's).
const FILES: &[&str] = &[
    "internal/floatscan.c",
    "internal/intscan.c",
    "internal/shgetc.c",
    "internal/libc.c",
    "stdio/__toread.c",
    "stdio/__towrite.c",
    "stdio/__uflow.c",
    "stdio/__overflow.c",
    "stdio/fwrite.c",
    "stdio/fwide.c",
    "stdio/fputwc.c",
    "stdio/fgetwc.c",
    "stdio/getwc.c",
    "fenv/fenv.c",
    "fenv/fesetround.c",
    "stdio/ungetwc.c",
    "stdio/ungetc.c",
    "stdio/snprintf.c",
    "stdio/sprintf.c",
    "stdio/vsnprintf.c",
    "stdio/vsprintf.c",
    "stdio/asprintf.c",
    "stdio/vasprintf.c",
    "stdio/vfprintf.c",
    "stdio/sscanf.c",
    "stdio/vsscanf.c",
    "stdio/vfscanf.c",
    "stdio/swprintf.c",
    "stdio/vswprintf.c",
    "stdio/vfwprintf.c",
    "stdio/swscanf.c",
    "stdio/vswscanf.c",
    "stdio/vfwscanf.c",
    // Reading streams: standard input and the named files of a program's
    // environment (`runtime/libc/env.c` is what they read from).
    "stdio/stdin.c",
    "stdio/getc.c",
    "stdio/fgetc.c",
    "stdio/getchar.c",
    "stdio/getc_unlocked.c",
    "stdio/getchar_unlocked.c",
    "stdio/fgets.c",
    "stdio/gets.c",
    "stdio/fread.c",
    "stdio/getline.c",
    "stdio/getdelim.c",
    "stdio/scanf.c",
    "stdio/fscanf.c",
    "stdio/vscanf.c",
    "stdio/feof.c",
    "stdio/ferror.c",
    "stdio/clearerr.c",
    "stdio/fileno.c",
    // Command-line options: getopt and getopt_long (their messages go to
    // stderr, a FILE whose writes env.c discards).
    "misc/getopt.c",
    "misc/getopt_long.c",
    "stdio/stderr.c",
    // What GNU programs call besides: the stdio extensions gnulib's
    // `freading` and `close_stream` use, and `reallocarray`.
    "stdio/ext.c",
    "malloc/reallocarray.c",
];

/// Files kept although they make a system call (see
/// `runtime/libc/syscall_arch.h`): the call wakes the waiters of a FILE's
/// lock, and under walkdown there is one thread and no FILE is locked.
const SYSCALL_UNREACHED: &[&str] = &["stdio/getc.c", "stdio/fgetc.c", "stdio/getchar.c"];

/// Functions musl calls internally that walkdown models by hand under the
/// same name for the program's own calls (the stream output and input
/// models); musl's definitions are renamed so its string functions keep
/// their real formatter and scanner.
const RENAMED: &[&str] = &["vfprintf", "fwrite"];

/// musl files whose functions the glue defines instead, and why.
const REPLACED: &[(&str, &str)] = &[
    // musl's case-mapping tables hold 0 outside -1..127, glibc's hold the
    // byte's unsigned value there (glibc's inline `tolower` reads them).
    ("ctype/__ctype_tolower_loc.c", "glue.c defines it with glibc's table layout"),
    ("ctype/__ctype_toupper_loc.c", "glue.c defines it with glibc's table layout"),
    // musl reads these strings a machine word at a time, past the string's
    // end within the word: harmless natively, an out-of-bounds read of the
    // object in walkdown's memory model.
    ("string/strchrnul.c", "reads whole words past the string's end; glue.c has a byte loop"),
    ("string/stpcpy.c", "reads whole words past the string's end; glue.c has a byte loop"),
    ("string/stpncpy.c", "reads whole words past the string's end; glue.c has a byte loop"),
    ("string/strlcpy.c", "reads whole words past the string's end; glue.c has a byte loop"),
    ("string/memccpy.c", "reads whole words past the string's end; glue.c has a byte loop"),
];

/// One data model: its name in file names, clang's flag, musl's arch.
struct Target {
    name: &'static str,
    flag: &'static str,
    arch: &'static str,
}

const TARGETS: &[Target] =
    &[Target { name: "lp64", flag: "-m64", arch: "x86_64" }, Target { name: "ilp32", flag: "-m32", arch: "i386" }];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let glue = manifest_dir.join("runtime/libc");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", glue.display());
    println!("cargo:rerun-if-env-changed=WALKDOWN_MUSL_SRC");
    let musl = musl_source(&manifest_dir);
    println!("cargo:rerun-if-changed={}", musl.join("VERSION").display());
    for target in TARGETS {
        build_target(&musl, &glue, &out, target);
    }
}

/// Where `scripts/fetch-musl` put the source; a clear stop if it did not.
fn musl_source(manifest_dir: &Path) -> PathBuf {
    let path = match std::env::var_os("WALKDOWN_MUSL_SRC") {
        Some(p) => PathBuf::from(p),
        None => manifest_dir.join("../../target/musl/musl-1.2.3"),
    };
    let version = std::fs::read_to_string(path.join("VERSION")).unwrap_or_default();
    if version.trim() != "1.2.3" {
        panic!(
            "walkdown-frontend: musl 1.2.3's source is not at {} (walkdown runs the C library as code, compiled from it); \
             run scripts/setup (or scripts/fetch-musl), or set WALKDOWN_MUSL_SRC",
            path.display()
        );
    }
    path
}

fn build_target(musl: &Path, glue: &Path, out: &Path, target: &Target) {
    let work = out.join(format!("musl-{}", target.name));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("ll")).unwrap();
    generated_headers(musl, &work, target.arch);
    let mut sources: Vec<PathBuf> = Vec::new();
    for dir in DIRS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(musl.join("src").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        files.sort();
        sources.extend(files);
    }
    sources.extend(FILES.iter().map(|f| musl.join("src").join(f)));
    sources.push(glue.join("glue.c"));
    sources.push(glue.join("env.c"));
    sources.push(glue.join("gnuregex.c"));
    let flags = clang_flags(musl, glue, &work, target);
    let compiled = compile_all(&sources, &flags, &work.join("ll"));
    let mut kept = Vec::new();
    let mut manifest = String::from("# musl 1.2.3 files compiled into walkdown's C library (generated by build.rs)\n");
    for (src, result) in sources.iter().zip(compiled) {
        let rel = src.strip_prefix(musl).unwrap_or(src).display().to_string();
        if let Some((_, why)) = REPLACED.iter().find(|(r, _)| src.ends_with(r)) {
            manifest.push_str(&format!("left out {rel}: {why}\n"));
            continue;
        }
        let syscall_ok = SYSCALL_UNREACHED.iter().any(|f| src.ends_with(f));
        match result.and_then(|ll| rewrite(&ll).and_then(|()| judge(&ll, syscall_ok)).map(|()| ll)) {
            Ok(ll) => {
                manifest.push_str(&format!("kept {rel}\n"));
                kept.push(ll);
            }
            Err(why) if src.starts_with(glue) => panic!("walkdown's own {rel} must compile: {why}"),
            Err(why) => manifest.push_str(&format!("left out {rel}: {why}\n")),
        }
    }
    let lib = out.join(format!("libc-{}.bc", target.name));
    let mut link = Command::new("llvm-link-14");
    link.args(&kept).arg("-o").arg(&lib);
    run(link, "llvm-link-14");
    let defs = defined_functions(&lib);
    std::fs::write(out.join(format!("libc-{}.defs", target.name)), defs.join("\n")).unwrap();
    std::fs::write(out.join(format!("libc-{}-manifest.txt", target.name)), manifest).unwrap();
}

/// The headers musl's build generates: `bits/alltypes.h`,
/// `bits/syscall.h` and `version.h`.
fn generated_headers(musl: &Path, work: &Path, arch: &str) {
    let bits = work.join("include/bits");
    std::fs::create_dir_all(&bits).unwrap();
    let mut sed = Command::new("sed");
    sed.arg("-f")
        .arg(musl.join("tools/mkalltypes.sed"))
        .arg(musl.join(format!("arch/{arch}/bits/alltypes.h.in")))
        .arg(musl.join("include/alltypes.h.in"));
    let alltypes = sed.output().expect("sed");
    assert!(alltypes.status.success(), "sed on alltypes.h.in failed");
    std::fs::write(bits.join("alltypes.h"), alltypes.stdout).unwrap();
    let syscall_in = std::fs::read_to_string(musl.join(format!("arch/{arch}/bits/syscall.h.in"))).unwrap();
    let mut syscall = syscall_in.clone();
    for line in syscall_in.lines().filter(|l| l.contains("__NR_")) {
        syscall.push_str(&line.replace("__NR_", "SYS_"));
        syscall.push('\n');
    }
    std::fs::write(bits.join("syscall.h"), syscall).unwrap();
    let internal = work.join("src/internal");
    std::fs::create_dir_all(&internal).unwrap();
    std::fs::write(internal.join("version.h"), "#define VERSION \"1.2.3\"\n").unwrap();
}

/// musl's own flags (its Makefile's), optimised so that short decisions
/// become selects the concolic engine does not fork on, without
/// vectorisation (the IR has no vectors) and without contracting
/// `a * b + c` into one fused operation (the program is compiled the same way,
/// and glibc's code rounds each operation).
fn clang_flags(musl: &Path, glue: &Path, work: &Path, target: &Target) -> Vec<String> {
    let mut flags: Vec<String> = [
        "-S",
        "-emit-llvm",
        "-O1",
        "-fno-vectorize",
        "-fno-slp-vectorize",
        "-ffp-contract=off",
        "-std=c99",
        "-nostdinc",
        "-ffreestanding",
        "-fno-builtin",
        "-D_XOPEN_SOURCE=700",
        "-w",
        target.flag,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let includes = [
        glue.to_path_buf(),
        musl.join(format!("arch/{}", target.arch)),
        musl.join("arch/generic"),
        work.join("src/internal"),
        musl.join("src/include"),
        musl.join("src/internal"),
        work.join("include"),
        musl.join("include"),
    ];
    flags.extend(includes.iter().map(|p| format!("-I{}", p.display())));
    flags
}

/// Compiles every source to textual IR, on as many threads as there are
/// cores; a file clang refuses is an `Err` with clang's first line.
fn compile_all(sources: &[PathBuf], flags: &[String], dir: &Path) -> Vec<Result<PathBuf, String>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<PathBuf, String>>>> = Mutex::new(vec![None; sources.len()]);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(src) = sources.get(i) else { break };
                let ll = dir.join(format!("{i:04}.ll"));
                let out = Command::new("clang-14").args(flags).arg(src).arg("-o").arg(&ll).output();
                let result = match out {
                    Ok(o) if o.status.success() => Ok(ll),
                    Ok(o) => Err(format!(
                        "clang-14 refused it: {}",
                        String::from_utf8_lossy(&o.stderr).lines().find(|l| l.contains("error")).unwrap_or("")
                    )),
                    Err(e) => panic!("clang-14 not found ({e}): run scripts/setup"),
                };
                results.lock().unwrap()[i] = Some(result);
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(Option::unwrap).collect()
}

/// Renames musl's definitions and uses of the [`RENAMED`] functions and
/// drops the aliases that would define a name walkdown models by hand
/// (`__isoc99_vfscanf`, which musl makes an alias of `vfscanf`). Done on
/// the compiled text rather than with `-D`, which would also rename the
/// target of `weak_alias`, a string the preprocessor does not expand.
fn rewrite(ll: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(ll).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.starts_with('@') && line.contains(" alias ") {
            let name = line[1..line.find(" = ").unwrap_or(1)].trim_matches('"');
            if walkdown_ir::Builtin::from_name(name).is_some() {
                continue;
            }
        }
        out.push_str(&rename_symbols(line));
        out.push('\n');
    }
    std::fs::write(ll, out).map_err(|e| e.to_string())
}

/// `line` with every `@vfprintf` (a whole symbol) spelled
/// `@__walkdown_libc_vfprintf`, and so on for each of [`RENAMED`].
fn rename_symbols(line: &str) -> String {
    let mut line = line.to_string();
    for name in RENAMED {
        let from = format!("@{name}");
        let mut at = 0;
        while let Some(i) = line[at..].find(&from).map(|i| i + at) {
            let after = line[i + from.len()..].chars().next();
            if after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                at = i + from.len();
                continue;
            }
            line.replace_range(i..i + from.len(), &format!("@__walkdown_libc_{name}"));
            at = i + from.len();
        }
    }
    line
}

/// Whether a compiled file may join the library: no inline assembly, no
/// system call (unless `syscall_ok`: see [`SYSCALL_UNREACHED`]), and no
/// definition of a function walkdown models by hand.
fn judge(ll: &Path, syscall_ok: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(ll).unwrap();
    if text.lines().any(|l| l.contains(" asm ") && !l.starts_with(';')) {
        return Err("inline assembly".into());
    }
    let defines_it = text.lines().any(|l| l.starts_with("define ") && l.contains("@__walkdown_syscall("));
    if !syscall_ok && !defines_it && text.contains("@__walkdown_syscall(") {
        return Err("makes a system call".into());
    }
    for name in defined_in(&text) {
        if walkdown_ir::Builtin::from_name(&name).is_some() {
            return Err(format!("defines `{name}`, which walkdown models by hand"));
        }
    }
    Ok(())
}

/// The external functions a textual module defines, and its aliases
/// (musl's `weak_alias`).
fn defined_in(text: &str) -> Vec<String> {
    let local = |l: &str| l.contains(" internal ") || l.contains(" private ");
    let functions = text.lines().filter(|l| l.starts_with("define ") && !local(l)).filter_map(|l| {
        let at = l.find(" @")? + 2;
        let end = l[at..].find('(')? + at;
        Some(l[at..end].trim_matches('"').to_string())
    });
    let aliases = text.lines().filter(|l| l.starts_with('@') && l.contains(" alias ") && !local(l)).filter_map(|l| {
        let end = l.find(" = ")?;
        Some(l[1..end].trim_matches('"').to_string())
    });
    functions.chain(aliases).collect()
}

/// The external functions of the linked library, from its textual form.
fn defined_functions(lib: &Path) -> Vec<String> {
    let mut dis = Command::new("llvm-dis-14");
    dis.arg(lib).arg("-o").arg("-");
    let out = dis.output().expect("llvm-dis-14");
    assert!(out.status.success(), "llvm-dis-14 failed on {}", lib.display());
    let mut names = defined_in(&String::from_utf8_lossy(&out.stdout));
    names.sort();
    names
}

fn run(mut cmd: Command, tool: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{tool} not found ({e}): run scripts/setup"));
    if !out.status.success() {
        panic!("{tool} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
}
