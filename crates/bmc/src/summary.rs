//! Procedure summaries (the paper's Section 6). A function whose inlined,
//! unwound body touches no memory and reads no input is summarized by the
//! input/output pairs of executions a statement cover finds for it (its
//! arguments free, only executions that return count); calls of it in
//! `main` are then encoded as "arguments and result are one of the pairs"
//! instead of being inlined. That under-approximates the callee: every
//! model is still a real execution (and becomes a test), but an
//! unsatisfiable query proves nothing. When the cover with summaries ends
//! with goals left, each call site passing constants gets the callee
//! re-covered with those constants as a precondition, the summary is
//! extended, and the cover runs once more. The engine then covers what is
//! left with calls inlined, which alone gives verdicts.

use crate::cover::{cover, CoverAlgorithm, CoverSettings, CoverStats, GroupStatus, Target};
use crate::engine::{goal_targets, transform_function};
use crate::inline::is_reach_error;
use crate::vc::{encode, encode_with, Summaries, SummaryPair, Termination, Vc, VcSettings};
use crate::BmcError;
use std::time::Duration;
use walkdown_ir::goals::Goals;
use walkdown_ir::{Builtin, Callee, FuncId, GlobalId, InstKind, Operand, Program};
use walkdown_smt::Model;

/// What the summary phase did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryFigures {
    /// Functions summarized.
    pub functions: usize,
    /// Input/output pairs in all summaries at the end.
    pub pairs: usize,
    /// Re-covers of a callee with a caller's constants.
    pub refinements: usize,
    /// Queries for the callees' covers.
    pub callee_queries: u64,
    /// Queries of `main`'s covers with summaries.
    pub queries: u64,
    /// Time in the solver, both.
    pub solver_time: Duration,
    /// Why there was nothing to do, if so.
    pub note: Option<String>,
}

/// Whether `f`'s unwound body is free of memory accesses and inputs.
fn is_pure(program: &Program, f: FuncId, k: u32, max_blocks: usize) -> bool {
    let Ok(u) = transform_function(program, f, k, max_blocks, &[]) else { return false };
    if u.prov.cuts.iter().any(|c| matches!(c.reason, crate::CutReason::Recursion { .. })) {
        return false;
    }
    u.body.insts.values().all(|i| match &i.kind {
        InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Alloca { .. } | InstKind::Nondet { .. } => false,
        InstKind::Call { callee: Callee::Direct(g), .. } => {
            let gd = &u.program.funcs[*g];
            is_reach_error(&gd.name)
                || matches!(gd.builtin, Some(Builtin::Abort | Builtin::Exit))
                || matches!(gd.name.as_str(), "__VERIFIER_assume" | "__assert_fail")
        }
        InstKind::Call { .. } => false,
        _ => true,
    })
}

/// Input/output pairs of executions of `f` that return, found by a
/// statement cover of its blocks; `pre` fixes some arguments.
pub fn summarize(
    program: &Program,
    f: FuncId,
    k: u32,
    max_blocks: usize,
    pre: &[Option<u64>],
    settings: &CoverSettings,
) -> Result<(Vec<SummaryPair>, CoverStats), BmcError> {
    let u = transform_function(program, f, k, max_blocks, &[])?;
    let goals = Goals::compute(&u.program);
    let vs = VcSettings { termination: Termination::Complete, backward_ok: false, ..VcSettings::default() };
    let mut vc = encode(&u.program, &u.body, &u.prov, &goals, &|_| 0, &|_| 0, &vs)?;
    for (j, c) in pre.iter().enumerate() {
        if let (Some(c), Some(&p)) = (c, vc.entry_params.get(j)) {
            let w = vc.pool.width(p).unwrap_or(1);
            let k = vc.pool.bv_const(w, u128::from(*c)).map_err(|e| BmcError::Expr(e.to_string()))?;
            let eq = vc.pool.eq(p, k).map_err(|e| BmcError::Expr(e.to_string()))?;
            vc.assertions.push(eq);
        }
    }
    let targets: Vec<Target> =
        vc.blocks.iter().enumerate().map(|(i, b)| Target { var: b.reach, sym: b.reach_sym, group: i }).collect();
    let (path_vars, succs) = vc.path_graph();
    let groups = vc.blocks.len();
    let mut pairs: Vec<SummaryPair> = Vec::new();
    let mut on_model = |vc: &Vc, m: &Model| -> Vec<usize> {
        let args: Vec<u64> = vc.entry_params.iter().map(|&p| vc.pool.eval(p, m).as_bv().unwrap_or(0) as u64).collect();
        let last = *vc.path(m).last().expect("a path has a block");
        let ret = vc.returns.get(&last).copied().flatten().map(|r| vc.pool.eval(r, m).as_bv().unwrap_or(0) as u64);
        if vc.returns.contains_key(&last) && !pairs.iter().any(|(a, r)| *a == args && *r == ret) {
            pairs.push((args, ret));
        }
        (0..vc.blocks.len()).filter(|&i| Vc::holds(m, vc.blocks[i].reach_sym)).collect()
    };
    let cs = CoverSettings { algorithm: CoverAlgorithm::Statements, ..*settings };
    let o = cover(&mut vc, &targets, groups, &path_vars, &succs, &cs, &|_| false, &|_| false, &mut on_model);
    Ok((pairs, o.stats))
}

