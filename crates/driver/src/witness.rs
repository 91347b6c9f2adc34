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

use std::collections::HashMap;
use walkdown_bmc::houdini::WitnessCheck;
use walkdown_campaign::{Snapshot, Verdict};
use walkdown_cegar::Certificate;
use walkdown_formats::report::WitnessEntry;
use walkdown_formats::witness::{c_expression, write_correctness_witness, LoopInvariantEntry, WitnessTask};
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::entity::EntityRef;

use walkdown_ir::formula::{instrument_checks, restate_equalities, BlockInvariant, Formula, LinearEquality};
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::source::SourceInfo;
use walkdown_ir::verify::Dominators;
use walkdown_ir::{CheckKind, FuncId, Loc, Operand, Program, Type, Value};

/// The witness file in the output directory.
pub const WITNESS_FILE: &str = "witness.yml";

/// Houdini over candidate invariants with these goals' error checks
/// (`None`: no time left).
pub type InductionCheck<'a> = dyn FnMut(&[BlockInvariant], &[GoalId]) -> Option<WitnessCheck> + 'a;

/// The ways to a certificate for the `reach_error` goals, tried in order.
pub struct Provers<'a> {
    /// The campaign's model checker's complete graph, if it has one.
    pub campaign_graph: Option<&'a mut Certificate>,
    /// The campaign's Horn engine's solution, if it proved something.
    pub campaign_horn: Option<&'a mut Certificate>,
    /// The explicit-state search's states at the loop heads, if it
    /// completed (candidates only: other blocks get no invariant).
    pub explicit_states: Option<&'a Certificate>,
    /// The abstract interpretation's states over the model.
    pub from_analysis: &'a mut dyn FnMut(&[GoalId]) -> Option<Certificate>,
    /// Those states with the equalities the bounded engine's induction
    /// step proved inductive (`None`: it kept none).
    pub from_induction: &'a mut dyn FnMut(&[GoalId]) -> Option<Certificate>,
    /// The bounded engine's induction step as the checker: which of these
    /// candidate invariants at loop heads are inductive (Houdini), and
    /// whether under them no `reach_error` check of these goals can fail
    /// within one iteration of every loop (`None`: no time left).
    pub induction_check: &'a mut InductionCheck<'a>,
    /// The loop equalities the bounded engine's induction step proved
    /// inductive (candidates again, restated over the C variables in scope
    /// at each head).
    pub equalities: &'a [LinearEquality],
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
const STEP: &str = "the induction step: Houdini over the candidate invariants of the analyses, the model \
                    checkers and the explicit-state search kept inductive ones, which exclude reach_error within \
                    one iteration of every loop";
