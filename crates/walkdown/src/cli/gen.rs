//! `walkdown gen`: generates a Test-Comp test suite with the concolic
//! engine. Tests are written the moment they are kept, `report.json` is
//! refreshed every second, and Ctrl-C ends the run with every file whole.

use super::{load, ProgramArgs};
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use walkdown_concolic::{generate, GenSettings, KeptTest, Property, SearchKind, Stats, StopReason, TestSink};
use walkdown_formats::report::{EngineFigures, ErrorEntry, GoalEntry, LayerFigures, Report, TestEntry};
use walkdown_formats::{Metadata, Specification, TestCase};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalKind, Goals};
use walkdown_ir::Program;

/// Arguments of `walkdown gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// Wall-clock budget in seconds.
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// Output directory: the suite goes to OUT/test-suite, the report to OUT/report.json.
    #[arg(long, default_value = "walkdown-out")]
    out: PathBuf,
    /// Search order: dfs, bfs, random-branch, uniform-random, cfg-distance, or A+B to alternate two.
    #[arg(long, default_value = "bfs")]
    search: String,
    /// What the suite is for: coverage-branches, or coverage-error (stop at the first test reaching reach_error).
    #[arg(long, value_enum, default_value = "coverage-branches")]
    property: PropertyArg,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Do not offer runtime-check failures (division by zero, out-of-bounds access) as goals.
    #[arg(long)]
    no_runtime_checks: bool,
    /// Do not summarize loop exits with trip-count symbols built from the relational invariants (see `walkdown analyze`).
    #[arg(long)]
    no_invariants: bool,
    /// Do not offer loop-acceleration alternatives (counter jumped to far values against an input bound).
    #[arg(long)]
    no_loop_acceleration: bool,
    /// Share of the time spent replaying mutants of kept tests (0 to turn off).
    #[arg(long, default_value_t = 0.3)]
    mutation_share: f64,
    /// Skip the static analysis that proves branches unreachable before the search.
    #[arg(long)]
    no_static: bool,
    /// Stop after this many executions.
    #[arg(long)]
    max_executions: Option<u64>,
    /// Per-query solver timeout in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    solver_timeout_ms: u32,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    bmc: super::bmc::BmcFlags,
}

/// `--property`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum PropertyArg {
    /// Cover every branch.
    CoverageBranches,
    /// Reach `reach_error`.
    CoverageError,
}

/// Writes tests and the report as the engine finds them.
struct SuiteWriter<'a> {
    program: &'a Program,
    goals: &'a Goals,
    suite_dir: PathBuf,
    report_path: PathBuf,
    report: Report,
    /// Goals proved unreachable, with the proof's name.
    unreachable: Vec<Option<&'static str>>,
    tests: Vec<KeptTest>,
    quiet: bool,
    tty: bool,
}

impl SuiteWriter<'_> {
    fn file_name(index: usize) -> String {
        format!("test-{index:05}.xml")
    }

    fn refresh_report(&mut self, stats: &Stats) -> Result<(), String> {
        let mut first: Vec<Option<usize>> = vec![None; self.goals.len()];
        for t in &self.tests {
            for g in &t.new_goals {
                first[g.index()].get_or_insert(t.index);
            }
        }
        self.report.goals = self
            .goals
            .goals
            .iter()
            .map(|(id, g)| {
                let func = match g.kind {
                    GoalKind::Edge { func, .. } | GoalKind::Error { func, .. } => func,
                };
                let test = first[id.index()].map(Self::file_name);
                let proof = self.unreachable.get(id.index()).copied().flatten();
                let status = match (&test, proof) {
                    (Some(_), _) => "covered",
                    (None, Some(_)) => "unreachable",
                    (None, None) => "open",
                };
                GoalEntry {
                    id: id.to_string(),
                    kind: self.goals.describe(id),
                    location: self.program.describe_loc(g.loc),
                    function: self.program.funcs[func].name.clone(),
                    status: status.into(),
                    proved_by: if test.is_none() { proof.map(String::from) } else { None },
                    test,
                }
            })
            .collect();
        self.report.goals_total = self.goals.len();
        self.report.goals_covered = first.iter().filter(|t| t.is_some()).count();
        self.report.goals_unreachable = self.report.goals.iter().filter(|g| g.status == "unreachable").count();
        self.report.errors = self
            .tests
            .iter()
            .filter_map(|t| {
                t.error.map(|e| ErrorEntry {
                    kind: e.kind.name().into(),
                    location: self.program.describe_loc(e.loc),
                    test: Self::file_name(t.index),
                })
            })
            .collect();
        self.report.tests = self
            .tests
            .iter()
            .map(|t| TestEntry {
                file: Self::file_name(t.index),
                new_goals: t.new_goals.iter().map(|g| g.to_string()).collect(),
                covers: t.covered.iter().map(|g| g.to_string()).collect(),
                outcome: super::run::describe_outcome(self.program, &t.outcome),
                found_at_s: t.at,
            })
            .collect();
        let secs = stats.elapsed.as_secs_f64().max(1e-9);
        self.report.engine = EngineFigures {
            executions: stats.executions,
            replays: stats.replays,
            random_runs: stats.random_runs,
            mutations: stats.mutations,
            mutations_kept: stats.mutations_kept,
            queries: stats.queries,
            sat: stats.sat,
            unsat: stats.unsat,
            unknown: stats.unknown,
            duplicates: stats.duplicates,
            divergences: stats.divergences,
            waiting: stats.waiting,
            dropped: stats.dropped,
            expressions: stats.expressions,
            elapsed_s: stats.elapsed.as_secs_f64(),
            solver_s: stats.solver_time.as_secs_f64(),
            trace_s: stats.trace_time.as_secs_f64(),
            replay_s: stats.replay_time.as_secs_f64(),
            executions_per_s: stats.executions as f64 / secs,
            queries_per_s: stats.queries as f64 / secs,
            solver_share: stats.solver_time.as_secs_f64() / secs,
            layers: stats
                .layers
                .iter()
                .map(|l| LayerFigures {
                    layer: l.layer.to_string(),
                    queries: l.queries,
                    hits: l.hits,
                    time_s: l.time.as_secs_f64(),
                })
                .collect(),
        };
        walkdown_formats::report::write_report(&self.report_path, &self.report).map_err(|e| e.to_string())
    }
}

