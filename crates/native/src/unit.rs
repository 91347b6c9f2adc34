//! Native runs of a unit's test file (`gen --entry`'s `unit_tests.c`, a
//! standalone C program that includes the code under test and runs one
//! test function per process, named on its command line).
//!
//! - [`UnitBuild`]: the file built with `gcc -g` (optionally with the
//!   sanitizers), each test run as a process of its own, for `check`;
//! - [`validate_unit_tests`]: the file built with `--coverage`, every test
//!   run, gcov's coverage of the program read back (`validate`, `gen
//!   --lcov` in unit mode).
//!
//! Every run is sandboxed like the harness's (`crate::sandbox`); with no
//! harness in the program, only the limits' signals tell what was denied.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use walkdown_ir::DataModel;

use crate::compile::{machine_flag, SANITIZE_FLAGS};
use crate::sandbox::run_confined;
use crate::{GcovCoverage, NativeError};

/// A unit test file built natively into a scratch directory.
#[derive(Debug)]
pub struct UnitBuild {
    exe: PathBuf,
    dir: tempfile::TempDir,
}

/// How one native run of a unit test ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitRun {
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// Its exit code, if it exited.
    pub code: Option<i32>,
    /// What it printed (stdout, then stderr).
    pub said: String,
}

impl UnitBuild {
    /// Builds `source` with `gcc -g -w -O0` for `data_model`, with the
    /// sanitizers when `sanitize`.
    pub fn compile(source: &Path, data_model: DataModel, sanitize: bool) -> Result<UnitBuild, NativeError> {
        let dir = tempfile::tempdir()
            .map_err(|source| NativeError::Io { context: "cannot make a scratch directory".into(), source })?;
        let exe = dir.path().join(if sanitize { "unit_tests_asan" } else { "unit_tests" });
        let flags: &[&str] = if sanitize { SANITIZE_FLAGS } else { &[] };
        let mut gcc = Command::new("gcc");
        gcc.args(["-g", "-w", "-O0", machine_flag(data_model)]).args(flags).arg(source).arg("-o").arg(&exe);
        let out = gcc.output().map_err(|source| NativeError::ToolNotRun { tool: "gcc".into(), source })?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr).chars().take(2000).collect();
            return Err(NativeError::CompileFailed { command: format!("{gcc:?}"), stderr });
        }
        Ok(UnitBuild { exe, dir })
    }

    /// Runs the test function `test` in a process of its own, in the
    /// sandbox (see [`crate::sandbox`]), for at most [`UNIT_RUN_LIMIT`]
    /// (the test's own `alarm` usually ends it first).
    pub fn run(&self, test: &str) -> Result<UnitRun, NativeError> {
        let dir = self.dir.path();
        let run = run_confined(&self.exe, &[OsString::from(test)], &[dir], None, UNIT_RUN_LIMIT)?;
        let said = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
        Ok(UnitRun { signal: run.signal, code: run.code, said })
    }
}

/// The longest one unit test may run (its own `alarm` usually stops it
/// before).
pub const UNIT_RUN_LIMIT: Duration = Duration::from_secs(60);
/// The longest all of a file's tests may run together.
pub const SUITE_RUN_LIMIT: Duration = Duration::from_secs(1800);

/// A scratch directory by its canonical path.
struct Scratch {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Scratch {
    fn path(&self) -> &Path {
        &self.path
    }
}

/// Branch coverage of one function, from gcov.
#[derive(Clone, Debug)]
pub struct FunctionCoverage {
    /// Its name.
    pub name: String,
    /// Branch outcomes gcc emitted in it.
    pub branches: u64,
    /// Those taken.
    pub covered: u64,
    /// Whether a test entered it.
    pub entered: bool,
}

/// What a native run of `unit_tests.c` shows.
#[derive(Clone, Debug)]
pub struct UnitValidation {
    /// Each test's line (`test_00003: signal 8 (SIGFPE)   [walkdown: …]`).
    pub lines: Vec<String>,
    /// gcov's coverage of the program file.
    pub coverage: GcovCoverage,
    /// Per function of the program.
    pub functions: Vec<FunctionCoverage>,
}

/// Runs gcc with `args` in `dir`.
fn gcc_in(dir: &Path, args: &[&str]) -> Result<(), NativeError> {
    let o = Command::new("gcc")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|source| NativeError::ToolNotRun { tool: "gcc".into(), source })?;
    if !o.status.success() {
        let stderr = String::from_utf8_lossy(&o.stderr).chars().take(2000).collect();
        return Err(NativeError::CompileFailed { command: format!("gcc {}", args.join(" ")), stderr });
    }
    Ok(())
}

