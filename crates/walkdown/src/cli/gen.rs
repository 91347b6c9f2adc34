//! `walkdown gen`: the command line of the `gen` pipeline
//! (`walkdown_driver`). It parses the arguments into the driver's options,
//! installs the Ctrl-C and SIGTERM handler, runs the plan and prints: the
//! progress line and notices while the campaign runs, the summary and the
//! exit code after it. Tests are written the moment the campaign keeps
//! them, `report.json` is refreshed every second, and Ctrl-C or SIGTERM
//! ends the run with every file whole.

use super::output::{err, errln, outln};
use super::ProgramArgs;
use anyhow::Result;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use walkdown_campaign::{Property, Snapshot};
use walkdown_driver::report::{stop_words, test_file_name};
use walkdown_driver::{DriverError, EngineKind, Exit, Handler, Notice, Options, Outcome};
use walkdown_formats::report::Report;
use walkdown_interp::ExecLimits;
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;

/// Arguments of `walkdown gen`.
#[derive(clap::Args, Debug, Clone)]
pub struct GenArgs {
    #[command(flatten)]
    program: ProgramArgs,
    #[command(flatten)]
    sandbox: super::SandboxArgs,
    /// Wall-clock budget in seconds, from the start: loading the program comes out of it (the engines get at least half)
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// Output directory: the suite goes to OUT/test-suite, the report to OUT/report.json.
    #[arg(long, default_value = "walkdown-out")]
    out: PathBuf,
    /// Engines of the portfolio, comma-separated: concolic, bmc, cegar, horn, explicit (horn runs only when named).
    #[arg(long, default_value = "concolic,bmc,cegar,explicit", value_delimiter = ',')]
    engines: Vec<EngineArg>,
    /// Run one engine alone (the same as `--engines X`).
    #[arg(long, value_enum)]
    engine: Option<EngineArg>,
    /// Worker threads (default: the available cores). With fewer workers than engines, engines take turns, counted in deterministic work, so `--jobs 1` with a seed gives the same run twice (up to where the time budget cuts it).
    #[arg(long)]
    jobs: Option<usize>,
    /// Time shares of the engines when they take turns, in the order of --engines (default: equal).
    #[arg(long, value_delimiter = ',')]
    shares: Vec<f64>,
    /// Concolic: search order: dfs, bfs, random-branch, uniform-random, cfg-distance, or A+B to alternate two.
    #[arg(long, default_value = "bfs")]
    search: String,
    /// What the suite is for: coverage-branches, coverage-error (stop at the first test reaching reach_error), or errors (a test for every error that can happen: reach_error, assertions and runtime checks; stop when every error goal is settled).
    /// (Default: coverage-branches, or what a task file names.)
    #[arg(long, value_enum)]
    property: Option<PropertyArg>,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Do not aim at runtime-check failures (division by zero, overflow, out-of-bounds access).
    #[arg(long)]
    no_runtime_checks: bool,
    /// Concolic: do not summarize loop exits with trip-count symbols built from the relational invariants (see `walkdown analyze`).
    #[arg(long)]
    no_invariants: bool,
    /// Concolic: do not offer loop-acceleration alternatives (counter jumped to far values against an input bound).
    #[arg(long)]
    no_loop_acceleration: bool,
    /// Concolic: share of its work (counted deterministically) spent replaying mutants of kept tests (0 to turn off).
    #[arg(long, default_value_t = 0.3)]
    mutation_share: f64,
    /// Skip the static analysis that proves branches unreachable before the search.
    #[arg(long)]
    no_static: bool,
    /// Concolic: stop after this many executions.
    #[arg(long)]
    max_executions: Option<u64>,
    /// Per-query solver timeout in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    solver_timeout_ms: u32,
    /// The solver backend every engine asks: z3, bitwuzla, or portfolio (the bounded engine's, induction's and the witness check's queries to Bitwuzla, the others to Z3; of float queries, concolic testing's to Bitwuzla and the others to Z3). Default: the one the WALKDOWN_SOLVER environment variable names, else portfolio (docs/solvers.md says why).
    #[arg(long, value_enum)]
    solver: Option<SolverArg>,
    /// concolic: first time limit (ms) of each query; one that hits it is asked again later under four times as much (up to --solver-timeout-ms), so one slow query does not hold up the others. 0: the full limit at once.
    #[arg(long, default_value_t = 500)]
    quick_query_ms: u32,
    /// Calls nested deeper than this many frames (main is 1) end a run as
    /// "stopped at the call-depth limit", in the interpreter and in the
    /// concolic engine's traced runs.
    #[arg(long, default_value_t = ExecLimits::default().max_call_depth)]
    max_call_depth: u32,
    /// Stop each replay of a vector after this many steps (IR instructions
    /// executed), and only then. Default: 50,000,000, and a replay cut
    /// there runs again without step limit while a quarter of the budget
    /// reserved for such long replays lasts (each taking half of what is
    /// left of it).
    #[arg(long)]
    max_steps: Option<u64>,
    /// Resident memory to stay under, in MB (default: half the machine's memory, from /proc/meminfo). Near it the campaign drops caches, then whole engines, the least useful first, and at last stops with a finished report; report.json records the peak and what was dropped.
    #[arg(long)]
    max_memory: Option<u64>,
    /// Replay every loop iteration by iteration: no fast-forwarding of
    /// deterministic loops in the interpreter (for checking).
    #[arg(long)]
    no_fast_forward: bool,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
    /// bmc: one fixed unwinding K (loops run at most K times, recursion nests at most K deep). Default: with other engines, deepen 1, 2, 4, … up to --max-unwind; alone, 2.
    #[arg(long)]
    unwind: Option<u32>,
    /// bmc: the deepest unwinding of iterative deepening.
    #[arg(long, default_value_t = 1024)]
    max_unwind: u32,
    /// bmc: covering algorithm.
    #[arg(long, value_enum, default_value = "statements")]
    cover: CoverArg,
    /// Exit with 0, not 1, when a test reaches an error (for harnesses such as BenchExec that read any other exit code as a failure of the tool).
    #[arg(long)]
    no_error_exit: bool,
    /// After the search, replay the suite natively (gcc --coverage) and write its line and branch coverage to OUT/coverage.info (lcov).
    #[arg(long)]
    lcov: bool,
    /// bmc: first cover with calls of memory- and input-free functions replaced by procedure summaries (up to half the time), then inline.
    #[arg(long)]
    summaries: bool,
    /// concolic: with a model checker's monitor, try candidates of covered edges nearest first by the monitor's distance to an open goal, taking turns with the others (off by default; see README).
    #[arg(long)]
    monitor_order: bool,
    /// concolic and bmc: no IEEE-754 terms (concolic keeps float values concrete, bmc gives float results fresh values), as before symbolic floats.
    #[arg(long)]
    no_symbolic_floats: bool,
    /// concolic: time limit (ms) of a query over float inputs; one that hits it is asked again with the floats fixed to the run's values.
    #[arg(long, default_value_t = 2_000)]
    fp_timeout_ms: u32,
    /// Write every query a solver backend answers into DIR as an SMT-LIB 2 file, headed by the engine that asked it, the task, the backend's answer and its time (the corpus scripts/bench-solvers replays).
    #[arg(long, value_name = "DIR")]
    dump_queries: Option<PathBuf>,
    /// cegar: which steps of an infeasible path give predicates: suffix (the longest suffix infeasible from any state), core (a minimal unsatisfiable core of the step conditions) or interpolants (the suffix, and for a path it cannot remove, Bitwuzla's sequence interpolants of the path's steps, each at its cut's location).
    #[arg(long, value_enum, default_value = "suffix")]
    refinement: RefinementArg,
    /// Verification annotations to read, comma-separated: source (`__VERIFIER_assumed(cond, "id")` and `__VERIFIER_assert_verified(cond, "premise")` in the program), self (error sites walkdown's static analysis proves safe; and, under the assumption no_overflow tracked at each add/sub/mul it needed, those its interval analysis proves assuming no signed overflow), eva (checks Frama-C EVA raises no alarm for, under its no-overflow assumptions; needs frama-c). With `--property coverage-error` or `errors`, the concolic engine then skips executions already verified (see `--verification`); report.json lists every error goal's status.
    #[arg(long, value_enum, value_delimiter = ',')]
    annotations: Vec<super::annotations::SourceArg>,
    #[command(flatten)]
    eva: super::annotations::EvaArgs,
    /// How the annotations guide the concolic search (with `--property coverage-error` or `errors`): uv (not at all), pv (stop a run at an annotated assertion whose premise holds), may (stop a run where every later execution is verified), must (try first the inputs whose executions must be unverified), may+must. Default: may+must with --annotations.
    #[arg(long, value_enum)]
    verification: Option<super::annotations::ConfigArg>,
    #[command(flatten)]
    pub unit: super::unit::UnitArgs,
    #[command(flatten)]
    env: super::env::EnvArgs,
}

