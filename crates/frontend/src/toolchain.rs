//! From C to a verified IR program: the units compiled and linked
//! (`units.rs`), walkdown's `long double` runtime and the C library linked
//! in, the module lowered.

use crate::error::FrontendError;
use crate::module::UnitFile;
use crate::units::LinkedUnits;
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_ir::source::SourceInfo;
use walkdown_ir::units::{Sources, Unit};
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
    /// The llvm-link executable, which links walkdown's `long double`
    /// runtime into programs that use `long double`. Default
    /// `llvm-link-14`.
    pub llvm_link: PathBuf,
    /// Link the C library's code into programs that call it (see
    /// `libc.rs`). Default true.
    pub link_libc: bool,
    /// Where compiled units are kept between runs (see `units/compile.rs`);
    /// `None` (the default) compiles each unit in every run, once.
    pub unit_cache: Option<PathBuf>,
    /// The environment (arguments, standard input, files) to give the
    /// program as inputs (see `env.rs`). Default: chosen by what the
    /// program reads.
    pub environment: crate::env::EnvRequest,
}

impl Default for FrontendSettings {
    fn default() -> Self {
        FrontendSettings {
            data_model: DataModel::LP64,
            clang: "clang-14".into(),
            opt: "opt-14".into(),
            extra_flags: Vec::new(),
            llvm_link: "llvm-link-14".into(),
            link_libc: true,
            unit_cache: None,
            environment: crate::env::EnvRequest::default(),
        }
    }
}

/// A program compiled from its units.
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    /// The verified IR program.
    pub program: Program,
    /// What the debug information says about the source's loops and
    /// variables.
    pub source_info: SourceInfo,
    /// The units the program is made of, in the order of its file table
    /// (file `k` is unit `k`): what a native build compiles.
    pub units: Vec<Unit>,
}

/// Compiles `source` (a `.c` or `.i` file) to a verified IR program.
pub fn compile_c(source: &Path, settings: &FrontendSettings) -> Result<Program, FrontendError> {
    compile_c_with_sources(source, settings).map(|(p, _)| p)
}

/// [`compile_c`], also returning what the debug information says about the
/// source's loops and variables.
pub fn compile_c_with_sources(
    source: &Path,
    settings: &FrontendSettings,
) -> Result<(Program, SourceInfo), FrontendError> {
    compile_program(&Sources::one(source), settings).map(|c| (c.program, c.source_info))
}

/// Compiles the units of `sources`, links those the program uses into one
/// module (see `units.rs`), links walkdown's runtimes and the C library
/// into it, and lowers it to a verified IR program.
pub fn compile_program(sources: &Sources, settings: &FrontendSettings) -> Result<CompiledProgram, FrontendError> {
    let dir = tempfile::tempdir().map_err(|e| FrontendError::Io { path: std::env::temp_dir(), source: e })?;
    let linked = crate::units::link_units(sources, settings, dir.path(), settings.unit_cache.as_deref())?;
    match lower_linked(&linked, settings, dir.path()) {
        // A library function the frontend cannot lower (musl's `long
        // double` scanner reads the bits of an `x86_fp80` in ways it does
        // not support yet) must not make the program unusable: it is
        // lowered as before the library was linked, the library's
        // functions without bodies, and runs that call them name them as
        // functions without a model.
        Err(FrontendError::Unsupported { .. }) if settings.link_libc => {
            lower_linked(&linked, &FrontendSettings { link_libc: false, ..settings.clone() }, dir.path())
        }
        other => other,
    }
}

/// The units a program of `sources` is made of (see [`CompiledProgram::units`]),
/// for a native build that does not lower it: the units as given when all
/// are linked whole, else those linking chooses (which compiles them).
pub fn resolve_units(sources: &Sources, settings: &FrontendSettings) -> Result<Vec<Unit>, FrontendError> {
    if !sources.needs_resolution() {
        return Ok(sources.units.clone());
    }
    let dir = tempfile::tempdir().map_err(|e| FrontendError::Io { path: std::env::temp_dir(), source: e })?;
    Ok(crate::units::link_units(sources, settings, dir.path(), settings.unit_cache.as_deref())?.units)
}

