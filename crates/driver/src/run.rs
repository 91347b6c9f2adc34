//! The run of a [`Plan`]: one campaign, in these steps.
//!
//! 1. **Load**: in unit mode the harness program is made first; the
//!    program is lowered and its goals numbered.
//! 2. **Campaign**: the goal table and the test ledger (whose sink writes
//!    each kept test at once), with the native check of every error test
//!    ([`crate::crosscheck`]). Nothing in OUT
//!    is touched before this succeeds; then OUT is locked and cleared of
//!    the previous run's files ([`crate::outdir`]).
//! 3. **Static pass** ([`crate::static_pass`]): the abstract
//!    interpretation claims what it proves; then the **complete run**
//!    ([`crate::complete_run`]): a program that reads no input and whose
//!    one execution ends has every other goal proved unreachable.
//! 4. **Instrument and verify** ([`annotate`]): the verification
//!    annotations' statuses, and the instrumented program the concolic
//!    engine traces, checked by the IR verifier.
//! 5. **Engines** ([`crate::engines`]) and the **portfolio**, with
//!    `report.json` refreshed about once a second.
//! 6. **Certify** ([`crate::certify`]) and write the results: the witness,
//!    the unit tests, `report.json`, SARIF, HTML, lcov.
//!
//! The result is an [`Outcome`] in memory; what is printed is the
//! caller's business (through the [`Handler`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use walkdown_campaign::{
    Campaign, CampaignSettings, KeptTest, MemoryBound, NativeVerdict, PortfolioSettings, Property, ReplayTime,
    Snapshot, TestSink, Verdict, NOT_IN_THIS_MODE,
};
use walkdown_cegar::{CegarEngine, ExplicitEngine, HornEngine, HornEngineSettings};
use walkdown_formats::envtest::{EnvTest, ENV_TESTS_DIR};
use walkdown_formats::report::{AnnotationsEntry, Report};
use walkdown_formats::{Metadata, Specification, TestCase};
use walkdown_ir::goals::{GoalId, GoalKind, Goals};
use walkdown_ir::source::SourceInfo;
use walkdown_ir::units::Unit;
use walkdown_ir::Program;

use crate::certify::Certify;
use crate::engines::Members;
use crate::error::{DriverError, Step};
use crate::input::ProgramInput;
use crate::outcome::{Handler, Notice, Outcome};
use crate::outdir::{self, Manifest, OutLock};
use crate::plan::{EngineKind, Plan};
use crate::report::{
    make_report, spec_name, test_file_name, write_errors_sarif, write_html_report, write_report, HTML_FILE,
};
use crate::static_pass::{static_share, StaticPass};
use crate::unit::{self, Prepared};
use crate::witness::WITNESS_FILE;

/// The suite's directory in OUT.
pub const SUITE_DIR: &str = "test-suite";
/// The report's name in OUT.
pub const REPORT_FILE: &str = "report.json";
/// The SARIF log of the errors found, in OUT.
pub const SARIF_FILE: &str = "errors.sarif";
/// The lcov tracefile's name in OUT (`--lcov`).
pub const LCOV_FILE: &str = "coverage.info";
/// Where a program of several units keeps them compiled, in OUT (see
/// `walkdown_frontend::FrontendSettings::unit_cache`): written while the
/// program lowers, before OUT is locked, each entry whole (renamed into
/// place), so two runs into one OUT at once can share it.
pub const UNIT_CACHE_DIR: &str = ".walkdown-cache/units";

/// The program as the run reads it.
struct Loaded {
    /// The file the results name (in unit mode, `OUT/NAME-unit.c`).
    file: PathBuf,
    /// The file lowered (in unit mode, the harness program's scratch copy).
    load_from: PathBuf,
    /// The unit, in unit mode.
    unit: Option<Prepared>,
    program: Program,
    sources: SourceInfo,
    goals: Goals,
    /// The units the program is made of, the first `file`'s (what native
    /// builds compile).
    units: Vec<Unit>,
}

