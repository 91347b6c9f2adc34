//! Errors of the frontend; each names the construct and where it is.

use std::path::PathBuf;
use walkdown_ir::verify::VerifyErrors;

/// Why a C file could not be turned into IR.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// The source file or a temporary file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// clang or opt could not be started.
    #[error("cannot run {tool}: {source} (install it with `apt-get install clang-14 llvm-14`)")]
    ToolMissing {
        /// The program.
        tool: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file does not end in `.c` or `.i`: clang would guess its
    /// language from the name, and opt would fail on what it made of it.
    #[error("{}: not a C file (walkdown reads `.c` and `.i` files, and textual IR as `.wir`)", path.display())]
    NotCSource {
        /// The file.
        path: PathBuf,
    },
    /// The file holds a NUL byte, which C source never does: it is a binary
    /// (an executable, an object file, an archive), and clang's complaints
    /// about it would echo its raw bytes.
    #[error("{}: a binary file (NUL byte at offset {offset}), not C source", path.display())]
    Binary {
        /// The file.
        path: PathBuf,
        /// Where its first NUL byte is.
        offset: usize,
    },
    /// clang or opt rejected the program (its output shortened to
    /// [`crate::toolchain::MAX_TOOL_OUTPUT`] bytes).
    #[error("{tool} failed on {}:\n{stderr}", file.display())]
    Compile {
        /// The program that failed.
        tool: String,
        /// The input file.
        file: PathBuf,
        /// What it printed.
        stderr: String,
    },
    /// A unit of the program does not exist.
    #[error("{}: no such file (a unit of the program)", path.display())]
    MissingUnit {
        /// The unit's file.
        path: PathBuf,
    },
    /// The program was given no unit at all.
    #[error("no C file to compile (give one or more, or --compile-commands)")]
    NoUnits,
    /// Two units define the same function or variable that is not `static`.
    #[error("`{symbol}` is defined in both {} and {} (a function or variable that is not static may be defined once in a program)", first.display(), second.display())]
    DuplicateDefinition {
        /// The symbol.
        symbol: String,
        /// The unit that defines it first.
        first: PathBuf,
        /// Another unit that defines it.
        second: PathBuf,
    },
    /// No unit of a program of several defines `main`.
    #[error("no unit defines main ({})", list(units))]
    NoMain {
        /// The units looked at.
        units: Vec<PathBuf>,
    },
    /// Several units define `main` and none was picked.
    #[error("several units define main ({}); pick the one to test with --target FILE", list(units))]
    SeveralMains {
        /// The units that define it.
        units: Vec<PathBuf>,
    },
    /// `--target` does not pick one unit that defines `main`.
    #[error("--target {}: {problem}", target.display())]
    Target {
        /// The target as given.
        target: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// clang's output (textual IR) could not be read.
    #[error("cannot read the IR clang produced: {0}")]
    Bitcode(String),
    /// The program uses something walkdown does not model.
    #[error("{file}:{line}: unsupported: {construct}")]
    Unsupported {
        /// What is not supported.
        construct: String,
        /// The source file.
        file: String,
        /// The source line (0 if unknown).
        line: u32,
    },
    /// The lowering produced malformed IR (a bug in walkdown).
    #[error("internal error: the lowered IR is malformed:\n{0}")]
    Verify(VerifyErrors),
}

/// Files as a message lists them: the first few, then how many more.
fn list(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 8;
    let mut words: Vec<String> = paths.iter().take(SHOWN).map(|p| p.display().to_string()).collect();
    if paths.len() > SHOWN {
        words.push(format!("and {} more", paths.len() - SHOWN));
    }
    words.join(", ")
}
