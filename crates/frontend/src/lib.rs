//! The LLVM frontend: C source → clang-14 bitcode → walkdown IR.
//!
//! This is the only crate that links LLVM. [`compile_program`] runs `clang-14
//! -O0 -g -Xclang -disable-O0-optnone` and `opt-14 -passes=mem2reg` on a copy
//! of each translation unit whose preprocessor line markers are blanked (so
//! every location is a physical line of its file, as gcov reports it),
//! links the units the program uses with `llvm-link-14`, reads the textual
//! IR with the `llvm-ir` crate and lowers it with [`lower_module`]
//! ([`compile_c`] does it for one file). Anything the IR cannot express is
//! an [`FrontendError::Unsupported`] naming the construct and its source
//! line.

mod consts;
mod debuginfo;
pub mod env;
mod error;
mod f80const;
mod func;
mod layout;
mod libc;
mod module;
mod toolchain;
mod units;
mod wideconst;

pub use error::FrontendError;
pub use libc::{library_functions, manifest as library_manifest};
pub use module::lower_module;
pub use toolchain::{
    compile_c, compile_c_with_sources, compile_program, compile_to_ir, resolve_units, CompiledProgram,
    FrontendSettings, F80_RUNTIME_FLAGS,
};
