//! A cursor over the tokens of one line, with the small "expect this"
//! helpers both the top-level parser and the body parser use. Every
//! failure is a [`ParseError`] at the offending token (or at the end of the
//! line when the line stops too early).

use crate::error::ParseError;
use crate::lexer::{Punct, Token, TokenKind, TokenLine};
use crate::literal;
use walkdown_ir::{FileId, Loc, Type};

/// Reads the tokens of one line from left to right.
pub struct LineCursor<'a> {
    line: &'a TokenLine<'a>,
    next: usize,
}

impl<'a> LineCursor<'a> {
    /// A cursor at the start of `line`.
    pub fn new(line: &'a TokenLine<'a>) -> Self {
        LineCursor { line, next: 0 }
    }

    /// The next token, without consuming it.
    pub fn peek(&self) -> Option<&'a Token<'a>> {
        self.line.tokens.get(self.next)
    }

    /// The token after the next one.
    pub fn peek_second(&self) -> Option<&'a Token<'a>> {
        self.line.tokens.get(self.next + 1)
    }

    /// Consumes and returns the next token.
    pub fn bump(&mut self) -> Option<&'a Token<'a>> {
        let token = self.line.tokens.get(self.next)?;
        self.next += 1;
        Some(token)
    }

    /// Whether the whole line has been read.
    pub fn at_end(&self) -> bool {
        self.next >= self.line.tokens.len()
    }

    /// Where the next token starts, or the end of the line.
    pub fn position(&self) -> (u32, u32) {
        match self.peek() {
            Some(t) => (t.line, t.col),
            None => (self.line.line, self.line.end_col),
        }
    }

    /// An error at the next token (or the end of the line).
    pub fn error_here(&self, message: impl Into<String>) -> ParseError {
        let (line, col) = self.position();
        ParseError::new(line, col, message)
    }

    /// "expected WHAT, found ..." at the next token.
    pub fn expected(&self, what: &str) -> ParseError {
        let found = match self.peek() {
            Some(t) => t.kind.to_string(),
            None => "the end of the line".to_string(),
        };
        self.error_here(format!("expected {what}, found {found}"))
    }

    /// Consumes `p` if it is next.
    pub fn eat_punct(&mut self, p: Punct) -> bool {
        if self.peek().is_some_and(|t| t.kind == TokenKind::Punct(p)) {
            self.next += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `p` or fails.
    pub fn expect_punct(&mut self, p: Punct) -> Result<(), ParseError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{}`", p.text())))
        }
    }

    /// Whether the next token is the word `word`.
    pub fn next_is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token { kind: TokenKind::Word(w), .. }) if *w == word)
    }

    /// Consumes the word `word` if it is next.
    pub fn eat_word(&mut self, word: &str) -> bool {
        if self.next_is_word(word) {
            self.next += 1;
            true
        } else {
            false
        }
    }

    /// Consumes the keyword `word` or fails.
    pub fn expect_keyword(&mut self, word: &str) -> Result<(), ParseError> {
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{word}`")))
        }
    }

    /// Consumes any word.
    pub fn expect_word(&mut self, what: &str) -> Result<(&'a str, &'a Token<'a>), ParseError> {
        match self.peek() {
            Some(t @ Token { kind: TokenKind::Word(w), .. }) => {
                self.next += 1;
                Ok((*w, t))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes a `@symbol`.
    pub fn expect_symbol(&mut self, what: &str) -> Result<(&'a str, &'a Token<'a>), ParseError> {
        match self.peek() {
            Some(t @ Token { kind: TokenKind::Symbol(s), .. }) => {
                self.next += 1;
                Ok((s.as_ref(), t))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes a quoted string.
    pub fn expect_string(&mut self, what: &str) -> Result<(&'a [u8], &'a Token<'a>), ParseError> {
        match self.peek() {
            Some(t @ Token { kind: TokenKind::Str(bytes), .. }) => {
                self.next += 1;
                Ok((bytes.as_slice(), t))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes the text of a literal: a number, or a word such as `null`
    /// or `inf`.
    pub fn expect_literal(&mut self, what: &str) -> Result<(&'a str, &'a Token<'a>), ParseError> {
        match self.peek() {
            Some(t @ Token { kind: TokenKind::Number(s) | TokenKind::Word(s), .. }) => {
                self.next += 1;
                Ok((*s, t))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes a non-negative number that fits `T`.
    pub fn expect_unsigned<T: TryFrom<i128>>(&mut self, what: &str) -> Result<T, ParseError> {
        match self.peek() {
            Some(t @ Token { kind: TokenKind::Number(s), .. }) => {
                let value = literal::parse_unsigned::<T>(s)
                    .ok_or_else(|| ParseError::new(t.line, t.col, format!("`{s}` is not a valid {what}")))?;
                self.next += 1;
                Ok(value)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes a type name.
    pub fn expect_type(&mut self) -> Result<Type, ParseError> {
        match self.peek() {
            Some(Token { kind: TokenKind::Word(w), .. }) => match Type::from_name(w) {
                Some(ty) => {
                    self.next += 1;
                    Ok(ty)
                }
                None => Err(self.expected("a type (i1, i8, i16, i32, i64, ptr, f32, f64)")),
            },
            _ => Err(self.expected("a type (i1, i8, i16, i32, i64, ptr, f32, f64)")),
        }
    }

    /// An optional location suffix: `!line:col` or `!file:line:col`.
    pub fn optional_loc(&mut self) -> Result<Loc, ParseError> {
        if !self.eat_punct(Punct::Bang) {
            return Ok(Loc::UNKNOWN);
        }
        let first: u32 = self.expect_unsigned("line number")?;
        self.expect_punct(Punct::Colon)?;
        let second: u32 = self.expect_unsigned("column number")?;
        if self.eat_punct(Punct::Colon) {
            let third: u32 = self.expect_unsigned("column number")?;
            return Ok(Loc { file: FileId::from_u32(first), line: second, col: third });
        }
        Ok(Loc { file: FileId::from_u32(0), line: first, col: second })
    }

    /// Fails unless the whole line has been read.
    pub fn expect_end(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.expected("the end of the line"))
        }
    }
}
