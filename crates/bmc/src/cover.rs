//! Covering algorithms over a verification condition (the paper's
//! Section 5 and the two it measures against). Each asks the solver for
//! models of the formula plus one extra clause:
//!
//! - **statement cover** ([`CoverAlgorithm::Statements`]): an *enabling
//!   clause*, the disjunction of the targets not yet covered; each model
//!   covers at least one new target, and every unwinding copy of a target
//!   it covers is dropped from the clause. Unsatisfiable: the rest is
//!   infeasible.
//! - **path cover** ([`CoverAlgorithm::Paths`]): a *blocking clause* per
//!   model, the negation of the set of blocks its path passes, until the
//!   formula is unsatisfiable: every feasible path once.
//! - **one query per block** ([`CoverAlgorithm::PerBlock`], the worst-case
//!   optimal algorithm of Hoenicke et al.): for each target, is there an
//!   execution through it.
//! - **greedy max-cover** ([`CoverAlgorithm::Greedy`], the query-optimal
//!   algorithm of Bertolini et al.): the model passing the most uncovered
//!   targets, found by binary search on a cardinality bound.
//!
//! Targets are Boolean variables grouped by what they stand for (all
//! unwinding copies of one block or goal form a group). What counts as
//! covered is the caller's decision ([`cover`]'s `on_model`: the engine
//! replays the model's vector in the interpreter), so a model that the
//! replay does not confirm leaves its groups open, never covered.

use crate::vc::Vc;
use std::time::{Duration, Instant};
use walkdown_smt::{Answer, BackendSettings, ExprId, Model, Query, Solver, SymId};

/// Which covering algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoverAlgorithm {
    /// Statement cover with enabling clauses.
    Statements,
    /// Path cover with blocking clauses.
    Paths,
    /// One query per target group.
    PerBlock,
    /// Greedy: the model covering the most uncovered targets.
    Greedy,
}

impl CoverAlgorithm {
    /// Every algorithm, in the paper's table order.
    pub const ALL: [CoverAlgorithm; 4] =
        [CoverAlgorithm::Paths, CoverAlgorithm::Statements, CoverAlgorithm::PerBlock, CoverAlgorithm::Greedy];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            CoverAlgorithm::Statements => "statements",
            CoverAlgorithm::Paths => "paths",
            CoverAlgorithm::PerBlock => "per-block",
            CoverAlgorithm::Greedy => "greedy",
        }
    }

    /// The algorithm called `s`.
    pub fn parse(s: &str) -> Option<CoverAlgorithm> {
        CoverAlgorithm::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// Settings of [`cover`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoverSettings {
    /// The algorithm. Default statement cover.
    pub algorithm: CoverAlgorithm,
    /// Wall-clock budget; the cover stops (with the rest open) when it is
    /// spent. Default 60 s.
    pub time: Duration,
    /// Queries at most. Default none.
    pub max_queries: Option<u64>,
    /// Per-query solver limit in milliseconds. Default 10,000.
    pub timeout_ms: u32,
    /// Per-query solver work limit (Z3 `rlimit` or Bitwuzla's count, see
    /// `walkdown_smt::BackendSettings::work_limit`), for answers that must not
    /// depend on the machine's load. Default none.
    pub work_limit: Option<u32>,
    /// One-query-per-block skips targets an earlier model already covered.
    /// Default true; the paper's measurement did not (false).
    pub reuse_models: bool,
    /// Keep one Z3 solver across the queries, with the formula (and path
    /// cover's blocking clauses) asserted once; otherwise each query is
    /// solved from scratch by a fresh `smt`-tactic solver. Default false:
    /// on the public tasks the incremental solver sometimes ran far past
    /// its timeout (Z3 4.8 did not answer the interrupt), and it was not
    /// faster on most single queries. The random-program experiment uses
    /// it (the paper's SMTInterpol was incremental too).
    pub incremental: bool,
}

impl Default for CoverSettings {
    fn default() -> Self {
        CoverSettings {
            algorithm: CoverAlgorithm::Statements,
            time: Duration::from_secs(60),
            max_queries: None,
            timeout_ms: 10_000,
            work_limit: None,
            reuse_models: true,
            incremental: false,
        }
    }
}

/// A target: a Boolean variable of the formula and its group.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The term "the variable is true".
    pub var: ExprId,
    /// The variable.
    pub sym: SymId,
    /// Its group.
    pub group: usize,
}

/// Figures of one cover.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CoverStats {
    /// Solver queries.
    pub queries: u64,
    /// Satisfiable answers.
    pub sat: u64,
    /// Unsatisfiable answers.
    pub unsat: u64,
    /// Unknown answers (timeouts) and errors.
    pub unknown: u64,
    /// Time in the solver.
    pub solver_time: Duration,
    /// Models handed to `on_model`.
    pub models: u64,
    /// Whole time.
    pub elapsed: Duration,
}

/// A group's state after a cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupStatus {
    /// `on_model` confirmed it.
    Covered,
    /// No model of the formula passes it.
    Infeasible,
    /// Neither (the budget ended, the solver gave up, or a model claimed
    /// it and `on_model` did not confirm it).
    Open,
}

