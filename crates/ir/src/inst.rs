//! Instructions, operands and terminators, with their textual mnemonics.
//!
//! Integer semantics are exact machine semantics: arithmetic wraps, division
//! and shifts come in signed and unsigned forms, and every case C leaves
//! undefined (division by zero, `INT_MIN / -1`, shifting by the width or
//! more) has one fixed result documented at the operator, so every engine
//! agrees. Programs get explicit `check`s in front of the ones C treats as
//! errors.

use crate::entities::{Block, FuncId, GlobalId, Value};
use crate::loc::Loc;
use crate::types::Type;

/// An instruction input: an SSA value or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// An SSA value of the enclosing function.
    Value(Value),
    /// A constant of an integer, float or pointer type, stored as the low
    /// bits of a `u64` (floats as their IEEE bits; the null pointer is 0).
    Const(Const),
    /// The address of a global.
    Global(GlobalId),
    /// The address of a function.
    Func(FuncId),
}

/// A typed constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Const {
    /// Its type.
    pub ty: Type,
    /// Its bits, zero-extended to 64.
    pub bits: u64,
}

impl Const {
    /// An integer constant; `bits` is truncated to the width of `ty`.
    pub fn int(ty: Type, value: i64, dm: crate::DataModel) -> Const {
        Const { ty, bits: crate::testvec::truncate(value as u64, ty.bits(dm)) }
    }
    /// The boolean `b`.
    pub fn bool(b: bool) -> Const {
        Const { ty: Type::I1, bits: u64::from(b) }
    }
    /// The null pointer.
    pub fn null() -> Const {
        Const { ty: Type::Ptr, bits: 0 }
    }
}

impl From<Value> for Operand {
    fn from(v: Value) -> Self {
        Operand::Value(v)
    }
}

impl From<Const> for Operand {
    fn from(c: Const) -> Self {
        Operand::Const(c)
    }
}

