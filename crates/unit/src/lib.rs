//! Unit mode: test one C function directly.
//!
//! The function's signature and the structs it reaches come from clang's
//! AST ([`decls`]). A C harness appended to the program ([`harness`])
//! builds each parameter from `__VERIFIER_nondet_*` inputs: scalars are
//! inputs, and every pointer to a struct is initialized as Symbolic
//! PathFinder's lazy initialization does, when the code first reads it
//! ([`lazy`] inserts the calls into the lowered program), by a choice read
//! from the inputs: null, a fresh object of the pointee type (whose
//! pointer fields are lazy in turn), or an alias of an earlier object of
//! that type, with bounds on the objects and the heap depth. The choices
//! are branches of the harness, so every engine explores them as it
//! explores the program's own branches; they are not goals. [`shape`]
//! reads a test's input vector and the order of its decisions back into
//! the heap shape it builds (the same walk, in Rust), describes it in
//! words and writes it as a C test function ([`tests_c`]).
//!
//! The entry is called as the library's users call it: [`contract`] infers
//! (from the body, the names, `nonnull` attributes and ACSL contracts
//! ([`acsl`]), through [`facts`] read from the AST) and takes from the
//! options which pointers are never NULL, which integer is a buffer's
//! length, which initializer makes a struct, and which preconditions hold;
//! the harness builds only such calls, or, in report mode, records which
//! promise each run breaks.

pub mod acsl;
pub mod builders;
pub mod contract;
pub mod decls;
pub mod facts;
pub mod harness;
pub mod lazy;
pub mod shape;
pub mod tests_c;

pub use contract::{Contract, ContractMode, ContractOptions};
pub use decls::{CType, Decls, FuncSig, IntKind, Record};
pub use harness::{Settings, Unit};
pub use shape::{Shape, Value};

/// What can go wrong when making a unit of a function.
#[derive(Debug, thiserror::Error)]
pub enum UnitError {
    /// clang could not be run or refused the file.
    #[error("{file}: clang: {message}")]
    Clang {
        /// The program file.
        file: String,
        /// What clang said (shortened).
        message: String,
    },
    /// The file defines no function of that name.
    #[error("{file}: no function `{name}` is defined")]
    NoSuchFunction {
        /// The program file.
        file: String,
        /// The name asked for.
        name: String,
    },
    /// The contract given by the options (or an ACSL annotation) does not
    /// fit the function.
    #[error("{file}:{line}: unit contract: {message}")]
    Contract {
        /// The program file.
        file: String,
        /// The line of the entry's definition.
        line: u32,
        /// What does not fit.
        message: String,
    },
    /// A parameter or field type the harness cannot build.
    #[error("{file}:{line}: unsupported in unit mode: {construct}")]
    Unsupported {
        /// What is not supported.
        construct: String,
        /// The program file.
        file: String,
        /// The line of the declaration (0 when unknown).
        line: u32,
    },
}
