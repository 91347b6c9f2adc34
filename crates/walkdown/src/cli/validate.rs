//! `walkdown validate`: replays a Test-Comp suite on the natively compiled
//! program (gcc `--coverage` and walkdown's harness) and reports gcov branch
//! and line coverage, counted as the reference measurement counts them.

use super::DataModelArg;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use walkdown_driver::input::ProgramInput;
use walkdown_ir::DataModel;
use walkdown_native::{validate_units, ExhaustedInputs, NativeOutcome, RunLimits};

/// Arguments of `walkdown validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The program's C files (`.c` or `.i`) the suite was made for.
    #[arg(value_name = "FILE", required_unless_present = "compile_commands")]
    files: Vec<PathBuf>,
    /// The suite directory (metadata.xml and one XML file per test).
    suite: PathBuf,
    #[command(flatten)]
    build: super::BuildArgs,
    #[command(flatten)]
    sandbox: super::SandboxArgs,
    /// Data model; by default the suite metadata's architecture, else LP64.
    #[arg(long = "data-model", value_enum, ignore_case = true)]
    data_model: Option<DataModelArg>,
    /// Seconds each test may run before it is stopped.
    #[arg(long, default_value_t = 2.0)]
    timeout: f64,
    /// End a run with exit status 1 when it asks for more values than the
    /// test has (TestCov's choice) instead of giving it 0.
    #[arg(long)]
    exit_on_exhausted: bool,
    /// Also write the coverage as an lcov tracefile (for genhtml) to this file.
    #[arg(long)]
    lcov: Option<PathBuf>,
}

/// Runs the command.
pub fn validate(args: &ValidateArgs) -> Result<i32> {
    args.sandbox.apply()?;
    let input = args.build.input(&args.files);
    if input.is_one_file() {
        super::check_input_file(&input.files[0], &["c", "i"])?;
        if args.suite.is_file() && args.suite.extension().is_some_and(|e| e == "c") {
            return validate_unit(args, &input.files[0]);
        }
    }
    for file in &input.files {
        walkdown_driver::unit::refuse_native_unit_program(file)?;
    }
    if let Some(dir) = env_tests_dir(&args.suite) {
        return validate_env_tests(args, &input, &dir);
    }
    let suite = walkdown_formats::read_suite(&args.suite)?;
    for (name, error) in &suite.invalid {
        eprintln!("walkdown: warning: skipping {name}: {error}");
    }
    if suite.tests.is_empty() {
        // Coverage of no test is no measurement: printing 0% and exiting 0
        // would pass a script that validates a suite gen never wrote.
        anyhow::bail!(
            "{}: the suite has no tests ({} invalid files skipped); nothing to validate",
            args.suite.display(),
            suite.invalid.len()
        );
    }

    let data_model = match (args.data_model, suite.metadata.as_ref().and_then(|m| m.data_model())) {
        (Some(flag), _) => DataModel::from(flag),
        (None, Some(from_metadata)) => from_metadata,
        (None, None) => DataModel::LP64,
    };
    for test in &suite.tests {
        for warning in super::run::annotated_range_warnings(&test.case, data_model) {
            eprintln!("walkdown: warning: {}: {warning}", test.name);
        }
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let limits = RunLimits {
        timeout: Duration::from_secs_f64(args.timeout),
        on_exhausted: if args.exit_on_exhausted { ExhaustedInputs::Exit } else { ExhaustedInputs::ReturnZero },
        ..RunLimits::default()
    };
    let units = walkdown_driver::load::native_units(&input, data_model)?;
    let vectors = suite.vectors();
    eprintln!("walkdown: running {} tests natively ({data_model})", vectors.len());
    let result = validate_units(&units, &vectors, data_model, &limits, None)
        .with_context(|| format!("cannot validate {}", input.name().display()))?;

    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for run in &result.runs {
        let name = match run.outcome {
            NativeOutcome::Exit(code) => format!("exit {code}"),
            NativeOutcome::ReachError => "reach_error".into(),
            NativeOutcome::AssertionFailure => "assertion failure".into(),
            NativeOutcome::Abort => "abort".into(),
            NativeOutcome::Signal(sig) => format!("signal {sig}"),
            NativeOutcome::Timeout => "timeout".into(),
        };
        *outcomes.entry(name).or_default() += 1;
    }
    // A test whose native run was denied something may differ from
    // walkdown's run for that reason: each says what.
    for (test, run) in suite.tests.iter().zip(&result.runs) {
        if let Some(denied) = run.denied_words() {
            println!("{}: {}; {denied}", test.name, run.outcome.describe());
        }
    }
    let c = &result.coverage;
    println!("tests: {} run, {} invalid files skipped", result.runs.len(), suite.invalid.len());
    let summary: Vec<String> = outcomes.iter().map(|(k, n)| format!("{n} {k}")).collect();
    println!("outcomes: {}", summary.join(", "));
    println!("branches: {} of {} covered ({:.2}%)", c.branches_covered, c.branches_total, c.branch_percent());
    println!("lines: {} of {} covered ({:.2}%)", c.lines_covered, c.lines_total, c.line_percent());
    println!("functions: {} of {} entered", c.functions_covered, c.functions_total);
    if result.units.len() > 1 {
        for (unit, c) in &result.units {
            println!(
                "  {}: branches {} of {}, lines {} of {}",
                unit.path.display(),
                c.branches_covered,
                c.branches_total,
                c.lines_covered,
                c.lines_total
            );
        }
    }
    if let Some(path) = &args.lcov {
        walkdown_driver::lcov::write_coverage_info(path, &walkdown_driver::lcov::unit_files(&result))?;
        println!("lcov: {}", path.display());
    }
    if !result.reach_error_hook && result.reach_error_count() == 0 {
        eprintln!("walkdown: note: the program defines no reach_error, so reaching it was not observable");
    }
    Ok(0)
}

/// Where the tests of a program with an environment are: SUITE itself
/// when it holds `.json` tests, or `env-tests/` beside it when gen wrote
/// them there.
fn env_tests_dir(suite: &Path) -> Option<PathBuf> {
    let has_json = |d: &Path| {
        std::fs::read_dir(d)
            .is_ok_and(|mut es| es.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))))
    };
    if has_json(suite) {
        return Some(suite.to_path_buf());
    }
    let beside = suite.parent()?.join(walkdown_formats::envtest::ENV_TESTS_DIR);
    has_json(&beside).then_some(beside)
}