/// The proof is a complete unwinding; the invariants the induction step
/// kept are stated, though they do not exclude the error on their own.
const UNWINDING_BOUNDS: &str = "complete unwinding";

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
    let mut campaign_graph = provers.campaign_graph.filter(covers);
    let mut campaign_horn = provers.campaign_horn.filter(covers);
    if let Some(c) = campaign_graph.as_deref_mut() {
        checked = attempt(c, PREDICATES, &mut failures);
    }
    if checked.is_none() {
        if let Some(c) = campaign_horn.as_deref_mut() {
            checked = attempt(c, HORN, &mut failures);
        }
    }
    let mut from_analysis = None;
    if checked.is_none() {
        from_analysis = (provers.from_analysis)(&reach);
        match from_analysis.as_mut() {
            Some(c) => checked = attempt(c, ANALYSIS, &mut failures),
            None => failures.push(format!(
                "{ANALYSIS}: no states over the model (recursion deeper than the inlining bound, or no model)"
            )),
        }
    }
    let mut from_induction = None;
    if checked.is_none() {
        from_induction = (provers.from_induction)(&reach);
        if let Some(c) = from_induction.as_mut() {
            checked = attempt(c, INDUCTION, &mut failures);
        }
    }
    if checked.is_none() && !heads.is_empty() {
        let certificates: Vec<&Certificate> = [
            campaign_graph.as_deref(),
            campaign_horn.as_deref(),
            provers.explicit_states,
            from_analysis.as_ref(),
            from_induction.as_ref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        let unwound = reach.iter().all(|g| complete_unwinding(&snap.goals[g.index()].verdict));
        let namer = Namer { program, sources };
        let candidates = head_candidates(&certificates, provers.equalities, &heads, &namer);
        match houdini_witness(&namer, &candidates, &reach, unwound, provers.induction_check) {
            Ok(c) => checked = Some(c),
            Err(why) => failures.push(format!("induction step: {why}")),
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
    let task = match witness_task(program_file, program, producer_version) {
        Ok(t) => t,
        Err(why) => return not_written(why),
    };
    let path = out.join(WITNESS_FILE);
    if let Err(e) = write_correctness_witness(&path, &task, &checked.entries) {
        return not_written(format!("cannot write {}: {e}", path.display()));
    }
    Some(WitnessEntry {
        file: WITNESS_FILE.into(),
        status: "written".into(),
        reason: reason(&checked, reach.len(), heads.is_empty()),
        loop_invariants: checked.entries.len(),
        tests_checked,
        inductiveness_queries: checked.queries,
    })
}

/// The task a witness names: the program's file, its hash, the producer.
fn witness_task(program_file: &Path, program: &Program, producer_version: &str) -> Result<WitnessTask, String> {
    let hash = match std::fs::read(program_file) {
        Ok(bytes) => walkdown_formats::batch::sha256_hex(&bytes),
        Err(e) => return Err(format!("cannot read {}: {e}", program_file.display())),
    };
    let old_style = program.func_by_name("reach_error").is_none() && program.func_by_name("__VERIFIER_error").is_some();
    Ok(WitnessTask {
        input_file: program_file.display().to_string(),
        input_file_sha256: hash,
        data_model: program.data_model,
        producer: ("walkdown".into(), producer_version.into()),
        creation_time: walkdown_formats::metadata::utc_timestamp(std::time::SystemTime::now()),
        error_function: if old_style { "__VERIFIER_error" } else { "reach_error" }.into(),
    })
}

/// The report's reason for a written witness: where its invariants come
/// from, for `goals` proved goals.
fn reason(checked: &Checked, goals: usize, loop_free: bool) -> String {
    if loop_free {
        let how = if checked.method == UNWINDING {
            format!("proved by {UNWINDING}")
        } else {
            format!("the proof was checked with invariants from {}", checked.method)
        };
        format!(
            "every reach_error goal ({goals}) is proved unreachable; the program has no loops, so the invariant set is empty ({how})"
        )
    } else if checked.method == UNWINDING_BOUNDS {
        format!(
            "every reach_error goal ({goals}) is proved unreachable by {UNWINDING}; the invariants are the \
             candidates the induction step kept inductive (Houdini): loop bounds and other facts a validator \
             may use, which do not exclude reach_error on their own"
        )
    } else {
        format!("every reach_error goal ({goals}) is proved unreachable; the invariants are from {}", checked.method)
    }
}

/// The candidates the induction step keeps (Houdini), when they exclude
/// every `reach_error` check or every such goal was proved by complete
/// unwinding (`unwound`); else why not.
fn houdini_witness(
    namer: &Namer<'_>,
    candidates: &[BlockInvariant],
    reach: &[GoalId],
    unwound: bool,
    check: &mut InductionCheck<'_>,
) -> Result<Checked, String> {
    if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
        for c in candidates {
            let l = namer.sources.loop_at(c.func, c.block).map_or(0, |l| l.keyword.line);
            let text = c_expression(&c.formula, &|v| namer.name_of(c.func, c.block, v));
            eprintln!("witness: candidate at line {l}: {}", text.unwrap_or_else(|| format!("{:?}", c.formula)));
        }
    }
    let Some(r) = check(candidates, reach) else {
        return Err("no time left".into());
    };
    if r.settled && (r.excluded || unwound) {
        let method = if r.excluded { STEP } else { UNWINDING_BOUNDS };
        let (entries, checks) = namer.entries(&r.kept)?;
        return Ok(Checked { entries, checks, queries: r.queries, method });
    }
    let why = match (&r.skipped, r.settled) {
        (Some(why), _) => format!("no step case ({why})"),
        (None, false) => "not settled in the time left".to_string(),
        (None, true) => "the kept ones do not exclude reach_error within one iteration".to_string(),
    };
    Err(format!("{} of {} candidate invariants kept, {why}", r.kept.len(), candidates.len()))
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
    let namer = Namer { program, sources };
    let keep = |f, head, v| namer.keep(f, head, v);
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
        let stated: Vec<BlockInvariant> = invariants.into_iter().map(at_head).collect();
        let (entries, checks) = namer.entries(&stated)?;
        return Ok(Checked { entries, checks, queries, method });
    }
    Err(last_failure)
}

/// A certificate's invariant at a loop head, as the invariant of that block.
fn at_head(inv: walkdown_cegar::HeadInvariant) -> BlockInvariant {
    BlockInvariant { func: inv.func, block: inv.head, formula: inv.formula, loc: Loc::UNKNOWN }
}

