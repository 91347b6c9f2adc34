//! The paper's experiment: 10 random programs for each size from 2 to 9
//! control-flow diamonds (`walkdown_bmc::randprog`), every block covered
//! by each of the four algorithms; prints per size and in total the solver
//! queries and solver time, as the paper's Table 1 and Figures 5 and 6.
//!
//! `cargo bench -p walkdown-bmc --bench cover_algorithms`
//! Environment: `BMC_BENCH_BUDGET` seconds per program and algorithm
//! (default 1; a cover that runs out is counted with the queries and time
//! it used, and marked), `BMC_BENCH_PROGRAMS` per size (default 10),
//! `BMC_BENCH_MAX_DIAMONDS` (default 9), `BMC_BENCH_ENCODING` (`wlp`, the
//! paper's backward `ok` variables, default; or `sp`, the forward reading),
//! `BMC_BENCH_INCREMENTAL` (0, default: a fresh solver per query; 1: one
//! incremental Z3 per cover).

use std::time::Duration;
use walkdown_bmc::cover::CoverAlgorithm;
use walkdown_bmc::experiment::{cover_blocks_with, ExperimentSettings};
use walkdown_bmc::randprog::paper_program;

fn env_or(name: &str, default: f64) -> f64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let budget = Duration::from_secs_f64(env_or("BMC_BENCH_BUDGET", 1.0));
    let per_size = env_or("BMC_BENCH_PROGRAMS", 10.0) as u64;
    let max_d = env_or("BMC_BENCH_MAX_DIAMONDS", 9.0) as usize;
    let algs = CoverAlgorithm::ALL;
    let es = ExperimentSettings {
        budget,
        backward_ok: std::env::var("BMC_BENCH_ENCODING").map_or(true, |v| v != "sp"),
        incremental: env_or("BMC_BENCH_INCREMENTAL", 0.0) != 0.0,
    };
    println!(
        "budget {:.1}s per program and algorithm; {per_size} programs per size; encoding {}; {} solver",
        budget.as_secs_f64(),
        if es.backward_ok { "wlp (paper)" } else { "sp" },
        if es.incremental { "incremental" } else { "fresh per query" }
    );
    print!("{:>8} {:>7}", "diamonds", "blocks");
    for a in algs {
        print!(" | {:>10} {:>8} {:>4}", format!("{} q", a.name()), "time s", "cut");
    }
    println!();
    let mut total = vec![(0u64, 0.0f64, 0u64); algs.len()];
    let mut agree = true;
    for d in 2..=max_d {
        let mut row = vec![(0u64, 0.0f64, 0u64); algs.len()];
        let mut blocks = 0;
        for seed in 0..per_size {
            let p = paper_program(d, seed);
            blocks += p.funcs.values().next().and_then(|f| f.body.as_ref()).map_or(0, |b| b.blocks.len());
            let mut infeasible: Vec<Option<Vec<usize>>> = Vec::new();
            for (i, a) in algs.iter().enumerate() {
                let o = cover_blocks_with(&p, *a, &es).expect("random programs encode");
                row[i].0 += o.stats.queries;
                row[i].1 += o.stats.solver_time.as_secs_f64();
                row[i].2 += u64::from(!o.complete);
                infeasible.push(o.complete.then(|| {
                    o.status
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| **s == walkdown_bmc::cover::GroupStatus::Infeasible)
                        .map(|(i, _)| i)
                        .collect()
                }));
            }
            // Complete covers must agree on which blocks are infeasible.
            let done: Vec<&Vec<usize>> = infeasible.iter().flatten().collect();
            if done.windows(2).any(|w| w[0] != w[1]) {
                agree = false;
                eprintln!("disagreement on {d} diamonds, seed {seed}: {infeasible:?}");
            }
        }
        print!("{d:>8} {:>7}", blocks / per_size as usize);
        for (i, r) in row.iter().enumerate() {
            print!(" | {:>10} {:>8.2} {:>4}", r.0, r.1, r.2);
            total[i].0 += r.0;
            total[i].1 += r.1;
            total[i].2 += r.2;
        }
        println!();
    }
    print!("{:>8} {:>7}", "total", "");
    for t in &total {
        print!(" | {:>10} {:>8.2} {:>4}", t.0, t.1, t.2);
    }
    println!();
    println!("(q: solver queries; time: seconds in the solver; cut: covers stopped by the budget)");
    println!("complete covers agree on the infeasible blocks: {agree}");
}
