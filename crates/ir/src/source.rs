//! What the C source says about a lowered program beyond its instructions:
//! the loops as the source writes them (where the `for`/`while`/`do`
//! keyword is) and which C variables hold which IR values when a loop's
//! head is entered. The frontend fills it from the debug information;
//! invariant writers read it to speak about the program in C. A side table
//! keyed by function and block ids, never part of the IR itself.

use std::collections::HashMap;

use crate::{Block, FuncId, Loc, Operand};

/// A loop of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoop {
    /// Its head: the block every iteration enters (the condition of a
    /// `for`/`while`, the body of a `do`).
    pub head: Block,
    /// The loop statement's first keyword character.
    pub keyword: Loc,
    /// The C variables in scope at the loop statement and what holds each
    /// on entry to the head, in declaration order. A variable whose value
    /// at the head is not one IR operand on every path (or that is declared
    /// after the loop) is left out.
    pub vars: Vec<SourceVar>,
}

/// A named C variable at a point of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceVar {
    /// Its name in the source.
    pub name: String,
    /// Its value there.
    pub value: Operand,
}

/// The source facts of one program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceInfo {
    /// Per function: its loops.
    pub loops: HashMap<FuncId, Vec<SourceLoop>>,
}

impl SourceInfo {
    /// The loop of `func` whose head is `head`.
    pub fn loop_at(&self, func: FuncId, head: Block) -> Option<&SourceLoop> {
        self.loops.get(&func)?.iter().find(|l| l.head == head)
    }

    /// Every loop, with its function.
    pub fn all_loops(&self) -> impl Iterator<Item = (FuncId, &SourceLoop)> {
        let mut funcs: Vec<FuncId> = self.loops.keys().copied().collect();
        funcs.sort();
        funcs.into_iter().flat_map(move |f| self.loops[&f].iter().map(move |l| (f, l)))
    }
}
