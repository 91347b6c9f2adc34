//! The parser of walkdown's textual IR: the inverse of
//! [`walkdown_ir::write::program_to_string`].
//!
//! ```
//! let text = r#"datamodel LP64
//! file "main.c"
//! global @counter size 4 align 4 = "\01\00\00\00" !1:5
//!
//! declare @__VERIFIER_nondet_int() -> i32
//!
//! define @main() -> i32 !3:1 {
//! b0:
//!   v0 = call i32 @__VERIFIER_nondet_int() !4:11
//!   v1 = cmp slt i32 v0, i32 0 !5:9
//!   br v1, b1, b2(v0) !5:5
//! b1:
//!   ret i32 0 !6:5
//! b2(v2: i32):
//!   ret v2 !7:5
//! }
//! "#;
//! let program = walkdown_ir_reader::parse_and_verify(text)?;
//! assert_eq!(walkdown_ir::write::program_to_string(&program), text);
//! # Ok::<(), walkdown_ir_reader::ReadError>(())
//! ```
//!
//! [`parse_program`] reads such a text; printing what it returns gives the
//! same text back for every text the printer produces. Value and block ids
//! are kept as written (`v2` is `Value` 2), so they must be dense; globals
//! and functions share one namespace, may be named before the line that
//! introduces them, and get ids in the order they appear (functions and
//! instructions are renumbered in textual order, since the text does not
//! spell their ids). Like the verifier, the reader does not check that a
//! location's file index names a `file` line. `;` starts a comment that
//! runs to the end of the line (the printer never writes one). Errors name a
//! line and column, and no input makes the parser panic.
//! [`parse_and_verify`] also runs the IR verifier.

#![deny(missing_docs)]

mod body;
mod cursor;
mod error;
mod lexer;
mod literal;
mod locate;
mod parser;

pub use error::{ParseError, ReadError, WirVerifyErrors};

use walkdown_ir::verify::{verify_program, VerifyError, VerifyErrors};
use walkdown_ir::Program;

/// Parses the textual IR of a whole program. The program is not verified.
pub fn parse_program(text: &str) -> Result<Program, ParseError> {
    let lines = lexer::tokenize(text)?;
    parser::parse_lines(&lines)
}

/// Parses the textual IR of a whole program and checks it with
/// [`walkdown_ir::verify::verify_program`].
/// Errors of the verifier name the line of the text they are about.
pub fn parse_and_verify(text: &str) -> Result<Program, ReadError> {
    let lines = lexer::tokenize(text)?;
    let program = parser::parse_lines(&lines)?;
    if let Err(errors) = reject_overflowing_relocs(&program).and_then(|()| verify_program(&program)) {
        let index = locate::TextIndex::new(&lines);
        let errors = errors.0.into_iter().map(|e| (index.line_of(&e), e)).collect();
        return Err(ReadError::Verify(WirVerifyErrors { errors }));
    }
    Ok(program)
}

/// Reports relocations whose end lies past `u64::MAX` the way the verifier
/// reports relocations past the end of their object, because the verifier
/// computes `offset + pointer size` without overflow checks.
fn reject_overflowing_relocs(program: &Program) -> Result<(), VerifyErrors> {
    let pointer_bytes = program.data_model.pointer_bytes();
    let errors: Vec<VerifyError> = program
        .globals
        .iter()
        .flat_map(|(id, global)| {
            global.relocs.iter().filter(|r| r.offset.checked_add(pointer_bytes).is_none()).map(move |r| VerifyError {
                func: format!("global {}", global.name),
                block: None,
                loc: global.loc,
                message: format!("bad relocation at offset {} of {id}", r.offset),
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(errors))
    }
}
