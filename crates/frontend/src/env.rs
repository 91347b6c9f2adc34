//! The program's environment as inputs: which one a program gets, and the
//! start function that draws it (see `walkdown_ir::env` for the bounds and
//! the order of the draws, and `runtime/libc/env.c` for the streams the C
//! library's input functions read).
//!
//! Which environment: a program whose `main` takes parameters gets
//! arguments; a program that reads standard input (it declares `getchar`,
//! `fgets`, `scanf`, `read`, `stdin`, ...) gets standard input; named files
//! only when asked for. A program that calls `__VERIFIER_nondet_*` is a
//! verification task: its inputs are those calls and its environment is
//! fixed by the convention (no arguments, standard input at end of file),
//! so it gets none unless the request names bounds explicitly.
//!
//! The start function is C generated per program, straight-line (one
//! statement per drawn byte: no loop for an engine to unwind, so a bounded
//! engine's unwinding is spent on the program), compiled without debug
//! information (it has no goals) and linked into the program before the C
//! library, whose `env.c` it calls.

use crate::error::FrontendError;
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_ir::env::{ArgBound, Environment, FileBound, START_FUNCTION};

/// The bounds used when a program gets arguments or standard input and
/// the request does not name them: small, so that every byte stays within
/// reach of the search (KLEE's coreutils study used up to 3 arguments of
/// up to 10 bytes and 8 bytes of standard input).
pub const DEFAULT_ARGS: ArgBound = ArgBound { count: 3, len: 8 };
/// See [`DEFAULT_ARGS`].
pub const DEFAULT_STDIN: u32 = 32;

/// What the user asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvRequest {
    /// No environment at all, whatever the program reads.
    pub off: bool,
    /// Argument bounds; `Some` also gives a verification task arguments.
    /// A count of 0 gives no arguments.
    pub args: Option<ArgBound>,
    /// Standard input's bound; `Some` also gives a verification task
    /// standard input. 0 gives none.
    pub stdin: Option<u32>,
    /// Named files.
    pub files: Vec<FileBound>,
}

/// Functions (and the one global) through which a program reads standard
/// input.
const STDIN_READERS: &[&str] = &[
    "getchar",
    "getc",
    "fgetc",
    "_IO_getc",
    "getchar_unlocked",
    "getc_unlocked",
    "fgetc_unlocked",
    "fgets",
    "fgets_unlocked",
    "gets",
    "fread",
    "fread_unlocked",
    "scanf",
    "__isoc99_scanf",
    "vscanf",
    "__isoc99_vscanf",
    "getline",
    "getdelim",
    "read",
    "stdin",
];

/// The environment a program of module text `text` gets under `request`.
pub fn choose(request: &EnvRequest, text: &str) -> Option<Environment> {
    if request.off {
        return None;
    }
    let task = text.contains("@__VERIFIER_nondet_");
    let explicit = request.args.is_some() || request.stdin.is_some() || !request.files.is_empty();
    if task && !explicit {
        return None;
    }
    let args = match request.args {
        Some(a) if a.count == 0 => None,
        Some(a) => main_takes_args(text).then_some(a),
        None => main_takes_args(text).then_some(DEFAULT_ARGS),
    };
    let stdin = match request.stdin {
        Some(0) => None,
        Some(n) => Some(n),
        None => reads_stdin(text).then_some(DEFAULT_STDIN),
    };
    let env = Environment { args, stdin, files: request.files.clone() };
    (!env.is_empty()).then_some(env)
}

/// Whether the module defines `main` with parameters.
fn main_takes_args(text: &str) -> bool {
    text.lines().filter(|l| l.starts_with("define ")).any(|l| l.contains(" @main(") && !l.contains(" @main()"))
}

/// Whether the module declares one of [`STDIN_READERS`].
fn reads_stdin(text: &str) -> bool {
    text.lines().filter(|l| l.starts_with("declare ") || l.starts_with('@')).any(|l| {
        STDIN_READERS.iter().any(|name| {
            let at = format!("@{name}");
            l.split([' ', '(']).any(|w| w == at)
        })
    })
}

/// Whether a program of module text `text` registers functions to run at
/// exit (gnulib's `close_stdout`, in every coreutils program).
pub(crate) fn registers_at_exit(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("declare ") && l.contains(" @atexit("))
}

