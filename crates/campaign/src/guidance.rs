//! Hints engines share that settle no goal: branch edges a model checker
//! found can lead to no goal that was open when it looked. This is the
//! monitor of abstraction-driven concolic testing (Daca, Gupta and
//! Henzinger) in the form a search consumes: the abstract reachability
//! graph, less its subsumed nodes, says which ways out of a branch reach
//! no open goal; concolic search then never solves for them.
//!
//! A hint stays right as goals close (goals never reopen, so an edge that
//! leads to no open goal never will), and is only ever used to skip work,
//! never to claim anything.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use walkdown_ir::goals::GoalId;

/// The current hints.
#[derive(Clone, Debug, Default)]
pub struct Guidance {
    /// Changes with every update (0: none yet).
    pub version: u64,
    /// Branch-edge goals (already covered or proved) from which no
    /// execution reaches a goal that was open.
    pub useless_edges: HashSet<GoalId>,
    /// The engine that gave them.
    pub from: &'static str,
}

/// Where the campaign keeps the hints.
#[derive(Debug, Default)]
pub(crate) struct GuidanceBoard {
    current: Mutex<Arc<Guidance>>,
}

impl GuidanceBoard {
    pub(crate) fn get(&self) -> Arc<Guidance> {
        Arc::clone(&self.current.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn set(&self, from: &'static str, useless_edges: HashSet<GoalId>) {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let version = cur.version + 1;
        *cur = Arc::new(Guidance { version, useless_edges, from });
    }
}
