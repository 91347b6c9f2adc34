//! The soundness check of instrumented invariants: the program with the
//! facts of `invariants_at_exits` added as `assume`s must verify, round-trip
//! through the textual IR, keep its goals, and every run must end as the
//! original's does (same outcome, same goals covered); in particular no
//! added `assume` fails.

use std::time::{Duration, Instant};
use walkdown_absint::{analyze_relational, instrument, invariants_at_exits, LinearFact};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;

/// What one check found.
pub struct Checked {
    /// Facts found.
    pub facts: Vec<LinearFact>,
    /// Facts instrumented.
    pub instrumented: usize,
    /// Vectors run.
    pub runs: usize,
    /// Failures (empty when sound).
    pub failures: Vec<String>,
    /// Goals the original program's runs covered.
    pub covered: std::collections::BTreeSet<walkdown_ir::goals::GoalId>,
    /// Time of the relational analysis.
    pub analysis: Duration,
}

/// Runs the check on `count` vectors (or until `budget` is spent).
pub fn check(name: &str, p: &Program, count: usize, budget: Duration, max_steps: u64) -> Checked {
    let a = analyze_relational(p);
    let analysis = a.elapsed;
    let facts = invariants_at_exits(&a);
    let instrumented = facts.iter().filter(|f| f.eval_ty.is_some()).count();
    let q = instrument(p, &facts);
    let mut failures = Vec::new();
    if let Err(e) = walkdown_ir::verify::verify_program(&q) {
        failures.push(format!("{name}: instrumented program fails to verify: {e}"));
        return Checked { facts, instrumented, runs: 0, failures, covered: Default::default(), analysis };
    }
    let text = walkdown_ir::write::program_to_string(&q);
    match walkdown_ir_reader::parse_and_verify(&text) {
        Ok(r) if walkdown_ir::write::program_to_string(&r) == text => {}
        Ok(_) => failures.push(format!("{name}: instrumented program does not round-trip")),
        Err(e) => failures.push(format!("{name}: instrumented program does not parse: {e}")),
    }
    let (gp, gq) = (Goals::compute(p), Goals::compute(&q));
    if gp.goals.len() != gq.goals.len() {
        failures.push(format!("{name}: instrumentation changed the goals"));
        return Checked { facts, instrumented, runs: 0, failures, covered: Default::default(), analysis };
    }
    let (Ok(mut ip), Ok(mut iq)) = (Interpreter::new(p, &gp), Interpreter::new(&q, &gq)) else {
        return Checked { facts, instrumented, runs: 0, failures, covered: Default::default(), analysis };
    };
    // Plain runs: the step limits below compare the two programs' steps,
    // and fast-forwarding (exact in each) may jump a loop of one and not
    // the other's, whose assumes it cannot express.
    ip.set_fast_forward(false);
    iq.set_fast_forward(false);
    let op = RunOptions { limits: ExecLimits { max_steps, ..Default::default() }, ..Default::default() };
    // The instrumented program takes more steps for the same path.
    let oq = RunOptions { limits: ExecLimits { max_steps: max_steps * 8, ..Default::default() }, ..Default::default() };
    let start = Instant::now();
    let mut runs = 0;
    let mut covered = std::collections::BTreeSet::new();
    for tv in crate::support::input_vectors(name, count) {
        if start.elapsed() > budget {
            break;
        }
        runs += 1;
        let rp = ip.run(&tv, &op);
        let rq = iq.run(&tv, &oq);
        covered.extend(rp.covered.iter().copied());
        let bad = if rp.outcome == Outcome::StepLimit {
            // The instrumented run had more steps and may have gone on to
            // the program's own failing assume: only an assume the
            // original does not fail with as many steps is a bad fact.
            rq.outcome == Outcome::AssumeFailed && ip.run(&tv, &oq).outcome != Outcome::AssumeFailed
        } else {
            rq.outcome != rp.outcome || rq.covered != rp.covered
        };
        if bad {
            let facts_text: Vec<String> = facts.iter().map(|f| f.to_string()).collect();
            failures.push(format!(
                "{name}: original ended {:?}, instrumented {:?}, on {tv:?}\nfacts: {}",
                rp.outcome,
                rq.outcome,
                facts_text.join("; ")
            ));
            break;
        }
    }
    Checked { facts, instrumented, runs, failures, covered, analysis }
}
