//! The Horn-clause engine: the model checker's [`Model`] (every call
//! inlined into `main`, blocks self-contained, memory a byte array) as
//! constrained Horn clauses, solved by Z3's Spacer
//! ([`walkdown_smt::HornSystem`]).
//!
//! Each reachable block gets a relation over its state (its parameters
//! and, but for the entry, the memory, unless no step reads memory); the entry's holds for any
//! parameters; each step is a clause from its source's relation and guard
//! to its target's relation at the post-state. Each goal is a query: a
//! step that is a copy of the branch outcome, or a check of the error site
//! failing, from its block's relation. A block that is a recursion cut is
//! a query of its own, asked with every goal: a model that may miss
//! executions proves nothing.
//!
//! Goals are asked in groups (the `reach_error` checks first, then the
//! other checks, then branch outcomes): a group no derivation reaches is
//! proved at once; a reachable group is split in halves, so a few
//! reachable goals among many cost a few queries each; a group Spacer
//! gives up on waits for a round with twice the time limit. Every solution
//! Spacer returns is inductive for the same clauses, so their conjunction
//! is too: it becomes the [`Certificate`] of everything proved, whose
//! loop-head invariants a correctness witness states (after its own
//! check).

use walkdown_campaign::{work, Claim, Engine, EngineCtx, EngineEnd, EngineError, OpenReason};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::{Body, CheckKind, FuncId, GlobalId, Program};
use walkdown_smt::{Clause, ExprId, HornAnswer, HornSettings, HornSystem, Leaf, Node, RelId};

use crate::certificate::Certificate;
use crate::engine::aimed;
use crate::model::{Model, ModelSettings};
use crate::CegarError;

/// Settings of the Horn-clause engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HornEngineSettings {
    /// How the program is transformed (as for the model checker).
    pub model: ModelSettings,
    /// Spacer's time limit in the first round, in milliseconds; each
    /// round doubles it. Default 2,000.
    pub first_timeout_ms: u32,
}

impl Default for HornEngineSettings {
    fn default() -> Self {
        HornEngineSettings { model: ModelSettings::default(), first_timeout_ms: 2_000 }
    }
}

/// The model's clauses, with which queries stand for which goal.
pub struct Clauses {
    /// The system.
    pub system: HornSystem,
    /// Per block of the model: its relation (`None`: no step reaches it).
    pub relation: Vec<Option<RelId>>,
    /// Per goal: the queries of its copies.
    pub queries: std::collections::HashMap<GoalId, Vec<usize>>,
    /// The queries that a recursion cut is reached.
    pub cuts: Vec<usize>,
}

/// The Horn clauses of `model`.
pub fn clauses(model: &mut Model) -> Result<Clauses, CegarError> {
    let n = model.body.blocks.len();
    let mut reached = vec![false; n];
    for b in walkdown_ir::verify::reverse_postorder(&model.body) {
        reached[b.index()] = true;
    }
    // Memory no step reads cannot decide anything: relations leave it out
    // (Spacer is much weaker with an array per relation).
    let reads_memory = |e: ExprId| model.pool.symbols_of(e).iter().any(|l| matches!(l, Leaf::Array(_)));
    let memory = (0..n).any(|b| {
        model.steps[b].iter().any(|s| reads_memory(s.guard) || s.post_params.iter().any(|&p| reads_memory(p)))
            || model.errors[b].iter().any(|e| reads_memory(e.fails))
    });
    let mut system = HornSystem::new();
    let state = |model: &Model, b: usize| -> Vec<ExprId> {
        let st = &model.states[b];
        st.params.iter().copied().chain(st.mem.filter(|_| memory)).collect()
    };
    let relation: Vec<Option<RelId>> =
        (0..n).map(|b| reached[b].then(|| system.add_relation(&format!("b{b}"), state(model, b)))).collect();
    let tt = model.pool.bool_const(true);
    let entry = relation[Body::ENTRY.index()].expect("the entry is reached");
    system.add_clause(Clause { body: vec![], constraint: tt, head: Some((entry, state(model, Body::ENTRY.index()))) });
    let mut queries: std::collections::HashMap<GoalId, Vec<usize>> = Default::default();
    let mut cuts = Vec::new();
    for b in 0..n {
        let Some(rel) = relation[b] else { continue };
        let from = (rel, state(model, b));
        if model.cuts[b].is_some() {
            cuts.push(system.add_clause(Clause { body: vec![from.clone()], constraint: tt, head: None }));
        }
        for s in &model.steps[b] {
            let Some(to) = relation[s.to.index()] else { continue };
            let mut post = s.post_params.clone();
            if memory && s.to != Body::ENTRY {
                post.push(s.post_mem);
            }
            system.add_clause(Clause { body: vec![from.clone()], constraint: s.guard, head: Some((to, post)) });
            if let Some(g) = s.goal {
                let q = system.add_clause(Clause { body: vec![from.clone()], constraint: s.guard, head: None });
                queries.entry(g).or_default().push(q);
            }
        }
        for e in &model.errors[b] {
            let q = system.add_clause(Clause { body: vec![from.clone()], constraint: e.fails, head: None });
            queries.entry(e.goal).or_default().push(q);
        }
    }
    Ok(Clauses { system, relation, queries, cuts })
}