/// The result of [`cover`].
#[derive(Clone, Debug)]
pub struct CoverOutcome {
    /// Per group.
    pub status: Vec<GroupStatus>,
    /// Figures.
    pub stats: CoverStats,
    /// Whether the algorithm ran to its end (the last query unsat) rather
    /// than stopping at the budget or an unknown answer.
    pub complete: bool,
}

/// Answers whether to stop (interrupt), told the solver work the cover
/// has done so far (see `walkdown_smt::Solver::work`), which a caller
/// sharing a worker charges.
pub type StopCheck<'a> = &'a dyn Fn(u64) -> bool;

struct Run<'a> {
    solver: Box<dyn Solver>,
    stats: CoverStats,
    start: Instant,
    settings: &'a CoverSettings,
    stop: StopCheck<'a>,
}

impl Run<'_> {
    fn out_of_budget(&self) -> bool {
        self.start.elapsed() >= self.settings.time
            || self.settings.max_queries.is_some_and(|m| self.stats.queries >= m)
            || (self.stop)(self.solver.work())
    }

    fn ask(&mut self, vc: &Vc, extra: &[ExprId]) -> Answer {
        let mut q = vc.assertions.clone();
        q.extend_from_slice(extra);
        let t = Instant::now();
        let a = self.solver.check(&vc.pool, &Query::new(&q));
        self.stats.solver_time += t.elapsed();
        self.stats.queries += 1;
        match a {
            Ok(Answer::Sat(m)) => {
                self.stats.sat += 1;
                Answer::Sat(m)
            }
            Ok(Answer::Unsat) => {
                self.stats.unsat += 1;
                Answer::Unsat
            }
            Ok(Answer::Unknown(r)) => {
                self.stats.unknown += 1;
                Answer::Unknown(r)
            }
            Err(e) => {
                self.stats.unknown += 1;
                Answer::Unknown(e.to_string())
            }
        }
    }
}

