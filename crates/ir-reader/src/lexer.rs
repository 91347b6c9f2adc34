//! The lexer: splits the text into lines of tokens, each token with its
//! 1-based line and column.
//!
//! The textual IR is line-oriented, so the lexer keeps line structure: it
//! yields one [`TokenLine`] per line that holds at least one token (blank
//! lines and lines holding only a `;` comment disappear). Columns count
//! characters, not bytes.

use crate::error::ParseError;
use std::borrow::Cow;
use std::fmt;

/// Punctuation of the textual IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Punct {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Equals,
    /// `*`
    Star,
    /// `!`
    Bang,
    /// `->`
    Arrow,
    /// `...`
    Ellipsis,
}

impl Punct {
    /// The spelling.
    pub fn text(self) -> &'static str {
        match self {
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::Comma => ",",
            Punct::Colon => ":",
            Punct::Equals => "=",
            Punct::Star => "*",
            Punct::Bang => "!",
            Punct::Arrow => "->",
            Punct::Ellipsis => "...",
        }
    }
}

/// What a token is. Words, numbers and plain symbols borrow the text.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// A keyword, mnemonic, type name or id such as `v3` or `b0`:
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Word(&'a str),
    /// A numeric literal as written: an optional sign, then digits, letters,
    /// `_` and `.` (so `-0.0`, `1e-7`, `0x7ff8000000000000`, `-inf`).
    Number(&'a str),
    /// `@name` or `@"quoted name"`, without the `@`.
    Symbol(Cow<'a, str>),
    /// A double-quoted string with `\hh` escapes, as bytes.
    Str(Vec<u8>),
    /// Punctuation.
    Punct(Punct),
}

impl fmt::Display for TokenKind<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Word(w) | TokenKind::Number(w) => write!(f, "`{w}`"),
            TokenKind::Symbol(s) => write!(f, "`{}`", walkdown_ir::write::symbol(s)),
            TokenKind::Str(_) => write!(f, "a string"),
            TokenKind::Punct(p) => write!(f, "`{}`", p.text()),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Token<'a> {
    /// What it is.
    pub kind: TokenKind<'a>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
}

/// The tokens of one non-empty line.
#[derive(Clone, Debug)]
pub struct TokenLine<'a> {
    /// 1-based line number.
    pub line: u32,
    /// The tokens, at least one.
    pub tokens: Vec<Token<'a>>,
    /// The column just after the last token (where "end of line" errors
    /// point).
    pub end_col: u32,
}

/// Splits `text` into lines of tokens.
pub fn tokenize(text: &str) -> Result<Vec<TokenLine<'_>>, ParseError> {
    let mut lines = Vec::new();
    for (index, line_text) in text.split('\n').enumerate() {
        let line_no = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let (tokens, end_col) = LineLexer { text: line_text, pos: 0, col: 1, line: line_no }.run()?;
        if !tokens.is_empty() {
            lines.push(TokenLine { line: line_no, tokens, end_col });
        }
    }
    Ok(lines)
}

/// Bytes allowed in a plain (unquoted) `@symbol`.
fn is_symbol_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$'
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_number_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// Lexes one line. Everything the syntax gives meaning to is ASCII, so the
/// lexer walks bytes; `col` counts characters (UTF-8 lead bytes).
struct LineLexer<'a> {
    text: &'a str,
    pos: usize,
    col: u32,
    line: u32,
}

