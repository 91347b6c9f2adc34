//! `walkdown check`: `gen`, then every possible runtime error of the
//! program (or, with `--entry`, of one function) settled one by one from
//! the run's outcome in memory (`walkdown_driver::check`), and printed.

use super::gen::GenArgs;
use anyhow::Result;

/// Runs the command: exit code 1 when something is confirmed.
pub fn check(args: &GenArgs) -> Result<i32> {
    let (mut outcome, code) = super::gen::run_and_print(args)?;
    if code == 3 {
        eprintln!("walkdown: check: a proof conflict (see above); verdicts below may be wrong");
    }
    let entries = walkdown_driver::check::settle(&outcome);
    let count = |v: &str| entries.iter().filter(|e| e.verdict == v).count();
    let excluded = match count("excluded") {
        0 => String::new(),
        n => format!(", {n} excluded by the API's contract"),
    };
    println!(
        "check: {} possible runtime errors: {} confirmed, {} refuted, {} unknown{excluded}",
        entries.len(),
        count("confirmed"),
        count("refuted"),
        count("unknown")
    );
    for e in &entries {
        println!(
            "{:<9} {} {} in {} ({}): {}",
            e.verdict.to_uppercase(),
            e.kind,
            e.location,
            e.function,
            e.goal,
            e.evidence
        );
    }
    let confirmed = count("confirmed") > 0;
    walkdown_driver::check::record(&mut outcome, entries)?;
    Ok(if confirmed { 1 } else { 0 })
}