/// Links the runtimes into the program's linked units and lowers the result.
fn lower_linked(
    linked: &LinkedUnits,
    settings: &FrontendSettings,
    work_dir: &Path,
) -> Result<CompiledProgram, FrontendError> {
    let Runtimes { ll, own, environment } = link_runtimes(&linked.ll, settings, work_dir, &linked.units[0].path)?;
    let module = llvm_ir::Module::from_ir_path(&ll).map_err(FrontendError::Bitcode)?;
    let text = std::fs::read_to_string(&ll).map_err(|e| FrontendError::Io { path: ll.clone(), source: e })?;
    let huge = crate::module::huge_global_arrays(&text).map_err(|construct| FrontendError::Unsupported {
        construct,
        file: linked.units[0].path.to_string_lossy().into_owned(),
        line: 0,
    })?;
    let files: Vec<UnitFile> = linked
        .units
        .iter()
        .zip(&linked.debug_names)
        .map(|(u, debug)| UnitFile { debug_name: debug.clone(), shown: u.path.to_string_lossy().into_owned() })
        .collect();
    let (mut program, source_info) =
        crate::module::lower_module_with_sources(&module, settings.data_model, &files, huge, Some(&text))?;
    if let Some(own) = own {
        crate::libc::mark_library(&mut program, &own);
    }
    program.environment = environment;
    for (k, unit) in linked.units.iter().enumerate() {
        if let Ok(text) = std::fs::read(&unit.path) {
            unlocate_closing_brace_jumps(&mut program, walkdown_ir::FileId::from_u32(k as u32), &text);
        }
    }
    crate::units::readable_static_names(&mut program, &linked.local_functions);
    Ok(CompiledProgram { program, source_info, units: linked.units.clone() })
}

/// Clang gives the jump that leaves a `{ ... }` block at its end the
/// location of the closing brace; gcc gives that jump no line of its own.
/// So that a line such as `} else if (c == 4) {` counts as run only when
/// its condition runs (as gcov counts it), such jumps of a unit's file
/// (`file`, whose text is `text`) lose their location: they execute no
/// statement.
pub(crate) fn unlocate_closing_brace_jumps(program: &mut Program, file: walkdown_ir::FileId, text: &[u8]) {
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    for (_, f) in program.funcs.iter_mut() {
        let Some(body) = &mut f.body else { continue };
        for (_, block) in body.blocks.iter_mut() {
            let loc = block.term_loc;
            if !matches!(block.term, walkdown_ir::Terminator::Jump(_)) || loc.file != file || !loc.is_known() {
                continue;
            }
            let byte = (loc.line as usize)
                .checked_sub(1)
                .and_then(|l| lines.get(l))
                .and_then(|line| line.get((loc.col as usize).checked_sub(1)?));
            if byte == Some(&b'}') {
                block.term_loc = walkdown_ir::Loc::UNKNOWN;
            }
        }
    }
}

/// Compiles `source` into `work_dir` and returns the path of the textual
/// IR after mem2reg (textual because it has what the bitcode reader loses:
/// see [`huge_global_arrays`](crate::module::huge_global_arrays)).
pub fn compile_to_ir(source: &Path, settings: &FrontendSettings, work_dir: &Path) -> Result<PathBuf, FrontendError> {
    let linked = crate::units::link_units(&Sources::one(source), settings, work_dir, None)?;
    link_runtimes(&linked.ll, settings, work_dir, source).map(|r| r.ll)
}

/// What [`link_runtimes`] made of a program's linked units.
struct Runtimes {
    /// The linked module's textual IR.
    ll: PathBuf,
    /// The functions the program defined itself when the C library was
    /// linked in (`None` when it was not).
    own: Option<std::collections::BTreeSet<String>>,
    /// The environment whose start function was linked in.
    environment: Option<walkdown_ir::env::Environment>,
}