/// `--solver`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SolverArg {
    /// Z3.
    Z3,
    /// Bitwuzla.
    Bitwuzla,
    /// The bounded engine's, induction's and the witness check's queries to Bitwuzla, the others to Z3; of float queries, concolic testing's to Bitwuzla.
    Portfolio,
}

impl From<SolverArg> for walkdown_smt::Backend {
    fn from(s: SolverArg) -> Self {
        match s {
            SolverArg::Z3 => walkdown_smt::Backend::Z3,
            SolverArg::Bitwuzla => walkdown_smt::Backend::Bitwuzla,
            SolverArg::Portfolio => walkdown_smt::Backend::Portfolio,
        }
    }
}

/// `--refinement`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RefinementArg {
    /// The longest suffix infeasible from any state.
    Suffix,
    /// A minimal unsatisfiable core of the path's step conditions.
    Core,
    /// The suffix; Bitwuzla's sequence interpolants where it fails.
    Interpolants,
}

/// An engine of the portfolio.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// Concolic search.
    Concolic,
    /// Bounded infeasible-code detection: unwinding, one formula, solver cover.
    Bmc,
    /// Predicate-abstraction model checking: abstract reachability graph, refinement from infeasible paths, tests from feasible ones, proofs when the graph is complete.
    Cegar,
    /// Horn clauses solved by Z3's Spacer: the model checker's model as constrained Horn clauses, one query per goal; proofs come with inductive invariants.
    Horn,
    /// Explicit-state search: concrete states at loop heads, hashed; each step to the next loop head explored with its inputs symbolic; proofs when the frontier is empty, none when a state depends on the inputs beyond a few values.
    Explicit,
}

