//! What the corpus soundness tests of the model checker, the Horn engine
//! and the explicit-state engine share: which goals an engine claimed
//! unreachable, the check of those claims against the engine's own tests
//! and seeded random input vectors run in the interpreter (1,000,000 steps
//! per run, 1.5 s per program; `WALKDOWN_SOUNDNESS_BUDGET_S` raises that),
//! and the test body over the corpus. Each test keeps how it runs its
//! engine and what it prints per program.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;
use walkdown_campaign::{Snapshot, Verdict};
use walkdown_interp::{Interpreter, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::Program;
use walkdown_testsupport::CorpusProgram;

/// The line a test prints for one program: its goals, what was covered
/// and claimed, the engine's time, the random vectors run, and how the
/// engine ended.
pub fn summary(
    name: &str,
    goals: &Goals,
    snap: &Snapshot,
    claimed: usize,
    took: Duration,
    runs: usize,
    end: &str,
) -> String {
    format!(
        "{name:<50} goals {:>4} covered {:>4} unreachable {claimed:>4} {took:>7.2?} vectors {runs}  {end}",
        goals.len(),
        snap.count("covered"),
    )
}

/// The goals `engine` proved unreachable in `snap`.
pub fn claimed(goals: &Goals, snap: &Snapshot, engine: &str) -> BTreeSet<GoalId> {
    goals
        .goals
        .keys()
        .filter(|g| matches!(&snap.goals[g.index()].verdict, Verdict::Unreachable(p) if p.engine == engine))
        .collect()
}

/// Every kept test of `snap` replays to the goals recorded, and no random
/// vector covers a goal of `claimed`: what fails, and how many vectors ran.
pub fn check_claims(
    name: &str,
    ir: &Program,
    goals: &Goals,
    snap: &Snapshot,
    claimed: &BTreeSet<GoalId>,
    engine: &str,
) -> (Vec<String>, usize) {
    let interp = Interpreter::new(ir, goals).expect("interpretable");
    let mut found = Vec::new();
    for t in &snap.tests {
        if interp.run(&t.vector, &RunOptions::default()).covered != t.covered {
            found.push(format!("{name}: test {} replays to other goals", t.index));
        }
    }
    let (covered, runs) = walkdown_testsupport::random_runs_covering(&interp, name, claimed);
    for g in covered {
        found.push(format!(
            "{name}: goal {g} ({}) claimed unreachable by {engine} but covered by a run",
            goals.describe(g)
        ));
    }
    (found, runs)
}

/// The test over the corpus: `check` per program (a line to print, the
/// failures pushed), then the total of claims (the number after
/// `unreachable` in each line) and no failure.
pub fn over_corpus(test: &str, engine: &str, check: impl Fn(&CorpusProgram, &Mutex<Vec<String>>) -> String + Sync) {
    let Some(corpus) = walkdown_testsupport::corpus(test) else {
        return;
    };
    let failures = Mutex::new(Vec::new());
    let lines = walkdown_testsupport::map_corpus(&corpus, |prog| check(prog, &failures));
    for l in &lines {
        eprintln!("{l}");
    }
    let claims: usize = lines
        .iter()
        .filter_map(|l| l.split("unreachable").nth(1))
        .filter_map(|r| r.split_whitespace().next()?.parse::<usize>().ok())
        .sum();
    eprintln!("total: {claims} goals claimed unreachable by {engine}");
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
