//! `walkdown analyze`: the interval analysis's invariants at loop heads,
//! the branch outcomes it proves unreachable (with source locations), the
//! relational analysis's equalities and octagonal inequalities over loop
//! counters and inputs, and what it proves unreachable beyond intervals.

use super::{load, ProgramArgs};
use anyhow::Result;
use walkdown_driver::annotations::{self, AnnotationSource};

/// Runs the command.
pub fn analyze(
    args: &ProgramArgs,
    sources: &[super::annotations::SourceArg],
    eva: &walkdown_native::eva::EvaSettings,
) -> Result<i32> {
    if sources.iter().any(|s| matches!(s, super::annotations::SourceArg::Eva)) && !args.input().is_one_file() {
        anyhow::bail!("--annotations eva takes one C file (Frama-C runs on the program file alone)");
    }
    let program = load(args)?;
    let goals = walkdown_unit::lazy::goals(&program);
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
    if !sources.is_empty() {
        // The error sites the static pass of `gen` proves: intervals
        // (unreachable blocks, checks that always hold).
        let mut proved: Vec<_> = analysis.safe_error_sites(&goals).into_iter().map(|(g, _)| g).collect();
        proved.extend(dead.iter().copied());
        let mut figures = std::collections::BTreeMap::new();
        let sources: Vec<AnnotationSource> = sources.iter().map(|s| s.source()).collect();
        let read = annotations::read(
            &program,
            &args.input().name(),
            &goals,
            &sources,
            &proved,
            annotations::SELF_NO_OVERFLOW_LIMIT,
            eva,
            &mut figures,
        )?;
        if let Some(w) = &read.warning {
            eprintln!("{w}");
        }
        let a = read.annotations;
        for (k, v) in &figures {
            println!("  {k}: {v}");
        }
        println!(
            "verification annotations ({}): {} assumption ids{}",
            sources.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
            a.assumptions.len(),
            if a.assumptions.is_empty() {
                String::new()
            } else {
                format!(" ({})", a.assumptions.iter().map(|x| x.name.as_str()).collect::<Vec<_>>().join(", "))
            }
        );
        for (g, s) in &a.checks {
            let by = if s.sources.is_empty() {
                String::new()
            } else {
                format!(" [{}]", s.sources.iter().map(|x| x.name()).collect::<Vec<_>>().join(", "))
            };
            println!(
                "  {g}\t{}\t{}\t{}\tpremise {}{by}",
                goals.describe(*g),
                program.describe_loc(goals.goals[*g].loc),
                annotations::status_words(&s.premise),
                a.premise_text(*g)
            );
        }
    }
    Ok(0)
}
