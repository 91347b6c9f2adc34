//! `walkdown analyze`: the interval analysis's invariants at loop heads,
//! the branch outcomes it proves unreachable (with source locations), the
//! relational analysis's equalities and octagonal inequalities over loop
//! counters and inputs, and what it proves unreachable beyond intervals.

use super::{load, ProgramArgs};
use anyhow::Result;
use walkdown_ir::goals::Goals;

/// Runs the command.
pub fn analyze(args: &ProgramArgs) -> Result<i32> {
    let program = load(args)?;
    let goals = Goals::compute(&program);
    let analysis = walkdown_absint::analyze(&program);
    print!("{}", analysis.report());
    let dead = analysis.dead_goals(&goals);
    println!(
        "{} of {} goals proved unreachable in {:.1} ms",
        dead.len(),
        goals.len(),
        analysis.elapsed.as_secs_f64() * 1e3
    );
    for &g in &dead {
        println!("  {g}\t{}\t{}", goals.describe(g), program.describe_loc(goals.goals[g].loc));
    }
    let relational = walkdown_absint::analyze_relational(&program);
    println!("relational invariants at loop heads (equalities; octagonal inequalities):");
    print!("{}", relational.report());
    let more: Vec<_> = relational
        .dead_edges()
        .into_iter()
        .filter_map(|(f, b, s)| goals.edge(f, b, s))
        .filter(|g| !dead.contains(g))
        .collect();
    println!(
        "{} more goals proved unreachable by the relational analysis in {:.1} ms",
        more.len(),
        relational.elapsed.as_secs_f64() * 1e3
    );
    for g in more {
        println!("  {g}\t{}\t{}", goals.describe(g), program.describe_loc(goals.goals[g].loc));
    }
    let facts = walkdown_absint::invariants_at_exits(&relational);
    println!("{} linear facts over program values (for the search):", facts.len());
    for f in &facts {
        println!("  {f}");
    }
    Ok(0)
}
