//! Interpreter throughput on the public tasks (`../shared/bench/sv`):
//! `cargo bench -p walkdown --bench interp_tasks`.
//!
//! Each task is lowered in the data model its `.yml` names and run on a
//! fixed set of seeded input vectors (those of the differential test: the
//! empty vector, constant and boundary vectors, short ones and random ones
//! of 64 to 4096 values), without line counting, as the search engines run
//! it, each run stopping after at most [`MAX_STEPS`]. The set is replayed
//! until it has taken at least [`MIN_TIME`] (a shorter first pass is an
//! untimed warm-up). Each task is measured twice: with fast-forwarding of
//! loops off (the plain interpreter) and on. Printed per task: the IR
//! instructions and terminators executed (`RunResult::steps`) per pass,
//! the time per pass and instructions per second of the plain run, the
//! instructions per second with fast-forwarding, and its jumps and steps
//! jumped over per pass; then the median instructions per second over the
//! tasks (plain), the ratio of the two modes' rates over the tasks where
//! nothing is fast-forwarded (the cost of looking for loops to jump: 1.0 is
//! none), and the time per pass of the tasks with jumps. Skips with a
//! message when `../shared` is absent.
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
    println!(
        "{:<48} {:>5} {:>6} {:>13} {:>10} {:>12} {:>12} {:>7} {:>13}",
        "task", "dm", "passes", "steps/pass", "ms/pass", "instr/s", "instr/s ff", "jumps", "jumped over"
    );
    let mut rates = Vec::new();
    let mut ratios = Vec::new();
    let mut hits = Vec::new();
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
        let mut plain_interp = interp.clone();
        plain_interp.set_fast_forward(false);
        let plain = measure(&task.name, &plain_interp, &vectors, &options);
        let ff = measure(&task.name, &interp, &vectors, &options);
        total_steps += u128::from(plain.steps) * u128::from(plain.passes);
        total_time += plain.elapsed;
        rates.push(plain.rate());
        if ff.jumps == 0 {
            ratios.push(ff.rate() / plain.rate());
        } else {
            hits.push((task.name.clone(), ff.jumps, ff.skipped, plain.per_pass(), ff.per_pass()));
        }
        println!(
            "{:<48} {:>5} {:>6} {:>13} {:>10.2} {:>12} {:>12} {:>7} {:>13}",
            task.name,
            task.data_model.to_string(),
            plain.passes,
            plain.steps,
            plain.per_pass().as_secs_f64() * 1e3,
            format_rate(plain.rate()),
            format_rate(ff.rate()),
            ff.jumps,
            ff.skipped
        );
    }
    ratios.sort_by(f64::total_cmp);
    if !ratios.is_empty() {
        let n = ratios.len();
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / n as f64).exp();
        println!(
            "fast-forward on vs off, {n} tasks without a jump: instr/s ratio geometric mean {geo:.3} (min {:.3}, median {:.3}, max {:.3})",
            ratios[0],
            ratios[n / 2],
            ratios[n - 1]
        );
    }
    for (name, jumps, skipped, plain, ff) in &hits {
        println!(
            "fast-forwarded: {name}: {jumps} jumps, {skipped} steps jumped over per pass; {:.2} ms per pass plain, {:.2} ms fast-forwarded",
            plain.as_secs_f64() * 1e3,
            ff.as_secs_f64() * 1e3
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

/// One mode's measurement of a task.
struct Measured {
    passes: u32,
    /// Steps executed per pass.
    steps: u64,
    /// Fast-forward jumps and steps jumped over per pass.
    jumps: u64,
    skipped: u128,
    elapsed: Duration,
}

impl Measured {
    fn rate(&self) -> f64 {
        self.steps as f64 * f64::from(self.passes) / self.elapsed.as_secs_f64()
    }
    fn per_pass(&self) -> Duration {
        self.elapsed / self.passes
    }
}

/// Replays `vectors` until [`MIN_TIME`] has passed (a short first pass is
/// an untimed warm-up).
fn measure(
    name: &str,
    interp: &Interpreter,
    vectors: &[walkdown_ir::testvec::TestVector],
    options: &RunOptions,
) -> Measured {
    let pass = || -> (u64, u64, u128) {
        let (mut steps, mut jumps, mut skipped) = (0, 0, 0);
        for v in vectors {
            let r = std::hint::black_box(interp.run(v, options));
            steps += r.steps;
            jumps += r.fast_forwards;
            skipped += r.skipped_steps;
        }
        (steps, jumps, skipped)
    };
    let started = Instant::now();
    let (steps, jumps, skipped) = pass();
    let mut elapsed = started.elapsed();
    let mut passes = 1u32;
    if elapsed < MIN_TIME {
        let started = Instant::now();
        passes = 0;
        while passes == 0 || started.elapsed() < MIN_TIME {
            let again = pass();
            assert_eq!(again.0, steps, "{name}: runs are not deterministic");
            passes += 1;
        }
        elapsed = started.elapsed();
    }
    Measured { passes, steps, jumps, skipped, elapsed }
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