/// The order goals are asked in: `reach_error` checks, other checks,
/// branch outcomes.
fn rank(kind: &GoalKind) -> u8 {
    match kind {
        GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. } => 0,
        GoalKind::Error { .. } => 1,
        GoalKind::Edge { .. } => 2,
    }
}

/// What a solving run decided, and the solutions that prove it.
#[derive(Default)]
struct Progress {
    /// Goals proved unreachable.
    proved: Vec<GoalId>,
    /// Goals some derivation reaches.
    reachable: Vec<GoalId>,
    /// Per relation: the conjunction of every solution.
    solution: Vec<ExprId>,
    /// Queries asked, and how many Spacer gave up on.
    queries: u64,
    unknown: u64,
    /// The last reason Spacer gave for giving up.
    last_unknown: String,
}

/// The hooks a solving run reports to (the campaign, or nothing).
trait Hooks {
    /// Whether to go on.
    fn keep_going(&mut self) -> bool;
    /// Whether the goal still needs a verdict.
    fn is_open(&mut self, goal: GoalId) -> bool;
    /// The time limit of the next query, given the round's.
    fn limit(&mut self, round_ms: u32) -> Option<u32>;
    /// After a query that took `ms`.
    fn charge(&mut self, ms: u64);
    /// Goals just proved.
    fn proved(&mut self, goals: &[GoalId]);
}

/// Asks about `targets` in groups until each is decided, the hooks stop
/// it, or the time limit would pass what is left.
fn solve(
    model: &mut Model,
    cl: &Clauses,
    targets: &[GoalId],
    first_ms: u32,
    hooks: &mut dyn Hooks,
) -> Result<Progress, CegarError> {
    let mut progress =
        Progress { solution: vec![model.pool.bool_const(true); cl.relation.len()], ..Progress::default() };
    let mut round_ms = first_ms.max(1);
    let mut groups: Vec<Vec<GoalId>> = vec![targets.to_vec()];
    'rounds: loop {
        let mut deferred = Vec::new();
        while let Some(group) = groups.pop() {
            if !hooks.keep_going() {
                break 'rounds;
            }
            let group: Vec<GoalId> = group.into_iter().filter(|&g| hooks.is_open(g)).collect();
            if group.is_empty() {
                continue;
            }
            let Some(ms) = hooks.limit(round_ms) else { break 'rounds };
            let mut asked: Vec<usize> = cl.cuts.clone();
            for g in &group {
                asked.extend(cl.queries.get(g).into_iter().flatten());
            }
            let start = std::time::Instant::now();
            let answer = cl
                .system
                .solve(&mut model.pool, &asked, &HornSettings { timeout_ms: ms, ..HornSettings::default() })
                .map_err(|e| CegarError::Horn(e.to_string()))?;
            hooks.charge(start.elapsed().as_millis() as u64);
            progress.queries += 1;
            match answer {
                HornAnswer::Safe(sol) => {
                    for (acc, s) in progress.solution.iter_mut().zip(sol) {
                        *acc = model.pool.and(&[*acc, s])?;
                    }
                    hooks.proved(&group);
                    progress.proved.extend(group);
                }
                HornAnswer::Reachable if group.len() == 1 => progress.reachable.extend(group),
                HornAnswer::Reachable => {
                    let (a, b) = group.split_at(group.len() / 2);
                    // The second half is asked next, then the first.
                    groups.push(a.to_vec());
                    groups.push(b.to_vec());
                }
                HornAnswer::Unknown(why) => {
                    progress.unknown += 1;
                    progress.last_unknown = format!("no answer within {ms} ms (Z3: {why})");
                    deferred.push(group);
                    // An answer at once to a query given seconds means Z3
                    // will not work at all (its context is cancelled): stop
                    // rather than ask again and again.
                    if ms >= 1_000 && start.elapsed() < std::time::Duration::from_millis(20) {
                        progress.last_unknown = "Z3 answers unknown at once".into();
                        break 'rounds;
                    }
                }
            }
        }
        if deferred.is_empty() {
            break;
        }
        deferred.reverse();
        groups = deferred;
        round_ms = round_ms.saturating_mul(2);
    }
    Ok(progress)
}

