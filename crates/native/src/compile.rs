//! Building a task natively for replay and coverage: the task with gcc
//! `--coverage` and exactly the flags of the reference measurement
//! (`shared/eval/measure.py`), walkdown's harness without coverage, linked
//! into one executable in a private build directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicU64;

use tempfile::TempDir;
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
    pub(crate) task_copy: PathBuf,
    pub(crate) task_object: PathBuf,
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

impl NativeBuild {
    /// Copy `task` into a fresh build directory (without line markers),
    /// compile it and the harness, and link them.
    pub fn compile(task: &Path, data_model: DataModel, settings: &BuildSettings) -> Result<NativeBuild, NativeError> {
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
        let dir = match &settings.build_parent {
            Some(parent) => tempfile::Builder::new().prefix("walkdown-native-").tempdir_in(parent),
            None => tempfile::Builder::new().prefix("walkdown-native-").tempdir(),
        }
        .map_err(|source| NativeError::Io { context: "creating the build directory".into(), source })?;
        // Absolute paths: gcc records them in the note files, and gcov
        // then finds the data wherever it runs.
        let build_dir = fs::canonicalize(dir.path())
            .map_err(|source| NativeError::Io { context: "locating the build directory".into(), source })?;
        let task_copy = build_dir.join(&file_name);
        let stem = Path::new(&file_name).file_stem().unwrap_or(std::ffi::OsStr::new(&file_name)).to_os_string();
        let with_suffix = |suffix: &str| {
            let mut name = stem.clone();
            name.push(suffix);
            build_dir.join(name)
        };
        let task_object = with_suffix(".o");
        let executable = with_suffix(".wd.exe");
        // The harness lives in a subdirectory so no task name can clash.
        let harness_dir = build_dir.join("harness");
        let harness_source = harness_dir.join(HARNESS_FILE);
        let harness_object = harness_dir.join(HARNESS_OBJECT);
        let run_dir = build_dir.join("runs");

        let write = |path: &Path, bytes: &[u8]| {
            fs::write(path, bytes)
                .map_err(|source| NativeError::Io { context: format!("writing {}", path.display()), source })
        };
        for subdirectory in [&harness_dir, &run_dir] {
            fs::create_dir(subdirectory).map_err(|source| NativeError::Io {
                context: format!("creating {}", subdirectory.display()),
                source,
            })?;
        }
        write(&task_copy, &strip_line_markers(&source))?;
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
            let task_flags = TASK_CFLAGS.iter().filter(|f| with_hook || **f != REACH_ERROR_HOOK_FLAG);
            let compile_task: Vec<PathBuf> = std::iter::once(machine)
                .chain(task_flags.copied())
                .chain(debug.iter().copied())
                .chain(sanitize.iter().copied())
                .chain(["--coverage", "-c"])
                .map(PathBuf::from)
                .chain([task_copy.clone(), PathBuf::from("-o"), task_object.clone()])
                .collect();
            let link: Vec<PathBuf> = [machine, "--coverage"]
                .iter()
                .chain(sanitize)
                .map(PathBuf::from)
                .chain([
                    task_object.clone(),
                    harness_object.clone(),
                    PathBuf::from("-o"),
                    executable.clone(),
                    PathBuf::from("-lm"),
                ])
                .collect();
            let built = run_compiler(compiler, &compile_task, &build_dir)
                .and_then(|()| run_compiler(compiler, &link, &build_dir));
            match built {
                Ok(()) => {
                    return Ok(NativeBuild {
                        dir,
                        task_copy,
                        task_object,
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

    /// The task as compiled: the original without line markers.
    pub fn task_copy(&self) -> &Path {
        &self.task_copy
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
