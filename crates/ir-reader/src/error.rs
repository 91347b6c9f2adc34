//! The reader's errors: a [`ParseError`] names the line and column of the
//! first thing wrong with the text; a [`ReadError`] is either that or the
//! verifier's complaints about a program that parsed.

use std::fmt;
use walkdown_ir::verify::{VerifyError, VerifyErrors};

/// Why the text is not a program, and where (1-based line and column, the
/// column counted in characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// An error at `line`, `col`.
    pub fn new(line: u32, col: u32, message: impl Into<String>) -> Self {
        ParseError { line, col, message: message.into() }
    }
}

/// Why [`crate::parse_and_verify`] rejected a text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The text does not parse.
    #[error("{0}")]
    Parse(#[from] ParseError),
    /// The text parses, but the program is not well formed.
    #[error("the program does not verify:\n{0}")]
    Verify(WirVerifyErrors),
}

/// The verifier's complaints about a text, each with the line of the text
/// it is about (the function's `define`, the block's label or the
/// instruction), since the locations the verifier knows are those of the C
/// source the IR came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WirVerifyErrors {
    /// Each complaint, with its line of the text when it could be found.
    pub errors: Vec<(Option<u32>, VerifyError)>,
}

impl WirVerifyErrors {
    /// The complaints without their lines.
    pub fn verify_errors(&self) -> VerifyErrors {
        VerifyErrors(self.errors.iter().map(|(_, e)| e.clone()).collect())
    }
}

impl fmt::Display for WirVerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (line, e)) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match line {
                Some(line) => write!(f, "line {line}: {e}")?,
                None => write!(f, "{e}")?,
            }
        }
        Ok(())
    }
}
