//! `walkdown replay`: one test natively. The program is built with gcc,
//! `-g` and walkdown's harness fed from the test; the run's end (exit code,
//! signal, reach_error, failed assertion, time-out, what the sandbox
//! denied) is printed, or gdb is started on the program with the test's
//! values (outside the sandbox: gdb needs the terminal and ptrace); `--emit-driver` writes
//! the harness with the values compiled in, a standalone C driver.

use super::DataModelArg;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use walkdown_ir::env::Environment;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::DataModel;
use walkdown_native::harness::{input_file_text, ENV_INPUTS};
use walkdown_native::{BuildSettings, NativeBuild, NativeOutcome, RunLimits};

/// Arguments of `walkdown replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The program's C files (`.c` or `.i`).
    #[arg(value_name = "FILE", required_unless_present = "compile_commands")]
    files: Vec<PathBuf>,
    /// The test: a Test-Comp testcase XML file, or a text file with one value a line.
    test: PathBuf,
    #[command(flatten)]
    build: super::BuildArgs,
    #[command(flatten)]
    sandbox: super::SandboxArgs,
    /// Data model; by default the one `metadata.xml` beside the test names, else LP64.
    #[arg(long = "data-model", value_enum, ignore_case = true)]
    data_model: Option<DataModelArg>,
    /// Start gdb on the program with the test's values instead of running it. gdb and the program run outside the sandbox (gdb needs the terminal and to trace the program), with no limits: the run can touch your files and the network.
    #[arg(long, conflicts_with = "emit_driver")]
    gdb: bool,
    /// Write the standalone C driver (the harness with the test's values compiled in) to this file instead of running. For a test with arguments, standard input or files (env-tests/*.json), also OUT.sh beside it, which builds the program with the driver and runs it with them.
    #[arg(long, value_name = "OUT.c")]
    emit_driver: Option<PathBuf>,
    /// Build with AddressSanitizer and UndefinedBehaviorSanitizer, so that out-of-bounds accesses and signed overflow stop the run too (the sanitizer's report is printed).
    #[arg(long)]
    sanitize: bool,
    /// Seconds the run may take before it is stopped.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
}

/// Reads a test file: Test-Comp XML by its extension, else one value a line.
fn read_test(path: &Path) -> Result<(TestVector, Option<Environment>)> {
    if path.is_dir() {
        bail!("{}: is a directory; give one test file (test-suite/test-00000.xml)", path.display());
    }
    if walkdown_formats::envtest::is_env_test_path(path) {
        let test = walkdown_formats::envtest::read_env_test(path)?;
        let vector = test.vector().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok((vector, Some(test.environment)))
    } else if path.extension().is_some_and(|e| e == "xml") {
        Ok((walkdown_formats::read_testcase(path)?.vector, None))
    } else {
        Ok((walkdown_formats::read_lines_file(path)?, None))
    }
}

/// The data model of the suite the test lies in, from its `metadata.xml`.
fn suite_data_model(test: &Path) -> Option<DataModel> {
    let metadata = test.parent()?.join("metadata.xml");
    walkdown_formats::read_metadata(&metadata).ok()?.data_model()
}

