//! Lazy predicate abstraction over a [`Model`]: an abstract reachability
//! graph (nodes are a location and the predicates known to hold or fail
//! there, Cartesian abstraction computed by the solver over exact
//! bit-vectors), coverage of a node by an earlier one at the same location
//! with fewer facts, and a first-in first-out frontier.
//!
//! Every open goal is a target. When an abstract edge or a failing check
//! of an open goal becomes possible, the concrete path to it is checked: a
//! feasible path is a test (its inputs from the model, replayed by the
//! caller), the goal stops being a target and the graph grows on; an
//! infeasible one is refined away. Without interpolation (Debian's Z3 has
//! none), predicates come from the infeasible path itself: the longest
//! suffix that is infeasible from any state is found by bisection, the
//! atoms of its steps' conditions over the state at their location become
//! predicates there, and each is carried back along the path by weakest
//! precondition (substituting the step's assignments) as long as it stays
//! a formula over the state. Predicates are kept per location; after a
//! refinement the graph is rebuilt with them. When the frontier is empty
//! and no cut point (recursion deeper than the inlining bound) was
//! reached, the graph covers every execution: a goal it never reached is
//! unreachable.

mod guide;
mod interpolate;
mod refine;

use std::collections::{HashMap, HashSet, VecDeque};

use crate::model::{Model, Step};
use walkdown_campaign::{Monitor, MonitorState, MONITOR_TOP};
use walkdown_encode::vc::InputSite;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalId;
use walkdown_ir::{Block, Body};
use walkdown_smt::{ExprId, Leaf, Node as Term, Solver, SymId};

/// Settings of the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckerSettings {
    /// Predicates one location may have; atoms past it are dropped (the
    /// abstraction stays sound, refinement may fail). Default 256.
    pub max_predicates_per_location: usize,
    /// Nodes the graph may have before the checker gives up for this
    /// round. Default 200,000.
    pub max_nodes: usize,
    /// Expansions between two updates of the edges shared as useless with
    /// other engines (and one when the graph is complete). Default 500.
    pub share_every: u64,
    /// A parameter a location's predicates mention is tracked by value
    /// (an explicit value per node, so a loop with a constant bound
    /// unrolls without a refinement per iteration) until this many values
    /// of it were seen there; then by predicates alone, so the graph stays
    /// finite. 0 turns value tracking off. Default 64.
    pub max_tracked_values: usize,
    /// Which steps of an infeasible path give predicates. Default
    /// [`Refinement::Suffix`].
    pub refinement: Refinement,
}

/// Which steps of an infeasible path give the predicates (each carried
/// back along the path by weakest precondition).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Refinement {
    /// The steps of the longest suffix that is infeasible from any state
    /// (found by bisection; about log2 of the path's length in queries).
    #[default]
    Suffix,
    /// The steps of a minimal unsatisfiable core of the path's step
    /// conditions (found by deletion, one query per step), wherever they
    /// are on the path; the suffix when the core gives nothing new.
    Core,
    /// The suffix, and when it gives nothing new, the facts of Bitwuzla's
    /// sequence interpolants of the path's steps, each at the location of
    /// its cut (see `checker::interpolate`).
    Interpolants,
}

impl Default for CheckerSettings {
    fn default() -> Self {
        CheckerSettings {
            max_predicates_per_location: 256,
            max_nodes: 200_000,
            share_every: 500,
            max_tracked_values: 64,
            refinement: Refinement::Suffix,
        }
    }
}

/// What the checker needs from its surroundings: the budget, which goals
/// are still open, and the replay of a found test.
pub trait Driver {
    /// Whether to go on (false: the budget is spent or the run stopped).
    fn keep_going(&mut self) -> bool;
    /// Whether `goal` is still open for anyone (covered goals are not).
    fn is_open(&mut self, goal: GoalId) -> bool;
    /// Replays a test with these inputs (in order); returns whether the
    /// replay covered `goal`.
    fn test(&mut self, inputs: &[(InputSite, u64)], goal: GoalId) -> bool;
    /// Charges solver work and formula size.
    fn charge(&mut self, solver_units: u64, terms: u64);
    /// Shares the branch-edge goals from which the graph shows no way to a
    /// goal open now (see [`Checker::useless_edges`]) and the graph as a
    /// monitor of runs.
    fn share_guidance(&mut self, _edges: HashSet<GoalId>, _monitor: Monitor) {}
}

