//! Frama-C's EVA as a source of verification results (`gen --annotations
//! eva`): the task is copied with each `reach_error();` call statement
//! preceded by the ACSL assertion `/*@ assert \false; */` (so EVA says
//! whether that call can be reached), preprocessor line markers blanked
//! (lines stay physical), stubs for the `__VERIFIER_*` functions it declares
//! without defining them, and `frama-c -eva … -then -report-csv` runs under a
//! time limit. Reading the report is `walkdown_formats::eva`'s job.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use walkdown_ir::DataModel;

/// Settings of an EVA run, with their defaults.
#[derive(Clone, Debug)]
pub struct EvaSettings {
    /// The `frama-c` executable. Default `frama-c` (Debian `frama-c-base`).
    pub frama_c: PathBuf,
    /// Time limit. Default 60 s.
    pub timeout: Duration,
    /// EVA's abstract domains beside its default cvalue domain (`-eva-domains`).
    /// Default `octagon`: relations `x - y ∈ [a, b]` are what proves checks
    /// like `balance >= old_balance` after `balance += amount`.
    pub domains: String,
    /// `-eva-precision` (0 to 11): more path partitioning and unrolling,
    /// more time. Default 8, which proves the lock-flag tasks.
    pub precision: u8,
}

impl Default for EvaSettings {
    fn default() -> Self {
        EvaSettings {
            frama_c: PathBuf::from("frama-c"),
            timeout: Duration::from_secs(60),
            domains: "octagon".into(),
            precision: 8,
        }
    }
}

/// What an EVA run gave.
#[derive(Clone, Debug)]
pub struct EvaRun {
    /// The `-report-csv` report.
    pub csv: String,
    /// The name of the analysed copy in the report's `file` column.
    pub file_name: String,
    /// Lines of the `reach_error();` calls that got an assertion.
    pub error_calls: Vec<u32>,
    /// How long it took.
    pub elapsed: Duration,
    /// Whether EVA finished its analysis of `main` (its log says so).
    pub complete: bool,
    /// The end of its log, for reports.
    pub log_tail: String,
    /// Functions without code or specification that EVA gave a default
    /// specification from their prototype (its log says so).
    pub generated_specs: Vec<String>,
    /// Functions whose EVA builtin was not used (incompatible type).
    pub builtins_not_used: Vec<String>,
}

/// The functions EVA replaces by its builtins by default
/// (`frama-c -eva-builtins-list`, Frama-C 25): a default specification
/// generated for them is not what EVA runs.
pub const EVA_AUTO_BUILTINS: &[&str] = &[
    "acos",
    "acosf",
    "alloca",
    "asin",
    "asinf",
    "atan",
    "atan2",
    "atan2f",
    "atanf",
    "calloc",
    "ceil",
    "ceilf",
    "cos",
    "cosf",
    "exp",
    "expf",
    "floor",
    "floorf",
    "fmod",
    "fmodf",
    "free",
    "log",
    "log10",
    "log10f",
    "logf",
    "malloc",
    "memchr",
    "memcpy",
    "memmove",
    "memset",
    "pow",
    "powf",
    "rawmemchr",
    "realloc",
    "reallocarray",
    "round",
    "roundf",
    "sin",
    "sinf",
    "sqrt",
    "sqrtf",
    "strchr",
    "strlen",
    "strnlen",
    "trunc",
    "truncf",
    "wcschr",
    "wcslen",
    "wmemchr",
];

