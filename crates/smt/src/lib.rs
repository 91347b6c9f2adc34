//! The solver facade of walkdown: a hash-consed expression DAG over
//! bit-vectors, Booleans and byte arrays (floats are bit-vectors that the
//! IEEE-754 nodes of [`float`] read), a [`Solver`] interface, layers
//! that answer queries without the backend (slicing, an exact cache, a
//! counterexample cache) and two backends, Z3 and Bitwuzla ([`backend`]
//! chooses).
//!
//! This crate knows neither LLVM nor the walkdown IR; engines translate
//! their values into [`ExprPool`] terms and ask a [`SolverStack`].
//!
//! (The example is compiled, not run: rustdoc runs it from a temporary
//! directory, which the rpath that finds `target/z3`'s library does not
//! reach; `tests/layers.rs` runs such stacks.)
//!
//! ```no_run
//! use walkdown_smt::{ExprPool, Solver, SolverSettings, SolverStack};
//!
//! let mut pool = ExprPool::new();
//! let (x_sym, x) = pool.new_symbol("x", 8).unwrap();
//! let three = pool.bv_const(8, 3).unwrap();
//! let twelve = pool.bv_const(8, 12).unwrap();
//! let prod = pool.mul(x, three).unwrap();
//! let goal = pool.eq(prod, twelve).unwrap();
//! let mut solver = SolverStack::build(&SolverSettings::default());
//! let model = solver.model(&pool, &[goal]).unwrap().unwrap();
//! let v = model.sym(x_sym).unwrap();
//! assert_eq!(v.wrapping_mul(3) & 0xff, 12);
//! ```
#![deny(missing_docs)]

pub mod backend;
mod bitwuzla;
pub mod chc;
mod display;
pub mod dump;
mod eval;
mod expr;
pub mod float;
pub mod fold;
mod hash;
mod layers;
mod portfolio;
mod solver;
mod stack;
mod subst;
pub mod tally;
mod z3backend;

pub use backend::Backend;
pub use bitwuzla::interpolate::{Interpolation, Interpolator};
pub use bitwuzla::{bitwuzla_version, BitwuzlaSolver};
pub use chc::{Clause, HornAnswer, HornSettings, HornSystem, RelId};
pub use display::ExprDisplay;
pub use eval::{ArrayValue, Assignment, Value};
pub use expr::{ArrayId, Children, ExprError, ExprId, ExprPool, Leaf, Node, Sort, SymId, MAX_WIDTH};
pub use float::{FpBinOp, FpCmpOp};
pub use fold::{BvBinOp, BvUnOp, CmpOp};
pub use layers::{slice, CachingSolver, CexCachingSolver, SlicingSolver, DEFAULT_CACHE_CAPACITY, DEFAULT_CEX_CAPACITY};
pub use portfolio::PortfolioSolver;
pub use solver::{Answer, BackendSettings, LayerStats, Model, Query, Solver, SolverError};
pub use stack::{SolverSettings, SolverStack};
pub use z3backend::{z3_version, Z3Solver};

/// Each solver backend linked in, with its version (see
/// [`backend::versions`]).
pub fn backend_versions() -> Vec<(&'static str, String)> {
    backend::versions()
}
