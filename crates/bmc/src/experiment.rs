//! The paper's experiment (Section 7): cover the blocks of random programs
//! ([`crate::randprog`]) with each algorithm and count solver queries and
//! solver time. As in the paper, a path counts only if it terminates
//! ([`Termination::Complete`]: failed assumptions block) and coverage is
//! read from the models (the benchmark measures the algorithms, not the
//! replay).

use crate::cover::{cover, CoverAlgorithm, CoverOutcome, CoverSettings, Target};
use crate::engine::transform;
use crate::vc::{encode, Termination, Vc, VcSettings};
use crate::BmcError;
use std::time::Duration;
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;

/// How the experiment encodes and solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExperimentSettings {
    /// Budget per program and algorithm. Default 1 s.
    pub budget: Duration,
    /// `ok_b` defined backward as in the paper (true, default) or the
    /// forward reading (see [`VcSettings::backward_ok`]).
    pub backward_ok: bool,
    /// One incremental solver per cover, or a fresh one per query
    /// (default: with Z3 4.8 a fresh solver per query covered the random
    /// programs of 9 diamonds about 3× faster than the incremental one).
    pub incremental: bool,
}

impl Default for ExperimentSettings {
    fn default() -> Self {
        ExperimentSettings { budget: Duration::from_secs(1), backward_ok: true, incremental: false }
    }
}

/// Encodes a loop-free, call-free program with the paper's termination,
/// and its targets: one per block.
pub fn encode_blocks(program: &Program) -> Result<(Vc, Vec<Target>), BmcError> {
    encode_blocks_with(program, true)
}

fn encode_blocks_with(program: &Program, backward_ok: bool) -> Result<(Vc, Vec<Target>), BmcError> {
    let u = transform(program, 1, 100_000)?;
    let goals = Goals::compute(&u.program);
    let vc = encode(
        &u.program,
        &u.body,
        &u.prov,
        &goals,
        &|_| 0,
        &|_| 0,
        &VcSettings { termination: Termination::Complete, backward_ok, ..VcSettings::default() },
    )?;
    let targets =
        vc.blocks.iter().enumerate().map(|(i, b)| Target { var: b.reach, sym: b.reach_sym, group: i }).collect();
    Ok((vc, targets))
}

/// Covers the blocks of `program` with `algorithm` within `budget`.
pub fn cover_blocks(program: &Program, algorithm: CoverAlgorithm, budget: Duration) -> Result<CoverOutcome, BmcError> {
    cover_blocks_with(program, algorithm, &ExperimentSettings { budget, ..ExperimentSettings::default() })
}

/// [`cover_blocks`] with explicit settings.
pub fn cover_blocks_with(
    program: &Program,
    algorithm: CoverAlgorithm,
    es: &ExperimentSettings,
) -> Result<CoverOutcome, BmcError> {
    let budget = es.budget;
    let (mut vc, targets) = encode_blocks_with(program, es.backward_ok)?;
    let (path_vars, path_succs) = vc.path_graph();
    let groups = vc.blocks.len();
    let settings = CoverSettings {
        algorithm,
        time: budget,
        // The paper's one-query-per-block does not reuse models.
        reuse_models: false,
        incremental: es.incremental,
        ..CoverSettings::default()
    };
    let mut on_model = |vc: &Vc, m: &walkdown_smt::Model| -> Vec<usize> {
        (0..vc.blocks.len()).filter(|&i| Vc::holds(m, vc.blocks[i].reach_sym)).collect()
    };
    Ok(cover(&mut vc, &targets, groups, &path_vars, &path_succs, &settings, &|_| false, &|_| false, &mut on_model))
}