/// Links into the program's module `bc` (its units linked) what it needs
/// of walkdown's environment (its start function, before the C library,
/// whose streams are `env.c`'s), of the C library and of walkdown's `long
/// double` runtime.
fn link_runtimes(
    bc: &Path,
    settings: &FrontendSettings,
    work_dir: &Path,
    source: &Path,
) -> Result<Runtimes, FrontendError> {
    let arch = match settings.data_model {
        DataModel::LP64 => "-m64",
        DataModel::ILP32 => "-m32",
    };
    let read =
        |path: &Path| std::fs::read_to_string(path).map_err(|e| FrontendError::Io { path: path.into(), source: e });
    let program_text = read(bc)?;
    // The environment needs the C library (its streams are `env.c`'s).
    let environment = if settings.link_libc { crate::env::choose(&settings.environment, &program_text) } else { None };
    let (bc, text) = match &environment {
        Some(env) => {
            let linked = crate::env::link_start(
                env,
                crate::env::registers_at_exit(&program_text),
                bc,
                settings,
                arch,
                work_dir,
            )?;
            let text = read(&linked)?;
            (linked, text)
        }
        None => (bc.to_path_buf(), program_text.clone()),
    };
    let linked = if settings.link_libc {
        crate::libc::link(&bc, &text, &program_text, settings.data_model, &settings.llvm_link, work_dir)?
    } else {
        None
    };
    let (ll, text, own) = match linked {
        Some(linked) => {
            let text = read(&linked.path)?;
            (linked.path, text, Some(linked.own))
        }
        None => (bc, text, None),
    };
    let ll = if text.contains("x86_fp80") { link_f80_runtime(&ll, settings, work_dir, source, arch)? } else { ll };
    Ok(Runtimes { ll, own, environment })
}

/// walkdown's soft-float `long double` runtime (see `func/f80.rs`).
const F80_RUNTIME: &str = include_str!("../runtime/f80.c");

/// Compiles the `long double` runtime for the program's data model and
/// links it into the program's module `ll`; returns the linked text.
///
/// The runtime is compiled without debug information: its functions have
/// no source lines, so none of their branches is a goal, and its other
/// goals are left out by name (`walkdown_ir::goals::is_runtime_function`).
/// Optimised (`-O1`) so that most of its decisions are selects rather
/// than branches, which the concolic engine would otherwise fork on.
fn link_f80_runtime(
    ll: &Path,
    settings: &FrontendSettings,
    work_dir: &Path,
    source: &Path,
    arch: &str,
) -> Result<PathBuf, FrontendError> {
    let src = work_dir.join("walkdown_f80_runtime.c");
    std::fs::write(&src, F80_RUNTIME).map_err(|e| FrontendError::Io { path: src.clone(), source: e })?;
    let rt = work_dir.join("walkdown_f80_runtime.bc");
    let mut clang = Command::new(&settings.clang);
    clang
        .current_dir(work_dir)
        .args(["-c", "-emit-llvm"])
        .args(F80_RUNTIME_FLAGS)
        .arg(arch)
        .arg(&src)
        .arg("-o")
        .arg(&rt);
    run(clang, &settings.clang, &src)?;
    let linked = work_dir.join("linked.ll");
    let mut link = Command::new(&settings.llvm_link);
    link.arg("-S").arg(ll).arg(&rt).arg("-o").arg(&linked);
    run(link, &settings.llvm_link, source)?;
    Ok(linked)
}

/// How clang-14 compiles the `long double` runtime (with `-m64` or
/// `-m32`); its test holds the IR these flags give to integer code
/// without memory accesses or data-dependent branches.
pub const F80_RUNTIME_FLAGS: &[&str] = &["-O1", "-ffreestanding", "-fno-builtin", "-w"];

/// Runs a tool; its failure names `file`.
pub(crate) fn run(mut cmd: Command, tool: &Path, file: &Path) -> Result<(), FrontendError> {
    let out = cmd.output().map_err(|e| FrontendError::ToolMissing { tool: tool.display().to_string(), source: e })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(FrontendError::Compile {
            tool: tool.display().to_string(),
            file: file.into(),
            stderr: shorten_tool_output(&out.stderr),
        })
    }
}

