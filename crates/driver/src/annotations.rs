//! `--annotations`: the verification annotations of a program (from its
//! source and from walkdown's own proofs), their status per error goal as
//! `report.json` and `walkdown analyze` show it, and the instrumented
//! program the concolic engine runs under `--verification`.

use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::Path;
use walkdown_annot::{Annotations, Config, Premise, Source};
use walkdown_formats::report::{AnnotationsEntry, CheckAnnotation};
use walkdown_ir::goals::{GoalId, GoalKind, Goals};
use walkdown_ir::Program;

/// A source of verification results (`--annotations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnnotationSource {
    /// `__VERIFIER_assumed` / `__VERIFIER_assert_verified` in the program.
    Source,
    /// walkdown's static proofs: an error site it proves unreachable is
    /// verified without condition; one its interval analysis proves only
    /// when assuming that no add/sub/mul overflows is verified under the
    /// assumption `no_overflow` (tracked at the instructions it needed).
    SelfProof,
    /// Frama-C's EVA (Debian frama-c-base): a check it raises no alarm for
    /// is verified, under the signed overflows it assumed away elsewhere.
    Eva,
}

impl AnnotationSource {
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            AnnotationSource::Source => "source",
            AnnotationSource::SelfProof => "self",
            AnnotationSource::Eva => "eva",
        }
    }
}

/// The annotations read, and a warning when a source gave nothing (EVA
/// refused the program or ran out of time).
pub struct Read {
    /// The annotations.
    pub annotations: Annotations,
    /// The warning, a whole line.
    pub warning: Option<String>,
}

/// The annotations of `program` (read from `file`) from `sources`;
/// `proved` are the error goals walkdown's static pass proved unreachable
/// (for `self`; its no-overflow pass may take at most `self_limit`, and
/// [`SELF_NO_OVERFLOW_LIMIT`] in any case). EVA's figures, when it ran, go
/// to `eva`.
#[allow(clippy::too_many_arguments)]
pub fn read(
    program: &Program,
    file: &Path,
    goals: &Goals,
    sources: &[AnnotationSource],
    proved: &[GoalId],
    self_limit: std::time::Duration,
    eva_settings: &walkdown_native::eva::EvaSettings,
    eva: &mut BTreeMap<String, String>,
) -> Result<Read> {
    let mut a = Annotations::unverified(goals);
    let mut warning = None;
    for s in sources {
        match s {
            AnnotationSource::Source => {
                if let Err(e) = a.read_source(program, goals) {
                    bail!("{e}");
                }
            }
            AnnotationSource::SelfProof => {
                for &g in proved {
                    if matches!(goals.goals[g].kind, GoalKind::Error { .. }) {
                        a.verify(g, Premise::True, Source::SelfProof);
                    }
                }
                read_self_no_overflow(&mut a, program, goals, proved, self_limit.min(SELF_NO_OVERFLOW_LIMIT), eva);
            }
            AnnotationSource::Eva => warning = read_eva(&mut a, program, file, goals, eva_settings, eva)?,
        }
    }
    Ok(Read { annotations: a, warning })
}

/// The most time the no-overflow interval pass may take.
pub const SELF_NO_OVERFLOW_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The paper's unsound analyzer, from walkdown's own interval analysis: run
/// again assuming that no `add`, `sub` or `mul` overflows, the checks it
/// proves besides the sound proofs are verified under the assumption
/// `no_overflow`, made at each instruction where it cut an overflow (the
/// instrumentation tracks it there, so a run that overflows is unverified).
fn read_self_no_overflow(
    a: &mut Annotations,
    program: &Program,
    goals: &Goals,
    proved: &[GoalId],
    limit: std::time::Duration,
    figures: &mut BTreeMap<String, String>,
) {
    let start = std::time::Instant::now();
    // A cut analysis proves nothing.
    let deadline = start + limit;
    let opts = walkdown_absint::fixpoint::FixpointOptions {
        no_signed_overflow: true,
        deadline: Some(deadline),
        ..Default::default()
    };
    let analysis = walkdown_absint::analyze_with(program, opts);
    if !analysis.complete {
        figures.insert(
            "self_no_overflow_reason".into(),
            format!("the no-overflow interval pass did not end within {:.1} s: not used", limit.as_secs_f64()),
        );
        return;
    }
    let sites = analysis.no_overflow_sites();
    let new: Vec<GoalId> =
        analysis.safe_error_sites(goals).into_iter().map(|(g, _)| g).filter(|g| !proved.contains(g)).collect();
    figures.insert("self_no_overflow_time_s".into(), format!("{:.3}", start.elapsed().as_secs_f64()));
    figures.insert("self_no_overflow_sites".into(), sites.len().to_string());
    figures.insert("self_no_overflow_checks".into(), new.len().to_string());
    if new.is_empty() {
        return;
    }
    let premise = if sites.is_empty() {
        Premise::True
    } else {
        Premise::Id(assume_no_overflow_at(a, "no_overflow", program, &sites))
    };
    for g in new {
        a.verify(g, premise.clone(), Source::SelfProof);
    }
}

