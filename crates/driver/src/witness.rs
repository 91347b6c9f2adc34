//! The correctness witness of a `gen` run: when every `reach_error` goal
//! ended unreachable, the invariants of a certificate (the model checker's
//! complete graph, Spacer's solution of the Horn clauses, the abstract
//! interpretation's states, alone or with the loop equalities the
//! bounded engine's induction step proved inductive) at the source loops'
//! heads become `loop_invariant`s over the C variables in scope there
//! (`witness.yml`, YAML witness format 2.0). A program without loops gets a witness with
//! an empty invariant set, once a certificate of its proof passes the same
//! check, or when the bounded engine's unwinding covered every execution
//! (a validator then has nothing to take on trust).
//!
//! A witness is written only after two checks of our own: every kept test,
//! replayed on the program with each invariant checked at its loop head,
//! satisfies them all; and the invariants, as printed (atoms over what C
//! cannot name are dropped), are inductive under the encoding of the model
//! checker and the bounded engine and exclude every `reach_error` check.

use std::path::Path;
use std::time::Instant;

use walkdown_campaign::{Snapshot, Verdict};
use walkdown_cegar::Certificate;
use walkdown_formats::report::WitnessEntry;
use walkdown_formats::witness::{c_expression, write_correctness_witness, LoopInvariantEntry, WitnessTask};
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::formula::{instrument_checks, BlockInvariant};
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::source::SourceInfo;
use walkdown_ir::{CheckKind, Operand, Program, Type, Value};

/// The witness file in the output directory.
pub const WITNESS_FILE: &str = "witness.yml";

/// The ways to a certificate for the `reach_error` goals, tried in order.
pub struct Provers<'a> {
    /// The campaign's model checker's complete graph, if it has one.
    pub campaign_graph: Option<&'a mut Certificate>,
    /// The campaign's Horn engine's solution, if it proved something.
    pub campaign_horn: Option<&'a mut Certificate>,
    /// The abstract interpretation's states over the model.
    pub from_analysis: &'a mut dyn FnMut(&[GoalId]) -> Option<Certificate>,
    /// Those states with the equalities the bounded engine's induction
    /// step proved inductive (`None`: it kept none).
    pub from_induction: &'a mut dyn FnMut(&[GoalId]) -> Option<Certificate>,
    /// A Horn-clause run of its own, with these goals as queries.
    pub horn_run: &'a mut dyn FnMut(&[GoalId]) -> Option<Certificate>,
    /// A model-checking run of its own, with these goals as targets.
    pub model_check: &'a mut dyn FnMut(&[GoalId]) -> Option<Certificate>,
}

/// The provers, as the witness's reason names them.
const PREDICATES: &str = "predicate abstraction";
const HORN: &str = "Horn clauses solved by Spacer";
const ANALYSIS: &str = "abstract interpretation (intervals, equalities)";
const INDUCTION: &str =
    "abstract interpretation with the loop equalities the bounded engine's induction step proved inductive";
const UNWINDING: &str = "the bounded engine's complete unwinding";

/// Whether `verdict` is the bounded engine's proof that no execution
/// reaches the goal and none is longer than the unwinding (exact on a
/// program without loops).
fn complete_unwinding(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Unreachable(p) if p.engine == "bmc" && p.method.ends_with("(no cut point reachable)"))
}

/// Invariants that passed the inductiveness check, with how they were
/// found and checked.
struct Checked {
    entries: Vec<LoopInvariantEntry>,
    checks: Vec<BlockInvariant>,
    queries: u64,
    method: &'static str,
}