/// The certificate of `proved` from `solution` (per relation of `cl`).
fn certificate(model: Model, cl: &Clauses, solution: &[ExprId], proved: Vec<GoalId>) -> Certificate {
    let ff = model.pool.bool_const(false);
    let states: Vec<Vec<Vec<ExprId>>> = cl
        .relation
        .iter()
        .map(|r| match r {
            None => Vec::new(),
            Some(r) => {
                let s = solution[r.0 as usize];
                if s == ff {
                    return Vec::new();
                }
                // A disjunction's disjuncts are the states; each is a
                // conjunction of literals (the certificate drops the
                // literals C cannot state, one by one).
                let disjuncts = match model.pool.get(s) {
                    Node::Or(xs) => xs.to_vec(),
                    _ => vec![s],
                };
                disjuncts
                    .into_iter()
                    .map(|d| match model.pool.get(d) {
                        Node::And(xs) => xs.to_vec(),
                        _ => vec![d],
                    })
                    .collect()
            }
        })
        .collect();
    Certificate::new(model, states, Default::default(), proved)
}

/// The Horn-clause engine.
#[derive(Default)]
pub struct HornEngine {
    /// Its settings.
    pub settings: HornEngineSettings,
    /// What the last run proved, with Spacer's invariants (for
    /// correctness witnesses).
    pub certificate: Option<Certificate>,
    /// How the last run ended, in words.
    pub end: String,
}

impl HornEngine {
    /// An engine with these settings.
    pub fn new(settings: HornEngineSettings) -> HornEngine {
        HornEngine { settings, ..HornEngine::default() }
    }
}

struct CtxHooks<'a, 'k, 'p> {
    ctx: &'a EngineCtx<'k, 'p>,
    closures: (u64, Vec<walkdown_campaign::GoalClosure>),
    method: String,
    /// Ask about goals other engines proved too: a proof without
    /// invariants (bounded unwinding, induction) gives no witness, and
    /// Spacer's solution does.
    reprove: bool,
}

