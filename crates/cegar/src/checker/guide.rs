//! The graph as guidance for other engines: the branch edges from which
//! it shows no way to an open goal, and the graph as a monitor automaton
//! over a run's branch decisions (see [`walkdown_campaign::Monitor`]).

use super::*;

impl<S: Solver> Checker<'_, S> {
    pub(super) fn share(&mut self, driver: &mut dyn Driver) {
        if self.m.cuts.iter().any(Option::is_some) {
            // Executions past a cut run code the graph does not have.
            return;
        }
        let (useless, may) = self.useless_edges(driver);
        self.figures.useless_edges = useless.len() as u64;
        let monitor = self.monitor(&may, driver);
        self.figures.monitor_states = monitor.states.len() as u64;
        driver.share_guidance(useless, monitor);
    }

    /// The inlined block's branch, if a run of the program decides it
    /// (a copy of a branch or switch of the program, not one the inliner
    /// made).
    pub(super) fn decision_site(&self, loc: Block) -> Option<(walkdown_ir::FuncId, Block)> {
        let o = (*self.m.prov.blocks.get(loc))?;
        match self.m.body.blocks[loc].term {
            walkdown_ir::Terminator::Branch { .. } | walkdown_ir::Terminator::Switch { .. } if o.terminator => {
                Some((o.func, o.block))
            }
            _ => None,
        }
    }

    /// The graph as a monitor of runs (see [`walkdown_campaign::Monitor`]):
    /// a state per uncovered node at a branch the program decides; a
    /// decision leads through the nodes of blocks without such a branch
    /// (all their successors: calls, jumps, the inliner's dispatch) to the
    /// next deciding nodes. Frontier nodes and cut points are "anything".
    pub(super) fn monitor(&self, may: &[bool], driver: &mut dyn Driver) -> Monitor {
        let mut mon = Monitor::default();
        let mut state_of: HashMap<usize, u32> = HashMap::new();
        let mut memo: HashMap<usize, Vec<u32>> = HashMap::new();
        let mut pending: Vec<usize> = Vec::new();
        let mut direct: Vec<Vec<bool>> = Vec::new();
        let root = self.advance(0, &mut state_of, &mut pending, &mut memo, &mut HashSet::new(), 0);
        mon.initial = root;
        let mut done = 0;
        while done < pending.len() {
            let x = pending[done];
            done += 1;
            let node = &self.nodes[x];
            let loc = node.loc.index();
            let site = self.decision_site(node.loc).expect("a state decides a branch");
            let nsucc = self.m.steps[loc].len();
            let mut next = vec![Vec::new(); nsucc];
            let mut useful = vec![false; nsucc];
            let mut hit = vec![false; nsucc];
            let children = node.children.clone();
            for c in children {
                if self.nodes[c].removed {
                    continue;
                }
                let (_, si) = self.nodes[c].parent.expect("a child has a parent");
                let k = si as usize;
                let r = self.nodes[c].covered_by.unwrap_or(c);
                let open_edge = self.m.steps[loc][k].goal.is_some_and(|g| driver.is_open(g));
                useful[k] = may[r] || open_edge;
                next[k] = self.advance(c, &mut state_of, &mut pending, &mut memo, &mut HashSet::new(), 0);
                // The edge covers an open goal, leads where the graph ends,
                // or into a block with an open error site.
                let to = self.nodes[r].loc.index();
                hit[k] = open_edge
                    || next[k].contains(&MONITOR_TOP)
                    || self.m.site_goals[to].iter().any(|&g| driver.is_open(g));
            }
            mon.states.push(MonitorState { site, next, useful, distance: Vec::new() });
            direct.push(hit);
        }
        mon.compute_distances(&direct);
        mon
    }

    /// The monitor states a run is in when it next decides a branch, from
    /// node `x` on.
    pub(super) fn advance(
        &self,
        x: usize,
        state_of: &mut HashMap<usize, u32>,
        pending: &mut Vec<usize>,
        memo: &mut HashMap<usize, Vec<u32>>,
        on_path: &mut HashSet<usize>,
        depth: usize,
    ) -> Vec<u32> {
        let x = self.nodes[x].covered_by.unwrap_or(x);
        if let Some(v) = memo.get(&x) {
            return v.clone();
        }
        let node = &self.nodes[x];
        if !node.expanded || self.m.cuts[node.loc.index()].is_some() || depth > 10_000 {
            return vec![MONITOR_TOP];
        }
        if self.decision_site(node.loc).is_some() {
            let next_id = state_of.len() as u32;
            let id = *state_of.entry(x).or_insert_with(|| {
                pending.push(x);
                next_id
            });
            return vec![id];
        }
        if !on_path.insert(x) {
            // A cycle without a decision: runs in it never decide again.
            return Vec::new();
        }
        let mut out = Vec::new();
        for &c in &node.children {
            if !self.nodes[c].removed {
                out.extend(self.advance(c, state_of, pending, memo, on_path, depth + 1));
            }
        }
        on_path.remove(&x);
        out.sort_unstable();
        out.dedup();
        memo.insert(x, out.clone());
        out
    }

    /// The branch-edge goals, already closed, from which the graph (less
    /// its covered nodes, whose ways are their coverers') reaches no open
    /// goal: every node at a copy of the branch either has no successor by
    /// the edge or one from which only closed goals are reachable. A copy
    /// of the branch that a frontier node can still reach in the control
    /// flow makes its edges useful (states there may not be in the graph
    /// yet), and a frontier node may reach anything.
    /// Also returns, per node, whether an open goal may be reached from it.
    pub fn useless_edges(&mut self, driver: &mut dyn Driver) -> (HashSet<GoalId>, Vec<bool>) {
        let nb = self.m.body.blocks.len();
        let live = |n: &ArgNode| !n.removed;
        let frontier = |n: &ArgNode| !n.removed && n.covered_by.is_none() && !n.expanded;
        // Locations control can reach from a frontier node.
        let mut open_loc = vec![false; nb];
        let mut work: Vec<Block> = self.nodes.iter().filter(|n| frontier(n)).map(|n| n.loc).collect();
        while let Some(b) = work.pop() {
            if std::mem::replace(&mut open_loc[b.index()], true) {
                continue;
            }
            work.extend(self.m.steps[b.index()].iter().map(|s| s.to));
        }
        let rep = |c: usize, nodes: &[ArgNode]| nodes[c].covered_by.unwrap_or(c);
        // Nodes from which an open goal may be reached.
        let n = self.nodes.len();
        let mut may = vec![false; n];
        let mut parents_of: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut marked = Vec::new();
        for (x, node) in self.nodes.iter().enumerate() {
            if !live(node) || node.covered_by.is_some() {
                continue;
            }
            let mut hit = frontier(node);
            let loc = node.loc.index();
            for &g in &self.m.site_goals[loc] {
                let encoded = self.m.errors[loc].iter().any(|e| e.goal == g);
                if (!encoded || node.errors_seen.contains(&g)) && driver.is_open(g) {
                    hit = true;
                }
            }
            for &c in &node.children {
                if self.nodes[c].removed {
                    continue;
                }
                let (_, si) = self.nodes[c].parent.expect("a child has a parent");
                if self.m.steps[loc][si as usize].goal.is_some_and(|g| driver.is_open(g)) {
                    hit = true;
                }
                parents_of[rep(c, &self.nodes)].push(x);
            }
            if hit {
                may[x] = true;
                marked.push(x);
            }
        }
        while let Some(y) = marked.pop() {
            for &p in &parents_of[y] {
                if !may[p] {
                    may[p] = true;
                    marked.push(p);
                }
            }
        }
        let mut useful: HashSet<GoalId> = HashSet::new();
        let mut all: HashSet<GoalId> = HashSet::new();
        for (steps, &open) in self.m.steps.iter().zip(&open_loc).take(nb) {
            for s in steps {
                if let Some(g) = s.goal {
                    all.insert(g);
                    if open {
                        useful.insert(g);
                    }
                }
            }
        }
        for x in 0..n {
            let node = &self.nodes[x];
            if !live(node) || node.covered_by.is_some() {
                continue;
            }
            let loc = node.loc.index();
            if frontier(node) {
                useful.extend(self.m.steps[loc].iter().filter_map(|s| s.goal));
                continue;
            }
            for &c in &node.children {
                if self.nodes[c].removed {
                    continue;
                }
                let (_, si) = self.nodes[c].parent.expect("a child has a parent");
                if let Some(g) = self.m.steps[loc][si as usize].goal {
                    if may[rep(c, &self.nodes)] {
                        useful.insert(g);
                    }
                }
            }
        }
        let useless = all.into_iter().filter(|g| !useful.contains(g) && !driver.is_open(*g)).collect();
        (useless, may)
    }
}
