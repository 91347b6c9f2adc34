//! The top level of the textual IR: the header (`datamodel`, `file`),
//! globals, declarations and definitions.
//!
//! Parsing takes two passes over the lexed lines. The first registers every
//! global and function name (globals and functions share one namespace), so
//! relocations and calls may name symbols that appear further down; ids are
//! handed out in textual order. The second pass parses each item in full and
//! fills in the entry the first pass reserved; function bodies are read by
//! [`crate::body`].

use crate::body::{parse_body, BodyContext};
use crate::cursor::LineCursor;
use crate::error::ParseError;
use crate::lexer::{Punct, Token, TokenKind, TokenLine};
use std::collections::HashMap;
use walkdown_ir::{DataModel, FuncData, FuncId, GlobalData, GlobalId, Loc, Program, Reloc, RelocTarget, Type};

/// What a `@name` refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolRef {
    /// A global object.
    Global(GlobalId),
    /// A function, defined or declared.
    Func(FuncId),
}

/// Every global and function name of the program.
pub type SymbolTable = HashMap<String, SymbolRef>;

/// Parses a whole program from its lexed lines.
pub fn parse_lines(lines: &[TokenLine<'_>]) -> Result<Program, ParseError> {
    let mut program = Program::new(DataModel::default());
    let symbols = register_symbols(lines, &mut program)?;
    TopLevel { lines, next: 0, program, symbols, seen_datamodel: false, seen_item: false }.run()
}

/// The first pass: reserves an id (with a placeholder entry) for every
/// `global`, `declare` and `define` line, in textual order.
fn register_symbols(lines: &[TokenLine<'_>], program: &mut Program) -> Result<SymbolTable, ParseError> {
    let mut symbols = SymbolTable::new();
    let mut first_seen: HashMap<String, u32> = HashMap::new();
    for line in lines {
        let (Some(keyword), Some(name_token)) = (line.tokens.first(), line.tokens.get(1)) else {
            continue;
        };
        let (TokenKind::Word(keyword), TokenKind::Symbol(name)) = (&keyword.kind, &name_token.kind) else {
            continue;
        };
        let symbol = match *keyword {
            "global" => SymbolRef::Global(program.globals.push(placeholder_global(name))),
            "declare" | "define" => {
                SymbolRef::Func(program.funcs.push(FuncData::external(name, Vec::new(), None, false)))
            }
            _ => continue,
        };
        if let Some(previous_line) = first_seen.get(name.as_ref()) {
            return Err(ParseError::new(
                name_token.line,
                name_token.col,
                format!(
                    "{} is already defined on line {previous_line} (globals and functions share one namespace)",
                    walkdown_ir::write::symbol(name)
                ),
            ));
        }
        first_seen.insert(name.to_string(), line.line);
        symbols.insert(name.to_string(), symbol);
    }
    Ok(symbols)
}

fn placeholder_global(name: &str) -> GlobalData {
    GlobalData {
        name: name.to_string(),
        size: 0,
        align: 1,
        constant: false,
        init: Vec::new(),
        relocs: Vec::new(),
        loc: Loc::UNKNOWN,
    }
}

/// A function signature as written after `declare` / `define`.
struct Signature {
    id: FuncId,
    name: String,
    params: Vec<Type>,
    ret: Option<Type>,
    variadic: bool,
    loc: Loc,
}

struct TopLevel<'a> {
    lines: &'a [TokenLine<'a>],
    next: usize,
    program: Program,
    symbols: SymbolTable,
    seen_datamodel: bool,
    seen_item: bool,
}