/// Covers the groups of `targets` (`groups` of them) with the algorithm of
/// `settings`. `path_vars` are the block variables path cover blocks on,
/// `path_succs` each block's successors (indices into `path_vars`).
/// Each model goes to `on_model`, which returns the groups it confirms.
/// Groups for which `dropped` answers true (another engine closed them)
/// are no longer aimed at, and get no status of their own.
#[allow(clippy::too_many_arguments)]
pub fn cover(
    vc: &mut Vc,
    targets: &[Target],
    groups: usize,
    path_vars: &[(SymId, ExprId)],
    path_succs: &[Vec<usize>],
    settings: &CoverSettings,
    stop: StopCheck<'_>,
    dropped: &dyn Fn(usize) -> bool,
    on_model: &mut dyn FnMut(&Vc, &Model) -> Vec<usize>,
) -> CoverOutcome {
    // No caches or slicing: every query is new (enabling and blocking
    // clauses change it), and slicing's assumption that the other
    // constraints are satisfiable does not hold with blocking clauses. One
    // query may not outlast the whole budget.
    let budget_ms = settings.time.as_millis().min(u128::from(u32::MAX)) as u32;
    let backend = BackendSettings {
        timeout_ms: Some(settings.timeout_ms.min(budget_ms.max(100))),
        work_limit: settings.work_limit,
        ..BackendSettings::default()
    };
    let mut solver = walkdown_smt::backend::selected().make(backend, settings.incremental);
    // A failure here only means the formula is asserted with each query.
    let _ = solver.assert_base(&vc.pool, &vc.assertions);
    let start = Instant::now();
    // No query outlives the cover's budget.
    solver.set_deadline(Some(start + settings.time));
    let mut run = Run { solver, stats: CoverStats::default(), start, settings, stop };
    let mut status = vec![GroupStatus::Open; groups];
    // Groups some model passed (confirmed or not): not asked about again.
    let mut touched = vec![false; groups];
    let mut has_target = vec![false; groups];
    for t in targets {
        has_target[t.group] = true;
    }
    let mut complete = false;
    let mut accept = |run: &mut Run, vc: &Vc, model: &Model, status: &mut Vec<GroupStatus>, touched: &mut Vec<bool>| {
        run.stats.models += 1;
        for g in on_model(vc, model) {
            if g < groups {
                status[g] = GroupStatus::Covered;
                touched[g] = true;
            }
        }
        for t in targets {
            if Vc::holds(model, t.sym) {
                touched[t.group] = true;
            }
        }
    };
    match settings.algorithm {
        CoverAlgorithm::Statements => loop {
            if run.out_of_budget() {
                break;
            }
            for t in targets {
                if !touched[t.group] && dropped(t.group) {
                    touched[t.group] = true;
                }
            }
            let open: Vec<ExprId> = targets.iter().filter(|t| !touched[t.group]).map(|t| t.var).collect();
            if open.is_empty() {
                complete = true;
                break;
            }
            let enabling = vc.pool.or(&open).expect("Boolean targets");
            match run.ask(vc, &[enabling]) {
                Answer::Sat(m) => accept(&mut run, vc, &m, &mut status, &mut touched),
                Answer::Unsat => {
                    mark_untouched_infeasible(&touched, &has_target, &mut status);
                    complete = true;
                    break;
                }
                Answer::Unknown(_) => break,
            }
        },
        CoverAlgorithm::Paths => {
            let mut blocking: Vec<ExprId> = Vec::new();
            loop {
                if run.out_of_budget() {
                    break;
                }
                match run.ask(vc, &blocking) {
                    Answer::Sat(m) => {
                        accept(&mut run, vc, &m, &mut status, &mut touched);
                        // The paper's clause: not all blocks of this path
                        // again. An execution may also stop inside a block
                        // (an error, a failed assumption, a cut), so a
                        // path's blocks can be a subset of a longer one's;
                        // the clause then also allows entering any block
                        // the path could have gone on to. (With
                        // `Termination::Complete` every path ends at the
                        // exit and this part is redundant.)
                        let on: Vec<bool> = path_vars.iter().map(|(s, _)| Vc::holds(&m, *s)).collect();
                        let mut negs: Vec<ExprId> = Vec::new();
                        let mut frontier = vec![false; path_vars.len()];
                        for (i, (_, v)) in path_vars.iter().enumerate() {
                            if on[i] {
                                negs.push(vc.pool.not(*v).expect("Boolean"));
                                for &j in &path_succs[i] {
                                    if !on[j] {
                                        frontier[j] = true;
                                    }
                                }
                            }
                        }
                        for (j, f) in frontier.iter().enumerate() {
                            if *f {
                                negs.push(path_vars[j].1);
                            }
                        }
                        if negs.is_empty() {
                            // A model passing no block: nothing to block on.
                            break;
                        }
                        let clause = vc.pool.or(&negs).expect("Boolean");
                        let _ = run.solver.assert_base(&vc.pool, &[clause]);
                        blocking.push(clause);
                    }
                    Answer::Unsat => {
                        mark_untouched_infeasible(&touched, &has_target, &mut status);
                        complete = true;
                        break;
                    }
                    Answer::Unknown(_) => break,
                }
            }
        }
        CoverAlgorithm::PerBlock => {
            let mut by_group: Vec<Vec<ExprId>> = vec![Vec::new(); groups];
            for t in targets {
                by_group[t.group].push(t.var);
            }
            complete = true;
            for g in 0..groups {
                if by_group[g].is_empty() || (settings.reuse_models && touched[g]) || dropped(g) {
                    continue;
                }
                if run.out_of_budget() {
                    complete = false;
                    break;
                }
                let q = vc.pool.or(&by_group[g]).expect("Boolean");
                match run.ask(vc, &[q]) {
                    Answer::Sat(m) => accept(&mut run, vc, &m, &mut status, &mut touched),
                    Answer::Unsat => status[g] = GroupStatus::Infeasible,
                    Answer::Unknown(_) => complete = false,
                }
            }
        }
        CoverAlgorithm::Greedy => loop {
            if run.out_of_budget() {
                break;
            }
            let open: Vec<&Target> = targets.iter().filter(|t| !touched[t.group]).collect();
            if open.is_empty() {
                complete = true;
                break;
            }
            // count = number of open targets the model passes.
            let w = 32;
            let one = vc.pool.bv_const(w, 1).unwrap();
            let zero = vc.pool.bv_const(w, 0).unwrap();
            let mut count = zero;
            for t in &open {
                let x = vc.pool.ite(t.var, one, zero).unwrap();
                count = vc.pool.add(count, x).unwrap();
            }
            let at_least = |vc: &mut Vc, m: u64| -> ExprId {
                let k = vc.pool.bv_const(w, u128::from(m)).unwrap();
                vc.pool.uge(count, k).unwrap()
            };
            let q = at_least(vc, 1);
            let mut best = match run.ask(vc, &[q]) {
                Answer::Sat(m) => m,
                Answer::Unsat => {
                    mark_untouched_infeasible(&touched, &has_target, &mut status);
                    complete = true;
                    break;
                }
                Answer::Unknown(_) => break,
            };
            let achieved = |m: &Model| open.iter().filter(|t| Vc::holds(m, t.sym)).count() as u64;
            let mut lo = achieved(&best);
            let mut hi = open.len() as u64;
            while lo < hi && !run.out_of_budget() {
                let mid = lo + (hi - lo).div_ceil(2);
                let q = at_least(vc, mid);
                match run.ask(vc, &[q]) {
                    Answer::Sat(m) => {
                        lo = achieved(&m).max(mid);
                        best = m;
                    }
                    Answer::Unsat => hi = mid - 1,
                    Answer::Unknown(_) => break,
                }
            }
            accept(&mut run, vc, &best, &mut status, &mut touched);
        },
    }
    run.stats.elapsed = run.start.elapsed();
    CoverOutcome { status, stats: run.stats, complete }
}

/// After an unsatisfiable enabling query: every group with a target that no
/// model touched is infeasible.
fn mark_untouched_infeasible(touched: &[bool], has_target: &[bool], status: &mut [GroupStatus]) {
    for (g, s) in status.iter_mut().enumerate() {
        if !touched[g] && has_target[g] {
            *s = GroupStatus::Infeasible;
        }
    }
}
