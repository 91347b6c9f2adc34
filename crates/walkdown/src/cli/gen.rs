//! `walkdown gen`: generates a Test-Comp test suite with every engine
//! walkdown has, as one campaign: the static pass first (its proofs close
//! goals before any search), then the concolic, bounded and model-checking engines as a
//! portfolio on worker threads (or in turns with `--jobs 1`). Tests
//! are written the moment the campaign keeps them, `report.json` is
//! refreshed every second from the campaign, and Ctrl-C or SIGTERM ends the
//! run with every file whole.

use super::output::{err, errln, outln};
use super::outdir::{self, Manifest};
use super::report::{make_report, spec_name, write_errors_sarif, write_html_report, write_report, HTML_FILE};
use super::witness::WITNESS_FILE;
use super::ProgramArgs;
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use walkdown_cegar::{CegarEngine, CegarSettings};
use walkdown_bmc::{BmcEngine, BmcSettings, CoverAlgorithm, DeepeningSettings};
use walkdown_campaign::{
    Campaign, CampaignSettings, Claim, Engine, EngineFigures, KeptTest, PortfolioSettings, Property, ReplayTime, Snapshot, TestSink,
};
use walkdown_concolic::{ConcolicEngine, GenSettings, SearchKind};
use walkdown_formats::{Metadata, Specification, TestCase};
use walkdown_ir::goals::Goals;
use walkdown_interp::ExecLimits;
use walkdown_ir::Program;

/// Arguments of `walkdown gen`.
#[derive(clap::Args, Debug, Clone)]
pub struct GenArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// Wall-clock budget in seconds.
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// Output directory: the suite goes to OUT/test-suite, the report to OUT/report.json.
    #[arg(long, default_value = "walkdown-out")]
    out: PathBuf,
    /// Engines of the portfolio, comma-separated: concolic, bmc, cegar.
    #[arg(long, default_value = "concolic,bmc,cegar", value_delimiter = ',')]
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
    /// cegar: which steps of an infeasible path give predicates: suffix (the longest suffix infeasible from any state) or core (a minimal unsatisfiable core of the step conditions).
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
}

impl GenArgs {
    /// The output directory.
    pub fn out_dir(&self) -> &std::path::Path {
        &self.out
    }
}

/// `--refinement`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RefinementArg {
    /// The longest suffix infeasible from any state.
    Suffix,
    /// A minimal unsatisfiable core of the path's step conditions.
    Core,
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

/// Writes each kept test as Test-Comp XML at once, listing it in the
/// manifest first.
struct SuiteWriter {
    suite_dir: PathBuf,
    manifest: std::sync::Arc<Manifest>,
}

/// The suite's directory in OUT.
const SUITE_DIR: &str = "test-suite";

/// The report's name in OUT.
const REPORT_FILE: &str = "report.json";
const SARIF_FILE: &str = "errors.sarif";
/// The lcov tracefile's name in OUT (`--lcov`).
const LCOV_FILE: &str = "coverage.info";

