//! `replay --emit-driver` and `replay --gdb` for a test that carries its
//! environment (`env-tests/*.json`: arguments, standard input, files).
//!
//! Why not a C driver alone: a C file cannot give a program its command
//! line or its standard input. Natively such a test is a command: the
//! program, built with the harness that serves its own
//! `__VERIFIER_nondet_*` values, run with the test's arguments, its
//! standard input from a file, in a directory that holds its files, with
//! no environment variables (walkdown's `getenv` finds none). The driver
//! is then that command as a POSIX shell script beside the C driver (which
//! serves the values after the environment's), and gdb gets the same
//! arguments, input and directory.
//!
//! The script holds every byte of the test: arguments as raw bytes in
//! single quotes (any byte but NUL, which an argument cannot hold), file
//! and input contents as `printf` formats with octal escapes, so that
//! neither trailing newlines nor `%` are lost.

use anyhow::{Context, Result};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use walkdown_ir::env::EnvInputs;

/// The script beside the C driver `driver` (an absolute path), replaying
/// `inputs`: it builds the program from `units` (absolute paths with their
/// flags, shell-quoted) with the driver and runs it.
pub fn driver_script(inputs: &EnvInputs, driver: &Path, units: &str, machine_flag: &str, origin: &str) -> Vec<u8> {
    let mut s: Vec<u8> = Vec::new();
    let mut line = |text: &str| {
        s.extend_from_slice(text.as_bytes());
        s.push(b'\n');
    };
    line("#!/bin/sh");
    line(&format!("# Written by walkdown replay --emit-driver: runs the program natively on {origin}:"));
    line("# its arguments, its standard input from a file, its files in a directory of its");
    line("# own, no environment variables; the C driver beside this script serves the");
    line("# program's own __VERIFIER_nondet_* values. The exit status is the program's.");
    line("set -e");
    line("dir=$(mktemp -d)");
    line("trap 'rm -rf \"$dir\"' EXIT");
    line(&format!(
        "gcc -g {machine_flag} {units} {} -lm -o \"$dir/program\"",
        shell_quote(driver.display().to_string().as_bytes())
    ));
    line("mkdir \"$dir/cwd\"");
    for (name, data) in &inputs.files {
        line(&format!("printf '{}' > \"$dir/cwd/\"{}", printf_format(data), shell_quote(name.as_bytes())));
    }
    line(&format!("printf '{}' > \"$dir/stdin\"", printf_format(&inputs.stdin)));
    line("cd \"$dir/cwd\"");
    line("set +e");
    let mut run = b"env -i \"$dir/program\"".to_vec();
    for a in &inputs.args {
        run.push(b' ');
        run.extend_from_slice(shell_quote(a).as_bytes_lossless());
    }
    run.extend_from_slice(b" < \"$dir/stdin\"");
    s.extend_from_slice(&run);
    s.extend_from_slice(b"\nstatus=$?\ncd / && rm -rf \"$dir\"\nexit $status\n");
    s
}

/// Starts gdb on `executable` with `inputs` (arguments, standard input,
/// files in `work`/gdb-cwd) and the values file `values` for the harness;
/// returns gdb's exit code.
pub fn gdb(executable: &Path, inputs: &EnvInputs, values: &Path, values_var: &str, work: &Path) -> Result<i32> {
    let cwd = work.join("gdb-cwd");
    std::fs::create_dir_all(&cwd).with_context(|| format!("cannot create {}", cwd.display()))?;
    for (name, data) in &inputs.files {
        let path = cwd.join(name);
        std::fs::write(&path, data).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let stdin: PathBuf = work.join("gdb.stdin");
    std::fs::write(&stdin, &inputs.stdin).with_context(|| format!("cannot write {}", stdin.display()))?;
    // gdb starts the program through the shell, so `set args` takes the
    // arguments quoted as the shell reads them, and the redirection.
    let mut set_args = b"set args".to_vec();
    for a in &inputs.args {
        set_args.push(b' ');
        set_args.extend_from_slice(shell_quote(a).as_bytes_lossless());
    }
    set_args.extend_from_slice(format!(" < {}", shell_quote(stdin.display().to_string().as_bytes())).as_bytes());
    let status = std::process::Command::new("gdb")
        .current_dir(&cwd)
        .arg("-q")
        .args(["-ex", "unset environment"])
        .args(["-ex", &format!("set environment {values_var}={}", values.display())])
        .arg("-ex")
        .arg(OsString::from_vec(set_args))
        .arg(executable)
        .status()
        .context("cannot start gdb (Debian `gdb`; scripts/setup installs it)")?;
    Ok(status.code().unwrap_or(1))
}

/// `bytes` in single quotes for a POSIX shell (any byte but NUL).
pub fn shell_quote(bytes: &[u8]) -> QuotedBytes {
    let mut out = vec![b'\''];
    for &b in bytes {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
    QuotedBytes(out)
}

/// A shell word that may hold bytes that are not UTF-8.
pub struct QuotedBytes(Vec<u8>);

impl QuotedBytes {
    fn as_bytes_lossless(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Display for QuotedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

/// `data` as a `printf` format inside single quotes: printable bytes as
/// they are, `%` doubled, every other byte (and `'` and `\`) as a
/// three-digit octal escape.
fn printf_format(data: &[u8]) -> String {
    let mut out = String::new();
    for &b in data {
        match b {
            b'%' => out.push_str("%%"),
            b'\'' | b'\\' => out.push_str(&format!("\\{b:03o}")),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_survives_the_shell() {
        let inputs = EnvInputs {
            args: vec![b"-m".to_vec(), b"it's \xff\n".to_vec()],
            stdin: b"50% off\\\n\n".to_vec(),
            files: vec![("in.txt".into(), b"a'b".to_vec())],
        };
        let dir = tempfile::tempdir().unwrap();
        // A "program" that prints its arguments, input and file.
        let fake = dir.path().join("show.c");
        std::fs::write(
            &fake,
            "#include <stdio.h>\nint main(int c, char **v) { for (int i = 1; i < c; i++) printf(\"[%s]\", v[i]);\n\
             int ch; while ((ch = getchar()) != EOF) putchar(ch); FILE *f = fopen(\"in.txt\", \"r\");\n\
             while (f && (ch = fgetc(f)) != EOF) putchar(ch); return 3; }\n",
        )
        .unwrap();
        let driver = dir.path().join("driver.c");
        std::fs::write(&driver, "int walkdown_driver_unused;\n").unwrap();
        let script = driver_script(&inputs, &driver, &fake.display().to_string(), "-m64", "a test");
        let path = dir.path().join("replay.sh");
        std::fs::write(&path, script).unwrap();
        let out = std::process::Command::new("sh").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.stdout, b"[-m][it's \xff\n]50% off\\\n\na'b".to_vec());
    }
}