/// Makes and checks the witness; writes it to `out` when it passes.
/// Returns what happened, for `report.json` (`None`: no `reach_error`
/// goal, nothing to witness).
#[allow(clippy::too_many_arguments)]
pub fn write_witness(
    out: &Path,
    program_file: &Path,
    several_files: bool,
    program: &Program,
    sources: &SourceInfo,
    goals: &Goals,
    snap: &Snapshot,
    provers: Provers<'_>,
    producer_version: &str,
    deadline: Instant,
) -> Option<WitnessEntry> {
    let reach: Vec<_> = goals
        .goals
        .iter()
        .filter(|(_, g)| matches!(g.kind, GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. }))
        .map(|(id, _)| id)
        .collect();
    if reach.is_empty() {
        return None;
    }
    let not_written = |reason: String| {
        Some(WitnessEntry { file: String::new(), status: "not written".into(), reason, ..Default::default() })
    };
    if several_files {
        return not_written("the program has several files, and a correctness witness names one".into());
    }
    if let Some(g) = reach.iter().find(|g| !matches!(snap.goals[g.index()].verdict, Verdict::Unreachable(_))) {
        return not_written(format!(
            "reach_error goal {g} is {}, not proved unreachable",
            snap.goals[g.index()].verdict.word()
        ));
    }
    // A program without loops has no invariant to state: its witness is
    // the empty set, written once a certificate passes the check below.
    let heads: Vec<_> = sources.all_loops().map(|(f, l)| (f, l.head)).collect();
    let mut failures = Vec::new();
    let mut checked = None;
    let attempt = |c: &mut Certificate, method: &'static str, failures: &mut Vec<String>| match state_invariants(
        c, method, program, sources, &heads, &reach, deadline,
    ) {
        Ok(k) => Some(k),
        Err(why) => {
            if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                eprintln!("witness: {method}: {why}");
            }
            failures.push(format!("{method}: {why}"));
            None
        }
    };
    let covers = |c: &&mut Certificate| reach.iter().all(|g| c.proved().contains(g));
    if let Some(c) = provers.campaign_graph.filter(covers) {
        checked = attempt(c, PREDICATES, &mut failures);
    }
    if checked.is_none() {
        if let Some(c) = provers.campaign_horn.filter(covers) {
            checked = attempt(c, HORN, &mut failures);
        }
    }
    if checked.is_none() {
        match (provers.from_analysis)(&reach) {
            Some(mut c) => checked = attempt(&mut c, ANALYSIS, &mut failures),
            None => failures.push(format!(
                "{ANALYSIS}: no states over the model (recursion deeper than the inlining bound, or no model)"
            )),
        }
    }
    if checked.is_none() {
        if let Some(mut c) = (provers.from_induction)(&reach) {
            checked = attempt(&mut c, INDUCTION, &mut failures);
        }
    }
    if checked.is_none() {
        match (provers.horn_run)(&reach) {
            Some(mut c) => checked = attempt(&mut c, HORN, &mut failures),
            None => failures.push(format!("{HORN}: no solution in the time left")),
        }
    }
    if checked.is_none() {
        match (provers.model_check)(&reach) {
            Some(mut c) => checked = attempt(&mut c, PREDICATES, &mut failures),
            None => failures.push(format!("{PREDICATES}: no complete proof in the time left")),
        }
    }
    if checked.is_none() && heads.is_empty() && reach.iter().all(|g| complete_unwinding(&snap.goals[g.index()].verdict))
    {
        // No loop and a proof that unwound every execution: nothing to
        // state and nothing to take on trust.
        checked = Some(Checked { entries: Vec::new(), checks: Vec::new(), queries: 0, method: UNWINDING });
    }
    let Some(checked) = checked else {
        return not_written(failures.join("; "));
    };
    let tests_checked = match check_on_tests(program, &checked.checks, snap, deadline) {
        Ok(n) => n,
        Err(why) => return not_written(why),
    };
    if tests_checked < snap.tests.len() {
        return not_written(format!(
            "out of time: {} of the {} tests were replayed with the invariants checked",
            tests_checked,
            snap.tests.len()
        ));
    }
    let hash = match std::fs::read(program_file) {
        Ok(bytes) => walkdown_formats::batch::sha256_hex(&bytes),
        Err(e) => return not_written(format!("cannot read {}: {e}", program_file.display())),
    };
    let task = WitnessTask {
        input_file: program_file.display().to_string(),
        input_file_sha256: hash,
        data_model: program.data_model,
        producer: ("walkdown".into(), producer_version.into()),
        creation_time: walkdown_formats::metadata::utc_timestamp(std::time::SystemTime::now()),
        error_function: if program.func_by_name("reach_error").is_none()
            && program.func_by_name("__VERIFIER_error").is_some()
        {
            "__VERIFIER_error".into()
        } else {
            "reach_error".into()
        },
    };
    let path = out.join(WITNESS_FILE);
    if let Err(e) = write_correctness_witness(&path, &task, &checked.entries) {
        return not_written(format!("cannot write {}: {e}", path.display()));
    }
    Some(WitnessEntry {
        file: WITNESS_FILE.into(),
        status: "written".into(),
        reason: if heads.is_empty() {
            format!(
                "every reach_error goal ({}) is proved unreachable; the program has no loops, so the invariant set is empty ({})",
                reach.len(),
                if checked.method == UNWINDING {
                    format!("proved by {UNWINDING}")
                } else {
                    format!("the proof was checked with invariants from {}", checked.method)
                }
            )
        } else {
            format!(
                "every reach_error goal ({}) is proved unreachable; the invariants are from {}",
                reach.len(),
                checked.method
            )
        },
        loop_invariants: checked.entries.len(),
        tests_checked,
        inductiveness_queries: checked.queries,
    })
}

