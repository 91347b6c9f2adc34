//! The executable form of a program, computed once per [`crate::Interpreter`]
//! (KLEE's `KInstruction` idea); engines that shadow the interpreter can
//! walk the same code.
//!
//! All defined functions are laid out in one instruction array; a program
//! counter is an index into it. Each block becomes its instructions followed
//! by its terminator. Operands are resolved to register slots of the
//! function's frame; constants, global and function addresses get registers
//! of their own after the values, filled at every call, so reading an
//! operand is one index computation. Common integer operations and
//! comparisons get instructions of their own, and a comparison followed by
//! a branch on it is fused. Jumps carry their block-argument moves and
//! whether they need a parallel copy; branch and switch edges carry their
//! goal id; a parallel table holds each program counter's function,
//! instruction, source location, error-site goal and line-count slot.

use crate::memory::Memory;
use walkdown_ir::{BinOp, Builtin, CastOp, CheckKind, CmpPred, DataModel, FileId, FuncId, Inst, Loc, Type, UnOp};

/// "No register", "no goal", "no line slot".
pub const NONE: u32 = u32::MAX;

/// An operand: a register of the current frame. Constants (and global and
/// function addresses) live in registers too: each frame holds its
/// function's constants after its values, copied in at every call, so
/// reading any operand is one indexed load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opnd(u32);

impl Opnd {
    /// Register `r` of the frame.
    pub fn reg(r: u32) -> Opnd {
        Opnd(r)
    }
    /// The register number.
    pub fn index(self) -> u32 {
        self.0
    }
    /// Its index in the register file, given the frame base.
    #[inline(always)]
    pub fn slot(self, base: usize) -> usize {
        base + self.0 as usize
    }
}