/// Runs `plan`; `interrupt` (set by Ctrl-C) stops it at the engines' next
/// checkpoints with every file whole.
pub fn run(plan: &Plan, handler: &mut dyn Handler, interrupt: &AtomicBool) -> Result<Outcome, DriverError> {
    let started = Instant::now();
    let loaded = load(plan)?;
    walkdown_smt::tally::reset();
    if let Some(backend) = plan.options.solver {
        walkdown_smt::backend::select(backend);
    }
    walkdown_smt::dump::configure(plan.options.dump_queries.as_deref(), &plan.program.display().to_string())
        .map_err(|e| DriverError::step(Step::Campaign, e))?;
    let suite_dir = plan.out.join(SUITE_DIR);
    let budget = campaign_budget(plan.budget, started.elapsed());
    let (snapshot, report, engine_failures) = campaign(plan, budget, &loaded, handler, interrupt)?;
    Ok(Outcome {
        program: loaded.program,
        goals: loaded.goals,
        snapshot,
        report,
        engine_failures,
        suite_dir,
        out: plan.out.clone(),
        units: loaded.units,
    })
}

/// What the campaign gets of `--time` after loading took `loading`: the
/// rest, so that a run takes the time asked for whatever the size of the
/// program (compiling a project's units and the C library's takes seconds),
/// but at least half of it: where loading takes most of a small budget
/// (a busy machine, a short `--time`), a run that overshoots but tests is
/// worth more than one that keeps to the second and writes an empty suite.
fn campaign_budget(budget: Duration, loading: Duration) -> Duration {
    budget.saturating_sub(loading).max(budget / 2)
}

/// Step 1: the unit (in unit mode) and the program with its goals.
fn load(plan: &Plan) -> Result<Loaded, DriverError> {
    let unit = match &plan.options.unit {
        Some(u) => Some(
            unit::prepare(&plan.program, u, plan.data_model == walkdown_ir::DataModel::ILP32)
                .map_err(|e| DriverError::step(Step::Unit, e))?,
        ),
        None => None,
    };
    let (input, cache) = match &unit {
        Some(u) => (ProgramInput::file(&u.scratch_file), None),
        // Several units are compiled once for all runs into OUT.
        None => (plan.input.clone(), (!plan.input.is_one_file()).then(|| plan.out.join(UNIT_CACHE_DIR))),
    };
    let loaded = crate::load::load_input(&input, plan.data_model, cache.as_deref(), &plan.options.environment)
        .map_err(|e| DriverError::step(Step::Load, e))?;
    let (mut program, sources, units) = (loaded.program, loaded.source_info, loaded.units);
    // The results name the first unit (a build database's entry unit).
    let load_from = units[0].path.clone();
    let file = match &unit {
        Some(_) => plan.out.join(unit::harness_file_name(&plan.program)),
        None => load_from.clone(),
    };
    if unit.is_some() {
        // (Loading instrumented the unit program's lazy slots.) Locations
        // name the user's file: the unit program keeps its lines, and the
        // harness after them has no goals.
        if let Some((_, name)) = program.files.iter_mut().next() {
            *name = plan.program.display().to_string();
        }
    }
    // In unit mode the harness's branches (its choices) are explored but
    // are not goals: coverage is the code under test's.
    let goals = walkdown_unit::lazy::goals(&program);
    Ok(Loaded { file, load_from, unit, program, sources, goals, units })
}

/// Writes each kept test as Test-Comp XML at once, listing it in the
/// manifest first.
/// For a program with an environment, each test is also written in
/// walkdown's own format into `env-tests/` (see
/// `walkdown_formats::envtest`): the XML's vector begins with the
/// environment's values, which only walkdown's interpreter reads as such.
struct SuiteWriter {
    suite_dir: PathBuf,
    manifest: Arc<Manifest>,
    environment: Option<(walkdown_ir::env::Environment, PathBuf)>,
}

impl TestSink for SuiteWriter {
    fn test(&mut self, test: &KeptTest) -> Result<(), String> {
        let mut case = TestCase::new(test.vector.clone()).with_types(&test.types);
        case.covers_error = test.error.is_some_and(|e| e.kind == walkdown_ir::CheckKind::ReachError);
        if case.annotations.len() != case.vector.values.len() {
            case.annotations.clear();
        }
        let name = test_file_name(test.index);
        if let Some((env, dir)) = &self.environment {
            if let Some(t) = EnvTest::from_vector(env, &case.vector, case.covers_error) {
                let json = name.replace(".xml", ".json");
                self.manifest.record(&format!("{ENV_TESTS_DIR}/{json}"))?;
                walkdown_formats::envtest::write_env_test(&dir.join(json), &t).map_err(|e| e.to_string())?;
            }
        }
        self.manifest.record(&format!("{SUITE_DIR}/{name}"))?;
        walkdown_formats::write_testcase(&self.suite_dir.join(name), &case).map_err(|e| e.to_string())
    }
}