/// `--cover`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CoverArg {
    /// Statement cover with enabling clauses.
    Statements,
    /// Path cover with blocking clauses.
    Paths,
    /// One query per goal.
    PerBlock,
    /// Greedy: each query asks for the path covering the most open goals.
    Greedy,
}

/// `--property`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum PropertyArg {
    /// Cover every branch.
    CoverageBranches,
    /// Reach `reach_error`, then stop.
    CoverageError,
    /// Reach every error that can happen (`reach_error`, assertions, runtime
    /// checks): keep going after the first, stop when every error goal is
    /// settled. The suite's metadata says coverage-error.
    Errors,
}

impl GenArgs {
    /// The driver's options.
    fn options(&self) -> Options {
        Options {
            program: self.program.input(),
            data_model: self.program.data_model.map(Into::into),
            time: self.time,
            out: self.out.clone(),
            engines: self.engines.iter().map(|e| e.kind()).collect(),
            engine: self.engine.map(EngineArg::kind),
            jobs: self.jobs,
            shares: self.shares.clone(),
            search: self.search.clone(),
            property: self.property.map(PropertyArg::property),
            seed: self.seed,
            no_runtime_checks: self.no_runtime_checks,
            no_invariants: self.no_invariants,
            no_loop_acceleration: self.no_loop_acceleration,
            mutation_share: self.mutation_share,
            no_static: self.no_static,
            max_executions: self.max_executions,
            solver_timeout_ms: self.solver_timeout_ms,
            solver: self.solver.map(Into::into),
            quick_query_ms: self.quick_query_ms,
            max_call_depth: self.max_call_depth,
            max_steps: self.max_steps,
            max_memory_mb: self.max_memory,
            no_fast_forward: self.no_fast_forward,
            unwind: self.unwind,
            max_unwind: self.max_unwind,
            cover: self.cover.algorithm(),
            lcov: self.lcov,
            summaries: self.summaries,
            monitor_order: self.monitor_order,
            no_symbolic_floats: self.no_symbolic_floats,
            fp_timeout_ms: self.fp_timeout_ms,
            dump_queries: self.dump_queries.clone(),
            refinement: match self.refinement {
                RefinementArg::Suffix => walkdown_cegar::Refinement::Suffix,
                RefinementArg::Core => walkdown_cegar::Refinement::Core,
                RefinementArg::Interpolants => walkdown_cegar::Refinement::Interpolants,
            },
            annotations: self.annotations.iter().map(|a| a.source()).collect(),
            eva: self.eva.settings(),
            verification: self.verification.map(|c| c.config()),
            unit: self.unit.options(),
            environment: Default::default(),
        }
    }
}

