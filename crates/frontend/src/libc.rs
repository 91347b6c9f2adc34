//! The C library as code: links into a program the functions of musl it
//! calls and has no body for, as KLEE links klee-uclibc.
//!
//! Why: real programs call `isspace`, `strtol`, `sprintf`, `sscanf`, ...
//! everywhere, and a hand model per function cannot keep up; a call of a
//! function walkdown knows nothing of ends a run's usefulness (its result
//! is a guess). With the library's code linked in, every engine follows
//! the call like the program's own code.
//!
//! What runs once: `build.rs` compiles musl 1.2.3's portable C for both
//! data models into one bitcode module each, embedded in the binary with
//! the list of functions it defines. What runs per program: when the
//! program declares a function that list has, the module is written next
//! to the program's IR and `llvm-link-14 --only-needed` copies in what the
//! program uses, transitively, and nothing else; the lowered functions
//! that were not the program's are marked [`FuncData::library`]: they have
//! no goals.
//!
//! What stays a hand model (never taken from musl; `build.rs` leaves out
//! every file that defines one, and musl's own calls reach the model):
//! the functions of `walkdown_ir::Builtin`, because every engine has a
//! model of them that does better than their code: allocation (`malloc`,
//! `free`, ... with the interpreter's object bounds), the memory and
//! string fast paths (`memcpy`, `strlen`, `strcmp`, ...: one symbolic
//! operation instead of a loop), the input functions (standard input, the
//! test's inputs), the output functions (no effect), `exit`/`abort`, and
//! the float functions the semantics encode exactly (`sqrt`, `floor`, ...).

use crate::error::FrontendError;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_ir::{DataModel, Program};

const LP64_BITCODE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libc-lp64.bc"));
const ILP32_BITCODE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libc-ilp32.bc"));
const LP64_DEFS: &str = include_str!(concat!(env!("OUT_DIR"), "/libc-lp64.defs"));
const ILP32_DEFS: &str = include_str!(concat!(env!("OUT_DIR"), "/libc-ilp32.defs"));
const LP64_MANIFEST: &str = include_str!(concat!(env!("OUT_DIR"), "/libc-lp64-manifest.txt"));
const ILP32_MANIFEST: &str = include_str!(concat!(env!("OUT_DIR"), "/libc-ilp32-manifest.txt"));

/// The external functions the library defines for a data model.
pub fn library_functions(dm: DataModel) -> impl Iterator<Item = &'static str> {
    match dm {
        DataModel::LP64 => LP64_DEFS,
        DataModel::ILP32 => ILP32_DEFS,
    }
    .lines()
}

/// Which musl files the library holds and which it leaves out, and why.
pub fn manifest(dm: DataModel) -> &'static str {
    match dm {
        DataModel::LP64 => LP64_MANIFEST,
        DataModel::ILP32 => ILP32_MANIFEST,
    }
}

/// What linking did to a program's module.
pub(crate) struct Linked {
    /// The linked module's textual IR.
    pub path: PathBuf,
    /// The functions the program itself defined; every other body of the
    /// linked module is the library's.
    pub own: BTreeSet<String>,
}

/// Links the library into the module `ll` (textual, `text`) when the
/// module declares a function the library defines; `None` when it
/// declares none. `own_text` is the program's own module (without the
/// environment's start function), whose definitions are the program's.
pub(crate) fn link(
    ll: &Path,
    text: &str,
    own_text: &str,
    dm: DataModel,
    llvm_link: &Path,
    work_dir: &Path,
) -> Result<Option<Linked>, FrontendError> {
    let defined: BTreeSet<&str> = library_functions(dm).collect();
    if !declared(text).any(|name| defined.contains(name)) {
        return Ok(None);
    }
    let lib = work_dir.join("walkdown_libc.bc");
    let bitcode = match dm {
        DataModel::LP64 => LP64_BITCODE,
        DataModel::ILP32 => ILP32_BITCODE,
    };
    std::fs::write(&lib, bitcode).map_err(|e| FrontendError::Io { path: lib.clone(), source: e })?;
    let linked = work_dir.join("with_libc.ll");
    let out = Command::new(llvm_link)
        .arg("-S")
        .arg(ll)
        .arg("--only-needed")
        .arg(&lib)
        .arg("-o")
        .arg(&linked)
        .output()
        .map_err(|e| FrontendError::ToolMissing { tool: llvm_link.display().to_string(), source: e })?;
    if !out.status.success() {
        return Err(FrontendError::Compile {
            tool: llvm_link.display().to_string(),
            file: ll.into(),
            stderr: crate::toolchain::shorten_tool_output(&out.stderr),
        });
    }
    Ok(Some(Linked { path: linked, own: defined_in(own_text).map(str::to_string).collect() }))
}

/// Marks every body of `program` that is not one of `own` (and not
/// walkdown's runtime) as the library's.
pub(crate) fn mark_library(program: &mut Program, own: &BTreeSet<String>) {
    for (_, f) in program.funcs.iter_mut() {
        if f.body.is_some() && !own.contains(&f.name) && !walkdown_ir::goals::is_runtime_function(&f.name) {
            f.library = true;
        }
    }
}

/// The functions a textual module declares without a body.
fn declared(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| l.starts_with("declare ")).filter_map(symbol_of)
}

/// The functions a textual module defines (external or internal).
fn defined_in(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| l.starts_with("define ")).filter_map(symbol_of)
}

/// The `@name` of a `declare` or `define` line.
fn symbol_of(line: &str) -> Option<&str> {
    let at = line.find(" @")? + 2;
    let end = line[at..].find('(')? + at;
    Some(line[at..end].trim_matches('"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_has_the_functions_real_code_calls_and_no_hand_modelled_one() {
        for dm in [DataModel::LP64, DataModel::ILP32] {
            let defs: BTreeSet<&str> = library_functions(dm).collect();
            for name in [
                "isspace",
                "__ctype_b_loc",
                "strtol",
                "strtoll",
                "strtod",
                "sprintf",
                "snprintf",
                "__isoc99_sscanf",
                "qsort",
                "bsearch",
                "atoi",
                "__errno_location",
                "strerror",
            ] {
                assert!(defs.contains(name), "{name} missing from the {dm:?} library");
            }
            for name in &defs {
                assert!(
                    walkdown_ir::Builtin::from_name(name).is_none(),
                    "{name} is modelled by hand but the library defines it"
                );
            }
        }
    }

    #[test]
    fn symbols_are_read_from_declarations_and_definitions() {
        let text =
            "declare i64 @strtol(i8*, i8**, i32)\ndefine dso_local i32 @main() {\n}\ndeclare i32 @\"odd name\"(i32)\n";
        assert_eq!(declared(text).collect::<Vec<_>>(), ["strtol", "odd name"]);
        assert_eq!(defined_in(text).collect::<Vec<_>>(), ["main"]);
    }
}
