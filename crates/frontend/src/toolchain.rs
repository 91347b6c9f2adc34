//! Running clang-14 and opt-14 on a C file.

use crate::error::FrontendError;
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_ir::{DataModel, Program};

/// How to compile C.
#[derive(Clone, Debug)]
pub struct FrontendSettings {
    /// Pointer and `long` width; `-m64` or `-m32`. Default LP64.
    pub data_model: DataModel,
    /// The clang executable. Default `clang-14`.
    pub clang: PathBuf,
    /// The opt executable. Default `opt-14`.
    pub opt: PathBuf,
    /// Extra flags for clang (e.g. `-DNAME`). Default none.
    pub extra_flags: Vec<String>,
}

impl Default for FrontendSettings {
    fn default() -> Self {
        FrontendSettings {
            data_model: DataModel::LP64,
            clang: "clang-14".into(),
            opt: "opt-14".into(),
            extra_flags: Vec::new(),
        }
    }
}

/// Compiles `source` (a `.c` or `.i` file) to a verified IR program.
pub fn compile_c(source: &Path, settings: &FrontendSettings) -> Result<Program, FrontendError> {
    let dir = tempfile::tempdir().map_err(|e| FrontendError::Io { path: std::env::temp_dir(), source: e })?;
    let bc = compile_to_bitcode(source, settings, dir.path())?;
    let module = llvm_ir::Module::from_bc_path(&bc).map_err(FrontendError::Bitcode)?;
    let display_name = source.to_string_lossy().into_owned();
    crate::module::lower_module(&module, settings.data_model, &display_name)
}

/// Compiles `source` into `work_dir` and returns the path of the bitcode
/// after mem2reg.
pub fn compile_to_bitcode(source: &Path, settings: &FrontendSettings, work_dir: &Path) -> Result<PathBuf, FrontendError> {
    let text = std::fs::read(source).map_err(|e| FrontendError::Io { path: source.into(), source: e })?;
    let file_name = source.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "input.c".into());
    let copy = work_dir.join(&file_name);
    std::fs::write(&copy, blank_line_markers(&text)).map_err(|e| FrontendError::Io { path: copy.clone(), source: e })?;
    let raw = work_dir.join("raw.bc");
    let bc = work_dir.join("prog.bc");
    let arch = match settings.data_model {
        DataModel::LP64 => "-m64",
        DataModel::ILP32 => "-m32",
    };
    let mut clang = Command::new(&settings.clang);
    clang
        .current_dir(work_dir)
        .args(["-c", "-emit-llvm", "-g", "-O0", "-Xclang", "-disable-O0-optnone", "-w"])
        .args(["-std=gnu11", "-fno-builtin", "-ffp-contract=off", arch])
        .args(&settings.extra_flags)
        .arg(&file_name)
        .arg("-o")
        .arg(&raw);
    run(clang, &settings.clang, source)?;
    let mut opt = Command::new(&settings.opt);
    opt.arg("-passes=mem2reg").arg(&raw).arg("-o").arg(&bc);
    run(opt, &settings.opt, source)?;
    Ok(bc)
}

fn run(mut cmd: Command, tool: &Path, file: &Path) -> Result<(), FrontendError> {
    let out = cmd
        .output()
        .map_err(|e| FrontendError::ToolMissing { tool: tool.display().to_string(), source: e })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(FrontendError::Compile {
            tool: tool.display().to_string(),
            file: file.into(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// Replaces preprocessor line markers (`# 12 "file.h" 1`, `#line 5`) with
/// empty lines, keeping every other line where it is.
pub fn blank_line_markers(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        if is_line_marker(line) {
            if line.ends_with(b"\n") {
                out.push(b'\n');
            }
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// `^\s*#\s*(line\s+)?\d+(\s+"[^"]*")?(\s+\d+)*\s*$`
fn is_line_marker(line: &[u8]) -> bool {
    let s = match std::str::from_utf8(line) {
        Ok(s) => s.trim(),
        Err(_) => return false,
    };
    let Some(rest) = s.strip_prefix('#') else { return false };
    let mut rest = rest.trim_start();
    if let Some(r) = rest.strip_prefix("line") {
        if !r.starts_with(char::is_whitespace) {
            return false;
        }
        rest = r.trim_start();
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    rest = &rest[digits..];
    if rest.trim_start().starts_with('"') {
        if !rest.starts_with(char::is_whitespace) {
            return false;
        }
        let r = rest.trim_start();
        match r[1..].find('"') {
            Some(end) => rest = &r[end + 2..],
            None => return false,
        }
    }
    // Remaining: flags, each a number preceded by whitespace.
    let mut it = rest;
    loop {
        if it.trim().is_empty() {
            return true;
        }
        if !it.starts_with(char::is_whitespace) {
            return false;
        }
        it = it.trim_start();
        let d = it.bytes().take_while(u8::is_ascii_digit).count();
        if d == 0 {
            return false;
        }
        it = &it[d..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_markers_are_blanked() {
        let src = b"# 1 \"a.c\"\nint x;\n#line 7\n# 3 \"b.h\" 1 3\n#define A 1\n#include <x>\n";
        let out = String::from_utf8(blank_line_markers(src)).unwrap();
        assert_eq!(out, "\nint x;\n\n\n#define A 1\n#include <x>\n");
    }
}
