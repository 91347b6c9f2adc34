//! The plan of a `gen` run: what the command line asked for, checked and
//! resolved once, before anything slow runs.
//!
//! [`Options`] are the arguments as given (what clap parsed, without its
//! types); [`Plan::new`] turns them into a [`Plan`] or says which argument
//! is wrong ([`PlanError`]). It is a pure function: a task definition
//! (`TASK.yml`) is read by the caller ([`crate::task::task_settings`]) and
//! passed in, so every rule here is tested without a file or a process.
//! The run ([`crate::run`]) reads only the plan.

use std::path::PathBuf;
use std::time::Duration;

use walkdown_annot::Config;
use walkdown_bmc::CoverAlgorithm;
use walkdown_campaign::Property;
use walkdown_cegar::Refinement;
use walkdown_concolic::SearchKind;
use walkdown_ir::DataModel;
use walkdown_native::eva::EvaSettings;

use crate::annotations::AnnotationSource;
use crate::input::ProgramInput;
use crate::task::TaskSettings;
use crate::unit::UnitOptions;

/// An engine of the portfolio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// Concolic search.
    Concolic,
    /// Bounded infeasible-code detection.
    Bmc,
    /// Predicate-abstraction model checking.
    Cegar,
    /// Horn clauses solved by Spacer.
    Horn,
    /// Explicit-state search over loop-head states.
    Explicit,
}

/// The arguments of `gen` as given; see `walkdown gen --help` for each.
#[derive(Clone, Debug)]
pub struct Options {
    /// The program: one file (`.c`, `.i`, `.wir`) or a task definition
    /// (`.yml`); or C files with flags, or a build database.
    pub program: ProgramInput,
    /// `--data-model`.
    pub data_model: Option<DataModel>,
    /// `--time`, in seconds.
    pub time: f64,
    /// `--out`.
    pub out: PathBuf,
    /// `--engines`.
    pub engines: Vec<EngineKind>,
    /// `--engine`: one engine alone.
    pub engine: Option<EngineKind>,
    /// `--jobs`.
    pub jobs: Option<usize>,
    /// `--shares`.
    pub shares: Vec<f64>,
    /// `--search`, unparsed.
    pub search: String,
    /// `--property`.
    pub property: Option<Property>,
    /// `--seed`.
    pub seed: u64,
    /// `--no-runtime-checks`.
    pub no_runtime_checks: bool,
    /// `--no-invariants`.
    pub no_invariants: bool,
    /// `--no-loop-acceleration`.
    pub no_loop_acceleration: bool,
    /// `--mutation-share`.
    pub mutation_share: f64,
    /// `--no-static`.
    pub no_static: bool,
    /// `--max-executions`.
    pub max_executions: Option<u64>,
    /// `--solver-timeout-ms`.
    pub solver_timeout_ms: u32,
    /// `--solver`: the backend every engine asks; `None` keeps the
    /// process's choice (`WALKDOWN_SOLVER`, else the default).
    pub solver: Option<walkdown_smt::Backend>,
    /// `--quick-query-ms` (0: off).
    pub quick_query_ms: u32,
    /// `--max-call-depth`.
    pub max_call_depth: u32,
    /// `--max-steps`.
    pub max_steps: Option<u64>,
    /// `--max-memory`, in MB (none: [`default_max_memory_mb`]).
    pub max_memory_mb: Option<u64>,
    /// `--no-fast-forward`.
    pub no_fast_forward: bool,
    /// `--unwind`.
    pub unwind: Option<u32>,
    /// `--max-unwind`.
    pub max_unwind: u32,
    /// `--cover`.
    pub cover: CoverAlgorithm,
    /// `--lcov`.
    pub lcov: bool,
    /// `--summaries`.
    pub summaries: bool,
    /// `--monitor-order`.
    pub monitor_order: bool,
    /// `--no-symbolic-floats`.
    pub no_symbolic_floats: bool,
    /// `--fp-timeout-ms`.
    pub fp_timeout_ms: u32,
    /// `--dump-queries`: the directory the query corpus goes to.
    pub dump_queries: Option<PathBuf>,
    /// `--refinement`.
    pub refinement: Refinement,
    /// `--annotations`.
    pub annotations: Vec<AnnotationSource>,
    /// `--eva-precision`, `--eva-timeout`.
    pub eva: EvaSettings,
    /// `--verification`.
    pub verification: Option<Config>,
    /// `--entry` and its bounds (unit mode).
    pub unit: Option<UnitOptions>,
    /// `--args`, `--stdin`, `--file`, `--no-env`: the environment given to
    /// the program as inputs.
    pub environment: walkdown_frontend::env::EnvRequest,
}