impl<'a> LineLexer<'a> {
    /// The byte `offset` bytes ahead.
    fn peek(&self, offset: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + offset).copied()
    }

    /// Moves past `count` bytes.
    fn advance(&mut self, count: usize) {
        for _ in 0..count {
            let Some(b) = self.peek(0) else { return };
            self.pos += 1;
            if b & 0xc0 != 0x80 {
                self.col = self.col.saturating_add(1);
            }
        }
    }

    /// The text between byte offsets `start` and the current position.
    fn since(&self, start: usize) -> &'a str {
        self.text.get(start..self.pos).unwrap_or_default()
    }

    fn error_at(&self, col: u32, message: impl Into<String>) -> ParseError {
        ParseError::new(self.line, col, message)
    }

    fn run(mut self) -> Result<(Vec<Token<'a>>, u32), ParseError> {
        let mut tokens = Vec::new();
        let mut end_col = 1;
        while let Some(b) = self.peek(0) {
            match b {
                b';' => break,
                b' ' | b'\t' | b'\r' => self.advance(1),
                _ => {
                    let col = self.col;
                    let kind = self.token(b)?;
                    tokens.push(Token { kind, line: self.line, col });
                    end_col = self.col;
                }
            }
        }
        Ok((tokens, end_col))
    }

    /// The bytes from here on that satisfy `keep` (all ASCII).
    fn take_while(&mut self, keep: fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek(0).is_some_and(keep) {
            self.pos += 1;
            self.col = self.col.saturating_add(1);
        }
        self.since(start)
    }

    fn token(&mut self, b: u8) -> Result<TokenKind<'a>, ParseError> {
        let single = match b {
            b'(' => Some(Punct::LParen),
            b')' => Some(Punct::RParen),
            b'{' => Some(Punct::LBrace),
            b'}' => Some(Punct::RBrace),
            b'[' => Some(Punct::LBracket),
            b']' => Some(Punct::RBracket),
            b',' => Some(Punct::Comma),
            b':' => Some(Punct::Colon),
            b'=' => Some(Punct::Equals),
            b'*' => Some(Punct::Star),
            b'!' => Some(Punct::Bang),
            _ => None,
        };
        if let Some(p) = single {
            self.advance(1);
            return Ok(TokenKind::Punct(p));
        }
        match b {
            b'-' if self.peek(1) == Some(b'>') => {
                self.advance(2);
                Ok(TokenKind::Punct(Punct::Arrow))
            }
            b'.' if self.peek(1) == Some(b'.') && self.peek(2) == Some(b'.') => {
                self.advance(3);
                Ok(TokenKind::Punct(Punct::Ellipsis))
            }
            b'@' => self.symbol(),
            b'"' => {
                let col = self.col;
                self.advance(1);
                self.string_body(col).map(TokenKind::Str)
            }
            b'+' | b'-' if self.peek(1).is_some_and(is_number_byte) => Ok(self.number()),
            b if b.is_ascii_digit() => Ok(self.number()),
            b if is_word_start(b) => Ok(TokenKind::Word(self.take_while(is_word_byte))),
            _ => {
                let other = self.text.get(self.pos..).and_then(|rest| rest.chars().next()).unwrap_or('?');
                Err(self.error_at(self.col, format!("unexpected character {other:?}")))
            }
        }
    }

    /// A number: optional sign, then number characters; a decimal exponent
    /// may carry its own sign (`1.5e-7`).
    fn number(&mut self) -> TokenKind<'a> {
        let start = self.pos;
        if matches!(self.peek(0), Some(b'+' | b'-')) {
            self.advance(1);
        }
        let is_hex = self.peek(0) == Some(b'0') && matches!(self.peek(1), Some(b'x' | b'X'));
        loop {
            self.take_while(is_number_byte);
            let exponent_sign = !is_hex
                && self.since(start).ends_with(['e', 'E'])
                && matches!(self.peek(0), Some(b'+' | b'-'))
                && self.peek(1).is_some_and(|b| b.is_ascii_digit());
            if !exponent_sign {
                break;
            }
            self.advance(1);
        }
        TokenKind::Number(self.since(start))
    }

    fn symbol(&mut self) -> Result<TokenKind<'a>, ParseError> {
        let at = self.col;
        self.advance(1);
        if self.peek(0) == Some(b'"') {
            let quote = self.col;
            self.advance(1);
            let bytes = self.string_body(quote)?;
            return String::from_utf8(bytes)
                .map(|name| TokenKind::Symbol(Cow::Owned(name)))
                .map_err(|_| self.error_at(quote, "a symbol name must be valid UTF-8"));
        }
        let name = self.take_while(is_symbol_byte);
        if name.is_empty() {
            return Err(self.error_at(at, "`@` must be followed by a name or a quoted name"));
        }
        Ok(TokenKind::Symbol(Cow::Borrowed(name)))
    }

    /// The rest of a string whose opening quote is at column `quote`; `\hh`
    /// escapes give one byte each, other characters their UTF-8 bytes.
    fn string_body(&mut self, quote: u32) -> Result<Vec<u8>, ParseError> {
        let mut bytes = Vec::new();
        loop {
            match self.peek(0) {
                None => return Err(self.error_at(quote, "unterminated string")),
                Some(b'"') => {
                    self.advance(1);
                    return Ok(bytes);
                }
                Some(b'\\') => {
                    let digit = |b: Option<u8>| b.and_then(|b| char::from(b).to_digit(16));
                    let (Some(high), Some(low)) = (digit(self.peek(1)), digit(self.peek(2))) else {
                        return Err(self.error_at(self.col, "a `\\` in a string must be followed by two hex digits"));
                    };
                    // Two hex digits always fit a byte.
                    bytes.push(u8::try_from(high * 16 + low).unwrap_or(u8::MAX));
                    self.advance(3);
                }
                Some(b) => {
                    bytes.push(b);
                    self.advance(1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind<'_>> {
        tokenize(text).expect("lexes").into_iter().flat_map(|l| l.tokens).map(|t| t.kind).collect()
    }

    fn number(s: &str) -> TokenKind<'_> {
        TokenKind::Number(s)
    }

    #[test]
    fn numbers_keep_exponent_signs_and_hex() {
        assert_eq!(
            kinds("-0.0 1.5e-7 1e16 -inf 0x7ff8000000000000 +4 0xe-1"),
            vec![
                number("-0.0"),
                number("1.5e-7"),
                number("1e16"),
                number("-inf"),
                number("0x7ff8000000000000"),
                number("+4"),
                number("0xe"),
                number("-1"),
            ]
        );
    }

    #[test]
    fn punctuation_symbols_strings_and_comments() {
        assert_eq!(
            kinds("(...) -> @x.y @\"a b\\0a\" \"\\ff\" ; ignored"),
            vec![
                TokenKind::Punct(Punct::LParen),
                TokenKind::Punct(Punct::Ellipsis),
                TokenKind::Punct(Punct::RParen),
                TokenKind::Punct(Punct::Arrow),
                TokenKind::Symbol(Cow::Borrowed("x.y")),
                TokenKind::Symbol(Cow::Owned("a b\n".into())),
                TokenKind::Str(vec![0xff]),
            ]
        );
    }

    #[test]
    fn positions_are_one_based_characters() {
        let lines = tokenize("\n  \"é\" = v1\n; only a comment\n").expect("lexes");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].line, 2);
        let columns: Vec<u32> = lines[0].tokens.iter().map(|t| t.col).collect();
        assert_eq!(columns, vec![3, 7, 9]);
        assert_eq!(lines[0].end_col, 11);
        // `é` is not a word start: the error names its column.
        let err = tokenize("x\n  é").expect_err("é is not a token");
        assert_eq!((err.line, err.col), (2, 3));
    }

    #[test]
    fn unterminated_string_points_at_the_quote() {
        let err = tokenize("file \"abc").expect_err("unterminated");
        assert_eq!((err.line, err.col), (1, 6));
    }
}
