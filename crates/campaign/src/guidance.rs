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
use walkdown_ir::{Block, FuncId};

/// A state of the [`Monitor`] that stands for "anything may happen from
/// here" (the graph is not built that far, or a cut point).
pub const MONITOR_TOP: u32 = u32::MAX;

/// The abstract reachability graph as an automaton over the branch
/// decisions of a run: each state is a graph node about to decide a
/// branch of the program (the node's facts are its abstract state); a
/// decision leads to the nodes about to decide the next branch. A run
/// steps it along (the product of program and monitor, built on the fly);
/// at each branch, the ways the monitor shows lead to no open goal need
/// not be solved for.
#[derive(Clone, Debug, Default)]
pub struct Monitor {
    /// The states.
    pub states: Vec<MonitorState>,
    /// The states a run is in at its first branch.
    pub initial: Vec<u32>,
}

/// One state of a [`Monitor`].
#[derive(Clone, Debug)]
pub struct MonitorState {
    /// The branch it decides (function and block of the program).
    pub site: (FuncId, Block),
    /// Per successor number of the site's terminator: the states after
    /// taking it (empty: the abstraction rules that way out; may hold
    /// [`MONITOR_TOP`]).
    pub next: Vec<Vec<u32>>,
    /// Per successor: whether a goal open when the monitor was built may
    /// be reached that way.
    pub useful: Vec<bool>,
    /// Per successor: the fewest further branch decisions before a run
    /// that way can take an edge to a goal that was open (0: this edge
    /// itself, or the graph ends there); [`NO_WAY`] when none can.
    pub distance: Vec<u32>,
}

/// A [`MonitorState::distance`] with no way to an open goal.
pub const NO_WAY: u32 = u32::MAX;

/// Where a run is in a [`Monitor`].
#[derive(Clone, Debug)]
pub enum MonitorPosition {
    /// Among these states.
    At(Vec<u32>),
    /// Lost (no monitor, the graph ends here, or the run left it): every
    /// way is useful.
    Anywhere,
}

impl Monitor {
    /// Where a run starts.
    pub fn start(&self) -> MonitorPosition {
        if self.initial.contains(&MONITOR_TOP) {
            MonitorPosition::Anywhere
        } else {
            MonitorPosition::At(self.initial.clone())
        }
    }

    /// Whether taking successor `succ` of the branch at `site` can lead to
    /// an open goal, from `pos`. False only when every state of `pos`
    /// decides this branch and none has a useful way by `succ`.
    pub fn useful(&self, pos: &MonitorPosition, site: (FuncId, Block), succ: u32) -> bool {
        let MonitorPosition::At(states) = pos else { return true };
        if states.is_empty() {
            return true;
        }
        states.iter().any(|&s| {
            let st = &self.states[s as usize];
            st.site != site || st.useful.get(succ as usize).copied().unwrap_or(true)
        })
    }

    /// How many branch decisions after taking successor `succ` of the
    /// branch at `site`, from `pos`, a run may first reach an open goal's
    /// edge (the least over the states of `pos`); `None` when the run is
    /// lost or a state of `pos` decides another branch.
    pub fn distance(&self, pos: &MonitorPosition, site: (FuncId, Block), succ: u32) -> Option<u32> {
        let MonitorPosition::At(states) = pos else { return None };
        let mut best: Option<u32> = None;
        for &s in states {
            let st = &self.states[s as usize];
            if st.site != site {
                return None;
            }
            let d = st.distance.get(succ as usize).copied()?;
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        best
    }

    /// Fills in [`MonitorState::distance`] from `next`, `useful` and
    /// `direct` (per state and successor: the edge itself reaches an open
    /// goal, or leads where the graph ends).
    pub fn compute_distances(&mut self, direct: &[Vec<bool>]) {
        for (st, d) in self.states.iter_mut().zip(direct) {
            st.distance = st
                .useful
                .iter()
                .zip(d)
                .map(|(&u, &hit)| {
                    if hit {
                        0
                    } else if u {
                        NO_WAY - 1
                    } else {
                        NO_WAY
                    }
                })
                .collect();
        }
        // Shortest ways backwards, to a fixpoint (distances only shrink).
        let mut changed = true;
        let mut rounds = 0;
        while changed && rounds < 10_000 {
            changed = false;
            rounds += 1;
            let best: Vec<u32> =
                self.states.iter().map(|st| st.distance.iter().copied().min().unwrap_or(NO_WAY)).collect();
            for st in &mut self.states {
                for k in 0..st.distance.len() {
                    if st.distance[k] == 0 || st.distance[k] == NO_WAY {
                        continue;
                    }
                    let via = st.next[k]
                        .iter()
                        .filter(|&&t| t != MONITOR_TOP)
                        .map(|&t| best[t as usize])
                        .min()
                        .unwrap_or(NO_WAY);
                    let d = via.saturating_add(1).min(NO_WAY - 1);
                    if d < st.distance[k] {
                        st.distance[k] = d;
                        changed = true;
                    }
                }
            }
        }
    }

    /// The position after the branch at `site` took successor `succ`.
    pub fn step(&self, pos: MonitorPosition, site: (FuncId, Block), succ: u32) -> MonitorPosition {
        let MonitorPosition::At(states) = pos else { return MonitorPosition::Anywhere };
        let mut out: Vec<u32> = Vec::new();
        for s in states {
            let st = &self.states[s as usize];
            if st.site != site {
                // The run decided a branch this state does not: the graph
                // and the run disagree (a loop fast-forwarded, say).
                return MonitorPosition::Anywhere;
            }
            match st.next.get(succ as usize) {
                Some(next) if next.contains(&MONITOR_TOP) => return MonitorPosition::Anywhere,
                Some(next) => out.extend(next.iter().copied()),
                None => return MonitorPosition::Anywhere,
            }
        }
        out.sort_unstable();
        out.dedup();
        if out.is_empty() {
            // The abstraction says no run goes this way; this one did.
            return MonitorPosition::Anywhere;
        }
        MonitorPosition::At(out)
    }
}

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
    /// The monitor, when the engine built one.
    pub monitor: Option<Arc<Monitor>>,
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