macro_rules! mnemonic_enum {
    ($(#[$attr:meta])* $name:ident { $($(#[$vattr:meta])* $variant:ident = $text:expr),* $(,)? }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vattr])* $variant),* }
        impl $name {
            /// Every variant.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// The textual mnemonic.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            /// The variant spelled `s`.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$variant),)* _ => None }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

mnemonic_enum! {
    /// Binary operators. Operands and result have the instruction's type,
    /// except the `*o` overflow predicates, which yield `i1`.
    BinOp {
        /// Wrapping addition.
        Add = "add",
        /// Wrapping subtraction.
        Sub = "sub",
        /// Wrapping multiplication.
        Mul = "mul",
        /// Unsigned division; `x / 0 == 0` (a `check` guards it in C code).
        UDiv = "udiv",
        /// Signed division rounding toward zero; `x / 0 == 0`,
        /// `MIN / -1 == MIN`.
        SDiv = "sdiv",
        /// Unsigned remainder; `x % 0 == x`.
        URem = "urem",
        /// Signed remainder with the sign of the dividend; `x % 0 == x`,
        /// `MIN % -1 == 0`.
        SRem = "srem",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise exclusive or.
        Xor = "xor",
        /// Left shift; the amount is taken modulo the width (as x86 does
        /// for 32 and 64 bits).
        Shl = "shl",
        /// Logical right shift; amount modulo the width.
        LShr = "lshr",
        /// Arithmetic right shift; amount modulo the width.
        AShr = "ashr",
        /// Whether signed addition overflows.
        SAddO = "saddo",
        /// Whether unsigned addition overflows.
        UAddO = "uaddo",
        /// Whether signed subtraction overflows.
        SSubO = "ssubo",
        /// Whether unsigned subtraction overflows.
        USubO = "usubo",
        /// Whether signed multiplication overflows.
        SMulO = "smulo",
        /// Whether unsigned multiplication overflows.
        UMulO = "umulo",
        /// IEEE addition.
        FAdd = "fadd",
        /// IEEE subtraction.
        FSub = "fsub",
        /// IEEE multiplication.
        FMul = "fmul",
        /// IEEE division.
        FDiv = "fdiv",
        /// C `fmod` remainder.
        FRem = "frem",
    }
}

impl BinOp {
    /// Whether the result is `i1` whatever the operand type.
    pub fn yields_bool(self) -> bool {
        matches!(self, BinOp::SAddO | BinOp::UAddO | BinOp::SSubO | BinOp::USubO | BinOp::SMulO | BinOp::UMulO)
    }
    /// Whether operands are floats.
    pub fn is_float(self) -> bool {
        matches!(self, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem)
    }
}

mnemonic_enum! {
    /// Unary operators; operand and result have the instruction's type.
    UnOp {
        /// Byte swap.
        Bswap = "bswap",
        /// Number of set bits.
        Ctpop = "ctpop",
        /// Leading zero bits (the width for 0).
        Ctlz = "ctlz",
        /// Trailing zero bits (the width for 0).
        Cttz = "cttz",
        /// IEEE negation.
        FNeg = "fneg",
    }
}

mnemonic_enum! {
    /// Comparison predicates; the result is `i1`.
    CmpPred {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Unsigned less than.
        Ult = "ult",
        /// Unsigned less or equal.
        Ule = "ule",
        /// Unsigned greater than.
        Ugt = "ugt",
        /// Unsigned greater or equal.
        Uge = "uge",
        /// Signed less than.
        Slt = "slt",
        /// Signed less or equal.
        Sle = "sle",
        /// Signed greater than.
        Sgt = "sgt",
        /// Signed greater or equal.
        Sge = "sge",
        /// Ordered and equal.
        FOeq = "foeq",
        /// Ordered and not equal.
        FOne = "fone",
        /// Ordered and less than.
        FOlt = "folt",
        /// Ordered and less or equal.
        FOle = "fole",
        /// Ordered and greater than.
        FOgt = "fogt",
        /// Ordered and greater or equal.
        FOge = "foge",
        /// Unordered or equal.
        FUeq = "fueq",
        /// Unordered or not equal.
        FUne = "fune",
        /// Unordered or less than.
        FUlt = "fult",
        /// Unordered or less or equal.
        FUle = "fule",
        /// Unordered or greater than.
        FUgt = "fugt",
        /// Unordered or greater or equal.
        FUge = "fuge",
        /// Neither operand is NaN.
        FOrd = "ford",
        /// Some operand is NaN.
        FUno = "funo",
    }
}

impl CmpPred {
    /// Whether operands are floats.
    pub fn is_float(self) -> bool {
        (self as u8) >= (CmpPred::FOeq as u8)
    }
    /// The predicate that holds exactly when `self` does not.
    pub fn negate(self) -> CmpPred {
        use CmpPred::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Ult => Uge,
            Ule => Ugt,
            Ugt => Ule,
            Uge => Ult,
            Slt => Sge,
            Sle => Sgt,
            Sgt => Sle,
            Sge => Slt,
            FOeq => FUne,
            FOne => FUeq,
            FOlt => FUge,
            FOle => FUgt,
            FOgt => FUle,
            FOge => FUlt,
            FUeq => FOne,
            FUne => FOeq,
            FUlt => FOge,
            FUle => FOgt,
            FUgt => FOle,
            FUge => FOlt,
            FOrd => FUno,
            FUno => FOrd,
        }
    }
}

mnemonic_enum! {
    /// Conversions between types.
    CastOp {
        /// Keep the low bits.
        Trunc = "trunc",
        /// Zero-extend.
        ZExt = "zext",
        /// Sign-extend.
        SExt = "sext",
        /// Float to unsigned integer, truncating toward zero.
        FpToUi = "fptoui",
        /// Float to signed integer, truncating toward zero.
        FpToSi = "fptosi",
        /// Unsigned integer to float.
        UiToFp = "uitofp",
        /// Signed integer to float.
        SiToFp = "sitofp",
        /// `f64` to `f32`.
        FpTrunc = "fptrunc",
        /// `f32` to `f64`.
        FpExt = "fpext",
        /// Pointer to integer (zero-extended or truncated).
        PtrToInt = "ptrtoint",
        /// Integer to pointer (zero-extended or truncated).
        IntToPtr = "inttoptr",
        /// Reinterpret bits between an integer and a float of one width.
        Bitcast = "bitcast",
    }
}

mnemonic_enum! {
    /// What a failing `check` (or a faulting memory access) means.
    CheckKind {
        /// A call of `reach_error` / `__VERIFIER_error`.
        ReachError = "reach_error",
        /// A failed `assert` (`__assert_fail`).
        Assertion = "assertion",
        /// Integer division or remainder by zero.
        DivByZero = "div_by_zero",
        /// Signed arithmetic overflow (including `MIN / -1`).
        Overflow = "overflow",
        /// An access outside every live object.
        OutOfBounds = "out_of_bounds",
        /// An access through the null pointer.
        NullDeref = "null_deref",
        /// An access to a freed object.
        UseAfterFree = "use_after_free",
        /// `free` of an object already freed.
        DoubleFree = "double_free",
        /// `free` of a pointer that is not the start of a heap object.
        InvalidFree = "invalid_free",
    }
}

impl CheckKind {
    /// Whether this is an error the program asks to reach (as opposed to a
    /// runtime error of the C language).
    pub fn is_user_property(self) -> bool {
        matches!(self, CheckKind::ReachError | CheckKind::Assertion)
    }
}

/// The target of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Callee {
    /// A known function (defined or external).
    Direct(FuncId),
    /// A function pointer.
    Indirect(Operand),
}

/// What an instruction computes.
#[allow(missing_docs)] // each variant's doc describes its fields
#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// `op ty lhs, rhs`.
    Bin { op: BinOp, ty: Type, lhs: Operand, rhs: Operand },
    /// `op ty arg`.
    Un { op: UnOp, ty: Type, arg: Operand },
    /// `cmp pred ty lhs, rhs` yielding `i1`.
    Cmp { pred: CmpPred, ty: Type, lhs: Operand, rhs: Operand },
    /// `op from arg to to`.
    Cast { op: CastOp, from: Type, to: Type, arg: Operand },
    /// `select ty cond, if_true, if_false`.
    Select { ty: Type, cond: Operand, if_true: Operand, if_false: Operand },
    /// Reads a `ty` from memory.
    Load { ty: Type, ptr: Operand },
    /// Writes `value` of type `ty` to memory.
    Store { ty: Type, ptr: Operand, value: Operand },
    /// A stack object of `size` bytes (an integer of pointer width), freed
    /// when the function returns.
    Alloca { size: Operand, align: u32 },
    /// `base + offset` in bytes; `offset` is a signed integer of pointer
    /// width.
    PtrAdd { base: Operand, offset: Operand },
    /// A call; the result (if any) has type `ret`.
    Call { callee: Callee, args: Vec<Operand>, ret: Option<Type> },
    /// The next input value, of type `ty`; `signed` says how tests print it.
    Nondet { ty: Type, signed: bool },
    /// Stops the execution silently (it is not one the program admits)
    /// when `cond` is false.
    Assume { cond: Operand },
    /// A property: the execution fails with `kind` when `cond` is false.
    Check { kind: CheckKind, cond: Operand },
}

/// An instruction: what it computes, its result and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    /// The operation.
    pub kind: InstKind,
    /// The value it defines, if any.
    pub result: Option<Value>,
    /// Its source location.
    pub loc: Loc,
}

