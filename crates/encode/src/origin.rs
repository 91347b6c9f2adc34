//! Provenance: where each block and instruction of a transformed body comes
//! from in the original program, and which blocks are cut points. A side
//! table keyed by the transformed body's ids; passes compose it.

use walkdown_ir::entity::SecondaryMap;
use walkdown_ir::{Block, FuncId, Inst, Value};

/// The original block a transformed block comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOrigin {
    /// The original function.
    pub func: FuncId,
    /// The original block.
    pub block: Block,
    /// Whether this block ends with the original block's terminator (so its
    /// edges are the original's branch outcomes). A block split at an
    /// inlined call keeps the terminator in its second half only.
    pub terminator: bool,
    /// Whether this block begins where the original block begins (its
    /// first piece, with the original's parameters).
    pub start: bool,
}

/// Why an execution is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutReason {
    /// The loop with this original header would iterate more than `k` times.
    Loop {
        /// The function of the loop.
        func: FuncId,
        /// Its header in the original function.
        header: Block,
    },
    /// A call of this function would nest deeper than the recursion bound.
    Recursion {
        /// The callee.
        func: FuncId,
    },
}

/// A cut point: a block that starts with `assume false`; reaching it means
/// the execution needs more than the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The block.
    pub block: Block,
    /// Why.
    pub reason: CutReason,
}

/// The first copy of a loop's header in one entry of the loop (iteration
/// 0): where the loop abstraction of the bounded engine's induction step starts the loop
/// in an arbitrary state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopEntry {
    /// The header copy.
    pub block: Block,
    /// Per header parameter: whether the loop passes it around unchanged
    /// (a value from before the loop), so it keeps its entry value.
    pub invariant: Vec<bool>,
    /// Whether the loop may change memory (stores or calls): then memory is
    /// arbitrary at the header too.
    pub writes_memory: bool,
}

/// Where the blocks and instructions of one transformed body come from.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    /// Per block: its origin (`None` for blocks a pass made up, like cuts).
    pub blocks: SecondaryMap<Block, Option<BlockOrigin>>,
    /// Per instruction: the original function and instruction.
    pub insts: SecondaryMap<Inst, Option<(FuncId, Inst)>>,
    /// The cut points.
    pub cuts: Vec<Cut>,
    /// The first header copy of every loop entry (set by
    /// the bounded engine's unwinding).
    pub loop_entries: Vec<LoopEntry>,
    /// Per value: the original function and value it is a copy of (block
    /// parameters, instruction results, a call's result as the parameter
    /// of the block after the inlined call, and parameters a pass adds to
    /// carry a value).
    pub values: SecondaryMap<Value, Option<(FuncId, Value)>>,
    /// Per block of an inlined callee: the original blocks of the calls
    /// it was inlined at, outermost first (empty in the outermost
    /// function).
    pub call_sites: SecondaryMap<Block, Vec<(FuncId, Block)>>,
}

impl Provenance {
    /// The cut at `block`, if it is one.
    pub fn cut(&self, block: Block) -> Option<&Cut> {
        self.cuts.iter().find(|c| c.block == block)
    }
}
