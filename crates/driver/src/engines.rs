//! The portfolio's engines, built from the plan and what the static pass
//! and the annotation pass found: each engine's settings in one function,
//! and the line that names it in the report (`search`).

use std::sync::Arc;

use walkdown_bmc::{BmcEngine, BmcSettings, DeepeningSettings, KeptInvariants};
use walkdown_campaign::Engine;
use walkdown_cegar::{CegarEngine, CegarSettings, ExplicitEngine, ExplicitSettings, HornEngine};
use walkdown_concolic::{ConcolicEngine, GenSettings};
use walkdown_ir::Program;

use crate::plan::{EngineKind, Plan};
use crate::static_pass::StaticPass;

/// The engines of a run, in the plan's order, and each one's description.
pub struct Members<'e> {
    /// The engines.
    pub engines: Vec<Box<dyn Engine + 'e>>,
    /// How the report names each (`concolic (bfs)`).
    pub described: Vec<String>,
    /// The loop invariants the bounded engine's induction step kept, once
    /// it has run (for the correctness witness).
    pub bmc_kept: KeptInvariants,
}

/// The model checker's settings (also used for the witness after the run).
pub fn cegar_settings(plan: &Plan) -> CegarSettings {
    let mut settings = CegarSettings::default();
    settings.solver.timeout_ms = Some(plan.options.solver_timeout_ms);
    settings.checker.refinement = plan.options.refinement;
    settings
}

/// Builds the plan's engines. The model checker is `cegar`, the Horn
/// engine `horn` and the explicit-state engine `explicit`, made by the
/// caller, who keeps them: a complete graph's invariants, Spacer's, or the
/// explicit states make the correctness witness after the run.
/// `instrumented` is the annotation pass's program, for the concolic
/// engine.
pub fn build<'e>(
    plan: &Plan,
    program: &Program,
    statics: &StaticPass<'_>,
    instrumented: Option<Arc<Program>>,
    mut cegar: Option<&'e mut CegarEngine>,
    mut horn: Option<&'e mut HornEngine>,
    mut explicit: Option<&'e mut ExplicitEngine>,
) -> Members<'e> {
    let mut members = Members { engines: Vec::new(), described: Vec::new(), bmc_kept: KeptInvariants::default() };
    for e in &plan.engines {
        match e {
            EngineKind::Concolic => {
                members.described.push(format!("concolic ({})", plan.search.name()));
                members.engines.push(Box::new(ConcolicEngine::new(concolic(plan, statics, instrumented.clone()))));
            }
            EngineKind::Bmc => {
                let (described, settings) = bmc(plan, program, statics);
                members.bmc_kept = Arc::clone(&settings.kept);
                members.described.push(described);
                members.engines.push(Box::new(BmcEngine::new(settings)));
            }
            EngineKind::Cegar => {
                if let Some(engine) = cegar.take() {
                    members
                        .described
                        .push(format!("cegar (recursion inlined {} deep)", engine.settings.model.recursion_bound));
                    members.engines.push(Box::new(engine));
                }
            }
            EngineKind::Horn => {
                if let Some(engine) = horn.take() {
                    members.described.push("horn (Spacer)".to_string());
                    members.engines.push(Box::new(engine));
                }
            }
            EngineKind::Explicit => {
                if let Some(engine) = explicit.take() {
                    members.described.push("explicit (loop-head states, hashed)".to_string());
                    members.engines.push(Box::new(engine));
                }
            }
        }
    }
    members
}

/// The explicit-state engine's settings: its solver's limit per query is
/// its own default or the plan's, whichever is shorter.
pub fn explicit_settings(plan: &Plan) -> ExplicitSettings {
    let default = ExplicitSettings::default();
    ExplicitSettings { timeout_ms: plan.options.solver_timeout_ms.min(default.timeout_ms), ..default }
}

/// The concolic engine's settings.
fn concolic(plan: &Plan, statics: &StaticPass<'_>, instrumented: Option<Arc<Program>>) -> GenSettings {
    let o = &plan.options;
    let loop_forms = match (o.no_invariants, &statics.relational) {
        (false, Some(rel)) => walkdown_absint::trip_count_forms(rel),
        _ => Vec::new(),
    };
    let mut settings = GenSettings {
        search: plan.search.clone(),
        seed: o.seed,
        runtime_checks: !o.no_runtime_checks,
        max_executions: o.max_executions,
        mutation_share: o.mutation_share,
        loop_forms,
        monitor_order: o.monitor_order,
        instrumented,
        ..GenSettings::default()
    };
    // Mutants are not traced, so no prune would stop them: with the
    // instrumentation they would walk verified executions.
    if settings.instrumented.is_some() {
        settings.mutation_share = 0.0;
    }
    settings.solver.timeout_ms = Some(o.solver_timeout_ms);
    settings.trace.accelerate = !o.no_loop_acceleration;
    settings.trace.symbolic_floats = !o.no_symbolic_floats;
    settings.fp_timeout_ms = o.fp_timeout_ms;
    settings.quick_query_ms = (o.quick_query_ms > 0).then_some(o.quick_query_ms);
    settings.trace.exec.max_call_depth = o.max_call_depth;
    settings.replay.max_call_depth = o.max_call_depth;
    settings
}

/// The bounded engine's description and settings.
fn bmc(plan: &Plan, program: &Program, statics: &StaticPass<'_>) -> (String, DeepeningSettings) {
    let o = &plan.options;
    let (first, last) = (plan.unwinding.first, plan.unwinding.last);
    let mut bmc = BmcSettings { summaries: o.summaries, ..BmcSettings::default() };
    bmc.cover.algorithm = o.cover;
    bmc.cover.timeout_ms = o.solver_timeout_ms;
    bmc.replay.max_call_depth = o.max_call_depth;
    bmc.vc.float_terms = !o.no_symbolic_floats;
    let described = if first == last {
        format!("bmc ({} cover, unwinding {first})", o.cover.name())
    } else {
        format!("bmc ({} cover, unwinding {first}, {}, … up to {last})", o.cover.name(), first * 2)
    };
    let (intervals, relational) = (statics.intervals.as_ref(), statics.relational.as_ref());
    // The induction step's arbitrary loop states, restricted by what the
    // static analyses know at loop heads.
    let strengthened = (intervals.is_some() || relational.is_some())
        .then(|| walkdown_absint::strengthen_loop_heads(program, intervals, relational));
    // Equalities that hold if nothing wraps, for the induction step to
    // check (unsigned counters wrap in the signed reading the sound
    // analysis uses).
    let candidates = match relational {
        Some(_) => walkdown_absint::candidate_loop_equalities(program, statics.opts),
        None => Vec::new(),
    };
    (described, DeepeningSettings { bmc, first, last, strengthened, candidates, kept: KeptInvariants::default() })
}
