//! Reading a program: C through the frontend (clang-14, llvm-link-14 for
//! several units, then the lowering to the IR), `.wir` files through the
//! IR reader; and the checks
//! every input file passes first, so that a wrong file is refused in words
//! that say what is wrong before any tool runs on it.

use crate::input::ProgramInput;
use anyhow::{Context, Result};
use std::path::Path;
use walkdown_frontend::env::EnvRequest;
use walkdown_frontend::FrontendSettings;
use walkdown_ir::units::{Sources, Unit};
use walkdown_ir::{DataModel, Program};

/// A program read for a run.
pub struct LoadedProgram {
    /// The verified IR program.
    pub program: Program,
    /// What the debug information says about the source's loops and
    /// variables (nothing for `.wir` files).
    pub source_info: walkdown_ir::source::SourceInfo,
    /// The units it is made of, in the order of its file table (what a
    /// native build compiles).
    pub units: Vec<Unit>,
}

/// Reads the program `input` names: one file as [`load_program`] reads
/// it, or the units of several files or a build database, compiled (and
/// kept in `cache`, when given) and linked by the frontend; with the
/// environment `env` asks for (see `walkdown_frontend::env`).
pub fn load_input(
    input: &ProgramInput,
    dm: DataModel,
    cache: Option<&Path>,
    env: &EnvRequest,
) -> Result<LoadedProgram> {
    let name = input.name();
    let sources = match input.is_one_file() {
        true => {
            check_input_file(&name, &["c", "i", "wir"])?;
            if name.extension().is_some_and(|e| e == "wir") {
                let program = load_program(&name, dm)?;
                return Ok(LoadedProgram { program, source_info: Default::default(), units: vec![Unit::new(name)] });
            }
            Sources::one(&name)
        }
        false => input.sources()?,
    };
    let settings = FrontendSettings {
        data_model: dm,
        unit_cache: cache.map(Path::to_path_buf),
        environment: env.clone(),
        ..Default::default()
    };
    let mut c = walkdown_frontend::compile_program(&sources, &settings)
        .with_context(|| format!("cannot lower {}", name.display()))?;
    // A unit program (gen --entry's NAME-unit.c) runs with its lazy slots.
    walkdown_unit::lazy::instrument_unit_program(&mut c.program)?;
    Ok(LoadedProgram { program: c.program, source_info: c.source_info, units: c.units })
}

/// The units a native build of the program `input` names compiles (the
/// files as given, unless linking must choose among them: see
/// `walkdown_frontend::resolve_units`).
pub fn native_units(input: &ProgramInput, dm: DataModel) -> Result<Vec<Unit>> {
    if input.is_one_file() {
        check_input_file(&input.files[0], &["c", "i"])?;
        return Ok(vec![Unit::new(&input.files[0])]);
    }
    let sources = input.sources()?;
    let settings = FrontendSettings { data_model: dm, ..Default::default() };
    walkdown_frontend::resolve_units(&sources, &settings)
        .with_context(|| format!("cannot link {}", input.name().display()))
}

/// Reads a program from a C file (`.c`, `.i`) or a textual IR file (`.wir`,
/// whose own `data_model` line wins over `dm`).
pub fn load_program(file: &Path, dm: DataModel) -> Result<Program> {
    check_input_file(file, &["c", "i", "wir"])?;
    if file.extension().is_some_and(|e| e == "wir") {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        return walkdown_ir_reader::parse_and_verify(&text).map_err(|e| anyhow::anyhow!("{}:{e}", file.display()));
    }
    let settings = FrontendSettings { data_model: dm, ..Default::default() };
    let mut program =
        walkdown_frontend::compile_c(file, &settings).with_context(|| format!("cannot lower {}", file.display()))?;
    // A unit program (gen --entry's NAME-unit.c) runs with its lazy slots.
    walkdown_unit::lazy::instrument_unit_program(&mut program)?;
    Ok(program)
}

/// Refuses, with words that say what is wrong, a program file that is
/// missing, a directory or another non-file, or has an extension not in
/// `extensions` (checked before any tool runs on it).
pub fn check_input_file(file: &Path, extensions: &[&str]) -> Result<()> {
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("{}: no such file", file.display())
        }
        Err(e) => anyhow::bail!("{}: cannot read: {e}", file.display()),
    };
    if meta.is_dir() {
        anyhow::bail!("{}: is a directory, not a program file", file.display());
    }
    if !meta.is_file() {
        anyhow::bail!("{}: not a regular file", file.display());
    }
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !extensions.contains(&ext) {
        let wanted: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
        anyhow::bail!(
            "{}: unknown kind of file (walkdown reads {}; rename a C file to end in .c)",
            file.display(),
            wanted.join(", ")
        );
    }
    let mut head = Vec::new();
    use std::io::Read;
    std::fs::File::open(file)
        .and_then(|f| f.take(1 << 16).read_to_end(&mut head))
        .with_context(|| format!("cannot read {}", file.display()))?;
    if let Some(offset) = head.iter().position(|&b| b == 0) {
        anyhow::bail!("{}: a binary file (NUL byte at offset {offset}), not a program text", file.display());
    }
    Ok(())
}