/// Compiles `unit_tests` with gcc `--coverage`, runs every test (each in a
/// child of its own; a test that crashes keeps its coverage) and reads
/// gcov's coverage of `program`, the file the tests include.
pub fn validate_unit_tests(
    program: &Path,
    unit_tests: &Path,
    data_model: DataModel,
) -> Result<UnitValidation, NativeError> {
    let io = |context: String| move |source| NativeError::Io { context, source };
    let dir = tempfile::tempdir().map_err(io("cannot make a scratch directory".into()))?;
    // Absolute, so that gcc records where the data goes (under GCOV_PREFIX).
    let dir = Scratch {
        path: std::fs::canonicalize(dir.path()).map_err(io("locating the scratch directory".into()))?,
        _dir: dir,
    };
    let source = dir.path().join("unit_tests.c");
    std::fs::copy(unit_tests, &source).map_err(io(format!("cannot read {}", unit_tests.display())))?;
    let arch = machine_flag(data_model);
    gcc_in(dir.path(), &["--coverage", "-g", "-O0", "-w", arch, "-c", "unit_tests.c", "-o", "unit_tests.o"])?;
    // The tests call libgcov's dump through a weak reference, which does
    // not pull it from the archive by itself.
    gcc_in(dir.path(), &["--coverage", arch, "-Wl,-u,__gcov_dump", "unit_tests.o", "-o", "unit_tests"])?;
    let exe = dir.path().join("unit_tests");
    let gcov_dir = dir.path().join("gcov-data");
    let ran = run_confined(&exe, &[], &[dir.path()], Some(&gcov_dir), SUITE_RUN_LIMIT)?;
    // The data was written under GCOV_PREFIX; gcov reads it beside the notes.
    let data = dir.path().join("unit_tests.gcda");
    let written = gcov_dir.join(data.strip_prefix("/").unwrap_or(&data));
    if written.exists() {
        std::fs::copy(&written, &data).map_err(io(format!("copying {}", written.display())))?;
    }
    let lines = String::from_utf8_lossy(&ran.stdout)
        .lines()
        .filter(|l| l.contains("[walkdown: "))
        .map(str::to_string)
        .collect();
    let gcov = Command::new("gcov")
        .args(["--json-format", "--stdout", "-b", "-c", "-o"])
        .arg(dir.path())
        .arg("unit_tests.gcda")
        .current_dir(dir.path())
        .output()
        .map_err(|source| NativeError::ToolNotRun { tool: "gcov".into(), source })?;
    let name = program.file_name().unwrap_or_default();
    let coverage = crate::gcov::aggregate_gcov_json(&String::from_utf8_lossy(&gcov.stdout), name)?;
    let functions = coverage.functions.iter().map(|f| function_coverage(&coverage, f)).collect();
    Ok(UnitValidation { lines, coverage, functions })
}

/// The branch figures of `f` from the whole file's counts.
fn function_coverage(coverage: &GcovCoverage, f: &crate::GcovFunction) -> FunctionCoverage {
    let counts = coverage.branch_counts.range(f.start_line..=f.end_line).flat_map(|(_, c)| c.iter());
    let (mut branches, mut covered) = (0, 0);
    for &c in counts {
        branches += 1;
        covered += u64::from(c > 0);
    }
    FunctionCoverage { name: f.name.clone(), branches, covered, entered: f.execution_count > 0 }
}
