//! Function bodies: block labels, instructions, terminators and operands.
//!
//! Values and blocks keep the ids the text gives them (`v7` becomes
//! `Value` 7), so side tables keyed by id stay meaningful across a print /
//! parse round trip. Uses may come before definitions (block arguments of a
//! loop's back edge, jumps to later blocks): uses are recorded and resolved
//! once the closing `}` is read. Then the value ids must be dense (`v0` to
//! `vN`, each defined once) and blocks must be labelled `b0`, `b1`, ... in
//! order. Instructions get ids in program order.

use crate::cursor::LineCursor;
use crate::error::ParseError;
use crate::lexer::{Punct, Token, TokenKind, TokenLine};
use crate::literal::{self, entity_index};
use crate::parser::{SymbolRef, SymbolTable};
use std::collections::HashMap;
use walkdown_ir::entity::PrimaryMap;
use walkdown_ir::{
    BinOp, Block, BlockCall, BlockData, Body, Callee, CastOp, CheckKind, CmpPred, DataModel, Inst, InstData, InstKind,
    Loc, Operand, Terminator, Type, UnOp, Value, ValueData, ValueDef,
};

/// Words that start a top-level line, never a line of a body.
const TOP_LEVEL_KEYWORDS: &[&str] = &["datamodel", "file", "global", "declare", "define"];

/// What a body needs from the rest of the program.
pub struct BodyContext<'a> {
    /// Every global and function name.
    pub symbols: &'a SymbolTable,
    /// Fixes the width of pointer constants.
    pub data_model: DataModel,
    /// The function's name, for messages.
    pub func_name: &'a str,
}

/// Parses the body that follows `define_line`, from its first line through
/// the closing `}`. Returns the body and the number of lines read.
pub fn parse_body(
    lines: &[TokenLine<'_>],
    define_line: &TokenLine<'_>,
    context: &BodyContext<'_>,
) -> Result<(Body, usize), ParseError> {
    let mut builder = BodyBuilder::new(context);
    for (index, line) in lines.iter().enumerate() {
        let mut cursor = LineCursor::new(line);
        if let Some(brace) = cursor.peek().filter(|t| t.kind == TokenKind::Punct(Punct::RBrace)) {
            cursor.bump();
            cursor.expect_end()?;
            builder.require_terminated(brace)?;
            return Ok((builder.finish()?, index + 1));
        }
        if let Some(keyword @ Token { kind: TokenKind::Word(word), .. }) = cursor.peek() {
            if TOP_LEVEL_KEYWORDS.contains(word) {
                return Err(ParseError::new(
                    keyword.line,
                    keyword.col,
                    format!(
                        "`{word}` inside the body of {}: is its closing `}}` missing?",
                        walkdown_ir::write::symbol(context.func_name)
                    ),
                ));
            }
        }
        builder.line(&mut cursor)?;
    }
    let (line, col) = lines.last().map_or((define_line.line, define_line.end_col), |l| (l.line, l.end_col));
    Err(ParseError::new(
        line,
        col,
        format!("the body of {} is not closed by `}}`", walkdown_ir::write::symbol(context.func_name)),
    ))
}

/// A value or block id mentioned at a position, resolved at the end.
struct Mention {
    index: u32,
    line: u32,
    col: u32,
}

impl Mention {
    fn at(index: u32, token: &Token<'_>) -> Self {
        Mention { index, line: token.line, col: token.col }
    }
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.line, self.col, message)
    }
}

struct BodyBuilder<'a> {
    context: &'a BodyContext<'a>,
    blocks: PrimaryMap<Block, BlockData>,
    /// Whether each block has read its terminator.
    terminated: Vec<bool>,
    insts: PrimaryMap<Inst, InstData>,
    /// Every value definition by id, with where it is.
    value_defs: HashMap<u32, (ValueData, Mention)>,
    value_uses: Vec<Mention>,
    block_uses: Vec<Mention>,
}

impl<'a> BodyBuilder<'a> {
    fn new(context: &'a BodyContext<'a>) -> Self {
        BodyBuilder {
            context,
            blocks: PrimaryMap::new(),
            terminated: Vec::new(),
            insts: PrimaryMap::new(),
            value_defs: HashMap::new(),
            value_uses: Vec::new(),
            block_uses: Vec::new(),
        }
    }