impl TopLevel<'_> {
    fn run(mut self) -> Result<Program, ParseError> {
        while let Some(line) = self.lines.get(self.next) {
            self.next += 1;
            let mut cursor = LineCursor::new(line);
            let (keyword, keyword_token) =
                cursor.expect_word("`datamodel`, `file`, `global`, `declare` or `define`")?;
            match keyword {
                "datamodel" => self.datamodel(&mut cursor, keyword_token)?,
                "file" => self.file(&mut cursor)?,
                "environment" => self.environment(&mut cursor)?,
                "global" => self.global(&mut cursor)?,
                "declare" => self.declare(&mut cursor)?,
                "define" => self.define(&mut cursor, line)?,
                other => {
                    return Err(ParseError::new(
                        keyword_token.line,
                        keyword_token.col,
                        format!("expected `datamodel`, `file`, `global`, `declare` or `define`, found `{other}`"),
                    ))
                }
            }
        }
        Ok(self.program)
    }

    fn datamodel(&mut self, cursor: &mut LineCursor<'_>, keyword: &Token<'_>) -> Result<(), ParseError> {
        if self.seen_datamodel || self.seen_item {
            return Err(ParseError::new(
                keyword.line,
                keyword.col,
                "`datamodel` must come once, before every global and function",
            ));
        }
        self.seen_datamodel = true;
        let (name, token) = cursor.expect_word("a data model (LP64 or ILP32)")?;
        self.program.data_model = DataModel::from_name(name).ok_or_else(|| {
            ParseError::new(token.line, token.col, format!("unknown data model `{name}` (LP64 or ILP32)"))
        })?;
        cursor.expect_end()
    }

    /// `environment [args N:L] [stdin N] [file "NAME":N]...` (see
    /// `walkdown_ir::env`).
    fn environment(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        use walkdown_ir::env::{ArgBound, Environment, FileBound};
        let mut env = Environment::default();
        while !cursor.at_end() {
            let (part, token) = cursor.expect_word("`args`, `stdin` or `file`")?;
            match part {
                "args" => {
                    let count = cursor.expect_unsigned("the most arguments")?;
                    cursor.expect_punct(Punct::Colon)?;
                    env.args = Some(ArgBound { count, len: cursor.expect_unsigned("the most bytes per argument")? });
                }
                "stdin" => env.stdin = Some(cursor.expect_unsigned("the most bytes of standard input")?),
                "file" => {
                    let (bytes, token) = cursor.expect_string("a quoted file name")?;
                    let name = String::from_utf8(bytes.to_vec())
                        .map_err(|_| ParseError::new(token.line, token.col, "a file name must be valid UTF-8"))?;
                    cursor.expect_punct(Punct::Colon)?;
                    env.files.push(FileBound { name, len: cursor.expect_unsigned("the most bytes of the file")? });
                }
                other => {
                    return Err(ParseError::new(
                        token.line,
                        token.col,
                        format!("expected `args`, `stdin` or `file`, found `{other}`"),
                    ))
                }
            }
        }
        self.program.environment = Some(env);
        Ok(())
    }

    fn file(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        let (bytes, token) = cursor.expect_string("a quoted file name")?;
        let name = String::from_utf8(bytes.to_vec())
            .map_err(|_| ParseError::new(token.line, token.col, "a file name must be valid UTF-8"))?;
        cursor.expect_end()?;
        self.program.files.push(name);
        Ok(())
    }

    fn lookup(&self, name: &str, token: &Token<'_>) -> Result<SymbolRef, ParseError> {
        self.symbols.get(name).copied().ok_or_else(|| {
            ParseError::new(token.line, token.col, format!("unknown symbol {}", walkdown_ir::write::symbol(name)))
        })
    }

    fn global(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        self.seen_item = true;
        let (name, name_token) = cursor.expect_symbol("the global's @name")?;
        let SymbolRef::Global(id) = self.lookup(name, name_token)? else {
            return Err(ParseError::new(name_token.line, name_token.col, "not a global"));
        };
        cursor.expect_keyword("size")?;
        let size: u64 = cursor.expect_unsigned("size")?;
        cursor.expect_keyword("align")?;
        let align: u32 = cursor.expect_unsigned("alignment")?;
        let constant = cursor.eat_word("const");
        let init = if cursor.eat_punct(Punct::Equals) {
            cursor.expect_string("the initial bytes as a quoted string")?.0.to_vec()
        } else {
            Vec::new()
        };
        let mut relocs = Vec::new();
        if cursor.eat_word("relocs") {
            loop {
                relocs.push(self.reloc(cursor)?);
                if !cursor.eat_punct(Punct::Comma) {
                    break;
                }
            }
        }
        let loc = cursor.optional_loc()?;
        cursor.expect_end()?;
        self.program.globals[id] = GlobalData { name: name.to_string(), size, align, constant, init, relocs, loc };
        Ok(())
    }

    /// `OFFSET: @target ADDEND`.
    fn reloc(&self, cursor: &mut LineCursor<'_>) -> Result<Reloc, ParseError> {
        let offset: u64 = cursor.expect_unsigned("relocation offset")?;
        cursor.expect_punct(Punct::Colon)?;
        let (name, token) = cursor.expect_symbol("the @symbol whose address is stored")?;
        let target = match self.lookup(name, token)? {
            SymbolRef::Global(g) => RelocTarget::Global(g),
            SymbolRef::Func(f) => RelocTarget::Func(f),
        };
        let addend = match cursor.peek() {
            Some(Token { kind: TokenKind::Number(text), line, col }) => {
                let value = crate::literal::parse_i64(text)
                    .ok_or_else(|| ParseError::new(*line, *col, format!("`{text}` is not a 64-bit addend")))?;
                cursor.bump();
                value
            }
            _ => return Err(cursor.expected("a signed addend such as `+0`")),
        };
        Ok(Reloc { offset, target, addend })
    }

    /// `@name(types[, ...]) [-> type] [!loc]`.
    fn signature(&mut self, cursor: &mut LineCursor<'_>) -> Result<Signature, ParseError> {
        self.seen_item = true;
        let (name, name_token) = cursor.expect_symbol("the function's @name")?;
        let SymbolRef::Func(id) = self.lookup(name, name_token)? else {
            return Err(ParseError::new(name_token.line, name_token.col, "not a function"));
        };
        cursor.expect_punct(Punct::LParen)?;
        let mut params = Vec::new();
        let mut variadic = false;
        if !cursor.eat_punct(Punct::RParen) {
            loop {
                if cursor.eat_punct(Punct::Ellipsis) {
                    variadic = true;
                    cursor.expect_punct(Punct::RParen)?;
                    break;
                }
                params.push(cursor.expect_type()?);
                if cursor.eat_punct(Punct::RParen) {
                    break;
                }
                if !cursor.eat_punct(Punct::Comma) {
                    return Err(cursor.expected("`,` or `)`"));
                }
            }
        }
        let ret = if cursor.eat_punct(Punct::Arrow) { Some(cursor.expect_type()?) } else { None };
        let loc = cursor.optional_loc()?;
        Ok(Signature { id, name: name.to_string(), params, ret, variadic, loc })
    }

    fn declare(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        let sig = self.signature(cursor)?;
        cursor.expect_end()?;
        let mut func = FuncData::external(&sig.name, sig.params, sig.ret, sig.variadic);
        func.loc = sig.loc;
        self.program.funcs[sig.id] = func;
        Ok(())
    }

    fn define(&mut self, cursor: &mut LineCursor<'_>, define_line: &TokenLine<'_>) -> Result<(), ParseError> {
        let sig = self.signature(cursor)?;
        let library = cursor.eat_word("library");
        cursor.expect_punct(Punct::LBrace)?;
        cursor.expect_end()?;
        let context = BodyContext { symbols: &self.symbols, data_model: self.program.data_model, func_name: &sig.name };
        let rest = self.lines.get(self.next..).unwrap_or_default();
        let (body, consumed) = parse_body(rest, define_line, &context)?;
        self.next += consumed;
        self.program.funcs[sig.id] = FuncData {
            name: sig.name,
            params: sig.params,
            ret: sig.ret,
            variadic: sig.variadic,
            loc: sig.loc,
            body: Some(body),
            builtin: None,
            library,
        };
        Ok(())
    }
}