/// The start function's C source for `env`; `main` is called with
/// `(argc, argv)` when the environment has arguments, else without. With
/// `at_exit`, the functions the program registered with `atexit` run after
/// `main` returns (`runtime/libc/env.c`); without, the start function
/// stays free of that loop.
pub fn start_source(env: &Environment, at_exit: bool) -> String {
    let mut c = String::from(
        "/* walkdown's start function (generated): draws the environment, then calls main. */\n\
         unsigned int __VERIFIER_nondet_uint(void);\n\
         char __VERIFIER_nondet_char(void);\n\
         void __VERIFIER_assume(int);\n\
         void __walkdown_env_set_stdin(const unsigned char *, unsigned long);\n\
         void __walkdown_env_add_file(const char *, const unsigned char *, unsigned long);\n\
         void __walkdown_run_atexit(void);\n",
    );
    c.push_str(if env.args.is_some() { "int main(int, char **);\n" } else { "int main();\n" });
    if let Some(a) = env.args {
        // Zero-initialised: each argument's last byte stays its NUL, and
        // `argv[argc]` (one past the last argument given) is NULL.
        c.push_str(&format!(
            "static char wd_arg[{}][{}];\nstatic char *wd_argv[{}];\n",
            a.count,
            a.len + 1,
            a.count + 2
        ));
    }
    let stream = |c: &mut String, var: &str, most: u32| {
        c.push_str(&format!("  static unsigned char {var}[{}];\n", most.max(1)));
        c.push_str(&format!("  unsigned int {var}_len = __VERIFIER_nondet_uint();\n"));
        c.push_str(&format!("  __VERIFIER_assume({var}_len <= {most}u);\n"));
        for j in 0..most {
            c.push_str(&format!("  {var}[{j}] = __VERIFIER_nondet_char();\n"));
        }
    };
    c.push_str(&format!("int {START_FUNCTION}(void) {{\n"));
    if let Some(a) = env.args {
        c.push_str("  unsigned int argc = __VERIFIER_nondet_uint();\n");
        c.push_str(&format!("  __VERIFIER_assume(argc <= {}u);\n", a.count));
        for i in 0..a.count {
            for j in 0..a.len {
                c.push_str(&format!("  wd_arg[{i}][{j}] = __VERIFIER_nondet_char();\n"));
            }
        }
        c.push_str("  wd_argv[0] = \"prog\";\n");
        for i in 0..a.count {
            c.push_str(&format!("  wd_argv[{}] = argc > {i}u ? wd_arg[{i}] : 0;\n", i + 1));
        }
    }
    if let Some(n) = env.stdin {
        stream(&mut c, "wd_stdin", n);
        c.push_str("  __walkdown_env_set_stdin(wd_stdin, wd_stdin_len);\n");
    }
    for (i, f) in env.files.iter().enumerate() {
        let var = format!("wd_file{i}");
        stream(&mut c, &var, f.len);
        c.push_str(&format!("  __walkdown_env_add_file({}, {var}, {var}_len);\n", c_string(&f.name)));
    }
    c.push_str(if env.args.is_some() {
        "  int status = main((int)argc + 1, wd_argv);\n"
    } else {
        "  int status = main();\n"
    });
    if at_exit {
        c.push_str("  __walkdown_run_atexit();\n");
    }
    c.push_str("  return status;\n}\n");
    c
}

/// `s` as a C string literal.
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => out.push_str(&format!("\\{}", b as char)),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// Compiles the start function for `env` and links it into the module
/// `ll`; returns the linked module's path.
pub(crate) fn link_start(
    env: &Environment,
    at_exit: bool,
    ll: &Path,
    settings: &crate::toolchain::FrontendSettings,
    arch: &str,
    work_dir: &Path,
) -> Result<PathBuf, FrontendError> {
    let src = work_dir.join("walkdown_start.c");
    std::fs::write(&src, start_source(env, at_exit)).map_err(|e| FrontendError::Io { path: src.clone(), source: e })?;
    let bc = work_dir.join("walkdown_start.ll");
    let mut clang = Command::new(&settings.clang);
    clang
        .current_dir(work_dir)
        .args(["-S", "-emit-llvm", "-O1", "-ffreestanding", "-fno-builtin", "-w", arch])
        .arg(&src)
        .arg("-o")
        .arg(&bc);
    crate::toolchain::run(clang, &settings.clang, &src)?;
    let linked = work_dir.join("with_start.ll");
    let mut link = Command::new(&settings.llvm_link);
    link.arg("-S").arg(ll).arg(&bc).arg("-o").arg(&linked);
    crate::toolchain::run(link, &settings.llvm_link, ll)?;
    Ok(linked)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILTER: &str = "define dso_local i32 @main(i32 noundef %0, i8** noundef %1) {\n}\n\
                          declare i8* @fgets(i8* noundef, i32 noundef, %struct._IO_FILE* noundef)\n\
                          @stdin = external global %struct._IO_FILE*, align 8\n";

    #[test]
    fn a_filter_gets_arguments_and_standard_input_and_a_task_gets_nothing() {
        let env = choose(&EnvRequest::default(), FILTER).unwrap();
        assert_eq!(env.args, Some(DEFAULT_ARGS));
        assert_eq!(env.stdin, Some(DEFAULT_STDIN));
        let task = format!("{FILTER}declare i32 @__VERIFIER_nondet_int()\n");
        assert_eq!(choose(&EnvRequest::default(), &task), None);
        let asked = EnvRequest { stdin: Some(4), ..Default::default() };
        assert_eq!(choose(&asked, &task).unwrap().stdin, Some(4));
        assert_eq!(choose(&EnvRequest { off: true, ..Default::default() }, FILTER), None);
    }

    #[test]
    fn a_main_without_parameters_that_reads_nothing_gets_nothing() {
        let text = "define dso_local i32 @main() {\n}\ndeclare i32 @printf(i8*, ...)\n";
        assert_eq!(choose(&EnvRequest::default(), text), None);
        assert!(!reads_stdin("declare i32 @getchar_like()\n"));
    }

    #[test]
    fn the_start_function_draws_in_the_documented_order() {
        let env = Environment {
            args: Some(ArgBound { count: 2, len: 4 }),
            stdin: Some(8),
            files: vec![FileBound { name: "a\"b".into(), len: 3 }],
        };
        let c = start_source(&env, false);
        let argc = c.find("argc = __VERIFIER_nondet_uint").unwrap();
        let stdin = c.find("wd_stdin_len = __VERIFIER_nondet_uint").unwrap();
        let file = c.find("wd_file0_len = __VERIFIER_nondet_uint").unwrap();
        assert!(argc < stdin && stdin < file);
        assert!(c.contains("\"a\\\"b\""));
        assert!(c.contains("int status = main((int)argc + 1, wd_argv);"));
        assert!(!c.contains("__walkdown_run_atexit();"));
        assert!(start_source(&env, true).contains("  __walkdown_run_atexit();\n  return status;"));
    }
}