    fn in_function(&self) -> String {
        format!("in {}", walkdown_ir::write::symbol(self.context.func_name))
    }

    fn line(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        let starts_with_label = matches!(
            cursor.peek(),
            Some(Token { kind: TokenKind::Word(w), .. }) if entity_index(w, "b").is_some()
        );
        if starts_with_label {
            self.label(cursor)
        } else {
            self.statement(cursor)
        }
    }

    /// Fails at `token` when the last block has not ended with a terminator.
    fn require_terminated(&self, token: &Token<'_>) -> Result<(), ParseError> {
        match self.terminated.last() {
            Some(false) => Err(ParseError::new(
                token.line,
                token.col,
                format!("block b{} has no terminator", self.terminated.len() - 1),
            )),
            _ => Ok(()),
        }
    }

    fn define_value(&mut self, index: u32, token: &Token<'_>, data: ValueData) -> Result<(), ParseError> {
        if let Some((_, first)) = self.value_defs.get(&index) {
            return Err(ParseError::new(
                token.line,
                token.col,
                format!("v{index} is already defined on line {}", first.line),
            ));
        }
        self.value_defs.insert(index, (data, Mention::at(index, token)));
        Ok(())
    }

    /// `bN[(vK: type, ...)]:`
    fn label(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        let (word, token) = cursor.expect_word("a block label")?;
        let index = entity_index(word, "b").unwrap_or(u32::MAX);
        self.require_terminated(token)?;
        let expected = self.blocks.len();
        if usize::try_from(index).ok() != Some(expected) {
            return Err(ParseError::new(
                token.line,
                token.col,
                format!("expected block b{expected} (blocks are numbered in order from b0), found {word}"),
            ));
        }
        let block = self.blocks.push(BlockData {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: Loc::UNKNOWN,
        });
        self.terminated.push(false);
        if cursor.eat_punct(Punct::LParen) && !cursor.eat_punct(Punct::RParen) {
            loop {
                let (value, value_token) = self.value_name(cursor)?;
                cursor.expect_punct(Punct::Colon)?;
                let ty = cursor.expect_type()?;
                let position = u32::try_from(self.blocks[block].params.len()).unwrap_or(u32::MAX);
                self.define_value(value, value_token, ValueData { ty, def: ValueDef::Param(block, position) })?;
                self.blocks[block].params.push(Value::from_u32(value));
                if cursor.eat_punct(Punct::RParen) {
                    break;
                }
                if !cursor.eat_punct(Punct::Comma) {
                    return Err(cursor.expected("`,` or `)`"));
                }
            }
        }
        cursor.expect_punct(Punct::Colon)?;
        cursor.expect_end()
    }