impl EngineArg {
    fn kind(self) -> EngineKind {
        match self {
            EngineArg::Concolic => EngineKind::Concolic,
            EngineArg::Bmc => EngineKind::Bmc,
            EngineArg::Cegar => EngineKind::Cegar,
            EngineArg::Horn => EngineKind::Horn,
            EngineArg::Explicit => EngineKind::Explicit,
        }
    }
}

impl CoverArg {
    fn algorithm(self) -> walkdown_bmc::CoverAlgorithm {
        use walkdown_bmc::CoverAlgorithm;
        match self {
            CoverArg::Statements => CoverAlgorithm::Statements,
            CoverArg::Paths => CoverAlgorithm::Paths,
            CoverArg::PerBlock => CoverAlgorithm::PerBlock,
            CoverArg::Greedy => CoverAlgorithm::Greedy,
        }
    }
}

impl PropertyArg {
    fn property(self) -> Property {
        match self {
            PropertyArg::CoverageBranches => Property::CoverBranches,
            PropertyArg::CoverageError => Property::CoverError,
            PropertyArg::Errors => Property::AllErrors,
        }
    }
}

/// Prints what a running campaign reports: the progress line (rewritten
/// in place on a terminal) and notices.
struct Printer {
    quiet: bool,
    tty: bool,
}

impl Handler for Printer {
    fn progress(&mut self, snap: &Snapshot, goals: usize) {
        if self.quiet {
            return;
        }
        let line = progress_line(snap, goals);
        if self.tty {
            err(format_args!("\r{line}\x1b[K"));
        } else {
            errln(format_args!("{line}"));
        }
    }

    fn notice(&mut self, notice: Notice) {
        if self.quiet && notice.is_chatter() {
            return;
        }
        if matches!(notice, Notice::Unmodelled(_)) && self.tty && !self.quiet {
            err(format_args!("\r\x1b[K"));
        }
        errln(format_args!("{notice}"));
    }
}

/// Runs the command. Exit code 1 when a test reaches an error, 3 when a
/// test contradicts a proof (a bug in walkdown).
pub fn gen(args: &GenArgs) -> Result<i32> {
    run_and_print(args).map(|(_, code)| code)
}

/// Runs `gen` as the command does; its outcome (for `check`) and exit code.
pub fn run_and_print(args: &GenArgs) -> Result<(Outcome, i32)> {
    args.sandbox.apply()?;
    let mut options = args.options();
    options.environment = args.env.request()?;
    let plan = walkdown_driver::plan(options)?;
    // Before anything slow: a SIGTERM or Ctrl-C from here on ends the run
    // cleanly (during lowering, with the output directory untouched).
    install_stop_handler(&INTERRUPTED);
    let tty = std::io::stderr().is_terminal();
    let outcome = walkdown_driver::run(&plan, &mut Printer { quiet: args.quiet, tty }, &INTERRUPTED)?;
    if !args.quiet && tty {
        errln(format_args!(""));
    }
    for (e, error) in &outcome.engine_failures {
        errln(format_args!("walkdown: warning: engine {e:?} failed: {error}"));
    }
    let (snap, program, goals) = (&outcome.snapshot, &outcome.program, &outcome.goals);
    print_summary(snap, program, goals, &outcome.report);
    if let Some(e) = &snap.sink_error {
        return Err(DriverError::Sink { suite: outcome.suite_dir.clone(), message: e.clone() }.into());
    }
    for c in &snap.conflicts {
        errln(format_args!(
            "walkdown: proof conflict: {} ({} at {}) was proved unreachable by {} but test {} covers it (a bug in walkdown; please report it)",
            c.goal,
            goals.describe(c.goal),
            program.describe_loc(goals.goals[c.goal].loc),
            c.proof,
            test_file_name(c.test)
        ));
    }
    outln(format_args!("suite: {}", outcome.suite_dir.display()));
    let code = match outcome.exit() {
        Exit::ProofConflict => 3,
        Exit::ErrorReached if !args.no_error_exit => 1,
        Exit::ErrorReached | Exit::Unconfirmed | Exit::Clean => 0,
    };
    Ok((outcome, code))
}

