//! Building a task natively for replay and coverage: the task (each of its
//! units, with its own flags after them) with gcc `--coverage` and exactly
//! the flags of the reference measurement (`shared/eval/measure.py`),
//! walkdown's harness without coverage, linked into one executable in a
//! private build directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicU64;

use tempfile::TempDir;
use walkdown_ir::units::Unit;
use walkdown_ir::DataModel;

use crate::harness::HARNESS_SOURCE;
use crate::linemarkers::strip_line_markers;
use crate::NativeError;

/// Flags the task is compiled with, besides `-m32`/`-m64` and
/// `--coverage`: those of the reference measurement, so that gcc emits the
/// same branches and gcov counts the same totals.
pub const TASK_CFLAGS: &[&str] = &[
    "-std=gnu11",
    "-O0",
    "-w",
    "-fno-builtin",
    "-Wno-implicit-function-declaration",
    "-Wno-error=implicit-function-declaration",
    "-Wno-error=int-conversion",
    "-Wno-error=incompatible-pointer-types",
    "-Wno-attributes",
    "-D__alias__(x)=",
    REACH_ERROR_HOOK_FLAG,
];

/// Lets the harness see entry into a task's own `reach_error`; some tasks
/// do not compile with it, and are then built without it (as the reference
/// does), recognising `reach_error` only through `__assert_fail` and the
/// harness's own definition.
pub const REACH_ERROR_HOOK_FLAG: &str = "-finstrument-functions";

/// File names of the harness in the build directory; the task keeps its
/// own name so that gcov reports it under that name.
const HARNESS_FILE: &str = "__walkdown_harness.c";
const HARNESS_OBJECT: &str = "__walkdown_harness.o";

/// Which tools to build with. Defaults: `gcc` and `gcov` from `PATH`, the
/// build directory under the system's temporary directory.
#[derive(Clone, Debug)]
pub struct BuildSettings {
    /// The C compiler; must be gcc, since gcov reads gcc's note files.
    pub compiler: PathBuf,
    /// The gcov matching `compiler`.
    pub gcov: PathBuf,
    /// Where the (temporary, removed on drop) build directory is created;
    /// `None` for the system's temporary directory.
    pub build_parent: Option<PathBuf>,
    /// Compile the task and the harness with `-g` (for `walkdown replay`
    /// and gdb); coverage counts are the same either way.
    pub debug: bool,
    /// Build the task with AddressSanitizer and UndefinedBehaviorSanitizer
    /// (stopping at the first report), so that out-of-bounds accesses and
    /// signed overflow end the run natively (with SIGABRT) too.
    pub sanitize: bool,
    /// The environment the program's tests give it (arguments, standard
    /// input, files): each run's vector then begins with it, and the run
    /// gets them for real (see `run.rs`).
    pub environment: Option<walkdown_ir::env::Environment>,
}

/// The task's flags under [`BuildSettings::sanitize`] (also given when linking).
pub const SANITIZE_FLAGS: &[&str] =
    &["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"];

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            compiler: PathBuf::from("gcc"),
            gcov: PathBuf::from("gcov"),
            build_parent: None,
            debug: false,
            sanitize: false,
            environment: None,
        }
    }
}

/// A task compiled for native runs with coverage. Dropping it deletes the
/// build directory.
#[derive(Debug)]
pub struct NativeBuild {
    pub(crate) dir: TempDir,
    /// Each unit's copy, as compiled (the first unit's is the task's).
    pub(crate) copies: Vec<PathBuf>,
    /// Each unit's object file, beside its copy.
    pub(crate) objects: Vec<PathBuf>,
    /// The units as given.
    pub(crate) units: Vec<Unit>,
    pub(crate) executable: PathBuf,
    pub(crate) run_dir: PathBuf,
    pub(crate) data_model: DataModel,
    pub(crate) reach_error_hook: bool,
    pub(crate) sanitized: bool,
    pub(crate) gcov: PathBuf,
    pub(crate) environment: Option<walkdown_ir::env::Environment>,
    /// Numbers the input and report files of concurrent runs.
    pub(crate) run_counter: AtomicU64,
}

/// `-m64` or `-m32`.
pub fn machine_flag(data_model: DataModel) -> &'static str {
    match data_model {
        DataModel::LP64 => "-m64",
        DataModel::ILP32 => "-m32",
    }
}

/// Where a unit is compiled in the build directory.
struct UnitFiles {
    copy: PathBuf,
    object: PathBuf,
    /// The original's directory, where its quoted includes are.
    original_dir: Option<PathBuf>,
}