/// The summary phase of the engine (see the module doc): covers `main`'s
/// goals with summarized calls, handing every model to `on_model`.
#[allow(clippy::too_many_arguments)]
pub fn cover_with_summaries(
    program: &Program,
    goals: &Goals,
    k: u32,
    max_blocks: usize,
    vc_settings: &VcSettings,
    settings: &CoverSettings,
    gaddr: &dyn Fn(GlobalId) -> u64,
    faddr: &dyn Fn(FuncId) -> u64,
    stop: crate::cover::StopCheck<'_>,
    on_model: &mut dyn FnMut(&Vc, &Model) -> Vec<usize>,
) -> SummaryFigures {
    let mut fig = SummaryFigures::default();
    let Some(main) = program.entry() else { return fig };
    let cands: Vec<FuncId> = program
        .funcs
        .iter()
        .filter(|(f, fd)| *f != main && fd.body.is_some() && !is_reach_error(&fd.name))
        .map(|(f, _)| f)
        .filter(|&f| is_pure(program, f, k, max_blocks))
        .collect();
    if cands.is_empty() {
        fig.note = Some("no function without memory accesses and inputs to summarize".into());
        return fig;
    }
    // Each callee cover gets a share of a quarter of the phase's budget.
    let share = CoverSettings { time: settings.time / (4 * cands.len() as u32).max(1), ..*settings };
    let mut sums = Summaries::default();
    for &f in &cands {
        if let Ok((pairs, st)) = summarize(program, f, k, max_blocks, &[], &share) {
            fig.callee_queries += st.queries;
            fig.solver_time += st.solver_time;
            sums.funcs.insert(f, pairs);
        }
    }
    let cands: Vec<FuncId> = sums.funcs.keys().copied().collect();
    fig.functions = cands.len();
    let Ok(u) = transform_function(program, main, k, max_blocks, &cands) else {
        fig.note = Some("main cannot be transformed".into());
        return fig;
    };
    let start = std::time::Instant::now();
    for round in 0..2 {
        let Ok(mut vc) = encode_with(&u.program, &u.body, &u.prov, goals, gaddr, faddr, vc_settings, &sums) else {
            fig.note = Some("main cannot be encoded with summaries".into());
            break;
        };
        let Ok((targets, groups)) = goal_targets(&mut vc, goals) else { break };
        let (path_vars, succs) = vc.path_graph();
        let cs = CoverSettings { time: settings.time.saturating_sub(start.elapsed()), ..*settings };
        let o = cover(&mut vc, &targets, groups, &path_vars, &succs, &cs, stop, &|_| false, on_model);
        fig.queries += o.stats.queries;
        fig.solver_time += o.stats.solver_time;
        let left = targets.iter().any(|t| o.status[t.group] == GroupStatus::Infeasible);
        if round == 1 || !o.complete || !left {
            break;
        }
        // No path with the summaries reaches what is left: re-cover each
        // callee under the constants its call sites pass.
        let mut grew = false;
        for inst in u.body.insts.values() {
            let InstKind::Call { callee: Callee::Direct(g), args, .. } = &inst.kind else { continue };
            if !sums.funcs.contains_key(g) {
                continue;
            }
            let pre: Vec<Option<u64>> =
                args.iter().map(|a| if let Operand::Const(c) = a { Some(c.bits) } else { None }).collect();
            if pre.iter().all(Option::is_none) {
                continue;
            }
            fig.refinements += 1;
            if let Ok((pairs, st)) = summarize(program, *g, k, max_blocks, &pre, &share) {
                fig.callee_queries += st.queries;
                fig.solver_time += st.solver_time;
                let known = sums.funcs.get_mut(g).unwrap();
                for p in pairs {
                    if !known.contains(&p) {
                        known.push(p);
                        grew = true;
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    fig.pairs = sums.funcs.values().map(Vec::len).sum();
    fig
}