fn progress_line(snap: &Snapshot, total: usize) -> String {
    let mut line = format!(
        "[{:6.1}s] goals {}/{total} covered, {} unreachable, {} infeasible; {} tests",
        snap.elapsed.as_secs_f64(),
        snap.count("covered"),
        snap.count("unreachable"),
        snap.count("infeasible"),
        snap.tests.len()
    );
    for e in snap.engines.iter().filter(|e| e.name != "absint") {
        let figure = |n: &str| e.counter(n).unwrap_or(0.0);
        match e.name {
            "concolic" => line.push_str(&format!(
                "; concolic {} runs, {} mutants, {} queries",
                figure("executions"),
                figure("mutations"),
                figure("queries")
            )),
            "bmc" => line.push_str(&format!("; bmc unwinding {}, {} queries", figure("unwinding"), figure("queries"))),
            other => line.push_str(&format!("; {other}")),
        }
    }
    line
}

fn print_summary(snap: &Snapshot, program: &Program, goals: &Goals, report: &Report) {
    // With an environment every proof holds within its bounds only.
    let (unreachable, infeasible) = match &program.environment {
        Some(_) => (0, snap.count("infeasible") + snap.count("unreachable")),
        None => (snap.count("unreachable"), snap.count("infeasible")),
    };
    outln(format_args!(
        "walkdown: {} goals: {} covered, {} unreachable, {} infeasible within a bound, {} open; {} tests in {:.1}s (stopped: {})",
        goals.len(),
        snap.count("covered"),
        unreachable,
        infeasible,
        snap.count("open"),
        snap.tests.len(),
        snap.elapsed.as_secs_f64(),
        stop_words(snap.stop)
    ));
    if let Some(env) = &program.environment {
        outln(format_args!(
            "  environment: {} (proofs hold within it: they count as infeasible within a bound; tests in env-tests/)",
            env.describe()
        ));
    }
    for e in &snap.engines {
        let figures: Vec<String> = e
            .counters
            .iter()
            .filter(|(n, _)| {
                matches!(*n, "executions" | "mutations" | "queries" | "unwinding" | "proved_unreachable" | "predicates")
            })
            .map(|(n, v)| format!("{n} {v}"))
            .collect();
        let tail = if figures.is_empty() { String::new() } else { format!("; {}", figures.join(", ")) };
        outln(format_args!("  {}: {} ({:.1}s{tail})", e.name, e.status, e.time.as_secs_f64()));
    }
    for (e, t) in &snap.errors {
        let file = test_file_name(*t);
        // In unit mode reporting the contract: the clauses the test breaks.
        let broken = report.unit.as_ref().and_then(|u| u.tests.iter().find(|u| u.file == file));
        let excluded = match broken.map(|u| &u.broken) {
            Some(b) if !b.is_empty() => format!(
                "; needs a precondition the API's contract excludes: {}",
                b.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
            ),
            _ => String::new(),
        };
        let native = report.errors.iter().find(|r| r.test == file).map(|r| r.native_words()).unwrap_or_default();
        outln(format_args!(
            "error {} at {} (test {file}; {native}{excluded})",
            e.kind.name(),
            program.describe_loc(e.loc)
        ));
    }
}

/// Set by Ctrl-C or SIGTERM (a process has one handler).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C and SIGTERM set `flag`; the engines stop at their next
/// checkpoint and the report is written whole. A second Ctrl-C is not
/// caught again: the default action ends the process, for users who really
/// want out.
fn install_stop_handler(flag: &'static AtomicBool) {
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `gen`'s arguments alone.
    #[derive(Parser)]
    struct Gen {
        #[command(flatten)]
        args: GenArgs,
    }

    #[test]
    fn the_command_lines_defaults_are_the_drivers() {
        let parsed = Gen::parse_from(["gen", "p.c"]).args.options();
        let driver = Options::new("p.c", "walkdown-out");
        assert_eq!(format!("{parsed:?}"), format!("{driver:?}"));
    }
}