impl TestSink for SuiteWriter<'_> {
    fn test(&mut self, test: &KeptTest) -> Result<(), String> {
        let mut case = TestCase::new(test.vector.clone()).with_types(&test.types);
        case.covers_error = test.error.is_some_and(|e| e.kind == walkdown_ir::CheckKind::ReachError);
        if case.annotations.len() != case.vector.values.len() {
            case.annotations.clear();
        }
        let path = self.suite_dir.join(Self::file_name(test.index));
        walkdown_formats::write_testcase(&path, &case).map_err(|e| e.to_string())?;
        self.tests.push(test.clone());
        Ok(())
    }

    fn progress(&mut self, stats: &Stats) {
        if !self.quiet {
            let line = format!(
                "[{:6.1}s] goals {}/{} covered, {} tests, {} executions ({:.0}/s), {} mutants, {} queries, {} waiting",
                stats.elapsed.as_secs_f64(),
                stats.covered,
                stats.goals,
                stats.tests,
                stats.executions,
                stats.executions as f64 / stats.elapsed.as_secs_f64().max(1e-9),
                stats.mutations,
                stats.queries,
                stats.waiting
            );
            if self.tty {
                eprint!("\r{line}\x1b[K");
            } else {
                eprintln!("{line}");
            }
        }
        if let Err(e) = self.refresh_report(stats) {
            eprintln!("walkdown: warning: cannot write {}: {e}", self.report_path.display());
        }
    }
}

