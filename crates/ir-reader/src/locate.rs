//! Where the verifier's complaints are in the text. The verifier knows a
//! function, a block and a source (C) location; someone fixing a `.wir`
//! file needs its line. An index of the text maps each `define` and
//! `global` to its line, each block label to its line and each
//! instruction's `!line:col` to the line of the first instruction of its
//! block that carries it.

use crate::lexer::{Punct, TokenKind, TokenLine};
use std::collections::HashMap;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::verify::VerifyError;

/// A source location as the text spells it: file index, line, column.
type SpelledLoc = (u32, u32, u32);

#[derive(Default)]
struct BlockLines {
    header: u32,
    items: Vec<(SpelledLoc, u32)>,
}

struct FuncLines {
    define: u32,
    blocks: Vec<BlockLines>,
}

/// The lines of a text's items.
#[derive(Default)]
pub(crate) struct TextIndex {
    globals: HashMap<String, u32>,
    funcs: HashMap<String, FuncLines>,
}

impl TextIndex {
    /// Indexes lexed lines (of a text that parsed).
    pub(crate) fn new(lines: &[TokenLine<'_>]) -> TextIndex {
        let mut index = TextIndex::default();
        let mut current: Option<String> = None;
        for line in lines {
            let kinds: Vec<&TokenKind<'_>> = line.tokens.iter().map(|t| &t.kind).collect();
            match kinds.as_slice() {
                [TokenKind::Word("global"), TokenKind::Symbol(name), ..] => {
                    index.globals.entry(name.to_string()).or_insert(line.line);
                    current = None;
                }
                [TokenKind::Word("declare"), ..] => current = None,
                [TokenKind::Word("define"), TokenKind::Symbol(name), ..] => {
                    index.funcs.insert(name.to_string(), FuncLines { define: line.line, blocks: Vec::new() });
                    current = Some(name.to_string());
                }
                [TokenKind::Word(w), TokenKind::Punct(Punct::Colon | Punct::LParen), ..] if is_block_label(w) => {
                    if let Some(f) = current.as_ref().and_then(|c| index.funcs.get_mut(c)) {
                        f.blocks.push(BlockLines { header: line.line, items: Vec::new() });
                    }
                }
                _ => {
                    let block = current.as_ref().and_then(|c| index.funcs.get_mut(c)).and_then(|f| f.blocks.last_mut());
                    if let (Some(block), Some(loc)) = (block, spelled_loc(&kinds)) {
                        block.items.push((loc, line.line));
                    }
                }
            }
        }
        index
    }

    /// The line of the text an error is about, if the index knows it.
    pub(crate) fn line_of(&self, error: &VerifyError) -> Option<u32> {
        if let Some(global) = error.func.strip_prefix("global ") {
            return self.globals.get(global).copied();
        }
        let func = self.funcs.get(&error.func)?;
        let Some(block) = error.block else { return Some(func.define) };
        let Some(lines) = func.blocks.get(block.index()) else { return Some(func.define) };
        if error.loc.is_known() {
            let wanted = (error.loc.file.as_u32(), error.loc.line, error.loc.col);
            if let Some(&(_, line)) = lines.items.iter().find(|(loc, _)| *loc == wanted) {
                return Some(line);
            }
        }
        Some(lines.header)
    }
}

fn is_block_label(word: &str) -> bool {
    word.strip_prefix('b').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The `!line:col` or `!file:line:col` at the end of a line.
fn spelled_loc(kinds: &[&TokenKind<'_>]) -> Option<SpelledLoc> {
    let bang = kinds.iter().rposition(|k| matches!(k, TokenKind::Punct(Punct::Bang)))?;
    let mut numbers = Vec::new();
    for (i, k) in kinds[bang + 1..].iter().enumerate() {
        match (i % 2, k) {
            (0, TokenKind::Number(n)) => numbers.push(n.parse::<u32>().ok()?),
            (1, TokenKind::Punct(Punct::Colon)) => {}
            _ => return None,
        }
    }
    match numbers.as_slice() {
        [line, col] => Some((0, *line, *col)),
        [file, line, col] => Some((*file, *line, *col)),
        _ => None,
    }
}
