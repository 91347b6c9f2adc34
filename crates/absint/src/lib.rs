//! Abstract interpretation over walkdown's IR: a forward analysis that
//! computes, for every block of every function that may run, an interval
//! per integer SSA value that holds in every execution, and from it the
//! branch outcomes no execution takes (an unbounded proof, unlike a
//! bounded search).
//!
//! - [`domain`]: the [`Domain`] lattice trait (bottom, top, join, leq,
//!   widen, narrow).
//! - [`interval`]: intervals with machine-integer (wrap-around) semantics.
//! - [`state`]: the abstract state of a program point (a sparse map from
//!   values to intervals).
//! - [`fixpoint`]: Bourdoncle's weak topological order and the iteration
//!   with widening at loop heads and narrowing passes, generic over a
//!   [`fixpoint::Transfer`].
//! - [`transfer`]: the interval transfer functions over instructions and
//!   branch edges.
//! - [`tables`]: the values loads read from constant globals and from
//!   stack slots initialized once from one.
//! - [`analysis`]: [`analyze`], the per-block results, [`Analysis::dead_edges`]
//!   and the invariant report.
//! - [`affine`]: Karr's domain of affine equalities (exact rational
//!   equalities in integer row-echelon form; join is the affine hull).
//! - [`relational`]: [`analyze_relational`], the product of intervals and
//!   equalities (reduced after guards) with a counter per loop, sound for
//!   machine integers because equalities are recorded only when the
//!   intervals prove the operation does not wrap.
//! - [`octagon`]: octagonal inequalities `±x ± y <= c` (sparse, weakly
//!   closed), the third component of the relational product.
//! - [`invariants`]: [`invariants_at_exits`], the counter-free equalities at
//!   loop heads, loop exits and branches after loops over values available
//!   there, [`instrument`], which adds them to a program as `assume`s
//!   when their arithmetic cannot wrap, and [`strengthen_loop_heads`],
//!   which adds everything known at loop heads for the bounded engine's
//!   loop abstraction.
//! - [`formulas`]: [`entry_formula`], a block's states as a formula over
//!   values (for witnesses and invariant checks).
//! - [`trip`]: [`trip_count_forms`], each loop's head parameters as affine
//!   functions of its counter and of values defined before it, for the
//!   concolic engine's trip-count symbols.
//!
//! What is not modelled, and why that is sound: memory (every load is top
//! but for reads of constant tables),
//! floats and pointers (top), and call effects (calls return top; callees
//! cannot change the caller's SSA values, and memory is never trusted).
//! No input program makes the analysis panic: whatever it does not
//! understand goes to top.
//!
//! ```
//! let text = "datamodel LP64\nfile \"t.c\"\n\ndefine @main() -> i32 !1:0 {\nb0:\n  v0 = nondet i32 !2:1\n  v1 = and i32 v0, i32 7 !3:1\n  v2 = cmp sgt i32 v1, i32 7 !4:1\n  br v2, b1, b2 !4:1\nb1:\n  ret i32 1 !5:1\nb2:\n  ret i32 0 !6:1\n}\n";
//! let p = walkdown_ir_reader::parse_and_verify(text).unwrap();
//! let a = walkdown_absint::analyze(&p);
//! let main = p.func_by_name("main").unwrap();
//! assert_eq!(a.dead_edges(), vec![(main, walkdown_ir::Block::from_u32(0), 0)]);
//! ```

#![deny(missing_docs)]

pub mod affine;
pub mod analysis;
pub mod domain;
pub mod fixpoint;
pub mod formulas;
pub mod interval;
pub mod invariants;
pub mod octagon;
pub mod relational;
pub mod state;
pub mod tables;
pub mod transfer;
pub mod trip;

pub use analysis::{analyze, analyze_with, return_summaries, AbsintError, Analysis};
pub use domain::Domain;
pub use fixpoint::FixpointOptions;
pub use formulas::entry_formula;
pub use interval::Interval;
pub use invariants::{instrument, invariants_at_exits, strengthen_loop_heads, FactKind, LinearFact};
pub use relational::{analyze_relational, analyze_relational_with, candidate_loop_equalities, RelAnalysis, RelState};
pub use state::IntervalState;
pub use transfer::{ReturnSummary, Summaries};
pub use trip::{trip_count_forms, ClosedForm, LoopForms};
