//! Verdicts: what a campaign says of each goal at the end, and what an
//! engine may claim about a goal on the way.

use std::fmt;

/// What is known of one goal. Every goal has exactly one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing settled it yet; the reasons engines gave are kept beside
    /// the table (see [`crate::GoalState::open_reasons`]).
    Open,
    /// A kept test covers it; the interpreter replayed that test.
    Covered {
        /// The test's index in the suite.
        test: usize,
    },
    /// Proved: no execution reaches it, without any bound.
    Unreachable(Proof),
    /// No execution within a bound reaches it; longer ones may.
    Infeasible(BoundedProof),
}

impl Verdict {
    /// `open`, `covered`, `unreachable` or `infeasible` (the words of
    /// `report.json`).
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Open => "open",
            Verdict::Covered { .. } => "covered",
            Verdict::Unreachable(_) => "unreachable",
            Verdict::Infeasible(_) => "infeasible",
        }
    }

    /// Covered or proved unreachable: no engine needs to aim at it again.
    /// A bounded proof does not close a goal, since a longer execution may
    /// still cover it.
    pub fn is_closed(&self) -> bool {
        matches!(self, Verdict::Covered { .. } | Verdict::Unreachable(_))
    }
}

/// An unbounded proof of unreachability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The engine that proved it (`absint`, `bmc`, ...).
    pub engine: &'static str,
    /// How, in words a user can check ("interval invariant contradicts the
    /// branch guard", "k-induction with k = 2", ...).
    pub method: String,
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.engine, self.method)
    }
}

/// A proof that holds only for the executions within a bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundedProof {
    /// The engine that proved it.
    pub engine: &'static str,
    /// The bound, in words ("unwinding 4").
    pub bound: String,
    /// The bound as a number, so a deeper proof replaces a shallower one.
    pub depth: u32,
}

impl fmt::Display for BoundedProof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: infeasible within {}", self.engine, self.bound)
    }
}

/// What an engine claims about a goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// No execution reaches the goal (unbounded).
    Unreachable {
        /// How it was proved.
        method: String,
    },
    /// No execution within the bound reaches the goal.
    Infeasible {
        /// The bound, in words.
        bound: String,
        /// The bound as a number (larger is stronger).
        depth: u32,
    },
}

/// Why an engine left a goal open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenReason {
    /// The engine ran out of time (or was stopped) before settling it.
    Budget,
    /// The engine cannot handle a construct of the program; the text names
    /// it and its source line.
    Unsupported(String),
    /// The solver answered `unknown` (usually its time limit).
    SolverUnknown,
    /// The engine does not aim at goals of this kind (the text says why).
    NotAttempted(String),
}

impl fmt::Display for OpenReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenReason::Budget => write!(f, "budget"),
            OpenReason::Unsupported(what) => write!(f, "unsupported: {what}"),
            OpenReason::SolverUnknown => write!(f, "solver unknown"),
            OpenReason::NotAttempted(why) => write!(f, "not attempted: {why}"),
        }
    }
}

/// A proof that a replayed test contradicts: a bug in the engine that
/// claimed it, reported, never hidden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofConflict {
    /// The goal.
    pub goal: walkdown_ir::goals::GoalId,
    /// The proof that claimed it unreachable.
    pub proof: Proof,
    /// The test that covers it.
    pub test: usize,
}