impl Options {
    /// `gen`'s defaults for `file` into `out` (the command line's defaults
    /// are these; a test of the binary checks that they agree).
    pub fn new(file: impl Into<PathBuf>, out: impl Into<PathBuf>) -> Options {
        Options {
            program: ProgramInput::file(file),
            data_model: None,
            time: 60.0,
            out: out.into(),
            // The Horn engine is opt-in: in the portfolio it cost a proof
            // and gained none at `--time 30` (docs/benchmarks.md).
            // The explicit-state search is a default engine: where it does
            // not apply it gives up within a second on most programs
            // (docs/engines.md).
            engines: vec![EngineKind::Concolic, EngineKind::Bmc, EngineKind::Cegar, EngineKind::Explicit],
            engine: None,
            jobs: None,
            shares: Vec::new(),
            search: "bfs".into(),
            property: None,
            seed: 1,
            no_runtime_checks: false,
            no_invariants: false,
            no_loop_acceleration: false,
            mutation_share: 0.3,
            no_static: false,
            max_executions: None,
            solver_timeout_ms: 10_000,
            solver: None,
            quick_query_ms: 500,
            max_call_depth: walkdown_interp::ExecLimits::default().max_call_depth,
            max_steps: None,
            max_memory_mb: None,
            no_fast_forward: false,
            unwind: None,
            max_unwind: 1024,
            cover: CoverAlgorithm::Statements,
            lcov: false,
            summaries: false,
            monitor_order: false,
            no_symbolic_floats: false,
            fp_timeout_ms: 2_000,
            dump_queries: None,
            refinement: Refinement::Suffix,
            annotations: Vec::new(),
            eva: EvaSettings::default(),
            verification: None,
            unit: None,
            environment: Default::default(),
        }
    }
}

/// An argument the plan refuses; the words are the error `gen` prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `--time` not a positive finite number.
    #[error("--time must be a positive number of seconds")]
    Time,
    /// `--mutation-share` outside 0 to 0.9.
    #[error("--mutation-share must be between 0 and 0.9")]
    MutationShare,
    /// `--unwind 0` or `--max-unwind 0`.
    #[error("--unwind and --max-unwind must be at least 1")]
    Unwind,
    /// `--max-call-depth 0`.
    #[error("--max-call-depth must be at least 1 (main itself is one frame)")]
    CallDepth,
    /// `--jobs 0`.
    #[error("--jobs must be at least 1")]
    Jobs,
    /// `--max-memory 0`.
    #[error("--max-memory must be at least 1 (MB)")]
    MaxMemory,
    /// An empty `--engines`.
    #[error("--engines needs at least one engine (concolic, bmc, cegar, horn, explicit)")]
    NoEngine,
    /// `--shares` not one positive number per engine.
    #[error("--shares needs one positive number per engine of --engines ({engines})")]
    Shares {
        /// How many engines there are.
        engines: usize,
    },
    /// `--search` names no search order.
    #[error("unknown search order `{0}` (dfs, bfs, random-branch, uniform-random, cfg-distance, or A+B)")]
    Search(String),
    /// `--entry` with a program of several files or a build database.
    #[error("unit mode (--entry) takes one C file, without compile flags or --compile-commands")]
    UnitOneFile,
    /// `--annotations eva` with a program of several files.
    #[error("--annotations eva takes one C file (Frama-C runs on the program file alone)")]
    EvaOneFile,
}

/// How the bounded engine unwinds loops: from `first` doubling up to `last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unwinding {
    /// The first unwinding.
    pub first: u32,
    /// The deepest.
    pub last: u32,
}

/// A checked `gen` run: every argument valid, the task resolved, the
/// engines listed once each.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The program's (first) file (the task's, for a task definition).
    pub program: PathBuf,
    /// The program as given (resolved: a task's program file).
    pub input: ProgramInput,
    /// Its data model.
    pub data_model: DataModel,
    /// The wall-clock budget.
    pub budget: Duration,
    /// The output directory.
    pub out: PathBuf,
    /// What the suite is for.
    pub property: Property,
    /// The portfolio's engines, in order, each once.
    pub engines: Vec<EngineKind>,
    /// Their time shares when they take turns (empty: equal).
    pub shares: Vec<f64>,
    /// Worker threads (`None`: the available cores).
    pub jobs: Option<usize>,
    /// The concolic search order.
    pub search: SearchKind,
    /// The bounded engine's unwinding.
    pub unwinding: Unwinding,
    /// Verification annotations to read, when any are asked for, and how
    /// they guide the search.
    pub annotations: Option<(Vec<AnnotationSource>, Config)>,
    /// The arguments the engines read as given (already checked).
    pub options: Options,
}

