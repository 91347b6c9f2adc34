//! Helpers shared by the reader's integration tests.

#![allow(dead_code)] // each test binary uses a different subset

use walkdown_ir::verify::verify_program;
use walkdown_ir::write::program_to_string;
use walkdown_ir::Program;
use walkdown_ir_reader::{parse_program, ParseError};

/// Parses `text`, failing the test with the error's position on error.
pub fn parse(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("parse error: {e}\n--- text ---\n{}", numbered(text)),
    }
}

/// Parses and prints `text`.
pub fn reprint(text: &str) -> String {
    program_to_string(&parse(text))
}

/// Fails with the first line where `got` and `want` differ.
pub fn assert_same_text(got: &str, want: &str) {
    if got == want {
        return;
    }
    let got_lines: Vec<&str> = got.split('\n').collect();
    let want_lines: Vec<&str> = want.split('\n').collect();
    let first =
        (0..got_lines.len().max(want_lines.len())).find(|&i| got_lines.get(i) != want_lines.get(i)).unwrap_or(0);
    panic!(
        "texts differ at line {}:\n  got:  {:?}\n  want: {:?}\n--- got ---\n{got}",
        first + 1,
        got_lines.get(first),
        want_lines.get(first)
    );
}

/// `text` is exactly what the printer writes for the program it describes,
/// and that program verifies.
pub fn assert_canonical(text: &str) -> Program {
    let program = parse(text);
    assert_same_text(&program_to_string(&program), text);
    if let Err(e) = verify_program(&program) {
        panic!("verifier rejects the program:\n{e}\n--- text ---\n{}", numbered(text));
    }
    program
}

/// Prints `program`, parses the text back and checks that printing the
/// result gives the same text. Returns the parsed program.
pub fn assert_round_trip(program: &Program) -> Program {
    let text = program_to_string(program);
    let parsed = match parse_program(&text) {
        Ok(p) => p,
        Err(e) => panic!("printed program does not parse: {e}\n{}", numbered(&text)),
    };
    assert_same_text(&program_to_string(&parsed), &text);
    parsed
}

/// The parse error of `text`, failing the test if it parses.
pub fn parse_error(text: &str) -> ParseError {
    match parse_program(text) {
        Ok(p) => panic!("expected a parse error, got:\n{}", program_to_string(&p)),
        Err(e) => e,
    }
}

/// `text` with line numbers, for failure messages.
pub fn numbered(text: &str) -> String {
    text.lines().enumerate().map(|(i, l)| format!("{:4} | {l}\n", i + 1)).collect()
}