/// The C names of the values at the source loops' heads.
struct Namer<'a> {
    program: &'a Program,
    sources: &'a SourceInfo,
}

impl Namer<'_> {
    /// The C variable that holds `v` at the loop whose head is `head`.
    fn name_of(&self, f: FuncId, head: walkdown_ir::Block, v: Value) -> Option<String> {
        let l = self.sources.loop_at(f, head)?;
        l.vars.iter().find(|sv| sv.value == Operand::Value(v)).map(|sv| sv.name.clone())
    }

    /// Whether a witness may state a fact about `v` at `head`: an integer
    /// a C variable in scope there holds.
    fn keep(&self, f: FuncId, head: walkdown_ir::Block, v: Value) -> bool {
        let Some(body) = self.program.funcs[f].body.as_ref() else {
            return false;
        };
        let int = body.values.get(v).is_some_and(|d| matches!(d.ty, Type::I8 | Type::I16 | Type::I32 | Type::I64));
        int && self.name_of(f, head, v).is_some()
    }

    /// The invariants (conjoined per head) as witness entries, and as the
    /// checks the tests replay with.
    fn entries(&self, invariants: &[BlockInvariant]) -> Result<(Vec<LoopInvariantEntry>, Vec<BlockInvariant>), String> {
        let mut per_head: Vec<((FuncId, walkdown_ir::Block), Vec<Formula>)> = Vec::new();
        for inv in invariants {
            let key = (inv.func, inv.block);
            match per_head.iter_mut().find(|(k, _)| *k == key) {
                Some((_, fs)) => fs.push(inv.formula.clone()),
                None => per_head.push((key, vec![inv.formula.clone()])),
            }
        }
        let mut entries = Vec::new();
        let mut checks = Vec::new();
        for ((func, head), parts) in per_head {
            let Some(l) = self.sources.loop_at(func, head) else {
                continue;
            };
            let formula = Formula::and(parts);
            let Some(value) = c_expression(&formula, &|v| self.name_of(func, head, v)) else {
                return Err(format!("the invariant at line {} reads a value C cannot name (a bug)", l.keyword.line));
            };
            if std::env::var_os("WALKDOWN_WITNESS_DEBUG").is_some() {
                eprintln!("witness: line {}: {value}", l.keyword.line);
            }
            entries.push(LoopInvariantEntry {
                line: l.keyword.line,
                column: l.keyword.col,
                function: self.program.funcs[func].name.clone(),
                value,
            });
            checks.push(BlockInvariant { func, block: head, formula, loc: l.keyword });
        }
        Ok((entries, checks))
    }
}

/// Candidate invariants for the induction step's check: what each
/// certificate says at each loop head as C can state it, a per-block
/// analysis' conjunction split into its conjuncts (Houdini drops the ones
/// that are not inductive on their own), a graph's disjunction whole.
fn head_candidates(
    certificates: &[&Certificate],
    equalities: &[LinearEquality],
    heads: &[(FuncId, walkdown_ir::Block)],
    namer: &Namer<'_>,
) -> Vec<BlockInvariant> {
    let keep = |f, head, v| namer.keep(f, head, v);
    let mut out: Vec<BlockInvariant> = Vec::new();
    let mut push = |cand: BlockInvariant| {
        if cand.formula != Formula::Bool(true) && !out.contains(&cand) {
            out.push(cand);
        }
    };
    // An equality holds wherever its head dominates (its values are the
    // last visit's); restated over what C names at each head.
    let dm = namer.program.data_model;
    let mut dominators: HashMap<FuncId, Dominators> = HashMap::new();
    for &(func, head) in heads {
        let Some(body) = namer.program.funcs[func].body.as_ref() else { continue };
        let dom = dominators.entry(func).or_insert_with(|| Dominators::compute(body));
        let holding: Vec<LinearEquality> =
            equalities.iter().filter(|e| e.func == func && dom.dominates(e.block, head)).cloned().collect();
        for e in restate_equalities(&holding, dm, &|v| namer.keep(func, head, v)) {
            push(BlockInvariant { block: head, ..e.invariant(dm) });
        }
    }
    for c in certificates {
        let variants: &[bool] = if c.from_graph() { &[false, true] } else { &[false] };
        for &with_values in variants {
            for inv in c.head_invariants(heads, &keep, with_values) {
                let parts = match inv.formula {
                    Formula::And(parts) if !c.from_graph() => parts,
                    f => vec![f],
                };
                for formula in parts {
                    push(BlockInvariant { func: inv.func, block: inv.head, formula, loc: Loc::UNKNOWN });
                }
            }
        }
    }
    out
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
