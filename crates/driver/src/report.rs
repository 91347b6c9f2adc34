//! `report.json` from a campaign snapshot: the one place that turns the
//! campaign's goal table, tests, errors, conflicts and engine figures into
//! the report's entries, for every engine.

use std::path::{Path, PathBuf};
use walkdown_campaign::{Property, Snapshot, StopCause, Verdict};
use walkdown_formats::report::{
    ConflictEntry, EngineFigures, ErrorEntry, GoalEntry, JumpEntry, Report, SolverEntry, TestEntry, TimelineEntry,
};
use walkdown_interp::Outcome;
use walkdown_ir::goals::{GoalKind, Goals};
use walkdown_ir::Program;

/// The suite's name for test number `index`.
pub fn test_file_name(index: usize) -> String {
    format!("test-{index:05}.xml")
}

/// How a run of the interpreter ended, in the words of `walkdown run` and
/// the report.
pub fn describe_outcome(program: &Program, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Exit(code) => format!("exit {code}"),
        Outcome::AssumeFailed => "assumption failed (the test is outside the program's admitted inputs)".into(),
        Outcome::Abort => "abort".into(),
        Outcome::Error { kind, func, loc, goal, .. } => {
            let goal = goal.map(|g| format!(" (goal {g})")).unwrap_or_default();
            format!("error {} at {} in `{}`{goal}", kind.name(), program.describe_loc(*loc), program.funcs[*func].name)
        }
        Outcome::StepLimit => "stopped at the step limit (--max-steps)".into(),
        Outcome::TimeLimit => "stopped at its deadline".into(),
        Outcome::DepthLimit => "stopped at the call-depth limit (--max-call-depth)".into(),
        Outcome::Unsupported { what, loc } => {
            format!("unsupported: {what} at {}", program.describe_loc(*loc))
        }
    }
}

/// The Test-Comp name of a property.
pub fn spec_name(p: Property) -> &'static str {
    match p {
        Property::CoverBranches => "coverage-branches",
        Property::CoverError => "coverage-error",
        Property::AllErrors => "errors",
    }
}

/// Why a campaign stopped, in the report's words.
pub fn stop_words(cause: Option<StopCause>) -> &'static str {
    match cause {
        None => "running",
        Some(StopCause::Time) => "budget",
        Some(StopCause::AllClosed) => "every goal settled",
        Some(StopCause::ErrorReached) => "error reached",
        Some(StopCause::Interrupted) => "interrupted",
        Some(StopCause::EnginesDone) => "every engine finished",
        Some(StopCause::MemoryBound) => "memory bound",
    }
}

/// The report's goals by verdict over time; with an environment a proof
/// counts as infeasible (within it), as the goals' entries say.
fn timeline(points: &[walkdown_campaign::TimelinePoint], environment: bool) -> Vec<TimelineEntry> {
    points
        .iter()
        .map(|p| {
            let c = p.counts;
            let (unreachable, infeasible) =
                if environment { (0, c.infeasible + c.unreachable) } else { (c.unreachable, c.infeasible) };
            TimelineEntry { at_s: p.at_s, covered: c.covered, unreachable, infeasible, open: c.open }
        })
        .collect()
}

