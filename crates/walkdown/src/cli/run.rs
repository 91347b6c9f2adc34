//! `walkdown run`: one test vector through the concrete interpreter, with
//! the outcome, the error site and the goals the run covered.

use super::{load_in_env, ProgramArgs};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use walkdown_formats::TestCase;
use walkdown_interp::{ConsumedInput, ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::env::{ArgBound, Environment};
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::{DataModel, Program, Type};

/// Arguments of `walkdown run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// The test: a Test-Comp testcase XML file, walkdown's test of a
    /// program with an environment (`env-tests/*.json`), or a text file
    /// with one value a line.
    #[arg(long, conflicts_with = "inputs")]
    test: Option<PathBuf>,
    /// The environment of an XML or text test's program (a `.json` test
    /// names its own).
    #[command(flatten)]
    env: super::env::EnvArgs,
    /// The test's values, comma-separated (decimal, negative or 0x hex), e.g. `--inputs 1,-2,0x3`.
    #[arg(long, allow_hyphen_values = true)]
    inputs: Option<String>,
    /// Steps (IR instructions) after which the run is stopped.
    #[arg(long, default_value_t = ExecLimits::default().max_steps)]
    max_steps: u64,
    /// Calls nested deeper than this many frames (main is 1) stop the run
    /// ("stopped at the call-depth limit").
    #[arg(long, default_value_t = ExecLimits::default().max_call_depth)]
    max_call_depth: u32,
    /// Run every loop iteration by iteration: no fast-forwarding of
    /// deterministic loops (the result is the same, only slower; for
    /// checking).
    #[arg(long)]
    no_fast_forward: bool,
    /// Print how often each source line ran (lines that ran, as gcov
    /// counts them; loop iterations fast-forwarding jumped over count).
    #[arg(long)]
    line_counts: bool,
    /// Print every goal the run covered, not only the count.
    #[arg(long, short)]
    verbose: bool,
    /// Print what the program writes to standard output (`printf` with
    /// integer, character and string conversions, `puts`, `putchar`),
    /// verbatim, before the report.
    #[arg(long)]
    show_output: bool,
}

/// Reads the test named by `--test` or `--inputs`, with the environment
/// it was made in when it names one.
fn read_vector(args: &RunArgs) -> Result<(TestVector, Option<Environment>)> {
    if let Some(path) = args.test.as_ref().filter(|p| walkdown_formats::envtest::is_env_test_path(p)) {
        let test = walkdown_formats::envtest::read_env_test(path)?;
        let vector = test.vector().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        return Ok((vector, Some(test.environment)));
    }
    read_plain_vector(args).map(|v| (v, None))
}

/// The environment request that gives a program exactly `env`.
fn exactly(env: &Environment) -> walkdown_driver::EnvRequest {
    walkdown_driver::EnvRequest {
        off: false,
        args: Some(env.args.unwrap_or(ArgBound { count: 0, len: 0 })),
        stdin: Some(env.stdin.unwrap_or(0)),
        files: env.files.clone(),
    }
}

fn read_plain_vector(args: &RunArgs) -> Result<TestVector> {
    match (&args.test, &args.inputs) {
        (Some(path), _) => {
            if path.extension().is_some_and(|e| e == "xml") {
                Ok(walkdown_formats::read_testcase(path)?.vector)
            } else {
                Ok(walkdown_formats::read_lines_file(path)?)
            }
        }
        (None, Some(list)) => walkdown_formats::parse_value_list(list).context("--inputs"),
        (None, None) => bail!("give the test with --test FILE or --inputs 1,-2,3"),
    }
}

/// Whether integer `v` survives conversion to a `bits`-wide integer: it is
/// in range for the signed or the unsigned type of that width. A value in
/// range for the other signedness (`-1` for an `unsigned`, `4294967295`
/// for an `int`) is the same bit pattern, which test generators write
/// either way; a value beyond both loses bits.
fn fits_width(v: i128, bits: u32) -> bool {
    if bits >= 128 {
        return true;
    }
    let lo = -(1i128 << (bits - 1));
    let hi = (1i128 << bits) - 1;
    (lo..=hi).contains(&v)
}

