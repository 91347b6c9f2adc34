//! Removing preprocessor line markers (`# 12 "file.c" 2`, `#line 12`) from
//! a task before it is compiled for coverage. Without them gcov attributes
//! every line of a preprocessed `.i` task to the task file itself, which is
//! what Test-Comp's measurement does; each marker becomes an empty line so
//! that line numbers stay those of the file as given.

/// The task text with every line-marker line replaced by an empty line.
/// Lines end in `\n` afterwards, whatever the input used (`\r\n`, `\r`):
/// the reference measurement reads the task with universal newlines.
pub fn strip_line_markers(source: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(source.len());
    for line in universal_lines(source) {
        if !is_line_marker(line) {
            out.extend_from_slice(line);
        }
        out.push(b'\n');
    }
    out
}

/// Lines without their terminators; `\r\n`, `\r` and `\n` all end a line,
/// and a final line without terminator still counts.
fn universal_lines(source: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < source.len() {
        match source[i] {
            b'\n' => {
                lines.push(&source[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&source[start..i]);
                if source.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < source.len() {
        lines.push(&source[start..]);
    }
    lines
}

/// Whitespace as Python's `\s` sees it in the ASCII range (including the
/// information separators `\x1c`..`\x1f`), for parity with the reference.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1f)
}

/// `# N ["file"] [flags...]` or `#line N ["file"]`, blanks anywhere between
/// the parts and around the line.
pub fn is_line_marker(line: &[u8]) -> bool {
    let mut cursor = Cursor { bytes: line, at: 0 };
    cursor.skip_spaces();
    if !cursor.eat(b'#') {
        return false;
    }
    cursor.skip_spaces();
    if cursor.rest().starts_with(b"line") {
        cursor.at += 4;
        // `line` must be followed by a blank, else this is no marker at all
        // (`#lines 3` is not one, and `line` cannot be a line number).
        if cursor.skip_spaces() == 0 {
            return false;
        }
    }
    if cursor.skip_digits() == 0 {
        return false;
    }
    let mut seen_file = false;
    let mut seen_flag = false;
    loop {
        let blanks = cursor.skip_spaces();
        if cursor.at_end() {
            return true;
        }
        if blanks == 0 {
            return false;
        }
        match cursor.peek() {
            Some(b'"') if !seen_file && !seen_flag => {
                cursor.at += 1;
                match cursor.rest().iter().position(|&b| b == b'"') {
                    Some(close) => cursor.at += close + 1,
                    None => return false,
                }
                seen_file = true;
            }
            Some(b) if b.is_ascii_digit() => {
                cursor.skip_digits();
                seen_flag = true;
            }
            _ => return false,
        }
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &[u8] {
        &self.bytes[self.at..]
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn at_end(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let matched = self.peek() == Some(byte);
        if matched {
            self.at += 1;
        }
        matched
    }

    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) -> usize {
        let start = self.at;
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
        self.at - start
    }

    fn skip_spaces(&mut self) -> usize {
        self.skip_while(is_space)
    }

    fn skip_digits(&mut self) -> usize {
        self.skip_while(|b| b.is_ascii_digit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_markers() {
        for marker in [
            "# 1 \"prog.c\"",
            "# 12 \"/usr/include/stdio.h\" 1 3 4",
            "#line 7",
            "  #  line   7 \"x.c\"  ",
            "# 3",
            "# 0 \"<built-in>\"",
        ] {
            assert!(is_line_marker(marker.as_bytes()), "{marker}");
        }
        for other in [
            "#include <stdio.h>",
            "#define N 3",
            "# 12 \"unterminated",
            "#lines 3",
            "# 1 2 \"late-file.c\"",
            "int x; # 1",
            "#",
            "# x",
            "# 1 \"a\" \"b\"",
            "#1\"a.c\"",
        ] {
            assert!(!is_line_marker(other.as_bytes()), "{other}");
        }
    }

    #[test]
    fn strips_markers_and_keeps_line_numbers() {
        let source = b"# 1 \"t.c\"\r\nint x;\r# 5 \"t.c\" 2\nint y;";
        assert_eq!(strip_line_markers(source), b"\nint x;\n\nint y;\n");
        assert_eq!(strip_line_markers(b""), b"");
        assert_eq!(strip_line_markers(b"a\n\nb\n"), b"a\n\nb\n");
    }
}