/// The certificate's invariants at the loop heads as C can state them,
/// checked for inductiveness (readable ones first: a graph's predicates
/// without the values it tracked, then with them).
fn state_invariants(
    certificate: &mut Certificate,
    method: &'static str,
    program: &Program,
    sources: &SourceInfo,
    heads: &[(walkdown_ir::FuncId, walkdown_ir::Block)],
    reach: &[GoalId],
    deadline: Instant,
) -> Result<Checked, String> {
    let name_of = |f: walkdown_ir::FuncId, head: walkdown_ir::Block, v: Value| -> Option<String> {
        let l = sources.loop_at(f, head)?;
        l.vars.iter().find(|sv| sv.value == Operand::Value(v)).map(|sv| sv.name.clone())
    };
    let keep = |f: walkdown_ir::FuncId, head: walkdown_ir::Block, v: Value| -> bool {
        let Some(body) = program.funcs[f].body.as_ref() else {
            return false;
        };
        let int = body.values.get(v).is_some_and(|d| matches!(d.ty, Type::I8 | Type::I16 | Type::I32 | Type::I64));
        int && name_of(f, head, v).is_some()
    };
    let mut last_failure = String::new();
    let mut queries = 0;
    // Only a graph tracks values apart from its predicates.
    let variants: &[bool] = if method == PREDICATES { &[false, true] } else { &[false] };
    for &with_values in variants {
        let invariants = certificate.head_invariants(heads, &keep, with_values);
        let report = certificate.check(&invariants, reach, deadline.saturating_duration_since(Instant::now()));
        queries += report.queries;
        if !report.valid {
            last_failure = format!("the invariants as C can state them are not inductive: {}", report.failure);
            continue;
        }
        let mut entries = Vec::new();
        let mut checks = Vec::new();
        for inv in &invariants {
            let Some(l) = sources.loop_at(inv.func, inv.head) else {
                continue;
            };
            let Some(value) = c_expression(&inv.formula, &|v| name_of(inv.func, inv.head, v)) else {
                return Err(format!("the invariant at line {} reads a value C cannot name (a bug)", l.keyword.line));
            };
            if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                eprintln!("witness: line {}: {value}", l.keyword.line);
            }
            entries.push(LoopInvariantEntry {
                line: l.keyword.line,
                column: l.keyword.col,
                function: program.funcs[inv.func].name.clone(),
                value,
            });
            checks.push(BlockInvariant {
                func: inv.func,
                block: inv.head,
                formula: inv.formula.clone(),
                loc: l.keyword,
            });
        }
        return Ok(Checked { entries, checks, queries, method });
    }
    Err(last_failure)
}

/// Replays every kept test on `program` with each invariant checked at its
/// head; returns how many were replayed, or which test breaks which
/// invariant (a bug: the proof would be wrong).
fn check_on_tests(
    program: &Program,
    invariants: &[BlockInvariant],
    snap: &Snapshot,
    deadline: Instant,
) -> Result<usize, String> {
    let (instrumented, check_insts) = instrument_checks(program, invariants);
    if let Err(e) = walkdown_ir::verify::verify_program(&instrumented) {
        return Err(format!("the invariants do not make a well-formed check (a bug): {e}"));
    }
    let goals = Goals::compute(&instrumented);
    let interp = Interpreter::new(&instrumented, &goals).map_err(|e| format!("cannot replay the tests: {e}"))?;
    let mut replayed = 0;
    let mut options = RunOptions::default();
    options.limits.deadline = Some(deadline);
    for t in &snap.tests {
        if Instant::now() >= deadline {
            break;
        }
        let r = interp.run(&t.vector, &options);
        if let Outcome::Error { kind: CheckKind::Assertion, inst, .. } = r.outcome {
            if let Some(k) = check_insts.iter().position(|c| *c == Some(inst)) {
                return Err(format!(
                    "test {} breaks the invariant at line {} (a bug in the model checker's proof; please report it)",
                    t.index + 1,
                    invariants[k].loc.line
                ));
            }
        }
        replayed += 1;
    }
    Ok(replayed)
}
