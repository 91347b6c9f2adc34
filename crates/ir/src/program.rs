//! Programs, functions, blocks, values and globals.

use crate::entities::{Block, FileId, FuncId, GlobalId, Inst, Value};
use crate::entity::{PrimaryMap, SecondaryMap};
use crate::inst::{InstData, InstKind, Terminator};
use crate::loc::Loc;
use crate::types::{DataModel, Type};

/// A whole C program, lowered.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Pointer width and `long` width.
    pub data_model: DataModel,
    /// Source files named by locations.
    pub files: PrimaryMap<FileId, String>,
    /// Global objects.
    pub globals: PrimaryMap<GlobalId, GlobalData>,
    /// Functions, defined and external.
    pub funcs: PrimaryMap<FuncId, FuncData>,
    /// The environment the program's inputs give it (arguments, standard
    /// input, files), when the frontend linked one in: executions then
    /// start at [`crate::env::START_FUNCTION`], which draws it and calls
    /// `main`.
    pub environment: Option<crate::env::Environment>,
}

impl Program {
    /// An empty program.
    pub fn new(data_model: DataModel) -> Self {
        Program { data_model, ..Default::default() }
    }
    /// The function called `name`.
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs.iter().find(|(_, f)| f.name == name).map(|(id, _)| id)
    }
    /// The global called `name`.
    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        self.globals.iter().find(|(_, g)| g.name == name).map(|(id, _)| id)
    }
    /// Where executions start: the environment's start function when the
    /// program has an environment, else `main`.
    pub fn entry(&self) -> Option<FuncId> {
        let name = if self.environment.is_some() { crate::env::START_FUNCTION } else { "main" };
        self.func_by_name(name).filter(|&f| self.funcs[f].body.is_some())
    }
    /// The file name of a location.
    pub fn file_name(&self, loc: Loc) -> &str {
        self.files.get(loc.file).map(String::as_str).unwrap_or("?")
    }
    /// `file:line:col` of a location.
    pub fn describe_loc(&self, loc: Loc) -> String {
        format!("{}:{}:{}", self.file_name(loc), loc.line, loc.col)
    }
}

/// A global object: its size, alignment and initial bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalData {
    /// Its symbol name.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u32,
    /// Whether the program may not write it.
    pub constant: bool,
    /// Initial bytes; shorter than `size` means zeros follow.
    pub init: Vec<u8>,
    /// Addresses stored in the initial contents, written over `init`.
    pub relocs: Vec<Reloc>,
    /// Where it is declared.
    pub loc: Loc,
}

/// An address inside a global's initial contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Byte offset in the global.
    pub offset: u64,
    /// Whose address.
    pub target: RelocTarget,
    /// Bytes added to the address.
    pub addend: i64,
}

/// The object a [`Reloc`] points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocTarget {
    /// A global.
    Global(GlobalId),
    /// A function.
    Func(FuncId),
}

/// A function signature and, when defined, its body.
#[derive(Clone, Debug)]
pub struct FuncData {
    /// Its symbol name.
    pub name: String,
    /// Parameter types.
    pub params: Vec<Type>,
    /// Return type, `None` for `void`.
    pub ret: Option<Type>,
    /// Whether it takes `...`.
    pub variadic: bool,
    /// Where it is defined.
    pub loc: Loc,
    /// The body; `None` for an external function.
    pub body: Option<Body>,
    /// The environment model of an external function, from its name.
    pub builtin: Option<Builtin>,
    /// Whether the body is the C library's (linked in by the frontend from
    /// musl, not written by the program's authors): it has no goals, and
    /// reports count its code as the library's. Printed as `library` after
    /// the signature.
    pub library: bool,
}

impl FuncData {
    /// An external function; `builtin` is derived from its name.
    pub fn external(name: &str, params: Vec<Type>, ret: Option<Type>, variadic: bool) -> Self {
        FuncData {
            name: name.to_string(),
            params,
            ret,
            variadic,
            loc: Loc::UNKNOWN,
            body: None,
            builtin: Builtin::from_name(name),
            library: false,
        }
    }
}

/// The blocks, instructions and values of a defined function. Block 0 is the
/// entry block; its parameters are the function's parameters.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// Blocks, in layout order.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Instructions (their order is the blocks' `insts` lists).
    pub insts: PrimaryMap<Inst, InstData>,
    /// SSA values.
    pub values: PrimaryMap<Value, ValueData>,
}

/// A basic block.
#[derive(Clone, Debug)]
pub struct BlockData {
    /// Parameters (replacing phi nodes).
    pub params: Vec<Value>,
    /// Instructions in order.
    pub insts: Vec<Inst>,
    /// How it ends.
    pub term: Terminator,
    /// Where the terminator comes from.
    pub term_loc: Loc,
}

/// An SSA value's type and definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    /// Where it is defined.
    pub def: ValueDef,
}

/// Where a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The `n`th parameter of a block.
    Param(Block, u32),
    /// The result of an instruction.
    Inst(Inst),
}

impl Body {
    /// The entry block.
    pub const ENTRY: Block = Block::from_u32(0);

    /// A new block without parameters that ends in `unreachable`.
    pub fn add_block(&mut self) -> Block {
        self.blocks.push(BlockData {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: Loc::UNKNOWN,
        })
    }