/// Alarm kinds whose violation ends an execution in walkdown's semantics
/// (an error goal of its own), so that EVA assuming them away afterwards
/// changes no execution that goes on.
const ENDING_ALARMS: &[&str] = &["mem_access", "division_by_zero", "dangling_pointer", "freeable", "function_pointer"];

/// Functions whose default specification (assigns nothing, may return)
/// only adds behaviours: they never return, or they are the error itself.
const EVA_SAFE_DEFAULT_SPECS: &[&str] =
    &["abort", "exit", "_exit", "__assert_fail", "reach_error", "__VERIFIER_error", "__VERIFIER_assume"];

/// Properties of the report that are no alarms (specifications of
/// functions without body, the assertions at error calls).
const NOT_ALARMS: &[&str] = &[
    "assigns clause",
    "from clause",
    "user assertion",
    "terminates clause",
    "exits clause",
    "complete behaviors",
    "disjoint behaviors",
];

/// Adds EVA's results: a check is verified when EVA raises no alarm at it
/// (for `reach_error`: the `assert \false` before the call is dead or
/// valid), under the premise `eva` when EVA assumed signed overflows away
/// elsewhere (tracked at each such instruction); nothing is used when EVA
/// did not finish, or assumed something walkdown cannot track (then the
/// warning that says so).
fn read_eva(
    a: &mut Annotations,
    program: &Program,
    file: &Path,
    goals: &Goals,
    settings: &walkdown_native::eva::EvaSettings,
    figures: &mut BTreeMap<String, String>,
) -> Result<Option<String>> {
    use walkdown_ir::goals::ErrorSite;
    use walkdown_ir::CheckKind;
    let undefined: Vec<String> = program.funcs.values().filter(|f| f.body.is_none()).map(|f| f.name.clone()).collect();
    let run = match walkdown_native::eva::run_eva(file, program.data_model, &undefined, settings) {
        Ok(run) => run,
        Err(e @ walkdown_native::eva::EvaError::Missing(_)) => bail!("--annotations eva: {e}"),
        Err(e) => {
            // EVA refusing a program (recursion, say) or running out of
            // time leaves the other sources and the search as they are.
            let why = e.to_string();
            let first = why.lines().next().unwrap_or("").to_string();
            figures.insert("eva_reason".into(), format!("{first}: its results are not used"));
            return Ok(Some(format!("walkdown: warning: --annotations eva: {first}; EVA's results are not used")));
        }
    };
    figures.insert("eva_time_s".into(), format!("{:.2}", run.elapsed.as_secs_f64()));
    let props: Vec<_> = walkdown_formats::eva::read_eva_report(&run.csv)
        .map_err(|e| anyhow::anyhow!("--annotations eva: the report: {e}"))?
        .into_iter()
        .filter(|p| p.file == run.file_name)
        .collect();
    figures.insert("eva_properties".into(), props.len().to_string());
    if !run.complete {
        figures.insert(
            "eva_reason".into(),
            format!(
                "EVA did not finish the analysis of main: its results are not used ({})",
                run.log_tail.lines().last().unwrap_or("")
            ),
        );
        return Ok(None);
    }
    // A function EVA runs on a specification it made up from the prototype
    // (or whose builtin it could not use) may return what no execution
    // returns: a pointer result becomes invalid and every path through it
    // dead. Only functions whose any result is sound are allowed.
    let mut unmodelled: Vec<String> = run
        .generated_specs
        .iter()
        .filter(|n| !n.starts_with("__VERIFIER_nondet_") && !EVA_SAFE_DEFAULT_SPECS.contains(&n.as_str()))
        .filter(|n| !walkdown_native::eva::EVA_AUTO_BUILTINS.contains(&n.as_str()))
        .chain(run.builtins_not_used.iter())
        .cloned()
        .collect();
    unmodelled.sort();
    unmodelled.dedup();
    // Past a call of such a function nothing EVA says holds: reaching the
    // call breaks the assumption `eva`. A function whose address is taken
    // may be called where no call names it: then nothing is used.
    let mut unstated: Vec<(walkdown_ir::FuncId, walkdown_ir::Inst)> = Vec::new();
    if !unmodelled.is_empty() {
        match calls_of(program, &unmodelled) {
            Some(calls) => unstated.extend(calls),
            None => {
                figures.insert(
                    "eva_reason".into(),
                    format!(
                        "EVA has no model of {}{}, whose address is taken: its results are not used",
                        unmodelled[..unmodelled.len().min(4)].join(", "),
                        if unmodelled.len() > 4 { ", …" } else { "" }
                    ),
                );
                return Ok(None);
            }
        }
        figures.insert("eva_unmodelled".into(), unmodelled.join(", "));
    }
    let alarms: Vec<_> = props.iter().filter(|p| !p.proved() && !NOT_ALARMS.contains(&p.kind.as_str())).collect();
    figures.insert("eva_alarms".into(), alarms.len().to_string());
    // Signed overflows EVA assumed away are tracked as the assumption `eva`
    // at each add, sub and mul of their line. Alarms whose violation ends
    // the execution need nothing. Any other alarm (an uninitialized read,
    // an index out of a sub-array's bounds) states a property walkdown
    // cannot: reaching its line breaks `eva`, from the line's first
    // instruction in each block on (or from the function's entry).
    let mut tracked = Vec::new();
    let mut untracked = Vec::new();
    for al in &alarms {
        if ENDING_ALARMS.contains(&al.kind.as_str()) {
            continue;
        }
        if al.kind == "signed_overflow" {
            let sites = arithmetic_at(program, &al.function, al.line);
            if !sites.is_empty() || overflow_check_at(program, &al.function, al.line) {
                for s in sites {
                    // Two alarms on one line name the same instructions.
                    if !tracked.contains(&s) {
                        tracked.push(s);
                    }
                }
                continue;
            }
        }
        let Some(sites) = alarm_sites(program, &al.function, al.line) else {
            untracked.push(format!("{} at line {}", al.kind, al.line));
            continue;
        };
        for s in sites {
            if !unstated.contains(&s) {
                unstated.push(s);
            }
        }
    }
    if !untracked.is_empty() {
        figures.insert(
            "eva_reason".into(),
            format!(
                "EVA assumed what walkdown does not track ({}{}): its results are not used",
                untracked[..untracked.len().min(3)].join(", "),
                if untracked.len() > 3 { ", …" } else { "" }
            ),
        );
        return Ok(None);
    }
    let premise = if tracked.is_empty() && unstated.is_empty() {
        Premise::True
    } else {
        let id = assume_no_overflow_at(a, "eva", program, &tracked);
        for &(func, inst) in &unstated {
            let loc = program.funcs[func].body.as_ref().expect("sites are in defined functions").insts[inst].loc;
            a.assumptions[id.0 as usize].sites.push(walkdown_annot::AssumedSite {
                func,
                inst,
                cond: walkdown_annot::AssumedCond::Unstated,
                loc,
            });
        }
        Premise::Id(id)
    };
    figures.insert("eva_tracked_overflows".into(), tracked.len().to_string());
    figures.insert("eva_unstated_sites".into(), unstated.len().to_string());
    let unproved_at = |line: u32, kinds: &[&str]| {
        props.iter().any(|p| p.line == line && kinds.contains(&p.kind.as_str()) && !p.proved())
    };
    let asserts_proved = |line: u32| {
        let at: Vec<_> = props.iter().filter(|p| p.line == line && p.kind == "user assertion").collect();
        !at.is_empty() && at.iter().all(|p| p.proved())
    };
    let mut verified = 0;
    for (g, goal) in goals.goals.iter() {
        let GoalKind::Error { func, site, .. } = goal.kind else {
            continue;
        };
        let line = goal.loc.line;
        let ok = match site {
            ErrorSite::Check(CheckKind::ReachError | CheckKind::Assertion) => {
                if walkdown_annot::collect::is_error_function(&program.funcs[func].name) {
                    !run.error_calls.is_empty() && run.error_calls.iter().all(|&l| asserts_proved(l))
                } else {
                    run.error_calls.contains(&line) && asserts_proved(line)
                }
            }
            ErrorSite::Check(CheckKind::DivByZero) => !unproved_at(line, &["division_by_zero"]),
            ErrorSite::Check(CheckKind::Overflow) => !unproved_at(line, &["signed_overflow"]),
            ErrorSite::Memory => {
                !unproved_at(line, &["mem_access", "index_bound", "pointer_value", "dangling_pointer"])
            }
            ErrorSite::Free => !unproved_at(line, &["freeable", "dangling_pointer"]),
            _ => false,
        };
        if ok && line > 0 {
            a.verify(g, premise.clone(), Source::Eva);
            verified += 1;
        }
    }
    figures.insert("eva_verified_checks".into(), verified.to_string());
    Ok(None)
}

