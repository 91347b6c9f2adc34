//! walkdown's concrete interpreter: it runs a test vector on the IR and
//! reports what the run covered. It is the judge of every engine (a test
//! counts only once the interpreter has replayed it) and the hot loop of the
//! random and concolic searches.
//!
//! [`Interpreter::new`] turns a [`Program`] into an executable form once
//! ([`code`]: operands resolved to register slots, goals attached to edges
//! and error sites, globals and functions laid out in memory);
//! [`Interpreter::run`] executes `main` on one [`TestVector`] and returns a
//! [`RunResult`]: the [`Outcome`], the goals covered, the inputs consumed,
//! the steps taken and, on request, per-line execution counts. A run never
//! panics on a program-dependent path: whatever it cannot model ends as
//! [`Outcome::Unsupported`], and a program it cannot even lay out is an
//! [`InterpError`].
//!
//! The per-operation semantics live in [`eval`] (pure functions a symbolic
//! engine can reuse for the concrete half of its values), memory in
//! [`memory`] (a flat byte-addressed space where pointers are integers; see
//! there for how faults are classified), the library models in `builtins`,
//! and the loop in `exec`. Conventions beyond the instruction set:
//! - `main` gets `argc = 1` and `argv = {"main", NULL}` if it takes
//!   parameters; a `void` main exits with 0.
//! - Calling a function named `reach_error` or `__VERIFIER_error` (defined
//!   or not) is a [`CheckKind::ReachError`](walkdown_ir::CheckKind) error at
//!   the call; so is `__assert_fail` whose function argument is
//!   `"reach_error"` (otherwise it is an assertion failure).
//!   `__VERIFIER_assume` and `__VERIFIER_nondet_*` are modelled by name too.
//! - An external function without body or model is recorded in
//!   [`RunResult::unknown_externals`] and returns a fresh input.
//!
//! ```
//! use walkdown_interp::{Interpreter, Outcome, RunOptions};
//! use walkdown_ir::goals::Goals;
//! use walkdown_ir::testvec::TestVector;
//! use walkdown_ir::*;
//!
//! let mut p = Program::new(DataModel::LP64);
//! let mut body = Body::default();
//! let b = body.add_block();
//! let (_, x) = body.append(b, InstKind::Nondet { ty: Type::I32, signed: true }, Loc::UNKNOWN);
//! body.set_term(b, Terminator::Return(x.map(Operand::Value)), Loc::UNKNOWN);
//! p.funcs.push(FuncData { body: Some(body), ..FuncData::external("main", vec![], Some(Type::I32), false) });
//! let interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
//! let r = interp.run(&TestVector::from_ints([-7]), &RunOptions::default());
//! assert_eq!(r.outcome, Outcome::Exit(-7));
//! ```

#![deny(missing_docs)]

mod api;
mod builtins;
mod call;
pub mod code;
pub mod eval;
mod exec;
pub mod fastforward;
pub mod libc;
pub mod memory;
mod output;
mod prepare;

pub use api::{
    ConsumedInput, ExecLimits, InterpError, JumpNote, LineCount, Outcome, RunOptions, RunResult, MAX_JUMP_NOTES,
};
pub use exec::input_bits;

/// A line count a fast-forward jump would push past this stays here
/// (nested loops of 2^32 iterations each run their bodies more often than
/// 64 bits count): a count at or above it means "at least this many".
pub const LINE_COUNT_SATURATED: u64 = 1 << 63;

use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::{FuncId, Program};

/// A program prepared for execution; cheap to run many times, and shareable
/// between threads (each run has its own state).
#[derive(Clone, Debug)]
pub struct Interpreter {
    prepared: code::Prepared,
}

impl Interpreter {
    /// Prepares `program`, whose goals are `goals`
    /// (`Goals::compute(program)`).
    pub fn new(program: &Program, goals: &Goals) -> Result<Interpreter, InterpError> {
        Ok(Interpreter { prepared: prepare::prepare(program, goals)? })
    }

    /// Runs `main` on `test`.
    pub fn run(&self, test: &TestVector, options: &RunOptions) -> RunResult {
        exec::Machine::new(&self.prepared, &test.values, options.limits, options.record_lines).run(options.record_lines)
    }

    /// Runs `main` on `test` and also returns what it printed to standard
    /// output (see the `output` module for which functions and conversions
    /// are followed). The run itself is the one [`Interpreter::run`] makes.
    pub fn run_with_output(&self, test: &TestVector, options: &RunOptions) -> (RunResult, Vec<u8>) {
        let mut m = exec::Machine::new(&self.prepared, &test.values, options.limits, options.record_lines);
        m.output = Some(Vec::new());
        m.run_keeping_output(options.record_lines)
    }

    /// Fills new stack slots and `malloc`/`realloc` blocks in later runs
    /// with bytes derived from `seed` and their addresses instead of zeros
    /// (`seed` 0, the default, keeps zeros; `calloc` always zeroes). C
    /// leaves their contents indeterminate: a run whose result changes with
    /// the fill reads uninitialized memory (the differential test against
    /// gcc tells such runs apart this way).
    pub fn set_uninitialized_fill(&mut self, seed: u64) {
        self.prepared.memory.set_fresh_fill(seed);
    }

    /// Turns fast-forwarding of deterministic loops on (the default) or
    /// off; a run without it is the plain run, iteration by iteration.
    pub fn set_fast_forward(&mut self, on: bool) {
        self.prepared.ff.enabled = on;
    }

    /// The executable form (for engines that walk the same code).
    pub fn prepared(&self) -> &code::Prepared {
        &self.prepared
    }

    /// The address function `f` has in every run.
    pub fn func_address(&self, f: FuncId) -> Option<u64> {
        self.prepared.funcs.iter().find(|x| x.id == f).map(|x| x.addr)
    }

    /// The address of global `g` in every run.
    pub fn global_address(&self, g: walkdown_ir::GlobalId) -> Option<u64> {
        self.prepared.memory.objects().iter().find_map(|o| match o.kind {
            memory::ObjectKind::Global(id) if id == g => Some(o.base),
            _ => None,
        })
    }
}