/// A jump target with the arguments passed to the block's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockCall {
    /// The destination.
    pub block: Block,
    /// One operand per block parameter.
    pub args: Vec<Operand>,
}

impl BlockCall {
    /// A jump to `block` without arguments.
    pub fn new(block: Block) -> Self {
        BlockCall { block, args: Vec::new() }
    }
}

/// How a block ends.
#[allow(missing_docs)] // each variant's doc describes its fields
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    /// Unconditional jump.
    Jump(BlockCall),
    /// Two-way branch on an `i1`.
    Branch { cond: Operand, if_true: BlockCall, if_false: BlockCall },
    /// Multi-way branch on an integer.
    Switch { ty: Type, value: Operand, cases: Vec<(u64, BlockCall)>, default: BlockCall },
    /// Return from the function.
    Return(Option<Operand>),
    /// Control never gets here (after `abort`, `exit`, ...).
    Unreachable,
}

impl Terminator {
    /// The destinations, in order (for a switch: cases, then default).
    pub fn successors(&self) -> impl Iterator<Item = &BlockCall> {
        let (first, second, rest): (Option<&BlockCall>, Option<&BlockCall>, &[(u64, BlockCall)]) = match self {
            Terminator::Jump(d) => (Some(d), None, &[]),
            Terminator::Branch { if_true, if_false, .. } => (Some(if_true), Some(if_false), &[]),
            Terminator::Switch { cases, default, .. } => (None, Some(default), cases.as_slice()),
            Terminator::Return(_) | Terminator::Unreachable => (None, None, &[]),
        };
        first.into_iter().chain(rest.iter().map(|(_, c)| c)).chain(second)
    }