/// The integer `add`, `sub` and `mul` instructions of `function` at `line`.
fn arithmetic_at(program: &Program, function: &str, line: u32) -> Vec<(walkdown_ir::FuncId, walkdown_ir::Inst)> {
    let Some(fid) = program.func_by_name(function) else {
        return Vec::new();
    };
    let Some(body) = &program.funcs[fid].body else {
        return Vec::new();
    };
    body.blocks
        .values()
        .flat_map(|b| b.insts.iter().copied())
        .filter(|&i| body.insts[i].loc.line == line && no_overflow_cond(&body.insts[i].kind).is_some())
        .map(|i| (fid, i))
        .collect()
}

/// Where an execution that reaches source line `line` of `function` has
/// passed first: in each block, the first instruction of the line; for a
/// line left without instructions (a read of an uninitialized local that
/// lowering folded away), the function's first instruction; for a
/// function without any, each call of it (`None` when its address is
/// taken, or no site is found).
fn alarm_sites(program: &Program, function: &str, line: u32) -> Option<Vec<(walkdown_ir::FuncId, walkdown_ir::Inst)>> {
    let fid = program.func_by_name(function)?;
    let body = program.funcs[fid].body.as_ref()?;
    let at_line: Vec<_> = body
        .blocks
        .values()
        .filter_map(|b| b.insts.iter().copied().find(|&i| line > 0 && body.insts[i].loc.line == line))
        .map(|i| (fid, i))
        .collect();
    if !at_line.is_empty() {
        return Some(at_line);
    }
    if let Some(&first) = body.blocks[walkdown_ir::Body::ENTRY].insts.first() {
        return Some(vec![(fid, first)]);
    }
    calls_of(program, &[function.to_string()])
}

