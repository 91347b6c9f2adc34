//! Command-line parsing and the subcommands.

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod analyze;
mod annotations;
mod batch;
mod check;
mod env;
mod envreplay;
mod gen;
mod optdoc;
mod output;
mod replay;
mod report;
mod run;
mod unit;
mod validate;
use std::path::PathBuf;
use walkdown_driver::input::{compile_flags, ProgramInput};
use walkdown_driver::load::check_input_file;
use walkdown_ir::{DataModel, Program};

/// walkdown: generates test suites for C programs.
#[derive(Parser, Debug)]
#[command(name = "walkdown", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The data model, as Test-Comp task files name it.
#[derive(Clone, Copy, Debug, ValueEnum)]
#[allow(clippy::upper_case_acronyms)]
enum DataModelArg {
    /// 64-bit `long` and pointers (`-m64`).
    LP64,
    /// 32-bit `long` and pointers (`-m32`).
    ILP32,
}

impl From<DataModelArg> for DataModel {
    fn from(d: DataModelArg) -> Self {
        match d {
            DataModelArg::LP64 => DataModel::LP64,
            DataModelArg::ILP32 => DataModel::ILP32,
        }
    }
}

/// Options shared by every command that reads a program.
#[derive(clap::Args, Debug, Clone)]
struct ProgramArgs {
    /// The program's C files (`.c`, `.i`: each compiled on its own, then linked; the one that defines `main` is the entry), or one textual IR file (`.wir`); `gen` also takes an SV-COMP/Test-Comp task definition (`.yml`).
    #[arg(value_name = "FILE", required_unless_present = "compile_commands")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    build: BuildArgs,
    /// Data model: LP64 (the default) or ILP32 (`-m32`).
    #[arg(long = "data-model", value_enum, ignore_case = true)]
    data_model: Option<DataModelArg>,
}

impl ProgramArgs {
    fn data_model(&self) -> DataModel {
        self.data_model.map(DataModel::from).unwrap_or(DataModel::LP64)
    }

    /// The program as the driver takes it.
    fn input(&self) -> ProgramInput {
        self.build.input(&self.files)
    }
}

/// How the program's C files are compiled: flags for every unit, or a
/// project's build database (shared by the commands that read a program
/// and those that build it natively).
#[derive(clap::Args, Debug, Clone)]
struct BuildArgs {
    /// Add DIR to the include path of every unit (as clang's and gcc's `-I`; also `-IDIR`).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a macro in every unit (as clang's and gcc's `-D`; also `-DNAME=VALUE`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// The C standard of every unit (`--std=c99`, also written `-std=c99`; default gnu11).
    #[arg(long = "std", value_name = "STD")]
    std: Option<String>,
    /// Take the program's units and their flags (-I, -D, -std, -include, ...) from a project's build database, `compile_commands.json` as `bear -- make` or CMake writes it, instead of FILEs. The unit that defines `main` (see --target) is linked whole, the others only when they define something the program uses, and only what it uses (as a linker takes the members of a static library).
    #[arg(long, value_name = "FILE", conflicts_with = "files")]
    compile_commands: Option<PathBuf>,
    /// The unit whose `main` is tested when several units define one (a path, or the end of exactly one unit's path: `--target tools/cat.c`); units that define another `main` are left out.
    #[arg(long, value_name = "FILE")]
    target: Option<PathBuf>,
}

impl BuildArgs {
    /// The program of `files` (or of the build database) with these flags.
    fn input(&self, files: &[PathBuf]) -> ProgramInput {
        ProgramInput {
            files: files.to_vec(),
            flags: compile_flags(&self.include, &self.define, self.std.as_deref()),
            compile_commands: self.compile_commands.clone(),
            target: self.target.clone(),
        }
    }
}

/// Whether native runs of the program under test are sandboxed
/// (`docs/sandbox.md`); shared by every command that runs it natively.
#[derive(clap::Args, Debug, Clone)]
struct SandboxArgs {
    /// Native runs of the program: in a bubblewrap sandbox (own directory the only writable place, home and /tmp hidden, no network, limits on processes, file size, open files and CPU time) when it can be built, else with the limits only and a note saying so (auto, the default; also $WALKDOWN_SANDBOX); always in the sandbox, failing when it cannot be built (required); never (off).
    #[arg(long, value_enum, value_name = "WHEN")]
    sandbox: Option<SandboxArg>,
    /// The same as --sandbox=off: native runs get the limits and a private working directory but can read and write your files and use the network.
    #[arg(long, conflicts_with = "sandbox")]
    no_sandbox: bool,
}