    pub(crate) fn set(&self, from: &'static str, useless_edges: HashSet<GoalId>, monitor: Option<Monitor>) {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let version = cur.version + 1;
        *cur = Arc::new(Guidance { version, useless_edges, from, monitor: monitor.map(Arc::new) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::entity::EntityRef;

    fn site(b: usize) -> (FuncId, Block) {
        (FuncId::new(0), Block::new(b))
    }

    /// Two states deciding branch b1; from state 0 the false way (1) leads
    /// nowhere useful, from state 1 both ways are useful.
    fn monitor() -> Monitor {
        Monitor {
            states: vec![
                MonitorState {
                    site: site(1),
                    next: vec![vec![1], vec![]],
                    useful: vec![true, false],
                    distance: vec![],
                },
                MonitorState {
                    site: site(1),
                    next: vec![vec![MONITOR_TOP], vec![0]],
                    useful: vec![true, true],
                    distance: vec![],
                },
            ],
            initial: vec![0],
        }
    }

    #[test]
    fn a_way_is_useless_only_when_every_state_says_so() {
        let m = monitor();
        let start = m.start();
        assert!(m.useful(&start, site(1), 0));
        assert!(!m.useful(&start, site(1), 1));
        // Both states: state 1 finds way 1 useful.
        assert!(m.useful(&MonitorPosition::At(vec![0, 1]), site(1), 1));
        // Lost or elsewhere: everything is useful.
        assert!(m.useful(&MonitorPosition::Anywhere, site(1), 1));
        assert!(m.useful(&start, site(2), 1));
    }

    #[test]
    fn distances_count_decisions_to_an_open_edge() {
        // 0 -a-> 1 -a-> 2 -a-> (open edge); 0 -b-> nothing useful; 1 -b-> 0.
        let mut m = Monitor {
            states: vec![
                MonitorState {
                    site: site(1),
                    next: vec![vec![1], vec![]],
                    useful: vec![true, false],
                    distance: vec![],
                },
                MonitorState {
                    site: site(2),
                    next: vec![vec![2], vec![0]],
                    useful: vec![true, true],
                    distance: vec![],
                },
                MonitorState { site: site(3), next: vec![vec![], vec![]], useful: vec![true, false], distance: vec![] },
            ],
            initial: vec![0],
        };
        m.compute_distances(&[vec![false, false], vec![false, false], vec![true, false]]);
        assert_eq!(m.states[2].distance, vec![0, NO_WAY]);
        assert_eq!(m.states[1].distance, vec![1, 3]);
        assert_eq!(m.states[0].distance, vec![2, NO_WAY]);
        assert_eq!(m.distance(&m.start(), site(1), 0), Some(2));
        assert_eq!(m.distance(&MonitorPosition::At(vec![1]), site(2), 1), Some(3));
        assert_eq!(m.distance(&MonitorPosition::Anywhere, site(1), 0), None);
        assert_eq!(m.distance(&m.start(), site(9), 0), None);
    }

    #[test]
    fn stepping_follows_decisions_and_gets_lost_safely() {
        let m = monitor();
        let at1 = m.step(m.start(), site(1), 0);
        assert!(matches!(&at1, MonitorPosition::At(s) if s == &vec![1]));
        // From state 1, way 0 leads to the graph's frontier: anywhere.
        assert!(matches!(m.step(at1.clone(), site(1), 0), MonitorPosition::Anywhere));
        // A decision at another branch than the state's: the run left the
        // graph (say, a loop was fast-forwarded).
        assert!(matches!(m.step(at1, site(2), 0), MonitorPosition::Anywhere));
        // A way the abstraction rules out, taken anyway: anywhere.
        assert!(matches!(m.step(m.start(), site(1), 1), MonitorPosition::Anywhere));
    }
}