/// Every call of the functions named `names`; `None` when one of them is
/// also used as a value (its address taken), so calls through pointers may
/// reach it.
fn calls_of(program: &Program, names: &[String]) -> Option<Vec<(walkdown_ir::FuncId, walkdown_ir::Inst)>> {
    use walkdown_ir::{Callee, InstKind, Operand, Terminator};
    let targets: Vec<walkdown_ir::FuncId> = names.iter().filter_map(|n| program.func_by_name(n)).collect();
    if targets.is_empty() {
        return Some(Vec::new());
    }
    let taken = |op: &Operand| matches!(op, Operand::Func(f) if targets.contains(f));
    let mut calls = Vec::new();
    for (fid, f) in program.funcs.iter() {
        let Some(body) = &f.body else { continue };
        let mut address_taken = false;
        for (i, d) in body.insts.iter() {
            if let InstKind::Call { callee: Callee::Direct(t), .. } = &d.kind {
                if targets.contains(t) {
                    calls.push((fid, i));
                }
            }
            d.kind.for_each_operand(|op| address_taken |= taken(op));
        }
        for b in body.blocks.values() {
            match &b.term {
                Terminator::Branch { cond: op, .. }
                | Terminator::Switch { value: op, .. }
                | Terminator::Return(Some(op)) => address_taken |= taken(op),
                _ => {}
            }
            for c in b.term.successors() {
                address_taken |= c.args.iter().any(taken);
            }
        }
        if address_taken {
            return None;
        }
    }
    if program
        .globals
        .values()
        .any(|g| g.relocs.iter().any(|r| matches!(r.target, walkdown_ir::RelocTarget::Func(f) if targets.contains(&f))))
    {
        return None;
    }
    Some(calls)
}