impl Plan {
    /// Checks `options` and resolves them with `task` (the task definition
    /// `options.file` names, if it is one): the task gives the program,
    /// and the data model and property where the arguments give none.
    pub fn new(mut options: Options, task: Option<TaskSettings>) -> Result<Plan, PlanError> {
        if let Some(task) = task {
            options.program = ProgramInput::file(task.program);
            options.data_model = options.data_model.or(Some(task.data_model));
            let property = if task.cover_error { Property::CoverError } else { Property::CoverBranches };
            options.property = options.property.or(Some(property));
        }
        check_numbers(&options)?;
        if !options.program.is_one_file() {
            if options.unit.is_some() {
                return Err(PlanError::UnitOneFile);
            }
            if options.annotations.contains(&AnnotationSource::Eva) {
                return Err(PlanError::EvaOneFile);
            }
        }
        let engines = engines(&options)?;
        let search = SearchKind::parse(&options.search).ok_or_else(|| PlanError::Search(options.search.clone()))?;
        let unwinding = match (options.unwind, engines.len()) {
            (Some(k), _) => Unwinding { first: k, last: k },
            (None, 1) => Unwinding { first: 2, last: 2 },
            (None, _) => Unwinding { first: 1, last: options.max_unwind },
        };
        let annotations = (!options.annotations.is_empty() || options.verification.is_some())
            .then(|| (options.annotations.clone(), options.verification.unwrap_or(Config::MayMust)));
        Ok(Plan {
            program: options.program.name(),
            input: options.program.clone(),
            data_model: options.data_model.unwrap_or(DataModel::LP64),
            budget: Duration::from_secs_f64(options.time),
            out: options.out.clone(),
            property: options.property.unwrap_or(Property::CoverBranches),
            shares: options.shares.clone(),
            jobs: options.jobs,
            engines,
            search,
            unwinding,
            annotations,
            options,
        })
    }

    /// Whether `engine` is in the portfolio.
    pub fn has(&self, engine: EngineKind) -> bool {
        self.engines.contains(&engine)
    }
}

/// The numeric arguments' ranges, in the order `gen` has always checked them.
fn check_numbers(o: &Options) -> Result<(), PlanError> {
    if !(o.time > 0.0 && o.time.is_finite()) {
        return Err(PlanError::Time);
    }
    if !(0.0..=0.9).contains(&o.mutation_share) {
        return Err(PlanError::MutationShare);
    }
    if o.unwind == Some(0) || o.max_unwind == 0 {
        return Err(PlanError::Unwind);
    }
    if o.max_call_depth == 0 {
        return Err(PlanError::CallDepth);
    }
    if o.max_memory_mb == Some(0) {
        return Err(PlanError::MaxMemory);
    }
    if o.jobs == Some(0) {
        return Err(PlanError::Jobs);
    }
    Ok(())
}

/// The engines (`--engine` wins over `--engines`; repeats next to each
/// other count once), with one share each if shares are given.
fn engines(o: &Options) -> Result<Vec<EngineKind>, PlanError> {
    let engines = match o.engine {
        Some(e) => vec![e],
        None => {
            let mut v = o.engines.clone();
            v.dedup();
            v
        }
    };
    if engines.is_empty() {
        return Err(PlanError::NoEngine);
    }
    let bad_share = o.shares.iter().any(|s| !(*s > 0.0 && s.is_finite()));
    if bad_share || (!o.shares.is_empty() && o.shares.len() != engines.len()) {
        return Err(PlanError::Shares { engines: engines.len() });
    }
    Ok(engines)
}

/// The share of the machine's memory `gen` stays under by default.
pub const DEFAULT_MEMORY_SHARE: f64 = 0.5;

