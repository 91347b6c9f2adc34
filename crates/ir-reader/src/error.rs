//! The reader's errors: a [`ParseError`] names the line and column of the
//! first thing wrong with the text; a [`ReadError`] is either that or the
//! verifier's complaints about a program that parsed.

use walkdown_ir::verify::VerifyErrors;

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
    Verify(#[from] VerifyErrors),
}