/// A goal's standing with the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    /// Aimed at.
    Target,
    /// A path to it was found (a test was submitted).
    Reached,
    /// Refinement could not remove a spurious path to it, or the solver
    /// gave no answer: never claimed.
    GivenUp,
}

/// How a run of the checker ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The graph is complete: the goals listed (open, aimed at, never
    /// reached by the graph) are unreachable.
    Complete {
        /// The unreachable goals.
        unreachable: Vec<GoalId>,
    },
    /// The graph is complete but reaches a cut point, so it proves nothing.
    CompleteWithCuts,
    /// The budget ended first.
    Budget,
    /// The graph grew past [`CheckerSettings::max_nodes`].
    TooLarge,
}

/// The checker's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckerFigures {
    /// Refinements (spurious paths removed).
    pub refinements: u64,
    /// Refinements that found no new predicate.
    pub failed_refinements: u64,
    /// Predicates over all locations.
    pub predicates: u64,
    /// Nodes of the last graph.
    pub nodes: u64,
    /// Nodes covered by others in the last graph.
    pub covered: u64,
    /// Solver queries.
    pub queries: u64,
    /// Queries answered unknown.
    pub unknown: u64,
    /// Feasible paths (tests submitted).
    pub tests: u64,
    /// Tests whose replay did not cover the goal they were for.
    pub divergences: u64,
    /// Rounds (graphs built).
    pub rounds: u64,
    /// Branch edges last shared as leading to no open goal.
    pub useless_edges: u64,
    /// Infeasible paths sent for interpolation ([`Refinement::Interpolants`]).
    pub interpolations: u64,
    /// Of those, paths that got no interpolants (refused, unknown, floats).
    pub interpolation_failures: u64,
    /// States of the last monitor shared.
    pub monitor_states: u64,
}

/// A node of the abstract reachability graph.
#[derive(Clone, Debug)]
pub struct ArgNode {
    /// Its location.
    pub loc: Block,
    /// Predicates of the location known to hold (true) or fail (false),
    /// sorted by predicate number.
    pub facts: Vec<(u32, bool)>,
    /// The node it was reached from and by which successor.
    pub parent: Option<(usize, u32)>,
    /// The node covering it, if any.
    pub covered_by: Option<usize>,
    /// Taken back by a refinement.
    pub removed: bool,
    /// Its successors were computed.
    pub expanded: bool,
    /// Its successors.
    pub children: Vec<usize>,
    /// The error goals whose check may fail here.
    pub errors_seen: Vec<GoalId>,
    /// Parameters of the location known to hold one value in every state
    /// of the node (parameter number, bits), sorted.
    pub values: Vec<(u32, u128)>,
}