/// The assumption that an integer `add`, `sub` or `mul` does not overflow.
fn no_overflow_cond(kind: &walkdown_ir::InstKind) -> Option<walkdown_annot::AssumedCond> {
    use walkdown_ir::{BinOp, InstKind};
    match *kind {
        InstKind::Bin { op: op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), ty, lhs, rhs }
            if ty.is_int() && ty != walkdown_ir::Type::I1 =>
        {
            Some(walkdown_annot::AssumedCond::NoSignedOverflow { op, ty, lhs, rhs })
        }
        _ => None,
    }
}

/// Makes the assumption `name` at each of `sites` (arithmetic that must
/// not overflow); its id.
fn assume_no_overflow_at(
    a: &mut Annotations,
    name: &str,
    program: &Program,
    sites: &[(walkdown_ir::FuncId, walkdown_ir::Inst)],
) -> walkdown_annot::AssumptionId {
    let id = a.intern(name);
    for &(func, inst) in sites {
        let data = &program.funcs[func].body.as_ref().expect("sites are in defined functions").insts[inst];
        if let Some(cond) = no_overflow_cond(&data.kind) {
            a.assumptions[id.0 as usize].sites.push(walkdown_annot::AssumedSite { func, inst, cond, loc: data.loc });
        }
    }
    id
}

/// Whether `function` has a signed-division overflow check at `line`
/// (`MIN / -1`, which ends the execution as an error).
fn overflow_check_at(program: &Program, function: &str, line: u32) -> bool {
    use walkdown_ir::{CheckKind, InstKind};
    let Some(fid) = program.func_by_name(function) else {
        return false;
    };
    let Some(body) = &program.funcs[fid].body else {
        return false;
    };
    body.insts
        .values()
        .any(|d| d.loc.line == line && matches!(d.kind, InstKind::Check { kind: CheckKind::Overflow, .. }))
}

/// A goal's status in words.
pub fn status_words(p: &Premise) -> &'static str {
    match p {
        Premise::True => "verified",
        Premise::False => "unverified",
        _ => "verified under a premise",
    }
}

/// The report's entry.
pub fn entry(
    program: &Program,
    goals: &Goals,
    a: &Annotations,
    sources: &[AnnotationSource],
    config: Config,
    instrumentation: std::collections::BTreeMap<String, String>,
) -> AnnotationsEntry {
    AnnotationsEntry {
        sources: sources.iter().map(|s| s.name().into()).collect(),
        configuration: config.name().into(),
        assumptions: a.assumptions.iter().map(|x| x.name.clone()).collect(),
        checks: a
            .checks
            .iter()
            .map(|(g, s)| CheckAnnotation {
                goal: g.to_string(),
                kind: goals.describe(*g),
                location: program.describe_loc(goals.goals[*g].loc),
                status: status_words(&s.premise).into(),
                premise: a.premise_text(*g),
                sources: s.sources.iter().map(|x| x.name().into()).collect(),
            })
            .collect(),
        instrumentation,
    }
}