impl NativeBuild {
    /// Copy `task` into a fresh build directory (without line markers),
    /// compile it and the harness, and link them.
    pub fn compile(task: &Path, data_model: DataModel, settings: &BuildSettings) -> Result<NativeBuild, NativeError> {
        NativeBuild::compile_units(&[Unit::new(task)], data_model, settings)
    }

    /// Copy each of `units` into a fresh build directory (without line
    /// markers; the first beside the harness, the others each in a
    /// directory of its own, so that units of one name stay apart),
    /// compile each with its flags and the harness, and link them.
    pub fn compile_units(
        units: &[Unit],
        data_model: DataModel,
        settings: &BuildSettings,
    ) -> Result<NativeBuild, NativeError> {
        let dir = match &settings.build_parent {
            Some(parent) => tempfile::Builder::new().prefix("walkdown-native-").tempdir_in(parent),
            None => tempfile::Builder::new().prefix("walkdown-native-").tempdir(),
        }
        .map_err(|source| NativeError::Io { context: "creating the build directory".into(), source })?;
        // Absolute paths: gcc records them in the note files, and gcov
        // then finds the data wherever it runs.
        let build_dir = fs::canonicalize(dir.path())
            .map_err(|source| NativeError::Io { context: "locating the build directory".into(), source })?;
        let files =
            units.iter().enumerate().map(|(k, unit)| copy_unit(unit, k, &build_dir)).collect::<Result<Vec<_>, _>>()?;
        let Some(first) = files.first() else {
            return Err(NativeError::ReadTask {
                path: PathBuf::new(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no C file to build"),
            });
        };
        let executable = first.object.with_extension("wd.exe");
        // The harness lives in a subdirectory so no task name can clash.
        let harness_dir = build_dir.join("harness");
        let harness_source = harness_dir.join(HARNESS_FILE);
        let harness_object = harness_dir.join(HARNESS_OBJECT);
        let run_dir = build_dir.join("runs");
        for subdirectory in [&harness_dir, &run_dir] {
            fs::create_dir(subdirectory).map_err(|source| NativeError::Io {
                context: format!("creating {}", subdirectory.display()),
                source,
            })?;
        }
        write(&harness_source, HARNESS_SOURCE.as_bytes())?;

        let machine = machine_flag(data_model);
        let compiler = &settings.compiler;
        let debug: &[&str] = if settings.debug { &["-g"] } else { &[] };
        let sanitize: &[&str] = if settings.sanitize { SANITIZE_FLAGS } else { &[] };
        let harness_command = [machine, "-std=gnu11", "-O0", "-c"]
            .iter()
            .chain(debug)
            .map(PathBuf::from)
            .chain([harness_source, PathBuf::from("-o"), harness_object.clone()])
            .collect::<Vec<_>>();
        run_compiler(compiler, &harness_command, &build_dir)?;

        let mut last_failure = None;
        for with_hook in [true, false] {
            let task_flags: Vec<&str> = TASK_CFLAGS
                .iter()
                .filter(|f| with_hook || **f != REACH_ERROR_HOOK_FLAG)
                .chain(debug)
                .chain(sanitize)
                .copied()
                .collect();
            let compiled = units.iter().zip(&files).try_for_each(|(unit, f)| {
                run_compiler(compiler, &unit_command(machine, &task_flags, unit, f), &build_dir)
            });
            let link: Vec<PathBuf> = [machine, "--coverage"]
                .iter()
                .chain(sanitize)
                .map(PathBuf::from)
                .chain([PathBuf::from(wrap_flag())])
                .chain(files.iter().map(|f| f.object.clone()))
                .chain([harness_object.clone(), PathBuf::from("-o"), executable.clone(), PathBuf::from("-lm")])
                .collect();
            match compiled.and_then(|()| run_compiler(compiler, &link, &build_dir)) {
                Ok(()) => {
                    return Ok(NativeBuild {
                        dir,
                        copies: files.iter().map(|f| f.copy.clone()).collect(),
                        objects: files.iter().map(|f| f.object.clone()).collect(),
                        units: units.to_vec(),
                        executable,
                        run_dir,
                        data_model,
                        reach_error_hook: with_hook,
                        sanitized: settings.sanitize,
                        gcov: settings.gcov.clone(),
                        environment: settings.environment.clone(),
                        run_counter: AtomicU64::new(0),
                    })
                }
                Err(error @ NativeError::CompileFailed { .. }) => last_failure = Some(error),
                Err(other) => return Err(other),
            }
        }
        Err(last_failure.unwrap_or_else(|| NativeError::CompileFailed {
            command: String::new(),
            stderr: "no compilation attempted".into(),
        }))
    }

    /// The build directory (removed when the build is dropped).
    pub fn build_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The task as compiled: the (first) unit without line markers.
    pub fn task_copy(&self) -> &Path {
        &self.copies[0]
    }

    /// Each unit as compiled, with the unit as given.
    pub fn unit_copies(&self) -> impl Iterator<Item = (&Path, &Unit)> {
        self.copies.iter().map(PathBuf::as_path).zip(&self.units)
    }

    /// The linked program.
    pub fn executable(&self) -> &Path {
        &self.executable
    }

    /// The data model the program was built for.
    pub fn data_model(&self) -> DataModel {
        self.data_model
    }

    /// Whether the task was built with `-finstrument-functions`, so that
    /// entry into its own `reach_error` is seen whatever the body does.
    /// When false, only calls that go through the harness
    /// (`__assert_fail(..., "reach_error")`, an undefined `reach_error`,
    /// `__VERIFIER_error`) are recognised.
    pub fn has_reach_error_hook(&self) -> bool {
        self.reach_error_hook
    }
}

/// The linker flag that routes the program's calls of
/// [`WRAPPED_CALLS`](crate::sandbox::WRAPPED_CALLS) through the harness,
/// which notes what the sandbox denied.
fn wrap_flag() -> String {
    let wraps: Vec<String> = crate::sandbox::WRAPPED_CALLS.iter().map(|name| format!("--wrap={name}")).collect();
    format!("-Wl,{}", wraps.join(","))
}

/// Writes `bytes` to `path`.
fn write(path: &Path, bytes: &[u8]) -> Result<(), NativeError> {
    fs::write(path, bytes).map_err(|source| NativeError::Io { context: format!("writing {}", path.display()), source })
}

/// Copies unit `k` without line markers into the build directory: the
/// first beside the harness's directory, the others in `unit<k>/`.
fn copy_unit(unit: &Unit, k: usize, build_dir: &Path) -> Result<UnitFiles, NativeError> {
    let task = unit.path.as_path();
    let source = fs::read(task).map_err(|source| NativeError::ReadTask { path: task.to_path_buf(), source })?;
    let file_name = task
        .file_name()
        .ok_or_else(|| NativeError::ReadTask {
            path: task.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
        })?
        // gcov writes the source name into its JSON, and not in bytes:
        // the copy gets a UTF-8 name so that the coverage is found
        // under it.
        .to_string_lossy()
        .into_owned();
    let dir = if k == 0 { build_dir.to_path_buf() } else { build_dir.join(format!("unit{k}")) };
    if k > 0 {
        fs::create_dir(&dir)
            .map_err(|source| NativeError::Io { context: format!("creating {}", dir.display()), source })?;
    }
    let copy = dir.join(&file_name);
    let stem = Path::new(&file_name).file_stem().unwrap_or(std::ffi::OsStr::new(&file_name)).to_os_string();
    let mut object_name = stem;
    object_name.push(".o");
    write(&copy, &strip_line_markers(&source))?;
    let original_dir = fs::canonicalize(task).ok().and_then(|p| p.parent().map(Path::to_path_buf));
    Ok(UnitFiles { copy, object: dir.join(object_name), original_dir })
}

/// gcc's command for one unit: the machine, the task's flags, the unit's
/// own (after them, so that its `-std=` wins), its original directory for
/// quoted includes, coverage.
fn unit_command(machine: &str, task_flags: &[&str], unit: &Unit, f: &UnitFiles) -> Vec<PathBuf> {
    let mut args: Vec<PathBuf> =
        std::iter::once(machine).chain(task_flags.iter().copied()).map(PathBuf::from).collect();
    args.extend(unit.flags.iter().map(PathBuf::from));
    if let Some(dir) = &f.original_dir {
        args.push("-iquote".into());
        args.push(dir.clone());
    }
    args.extend(["--coverage", "-c"].map(PathBuf::from));
    args.extend([f.copy.clone(), PathBuf::from("-o"), f.object.clone()]);
    args
}

fn run_compiler(compiler: &Path, args: &[PathBuf], cwd: &Path) -> Result<(), NativeError> {
    let output = Command::new(compiler)
        .args(args)
        .current_dir(cwd)
        .output()
        .map_err(|source| NativeError::ToolNotRun { tool: compiler.to_path_buf(), source })?;
    if output.status.success() {
        return Ok(());
    }
    let command = std::iter::once(compiler)
        .chain(args.iter().map(PathBuf::as_path))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The end of gcc's output holds the errors; the start can be pages of
    // notes about included headers.
    let tail_start = stderr.len().saturating_sub(4000);
    let tail_start = (tail_start..stderr.len()).find(|&i| stderr.is_char_boundary(i)).unwrap_or(stderr.len());
    Err(NativeError::CompileFailed { command, stderr: stderr[tail_start..].to_string() })
}
