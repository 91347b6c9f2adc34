//! Interpreter throughput on the public tasks (`../shared/bench/sv`):
//! `cargo bench -p walkdown --bench interp_tasks`.
//!
//! Each task is lowered in the data model its `.yml` names and run on a
//! fixed set of seeded input vectors (those of the differential test: the
//! empty vector, constant and boundary vectors, short ones and random ones
//! of 64 to 4096 values), without line counting, as the search engines run
//! it, each run stopping after at most [`MAX_STEPS`]. The set is replayed
//! until it has taken at least [`MIN_TIME`] (a shorter first pass is an
//! untimed warm-up). Printed per task: the IR instructions and
//! terminators executed (`RunResult::steps`) per pass, the time per pass
//! and instructions per second; then the median instructions per second
//! over the tasks. Skips with a message when `../shared` is absent.
//!
//! `WALKDOWN_BENCH_FILTER=substring` runs only the matching tasks.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, RunOptions};
use walkdown_ir::goals::Goals;

/// Vectors per task.
const VECTORS: usize = 20;
/// Steps one run may take (a few tasks do not terminate, or need 10^8
/// steps: those runs stop here and count the steps they executed).
const MAX_STEPS: u64 = 20_000_000;
/// How long the passes over a task's vectors take at least.
const MIN_TIME: Duration = Duration::from_millis(300);

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let Some(corpus) = support::corpus("interp_tasks") else { return };
    let filter = std::env::var("WALKDOWN_BENCH_FILTER").unwrap_or_default();
    let tasks: Vec<_> =
        corpus.into_iter().filter(|p| !p.name.starts_with("seeds/") && p.name.contains(filter.as_str())).collect();
    let options =
        RunOptions { limits: ExecLimits { max_steps: MAX_STEPS, ..ExecLimits::default() }, record_lines: false };
    println!("{:<48} {:>5} {:>6} {:>13} {:>10} {:>12}", "task", "dm", "passes", "steps/pass", "ms/pass", "instr/s");
    let mut rates = Vec::new();
    let mut total_steps: u128 = 0;
    let mut total_time = Duration::ZERO;
    for task in &tasks {
        let settings = FrontendSettings { data_model: task.data_model, ..Default::default() };
        let program = match compile_c(&task.path, &settings) {
            Ok(p) => p,
            Err(e) => {
                println!("{:<48} does not lower: {e}", task.name);
                continue;
            }
        };
        let interp = match Interpreter::new(&program, &Goals::compute(&program)) {
            Ok(i) => i,
            Err(e) => {
                println!("{:<48} cannot be prepared: {e}", task.name);
                continue;
            }
        };
        let vectors = support::input_vectors(&task.name, VECTORS);
        let pass = || -> u64 { vectors.iter().map(|v| std::hint::black_box(interp.run(v, &options)).steps).sum() };
        // A first pass long enough is measured as it is; a short one is
        // a warm-up for the measured passes.
        let started = Instant::now();
        let steps = pass();
        let mut elapsed = started.elapsed();
        let mut passes = 1u32;
        if elapsed < MIN_TIME {
            let started = Instant::now();
            passes = 0;
            while passes == 0 || started.elapsed() < MIN_TIME {
                let again = pass();
                assert_eq!(again, steps, "{}: runs are not deterministic", task.name);
                passes += 1;
            }
            elapsed = started.elapsed();
        }
        let per_pass = elapsed / passes;
        let rate = steps as f64 * f64::from(passes) / elapsed.as_secs_f64();
        total_steps += u128::from(steps) * u128::from(passes);
        total_time += elapsed;
        rates.push(rate);
        println!(
            "{:<48} {:>5} {:>6} {:>13} {:>10.2} {:>12}",
            task.name,
            task.data_model.to_string(),
            passes,
            steps,
            per_pass.as_secs_f64() * 1e3,
            format_rate(rate)
        );
    }
    if rates.is_empty() {
        println!("no task ran");
        return;
    }
    rates.sort_by(f64::total_cmp);
    let n = rates.len();
    let median = if n % 2 == 1 { rates[n / 2] } else { (rates[n / 2 - 1] + rates[n / 2]) / 2.0 };
    println!(
        "interp_tasks: {n} tasks; median {} instr/s (min {}, max {}); overall {} instr/s ({} steps in {:.1}s)",
        format_rate(median),
        format_rate(rates[0]),
        format_rate(rates[n - 1]),
        format_rate(total_steps as f64 / total_time.as_secs_f64()),
        total_steps,
        total_time.as_secs_f64()
    );
}

/// `123.4M`, `5.67G`.
fn format_rate(r: f64) -> String {
    if r >= 1e9 {
        format!("{:.2}G", r / 1e9)
    } else if r >= 1e6 {
        format!("{:.1}M", r / 1e6)
    } else {
        format!("{:.0}k", r / 1e3)
    }
}