    /// Appends a parameter of type `ty` to `block`.
    pub fn add_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData { ty, def: ValueDef::Param(block, n) });
        self.blocks[block].params.push(v);
        v
    }

    /// Appends an instruction to `block`, with a result value if the
    /// operation defines one.
    pub fn append(&mut self, block: Block, kind: InstKind, loc: Loc) -> (Inst, Option<Value>) {
        let inst = self.create_inst(kind, loc);
        self.blocks[block].insts.push(inst);
        (inst, self.insts[inst].result)
    }

    /// Creates an instruction (with its result value) that no block lists
    /// yet; the caller places it.
    pub fn create_inst(&mut self, kind: InstKind, loc: Loc) -> Inst {
        let ty = kind.result_type();
        let inst = self.insts.push(InstData { kind, result: None, loc });
        if let Some(ty) = ty {
            let v = self.values.push(ValueData { ty, def: ValueDef::Inst(inst) });
            self.insts[inst].result = Some(v);
        }
        inst
    }

    /// Sets the terminator of `block`.
    pub fn set_term(&mut self, block: Block, term: Terminator, loc: Loc) {
        let b = &mut self.blocks[block];
        b.term = term;
        b.term_loc = loc;
    }

    /// The block of every instruction placed in a block (a side table).
    pub fn inst_blocks(&self) -> SecondaryMap<Inst, Option<Block>> {
        let mut map = SecondaryMap::with_default(None);
        for (b, data) in self.blocks.iter() {
            for &i in &data.insts {
                map.set(i, Some(b));
            }
        }
        map
    }

    /// The type of an operand.
    pub fn operand_type(&self, op: &crate::Operand) -> Type {
        match op {
            crate::Operand::Value(v) => self.values[*v].ty,
            crate::Operand::Const(c) => c.ty,
            crate::Operand::Global(_) | crate::Operand::Func(_) => Type::Ptr,
        }
    }
}

macro_rules! builtins {
    ($($variant:ident = [$($name:expr),+] : $doc:expr),* $(,)?) => {
        /// External functions whose behaviour walkdown models.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Builtin {
            $(#[doc = $doc] $variant),*
        }
        impl Builtin {
            /// The model for the external function called `name`.
            pub fn from_name(name: &str) -> Option<Builtin> {
                match name {
                    $($($name)|+ => Some(Builtin::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

builtins! {
    Malloc = ["malloc"]: "`malloc`: a fresh heap object.",
    Calloc = ["calloc"]: "`calloc`: a fresh zeroed heap object.",
    Realloc = ["realloc"]: "`realloc`: move to a new heap object.",
    Free = ["free"]: "`free`: release a heap object.",
    Memset = ["memset"]: "`memset`.",
    Memcpy = ["memcpy"]: "`memcpy`.",
    Memmove = ["memmove"]: "`memmove`.",
    Memcmp = ["memcmp"]: "`memcmp`.",
    Strlen = ["strlen"]: "`strlen`.",
    Strcmp = ["strcmp"]: "`strcmp`.",
    Strncmp = ["strncmp"]: "`strncmp`.",
    Strcpy = ["strcpy"]: "`strcpy`.",
    Strncpy = ["strncpy"]: "`strncpy`.",
    Strchr = ["strchr"]: "`strchr`.",
    Print = ["printf", "fprintf", "puts", "putchar", "fputs", "fputc", "putc", "vprintf", "vfprintf", "fflush", "perror", "putchar_unlocked", "fputs_unlocked", "fputc_unlocked", "putc_unlocked"]:
        "Output functions: no effect in the model, return 0.",
    Fwrite = ["fwrite", "fwrite_unlocked"]: "`fwrite`: no effect in the model (output), returns its count of items (0 for items of size 0), as a write that succeeds.",
    Exit = ["exit", "_exit", "_Exit"]: "`exit(code)`: the run ends with `code`.",
    Abort = ["abort"]: "`abort()`: the run ends abnormally (a path cut in Test-Comp tasks).",
    NoOp = ["__VERIFIER_atomic_begin", "__VERIFIER_atomic_end", "srand"]: "Functions without effect.",
    Fabs = ["fabs", "fabsf"]: "`fabs`.",
    Sqrt = ["sqrt", "sqrtf"]: "`sqrt`.",
    Strcat = ["strcat"]: "`strcat`.",
    Strncat = ["strncat"]: "`strncat`.",
    Strrchr = ["strrchr"]: "`strrchr`.",
    Strstr = ["strstr"]: "`strstr`.",
    Strnlen = ["strnlen"]: "`strnlen`.",
    Memchr = ["memchr"]: "`memchr`.",
    Abs = ["abs", "labs", "llabs"]: "`abs`, `labs`, `llabs` (the most negative value is its own absolute value, as natively).",
    Floor = ["floor", "floorf"]: "`floor`.",
    Ceil = ["ceil", "ceilf"]: "`ceil`.",
    Trunc = ["trunc", "truncf"]: "`trunc`.",
    Round = ["round", "roundf"]: "`round` (halfway cases away from zero).",
    Rint = ["rint", "rintf", "nearbyint", "nearbyintf"]: "`rint`, `nearbyint` in the default rounding mode (ties to even).",
    Fmod = ["fmod", "fmodf"]: "`fmod`.",
    Copysign = ["copysign", "copysignf"]: "`copysign`.",
    Annotation = ["__VERIFIER_assumed", "__VERIFIER_assert_verified"]:
        "Verification annotations (`assumed(cond, id)`, `assert_verified(cond, premise)`): no effect on runs; read by the annotation pass.",
    Prune = ["__walkdown_prune"]:
        "`prune(cond)`, put in by the annotation pass: where `cond` is false every later execution is verified; no effect in the interpreter, the concolic tracer stops the run there.",
    TryFirst = ["__walkdown_tryfirst"]:
        "`tryfirst(cond)`, put in by the annotation pass: the concolic search first tries inputs that make `cond` true here; no effect in the interpreter.",
}
