//! The complete run: a program that reads no input has one execution, so
//! when that execution ends, every goal it does not cover is unreachable.
//!
//! Runs once, after the static pass and before the portfolio, on the
//! campaign's interpreter (the judge every test is replayed on): first
//! within [`PROBE_STEPS`] steps, which tells a program that reads input
//! from one that does not at the cost of a few milliseconds; then, for a
//! program that read nothing within them, without a step limit for a share
//! of the budget ([`complete_share`]), with fast-forwarding of loops as in
//! every replay. The run proves nothing unless all of these held, and the
//! proof it claims names them (every verdict carries its evidence):
//!
//! - it read no input (no `__VERIFIER_nondet_*`, no environment value, no
//!   value of a function without a body or model): the run is then the
//!   program's only execution;
//! - it called no function without a body or a model;
//! - it ended: `main` returned, `exit`, `abort`, or an error stopped it;
//!   not a step, time, depth or memory limit, an unsupported construct, or
//!   a failed `assume` (an execution the program does not admit);
//! - a second run with other contents for uninitialized memory (C leaves
//!   them indeterminate; the interpreter fills them with zeros) took the
//!   same path: same end, same goals. A run whose path changes with them
//!   reads uninitialized memory; one whose path does not may still read
//!   some, and then, like every engine of walkdown, the pass takes memory
//!   to hold what the interpreter fills it with.
//!
//! Its test is submitted like any engine's, so the goals it covers are
//! covered by a kept test; the claims go to the ledger, which reports a
//! conflict if a replayed test ever covers one of them.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use walkdown_campaign::{Campaign, Claim, EngineFigures};
use walkdown_interp::{ExecLimits, Outcome, RunOptions, RunResult};
use walkdown_ir::goals::GoalId;
use walkdown_ir::testvec::TestVector;

use crate::outcome::{Handler, Notice};

/// The engine name of the pass's figures and proofs.
pub const NAME: &str = "run";

/// Steps of the first run: enough for most input-free programs to end,
/// few enough (a few milliseconds) to spend on every program.
pub const PROBE_STEPS: u64 = 2_000_000;

/// What uninitialized memory holds in the second run (any value but 0,
/// the interpreter's default fill, would do).
const OTHER_FILL: u64 = 0x9e37_79b9_7f4a_7c15;

/// The time the unlimited run may take: a quarter of the budget, as the
/// static pass.
pub fn complete_share(budget: Duration) -> Duration {
    budget / 4
}

/// Why a run proves nothing, in words, or `None` when it is complete.
fn incomplete(run: &RunResult) -> Option<String> {
    if run.nondet_calls > 0 {
        return Some(format!("it reads input ({} values)", run.nondet_calls));
    }
    if let Some(f) = run.unknown_externals.first() {
        return Some(format!("it calls `{f}`, which has no body or model"));
    }
    match &run.outcome {
        Outcome::Exit(_) | Outcome::Abort | Outcome::Error { .. } => None,
        other => Some(format!("it did not end ({other:?})")),
    }
}

/// How the run ended, for the proof's text.
fn ending(run: &RunResult) -> String {
    match &run.outcome {
        Outcome::Exit(code) => format!("exit {code}"),
        Outcome::Abort => "abort".into(),
        Outcome::Error { kind, loc, .. } => format!("error {kind:?} at line {}", loc.line),
        other => format!("{other:?}"),
    }
}

/// The proof's text: the conditions that held.
fn method(run: &RunResult) -> String {
    let jumped = if run.skipped_steps > 0 {
        format!(", {} more jumped by fast-forwarding {} loops", run.skipped_steps, run.fast_forwards)
    } else {
        String::new()
    };
    format!(
        "complete run: the program reads no input and calls no function without a body or model; \
         its one execution ran {} steps{jumped} and ended ({}); with other contents for \
         uninitialized memory it took the same path",
        run.steps,
        ending(run)
    )
}

/// Runs the program on no input within `limits`.
fn run_once(interp: &walkdown_interp::Interpreter, limits: ExecLimits) -> RunResult {
    interp.run(&TestVector::default(), &RunOptions { limits, record_lines: false })
}

/// The pass. Returns the goals it proved unreachable.
pub fn run(campaign: &Campaign<'_>, budget: Duration, handler: &mut dyn Handler) -> usize {
    let start = Instant::now();
    let interp = campaign.interpreter();
    let mut limits = ExecLimits { max_steps: PROBE_STEPS, ..ExecLimits::default() };
    let mut first = run_once(interp, limits);
    if matches!(first.outcome, Outcome::StepLimit) && first.nondet_calls == 0 && first.unknown_externals.is_empty() {
        let deadline = (start + complete_share(budget)).min(campaign.deadline());
        limits = ExecLimits { max_steps: u64::MAX, deadline: Some(deadline), ..ExecLimits::default() };
        first = run_once(interp, limits);
    }
    let verdict = incomplete(&first).or_else(|| {
        let mut other = interp.clone();
        other.set_uninitialized_fill(OTHER_FILL);
        let second = run_once(&other, limits);
        let same = second.outcome == first.outcome && second.covered == first.covered && second.nondet_calls == 0;
        (!same).then(|| "its path depends on uninitialized memory".to_string())
    });
    let proved = match verdict {
        Some(why) => {
            let status = format!("no proof: {why}");
            campaign.publish(figures(&status, start.elapsed(), 0));
            0
        }
        None => claim(campaign, &first, start, handler),
    };
    proved
}

/// Submits the complete run's test and claims every goal it does not
/// cover.
fn claim(campaign: &Campaign<'_>, run: &RunResult, start: Instant, handler: &mut dyn Handler) -> usize {
    campaign.submit(NAME, &TestVector::default());
    let covered: HashSet<GoalId> = run.covered.iter().copied().collect();
    let text = method(run);
    let mut proved = 0;
    for g in campaign.goals().goals.keys().filter(|g| !covered.contains(g)) {
        campaign.claim(NAME, g, Claim::Unreachable { method: text.clone() });
        proved += 1;
    }
    campaign.publish(figures("finished: the program's only execution ended", start.elapsed(), proved));
    handler.notice(Notice::Info(format!(
        "walkdown: complete run ({:.1} ms, {} steps): {proved} goals proved unreachable",
        start.elapsed().as_secs_f64() * 1e3,
        run.steps
    )));
    proved
}

/// The pass's figures in the campaign.
fn figures(status: &str, time: Duration, proved: usize) -> EngineFigures {
    EngineFigures { name: NAME, status: status.into(), time, counters: vec![("proved_unreachable", proved as f64)] }
}