/// Runs the command; exit code 1 when a test reaches an error.
pub fn gen(args: &GenArgs) -> Result<i32> {
    if args.bmc.engine == super::bmc::EngineArg::Bmc {
        return super::bmc::gen(&args.program, args.time, &args.out, args.solver_timeout_ms, args.quiet, &args.bmc);
    }
    if !(args.time > 0.0 && args.time.is_finite()) {
        bail!("--time must be a positive number of seconds");
    }
    let search = SearchKind::parse(&args.search).with_context(|| {
        format!(
            "unknown search order `{}` (dfs, bfs, random-branch, uniform-random, cfg-distance, or A+B)",
            args.search
        )
    })?;
    let program = load(&args.program)?;
    let goals = Goals::compute(&program);
    let property = match args.property {
        PropertyArg::CoverageBranches => Property::CoverBranches,
        PropertyArg::CoverageError => Property::CoverError,
    };
    let suite_dir = args.out.join("test-suite");
    prepare_out_dir(&suite_dir)?;
    let spec = match property {
        Property::CoverBranches => Specification::CoverBranches,
        Property::CoverError => Specification::CoverError,
    };
    let producer = concat!("walkdown ", env!("CARGO_PKG_VERSION"));
    let metadata = Metadata::for_program(&args.program.file, spec, program.data_model, producer)?;
    walkdown_formats::write_metadata(&suite_dir.join("metadata.xml"), &metadata)?;

    let mut settings = GenSettings {
        time: Duration::from_secs_f64(args.time),
        search,
        seed: args.seed,
        property,
        runtime_checks: !args.no_runtime_checks,
        max_executions: args.max_executions,
        ..GenSettings::default()
    };
    settings.solver.timeout_ms = Some(args.solver_timeout_ms);
    settings.trace.accelerate = !args.no_loop_acceleration;
    if !(0.0..=0.9).contains(&args.mutation_share) {
        bail!("--mutation-share must be between 0 and 0.9");
    }
    settings.mutation_share = args.mutation_share;

    let mut unreachable: Vec<Option<&'static str>> = vec![None; goals.len()];
    let relational = (!args.no_static || !args.no_invariants).then(|| walkdown_absint::analyze_relational(&program));
    if !args.no_static {
        let analysis = walkdown_absint::analyze(&program);
        let mut dead = analysis.dead_goals(&goals);
        for g in &dead {
            unreachable[g.index()] = Some(PROOF_INTERVALS);
        }
        if let Some(rel) = &relational {
            for g in rel.dead_edges().into_iter().filter_map(|(f, b, s)| goals.edge(f, b, s)) {
                if unreachable[g.index()].is_none() {
                    unreachable[g.index()] = Some(PROOF_RELATIONAL);
                    dead.push(g);
                }
            }
        }
        dead.sort();
        if !args.quiet {
            eprintln!(
                "walkdown: static analysis ({:.1} ms): {} branch outcomes proved unreachable",
                (analysis.elapsed + relational.as_ref().map_or(Duration::ZERO, |r| r.elapsed)).as_secs_f64() * 1e3,
                dead.len()
            );
        }
        settings.unreachable = dead;
    }

    if let (false, Some(rel)) = (args.no_invariants, &relational) {
        settings.loop_forms = walkdown_absint::trip_count_forms(rel);
        if !args.quiet {
            eprintln!("walkdown: invariants: {} loops with trip-count forms", settings.loop_forms.len());
        }
    }

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // A second Ctrl-C is not caught again: the default action ends the
        // process, for users who really want out.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let mut writer = SuiteWriter {
        program: &program,
        goals: &goals,
        suite_dir: suite_dir.clone(),
        report_path: args.out.join("report.json"),
        report: Report {
            program: args.program.file.display().to_string(),
            producer: producer.into(),
            property: spec_name(property).into(),
            data_model: program.data_model.to_string(),
            search: settings.search.name(),
            seed: args.seed,
            status: "running".into(),
            ..Report::default()
        },
        tests: Vec::new(),
        unreachable,
        quiet: args.quiet,
        tty: std::io::stderr().is_terminal(),
    };
    let result = generate(&program, &goals, &settings, &mut writer, &stop)?;
    writer.report.status = if result.stop_reason == StopReason::Interrupted { "interrupted" } else { "finished" }.into();
    writer.report.stop_reason = format!("{:?}", result.stop_reason);
    writer.refresh_report(&result.stats).map_err(anyhow::Error::msg)?;
    if !args.quiet && writer.tty {
        eprintln!();
    }
    let s = &result.stats;
    println!(
        "walkdown: {} of {} goals covered ({} proved unreachable) by {} tests in {:.1}s ({} executions, {} mutants, {} queries, {:.0}% of the time in the solver); stopped: {:?}",
        s.covered,
        s.goals,
        writer.report.goals_unreachable,
        s.tests,
        s.elapsed.as_secs_f64(),
        s.executions,
        s.mutations,
        s.queries,
        100.0 * s.solver_time.as_secs_f64() / s.elapsed.as_secs_f64().max(1e-9),
        result.stop_reason
    );
    if s.proof_conflicts > 0 {
        eprintln!("walkdown: warning: {} goals proved unreachable were covered by tests (a bug in the analysis; please report it)", s.proof_conflicts);
    }
    for (e, t) in &result.errors {
        println!("error {} at {} (test {})", e.kind.name(), program.describe_loc(e.loc), SuiteWriter::file_name(*t));
    }
    println!("suite: {}", suite_dir.display());
    Ok(if result.errors.is_empty() { 0 } else { 1 })
}

/// How the report names proofs by the interval analysis (unbounded: they
/// hold for every execution).
const PROOF_INTERVALS: &str = "absint: interval invariant contradicts the branch guard";

/// How the report names proofs that need the relational product
/// (intervals, affine equalities, octagonal inequalities).
const PROOF_RELATIONAL: &str = "absint: relational invariant (intervals, equalities, octagon) contradicts the branch guard";

fn spec_name(p: Property) -> &'static str {
    match p {
        Property::CoverBranches => "coverage-branches",
        Property::CoverError => "coverage-error",
    }
}

/// Creates the suite directory; refuses to mix with an earlier suite.
fn prepare_out_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        let old: Vec<_> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "xml"))
            .collect();
        for e in old {
            std::fs::remove_file(e.path()).with_context(|| format!("cannot clear {}", dir.display()))?;
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}