impl Hooks for CtxHooks<'_, '_, '_> {
    fn keep_going(&mut self) -> bool {
        self.ctx.checkpoint()
    }
    fn is_open(&mut self, goal: GoalId) -> bool {
        let epoch = self.ctx.epoch();
        if self.closures.0 != epoch {
            self.closures = (epoch, self.ctx.closures());
        }
        let wanted = |g: &walkdown_campaign::GoalClosure| match g {
            walkdown_campaign::GoalClosure::Open => true,
            walkdown_campaign::GoalClosure::Proved => self.reprove,
            walkdown_campaign::GoalClosure::Covered => false,
        };
        self.closures.1.get(goal.index()).is_some_and(wanted)
    }
    fn limit(&mut self, round_ms: u32) -> Option<u32> {
        // Spacer is one query: on a shared worker it holds the worker for
        // its whole limit (charged below, so the others get their share
        // back), and a round that cannot fit what is left is not begun.
        let left = self.ctx.deadline().saturating_duration_since(std::time::Instant::now()).as_millis();
        (left >= u128::from(round_ms.min(1_000))).then(|| round_ms.min(left.min(u128::from(u32::MAX)) as u32))
    }
    fn charge(&mut self, ms: u64) {
        self.ctx.charge(1 + work::of_duration(std::time::Duration::from_millis(ms)));
    }
    fn proved(&mut self, goals: &[GoalId]) {
        for &g in goals {
            self.ctx.claim(g, Claim::Unreachable { method: self.method.clone() });
        }
    }
}

impl Engine for HornEngine {
    fn name(&self) -> &'static str {
        "horn"
    }

    fn run(&mut self, ctx: &EngineCtx<'_, '_>) -> Result<EngineEnd, EngineError> {
        let campaign = ctx.campaign();
        let goals = campaign.goals();
        for (id, g) in goals.goals.iter() {
            if !aimed(&g.kind) {
                ctx.note_open(id, OpenReason::NotAttempted("horn does not encode memory and free errors".into()));
            }
        }
        ctx.publish("running: building the clauses", Vec::new());
        let Some((mut model, cl)) = self.encode(ctx) else {
            return Ok(EngineEnd::new(self.end.clone()));
        };
        ctx.charge(work::formula(model.pool.len() as u64));
        let mut targets: Vec<GoalId> = goals.goals.iter().filter(|(_, g)| aimed(&g.kind)).map(|(id, _)| id).collect();
        targets.sort_by_key(|&g| (rank(&goals.goals[g].kind), g.index()));
        let method = format!("Horn clauses over {} blocks solved by Spacer", cl.relation.len());
        let mut hooks = CtxHooks { ctx, closures: (u64::MAX, Vec::new()), method, reprove: true };
        let p = self.solve_in_parts(&mut model, &cl, &targets, &mut hooks)?;
        hooks.reprove = false;
        for &g in &targets {
            if hooks.is_open(g) && !p.proved.contains(&g) {
                let why = if p.unknown > 0 {
                    format!("Spacer: {}", p.last_unknown)
                } else {
                    "a derivation of the Horn clauses reaches it, or the budget ended".into()
                };
                ctx.note_open(g, OpenReason::NotAttempted(why));
            }
        }
        let figures = vec![
            ("blocks", cl.relation.len() as f64),
            ("queries", p.queries as f64),
            ("unknown", p.unknown as f64),
            ("proved", p.proved.len() as f64),
            ("reachable", p.reachable.len() as f64),
        ];
        self.end = format!("{} goals proved unreachable in {} queries", p.proved.len(), p.queries);
        if !p.proved.is_empty() {
            self.certificate = Some(certificate(model, &cl, &p.solution, p.proved));
        }
        ctx.publish(&self.end.clone(), figures);
        Ok(EngineEnd::new(self.end.clone()))
    }
}

impl HornEngine {
    /// The campaign's program as a model and its clauses; `None` (every
    /// aimed goal noted open, the end set) when it cannot be encoded.
    fn encode(&mut self, ctx: &EngineCtx<'_, '_>) -> Option<(Model, Clauses)> {
        let campaign = ctx.campaign();
        let (program, goals, interp) = (campaign.program(), campaign.goals(), campaign.interpreter());
        let gaddr = |g| interp.global_address(g).unwrap_or(0);
        let faddr = |f| interp.func_address(f).unwrap_or(0);
        let built = Model::build(program, goals, &gaddr, &faddr, &self.settings.model)
            .and_then(|mut m| clauses(&mut m).map(|c| (m, c)));
        match built {
            Ok(x) => Some(x),
            Err(e) => {
                for (id, g) in goals.goals.iter() {
                    if aimed(&g.kind) {
                        ctx.note_open(id, OpenReason::Unsupported(e.to_string()));
                    }
                }
                self.end = format!("cannot encode the program: {e}");
                None
            }
        }
    }