/// One executable instruction or terminator.
#[allow(missing_docs)] // fields mirror `InstKind`; `dst` is a frame register
#[derive(Clone, Copy, Debug)]
pub enum XInst {
    /// Integer `add` of a width of `64 - sh` bits.
    Add {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Integer `sub`.
    Sub {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Integer `mul`.
    Mul {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    And {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Or {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Xor {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Shifts of a width of `64 - sh` bits (amount modulo the width).
    Shl {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    LShr {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    AShr {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Any binary operator; `bits`: the operand width.
    Bin {
        op: BinOp,
        bits: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// Integer comparisons (operands of `64 - sh` bits; `ugt`, `uge`,
    /// `sgt`, `sge` swap their operands).
    Eq {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Ne {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Ult {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Ule {
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Slt {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Sle {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    /// An integer comparison fused with the branch on its result that ends
    /// the block (the branch keeps its own program counter, right after;
    /// both count as steps). `t` and `f` are edges.
    BrEq {
        dst: u32,
        a: Opnd,
        b: Opnd,
        t: u32,
        f: u32,
    },
    BrNe {
        dst: u32,
        a: Opnd,
        b: Opnd,
        t: u32,
        f: u32,
    },
    BrUlt {
        dst: u32,
        a: Opnd,
        b: Opnd,
        t: u32,
        f: u32,
    },
    BrUle {
        dst: u32,
        a: Opnd,
        b: Opnd,
        t: u32,
        f: u32,
    },
    BrSlt {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
        t: u32,
        f: u32,
    },
    BrSle {
        sh: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
        t: u32,
        f: u32,
    },
    /// Any comparison.
    Un {
        op: UnOp,
        bits: u8,
        dst: u32,
        a: Opnd,
    },
    Cmp {
        pred: CmpPred,
        bits: u8,
        dst: u32,
        a: Opnd,
        b: Opnd,
    },
    Cast {
        op: CastOp,
        from: Type,
        to: Type,
        dst: u32,
        a: Opnd,
    },
    Select {
        dst: u32,
        c: Opnd,
        t: Opnd,
        f: Opnd,
    },
    /// `size` is the store size in bytes.
    Load {
        ty: Type,
        size: u8,
        dst: u32,
        ptr: Opnd,
    },
    Store {
        size: u8,
        ptr: Opnd,
        val: Opnd,
    },
    Alloca {
        dst: u32,
        size: Opnd,
        align: u32,
    },
    PtrAdd {
        dst: u32,
        base: Opnd,
        off: Opnd,
    },
    /// An index into [`Prepared::calls`].
    Call {
        site: u32,
    },
    Nondet {
        ty: Type,
        signed: bool,
        dst: u32,
    },
    Assume {
        c: Opnd,
    },
    Check {
        kind: CheckKind,
        c: Opnd,
    },
    /// An index into [`Prepared::edges`].
    Jump {
        edge: u32,
    },
    Branch {
        c: Opnd,
        t: u32,
        f: u32,
    },
    /// An index into [`Prepared::switches`].
    Switch {
        table: u32,
    },
    Ret {
        val: Option<Opnd>,
    },
    Unreachable,
    /// Something that cannot execute; an index into [`Prepared::messages`].
    Trap {
        msg: u32,
    },
}

/// A control-flow edge: destination and block-argument moves.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// The destination's first program counter.
    pub pc: u32,
    /// Moves `(destination register, source)` in [`Prepared::moves`].
    pub moves_start: u32,
    /// Number of moves.
    pub moves_len: u32,
    /// Whether some move reads a register another one writes (then all
    /// sources are read before any destination is written).
    pub parallel: bool,
    /// The goal id of taking this edge, or [`NONE`].
    pub goal: u32,
    /// For a back edge into the head of a loop that may be
    /// fast-forwarded: the loop's index in [`Prepared::ff`]; [`NONE`]
    /// otherwise.
    pub ff: u32,
}

/// A switch: cases sorted by value (first occurrence wins) and a default.
#[derive(Clone, Copy, Debug)]
pub struct SwitchTable {
    /// The type switched on.
    pub ty: Type,
    /// The value.
    pub val: Opnd,
    /// `(value, edge)` pairs in [`Prepared::cases`].
    pub cases_start: u32,
    /// Number of cases.
    pub cases_len: u32,
    /// The default edge.
    pub default: u32,
}

/// What a call calls.
#[derive(Clone, Copy, Debug)]
pub enum CallTarget {
    /// Function number (index of [`Prepared::funcs`]).
    Direct(u32),
    /// A function pointer.
    Indirect(Opnd),
}

/// A call site.
#[derive(Clone, Copy, Debug)]
pub struct CallSite {
    /// The callee.
    pub target: CallTarget,
    /// Arguments in [`Prepared::args`].
    pub args_start: u32,
    /// Number of arguments.
    pub args_len: u32,
    /// The result register, or [`NONE`].
    pub dst: u32,
    /// The result type the caller expects.
    pub ret: Option<Type>,
}

/// External functions modelled by name besides [`Builtin`]s (fallbacks for
/// programs whose front end did not lower them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// `reach_error`, `__VERIFIER_error` (defined or not): calling it is a
    /// [`CheckKind::ReachError`].
    ReachError,
    /// `__assert_fail`, `__assert`, `__assert_rtn`: a failed assertion, or
    /// a `reach_error` when the function argument (the fourth) is the
    /// string `"reach_error"`.
    AssertFail,
    /// `__VERIFIER_assume(c)`.
    Assume,
    /// `__VERIFIER_nondet_*`: an input of the return type.
    Nondet {
        /// How tests print it.
        signed: bool,
    },
    /// `setjmp`, `_setjmp`, `sigsetjmp`, `__sigsetjmp`: records the calling
    /// activation and the call in the `jmp_buf`, returns 0.
    Setjmp,
    /// `longjmp`, `_longjmp`, `siglongjmp`: unwinds to the activation a
    /// `setjmp` recorded in the `jmp_buf`, whose call then returns the
    /// value (1 for 0).
    Longjmp,
}

/// How a function runs.
#[derive(Clone, Debug)]
pub enum FuncKind {
    /// A body in the code array.
    Defined {
        /// Program counter of the entry block.
        entry: u32,
        /// Registers of its frame: values, one sink, then constants.
        frame: u32,
        /// Its constants in [`Prepared::consts`], copied to the frame's
        /// registers from `frame - consts_len` on entry.
        consts_start: u32,
        /// Number of constants.
        consts_len: u32,
        /// Registers of the entry block's parameters.
        params: Vec<u32>,
    },
    /// A modelled library function.
    Builtin(Builtin),
    /// A function modelled by name.
    Model(Model),
    /// No body and no model: an integer result is a fresh input; a call
    /// that returns a pointer stops the run (`Outcome::Unsupported`).
    Unknown,
}

/// A function of the executable form.
#[derive(Clone, Debug)]
pub struct XFunc {
    /// Its id.
    pub id: FuncId,
    /// Its name.
    pub name: String,
    /// Parameter types.
    pub params: Vec<Type>,
    /// Return type.
    pub ret: Option<Type>,
    /// Whether it takes `...`.
    pub variadic: bool,
    /// Its address.
    pub addr: u64,
    /// How it runs.
    pub kind: FuncKind,
    /// For a defined function run as a model (a `reach_error` with a
    /// body): the line slot of its first line, counted when a call enters
    /// it, as gcov counts the entry of the function natively. [`NONE`]
    /// otherwise.
    pub entry_line: u32,
    /// For a defined `reach_error`: the goals of the `reach_error` checks
    /// of its body, covered when a call enters it (entering it is the
    /// error, so the body never runs; its checks are what "reaching
    /// `reach_error`" means to the goal table).
    pub entry_goals: Vec<u32>,
}

/// Per program counter: where it comes from.
#[derive(Clone, Copy, Debug)]
pub struct PcMeta {
    /// The function.
    pub func: FuncId,
    /// The instruction (`None` for terminators).
    pub inst: Option<Inst>,
    /// Source location.
    pub loc: Loc,
    /// The error-site goal, or [`NONE`].
    pub goal: u32,
}

/// The executable form of a program.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The data model.
    pub dm: DataModel,
    /// All code.
    pub code: Vec<XInst>,
    /// Per program counter: origin.
    pub meta: Vec<PcMeta>,
    /// Per program counter: the line-count slot to bump, or [`NONE`].
    pub line_slot: Vec<u32>,
    /// The source line of each slot, sorted.
    pub lines: Vec<(FileId, u32)>,
    /// The constants of all functions.
    pub consts: Vec<u64>,
    /// Control-flow edges.
    pub edges: Vec<Edge>,
    /// Block-argument moves.
    pub moves: Vec<(u32, Opnd)>,
    /// Switch tables.
    pub switches: Vec<SwitchTable>,
    /// Switch cases.
    pub cases: Vec<(u64, u32)>,
    /// Call sites.
    pub calls: Vec<CallSite>,
    /// Call arguments.
    pub args: Vec<Opnd>,
    /// Functions, indexed like `Program::funcs`.
    pub funcs: Vec<XFunc>,
    /// Function addresses in increasing order with their function numbers.
    pub func_addrs: Vec<(u64, u32)>,
    /// Messages of [`XInst::Trap`].
    pub messages: Vec<String>,
    /// `main`'s function number.
    pub entry: u32,
    /// Values of `main`'s parameters (`argc = 1`, `argv = {"main", NULL}`).
    pub main_args: Vec<u64>,
    /// Memory with globals and functions laid out.
    pub memory: Memory,
    /// Number of goals.
    pub goal_count: usize,
    /// The loops runs may fast-forward (a side table; see
    /// [`crate::fastforward`]).
    pub ff: crate::fastforward::FastForward,
}

/// The fused form of comparison `cmp` followed by terminator `term`, if
/// `term` branches on its result.
pub(crate) fn fuse(cmp: XInst, term: XInst) -> Option<XInst> {
    let XInst::Branch { c, t, f } = term else {
        return None;
    };
    let fused = match cmp {
        XInst::Eq { dst, a, b } => XInst::BrEq { dst, a, b, t, f },
        XInst::Ne { dst, a, b } => XInst::BrNe { dst, a, b, t, f },
        XInst::Ult { dst, a, b } => XInst::BrUlt { dst, a, b, t, f },
        XInst::Ule { dst, a, b } => XInst::BrUle { dst, a, b, t, f },
        XInst::Slt { sh, dst, a, b } => XInst::BrSlt { sh, dst, a, b, t, f },
        XInst::Sle { sh, dst, a, b } => XInst::BrSle { sh, dst, a, b, t, f },
        _ => return None,
    };
    let dst = match fused {
        XInst::BrEq { dst, .. }
        | XInst::BrNe { dst, .. }
        | XInst::BrUlt { dst, .. }
        | XInst::BrUle { dst, .. }
        | XInst::BrSlt { dst, .. }
        | XInst::BrSle { dst, .. } => dst,
        _ => return None,
    };
    (Opnd::reg(dst) == c).then_some(fused)
}

#[cfg(test)]
mod tests {
    #[test]
    fn xinst_is_small() {
        assert!(std::mem::size_of::<super::XInst>() <= 24, "{}", std::mem::size_of::<super::XInst>());
        eprintln!("XInst: {} bytes", std::mem::size_of::<super::XInst>());
    }
}