/// `--sandbox`'s values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum SandboxArg {
    /// The sandbox when it can be built.
    Auto,
    /// The sandbox or an error.
    Required,
    /// No sandbox.
    Off,
}

impl SandboxArgs {
    /// Sets the policy of this process's native runs; with
    /// `--sandbox=required`, fails now when the sandbox cannot be built.
    fn apply(&self) -> Result<()> {
        use walkdown_native::sandbox::{set_policy, SandboxPolicy};
        let policy = match (self.no_sandbox, self.sandbox) {
            (true, _) | (_, Some(SandboxArg::Off)) => SandboxPolicy::Off,
            (_, Some(SandboxArg::Required)) => SandboxPolicy::Required,
            (_, Some(SandboxArg::Auto)) => SandboxPolicy::Auto,
            (false, None) => return Ok(()),
        };
        set_policy(policy);
        if policy == SandboxPolicy::Required {
            walkdown_native::sandbox::sandboxed()?;
        }
        Ok(())
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the program's IR in its textual form.
    Ir {
        #[command(flatten)]
        program: ProgramArgs,
        #[command(flatten)]
        env: env::EnvArgs,
    },
    /// List the goals: every branch outcome and error site, with its id and source location.
    Goals {
        #[command(flatten)]
        program: ProgramArgs,
    },
    /// Run one test in the interpreter: its outcome, the error and where, the goals covered.
    ///
    /// Exit code 1 when the run ends in an error (a failed check, reach_error, abort).
    Run(run::RunArgs),
    /// Generate a Test-Comp test suite with every engine (static analysis, concolic search, bounded model checking, predicate-abstraction model checking), and a verdict for every goal.
    ///
    /// Exit code 1 when a test reaches an error (reach_error, a failed check, abort); 3 when a test covers a goal an engine proved unreachable (a proof conflict: a bug in walkdown).
    Gen(gen::GenArgs),
    /// Abstract interpretation: the invariants at each loop head and the branch outcomes proved unreachable.
    Analyze {
        #[command(flatten)]
        program: ProgramArgs,
        /// Also print every error check's verification status and premise, from these sources (source, self, eva; comma-separated).
        #[arg(long, value_enum, value_delimiter = ',')]
        annotations: Vec<annotations::SourceArg>,
        #[command(flatten)]
        eva: annotations::EvaArgs,
    },
    /// Compile the program natively with gcc --coverage, run every test of a
    /// Test-Comp suite, and report gcov branch and line coverage.
    Validate(validate::ValidateArgs),
    /// Rebuild the HTML report (DIR/report/index.html) of a gen run from its report.json, source and tests.
    Report(report::ReportArgs),
    /// Run one test natively: gcc -g with walkdown's harness fed from the test; print the exit code, signal or reach_error, or start gdb on it (--gdb), or write a standalone C driver (--emit-driver).
    ///
    /// Exit code 1 when the run ends in an error (reach_error, failed assertion, abort, a fatal signal, timeout).
    Replay(replay::ReplayArgs),
    /// Run gen on one deterministic shard of a task list (--shard I/N --out DIR), for batch engines such as Slurm arrays or Kubernetes indexed Jobs; or merge shard summaries into one table (--merge DIR...).
    ///
    /// Exit code 1 when a task failed (or, with --merge, a shard is missing or unfinished).
    Batch(batch::BatchArgs),
    /// List every possible runtime error (of the program, or with --entry of one function) and settle each: confirmed by a test whose native run shows it, refuted by a proof, or unknown (why). Takes gen's options; writes gen's output and a `check` list in report.json.
    ///
    /// Exit code 1 when an error is confirmed.
    Check(gen::GenArgs),
    /// Print the reference of every command's options as Markdown (docs/options.md).
    #[command(hide = true)]
    HelpMarkdown,
    /// Run PROGRAM in the sandbox of native runs (docs/sandbox.md), for scripts that run programs under test themselves (scripts/csmith-diff): its output passes through; exit code its own, 128+N after signal N, 124 after the time limit.
    #[command(hide = true)]
    Sandboxed {
        /// Seconds it may run.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
        #[command(flatten)]
        sandbox: SandboxArgs,
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
}

/// `walkdown --version`: walkdown's version and each solver backend's, as
/// the linked library reports it (`0.1.0 (z3 5.4.1)`).
fn version() -> String {
    let backends: Vec<String> =
        walkdown_smt::backend_versions().into_iter().map(|(name, v)| format!("{name} {v}")).collect();
    format!("{} ({})", env!("CARGO_PKG_VERSION"), backends.join(", "))
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    // clap takes a version of static life (without its `string` feature);
    // the one string of the process lives as long anyway.
    let version: &'static str = Box::leak(version().into_boxed_str());
    let matches = Cli::command().version(version).get_matches_from(std::env::args_os().map(long_std));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if !matches!(cli.command, Command::Gen(_) | Command::Check(_)) {
        // Like every Unix filter, end quietly when the reader of our output
        // goes away (`walkdown goals f.c | head -1`); Rust ignores SIGPIPE
        // and `println!` then panics. `gen` keeps ignoring it: it must
        // still finish its report, and prints through `output`, which
        // drops what a closed pipe refuses.
        output::default_sigpipe();
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            output::errln(format_args!("walkdown: error: {e:#}"));
            2
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Ir { program, env } => {
            let p = load_in_env(&program, &env.request()?)?;
            print!("{}", walkdown_ir::write::program_to_string(&p));
            Ok(0)
        }
        Command::Goals { program } => {
            let p = load(&program)?;
            let goals = walkdown_unit::lazy::goals(&p);
            for (id, g) in goals.goals.iter() {
                let func = match g.kind {
                    walkdown_ir::goals::GoalKind::Edge { func, .. }
                    | walkdown_ir::goals::GoalKind::Error { func, .. } => func,
                };
                println!("{id}\t{}\t{}\t{}", goals.describe(id), p.describe_loc(g.loc), p.funcs[func].name);
            }
            Ok(0)
        }
        Command::Run(args) => run::run(&args),
        Command::Gen(args) => gen::gen(&args),
        Command::Analyze { program, annotations, eva } => analyze::analyze(&program, &annotations, &eva.settings()),
        Command::Validate(args) => validate::validate(&args),
        Command::Report(args) => report::report_command(&args),
        Command::Replay(args) => replay::replay(&args),
        Command::Batch(args) => batch::batch(&args),
        Command::Check(args) => check::check(&args),
        Command::HelpMarkdown => {
            print!("{}", optdoc::markdown());
            Ok(0)
        }
        Command::Sandboxed { timeout, sandbox, command } => sandboxed(timeout, &sandbox, &command),
    }
}

/// `walkdown sandboxed`: one program in the sandbox, as a shell runs it.
fn sandboxed(timeout: f64, sandbox: &SandboxArgs, command: &[std::ffi::OsString]) -> Result<i32> {
    use std::io::Write as _;
    sandbox.apply()?;
    if !(timeout > 0.0 && timeout.is_finite()) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let Some((program, args)) = command.split_first() else { anyhow::bail!("no program to run") };
    // A bare name is looked up on PATH, as a shell would.
    let program = PathBuf::from(program);
    let program = if program.components().count() == 1 {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join(&program))
            .find(|p| p.is_file())
            .unwrap_or(program)
    } else {
        std::path::absolute(&program)?
    };
    let dir = program.parent().map(std::path::Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
    let run = walkdown_native::sandbox::run_confined(
        &program,
        args,
        &[dir.as_path()],
        None,
        std::time::Duration::from_secs_f64(timeout),
    )?;
    let _ = std::io::stdout().write_all(&run.stdout);
    let _ = std::io::stderr().write_all(&run.stderr);
    Ok(match (run.timed_out, run.code, run.signal) {
        (true, _, _) => 124,
        (false, Some(code), _) => code,
        (false, None, Some(signal)) => 128 + signal,
        (false, None, None) => 255,
    })
}

/// Reads a program: C through the frontend, `.wir` through the IR reader.
fn load(args: &ProgramArgs) -> Result<Program> {
    load_in_env(args, &walkdown_driver::EnvRequest::default())
}

/// `-std=X` as compilers spell it, read as `--std=X` (clap's short
/// options are one letter).
fn long_std(arg: std::ffi::OsString) -> std::ffi::OsString {
    match arg.to_str().and_then(|a| a.strip_prefix("-std=")) {
        Some(std) => format!("--std={std}").into(),
        None => arg,
    }
}

/// [`load`] with the environment `env` asks for.
fn load_in_env(args: &ProgramArgs, env: &walkdown_driver::EnvRequest) -> Result<Program> {
    Ok(walkdown_driver::load::load_input(&args.input(), args.data_model(), None, env)?.program)
}