/// The names `marker` introduces in `log` (up to the next `,`, space or `.`).
fn names_after(log: &str, marker: &str) -> Vec<String> {
    let mut out: Vec<String> = log
        .match_indices(marker)
        .filter_map(|(i, _)| {
            let rest = &log[i + marker.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!name.is_empty()).then_some(name)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Why EVA gave nothing.
#[derive(Debug, thiserror::Error)]
pub enum EvaError {
    /// `frama-c` is not installed.
    #[error(
        "frama-c was not found ({0}): install Debian's frama-c-base (scripts/setup does) to use --annotations eva"
    )]
    Missing(String),
    /// The task could not be read or the copy written.
    #[error("{0}")]
    Io(String),
    /// Frama-C failed.
    #[error("frama-c failed ({status}): {log_tail}")]
    Failed {
        /// Its exit status.
        status: String,
        /// The end of its log.
        log_tail: String,
    },
    /// It ran out of time.
    #[error("frama-c did not finish within {0:?}")]
    Timeout(Duration),
}

/// Functions a task may declare without defining, with the stubs EVA
/// analyses instead (none for input functions: EVA gives a function without
/// body any value of its return type).
const STUBS: &[(&str, &str)] = &[
    ("__VERIFIER_assume", "void __VERIFIER_assume(int c) { if (!c) { while (1) {} } }"),
    ("__VERIFIER_assumed", "void __VERIFIER_assumed(int c, const char *id) { (void)c; (void)id; }"),
    ("__VERIFIER_assert_verified", "void __VERIFIER_assert_verified(int c, const char *p) { (void)c; (void)p; }"),
];

/// Runs EVA on `source`; `undefined` are the functions the program declares
/// without a body (stubs are written for those [`STUBS`] knows).
pub fn run_eva(
    source: &Path,
    data_model: DataModel,
    undefined: &[String],
    settings: &EvaSettings,
) -> Result<EvaRun, EvaError> {
    let text = std::fs::read(source).map_err(|e| EvaError::Io(format!("{}: {e}", source.display())))?;
    let text = String::from_utf8_lossy(&crate::linemarkers::strip_line_markers(&text)).into_owned();
    let (copy, error_calls) = assert_at_error_calls(&text);
    let dir = tempfile::tempdir().map_err(|e| EvaError::Io(format!("temporary directory: {e}")))?;
    let file_name = "task.c".to_string();
    let task = dir.path().join(&file_name);
    std::fs::write(&task, copy).map_err(|e| EvaError::Io(format!("{}: {e}", task.display())))?;
    let stubs: Vec<&str> = STUBS.iter().filter(|(n, _)| undefined.iter().any(|u| u == n)).map(|(_, s)| *s).collect();
    let stub_file = dir.path().join("walkdown_stubs.c");
    std::fs::write(&stub_file, stubs.join("\n") + "\n")
        .map_err(|e| EvaError::Io(format!("{}: {e}", stub_file.display())))?;
    let csv_file = dir.path().join("report.csv");
    let machdep = match data_model {
        DataModel::ILP32 => "x86_32",
        DataModel::LP64 => "x86_64",
    };
    let start = Instant::now();
    let output = Command::new("timeout")
        .arg("--kill-after=5")
        .arg(settings.timeout.as_secs_f64().to_string())
        .arg(&settings.frama_c)
        .args(["-machdep", machdep, "-eva"])
        .args(if settings.domains.is_empty() {
            vec![]
        } else {
            vec!["-eva-domains".to_string(), settings.domains.clone()]
        })
        .args(["-eva-precision".to_string(), settings.precision.min(11).to_string()])
        .arg(&task)
        .arg(&stub_file)
        .args(["-then", "-report-csv"])
        .arg(&csv_file)
        .current_dir(dir.path())
        .output()
        .map_err(|e| EvaError::Io(format!("cannot run timeout {}: {e}", settings.frama_c.display())))?;
    let elapsed = start.elapsed();
    let log = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    let tail: String = log.lines().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    match output.status.code() {
        Some(0) => {}
        Some(124) | Some(137) | None => return Err(EvaError::Timeout(settings.timeout)),
        Some(127) => return Err(EvaError::Missing(settings.frama_c.display().to_string())),
        Some(c) => {
            // Its own words for the failure, where its log has them.
            let user_error =
                log.split("User Error:").nth(1).and_then(|rest| rest.lines().map(str::trim).find(|l| !l.is_empty()));
            let log_tail = user_error.map_or(tail, |e| e.to_string());
            return Err(EvaError::Failed { status: c.to_string(), log_tail });
        }
    }
    let csv = std::fs::read_to_string(&csv_file).map_err(|e| EvaError::Io(format!("{}: {e}", csv_file.display())))?;
    let complete = log.contains("[eva] done for function main");
    let generated_specs = names_after(&log, "Neither code nor specification for function ");
    let builtins_not_used: Vec<String> = log
        .split("The builtin ")
        .skip(1)
        .filter_map(|rest| rest.split_once("will not be used for function ").map(|(_, name)| name))
        .map(|name| name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect();
    Ok(EvaRun { csv, file_name, error_calls, elapsed, complete, log_tail: tail, generated_specs, builtins_not_used })
}

/// `text` with `/*@ assert \false; */` before every `reach_error();` or
/// `__VERIFIER_error();` call statement (one whose text before it ends a
/// statement or opens a block, so prototypes are left alone), and the lines
/// of those calls.
pub fn assert_at_error_calls(text: &str) -> (String, Vec<u32>) {
    let mut out = String::with_capacity(text.len() + 256);
    let mut lines = Vec::new();
    for (k, line) in text.split_inclusive('\n').enumerate() {
        let mut rest = line;
        let mut done = String::new();
        loop {
            let found =
                ["reach_error", "__VERIFIER_error"].iter().filter_map(|name| rest.find(name).map(|i| (i, *name))).min();
            let Some((i, name)) = found else {
                done.push_str(rest);
                break;
            };
            let after = rest[i + name.len()..].trim_start();
            let is_call = after.starts_with('(') && after[1..].trim_start().starts_with(')') && {
                let close = after.find(')').unwrap_or(0);
                after[close + 1..].trim_start().starts_with(';')
            };
            let before = format!("{}{}", done, &rest[..i]);
            let prev = before.trim_end();
            let word_start = i == 0 || !rest[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            let statement_context =
                prev.is_empty() || prev.ends_with([';', '{', '}', ')', ':']) || prev.ends_with("else");
            if is_call && word_start && statement_context {
                done.push_str(&rest[..i]);
                done.push_str("/*@ assert \\false; */ ");
                done.push_str(name);
                if lines.last() != Some(&(k as u32 + 1)) {
                    lines.push(k as u32 + 1);
                }
            } else {
                done.push_str(&rest[..i + name.len()]);
            }
            rest = &rest[i + name.len()..];
        }
        out.push_str(&done);
    }
    (out, lines)
}

#[cfg(test)]
mod tests {
    use super::assert_at_error_calls;

    #[test]
    fn assertions_go_before_call_statements_only() {
        let text = "void reach_error();\nvoid reach_error() { __assert_fail(); }\nint main() {\n  if (x) reach_error();\n  { reach_error(); }\n  else __VERIFIER_error ( ) ;\n  my_reach_error();\n}\n";
        let (out, lines) = assert_at_error_calls(text);
        assert_eq!(lines, vec![4, 5, 6]);
        assert!(out.starts_with("void reach_error();\nvoid reach_error() {"));
        assert!(out.contains("if (x) /*@ assert \\false; */ reach_error();"));
        assert!(out.contains("{ /*@ assert \\false; */ reach_error(); }"));
        assert!(out.contains("else /*@ assert \\false; */ __VERIFIER_error ( ) ;"));
        assert!(out.contains("  my_reach_error();"));
        assert_eq!(out.lines().count(), text.lines().count());
    }
}