/// Validates walkdown's tests of a program with an environment: each run
/// gets its arguments, standard input and files natively.
fn validate_env_tests(args: &ValidateArgs, input: &ProgramInput, dir: &Path) -> Result<i32> {
    let tests = walkdown_formats::envtest::read_env_tests(dir)?;
    let Some((_, first)) = tests.first() else { anyhow::bail!("{}: no tests", dir.display()) };
    let environment = first.environment.clone();
    let mut vectors = Vec::new();
    for (name, t) in &tests {
        if t.environment != environment {
            anyhow::bail!("{}/{name}: made in another environment than {}", dir.display(), tests[0].0);
        }
        vectors.push(t.vector().map_err(|e| anyhow::anyhow!("{}/{name}: {e}", dir.display()))?);
    }
    let data_model = args.data_model.map(DataModel::from).unwrap_or(DataModel::LP64);
    let limits = RunLimits { timeout: Duration::from_secs_f64(args.timeout.max(0.001)), ..RunLimits::default() };
    eprintln!(
        "walkdown: running {} tests of {} natively ({data_model}; {})",
        vectors.len(),
        dir.display(),
        environment.describe()
    );
    let units = walkdown_driver::load::native_units(input, data_model)?;
    let result = validate_units(&units, &vectors, data_model, &limits, Some(environment))
        .with_context(|| format!("cannot validate {}", input.name().display()))?;
    for ((name, _), run) in tests.iter().zip(&result.runs) {
        if let Some(denied) = run.denied_words() {
            println!("{name}: {}; {denied}", run.outcome.describe());
        }
    }
    let c = &result.coverage;
    println!(
        "{}: {} tests; lines {:.2}% ({}/{}), branches {:.2}% ({}/{})",
        input.name().display(),
        vectors.len(),
        c.line_percent(),
        c.lines_covered,
        c.lines_total,
        c.branch_percent(),
        c.branches_covered,
        c.branches_total
    );
    Ok(0)
}

/// `validate FILE DIR/unit_tests.c`: the unit tests of `gen --entry`, run
/// natively with gcov coverage of FILE, per function too.
fn validate_unit(args: &ValidateArgs, file: &Path) -> Result<i32> {
    let data_model = args.data_model.map_or(DataModel::LP64, DataModel::from);
    let v = walkdown_native::unit::validate_unit_tests(file, &args.suite, data_model)?;
    for line in &v.lines {
        println!("{line}");
    }
    let c = &v.coverage;
    println!("tests: {} run", v.lines.len());
    println!("branches: {} of {} covered ({:.2}%)", c.branches_covered, c.branches_total, c.branch_percent());
    println!("lines: {} of {} covered ({:.2}%)", c.lines_covered, c.lines_total, c.line_percent());
    for f in v.functions.iter().filter(|f| f.entered) {
        println!("function {}: {} of {} branches", f.name, f.covered, f.branches);
    }
    if let Some(path) = &args.lcov {
        walkdown_driver::lcov::write_coverage_info(path, &[(file, c)])?;
        println!("lcov: {}", path.display());
    }
    Ok(0)
}