/// Builds the report of `snap` with `status` (`running`, `finished`,
/// `interrupted`); what the campaign does not know (program, producer,
/// property, data model, engines, seed) comes from `header`.
pub fn make_report(header: &Report, program: &Program, goals: &Goals, snap: &Snapshot, status: &str) -> Report {
    let budget_over = walkdown_campaign::budget_ended(snap.stop);
    // With an environment, a proof holds for the environments within its
    // bounds only: the goal is infeasible within them, as a bounded
    // engine's goal is within its unwinding.
    let environment = program.environment.as_ref().map(|e| e.describe());
    let goal_entries: Vec<GoalEntry> = goals
        .goals
        .iter()
        .zip(&snap.goals)
        .map(|((id, g), state)| {
            let func = match g.kind {
                GoalKind::Edge { func, .. } | GoalKind::Error { func, .. } => func,
            };
            let mut status = state.verdict.word();
            let (proved_by, test) = match &state.verdict {
                Verdict::Covered { test } => (None, Some(test_file_name(*test))),
                Verdict::Unreachable(p) => match &environment {
                    Some(env) => {
                        status = "infeasible";
                        (Some(format!("{p}, within the environment ({env})")), None)
                    }
                    None => (Some(p.to_string()), None),
                },
                Verdict::Infeasible(b) => (Some(b.to_string()), None),
                Verdict::Open => (None, None),
            };
            let mut open_reasons = Vec::new();
            if !state.verdict.is_closed() {
                open_reasons = state.open_reasons.iter().map(|(e, r)| format!("{e}: {r}")).collect();
                if open_reasons.is_empty() {
                    open_reasons.push(if budget_over { "budget".into() } else { "not attempted".into() });
                }
            }
            GoalEntry {
                id: id.to_string(),
                kind: goals.describe(id),
                location: program.describe_loc(g.loc),
                function: program.funcs[func].name.clone(),
                status: status.into(),
                proved_by,
                open_reasons,
                test,
            }
        })
        .collect();
    Report {
        status: status.into(),
        stop_reason: if status == "running" { String::new() } else { stop_words(snap.stop).into() },
        elapsed_s: snap.elapsed.as_secs_f64(),
        goals_covered: snap.count("covered"),
        goals_unreachable: if environment.is_some() { 0 } else { snap.count("unreachable") },
        goals_infeasible: snap.count("infeasible") + if environment.is_some() { snap.count("unreachable") } else { 0 },
        environment,
        goals_open: snap.count("open"),
        goals_total: goals.len(),
        goals: goal_entries,
        errors: snap
            .errors
            .iter()
            .map(|(e, t)| {
                let native = snap.native(*t);
                ErrorEntry {
                    kind: e.kind.name().into(),
                    location: program.describe_loc(e.loc),
                    test: test_file_name(*t),
                    native: native.word().into(),
                    native_outcome: native.detail().into(),
                }
            })
            .collect(),
        tests: snap
            .tests
            .iter()
            .map(|t| TestEntry {
                file: test_file_name(t.index),
                new_goals: t.new_goals.iter().map(|g| g.to_string()).collect(),
                covers: t.covered.iter().map(|g| g.to_string()).collect(),
                outcome: describe_outcome(program, &t.outcome),
                found_at_s: t.at,
                engine: t.engine.into(),
                steps: t.steps as f64 + t.skipped_steps as f64,
                native_replay: native_replay(t.steps, t.skipped_steps),
                fast_forwards: t
                    .jumps
                    .iter()
                    .map(|j| JumpEntry {
                        loop_head: program.describe_loc(j.loc),
                        iterations: j.iterations.to_string(),
                        from: j.before.clone(),
                        to: j.after.clone(),
                    })
                    .collect(),
            })
            .collect(),
        proof_conflicts: snap
            .conflicts
            .iter()
            .map(|c| ConflictEntry {
                goal: c.goal.to_string(),
                proof: c.proof.to_string(),
                test: test_file_name(c.test),
            })
            .collect(),
        engines: snap
            .engines
            .iter()
            .map(|e| EngineFigures {
                name: e.name.into(),
                status: e.status.clone(),
                time_s: e.time.as_secs_f64(),
                figures: e.counters.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            })
            .collect(),
        unmodelled_functions: snap.unmodelled.clone(),
        errors_confirmed_natively: snap.confirmed_count,
        errors_refuted_natively: snap.refuted_count,
        errors_unconfirmed_natively: snap.unconfirmed_count,
        errors_unchecked_natively: snap.unchecked_count,
        memory: Some(memory_entry(&snap.memory)),
        refuted_tests: snap
            .refuted
            .iter()
            .map(|r| walkdown_formats::report::RefutedEntry {
                inputs: r.vector.values.iter().map(|v| walkdown_formats::format_value(*v)).collect(),
                kind: r.error.kind.name().into(),
                location: program.describe_loc(r.error.loc),
                native: r.native.clone(),
                unmodelled: r.unmodelled.clone(),
                engine: r.engine.into(),
            })
            .collect(),
        timeline: timeline(&snap.timeline, program.environment.is_some()),
        solvers: solvers(),
        ..header.clone()
    }
}

/// Each solver backend's figures so far (process-wide: one run is one
/// process).
fn solvers() -> Vec<SolverEntry> {
    walkdown_smt::tally::figures()
        .into_iter()
        .map(|f| SolverEntry {
            backend: f.backend.to_string(),
            version: f.version,
            queries: f.queries,
            sat: f.sat,
            unsat: f.unsat,
            timeouts: f.timeouts,
            unknown: f.unknown,
            time_s: f.time.as_secs_f64(),
            work: f.work,
        })
        .collect()
}

/// The memory bound's figures, in MB.
fn memory_entry(m: &walkdown_campaign::MemoryFigures) -> walkdown_formats::report::MemoryEntry {
    let mb = |b: u64| b as f64 / (1 << 20) as f64;
    walkdown_formats::report::MemoryEntry {
        bound_mb: m.bound.map(mb),
        peak_mb: mb(m.peak),
        dropped: m
            .dropped
            .iter()
            .map(|d| walkdown_formats::report::DroppedEntry {
                at_s: d.at,
                resident_mb: mb(d.resident),
                what: d.what.clone(),
            })
            .collect(),
    }
}

/// Writes `report`'s errors to `path` as SARIF: each names its test in
/// `suite` with its inputs and the `walkdown run` command that replays it.
pub fn write_errors_sarif(path: &Path, report: &Report, suite: &Path) -> anyhow::Result<()> {
    let program = shell_words(&report.program_words());
    let reproduce =
        |test: &Path| format!("walkdown run {program} --test {}", shell_word(&replay_file(test).display().to_string()));
    walkdown_formats::sarif::write_errors_sarif(path, report, suite, &reproduce)?;
    Ok(())
}

/// The HTML report's path in OUT.
pub const HTML_FILE: &str = "report/index.html";