    fn value_name<'t>(&self, cursor: &mut LineCursor<'t>) -> Result<(u32, &'t Token<'t>), ParseError> {
        match cursor.peek() {
            Some(token @ Token { kind: TokenKind::Word(w), .. }) => match entity_index(w, "v") {
                Some(index) => {
                    cursor.bump();
                    Ok((index, token))
                }
                None => Err(cursor.expected("a value such as `v0`")),
            },
            _ => Err(cursor.expected("a value such as `v0`")),
        }
    }

    /// `[vN =] instruction [!loc]` or `terminator [!loc]`.
    fn statement(&mut self, cursor: &mut LineCursor<'_>) -> Result<(), ParseError> {
        let Some(current) = self.blocks.keys().last() else {
            return Err(cursor.error_here("expected a block label such as `b0:` before the first instruction"));
        };
        if self.terminated.last() == Some(&true) {
            return Err(cursor
                .error_here(format!("block {current} already ended with its terminator; a new block needs a label")));
        }
        let names_a_value =
            cursor.peek().is_some_and(|t| matches!(t.kind, TokenKind::Word(w) if entity_index(w, "v").is_some()));
        let then_equals = cursor.peek_second().is_some_and(|t| t.kind == TokenKind::Punct(Punct::Equals));
        let result = if names_a_value && then_equals {
            let named = self.value_name(cursor)?;
            cursor.expect_punct(Punct::Equals)?;
            Some(named)
        } else {
            None
        };
        let (mnemonic, mnemonic_token) = cursor.expect_word("an instruction or a terminator")?;
        if let Some(term) = self.terminator(mnemonic, cursor)? {
            if let Some((_, token)) = result {
                return Err(ParseError::new(token.line, token.col, format!("`{mnemonic}` defines no value")));
            }
            let loc = cursor.optional_loc()?;
            cursor.expect_end()?;
            self.blocks[current].term = term;
            self.blocks[current].term_loc = loc;
            if let Some(done) = self.terminated.last_mut() {
                *done = true;
            }
            return Ok(());
        }
        let kind = self.instruction(mnemonic, mnemonic_token, cursor)?;
        let loc = cursor.optional_loc()?;
        cursor.expect_end()?;
        let inst = self.insts.next_key();
        let result = match (result, kind.result_type()) {
            (Some((index, token)), Some(ty)) => {
                self.define_value(index, token, ValueData { ty, def: ValueDef::Inst(inst) })?;
                Some(Value::from_u32(index))
            }
            (None, None) => None,
            (Some((_, token)), None) => {
                return Err(ParseError::new(token.line, token.col, format!("`{mnemonic}` here defines no value")))
            }
            (None, Some(ty)) => {
                return Err(ParseError::new(
                    mnemonic_token.line,
                    mnemonic_token.col,
                    format!("`{mnemonic}` yields a value of type {ty}: name it, as in `vN = {mnemonic} ...`"),
                ))
            }
        };
        self.insts.push(InstData { kind, result, loc });
        self.blocks[current].insts.push(inst);
        Ok(())
    }

    /// The terminator `mnemonic` starts, or `None` when it starts none.
    fn terminator(&mut self, mnemonic: &str, cursor: &mut LineCursor<'_>) -> Result<Option<Terminator>, ParseError> {
        Ok(Some(match mnemonic {
            "jump" => Terminator::Jump(self.block_call(cursor)?),
            "br" => {
                let cond = self.operand(cursor)?;
                cursor.expect_punct(Punct::Comma)?;
                let if_true = self.block_call(cursor)?;
                cursor.expect_punct(Punct::Comma)?;
                let if_false = self.block_call(cursor)?;
                Terminator::Branch { cond, if_true, if_false }
            }
            "switch" => self.switch(cursor)?,
            "ret" => {
                let returns_nothing =
                    cursor.at_end() || cursor.peek().is_some_and(|t| t.kind == TokenKind::Punct(Punct::Bang));
                Terminator::Return(if returns_nothing { None } else { Some(self.operand(cursor)?) })
            }
            "unreachable" => Terminator::Unreachable,
            _ => return Ok(None),
        }))
    }

    /// `switch TYPE VALUE, DEFAULT [KEY: TARGET, ...]`.
    fn switch(&mut self, cursor: &mut LineCursor<'_>) -> Result<Terminator, ParseError> {
        let ty = cursor.expect_type()?;
        let value = self.operand(cursor)?;
        cursor.expect_punct(Punct::Comma)?;
        let default = self.block_call(cursor)?;
        cursor.expect_punct(Punct::LBracket)?;
        let mut cases = Vec::new();
        if !cursor.eat_punct(Punct::RBracket) {
            loop {
                let (text, token) = cursor.expect_literal("a case value")?;
                let key = literal::int_bits(text, ty.bits(self.context.data_model))
                    .map_err(|message| ParseError::new(token.line, token.col, message))?;
                cursor.expect_punct(Punct::Colon)?;
                cases.push((key, self.block_call(cursor)?));
                if cursor.eat_punct(Punct::RBracket) {
                    break;
                }
                if !cursor.eat_punct(Punct::Comma) {
                    return Err(cursor.expected("`,` or `]`"));
                }
            }
        }
        Ok(Terminator::Switch { ty, value, cases, default })
    }

    fn instruction(
        &mut self,
        mnemonic: &str,
        token: &Token<'_>,
        cursor: &mut LineCursor<'_>,
    ) -> Result<InstKind, ParseError> {
        if let Some(op) = BinOp::from_name(mnemonic) {
            let ty = cursor.expect_type()?;
            let (lhs, rhs) = self.operand_pair(cursor)?;
            return Ok(InstKind::Bin { op, ty, lhs, rhs });
        }
        if let Some(op) = UnOp::from_name(mnemonic) {
            let ty = cursor.expect_type()?;
            return Ok(InstKind::Un { op, ty, arg: self.operand(cursor)? });
        }
        if let Some(op) = CastOp::from_name(mnemonic) {
            let from = cursor.expect_type()?;
            let arg = self.operand(cursor)?;
            cursor.expect_keyword("to")?;
            let to = cursor.expect_type()?;
            return Ok(InstKind::Cast { op, from, to, arg });
        }
        Ok(match mnemonic {
            "cmp" => {
                let (name, pred_token) = cursor.expect_word("a comparison predicate")?;
                let pred = CmpPred::from_name(name).ok_or_else(|| {
                    ParseError::new(pred_token.line, pred_token.col, format!("unknown comparison predicate `{name}`"))
                })?;
                let ty = cursor.expect_type()?;
                let (lhs, rhs) = self.operand_pair(cursor)?;
                InstKind::Cmp { pred, ty, lhs, rhs }
            }
            "select" => {
                let ty = cursor.expect_type()?;
                let cond = self.operand(cursor)?;
                cursor.expect_punct(Punct::Comma)?;
                let (if_true, if_false) = self.operand_pair(cursor)?;
                InstKind::Select { ty, cond, if_true, if_false }
            }
            "load" => {
                let ty = cursor.expect_type()?;
                InstKind::Load { ty, ptr: self.operand(cursor)? }
            }
            "store" => {
                let ty = cursor.expect_type()?;
                let (value, ptr) = self.operand_pair(cursor)?;
                InstKind::Store { ty, ptr, value }
            }
            "alloca" => {
                let size = self.operand(cursor)?;
                cursor.expect_punct(Punct::Comma)?;
                cursor.expect_keyword("align")?;
                InstKind::Alloca { size, align: cursor.expect_unsigned("alignment")? }
            }
            "ptradd" => {
                let (base, offset) = self.operand_pair(cursor)?;
                InstKind::PtrAdd { base, offset }
            }
            "call" => self.call(cursor)?,
            "nondet" => {
                let signed = !cursor.eat_word("unsigned");
                InstKind::Nondet { ty: cursor.expect_type()?, signed }
            }
            "assume" => InstKind::Assume { cond: self.operand(cursor)? },
            "check" => {
                let (name, kind_token) = cursor.expect_word("a check kind")?;
                let kind = CheckKind::from_name(name).ok_or_else(|| {
                    ParseError::new(kind_token.line, kind_token.col, format!("unknown check kind `{name}`"))
                })?;
                InstKind::Check { kind, cond: self.operand(cursor)? }
            }
            other => {
                return Err(ParseError::new(
                    token.line,
                    token.col,
                    format!("unknown instruction `{other}` {}", self.in_function()),
                ))
            }
        })
    }

    /// `call TYPE|void @f(ARGS)` or `call TYPE|void *OPERAND(ARGS)`.
    fn call(&mut self, cursor: &mut LineCursor<'_>) -> Result<InstKind, ParseError> {
        let ret = if cursor.eat_word("void") {
            None
        } else if cursor.peek().is_some_and(|t| matches!(&t.kind, TokenKind::Word(w) if Type::from_name(w).is_some())) {
            Some(cursor.expect_type()?)
        } else {
            return Err(cursor.expected("a return type or `void`"));
        };
        let callee = if cursor.eat_punct(Punct::Star) {
            Callee::Indirect(self.operand(cursor)?)
        } else {
            let (name, token) = cursor.expect_symbol("the callee, `@function` or `*pointer`")?;
            match self.lookup(name, token)? {
                SymbolRef::Func(f) => Callee::Direct(f),
                SymbolRef::Global(_) => {
                    return Err(ParseError::new(
                        token.line,
                        token.col,
                        format!(
                            "{} is a global, not a function (call through a pointer with `*`)",
                            walkdown_ir::write::symbol(name)
                        ),
                    ))
                }
            }
        };
        let args = self.operand_list(cursor)?;
        Ok(InstKind::Call { callee, args, ret })
    }

    fn lookup(&self, name: &str, token: &Token<'_>) -> Result<SymbolRef, ParseError> {
        self.context.symbols.get(name).copied().ok_or_else(|| {
            ParseError::new(token.line, token.col, format!("unknown symbol {}", walkdown_ir::write::symbol(name)))
        })
    }

    /// `OPERAND, OPERAND`.
    fn operand_pair(&mut self, cursor: &mut LineCursor<'_>) -> Result<(Operand, Operand), ParseError> {
        let first = self.operand(cursor)?;
        cursor.expect_punct(Punct::Comma)?;
        Ok((first, self.operand(cursor)?))
    }

    /// `(OPERAND, ...)`.
    fn operand_list(&mut self, cursor: &mut LineCursor<'_>) -> Result<Vec<Operand>, ParseError> {
        cursor.expect_punct(Punct::LParen)?;
        let mut operands = Vec::new();
        if cursor.eat_punct(Punct::RParen) {
            return Ok(operands);
        }
        loop {
            operands.push(self.operand(cursor)?);
            if cursor.eat_punct(Punct::RParen) {
                return Ok(operands);
            }
            if !cursor.eat_punct(Punct::Comma) {
                return Err(cursor.expected("`,` or `)`"));
            }
        }
    }

    /// `vN`, `TYPE LITERAL` or `@symbol`.
    fn operand(&mut self, cursor: &mut LineCursor<'_>) -> Result<Operand, ParseError> {
        const WHAT: &str = "an operand (a value such as `v0`, a constant such as `i32 1`, or a `@symbol`)";
        match cursor.peek() {
            Some(token @ Token { kind: TokenKind::Word(word), .. }) => {
                if let Some(index) = entity_index(word, "v") {
                    cursor.bump();
                    self.value_uses.push(Mention::at(index, token));
                    return Ok(Operand::Value(Value::from_u32(index)));
                }
                let Some(ty) = Type::from_name(word) else {
                    return Err(cursor.expected(WHAT));
                };
                cursor.bump();
                let (text, literal_token) = cursor.expect_literal(&format!("a {ty} literal"))?;
                literal::constant(ty, text, self.context.data_model)
                    .map(Operand::Const)
                    .map_err(|message| ParseError::new(literal_token.line, literal_token.col, message))
            }
            Some(token @ Token { kind: TokenKind::Symbol(name), .. }) => {
                let symbol = self.lookup(name, token)?;
                cursor.bump();
                Ok(match symbol {
                    SymbolRef::Global(g) => Operand::Global(g),
                    SymbolRef::Func(f) => Operand::Func(f),
                })
            }
            _ => Err(cursor.expected(WHAT)),
        }
    }

    /// `bN` or `bN(OPERAND, ...)`.
    fn block_call(&mut self, cursor: &mut LineCursor<'_>) -> Result<BlockCall, ParseError> {
        let (word, token) = cursor.expect_word("a block such as `b1`")?;
        let Some(index) = entity_index(word, "b") else {
            return Err(ParseError::new(
                token.line,
                token.col,
                format!("expected a block such as `b1`, found `{word}`"),
            ));
        };
        self.block_uses.push(Mention::at(index, token));
        let args = if cursor.peek().is_some_and(|t| t.kind == TokenKind::Punct(Punct::LParen)) {
            self.operand_list(cursor)?
        } else {
            Vec::new()
        };
        Ok(BlockCall { block: Block::from_u32(index), args })
    }

    /// Resolves the recorded uses and lays the values out by id.
    fn finish(self) -> Result<Body, ParseError> {
        let where_ = self.in_function();
        if let Some(bad) = self.block_uses.iter().find(|m| !self.blocks.is_valid(Block::from_u32(m.index))) {
            return Err(bad.error(format!("block b{} does not exist {where_}", bad.index)));
        }
        if let Some(bad) = self.value_uses.iter().find(|m| !self.value_defs.contains_key(&m.index)) {
            return Err(bad.error(format!("v{} is never defined {where_}", bad.index)));
        }
        let count = u32::try_from(self.value_defs.len()).unwrap_or(u32::MAX);
        if let Some(missing) = (0..count).find(|k| !self.value_defs.contains_key(k)) {
            // Some id at or above `count` takes the missing one's place.
            let highest = self.value_defs.values().map(|(_, m)| m).max_by_key(|m| m.index);
            let (line, col, highest_index) = highest.map_or((0, 0, count), |m| (m.line, m.col, m.index));
            return Err(ParseError::new(
                line,
                col,
                format!(
                    "value ids must be dense from v0: v{missing} is never defined {where_}, yet v{highest_index} is"
                ),
            ));
        }
        let mut values = PrimaryMap::new();
        for index in 0..count {
            if let Some((data, _)) = self.value_defs.get(&index) {
                values.push(*data);
            }
        }
        Ok(Body { blocks: self.blocks, insts: self.insts, values })
    }
}
