//! Soundness of the explicit-state engine's claims on the benchmark
//! corpus: for every seed and public task under `../shared/bench`, the
//! engine runs alone for 10 s, and
//! - no goal it proves unreachable is covered by one of its own replayed
//!   tests (a proof conflict) or by any of up to 10,000 seeded random
//!   input vectors run in the interpreter (1,000,000 steps per run, 1.5 s
//!   per program; `WALKDOWN_SOUNDNESS_BUDGET_S` raises that);
//! - on a task whose `unreach-call` verdict is `false`, `reach_error` is
//!   never proved unreachable;
//! - every kept test replays to the goals recorded.
//!
//! Prints a line per program (how the search ended). Skips with a message
//! when `../shared` is absent (CI sets `WALKDOWN_REQUIRE_SHARED=1`, so it
//! fails there instead).

mod soundness;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use walkdown_cegar::{run_explicit, ExplicitSettings};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_ir::goals::{ErrorSite, GoalKind, Goals};
use walkdown_ir::CheckKind;

/// The `unreach-call` verdict of the task whose input file is `file`, from
/// the task definitions beside it (`None`: a seed, or no such property).
fn unreach_call_verdict(file: &Path) -> Option<bool> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let dir = std::fs::read_dir(file.parent()?).ok()?;
    for entry in dir.flatten() {
        let p = entry.path();
        if p.extension().is_none_or(|e| e != "yml") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let input = text.lines().find_map(|l| l.trim().strip_prefix("input_files:"));
        if input.map(|i| i.trim().trim_matches('\'').trim_matches('"')) != Some(name.as_str()) {
            continue;
        }
        let mut lines = text.lines().skip_while(|l| !l.contains("unreach-call.prp"));
        lines.next()?;
        let verdict = lines.next()?.trim().strip_prefix("expected_verdict:")?.trim().to_string();
        return Some(verdict == "true");
    }
    None
}

fn check_program(prog: &walkdown_testsupport::CorpusProgram, failures: &Mutex<Vec<String>>) -> String {
    let fs = FrontendSettings { data_model: prog.data_model, ..Default::default() };
    let Ok(ir) = compile_c(&prog.path, &fs) else {
        return format!("{:<50} skipped: frontend", prog.name);
    };
    let goals = Goals::compute(&ir);
    let t0 = Instant::now();
    let stop = AtomicBool::new(false);
    let (snap, engine) = match run_explicit(&ir, &goals, ExplicitSettings::default(), Duration::from_secs(10), &stop) {
        Ok(r) => r,
        Err(e) => return format!("{:<50} skipped: {e}", prog.name),
    };
    let took = t0.elapsed();
    let claimed = soundness::claimed(&goals, &snap, "explicit");
    let mut found = Vec::new();
    for c in &snap.conflicts {
        found.push(format!("{}: proof conflict on goal {} ({})", prog.name, c.goal, goals.describe(c.goal)));
    }
    if unreach_call_verdict(&prog.path) == Some(false) {
        for &g in &claimed {
            if matches!(goals.goals[g].kind, GoalKind::Error { site: ErrorSite::Check(CheckKind::ReachError), .. }) {
                found.push(format!("{}: reach_error proved unreachable on an unsafe task", prog.name));
            }
        }
    }
    let (more, runs) = soundness::check_claims(&prog.name, &ir, &goals, &snap, &claimed, "explicit");
    found.extend(more);
    failures.lock().unwrap().extend(found);
    soundness::summary(&prog.name, &goals, &snap, claimed.len(), took, runs, &engine.end)
}

#[test]
fn explicit_unreachable_claims_are_never_covered_on_the_corpus() {
    soundness::over_corpus("explicit_unreachable_claims_are_never_covered_on_the_corpus", "explicit", check_program);
}