    /// Solves for the `reach_error` checks alone first (their proof is the
    /// witness), then for the other targets, and conjoins the solutions.
    fn solve_in_parts(
        &self,
        model: &mut Model,
        cl: &Clauses,
        targets: &[GoalId],
        hooks: &mut CtxHooks<'_, '_, '_>,
    ) -> Result<Progress, EngineError> {
        let ctx = hooks.ctx;
        let campaign = ctx.campaign();
        let goals = campaign.goals();
        let split = targets.iter().position(|&g| rank(&goals.goals[g].kind) > 0).unwrap_or(targets.len());
        let mut all = Progress::default();
        for (k, part) in [&targets[..split], &targets[split..]].into_iter().enumerate() {
            // Only the reach_error checks are asked again once proved.
            hooks.reprove = k == 0;
            if part.is_empty() {
                continue;
            }
            let p = solve(model, cl, part, self.settings.first_timeout_ms, hooks)
                .map_err(|e| EngineError(e.to_string()))?;
            all.queries += p.queries;
            all.unknown += p.unknown;
            all.reachable.extend(p.reachable);
            if !p.last_unknown.is_empty() {
                all.last_unknown = p.last_unknown;
            }
            all.solution = if all.solution.is_empty() {
                p.solution
            } else {
                all.solution.iter().zip(&p.solution).map(|(&a, &b)| model.pool.and(&[a, b]).expect("Boolean")).collect()
            };
            all.proved.extend(p.proved);
        }
        Ok(all)
    }
}

/// Solves the clauses of `program`'s model outside any campaign with
/// `targets` as the only goals, for at most `time`, and returns the
/// certificate that proves all of them unreachable (`None` if Spacer did
/// not prove them all). For correctness witnesses of goals other engines
/// proved without invariants to show (loop-free programs, induction).
pub fn certify_horn(
    program: &Program,
    goals: &Goals,
    global_addr: &dyn Fn(GlobalId) -> u64,
    func_addr: &dyn Fn(FuncId) -> u64,
    targets: &[GoalId],
    settings: &HornEngineSettings,
    time: std::time::Duration,
) -> Result<Option<Certificate>, CegarError> {
    struct Alone {
        deadline: std::time::Instant,
    }
    impl Hooks for Alone {
        fn keep_going(&mut self) -> bool {
            std::time::Instant::now() < self.deadline
        }
        fn is_open(&mut self, _: GoalId) -> bool {
            true
        }
        fn limit(&mut self, round_ms: u32) -> Option<u32> {
            let left = self.deadline.saturating_duration_since(std::time::Instant::now()).as_millis();
            (left > 0).then(|| round_ms.min(left.min(u128::from(u32::MAX)) as u32))
        }
        fn charge(&mut self, _: u64) {}
        fn proved(&mut self, _: &[GoalId]) {}
    }
    let mut model = Model::build(program, goals, global_addr, func_addr, &settings.model)?;
    let cl = clauses(&mut model)?;
    let mut hooks = Alone { deadline: std::time::Instant::now() + time };
    // One group, so one solution proves all the targets together.
    let ms = u32::try_from(time.as_millis()).unwrap_or(u32::MAX);
    let p = solve(&mut model, &cl, targets, ms, &mut hooks)?;
    if targets.iter().all(|t| p.proved.contains(t)) {
        Ok(Some(certificate(model, &cl, &p.solution, p.proved)))
    } else {
        Ok(None)
    }
}

/// Runs the Horn engine alone on `program` for at most `time` (one
/// worker) and returns the campaign's final state and the engine. For
/// tests and experiments.
pub fn run_horn(
    program: &Program,
    goals: &Goals,
    settings: HornEngineSettings,
    time: std::time::Duration,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(walkdown_campaign::Snapshot, HornEngine), EngineError> {
    let mut engine = HornEngine::new(settings);
    let snapshot = crate::engine::run_alone(program, goals, Box::new(&mut engine), time, stop)?;
    Ok((snapshot, engine))
}
