//! `walkdown run`: one test vector through the concrete interpreter, with
//! the outcome, the error site and the goals the run covered.

use super::{load, ProgramArgs};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::Program;

/// Arguments of `walkdown run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// The test: a Test-Comp testcase XML file, or a text file with one value a line.
    #[arg(long, conflicts_with = "inputs")]
    test: Option<PathBuf>,
    /// The test's values, comma-separated (decimal, negative or 0x hex), e.g. `--inputs 1,-2,0x3`.
    #[arg(long, allow_hyphen_values = true)]
    inputs: Option<String>,
    /// Steps (IR instructions) after which the run is stopped.
    #[arg(long, default_value_t = ExecLimits::default().max_steps)]
    max_steps: u64,
    /// Print every goal the run covered, not only the count.
    #[arg(long, short)]
    verbose: bool,
    /// Print what the program writes to standard output (`printf` with
    /// integer, character and string conversions, `puts`, `putchar`),
    /// verbatim, before the report.
    #[arg(long)]
    show_output: bool,
}

/// Reads the test named by `--test` or `--inputs`.
fn read_vector(args: &RunArgs) -> Result<TestVector> {
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

/// Runs the command; exit code 1 when the run ends in an error or abort.
pub fn run(args: &RunArgs) -> Result<i32> {
    let vector = read_vector(args)?;
    let program = load(&args.program)?;
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).context("cannot prepare the program")?;
    let options = RunOptions {
        limits: ExecLimits { max_steps: args.max_steps, ..ExecLimits::default() },
        record_lines: false,
    };
    let result = if args.show_output {
        let (result, output) = interp.run_with_output(&vector, &options);
        use std::io::Write as _;
        std::io::stdout().write_all(&output)?;
        result
    } else {
        interp.run(&vector, &options)
    };

    println!("outcome: {}", describe_outcome(&program, &result.outcome));
    println!(
        "inputs: {} of {} consumed ({} nondet calls{})",
        result.inputs.len(),
        vector.values.len(),
        result.nondet_calls,
        if result.inputs_exhausted { "; the test ran out of values, later calls got 0" } else { "" }
    );
    println!("steps: {}", result.steps);
    for name in &result.unknown_externals {
        eprintln!("walkdown: warning: external function `{name}` has no body or model; its calls returned fresh inputs");
    }
    println!("goals: {} of {} covered", result.covered.len(), goals.goals.len());
    if args.verbose {
        for &id in &result.covered {
            let goal = &goals.goals[id];
            println!("  {id}\t{}\t{}", goals.describe(id), program.describe_loc(goal.loc));
        }
    }
    Ok(match result.outcome {
        Outcome::Error { .. } | Outcome::Abort => 1,
        Outcome::Unsupported { .. } => 2,
        _ => 0,
    })
}

/// One line for an outcome, with the error's location and function.
pub fn describe_outcome(program: &Program, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Exit(code) => format!("exit {code}"),
        Outcome::AssumeFailed => "assumption failed (the test is outside the program's admitted inputs)".into(),
        Outcome::Abort => "abort".into(),
        Outcome::Error { kind, func, loc, goal, .. } => {
            let goal = goal.map(|g| format!(" (goal {g})")).unwrap_or_default();
            format!(
                "error {} at {} in `{}`{goal}",
                kind.name(),
                program.describe_loc(*loc),
                program.funcs[*func].name
            )
        }
        Outcome::StepLimit => "stopped at the step limit (--max-steps)".into(),
        Outcome::DepthLimit => "stopped at the call-depth limit".into(),
        Outcome::Unsupported { what, loc } => {
            format!("unsupported: {what} at {}", program.describe_loc(*loc))
        }
    }
}
