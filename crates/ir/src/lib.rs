//! walkdown's intermediate representation: the one program form every
//! engine reads.
//!
//! A [`Program`] holds globals and functions; a function body holds blocks
//! with parameters (no phi nodes), instructions and SSA values in typed
//! arenas ([`entity::PrimaryMap`]). Integer operations have exact machine
//! semantics; memory is byte-addressed objects reached through pointers with
//! explicit offset arithmetic. [`verify`] checks well-formedness,
//! [`write`] prints the textual form that `walkdown-ir-reader` parses back,
//! and [`goals`] numbers the branch outcomes and error sites tests aim at.
//!
//! This crate knows neither LLVM nor any solver.

#![deny(missing_docs)]

pub mod entities;
pub mod entity;
pub mod env;
pub mod formula;
pub mod goals;
pub mod inst;
pub mod loc;
pub mod program;
pub mod source;
pub mod testvec;
pub mod types;
pub mod units;
pub mod verify;
pub mod write;

pub use entities::{Block, FileId, FuncId, GlobalId, Inst, Value};
pub use inst::{
    BinOp, BlockCall, Callee, CastOp, CheckKind, CmpPred, Const, InstData, InstKind, Operand, Terminator, UnOp,
};
pub use loc::Loc;
pub use program::{BlockData, Body, Builtin, FuncData, GlobalData, Program, Reloc, RelocTarget, ValueData, ValueDef};
pub use types::{DataModel, Type};