/// A warning for each value of `vector` that the run read as an integer
/// type it does not fit (300 for an `unsigned char`). Warnings, not errors:
/// Test-Comp converts a value to the type of the `nondet` that reads it as a
/// C cast does, so the test is valid and runs the same natively (300 is
/// read as 44 by walkdown and by validators alike), but whoever wrote it
/// most likely meant another value or another type.
pub fn range_warnings(program: &Program, vector: &TestVector, inputs: &[ConsumedInput]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (i, (value, input)) in vector.values.iter().zip(inputs).enumerate() {
        let InputValue::Int(v) = *value else { continue };
        if matches!(input.ty, Type::F32 | Type::F64 | Type::I1) {
            continue;
        }
        let bits = input.ty.bits(program.data_model);
        if !fits_width(v, bits) {
            let read = InputValue::from_bits(input.ty, input.signed, input.bits, program.data_model);
            let read = match read {
                InputValue::Int(r) => r.to_string(),
                InputValue::Float(f) => f.to_string(),
            };
            warnings.push(format!(
                "input {} (counting from 1) is {v}, out of range for the {}{bits}-bit integer the program reads it as; it wraps to {read}, as a C cast (and a validator) converts it",
                i + 1,
                if input.signed { "signed " } else { "unsigned " },
            ));
        }
    }
    warnings
}

/// The width and signedness of a C integer type named in a test file's
/// `type` attribute, `None` for names this does not know (typedefs).
fn c_integer_type(name: &str, dm: DataModel) -> Option<(u32, bool)> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let unsigned = words.contains(&"unsigned");
    // `int` only completes the other words (`short int`, `unsigned int`).
    let rest: Vec<&str> = words.iter().copied().filter(|w| !matches!(*w, "unsigned" | "signed" | "int")).collect();
    let long_bits = match dm {
        DataModel::LP64 => 64,
        DataModel::ILP32 => 32,
    };
    let bits = match rest.as_slice() {
        ["char"] => 8,
        ["short"] => 16,
        [] => 32,
        ["long"] => long_bits,
        ["long", "long"] => 64,
        _ => return None,
    };
    Some((bits, !unsigned))
}

/// A warning for each value of a test file whose `type` attribute names a
/// C integer type the value does not fit (see [`range_warnings`]; this is
/// what `validate` can check without running the interpreter).
pub fn annotated_range_warnings(case: &TestCase, dm: DataModel) -> Vec<String> {
    let mut warnings = Vec::new();
    for (i, (value, note)) in case.vector.values.iter().zip(&case.annotations).enumerate() {
        let (InputValue::Int(v), Some(type_name)) = (*value, note.type_name.as_deref()) else { continue };
        if let Some((bits, _)) = c_integer_type(type_name, dm) {
            if !fits_width(v, bits) {
                warnings.push(format!(
                    "input {} (counting from 1) is {v}, out of range for its type `{type_name}`; it wraps as a C cast converts it",
                    i + 1
                ));
            }
        }
    }
    warnings
}