/// How many bytes of a failing tool's output an error keeps: enough for
/// the first errors, which are the ones that matter; clang on a file of
/// garbage prints an error per line, quoting each.
pub const MAX_TOOL_OUTPUT: usize = 2000;

/// The start of a tool's output, cut at a line end near
/// [`MAX_TOOL_OUTPUT`] bytes, with control characters other than newline
/// and tab shown as `\u{..}` so that quoted garbage cannot move the cursor
/// or ring the terminal.
pub fn shorten_tool_output(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (i, c) in text.char_indices() {
        if out.len() >= MAX_TOOL_OUTPUT {
            let rest = text[i..].lines().count();
            out.push_str(&format!("\n[… {} more bytes, {rest} more lines]", text.len() - i));
            break;
        }
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
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
    fn jumps_located_at_closing_braces_lose_their_location() {
        use walkdown_ir::*;
        let at = |line, col| Loc { file: FileId::from_u32(0), line, col };
        let mut p = Program::new(DataModel::LP64);
        let mut body = Body::default();
        let b0 = body.add_block();
        let b1 = body.add_block();
        let b2 = body.add_block();
        body.set_term(b0, Terminator::Jump(BlockCall::new(b1)), at(2, 3));
        body.set_term(b1, Terminator::Jump(BlockCall::new(b2)), at(2, 5));
        body.set_term(b2, Terminator::Return(None), at(3, 1));
        p.funcs.push(FuncData { body: Some(body), ..FuncData::external("main", vec![], None, false) });
        unlocate_closing_brace_jumps(&mut p, FileId::from_u32(0), b"int main(void) {\n  } else if (c) {\n}\n");
        let body = p.funcs.iter().next().unwrap().1.body.as_ref().unwrap();
        let locs: Vec<Loc> = body.blocks.iter().map(|(_, b)| b.term_loc).collect();
        // The jump at the `}` of line 2 loses it; the one at `else` and the
        // return at the function's `}` keep theirs.
        assert_eq!(locs, vec![Loc::UNKNOWN, at(2, 5), at(3, 1)]);
    }

    #[test]
    fn other_extensions_and_binaries_are_refused_before_clang() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FrontendSettings { clang: "/nonexistent/clang".into(), ..Default::default() };
        let txt = dir.path().join("prog.txt");
        std::fs::write(&txt, "int main(void) { return 0; }\n").unwrap();
        // A missing clang would be ToolMissing: these are refused before it.
        assert!(matches!(compile_to_ir(&txt, &settings, dir.path()), Err(FrontendError::NotCSource { .. })));
        let bin = dir.path().join("prog.c");
        std::fs::write(&bin, b"\x7fELF\x02\x01\x01\x00\x00junk").unwrap();
        match compile_to_ir(&bin, &settings, dir.path()) {
            Err(e @ FrontendError::Binary { offset: 7, .. }) => assert!(!e.to_string().contains("ELF"), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tool_output_is_cut_short_and_cannot_drive_the_terminal() {
        let noise: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 255 + 1) as u8).collect();
        let short = shorten_tool_output(&noise);
        assert!(short.len() < MAX_TOOL_OUTPUT + 100, "{} bytes", short.len());
        assert!(short.contains("more bytes"));
        assert!(!short.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert_eq!(shorten_tool_output(b"a.c:1:1: error: x\n"), "a.c:1:1: error: x\n");
    }

    #[test]
    fn line_markers_are_blanked() {
        let src = b"# 1 \"a.c\"\nint x;\n#line 7\n# 3 \"b.h\" 1 3\n#define A 1\n#include <x>\n";
        let out = String::from_utf8(blank_line_markers(src)).unwrap();
        assert_eq!(out, "\nint x;\n\n\n#define A 1\n#include <x>\n");
    }
}