/// Whether `name` (relative to OUT) is a name `gen` gives a test.
fn is_test_file_name(name: &str) -> bool {
    let Some(base) = name.strip_prefix(SUITE_DIR).and_then(|n| n.strip_prefix('/')) else { return false };
    base.strip_prefix("test-")
        .and_then(|n| n.strip_suffix(".xml"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The suite's name for test number `index`.
pub fn test_file_name(index: usize) -> String {
    format!("test-{index:05}.xml")
}

impl TestSink for SuiteWriter {
    fn test(&mut self, test: &KeptTest) -> Result<(), String> {
        let mut case = TestCase::new(test.vector.clone()).with_types(&test.types);
        case.covers_error = test.error.is_some_and(|e| e.kind == walkdown_ir::CheckKind::ReachError);
        if case.annotations.len() != case.vector.values.len() {
            case.annotations.clear();
        }
        let name = test_file_name(test.index);
        self.manifest.record(&format!("{SUITE_DIR}/{name}"))?;
        walkdown_formats::write_testcase(&self.suite_dir.join(name), &case).map_err(|e| e.to_string())
    }
}

/// Runs the command. Exit code 1 when a test reaches an error, 3 when a
/// test contradicts a proof (a bug in walkdown).
pub fn gen(args: &GenArgs) -> Result<i32> {
    // A task definition names the program, data model and property.
    let from_task;
    let args = if super::task::is_task_file(&args.program.file) {
        let task = super::task::task_settings(&args.program.file, args.property.is_some())?;
        let mut a = args.clone();
        a.program.file = task.program;
        a.program.data_model = a.program.data_model.or(Some(match task.data_model {
            walkdown_ir::DataModel::ILP32 => super::DataModelArg::ILP32,
            walkdown_ir::DataModel::LP64 => super::DataModelArg::LP64,
        }));
        a.property = a.property.or(Some(if task.cover_error { PropertyArg::CoverageError } else { PropertyArg::CoverageBranches }));
        from_task = a;
        &from_task
    } else {
        args
    };
    if !(args.time > 0.0 && args.time.is_finite()) {
        bail!("--time must be a positive number of seconds");
    }
    if !(0.0..=0.9).contains(&args.mutation_share) {
        bail!("--mutation-share must be between 0 and 0.9");
    }
    if args.unwind == Some(0) || args.max_unwind == 0 {
        bail!("--unwind and --max-unwind must be at least 1");
    }
    if args.max_call_depth == 0 {
        bail!("--max-call-depth must be at least 1 (main itself is one frame)");
    }
    if args.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    let engines: Vec<EngineArg> = match args.engine {
        Some(e) => vec![e],
        None => {
            let mut v = args.engines.clone();
            v.dedup();
            v
        }
    };
    if engines.is_empty() {
        bail!("--engines needs at least one engine (concolic, bmc, cegar)");
    }
    if args.shares.iter().any(|s| !(*s > 0.0 && s.is_finite())) || (!args.shares.is_empty() && args.shares.len() != engines.len()) {
        bail!("--shares needs one positive number per engine of --engines ({})", engines.len());
    }
    let search = SearchKind::parse(&args.search).with_context(|| {
        format!("unknown search order `{}` (dfs, bfs, random-branch, uniform-random, cfg-distance, or A+B)", args.search)
    })?;
    // Before anything slow: a SIGTERM or Ctrl-C from here on ends the run
    // cleanly (during lowering, with the output directory untouched).
    let interrupt = &INTERRUPTED;
    install_stop_handler(interrupt);
    // Unit mode: the engines run the program with the harness appended,
    // which OUT/NAME-unit.c keeps (written once OUT is locked).
    let unit = match &args.unit.entry {
        Some(entry) => Some(super::unit::prepare(&args.program.file, &args.unit, entry, args.program.data_model() == walkdown_ir::DataModel::ILP32)?),
        None => None,
    };
    let unit_args;
    let (args, load_from) = match &unit {
        Some(u) => {
            let mut a = args.clone();
            a.program.file = args.out.join(super::unit::harness_file_name(&args.program.file));
            unit_args = a;
            (&unit_args, u.scratch_file.clone())
        }
        None => (args, args.program.file.clone()),
    };
    let (mut program, sources) = super::load_program_with_sources(&load_from, args.program.data_model())?;
    if unit.is_some() {
        // (Loading instrumented the unit program's lazy slots.)
        if let Some((_, name)) = program.files.iter_mut().next() {
            *name = args.program.file.display().to_string();
        }
    }
    // In unit mode the harness's branches (its choices) are explored but
    // are not goals: coverage is the code under test's.
    let goals = walkdown_unit::lazy::goals(&program);
    let property = match args.property.unwrap_or(PropertyArg::CoverageBranches) {
        PropertyArg::CoverageBranches => Property::CoverBranches,
        PropertyArg::CoverageError => Property::CoverError,
        PropertyArg::Errors => Property::AllErrors,
    };
    let spec = match property {
        Property::CoverBranches => Specification::CoverBranches,
        Property::CoverError | Property::AllErrors => Specification::CoverError,
    };
    let producer = concat!("walkdown ", env!("CARGO_PKG_VERSION"));
    let mut metadata = Metadata::for_program(&load_from, spec, program.data_model, producer)?;
    metadata.program_file = args.program.file.display().to_string();
    let suite_dir = args.out.join(SUITE_DIR);
    let manifest = std::sync::Arc::new(Manifest::new(&args.out));
    let mut campaign_settings = CampaignSettings { time: Duration::from_secs_f64(args.time), property, ..CampaignSettings::default() };
    campaign_settings.replay.max_call_depth = args.max_call_depth;
    let writer = SuiteWriter { suite_dir: suite_dir.clone(), manifest: manifest.clone() };
    // The campaign prepares the interpreter, which refuses a program it
    // cannot run (no `main`): that too must leave an earlier run's output
    // as it was, so the output directory is touched only after this.
    if let Some(n) = args.max_steps {
        campaign_settings.replay.max_steps = n;
    }
    let campaign = Campaign::new(&program, &goals, campaign_settings, Box::new(writer), interrupt)
        .with_context(|| format!("cannot run {}", args.program.file.display()))?;
    // Without a step limit of the user's, a replay the default one cuts is
    // run again for a share of the budget: a goal behind a long loop is not
    // left open while time remains.
    let campaign = if args.max_steps.is_none() { campaign.with_replay_time(ReplayTime::default()) } else { campaign };
    let campaign = campaign.with_fast_forward(!args.no_fast_forward);
    // Error tests through functions without a model run natively before
    // they are kept (see `crosscheck`).
    // Not in unit mode: the unit program built natively has no lazy
    // slots' calls (its tests run natively as unit_tests.c, which `check`
    // compiles and runs).
    let campaign = if unit.is_some() {
        campaign
    } else {
        campaign.with_error_check(Box::new(super::crosscheck::NativeCheck::new(
            args.program.file.clone(),
            program.data_model,
            Instant::now() + Duration::from_secs_f64(args.time),
        )))
    };
    if interrupt.load(Ordering::Relaxed) {
        bail!("interrupted before the search began; {} was not touched", args.out.display());
    }
    let _lock = outdir::lock_out_dir(&args.out, &args.program.file)?;
    let metadata_name = format!("{SUITE_DIR}/metadata.xml");
    let harness_name = args.program.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut ours = vec![REPORT_FILE, SARIF_FILE, HTML_FILE, LCOV_FILE, WITNESS_FILE, metadata_name.as_str()];
    if unit.is_some() {
        ours.extend([super::unit::UNIT_TESTS_FILE, harness_name.as_str()]);
    }
    let others = manifest.begin(&ours, is_test_file_name, SUITE_DIR)?;
    if !others.is_empty() {
        errln(format_args!(
            "walkdown: warning: {} holds {} files walkdown did not write (left as they are, and read as tests by validators): {}",
            suite_dir.display(),
            others.len(),
            others.iter().map(|n| n.trim_start_matches(SUITE_DIR).trim_start_matches('/')).collect::<Vec<_>>().join(", ")
        ));
    }
    std::fs::create_dir_all(&suite_dir).with_context(|| format!("cannot create {}", suite_dir.display()))?;
    manifest.record(&metadata_name).map_err(anyhow::Error::msg)?;
    walkdown_formats::write_metadata(&suite_dir.join("metadata.xml"), &metadata)?;
    if let Some(u) = &unit {
        manifest.record(&harness_name).map_err(anyhow::Error::msg)?;
        manifest.record(super::unit::UNIT_TESTS_FILE).map_err(anyhow::Error::msg)?;
        std::fs::write(&args.program.file, &u.text).with_context(|| format!("cannot write {}", args.program.file.display()))?;
    }
    manifest.record(REPORT_FILE).map_err(anyhow::Error::msg)?;
    manifest.record(SARIF_FILE).map_err(anyhow::Error::msg)?;
    manifest.record(HTML_FILE).map_err(anyhow::Error::msg)?;
    if args.lcov {
        manifest.record(LCOV_FILE).map_err(anyhow::Error::msg)?;
    }

    // The static analyses get a share of the budget (the campaign's clock
    // runs already): their cost grows with the square of a function's
    // inputs, and one cut short proves nothing, so it is dropped.
    let budget = Duration::from_secs_f64(args.time);
    let static_opts = walkdown_absint::FixpointOptions {
        deadline: Some(campaign.start() + static_share(budget)),
        ..walkdown_absint::FixpointOptions::default()
    };
    let relational = (!args.no_static || !args.no_invariants)
        .then(|| walkdown_absint::analyze_relational_with(&program, static_opts))
        .filter(|r| {
            if !r.complete && !args.quiet {
                errln(format_args!(
                    "walkdown: the relational analysis did not end within its share of the budget ({:.1}s): no proofs or loop invariants from it",
                    static_share(budget).as_secs_f64()
                ));
            }
            r.complete
        });
    let intervals = (!args.no_static).then(|| static_pass(&campaign, &program, &goals, relational.as_ref(), static_opts, args.quiet)).flatten();
    // Annotations: statuses for the report; with errors as the goal, the
    // instrumented program the concolic engine traces.
    let mut instrumented: Option<std::sync::Arc<Program>> = None;
    let mut annotation_entry = None;
    if !args.annotations.is_empty() || args.verification.is_some() {
        let config = args.verification.map_or(walkdown_annot::Config::MayMust, |c| c.config());
        let proved: Vec<walkdown_ir::goals::GoalId> = campaign
            .snapshot()
            .goals
            .iter()
            .enumerate()
            .filter(|(_, g)| matches!(g.verdict, walkdown_campaign::Verdict::Unreachable(_)))
            .map(|(i, _)| walkdown_ir::entity::EntityRef::new(i))
            .collect();
        let mut figures = std::collections::BTreeMap::new();
        // The no-overflow pass gets the static analyses' share of the budget.
        let self_limit = static_share(budget);
        let a = super::annotations::read(&program, &args.program.file, &goals, &args.annotations, &proved, self_limit, &args.eva.settings(), &mut figures)?;
        if property == Property::CoverBranches {
            figures.insert("reason".into(), "not used: the search covers branches (annotations guide --property coverage-error and errors only)".into());
        } else {
            // coverage-error aims at reach_error and assertions; `errors` at
            // every check, runtime checks included.
            let all_errors = property == Property::AllErrors;
            let targets = |g| {
                if all_errors {
                    matches!(goals.goals[g].kind, walkdown_ir::goals::GoalKind::Error { .. })
                } else {
                    walkdown_annot::collect::is_user_property(&goals, g)
                }
            };
            match walkdown_annot::instrument(&program, &goals, &a, config, &targets) {
                Ok((p, inst)) => {
                    figures.insert("prunes".into(), inst.prunes.to_string());
                    figures.insert("tryfirsts".into(), inst.tryfirsts.to_string());
                    figures.insert("assumed_sites".into(), inst.assumed_sites.to_string());
                    if let (Some(m), false) = (&inst.merged, config == walkdown_annot::Config::Uv) {
                        errln(format_args!(
                            "walkdown: note: {} assumption ids; the annotation pass handles at most {}: it merges {m} into one (they hold together), which prunes less",
                            a.assumptions.len(),
                            walkdown_annot::MAX_IDS
                        ));
                        figures.insert("merged_ids".into(), m.clone());
                    }
                    if config != walkdown_annot::Config::Uv {
                        if let Err(e) = walkdown_ir::verify::verify_program(&p) {
                            bail!("internal error: the annotation pass broke the IR: {e}");
                        }
                        instrumented = Some(std::sync::Arc::new(p));
                    }
                }
                Err(walkdown_annot::NoInference::TooManyIds(n)) => {
                    errln(format_args!(
                        "walkdown: warning: {n} assumption ids, too many of them negated in premises to merge; the annotation pass handles at most {}: the search is not guided",
                        walkdown_annot::MAX_IDS
                    ));
                    figures.insert("reason".into(), format!("{n} assumption ids (at most {})", walkdown_annot::MAX_IDS));
                }
                Err(walkdown_annot::NoInference::NoMain) => {
                    figures.insert("reason".into(), "no main".into());
                }
            }
        }
        annotation_entry = Some(super::annotations::entry(&program, &goals, &a, &args.annotations, config, figures));
    }
    let loop_forms = match (args.no_invariants, &relational) {
        (false, Some(rel)) => walkdown_absint::trip_count_forms(rel),
        _ => Vec::new(),
    };

    // The model checker stays ours: a complete graph's invariants make the
    // correctness witness after the run.
    let mut cegar_settings = CegarSettings::default();
    cegar_settings.solver.timeout_ms = Some(args.solver_timeout_ms);
    cegar_settings.checker.refinement = match args.refinement {
        RefinementArg::Suffix => walkdown_cegar::Refinement::Suffix,
        RefinementArg::Core => walkdown_cegar::Refinement::Core,
    };
    let mut cegar_engine = engines.contains(&EngineArg::Cegar).then(|| CegarEngine::new(cegar_settings.clone()));
    let mut cegar_slot = cegar_engine.as_mut();
    let mut members: Vec<Box<dyn Engine + '_>> = Vec::new();
    let mut described = Vec::new();
    for e in &engines {
        match e {
            EngineArg::Concolic => {
                let mut settings = GenSettings {
                    search: search.clone(),
                    seed: args.seed,
                    runtime_checks: !args.no_runtime_checks,
                    max_executions: args.max_executions,
                    mutation_share: args.mutation_share,
                    loop_forms: loop_forms.clone(),
                    monitor_order: args.monitor_order,
                    // Mutants are not traced, so no prune would stop them:
                    // with the instrumentation they would walk verified
                    // executions.
                    instrumented: instrumented.clone(),
                    ..GenSettings::default()
                };
                if instrumented.is_some() {
                    settings.mutation_share = 0.0;
                }
                settings.solver.timeout_ms = Some(args.solver_timeout_ms);
                settings.trace.accelerate = !args.no_loop_acceleration;
                settings.trace.symbolic_floats = !args.no_symbolic_floats;
                settings.fp_timeout_ms = args.fp_timeout_ms;
                settings.quick_query_ms = (args.quick_query_ms > 0).then_some(args.quick_query_ms);
                settings.trace.exec.max_call_depth = args.max_call_depth;
                settings.replay.max_call_depth = args.max_call_depth;
                described.push(format!("concolic ({})", search.name()));
                members.push(Box::new(ConcolicEngine::new(settings)));
            }
            EngineArg::Bmc => {
                let (first, last) = match (args.unwind, engines.len()) {
                    (Some(k), _) => (k, k),
                    (None, 1) => (2, 2),
                    (None, _) => (1, args.max_unwind),
                };
                let algorithm = match args.cover {
                    CoverArg::Statements => CoverAlgorithm::Statements,
                    CoverArg::Paths => CoverAlgorithm::Paths,
                    CoverArg::PerBlock => CoverAlgorithm::PerBlock,
                    CoverArg::Greedy => CoverAlgorithm::Greedy,
                };
                let mut bmc = BmcSettings { summaries: args.summaries, ..BmcSettings::default() };
                bmc.cover.algorithm = algorithm;
                bmc.cover.timeout_ms = args.solver_timeout_ms;
                bmc.replay.max_call_depth = args.max_call_depth;
                bmc.vc.float_terms = !args.no_symbolic_floats;
                described.push(if first == last {
                    format!("bmc ({} cover, unwinding {first})", algorithm.name())
                } else {
                    format!("bmc ({} cover, unwinding {first}, {}, … up to {last})", algorithm.name(), first * 2)
                });
                // The induction step's arbitrary loop states, restricted by
                // what the static analyses know at loop heads.
                let strengthened = (intervals.is_some() || relational.is_some())
                    .then(|| walkdown_absint::strengthen_loop_heads(&program, intervals.as_ref(), relational.as_ref()));
                // Equalities that hold if nothing wraps, for the induction
                // step to check (unsigned counters wrap in the signed
                // reading the sound analysis uses).
                let candidates = match &relational {
                    Some(_) => walkdown_absint::candidate_loop_equalities(&program, static_opts),
                    None => Vec::new(),
                };
                members.push(Box::new(BmcEngine::new(DeepeningSettings { bmc, first, last, strengthened, candidates })));
            }
            EngineArg::Cegar => {
                if let Some(engine) = cegar_slot.take() {
                    described.push(format!("cegar (recursion inlined {} deep)", engine.settings.model.recursion_bound));
                    members.push(Box::new(engine));
                }
            }
        }
    }
    let portfolio = PortfolioSettings { jobs: args.jobs.unwrap_or(PortfolioSettings::default().jobs), ..PortfolioSettings::default() };
    let header = walkdown_formats::report::Report {
        program: args.program.file.display().to_string(),
        producer: producer.into(),
        property: spec_name(property).into(),
        data_model: program.data_model.to_string(),
        search: format!("{} on {} worker{}", described.join(" + "), portfolio.jobs, if portfolio.jobs == 1 { "" } else { "s" }),
        seed: args.seed,
        annotations: annotation_entry,
        ..Default::default()
    };
    let report_path = args.out.join(REPORT_FILE);
    let tty = std::io::stderr().is_terminal();
    let warned = std::cell::Cell::new(0usize);
    let warn_unmodelled = |snap: &Snapshot| {
        for name in snap.unmodelled.iter().skip(warned.get()) {
            if tty && !args.quiet {
                err(format_args!("\r\x1b[K"));
            }
            errln(format_args!(
                "walkdown: warning: external function `{name}` has no model: in walkdown's runs its calls return input values, natively they run the C library; error tests through it are run natively before they are kept"
            ));
        }
        warned.set(snap.unmodelled.len());
    };
    let mut observe = |c: &Campaign<'_>| {
        let snap = c.snapshot();
        warn_unmodelled(&snap);
        if !args.quiet {
            let line = progress_line(&snap, goals.len());
            if tty {
                err(format_args!("\r{line}\x1b[K"));
            } else {
                errln(format_args!("{line}"));
            }
        }
        // Once a stop is asked for, the report says so at once: engines may
        // take a while to reach a checkpoint (a long solver query), and a
        // supervisor that kills the process after its grace period must not
        // leave a report that claims the run is still going.
        let status = if interrupt.load(Ordering::Relaxed) { "interrupted" } else { "running" };
        if let Err(e) = write_report(&report_path, &header, &program, &goals, &snap, status) {
            errln(format_args!("walkdown: warning: cannot write {}: {e}", report_path.display()));
        }
    };
    let ends = walkdown_campaign::run_portfolio(&campaign, members, &args.shares, &portfolio, &mut observe);
    let snap = campaign.snapshot();
    warn_unmodelled(&snap);
    if snap.refuted_count > 0 {
        errln(format_args!(
            "walkdown: warning: {} error tests not kept: their runs called functions without a model and the native run did not reach the error (listed in report.json, refuted_tests)",
            snap.refuted_count
        ));
    }
    let status = if interrupt.load(Ordering::Relaxed) { "interrupted" } else { "finished" };
    let mut report = make_report(&header, &program, &goals, &snap, status);
    if snap.conflicts.is_empty() {
        let interp = campaign.interpreter();
        let gaddr = |g| interp.global_address(g).unwrap_or(0);
        let faddr = |f| interp.func_address(f).unwrap_or(0);
        // The witness uses what is left of the budget (a run that settled
        // every goal early has most of it), and at least a quarter of it
        // up to 5 s past it, so a run that used its whole budget can still
        // check invariants it has.
        let left = budget.saturating_sub(snap.elapsed);
        let witness_deadline = Instant::now() + left.max((budget / 4).min(Duration::from_secs(5)));
        let mut from_analysis = |targets: &[walkdown_ir::goals::GoalId]| {
            let opts = walkdown_absint::FixpointOptions { deadline: Some(witness_deadline), ..Default::default() };
            let intervals = walkdown_absint::analyze_with(&program, opts);
            if !intervals.complete {
                return None;
            }
            let formula_of = |f, b| walkdown_absint::entry_formula(&intervals, relational.as_ref(), f, b);
            walkdown_cegar::certificate_from_formulas(&program, &goals, &gaddr, &faddr, &cegar_settings, &formula_of, targets.to_vec()).ok()
        };
        let mut model_check = |targets: &[walkdown_ir::goals::GoalId]| {
            // A model-checking run of its own in half the witness's time
            // left (the other half checks what it finds), at most a minute.
            let left = (witness_deadline.saturating_duration_since(Instant::now()) / 2).min(Duration::from_secs(60));
            if left < Duration::from_millis(500) || interrupt.load(Ordering::Relaxed) {
                return None;
            }
            walkdown_cegar::certify(&program, &goals, &gaddr, &faddr, targets, &cegar_settings, left).ok().flatten()
        };
        let provers = super::witness::Provers {
            campaign_graph: cegar_engine.as_mut().and_then(|e| e.certificate.as_mut()),
            from_analysis: &mut from_analysis,
            model_check: &mut model_check,
        };
        report.witness = super::witness::write_witness(
            &args.out,
            &args.program.file,
            &program,
            &sources,
            &goals,
            &snap,
            provers,
            env!("CARGO_PKG_VERSION"),
            witness_deadline,
        );
        if report.witness.as_ref().is_some_and(|w| w.status == "written") {
            manifest.record(WITNESS_FILE).map_err(anyhow::Error::msg)?;
        }
    }
    if let Some(u) = &unit {
        super::unit::finish(u, &args.out, &snap, &program, &goals, &mut report)?;
    }
    walkdown_formats::report::write_report(&report_path, &report)?;
    write_errors_sarif(&args.out.join(SARIF_FILE), &report, &suite_dir)?;
    if let Err(e) = write_html_report(&args.out.join(HTML_FILE), &report, &suite_dir, None) {
        errln(format_args!("walkdown: warning: cannot write the HTML report: {e:#}"));
    }
    if args.lcov && !snap.tests.is_empty() {
        let path = args.out.join(LCOV_FILE);
        // A unit's tests run natively as unit_tests.c (the unit program
        // built natively lacks its lazy slots' calls): the coverage is the
        // original program's.
        let written = match &unit {
            Some(u) => super::unit::validate_unit_tests(&u.original, &args.out.join(super::unit::UNIT_TESTS_FILE), program.data_model == walkdown_ir::DataModel::ILP32)
                .and_then(|v| super::lcov::write_coverage_info(&path, &u.original, &v.coverage)),
            None => super::lcov::replay_and_write(&path, &args.program.file, &suite_dir, program.data_model).map(|_| ()),
        };
        if let Err(e) = written {
            errln(format_args!("walkdown: warning: cannot write {}: {e:#}", path.display()));
        }
    }
    if !args.quiet && tty {
        errln(format_args!(""));
    }
    for (e, end) in engines.iter().zip(&ends) {
        if let Err(error) = end {
            errln(format_args!("walkdown: warning: engine {e:?} failed: {error}"));
        }
    }
    print_summary(&snap, &program, &goals);
    if let Some(e) = &snap.sink_error {
        bail!("cannot write a test to {}: {e}", suite_dir.display());
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
    outln(format_args!("suite: {}", suite_dir.display()));
    Ok(if !snap.conflicts.is_empty() {
        3
    } else if snap.errors.is_empty() || args.no_error_exit {
        0
    } else {
        1
    })
}

/// Runs the abstract interpretation and claims the branch outcomes and
/// error sites it proves unreachable; the analysis, if it completed.
fn static_pass<'p>(
    campaign: &Campaign<'_>,
    program: &'p Program,
    goals: &Goals,
    relational: Option<&walkdown_absint::RelAnalysis<'_>>,
    opts: walkdown_absint::FixpointOptions,
    quiet: bool,
) -> Option<walkdown_absint::Analysis<'p>> {
    let start = Instant::now();
    let analysis = walkdown_absint::analyze_with(program, opts);
    if !analysis.complete {
        campaign.publish(EngineFigures {
            name: "absint",
            status: "stopped: budget (its share)".into(),
            time: start.elapsed(),
            counters: vec![("proved_unreachable", 0.0)],
        });
        if !quiet {
            errln(format_args!("walkdown: static analysis did not end within its share of the budget: no proofs from it"));
        }
        return None;
    }
    // Edge goals (intervals, then the relational product) and error sites
    // are disjoint lists but for the edges both analyses prove: the first
    // proof is kept.
    let mut claims: std::collections::BTreeMap<walkdown_ir::goals::GoalId, &str> = std::collections::BTreeMap::new();
    for g in analysis.dead_goals(goals) {
        claims.entry(g).or_insert(PROOF_INTERVALS);
    }
    for (g, why) in analysis.safe_error_sites(goals) {
        claims.entry(g).or_insert(why.trim_start_matches("interval analysis: "));
    }
    for g in relational.into_iter().flat_map(|rel| rel.dead_edges()).filter_map(|(f, b, s)| goals.edge(f, b, s)) {
        claims.entry(g).or_insert(PROOF_RELATIONAL);
    }
    let proved = claims.len();
    for (g, method) in claims {
        campaign.claim("absint", g, Claim::Unreachable { method: method.into() });
    }
    let elapsed = start.elapsed() + relational.map_or(Duration::ZERO, |r| r.elapsed);
    campaign.publish(EngineFigures {
        name: "absint",
        status: "finished".into(),
        time: elapsed,
        counters: vec![("proved_unreachable", proved as f64)],
    });
    if !quiet {
        errln(format_args!("walkdown: static analysis ({:.1} ms): {proved} goals proved unreachable", elapsed.as_secs_f64() * 1e3));
    }
    Some(analysis)
}

/// The time the static analyses may take: a quarter of the budget, but
/// at least a second (or half the budget, if less), so the small programs
/// of short runs keep their proofs.
fn static_share(budget: Duration) -> Duration {
    (budget / 4).max(Duration::from_secs(1).min(budget / 2))
}

/// How the report names proofs by the interval analysis (unbounded: they
/// hold for every execution).
const PROOF_INTERVALS: &str = "interval invariant contradicts the branch guard";

/// How the report names proofs that need the relational product
/// (intervals, affine equalities, octagonal inequalities).
const PROOF_RELATIONAL: &str = "relational invariant (intervals, equalities, octagon) contradicts the branch guard";

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

fn print_summary(snap: &Snapshot, program: &Program, goals: &Goals) {
    outln(format_args!(
        "walkdown: {} goals: {} covered, {} unreachable, {} infeasible within a bound, {} open; {} tests in {:.1}s (stopped: {})",
        goals.len(),
        snap.count("covered"),
        snap.count("unreachable"),
        snap.count("infeasible"),
        snap.count("open"),
        snap.tests.len(),
        snap.elapsed.as_secs_f64(),
        super::report::stop_words(snap.stop)
    ));
    for e in &snap.engines {
        let figures: Vec<String> = e
            .counters
            .iter()
            .filter(|(n, _)| matches!(*n, "executions" | "mutations" | "queries" | "unwinding" | "proved_unreachable" | "predicates"))
            .map(|(n, v)| format!("{n} {v}"))
            .collect();
        let tail = if figures.is_empty() { String::new() } else { format!("; {}", figures.join(", ")) };
        outln(format_args!("  {}: {} ({:.1}s{tail})", e.name, e.status, e.time.as_secs_f64()));
    }
    for (e, t) in &snap.errors {
        outln(format_args!("error {} at {} (test {})", e.kind.name(), program.describe_loc(e.loc), test_file_name(*t)));
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