/// Whether `name` (relative to OUT) is a name `gen` gives a test.
fn is_test_file_name(name: &str) -> bool {
    let Some(base) = name.strip_prefix(SUITE_DIR).and_then(|n| n.strip_prefix('/')) else {
        return false;
    };
    base.strip_prefix("test-")
        .and_then(|n| n.strip_suffix(".xml"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// What the campaign step returns: the last snapshot, the final report,
/// the engines that failed.
type Finished = (Snapshot, Report, Vec<(EngineKind, String)>);

/// Steps 2 to 6 on the loaded program.
fn campaign(
    plan: &Plan,
    budget: Duration,
    l: &Loaded,
    handler: &mut dyn Handler,
    interrupt: &AtomicBool,
) -> Result<Finished, DriverError> {
    let metadata = metadata(plan, l).map_err(|e| DriverError::step(Step::Load, e))?;
    let manifest = Arc::new(Manifest::new(&plan.out));
    let campaign = open_campaign(plan, budget, l, &manifest, interrupt)?;
    if interrupt.load(Ordering::Relaxed) {
        return Err(DriverError::Interrupted { out: plan.out.clone() });
    }
    let _lock = prepare_out_dir(plan, l, &metadata, &manifest, handler)?;
    if let Some(u) = &l.unit {
        for line in u.contract_lines() {
            handler.notice(Notice::Info(line));
        }
        for note in &u.notes {
            handler.notice(Notice::Note(note.clone()));
        }
    }
    let statics = StaticPass::run(plan, &campaign, &l.program, &l.goals, handler);
    crate::complete_run::run(&campaign, plan.budget, handler);
    let (instrumented, annotations) = annotate(plan, &campaign, l, handler)?;
    let cegar_settings = crate::engines::cegar_settings(plan);
    let mut cegar = plan.has(EngineKind::Cegar).then(|| CegarEngine::new(cegar_settings.clone()));
    let mut horn = plan.has(EngineKind::Horn).then(|| HornEngine::new(HornEngineSettings::default()));
    let mut explicit =
        plan.has(EngineKind::Explicit).then(|| ExplicitEngine::new(crate::engines::explicit_settings(plan)));
    let Members { engines, described, bmc_kept } = crate::engines::build(
        plan,
        &l.program,
        &statics,
        instrumented,
        cegar.as_mut(),
        horn.as_mut(),
        explicit.as_mut(),
    );
    let portfolio = PortfolioSettings {
        jobs: plan.jobs.unwrap_or(PortfolioSettings::default().jobs),
        ..PortfolioSettings::default()
    };
    let header = header(plan, l, &described, &portfolio, annotations);
    let mut watch = Watch { warned: 0 };
    let ends = {
        let report_path = plan.out.join(REPORT_FILE);
        let mut observe = |c: &Campaign<'_>| watch.observe(c, l, &header, &report_path, handler, interrupt);
        walkdown_campaign::run_portfolio(&campaign, engines, &plan.options.shares, &portfolio, &mut observe)
    };
    let snap = campaign.snapshot();
    watch.unmodelled(&snap, handler);
    native_warnings(&snap, handler);
    let status = if interrupt.load(Ordering::Relaxed) { "interrupted" } else { "finished" };
    let mut report = make_report(&header, &l.program, &l.goals, &snap, status);
    if snap.conflicts.is_empty() {
        let certify = Certify {
            plan,
            program_file: &l.file,
            several_files: l.units.len() > 1,
            program: &l.program,
            goals: &l.goals,
            sources: &l.sources,
            campaign: &campaign,
            relational: statics.relational.as_ref(),
            induction_kept: &bmc_kept.lock().map(|k| k.clone()).unwrap_or_default(),
            cegar_settings: &cegar_settings,
            interrupt,
        };
        report.witness = certify.witness(&snap, cegar.as_mut(), horn.as_mut(), explicit.and_then(|e| e.certificate));
        if report.witness.as_ref().is_some_and(|w| w.status == "written") {
            manifest.record(WITNESS_FILE).map_err(|e| DriverError::Step { step: Step::Write, message: e })?;
        }
    }
    write_results(plan, l, &snap, &mut report, handler)?;
    let failures =
        plan.engines.iter().zip(&ends).filter_map(|(e, end)| end.as_ref().err().map(|error| (*e, error.to_string())));
    let failures = failures.collect();
    Ok((snap, report, failures))
}

/// Hands memory glibc's allocator holds free back to the system, so what
/// the memory bound drops shows in the resident size.
fn trim() {
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Says once what the native check left open: error tests through
/// functions without a model that were not kept, errors the native run
/// does not reproduce (they do not count for the exit code), errors it
/// could not check (and why).
fn native_warnings(snap: &Snapshot, handler: &mut dyn Handler) {
    let mut warn = |w: String| handler.notice(Notice::Warning(format!("walkdown: warning: {w}")));
    if snap.refuted_count > 0 {
        warn(format!(
            "{} error tests not kept: their runs called functions without a model and the native run did not reach the error (listed in report.json, refuted_tests)",
            snap.refuted_count
        ));
    }
    let natives: Vec<_> = snap.errors.iter().map(|(_, t)| snap.native(*t)).collect();
    let unconfirmed = natives.iter().filter(|v| matches!(v, NativeVerdict::Refuted(_))).count();
    if unconfirmed > 0 {
        warn(format!(
            "{unconfirmed} of {} errors are unconfirmed: the interpreter reaches them but the native run of their tests does not (native outcomes in report.json); they do not count for the exit code",
            natives.len()
        ));
    }
    // Unit mode says nothing: `check` confirms its errors.
    let unchecked = |v: &&NativeVerdict| matches!(v, NativeVerdict::Unchecked(why) if why != NOT_IN_THIS_MODE);
    if let Some(NativeVerdict::Unchecked(why)) = natives.iter().find(unchecked) {
        let n = natives.iter().filter(unchecked).count();
        warn(format!("{n} errors not checked natively: {why}"));
    }
}

/// The campaign on the loaded program. The campaign prepares the
/// interpreter, which refuses a program it cannot run (no `main`): that
/// too must leave an earlier run's output as it was, so the output
/// directory is touched only after this.
fn open_campaign<'p>(
    plan: &Plan,
    budget: Duration,
    l: &'p Loaded,
    manifest: &Arc<Manifest>,
    interrupt: &'p AtomicBool,
) -> Result<Campaign<'p>, DriverError> {
    let mut settings = CampaignSettings { time: budget, property: plan.property, ..CampaignSettings::default() };
    settings.replay.max_call_depth = plan.options.max_call_depth;
    if let Some(n) = plan.options.max_steps {
        settings.replay.max_steps = n;
    }
    let environment = l.program.environment.clone().map(|e| (e, plan.out.join(ENV_TESTS_DIR)));
    let writer = SuiteWriter { suite_dir: plan.out.join(SUITE_DIR), manifest: manifest.clone(), environment };
    let campaign = Campaign::new(&l.program, &l.goals, settings, Box::new(writer), interrupt).map_err(|e| {
        DriverError::step(Step::Campaign, anyhow::Error::new(e).context(format!("cannot run {}", l.file.display())))
    })?;
    // Without a step limit of the user's, a replay the default one cuts is
    // run again for a share of the budget: a goal behind a long loop is not
    // left open while time remains.
    let campaign =
        if plan.options.max_steps.is_none() { campaign.with_replay_time(ReplayTime::default()) } else { campaign };
    let campaign = campaign.with_fast_forward(!plan.options.no_fast_forward);
    let campaign = match plan.options.max_memory_mb.or_else(crate::plan::default_max_memory_mb) {
        Some(mb) => campaign.with_memory_bound(MemoryBound { bytes: mb.saturating_mul(1 << 20), trim: Some(trim) }),
        None => campaign,
    };
    // Error tests run natively before they are kept (see `crosscheck`).
    // Not in unit mode: the unit program built natively has no lazy
    // slots' calls (its tests run natively as unit_tests.c, which `check`
    // compiles and runs).
    if l.unit.is_some() {
        return Ok(campaign);
    }
    let deadline = Instant::now() + budget;
    Ok(campaign.with_error_check(Box::new(crate::crosscheck::NativeCheck::new(
        l.units.clone(),
        l.program.data_model,
        l.program.environment.clone(),
        deadline,
    ))))
}

/// Locks OUT, removes the previous run's files and lists this run's fixed
/// files in the manifest; writes the suite's metadata (and in unit mode
/// the harness program).
fn prepare_out_dir(
    plan: &Plan,
    l: &Loaded,
    metadata: &Metadata,
    manifest: &Manifest,
    handler: &mut dyn Handler,
) -> Result<OutLock, DriverError> {
    let fail = |e: anyhow::Error| DriverError::step(Step::OutDir, e);
    let record = |name: &str| manifest.record(name).map_err(|e| DriverError::Step { step: Step::OutDir, message: e });
    let lock = outdir::lock_out_dir(&plan.out, &l.file).map_err(fail)?;
    let suite_dir = plan.out.join(SUITE_DIR);
    let metadata_name = format!("{SUITE_DIR}/metadata.xml");
    let harness_name = l.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut ours = vec![REPORT_FILE, SARIF_FILE, HTML_FILE, LCOV_FILE, WITNESS_FILE, metadata_name.as_str()];
    if l.unit.is_some() {
        ours.extend([unit::UNIT_TESTS_FILE, harness_name.as_str()]);
    }
    let others = manifest.begin(&ours, is_test_file_name, SUITE_DIR).map_err(fail)?;
    if !others.is_empty() {
        handler.notice(Notice::Warning(format!(
            "walkdown: warning: {} holds {} files walkdown did not write (left as they are, and read as tests by validators): {}",
            suite_dir.display(),
            others.len(),
            others.iter().map(|n| n.trim_start_matches(SUITE_DIR).trim_start_matches('/')).collect::<Vec<_>>().join(", ")
        )));
    }
    std::fs::create_dir_all(&suite_dir)
        .map_err(|e| fail(anyhow::Error::new(e).context(format!("cannot create {}", suite_dir.display()))))?;
    if l.program.environment.is_some() {
        let dir = plan.out.join(ENV_TESTS_DIR);
        std::fs::create_dir_all(&dir)
            .map_err(|e| fail(anyhow::Error::new(e).context(format!("cannot create {}", dir.display()))))?;
    }
    record(&metadata_name)?;
    walkdown_formats::write_metadata(&suite_dir.join("metadata.xml"), metadata).map_err(|e| fail(e.into()))?;
    if let Some(u) = &l.unit {
        record(&harness_name)?;
        record(unit::UNIT_TESTS_FILE)?;
        std::fs::write(&l.file, &u.text)
            .map_err(|e| fail(anyhow::Error::new(e).context(format!("cannot write {}", l.file.display()))))?;
    }
    for name in [REPORT_FILE, SARIF_FILE, HTML_FILE] {
        record(name)?;
    }
    if plan.options.lcov {
        record(LCOV_FILE)?;
    }
    Ok(lock)
}

/// The suite's metadata: the program's hash, the property, the producer.
fn metadata(plan: &Plan, l: &Loaded) -> anyhow::Result<Metadata> {
    let spec = match plan.property {
        Property::CoverBranches => Specification::CoverBranches,
        Property::CoverError | Property::AllErrors => Specification::CoverError,
    };
    let mut metadata = Metadata::for_program(&l.load_from, spec, l.program.data_model, PRODUCER)?;
    metadata.program_file = l.file.display().to_string();
    Ok(metadata)
}

/// The producer, as the suite's metadata and the report name it.
pub const PRODUCER: &str = concat!("walkdown ", env!("CARGO_PKG_VERSION"));

/// What the report says of the run that the campaign does not know.
fn header(
    plan: &Plan,
    l: &Loaded,
    described: &[String],
    portfolio: &PortfolioSettings,
    annotations: Option<AnnotationsEntry>,
) -> Report {
    let workers = if portfolio.jobs == 1 { "" } else { "s" };
    // A program of several files lists them, and the words that name it.
    let several = l.units.len() > 1;
    Report {
        program: l.file.display().to_string(),
        sources: if several { l.units.iter().map(|u| u.path.display().to_string()).collect() } else { Vec::new() },
        program_args: if plan.input.is_one_file() { Vec::new() } else { plan.input.words() },
        producer: PRODUCER.into(),
        property: spec_name(plan.property).into(),
        data_model: l.program.data_model.to_string(),
        search: format!("{} on {} worker{workers}", described.join(" + "), portfolio.jobs),
        seed: plan.options.seed,
        annotations,
        ..Default::default()
    }
}

/// What the portfolio's observer keeps between calls.
struct Watch {
    /// Unmodelled functions already warned about.
    warned: usize,
}

impl Watch {
    /// Warns about external functions without a model the campaign met
    /// since the last call.
    fn unmodelled(&mut self, snap: &Snapshot, handler: &mut dyn Handler) {
        for name in snap.unmodelled.iter().skip(self.warned) {
            handler.notice(Notice::Unmodelled(name.clone()));
        }
        self.warned = snap.unmodelled.len();
    }

    /// One look at the running campaign: warnings, progress, and the
    /// report refreshed.
    fn observe(
        &mut self,
        c: &Campaign<'_>,
        l: &Loaded,
        header: &Report,
        report_path: &Path,
        handler: &mut dyn Handler,
        interrupt: &AtomicBool,
    ) {
        let snap = c.snapshot();
        self.unmodelled(&snap, handler);
        handler.progress(&snap, l.goals.len());
        // Once a stop is asked for, the report says so at once: engines may
        // take a while to reach a checkpoint (a long solver query), and a
        // supervisor that kills the process after its grace period must not
        // leave a report that claims the run is still going.
        let status = if interrupt.load(Ordering::Relaxed) { "interrupted" } else { "running" };
        if let Err(e) = write_report(report_path, header, &l.program, &l.goals, &snap, status) {
            handler.notice(Notice::Warning(format!("walkdown: warning: cannot write {}: {e}", report_path.display())));
        }
    }
}

/// Step 4: the annotations' statuses for the report and, with errors as
/// the goal, the instrumented program the concolic engine traces.
fn annotate(
    plan: &Plan,
    campaign: &Campaign<'_>,
    l: &Loaded,
    handler: &mut dyn Handler,
) -> Result<(Option<Arc<Program>>, Option<AnnotationsEntry>), DriverError> {
    let Some((sources, config)) = &plan.annotations else {
        return Ok((None, None));
    };
    let (program, goals) = (&l.program, &l.goals);
    let proved: Vec<GoalId> = campaign
        .snapshot()
        .goals
        .iter()
        .enumerate()
        .filter(|(_, g)| matches!(g.verdict, Verdict::Unreachable(_)))
        .map(|(i, _)| walkdown_ir::entity::EntityRef::new(i))
        .collect();
    let mut figures = std::collections::BTreeMap::new();
    // The no-overflow pass gets the static analyses' share of the budget.
    let self_limit = static_share(plan.budget);
    let eva = &plan.options.eva;
    let read = crate::annotations::read(program, &l.file, goals, sources, &proved, self_limit, eva, &mut figures)
        .map_err(|e| DriverError::step(Step::Annotations, e))?;
    if let Some(w) = read.warning {
        handler.notice(Notice::Warning(w));
    }
    let a = read.annotations;
    let instrumented = if plan.property == Property::CoverBranches {
        figures.insert(
            "reason".into(),
            "not used: the search covers branches (annotations guide --property coverage-error and errors only)".into(),
        );
        None
    } else {
        instrument(plan, l, &a, *config, &mut figures, handler)?
    };
    let entry = crate::annotations::entry(program, goals, &a, sources, *config, figures);
    Ok((instrumented, Some(entry)))
}

/// The annotation pass's instrumented program, verified; `None` when the
/// configuration does not guide the search or the pass cannot run.
fn instrument(
    plan: &Plan,
    l: &Loaded,
    a: &walkdown_annot::Annotations,
    config: walkdown_annot::Config,
    figures: &mut std::collections::BTreeMap<String, String>,
    handler: &mut dyn Handler,
) -> Result<Option<Arc<Program>>, DriverError> {
    let goals = &l.goals;
    // coverage-error aims at reach_error and assertions; `errors` at every
    // check, runtime checks included.
    let all_errors = plan.property == Property::AllErrors;
    let targets = |g| match all_errors {
        true => matches!(goals.goals[g].kind, GoalKind::Error { .. }),
        false => walkdown_annot::collect::is_user_property(goals, g),
    };
    let max = walkdown_annot::MAX_IDS;
    match walkdown_annot::instrument(&l.program, goals, a, config, &targets) {
        Ok((p, inst)) => {
            figures.insert("prunes".into(), inst.prunes.to_string());
            figures.insert("tryfirsts".into(), inst.tryfirsts.to_string());
            figures.insert("assumed_sites".into(), inst.assumed_sites.to_string());
            if let (Some(m), false) = (&inst.merged, config == walkdown_annot::Config::Uv) {
                handler.notice(Notice::Note(format!(
                    "walkdown: note: {} assumption ids; the annotation pass handles at most {max}: it merges {m} into one (they hold together), which prunes less",
                    a.assumptions.len()
                )));
                figures.insert("merged_ids".into(), m.clone());
            }
            if config == walkdown_annot::Config::Uv {
                return Ok(None);
            }
            walkdown_ir::verify::verify_program(&p).map_err(|e| DriverError::BrokenInstrumentation(e.to_string()))?;
            Ok(Some(Arc::new(p)))
        }
        Err(walkdown_annot::NoInference::TooManyIds(n)) => {
            handler.notice(Notice::Warning(format!(
                "walkdown: warning: {n} assumption ids, too many of them negated in premises to merge; the annotation pass handles at most {max}: the search is not guided"
            )));
            figures.insert("reason".into(), format!("{n} assumption ids (at most {max})"));
            Ok(None)
        }
        Err(walkdown_annot::NoInference::NoMain) => {
            figures.insert("reason".into(), "no main".into());
            Ok(None)
        }
    }
}

/// Step 6's files: the unit tests, `report.json`, SARIF, the HTML report
/// and (`--lcov`) the native coverage. The HTML report and lcov are
/// extras: their failures are warnings.
fn write_results(
    plan: &Plan,
    l: &Loaded,
    snap: &Snapshot,
    report: &mut Report,
    handler: &mut dyn Handler,
) -> Result<(), DriverError> {
    let fail = |e: anyhow::Error| DriverError::step(Step::Write, e);
    let suite_dir = plan.out.join(SUITE_DIR);
    if let Some(u) = &l.unit {
        unit::finish(u, &plan.out, snap, &l.program, &l.goals, report).map_err(fail)?;
    }
    walkdown_formats::report::write_report(&plan.out.join(REPORT_FILE), report).map_err(|e| fail(e.into()))?;
    write_errors_sarif(&plan.out.join(SARIF_FILE), report, &suite_dir).map_err(fail)?;
    let mut warn = |w: String| handler.notice(Notice::Warning(w));
    if let Err(e) = write_html_report(&plan.out.join(HTML_FILE), report, &suite_dir, None, &mut warn) {
        handler.notice(Notice::Warning(format!("walkdown: warning: cannot write the HTML report: {e:#}")));
    }
    if plan.options.lcov && !snap.tests.is_empty() {
        let path = plan.out.join(LCOV_FILE);
        if let Err(e) = write_lcov(plan, l, &path, &suite_dir) {
            handler.notice(Notice::Warning(format!("walkdown: warning: cannot write {}: {e:#}", path.display())));
        }
    }
    Ok(())
}

/// Replays the suite natively and writes its coverage to `path`. A unit's
/// tests run natively as unit_tests.c (the unit program built natively
/// lacks its lazy slots' calls): the coverage is the original program's.
fn write_lcov(plan: &Plan, l: &Loaded, path: &Path, suite_dir: &Path) -> anyhow::Result<()> {
    match &l.unit {
        Some(u) => {
            let tests = plan.out.join(unit::UNIT_TESTS_FILE);
            let v = walkdown_native::unit::validate_unit_tests(&u.original, &tests, l.program.data_model)?;
            crate::lcov::write_coverage_info(path, &[(&u.original, &v.coverage)])
        }
        None => crate::lcov::replay_and_write(path, &l.units, suite_dir, l.program.data_model).map(|_| ()),
    }
}