/// `--max-memory`'s default, in MB: [`DEFAULT_MEMORY_SHARE`] of the
/// machine's memory (`MemTotal` of `/proc/meminfo`); none where that
/// cannot be read.
pub fn default_max_memory_mb() -> Option<u64> {
    let total = walkdown_campaign::memory::machine_bytes()?;
    Some(((total as f64 * DEFAULT_MEMORY_SHARE) / (1 << 20) as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Options {
        Options::new("p.c", "walkdown-out")
    }

    #[test]
    fn the_defaults_plan_every_engine_but_horn_deepening_the_unwinding() {
        let plan = Plan::new(defaults(), None).unwrap();
        assert_eq!(plan.engines, [EngineKind::Concolic, EngineKind::Bmc, EngineKind::Cegar, EngineKind::Explicit]);
        assert_eq!(plan.unwinding, Unwinding { first: 1, last: 1024 });
        assert_eq!(plan.property, Property::CoverBranches);
        assert_eq!(plan.data_model, DataModel::LP64);
        assert!(plan.annotations.is_none());
    }

    #[test]
    fn one_engine_alone_unwinds_twice_and_wins_over_the_list() {
        let plan = Plan::new(Options { engine: Some(EngineKind::Bmc), ..defaults() }, None).unwrap();
        assert_eq!(plan.engines, [EngineKind::Bmc]);
        assert_eq!(plan.unwinding, Unwinding { first: 2, last: 2 });
        let fixed = Plan::new(Options { unwind: Some(5), ..defaults() }, None).unwrap();
        assert_eq!(fixed.unwinding, Unwinding { first: 5, last: 5 });
    }

    #[test]
    fn wrong_numbers_are_refused_in_order() {
        let refused = |o: Options| Plan::new(o, None).unwrap_err();
        assert_eq!(refused(Options { time: 0.0, jobs: Some(0), ..defaults() }), PlanError::Time);
        assert_eq!(refused(Options { time: f64::INFINITY, ..defaults() }), PlanError::Time);
        assert_eq!(refused(Options { mutation_share: 0.95, ..defaults() }), PlanError::MutationShare);
        assert_eq!(refused(Options { max_unwind: 0, ..defaults() }), PlanError::Unwind);
        assert_eq!(refused(Options { max_call_depth: 0, ..defaults() }), PlanError::CallDepth);
        assert_eq!(refused(Options { jobs: Some(0), ..defaults() }), PlanError::Jobs);
        assert_eq!(refused(Options { engines: Vec::new(), ..defaults() }), PlanError::NoEngine);
        assert_eq!(refused(Options { shares: vec![1.0, 2.0], ..defaults() }), PlanError::Shares { engines: 4 });
        assert_eq!(
            refused(Options { shares: vec![1.0, 0.0, 1.0, 1.0], ..defaults() }),
            PlanError::Shares { engines: 4 }
        );
        assert_eq!(refused(Options { search: "sideways".into(), ..defaults() }), PlanError::Search("sideways".into()));
    }

    #[test]
    fn a_task_gives_program_data_model_and_property_unless_the_arguments_do() {
        let task = || TaskSettings { program: "t.c".into(), data_model: DataModel::ILP32, cover_error: true };
        let plan = Plan::new(defaults(), Some(task())).unwrap();
        assert_eq!(plan.program, PathBuf::from("t.c"));
        assert_eq!((plan.data_model, plan.property), (DataModel::ILP32, Property::CoverError));
        let given = Options { data_model: Some(DataModel::LP64), property: Some(Property::AllErrors), ..defaults() };
        let plan = Plan::new(given, Some(task())).unwrap();
        assert_eq!((plan.data_model, plan.property), (DataModel::LP64, Property::AllErrors));
    }

    #[test]
    fn unit_mode_and_eva_take_one_file() {
        let two = ProgramInput { files: vec!["a.c".into(), "b.c".into()], ..ProgramInput::default() };
        let unit = Some(UnitOptions {
            entry: "f".into(),
            max_objects: 1,
            max_depth: 1,
            max_array: 1,
            contract: Default::default(),
        });
        let refused = |o: Options| Plan::new(o, None).unwrap_err();
        assert_eq!(refused(Options { program: two.clone(), unit, ..defaults() }), PlanError::UnitOneFile);
        let eva = vec![AnnotationSource::Eva];
        assert_eq!(refused(Options { program: two.clone(), annotations: eva, ..defaults() }), PlanError::EvaOneFile);
        let plan = Plan::new(Options { program: two, ..defaults() }, None).unwrap();
        assert_eq!(plan.program, PathBuf::from("a.c"));
    }

    #[test]
    fn a_verification_configuration_alone_asks_for_annotations() {
        let plan = Plan::new(Options { verification: Some(Config::Must), ..defaults() }, None).unwrap();
        assert_eq!(plan.annotations, Some((Vec::new(), Config::Must)));
        let plan = Plan::new(Options { annotations: vec![AnnotationSource::Source], ..defaults() }, None).unwrap();
        assert_eq!(plan.annotations, Some((vec![AnnotationSource::Source], Config::MayMust)));
    }
}