/// Runs the command; exit code 1 when the run ends in an error or abort.
pub fn run(args: &RunArgs) -> Result<i32> {
    let (vector, environment) = read_vector(args)?;
    let program = match &environment {
        Some(env) => {
            let program = load_in_env(&args.program, &exactly(env))?;
            if program.environment.as_ref() != Some(env) {
                bail!(
                    "{}: the test gives {}, but the program takes {}",
                    args.test.as_ref().map_or(String::new(), |p| p.display().to_string()),
                    env.describe(),
                    program.environment.as_ref().map_or("no environment".into(), |e| e.describe())
                );
            }
            program
        }
        None => load_in_env(&args.program, &args.env.request()?)?,
    };
    let goals = walkdown_unit::lazy::goals(&program);
    let mut interp = Interpreter::new(&program, &goals).context("cannot prepare the program")?;
    interp.set_fast_forward(!args.no_fast_forward);
    let options = RunOptions {
        limits: ExecLimits { max_steps: args.max_steps, max_call_depth: args.max_call_depth, ..ExecLimits::default() },
        record_lines: args.line_counts,
    };
    let result = if args.show_output {
        let (result, output) = interp.run_with_output(&vector, &options);
        use std::io::Write as _;
        std::io::stdout().write_all(&output)?;
        result
    } else {
        interp.run(&vector, &options)
    };
    for warning in range_warnings(&program, &vector, &result.inputs) {
        eprintln!("walkdown: warning: {warning}");
    }

    println!("outcome: {}", walkdown_driver::report::describe_outcome(&program, &result.outcome));
    println!(
        "inputs: {} of {} consumed ({} nondet calls{})",
        result.inputs.len(),
        vector.values.len(),
        result.nondet_calls,
        if result.inputs_exhausted { "; the test ran out of values, later calls got 0" } else { "" }
    );
    if result.fast_forwards == 0 {
        println!("steps: {}", result.steps);
    } else {
        // The count saturates (nested loops of 2^32 iterations each).
        let at_least = if result.skipped_steps == u128::MAX { "at least " } else { "" };
        println!(
            "steps: {} executed, {at_least}{} more in loop iterations fast-forwarding jumped over ({} jumps)",
            result.steps, result.skipped_steps, result.fast_forwards
        );
        if args.verbose {
            for j in &result.jumps {
                println!(
                    "  jump at the loop {}: {:?} -> {:?} ({} iterations)",
                    program.describe_loc(j.loc),
                    j.before,
                    j.after,
                    j.iterations
                );
            }
        }
    }
    for name in &result.unknown_externals {
        eprintln!(
            "walkdown: warning: external function `{name}` has no body or model; its calls returned fresh inputs"
        );
    }
    println!("goals: {} of {} covered", result.covered.len(), goals.goals.len());
    if args.verbose {
        for &id in &result.covered {
            let goal = &goals.goals[id];
            println!("  {id}\t{}\t{}", goals.describe(id), program.describe_loc(goal.loc));
        }
    }
    if args.line_counts {
        println!("line counts:");
        for lc in result.line_counts.iter().filter(|lc| lc.count > 0) {
            let name = program.files.get(lc.file).map_or("?", |f| f.as_str());
            println!("  {name}:{}\t{}", lc.line, lc.count);
        }
    }
    Ok(match result.outcome {
        Outcome::Error { .. } | Outcome::Abort => 1,
        Outcome::Unsupported { .. } => 2,
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_admit_both_signednesses_and_nothing_beyond() {
        assert!(fits_width(255, 8) && fits_width(-128, 8) && fits_width(-1, 8));
        assert!(!fits_width(256, 8) && !fits_width(300, 8) && !fits_width(-129, 8));
        assert!(fits_width(4_294_967_295, 32) && !fits_width(4_294_967_296, 32));
        assert!(fits_width(i128::MIN, 128));
    }

    #[test]
    fn c_type_names_have_their_widths() {
        let lp = DataModel::LP64;
        assert_eq!(c_integer_type("unsigned char", lp), Some((8, false)));
        assert_eq!(c_integer_type("int", lp), Some((32, true)));
        assert_eq!(c_integer_type("unsigned", lp), Some((32, false)));
        assert_eq!(c_integer_type("long", lp), Some((64, true)));
        assert_eq!(c_integer_type("long", DataModel::ILP32), Some((32, true)));
        assert_eq!(c_integer_type("unsigned long long int", lp), Some((64, false)));
        assert_eq!(c_integer_type("short int", lp), Some((16, true)));
        assert_eq!(c_integer_type("size_t", lp), None);
    }
}