impl ArgNode {
    fn new(loc: Block, facts: Vec<(u32, bool)>, parent: Option<(usize, u32)>) -> ArgNode {
        ArgNode {
            loc,
            facts,
            parent,
            covered_by: None,
            removed: false,
            expanded: false,
            children: Vec::new(),
            errors_seen: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Whether every state of `self` is one of `other`'s: `other` knows
    /// fewer facts and values, and the same ones.
    fn within(&self, other: &ArgNode) -> bool {
        other.facts.iter().all(|f| self.facts.binary_search(f).is_ok())
            && other.values.iter().all(|v| self.values.binary_search(v).is_ok())
    }
}

/// The final target of a path: taking an edge, or failing a check.
#[derive(Clone, Copy)]
enum Final {
    Edge(u32),
    Error(usize),
}

/// The model checker.
pub struct Checker<'m, S: Solver> {
    m: &'m mut Model,
    solver: S,
    settings: CheckerSettings,
    /// Per location: its predicates, over its state symbols.
    preds: Vec<Vec<ExprId>>,
    pred_set: Vec<HashSet<ExprId>>,
    standing: HashMap<GoalId, Standing>,
    /// Per (leaf, path position): the leaf renamed for that position.
    copies: HashMap<(Leaf, usize), (ExprId, Option<SymId>)>,
    /// The graph (removed nodes stay, marked).
    pub nodes: Vec<ArgNode>,
    /// Per location: its live, uncovered nodes.
    at_loc: Vec<Vec<usize>>,
    frontier: VecDeque<usize>,
    /// Nodes not removed.
    live: usize,
    /// Edge goals whose step the solver could not decide.
    unknown_edges: HashSet<GoalId>,
    /// Locations that got predicates in the current refinement.
    touched: HashSet<Block>,
    /// Nodes expanded so far.
    expansions: u64,
    /// Per (location, successor, predicate of the target): the predicate
    /// over the source's state after the step.
    post_cache: HashMap<(Block, u32, ExprId), ExprId>,
    /// Per location and parameter: tracked by value (mentioned by a
    /// predicate there, not given up).
    tracked: Vec<Vec<bool>>,
    /// Per (location, parameter): the values seen; past the limit the
    /// parameter is no longer tracked there.
    seen_values: HashMap<(Block, u32), HashSet<u128>>,
    given_up_values: HashSet<(Block, u32)>,
    /// Computes interpolants for [`Refinement::Interpolants`], made on
    /// first use with `interpolation_limits`.
    interpolator: Option<walkdown_smt::Interpolator>,
    /// The per-query limits and the deadline of interpolation.
    interpolation_limits: (walkdown_smt::BackendSettings, Option<std::time::Instant>),
    /// Figures so far.
    pub figures: CheckerFigures,
}

enum Answer {
    Sat,
    Unsat,
    Unknown,
}

impl<'m, S: Solver> Checker<'m, S> {
    /// A checker of `m` asking `solver`.
    pub fn new(m: &'m mut Model, solver: S, settings: CheckerSettings) -> Self {
        let n = m.body.blocks.len();
        let tracked = m.body.blocks.iter().map(|(_, d)| vec![false; d.params.len()]).collect();
        Checker {
            m,
            solver,
            settings,
            preds: vec![Vec::new(); n],
            pred_set: vec![HashSet::new(); n],
            standing: HashMap::new(),
            copies: HashMap::new(),
            nodes: Vec::new(),
            at_loc: Vec::new(),
            frontier: VecDeque::new(),
            live: 0,
            unknown_edges: HashSet::new(),
            touched: HashSet::new(),
            expansions: 0,
            post_cache: HashMap::new(),
            tracked,
            seen_values: HashMap::new(),
            given_up_values: HashSet::new(),
            interpolator: None,
            interpolation_limits: Default::default(),
            figures: CheckerFigures::default(),
        }
    }

    /// Interpolates under these per-query limits and this deadline (for
    /// [`Refinement::Interpolants`]; default: the backend's defaults and
    /// no deadline).
    pub fn with_interpolation_limits(
        mut self,
        settings: walkdown_smt::BackendSettings,
        deadline: Option<std::time::Instant>,
    ) -> Self {
        self.interpolation_limits = (settings, deadline);
        self
    }