    /// The destinations, mutably.
    pub fn successors_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            Terminator::Jump(d) => vec![d],
            Terminator::Branch { if_true, if_false, .. } => vec![if_true, if_false],
            Terminator::Switch { cases, default, .. } => {
                let mut v: Vec<&mut BlockCall> = cases.iter_mut().map(|(_, c)| c).collect();
                v.push(default);
                v
            }
            Terminator::Return(_) | Terminator::Unreachable => Vec::new(),
        }
    }
}

impl InstKind {
    /// Calls `f` on every operand, in textual order.
    pub fn for_each_operand(&self, mut f: impl FnMut(&Operand)) {
        match self {
            InstKind::Bin { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                f(lhs);
                f(rhs)
            }
            InstKind::Un { arg, .. } | InstKind::Cast { arg, .. } => f(arg),
            InstKind::Select { cond, if_true, if_false, .. } => {
                f(cond);
                f(if_true);
                f(if_false)
            }
            InstKind::Load { ptr, .. } => f(ptr),
            InstKind::Store { ptr, value, .. } => {
                f(ptr);
                f(value)
            }
            InstKind::Alloca { size, .. } => f(size),
            InstKind::PtrAdd { base, offset } => {
                f(base);
                f(offset)
            }
            InstKind::Call { callee, args, .. } => {
                if let Callee::Indirect(p) = callee {
                    f(p)
                }
                args.iter().for_each(f)
            }
            InstKind::Nondet { .. } => {}
            InstKind::Assume { cond } | InstKind::Check { cond, .. } => f(cond),
        }
    }

    /// Calls `f` on every operand, mutably.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        match self {
            InstKind::Bin { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                f(lhs);
                f(rhs)
            }
            InstKind::Un { arg, .. } | InstKind::Cast { arg, .. } => f(arg),
            InstKind::Select { cond, if_true, if_false, .. } => {
                f(cond);
                f(if_true);
                f(if_false)
            }
            InstKind::Load { ptr, .. } => f(ptr),
            InstKind::Store { ptr, value, .. } => {
                f(ptr);
                f(value)
            }
            InstKind::Alloca { size, .. } => f(size),
            InstKind::PtrAdd { base, offset } => {
                f(base);
                f(offset)
            }
            InstKind::Call { callee, args, .. } => {
                if let Callee::Indirect(p) = callee {
                    f(p)
                }
                args.iter_mut().for_each(f)
            }
            InstKind::Nondet { .. } => {}
            InstKind::Assume { cond } | InstKind::Check { cond, .. } => f(cond),
        }
    }

    /// The type of the value this instruction defines, if it defines one.
    pub fn result_type(&self) -> Option<Type> {
        match self {
            InstKind::Bin { op, ty, .. } => Some(if op.yields_bool() { Type::I1 } else { *ty }),
            InstKind::Un { ty, .. } => Some(*ty),
            InstKind::Cmp { .. } => Some(Type::I1),
            InstKind::Cast { to, .. } => Some(*to),
            InstKind::Select { ty, .. } => Some(*ty),
            InstKind::Load { ty, .. } => Some(*ty),
            InstKind::Alloca { .. } | InstKind::PtrAdd { .. } => Some(Type::Ptr),
            InstKind::Call { ret, .. } => *ret,
            InstKind::Nondet { ty, .. } => Some(*ty),
            InstKind::Store { .. } | InstKind::Assume { .. } | InstKind::Check { .. } => None,
        }
    }
}