/// Runs the command: exit code 1 when the run ends in an error (reach_error,
/// failed assertion, abort, fatal signal, timeout), 0 on a normal exit.
pub fn replay(args: &ReplayArgs) -> Result<i32> {
    args.sandbox.apply()?;
    let input = args.build.input(&args.files);
    for file in &input.files {
        super::check_input_file(file, &["c", "i"])?;
        walkdown_driver::unit::refuse_native_unit_program(file)?;
    }
    let (vector, environment) = read_test(&args.test)?;
    let data_model =
        args.data_model.map(DataModel::from).or_else(|| suite_data_model(&args.test)).unwrap_or(DataModel::LP64);
    let units = walkdown_driver::load::native_units(&input, data_model)?;
    // The program is named by its first unit (a build database's entry).
    let name = units.first().map_or_else(|| input.name(), |u| u.path.clone());
    if let Some(out) = &args.emit_driver {
        // What gcc compiles besides the driver: each unit with its flags.
        let program = units
            .iter()
            .map(|u| u.flags.iter().cloned().chain([u.path.display().to_string()]).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(" ");
        let driver_name = out.file_name().map_or("driver.c".into(), |n| n.to_string_lossy().into_owned());
        // With an environment, the C driver serves the values after it,
        // and a script beside it gives the arguments, input and files.
        let (env_inputs, own) = match &environment {
            Some(env) => {
                let (inputs, own) = env.decode_lenient(&vector.values);
                (Some(inputs), TestVector { values: own })
            }
            None => (None, vector.clone()),
        };
        let text = walkdown_native::driver::standalone_driver(
            &own,
            &program,
            &driver_name,
            data_model,
            &args.test.display().to_string(),
        );
        std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
        if let Some(inputs) = env_inputs {
            return write_env_script(&inputs, out, &units, data_model, &args.test);
        }
        println!(
            "driver: {} ({} values; build with gcc -g {} {} {} -lm)",
            out.display(),
            vector.values.len(),
            walkdown_native::compile::machine_flag(data_model),
            program,
            out.display()
        );
        return Ok(0);
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let settings = BuildSettings {
        debug: true,
        sanitize: args.sanitize,
        environment: environment.clone(),
        ..BuildSettings::default()
    };
    let build = NativeBuild::compile_units(&units, data_model, &settings)
        .with_context(|| format!("cannot build {} natively", name.display()))?;
    if let (true, Some(env)) = (args.gdb, &environment) {
        let (inputs, own) = env.decode_lenient(&vector.values);
        let values = build.build_dir().join("gdb.in");
        std::fs::write(&values, input_file_text(&TestVector { values: own }))
            .with_context(|| format!("cannot write {}", values.display()))?;
        eprintln!(
            "walkdown: gdb on {} with the arguments, standard input and files of {} (`run` starts it; not sandboxed: the run can touch your files)",
            build.executable().display(),
            args.test.display()
        );
        return super::envreplay::gdb(build.executable(), &inputs, &values, ENV_INPUTS, build.build_dir());
    }
    if args.gdb {
        let inputs = build.build_dir().join("gdb.in");
        std::fs::write(&inputs, input_file_text(&vector))
            .with_context(|| format!("cannot write {}", inputs.display()))?;
        eprintln!(
            "walkdown: gdb on {} with the {} values of {} (not sandboxed: the run can touch your files)",
            build.executable().display(),
            vector.values.len(),
            args.test.display()
        );
        let status = std::process::Command::new("gdb")
            .arg("-q")
            .args(["-ex", &format!("set environment {ENV_INPUTS}={}", inputs.display())])
            .arg("--args")
            .arg(build.executable())
            .status()
            .context("cannot start gdb (Debian `gdb`; scripts/setup installs it)")?;
        return Ok(status.code().unwrap_or(1));
    }
    let limits = RunLimits {
        timeout: Duration::from_secs_f64(args.timeout),
        capture_stderr: true,
        // AddressSanitizer reserves terabytes of address space.
        memory_limit_mb: if args.sanitize { None } else { RunLimits::default().memory_limit_mb },
        ..RunLimits::default()
    };
    let run = build.run(&vector, &limits)?;
    let how = if args.sanitize { "gcc -g, ASan+UBSan" } else { "gcc -g" };
    println!("{}: {} ({data_model}, {how}, {:.3} s)", name.display(), run.describe(), run.elapsed.as_secs_f64());
    // What the program or a sanitizer said about how it ended.
    let said = run.stderr.as_deref().unwrap_or("");
    for line in said.lines().filter(|l| {
        l.contains("runtime error:")
            || l.starts_with("SUMMARY:")
            || l.contains("Assertion `")
            || l.contains("ERROR: AddressSanitizer")
    }) {
        // Messages name the build's copies of the units: name the originals.
        let named = build.unit_copies().fold(line.trim().to_string(), |line, (copy, unit)| {
            line.replace(&copy.display().to_string(), &unit.path.display().to_string())
        });
        println!("  {named}");
    }
    if run.harness_reported {
        println!(
            "inputs: {} of {} values read{}{}",
            run.nondet_calls.min(vector.values.len() as u64),
            vector.values.len(),
            if run.inputs_exhausted {
                format!("; {} more asked for and given 0", run.nondet_calls - vector.values.len() as u64)
            } else {
                String::new()
            },
            if run.assume_failed { "; an __VERIFIER_assume failed (the run ended there)" } else { "" }
        );
    }
    if !build.has_reach_error_hook() {
        eprintln!("walkdown: note: gcc refused -finstrument-functions on this program, so entry into its own reach_error is seen only through __assert_fail");
    }
    Ok(if matches!(run.outcome, NativeOutcome::Exit(_)) { 0 } else { 1 })
}

/// Writes the script that replays an environment test beside its C
/// driver `driver` (see [`super::envreplay`]) and says how to run it.
fn write_env_script(
    inputs: &walkdown_ir::env::EnvInputs,
    driver: &Path,
    units: &[walkdown_ir::units::Unit],
    data_model: DataModel,
    test: &Path,
) -> Result<i32> {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let quote = |w: &str| super::envreplay::shell_quote(w.as_bytes()).to_string();
    let units: Vec<String> = units
        .iter()
        .map(|u| {
            let mut words: Vec<String> = u.flags.iter().map(|f| quote(f)).collect();
            words.push(quote(&absolute(&u.path).display().to_string()));
            words.join(" ")
        })
        .collect();
    let script = driver.with_extension("sh");
    let text = super::envreplay::driver_script(
        inputs,
        &absolute(driver),
        &units.join(" "),
        walkdown_native::compile::machine_flag(data_model),
        &test.display().to_string(),
    );
    std::fs::write(&script, text).with_context(|| format!("cannot write {}", script.display()))?;
    println!(
        "driver: {} (the program's own values) and {} (builds it with the program and runs it with the test's \
         arguments, standard input and files: sh {})",
        driver.display(),
        script.display(),
        script.display()
    );
    Ok(0)
}