    /// The goals the checker stopped aiming at without a verdict, with why.
    pub fn abandoned(&self) -> Vec<(GoalId, &'static str)> {
        let mut out: Vec<(GoalId, &'static str)> = self
            .standing
            .iter()
            .filter_map(|(g, s)| match s {
                Standing::GivenUp => {
                    Some((*g, "refinement found no new predicate for a spurious path, or the solver gave no answer"))
                }
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    /// The predicates of every location (for reports and witnesses).
    pub fn predicates(&self) -> &[Vec<ExprId>] {
        &self.preds
    }

    /// The model.
    pub fn model(&self) -> &Model {
        self.m
    }

    /// Per location: the states of the graph's nodes there (all but the
    /// removed ones), each as its literals: the location's predicates known
    /// to hold or fail, and the parameters known by value. After a complete
    /// run their disjunction per location is an inductive invariant of the
    /// model (a covered node's states are within its coverer's). Also
    /// returns which literals state tracked values.
    pub fn location_states(&mut self) -> (Vec<Vec<Vec<ExprId>>>, HashSet<ExprId>) {
        let mut out = vec![Vec::new(); self.m.body.blocks.len()];
        let mut value_literals = HashSet::new();
        for k in 0..self.nodes.len() {
            let node = &self.nodes[k];
            if node.removed {
                continue;
            }
            let loc = node.loc.index();
            let (facts, values) = (node.facts.clone(), node.values.clone());
            let mut lits = Vec::with_capacity(facts.len() + values.len());
            for (p, holds) in facts {
                let pred = self.preds[loc][p as usize];
                lits.push(if holds { pred } else { self.m.pool.not(pred).expect("Boolean") });
            }
            for (j, bits) in values {
                let param = self.m.states[loc].params[j as usize];
                let width = self.m.pool.width(param).expect("a bit-vector");
                let c = self.m.pool.bv_const(width, bits).expect("fits");
                let lit = self.m.pool.eq(param, c).expect("same sort");
                value_literals.insert(lit);
                lits.push(lit);
            }
            out[loc].push(lits);
        }
        (out, value_literals)
    }

    fn ask(&mut self, conj: &[ExprId], driver: &mut dyn Driver) -> Answer {
        // One constraint: the solver layers' slicing assumes every
        // constraint but the last is satisfiable, which holds for a path
        // condition, not here.
        let all = self.m.pool.and(conj).expect("Boolean");
        self.answer(&[all], conj.len() as u64, driver)
    }

    /// Asks `context ∧ focus` where `context` is known satisfiable, so the
    /// solver layers may slice it.
    fn ask_focused(&mut self, context: &[ExprId], focus: ExprId, driver: &mut dyn Driver) -> Answer {
        let mut q = Vec::with_capacity(context.len() + 1);
        q.extend_from_slice(context);
        q.push(focus);
        let terms = q.len() as u64;
        self.answer(&q, terms, driver)
    }

    /// One query, counted and charged.
    fn answer(&mut self, query: &[ExprId], terms: u64, driver: &mut dyn Driver) -> Answer {
        self.figures.queries += 1;
        let before = self.solver.work();
        let r = self.solver.is_sat(&self.m.pool, query);
        driver.charge(self.solver.work().saturating_sub(before), terms);
        match r {
            Ok(Some(true)) => Answer::Sat,
            Ok(Some(false)) => Answer::Unsat,
            _ => {
                self.figures.unknown += 1;
                Answer::Unknown
            }
        }
    }

    fn ask_model(&mut self, conj: &[ExprId], driver: &mut dyn Driver) -> ModelAnswer {
        self.figures.queries += 1;
        let before = self.solver.work();
        let all = self.m.pool.and(conj).expect("Boolean");
        let r = self.solver.check(&self.m.pool, &walkdown_smt::Query::new(&[all]));
        driver.charge(self.solver.work().saturating_sub(before), conj.len() as u64);
        match r {
            Ok(walkdown_smt::Answer::Sat(m)) => ModelAnswer::Sat(m),
            Ok(walkdown_smt::Answer::Unsat) => ModelAnswer::Unsat,
            _ => {
                self.figures.unknown += 1;
                ModelAnswer::Unknown
            }
        }
    }

    fn is_target(&mut self, goal: Option<GoalId>, driver: &mut dyn Driver) -> bool {
        let Some(g) = goal else { return false };
        match self.standing.get(&g) {
            Some(Standing::Target) | None if driver.is_open(g) => {
                self.standing.insert(g, Standing::Target);
                true
            }
            _ => false,
        }
    }

    /// Grows the graph, refining, until it is complete or the budget ends.
    /// `goals` are the goals the checker aims at (the others it neither
    /// reports reached nor unreachable).
    pub fn run(&mut self, goals: &[GoalId], driver: &mut dyn Driver) -> Outcome {
        for &g in goals {
            self.standing.entry(g).or_insert(Standing::Target);
        }
        let n = self.m.body.blocks.len();
        self.nodes.clear();
        self.at_loc = vec![Vec::new(); n];
        self.frontier.clear();
        self.push_node(ArgNode::new(Body::ENTRY, Vec::new(), None));
        self.figures.rounds = 1;
        while let Some(id) = self.frontier.pop_front() {
            if !driver.keep_going() {
                return Outcome::Budget;
            }
            let n = &self.nodes[id];
            if n.removed || n.covered_by.is_some() || n.expanded {
                continue;
            }
            if self.live > self.settings.max_nodes {
                return Outcome::TooLarge;
            }
            if let Some(locs) = self.expand(id, driver) {
                self.prune(&locs, id);
                self.figures.rounds += 1;
            }
            self.expansions += 1;
            if self.expansions.is_multiple_of(self.settings.share_every) {
                self.share(driver);
            }
        }
        self.share(driver);
        // Complete: what the live graph reaches.
        let mut seen: HashSet<GoalId> = HashSet::new();
        let mut cut_reached = false;
        self.figures.nodes = 0;
        self.figures.covered = 0;
        for node in self.nodes.iter().filter(|n| !n.removed) {
            self.figures.nodes += 1;
            if node.covered_by.is_some() {
                self.figures.covered += 1;
                continue;
            }
            seen.extend(node.errors_seen.iter().copied());
            if self.m.cuts[node.loc.index()].is_some() {
                cut_reached = true;
            }
        }
        for node in self.nodes.iter().filter(|n| !n.removed) {
            if let Some((p, si)) = node.parent {
                if let Some(g) = self.m.steps[self.nodes[p].loc.index()][si as usize].goal {
                    seen.insert(g);
                }
            }
        }
        seen.extend(self.unknown_edges.iter().copied());
        if cut_reached {
            return Outcome::CompleteWithCuts;
        }
        let unreachable = goals
            .iter()
            .copied()
            .filter(|g| !seen.contains(g))
            .filter(|g| self.standing.get(g) == Some(&Standing::Target))
            .filter(|g| driver.is_open(*g))
            .collect();
        Outcome::Complete { unreachable }
    }

    fn push_node(&mut self, node: ArgNode) -> usize {
        let id = self.nodes.len();
        let loc = node.loc.index();
        let covered = node.covered_by.is_some();
        self.nodes.push(node);
        self.live += 1;
        if !covered {
            self.at_loc[loc].push(id);
            self.frontier.push_back(id);
        }
        id
    }

    /// Expands node `id`: its failing checks and successors. Returns the
    /// locations that got new predicates when a spurious path was found
    /// (the expansion is then undone).
    fn expand(&mut self, id: usize, driver: &mut dyn Driver) -> Option<HashSet<Block>> {
        let loc = self.nodes[id].loc;
        self.nodes[id].expanded = true;
        if self.m.cuts[loc.index()].is_some() {
            return None;
        }
        let facts = self.nodes[id].facts.clone();
        let values = self.nodes[id].values.clone();
        let pre = self.facts_term(loc, &facts, &values);
        for ei in 0..self.m.errors[loc.index()].len() {
            let goal = self.m.errors[loc.index()][ei].goal;
            let target = self.is_target(Some(goal), driver);
            if !target && !self.standing.contains_key(&goal) {
                continue;
            }
            let fails = self.m.errors[loc.index()][ei].fails;
            match self.ask(&[pre, fails], driver) {
                Answer::Unsat => continue,
                Answer::Unknown => {
                    self.nodes[id].errors_seen.push(goal);
                    continue;
                }
                Answer::Sat => {}
            }
            self.nodes[id].errors_seen.push(goal);
            if target {
                if let PathResult::Refined(locs) = self.check_path(id, Final::Error(ei), goal, driver) {
                    return Some(self.undo_expansion(id, locs));
                }
            }
        }
        for si in 0..self.m.steps[loc.index()].len() {
            let (guard, to, goal) = {
                let s = &self.m.steps[loc.index()][si];
                (s.guard, s.to, s.goal)
            };
            let model = match self.ask_model(&[pre, guard], driver) {
                ModelAnswer::Unsat => continue,
                ModelAnswer::Unknown => {
                    if let Some(g) = goal {
                        self.unknown_edges.insert(g);
                    }
                    None
                }
                ModelAnswer::Sat(m) => Some(m),
            };
            if self.is_target(goal, driver) {
                if let PathResult::Refined(locs) =
                    self.check_path(id, Final::Edge(si as u32), goal.expect("a target has a goal"), driver)
                {
                    return Some(self.undo_expansion(id, locs));
                }
            }
            let child_values = self.post_values(loc, si, &values);
            let facts = self.post_facts(loc, si, pre, &facts, &values, model.as_ref(), driver);
            let mut child = ArgNode::new(to, facts, Some((id, si as u32)));
            child.values = child_values;
            // Covered by a node at the location with fewer facts?
            let cover = self.at_loc[to.index()].iter().copied().find(|&o| {
                let n = &self.nodes[o];
                !n.removed && n.covered_by.is_none() && child.within(n)
            });
            child.covered_by = cover;
            let c = self.push_node(child);
            self.nodes[id].children.push(c);
        }
        None
    }

    /// Takes back a partial expansion of `id` and queues it again.
    fn undo_expansion(&mut self, id: usize, locs: HashSet<Block>) -> HashSet<Block> {
        let children = std::mem::take(&mut self.nodes[id].children);
        let mut doomed = Vec::new();
        for c in children {
            self.collect_subtree(c, &mut doomed);
        }
        self.remove_all(&doomed);
        let n = &mut self.nodes[id];
        n.expanded = false;
        n.errors_seen.clear();
        self.frontier.push_front(id);
        locs
    }

    fn collect_subtree(&self, root: usize, out: &mut Vec<usize>) {
        let mut stack = vec![root];
        while let Some(x) = stack.pop() {
            if self.nodes[x].removed {
                continue;
            }
            out.push(x);
            stack.extend(self.nodes[x].children.iter().copied());
        }
    }

    /// Removes nodes; the nodes they covered are uncovered and queued.
    fn remove_all(&mut self, doomed: &[usize]) {
        let mut gone = HashSet::new();
        for &d in doomed {
            if !self.nodes[d].removed {
                self.nodes[d].removed = true;
                self.live -= 1;
                gone.insert(d);
            }
        }
        if gone.is_empty() {
            return;
        }
        for list in self.at_loc.iter_mut() {
            list.retain(|x| !gone.contains(x));
        }
        for i in 0..self.nodes.len() {
            let n = &self.nodes[i];
            if !n.removed && n.covered_by.is_some_and(|c| gone.contains(&c)) {
                self.nodes[i].covered_by = None;
                let loc = self.nodes[i].loc.index();
                self.at_loc[loc].push(i);
                self.frontier.push_back(i);
            }
        }
    }

    /// After new predicates at `locs`: every node at those locations has
    /// incomplete facts, so it goes with its subtree, and its parent (if
    /// it stays) is expanded again. `keep` is the node being expanded
    /// (already queued again).
    fn prune(&mut self, locs: &HashSet<Block>, keep: usize) {
        let stale: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].removed && i != keep && locs.contains(&self.nodes[i].loc))
            .collect();
        let mut doomed = Vec::new();
        for &s in &stale {
            self.collect_subtree(s, &mut doomed);
        }
        let doomed_set: HashSet<usize> = doomed.iter().copied().collect();
        let mut parents: Vec<usize> = stale
            .iter()
            .filter_map(|&s| self.nodes[s].parent.map(|(p, _)| p))
            .filter(|p| !doomed_set.contains(p))
            .collect();
        parents.sort();
        parents.dedup();
        for &p in &parents {
            for c in std::mem::take(&mut self.nodes[p].children) {
                self.collect_subtree(c, &mut doomed);
            }
        }
        self.remove_all(&doomed);
        for p in parents {
            let n = &mut self.nodes[p];
            n.expanded = false;
            n.errors_seen.clear();
            if n.covered_by.is_none() {
                self.frontier.push_back(p);
            }
        }
    }

    /// The conjunction of a node's facts.
    fn facts_term(&mut self, loc: Block, facts: &[(u32, bool)], values: &[(u32, u128)]) -> ExprId {
        let mut lits = Vec::with_capacity(facts.len() + values.len());
        for &(p, holds) in facts {
            let q = self.preds[loc.index()][p as usize];
            lits.push(if holds { q } else { self.m.pool.not(q).expect("a predicate is Boolean") });
        }
        for &(j, v) in values {
            let s = self.m.states[loc.index()].params[j as usize];
            let w = self.m.pool.width(s).expect("a parameter is a bit-vector");
            let c = self.m.pool.bv_const(w, v).expect("the value fits");
            lits.push(self.m.pool.eq(s, c).expect("same widths"));
        }
        self.m.pool.and(&lits).expect("facts are Boolean")
    }

    /// The substitution of a node's known values for its location's
    /// parameter symbols.
    fn value_map(&mut self, loc: Block, values: &[(u32, u128)]) -> HashMap<Leaf, ExprId> {
        let mut map = HashMap::new();
        for &(j, v) in values {
            let s = self.m.states[loc.index()].params[j as usize];
            let w = self.m.pool.width(s).expect("a parameter is a bit-vector");
            let c = self.m.pool.bv_const(w, v).expect("the value fits");
            if let Some(&l) = self.m.pool.symbols_of(s).first() {
                map.insert(l, c);
            }
        }
        map
    }

    /// The values of the target's tracked parameters after step `si`, where
    /// the step computes them from the node's known values alone.
    fn post_values(&mut self, loc: Block, si: usize, values: &[(u32, u128)]) -> Vec<(u32, u128)> {
        let to = self.m.steps[loc.index()][si].to;
        let tracked: Vec<usize> =
            (0..self.tracked[to.index()].len()).filter(|&j| self.tracked[to.index()][j]).collect();
        if tracked.is_empty() || self.settings.max_tracked_values == 0 {
            return Vec::new();
        }
        let map = self.value_map(loc, values);
        let mut memo = HashMap::new();
        let mut out = Vec::new();
        for j in tracked {
            let t = self.m.steps[loc.index()][si].post_params[j];
            let t = self.m.pool.substitute(t, &map, &mut memo).expect("sorts");
            let Some(v) = self.m.pool.as_bv_const(t) else { continue };
            let key = (to, j as u32);
            let seen = self.seen_values.entry(key).or_default();
            seen.insert(v);
            if seen.len() > self.settings.max_tracked_values {
                self.given_up_values.insert(key);
                self.tracked[to.index()][j] = false;
                continue;
            }
            out.push((j as u32, v));
        }
        out
    }

    /// The facts at the target of step `si` of `loc` from a node whose facts
    /// are `pre` (Cartesian abstraction: each predicate decided alone).
    /// `model` (of `pre` and the step) tells which of the two questions
    /// per predicate can be skipped: a predicate it satisfies cannot be
    /// known false.
    #[allow(clippy::too_many_arguments)] // the step, its pre-state and the model that prunes it
    fn post_facts(
        &mut self,
        loc: Block,
        si: usize,
        pre: ExprId,
        pre_facts: &[(u32, bool)],
        pre_values: &[(u32, u128)],
        model: Option<&walkdown_smt::Model>,
        driver: &mut dyn Driver,
    ) -> Vec<(u32, bool)> {
        let value_map = self.value_map(loc, pre_values);
        let mut value_memo = HashMap::new();
        let (to, guard, post_params, post_mem) = {
            let s: &Step = &self.m.steps[loc.index()][si];
            (s.to, s.guard, s.post_params.clone(), s.post_mem)
        };
        let map = self.m.state_map(to, &post_params, Some(post_mem));
        let mut memo = HashMap::new();
        let mut out = Vec::new();
        // The node's facts and the step are satisfiable together (the
        // caller checked), so the solver may slice each question down to
        // the conjuncts that share symbols with the predicate.
        let mut context = Vec::new();
        for t in [pre, guard] {
            match self.m.pool.get(t) {
                Term::And(xs) => context.extend(xs.iter().copied()),
                _ => context.push(t),
            }
        }
        // A predicate the step does not change is, after substitution, a
        // predicate of the source whose fact the node may already know.
        let known: HashMap<ExprId, bool> =
            pre_facts.iter().map(|&(k, b)| (self.preds[loc.index()][k as usize], b)).collect();
        for (k, &q) in self.preds[to.index()].clone().iter().enumerate() {
            let qp = match self.post_cache.get(&(loc, si as u32, q)) {
                Some(&x) => x,
                None => {
                    let x = self.m.pool.substitute(q, &map, &mut memo).expect("substitution keeps sorts");
                    self.post_cache.insert((loc, si as u32, q), x);
                    x
                }
            };
            if let Some(b) = self.m.pool.as_bool_const(qp) {
                out.push((k as u32, b));
                continue;
            }
            if !value_map.is_empty() {
                let qv = self.m.pool.substitute(qp, &value_map, &mut value_memo).expect("sorts");
                if let Some(b) = self.m.pool.as_bool_const(qv) {
                    out.push((k as u32, b));
                    continue;
                }
            }
            if let Some(&b) = known.get(&qp) {
                out.push((k as u32, b));
                continue;
            }
            if let Term::Not(inner) = self.m.pool.get(qp) {
                if let Some(&b) = known.get(inner) {
                    out.push((k as u32, !b));
                    continue;
                }
            }
            let holds_in_model = model.map(|m| self.m.pool.eval(qp, m).as_bool());
            if holds_in_model != Some(Some(false)) {
                let nq = self.m.pool.not(qp).expect("Boolean");
                if let Answer::Unsat = self.ask_focused(&context, nq, driver) {
                    out.push((k as u32, true));
                    continue;
                }
            }
            if holds_in_model != Some(Some(true)) {
                if let Answer::Unsat = self.ask_focused(&context, qp, driver) {
                    out.push((k as u32, false));
                }
            }
        }
        out
    }
}

enum PathResult {
    Reached,
    Refined(HashSet<Block>),
    GivenUp,
}

enum ModelAnswer {
    Sat(walkdown_smt::Model),
    Unsat,
    Unknown,
}
