//! Plain-text forms of a test vector, with the literal syntax of
//! [`crate::literal`]:
//!
//! - one value a line, for files a person writes or reads (blank lines and
//!   `#` comments are ignored);
//! - a comma-separated list such as `1,-2,0x3`, for `--inputs` on the
//!   command line.

use std::fs;
use std::path::Path;

use walkdown_ir::testvec::TestVector;

use crate::atomic::write_atomically;
use crate::literal::{format_value, parse_value};
use crate::FormatError;

/// Parse the one-value-a-line form; `origin` names the text in errors.
pub fn parse_lines(text: &str, origin: &Path) -> Result<TestVector, FormatError> {
    let mut vector = TestVector::default();
    for (index, line) in text.lines().enumerate() {
        let content = strip_comment(line).trim();
        if content.is_empty() {
            continue;
        }
        let value = parse_value(content).map_err(|reason| FormatError::BadLine {
            path: origin.to_path_buf(),
            line: index + 1,
            value: content.to_string(),
            reason,
        })?;
        vector.values.push(value);
    }
    Ok(vector)
}

/// The one-value-a-line form of `vector`.
pub fn format_lines(vector: &TestVector) -> String {
    vector.values.iter().map(|v| format_value(*v) + "\n").collect()
}

/// Read a one-value-a-line file.
pub fn read_lines_file(path: &Path) -> Result<TestVector, FormatError> {
    let text = fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    parse_lines(&text, path)
}

/// Write a one-value-a-line file, crash-safely (see [`crate::atomic`]).
pub fn write_lines_file(path: &Path, vector: &TestVector) -> Result<(), FormatError> {
    write_atomically(path, format_lines(vector).as_bytes())
}

/// Parse a comma-separated list of values (`1,-2,0x3`); the empty string
/// is the empty vector.
pub fn parse_value_list(text: &str) -> Result<TestVector, FormatError> {
    let mut vector = TestVector::default();
    if text.trim().is_empty() {
        return Ok(vector);
    }
    for (index, item) in split_outside_quotes(text, ',').into_iter().enumerate() {
        let value = parse_value(item).map_err(|reason| FormatError::BadListItem {
            index,
            value: item.trim().to_string(),
            reason,
        })?;
        vector.values.push(value);
    }
    Ok(vector)
}

/// The comma-list form of `vector`, which [`parse_value_list`] reads back.
pub fn format_value_list(vector: &TestVector) -> String {
    vector.values.iter().map(|v| format_value(*v)).collect::<Vec<_>>().join(",")
}

/// `line` up to a `#` that is not inside a character literal (`'#'` is a
/// value, not a comment).
fn strip_comment(line: &str) -> &str {
    split_outside_quotes(line, '#').into_iter().next().unwrap_or("")
}

/// Split at every `separator` outside single quotes, honouring backslash
/// escapes inside them.
fn split_outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut in_quotes = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_quotes {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '\'' {
                in_quotes = false;
            }
        } else if c == '\'' {
            in_quotes = true;
        } else if c == separator {
            parts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::LiteralError;
    use walkdown_ir::testvec::InputValue;

    #[test]
    fn lines_with_comments_and_blanks() {
        let text = "# inputs for prog.c\n\n5\n  -0x10  # hex\n'#'\n1.5\n\r\n";
        let vector = parse_lines(text, Path::new("in.txt")).unwrap();
        assert_eq!(
            vector.values,
            vec![InputValue::Int(5), InputValue::Int(-16), InputValue::Int(35), InputValue::Float(1.5)]
        );
    }

    #[test]
    fn lines_round_trip() {
        let vector =
            TestVector { values: vec![InputValue::Int(-3), InputValue::Float(1e-310), InputValue::Int(1 << 100)] };
        let text = format_lines(&vector);
        assert_eq!(parse_lines(&text, Path::new("x")).unwrap(), vector);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.txt");
        write_lines_file(&path, &vector).unwrap();
        assert_eq!(read_lines_file(&path).unwrap(), vector);
    }

    #[test]
    fn bad_line_names_file_line_and_value() {
        let error = parse_lines("1\n\n2x\n", Path::new("in.txt")).unwrap_err();
        assert!(matches!(&error, FormatError::BadLine { line: 3, value, .. } if value == "2x"));
        assert!(error.to_string().contains("in.txt:3"), "{error}");
    }

    #[test]
    fn comma_lists() {
        assert_eq!(parse_value_list("1,-2,0x3").unwrap(), TestVector::from_ints([1, -2, 3]));
        assert_eq!(parse_value_list(" 1 , ',' ").unwrap(), TestVector::from_ints([1, 44]));
        assert_eq!(parse_value_list("").unwrap(), TestVector::default());
        let vector = TestVector { values: vec![InputValue::Int(7), InputValue::Float(-0.5)] };
        assert_eq!(parse_value_list(&format_value_list(&vector)).unwrap(), vector);
        let error = parse_value_list("1,,2").unwrap_err();
        assert!(matches!(error, FormatError::BadListItem { index: 1, reason: LiteralError::Empty, .. }));
    }
}