/// Writes the HTML report of `report` to `path`: the program's files are
/// read where the report names them (its first file from `source`, when
/// given), the tests' inputs from `suite`. A file that cannot be read
/// gives a page without its source and a warning, handed to `warn`.
pub fn write_html_report(
    path: &Path,
    report: &Report,
    suite: &Path,
    source: Option<&Path>,
    warn: &mut dyn FnMut(String),
) -> anyhow::Result<()> {
    use walkdown_formats::html::{write_html, HtmlInput, SourceFile, TestDetails};
    let mut files = Vec::new();
    for (k, name) in report.source_files().into_iter().enumerate() {
        let path = match (k, source) {
            (0, Some(s)) => s.to_path_buf(),
            _ => PathBuf::from(&name),
        };
        let text = match std::fs::read(&path) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => {
                warn(format!(
                    "walkdown: warning: {}: cannot read the source for the HTML report ({e}); the page lists its goals without it",
                    path.display()
                ));
                None
            }
        };
        files.push(SourceFile { name, text });
    }
    let program = shell_words(&report.program_words());
    let dm = if report.data_model == "ILP32" { " --data-model ILP32" } else { "" };
    let tests = report
        .tests
        .iter()
        .map(|t| {
            let file = replay_file(&suite.join(&t.file));
            let inputs = test_inputs(&file);
            let reproduce = format!("walkdown run {program}{dm} --test {}", shell_word(&file.display().to_string()));
            (t.file.clone(), TestDetails { inputs, reproduce })
        })
        .collect();
    write_html(path, &HtmlInput { report, sources: &files, tests: &tests })?;
    Ok(())
}

/// The file a test of the suite (`xml`) is replayed from: for a program
/// with an environment, its test in walkdown's own format beside the
/// suite (`env-tests/NAME.json`, which holds the arguments, standard input
/// and files and which `run`, `replay` and `validate` read), else the XML.
fn replay_file(xml: &Path) -> PathBuf {
    let env_test = xml
        .parent()
        .and_then(Path::parent)
        .zip(xml.file_stem())
        .map(|(out, stem)| out.join(walkdown_formats::envtest::ENV_TESTS_DIR).join(stem).with_extension("json"));
    env_test.filter(|p| p.is_file()).unwrap_or_else(|| xml.to_path_buf())
}

/// A test's inputs as the HTML report lists them: the arguments, standard
/// input and files of an environment test, then the program's own values.
fn test_inputs(file: &Path) -> Option<Vec<String>> {
    if walkdown_formats::envtest::is_env_test_path(file) {
        let t = walkdown_formats::envtest::read_env_test(file).ok()?;
        let text = |b: &[u8]| format!("\"{}\"", b.escape_ascii());
        let mut out: Vec<String> =
            t.inputs.args.iter().enumerate().map(|(i, a)| format!("argv[{}] = {}", i + 1, text(a))).collect();
        if t.environment.stdin.is_some() {
            out.push(format!("stdin = {}", text(&t.inputs.stdin)));
        }
        out.extend(t.inputs.files.iter().map(|(name, data)| format!("file {name} = {}", text(data))));
        out.extend(t.values.iter().map(|v| walkdown_formats::format_value(*v)));
        return Some(out);
    }
    let case = walkdown_formats::read_testcase(file).ok()?;
    Some(case.vector.values.iter().map(|v| walkdown_formats::format_value(*v)).collect())
}

/// `words` quoted for a POSIX shell where they need it, joined by spaces.
pub fn shell_words(words: &[String]) -> String {
    words.iter().map(|w| shell_word(w)).collect::<Vec<_>>().join(" ")
}

/// `word` quoted for a POSIX shell where it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Writes the report of `snap` to `path` atomically.
pub fn write_report(
    path: &Path,
    header: &Report,
    program: &Program,
    goals: &Goals,
    snap: &Snapshot,
    status: &str,
) -> anyhow::Result<()> {
    walkdown_formats::report::write_report(path, &make_report(header, program, goals, snap, status))?;
    Ok(())
}

/// Steps a native run gets through in a day, generously (gcc -O0 code runs
/// about 10^9 IR-sized steps a second).
const NATIVE_STEPS_PER_DAY: f64 = 1e9 * 86_400.0;

/// Why a test whose replay executed `steps` steps and jumped over
/// `skipped` cannot be replayed natively, if its plain run would take more
/// than a day natively.
pub(crate) fn native_replay(steps: u64, skipped: u128) -> Option<String> {
    let total = steps as f64 + skipped as f64;
    if total <= NATIVE_STEPS_PER_DAY {
        return None;
    }
    let days = total / NATIVE_STEPS_PER_DAY;
    // The count of jumped-over steps saturates (nested loops of 2^32
    // iterations each go past 2^128).
    let at_least = if skipped == u128::MAX { "at least " } else { "" };
    Some(format!(
        "not replayable natively: its run is {at_least}{total:.3e} interpreter steps ({skipped:.3e} of them in loop iterations that \
         fast-forwarding jumped over), about {days:.1e} days natively at 10^9 steps a second; the interpreter's replay \
         (`walkdown run`) reaches its outcome in {steps} steps",
        skipped = skipped as f64
    ))
}
