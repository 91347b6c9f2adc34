//! Paths of the graph as formulas: the concrete path to a node (each
//! step's formula with the state threaded through and its own leaves
//! renamed per position), the test a feasible one gives, and the
//! refinement an infeasible one asks for (weakest-precondition atoms of
//! its longest suffix infeasible from any state).

use super::*;

/// One position of a path, as [`Checker::position`] gives it.
pub(super) struct At {
    /// The location's state and the step's locals, renamed for the position.
    pub map: HashMap<Leaf, ExprId>,
    /// The step's guard, or the final check's failure.
    pub cond: ExprId,
    /// The inputs the step reads.
    pub sites: Vec<InputSite>,
    /// The step's results (parameters, memory) and its target.
    pub post: Option<(Vec<ExprId>, ExprId, Block)>,
}

impl<S: Solver> Checker<'_, S> {
    /// The steps from the root to node `id`, in order.
    pub(super) fn path_to(&self, id: usize) -> Vec<(Block, u32)> {
        let mut path = Vec::new();
        let mut cur = id;
        while let Some((p, si)) = self.nodes[cur].parent {
            path.push((self.nodes[p].loc, si));
            cur = p;
        }
        path.reverse();
        path
    }

    /// `leaf` renamed for path position `pos` (position 0 keeps it).
    pub(super) fn copy_of(&mut self, leaf: Leaf, pos: usize) -> (ExprId, Option<SymId>) {
        if let Some(&c) = self.copies.get(&(leaf, pos)) {
            return c;
        }
        let pool = &mut self.m.pool;
        let c = match leaf {
            Leaf::Sym(s) => {
                let (w, name) = (pool.symbol_width(s), format!("{}@{pos}", pool.symbol_name(s)));
                let (ns, e) = pool.new_symbol(&name, w).expect("width is valid");
                (e, Some(ns))
            }
            Leaf::Array(a) => {
                let (w, name) = (pool.array_index_width(a), format!("{}@{pos}", pool.array_name(a)));
                (pool.new_array(&name, w).expect("width is valid").1, None)
            }
        };
        self.copies.insert((leaf, pos), c);
        c
    }

    /// The conditions of a path (each step's guard, then the final
    /// condition), from position `from` with the state there free (its
    /// location's symbols) or, for `from == 0`, the initial state; and the
    /// input symbols read, in order.
    pub(super) fn path_formula(
        &mut self,
        path: &[(Block, u32)],
        fin: Final,
        from: usize,
    ) -> (Vec<ExprId>, Vec<(InputSite, SymId)>) {
        let mut conds = Vec::new();
        let mut inputs = Vec::new();
        let start = if from < path.len() { path[from].0 } else { self.final_loc(path) };
        let mut params: Vec<ExprId> = self.m.states[start.index()].params.clone();
        let mut mem: Option<ExprId> = self.m.states[start.index()].mem;
        for pos in from..=path.len() {
            let Some(at) = self.position(path, fin, pos, &params, mem) else { break };
            let mut memo = HashMap::new();
            conds.push(self.m.pool.substitute(at.cond, &at.map, &mut memo).expect("substitution keeps sorts"));
            for site in at.sites {
                let (_, s) = self.copy_of(Leaf::Sym(site.sym), pos);
                inputs.push((site, s.expect("an input is a symbol")));
            }
            if let Some((pp, pm, _)) = at.post {
                params = pp.iter().map(|&t| self.m.pool.substitute(t, &at.map, &mut memo).expect("sorts")).collect();
                mem = Some(self.m.pool.substitute(pm, &at.map, &mut memo).expect("sorts"));
            }
        }
        (conds, inputs)
    }

    /// Path position `pos` with the state there given as `params`/`mem`:
    /// its location, the substitution onto that state and the position's
    /// own copies of the step's locals, and the step's condition, inputs
    /// and results; past the last step, the final check's (`None` for an
    /// edge path, which ends with its last step).
    pub(super) fn position(
        &mut self,
        path: &[(Block, u32)],
        fin: Final,
        pos: usize,
        params: &[ExprId],
        mem: Option<ExprId>,
    ) -> Option<At> {
        let loc = if pos < path.len() { path[pos].0 } else { self.final_loc(path) };
        let (cond, locals, sites, post) = if pos < path.len() {
            let s = &self.m.steps[loc.index()][path[pos].1 as usize];
            (s.guard, s.locals.clone(), s.inputs.clone(), Some((s.post_params.clone(), s.post_mem, s.to)))
        } else {
            let Final::Error(ei) = fin else { return None };
            let e = &self.m.errors[loc.index()][ei];
            (e.fails, e.locals.clone(), e.inputs.clone(), None)
        };
        let mut map = self.m.state_map(loc, params, mem);
        for l in locals {
            let (c, _) = self.copy_of(l, pos);
            map.insert(l, c);
        }
        Some(At { map, cond, sites, post })
    }

    pub(super) fn final_loc(&self, path: &[(Block, u32)]) -> Block {
        match path.last() {
            Some(&(b, si)) => self.m.steps[b.index()][si as usize].to,
            None => Body::ENTRY,
        }
    }

    /// Checks the concrete path to node `id` and then `fin`: a test when
    /// feasible, new predicates when not.
    pub(super) fn check_path(&mut self, id: usize, fin: Final, goal: GoalId, driver: &mut dyn Driver) -> PathResult {
        let mut path = self.path_to(id);
        if let Final::Edge(si) = fin {
            path.push((self.nodes[id].loc, si));
        }
        let (conds, inputs) = self.path_formula(&path, fin, 0);
        self.figures.queries += 1;
        let before = self.solver.work();
        let all = self.m.pool.and(&conds).expect("Boolean");
        let answer = self.solver.check(&self.m.pool, &walkdown_smt::Query::new(&[all]));
        driver.charge(self.solver.work().saturating_sub(before), conds.len() as u64);
        match answer {
            Ok(walkdown_smt::Answer::Sat(model)) => {
                let values: Vec<(InputSite, u64)> =
                    inputs.iter().map(|(site, s)| (*site, model.sym(*s).unwrap_or(0) as u64)).collect();
                self.figures.tests += 1;
                if std::env::var_os("WALKDOWN_CEGAR_DEBUG").is_some() {
                    eprintln!(
                        "cegar: path of {} steps to {goal:?}: {:?}; inputs {:?}",
                        path.len(),
                        path,
                        inputs.iter().map(|(_, s)| model.sym(*s)).collect::<Vec<_>>()
                    );
                }
                if !driver.test(&values, goal) {
                    self.figures.divergences += 1;
                }
                self.standing.insert(goal, Standing::Reached);
                PathResult::Reached
            }
            Ok(walkdown_smt::Answer::Unsat) => {
                let locs = self.refine(&path, fin, driver);
                if !locs.is_empty() {
                    self.figures.refinements += 1;
                    PathResult::Refined(locs)
                } else {
                    if std::env::var_os("WALKDOWN_CEGAR_DEBUG").is_some() {
                        eprintln!(
                            "cegar: refinement failed for {goal:?} on a path of {} steps: {:?}",
                            path.len(),
                            path
                        );
                        for (l, ps) in self.preds.iter().enumerate() {
                            for &p in ps {
                                eprintln!("  b{l}: {}", self.m.pool.display(p));
                            }
                        }
                    }
                    self.figures.failed_refinements += 1;
                    self.standing.insert(goal, Standing::GivenUp);
                    PathResult::GivenUp
                }
            }
            _ => {
                self.figures.unknown += 1;
                self.standing.insert(goal, Standing::GivenUp);
                PathResult::GivenUp
            }
        }
    }

    /// Adds predicates that rule out the infeasible `path`; returns the
    /// locations that got new ones (none: refinement failed).
    pub(super) fn refine(&mut self, path: &[(Block, u32)], fin: Final, driver: &mut dyn Driver) -> HashSet<Block> {
        self.touched.clear();
        let last = match fin {
            Final::Edge(_) => path.len() - 1,
            Final::Error(_) => path.len(),
        };
        // The longest suffix infeasible from any state: suffix(k) only
        // gets weaker as k grows, so bisect for the largest k.
        let (mut lo, mut hi) = (0usize, last);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let (conds, _) = self.path_formula(path, fin, mid);
            match self.ask(&conds, driver) {
                Answer::Unsat => lo = mid,
                _ => hi = mid - 1,
            }
        }
        let k = lo;
        let before = self.figures.predicates;
        if self.settings.refinement == Refinement::Core {
            if let Some(core) = self.core_positions(path, fin, driver) {
                for j in core {
                    let (loc, cond) = self.step_condition(path, fin, j);
                    for atom in self.atoms(loc, cond) {
                        self.add_with_preconditions(path, j, atom, 1);
                    }
                }
                if self.figures.predicates > before {
                    return std::mem::take(&mut self.touched);
                }
            }
        }
        // Weakest preconditions back to the suffix's start first; when that
        // adds nothing (the facts at the start are lost earlier on the
        // path), back to the path's start.
        for stop in [k.max(1), 1] {
            self.add_suffix_atoms(path, fin, k, last, stop);
            if self.figures.predicates > before {
                break;
            }
        }
        // Interpolation costs more than the suffix (a proof-producing
        // check of the whole path: milliseconds for ten steps, seconds
        // for a hundred), so it is asked only for the paths the suffix
        // cannot remove.
        if self.figures.predicates == before && self.settings.refinement == Refinement::Interpolants {
            self.refine_by_interpolants(path, fin, driver);
        }
        std::mem::take(&mut self.touched)
    }

    pub(super) fn add_suffix_atoms(&mut self, path: &[(Block, u32)], fin: Final, k: usize, last: usize, stop: usize) {
        for j in k..=last {
            let (loc, cond) = self.step_condition(path, fin, j);
            for atom in self.atoms(loc, cond) {
                self.add_with_preconditions(path, j, atom, stop);
            }
        }
    }

    /// The location and condition of position `j` of the path (a step's
    /// guard, or past the last step the final check's failure).
    fn step_condition(&self, path: &[(Block, u32)], fin: Final, j: usize) -> (Block, ExprId) {
        if j < path.len() {
            let (b, si) = path[j];
            (b, self.m.steps[b.index()][si as usize].guard)
        } else {
            let Final::Error(ei) = fin else { unreachable!("an edge path ends with its last step") };
            let b = self.final_loc(path);
            (b, self.m.errors[b.index()][ei].fails)
        }
    }

    /// The positions of a minimal unsatisfiable subset of the path's step
    /// conditions (each condition over the state the earlier steps
    /// computed, so dropping one drops only that step's test): deletion,
    /// one query per position. `None` when an answer is unknown.
    fn core_positions(&mut self, path: &[(Block, u32)], fin: Final, driver: &mut dyn Driver) -> Option<Vec<usize>> {
        let (conds, _) = self.path_formula(path, fin, 0);
        let mut keep: Vec<bool> = vec![true; conds.len()];
        for i in (0..conds.len()).rev() {
            keep[i] = false;
            let subset: Vec<ExprId> = conds.iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| *c).collect();
            match self.ask(&subset, driver) {
                Answer::Unsat => {}
                Answer::Sat => keep[i] = true,
                Answer::Unknown => return None,
            }
        }
        Some((0..conds.len()).filter(|&i| keep[i]).collect())
    }

    /// Adds `atom` (over the state at path position `j`) at its location and
    /// its weakest preconditions at the earlier positions down to `stop`.
    pub(super) fn add_with_preconditions(&mut self, path: &[(Block, u32)], j: usize, atom: ExprId, stop: usize) {
        let loc_at = |c: &Self, i: usize| if i < path.len() { path[i].0 } else { c.final_loc(path) };
        let mut a = atom;
        let mut i = j;
        loop {
            let loc = loc_at(self, i);
            if loc == Body::ENTRY {
                return;
            }
            self.add_predicate(loc, a);
            if i <= stop || i == 0 {
                return;
            }
            let (pb, psi) = path[i - 1];
            let (to, pp, pm) = {
                let s = &self.m.steps[pb.index()][psi as usize];
                (s.to, s.post_params.clone(), s.post_mem)
            };
            let map = self.m.state_map(to, &pp, Some(pm));
            let w = self.m.pool.substitute(a, &map, &mut HashMap::new()).expect("sorts");
            if self.m.pool.as_bool_const(w).is_some() || !self.over_state(pb, w) {
                return;
            }
            a = w;
            i -= 1;
        }
    }

    pub(super) fn add_predicate(&mut self, loc: Block, p: ExprId) {
        let l = loc.index();
        if self.preds[l].len() >= self.settings.max_predicates_per_location || self.pred_set[l].contains(&p) {
            return;
        }
        // A predicate and its negation are one predicate.
        if let Ok(np) = self.m.pool.not(p) {
            if self.pred_set[l].contains(&np) {
                return;
            }
        }
        self.pred_set[l].insert(p);
        self.preds[l].push(p);
        self.touched.insert(loc);
        let leaves = self.m.pool.symbols_of(p).to_vec();
        for (j, &s) in self.m.states[l].params.iter().enumerate() {
            if self.m.pool.symbols_of(s).iter().any(|x| leaves.contains(x))
                && !self.given_up_values.contains(&(loc, j as u32))
            {
                self.tracked[l][j] = true;
            }
        }
        self.figures.predicates += 1;
    }

    /// Whether `t` mentions only the state symbols of `loc`.
    pub(super) fn over_state(&self, loc: Block, t: ExprId) -> bool {
        let state = self.m.state_leaves(loc);
        self.m.pool.symbols_of(t).iter().all(|l| state.contains(l))
    }

    /// The comparisons in `cond` over the state of `loc` alone.
    pub(super) fn atoms(&self, loc: Block, cond: ExprId) -> Vec<ExprId> {
        let pool = &self.m.pool;
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![cond];
        while let Some(x) = stack.pop() {
            if !seen.insert(x) || pool.symbols_of(x).is_empty() {
                continue;
            }
            let node = pool.get(x);
            let is_atom = match node {
                Term::Cmp(..) => true,
                Term::Eq(a, _) => !matches!(pool.sort(*a), walkdown_smt::Sort::Bool),
                _ => false,
            };
            if is_atom && self.over_state(loc, x) {
                out.push(x);
                continue;
            }
            if is_atom || matches!(node, Term::Select { .. } | Term::Store { .. }) {
                continue;
            }
            stack.extend(node.children());
        }
        out.sort();
        out
    }
}
