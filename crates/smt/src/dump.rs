//! The query corpus: with a directory set ([`configure`]), every query a
//! backend answers is written there as an SMT-LIB 2 file, headed by
//! comments that say which engine asked it, for which task, which backend
//! answered what, and in how long.
//!
//! The corpus is for measuring solvers offline (`scripts/bench-solvers`
//! replays it against a backend): the file is the query as the backend was
//! given it, printed by the backend itself, so a replay on the same solver
//! asks the same question. The directory is process-wide (one run of `gen`
//! is one task); the engine is per thread, since the portfolio runs each
//! engine on a thread of its own ([`engine_scope`]).

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::expr::{ExprId, ExprPool};
use crate::solver::Answer;

/// Where queries go, and the task they belong to.
struct Target {
    dir: PathBuf,
    task: String,
}

static TARGET: Mutex<Option<Target>> = Mutex::new(None);
/// Numbers the files of one process; the order queries were answered in.
static NEXT: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static ENGINE: Cell<&'static str> = const { Cell::new("unknown") };
}

/// Why the corpus could not be written.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// The directory could not be made.
    #[error("cannot create query directory {dir}: {source}")]
    Create {
        /// The directory.
        dir: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Writes every later query into `dir` (made if missing), labelled with
/// `task`; `None` stops writing.
pub fn configure(dir: Option<&Path>, task: &str) -> Result<(), DumpError> {
    let target = match dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|source| DumpError::Create { dir: d.to_path_buf(), source })?;
            Some(Target { dir: d.to_path_buf(), task: task.to_string() })
        }
        None => None,
    };
    *TARGET.lock().unwrap_or_else(|e| e.into_inner()) = target;
    Ok(())
}

/// Whether queries are being written (so a backend prints them only then).
pub fn enabled() -> bool {
    TARGET.lock().map(|t| t.is_some()).unwrap_or(false)
}

/// The engine this thread's queries are labelled with (`"unknown"` outside
/// every [`engine_scope`]); the portfolio backend picks by it.
pub fn current_engine() -> &'static str {
    ENGINE.with(|e| e.get())
}

/// Labels this thread's queries with `engine` until the guard drops.
pub fn engine_scope(engine: &'static str) -> EngineScope {
    let previous = ENGINE.with(|e| e.replace(engine));
    EngineScope { previous }
}

/// Restores the previous engine label on drop (see [`engine_scope`]).
pub struct EngineScope {
    previous: &'static str,
}

impl Drop for EngineScope {
    fn drop(&mut self) {
        ENGINE.with(|e| e.set(self.previous));
    }
}

/// One answered query, as a backend reports it.
pub(crate) struct Record<'a> {
    /// The backend and its version (`z3 5.4.1`).
    pub backend: &'a str,
    /// The SMT-LIB 2 text of the query, ending in `(check-sat)`.
    pub smtlib: &'a str,
    /// What the backend answered (an error counts as unknown).
    pub answer: Option<&'a Answer>,
    /// Its time.
    pub time: Duration,
    /// Its work in the backend's deterministic unit.
    pub work: u64,
}

/// Writes `record` as the next file of the corpus, if one is being
/// written. A failed write is reported once on stderr and otherwise
/// ignored: the corpus is a measurement aid and must not end a run.
pub(crate) fn write(record: &Record<'_>) {
    let guard = TARGET.lock().unwrap_or_else(|e| e.into_inner());
    let Some(target) = guard.as_ref() else { return };
    let engine = ENGINE.with(|e| e.get());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = target.dir.join(format!("{}.{engine}.{n:06}.smt2", file_stem(&target.task)));
    let answer = match record.answer {
        Some(Answer::Sat(_)) => "sat",
        Some(Answer::Unsat) => "unsat",
        _ => "unknown",
    };
    let header = format!(
        "; walkdown query\n; engine: {engine}\n; task: {}\n; backend: {}\n; answer: {answer}\n; time_ms: {:.3}\n; work: {}\n",
        target.task,
        record.backend,
        record.time.as_secs_f64() * 1000.0,
        record.work
    );
    let result = std::fs::File::create(&path).and_then(|mut f| {
        f.write_all(header.as_bytes())?;
        f.write_all(record.smtlib.as_bytes())
    });
    if let Err(e) = result {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| eprintln!("walkdown: cannot write query {}: {e}", path.display()));
    }
}

/// The SMT-LIB logic of the conjunction of `roots`: `QF_BV` with `A` for
/// arrays and `FP` for floats.
pub(crate) fn logic(pool: &ExprPool, roots: &[ExprId]) -> &'static str {
    let (arrays, floats) = pool.uses_arrays_and_floats(roots);
    match (arrays, floats) {
        (false, false) => "QF_BV",
        (true, false) => "QF_ABV",
        (false, true) => "QF_BVFP",
        (true, true) => "QF_ABVFP",
    }
}

/// The task's file name without directories, in characters safe in a file
/// name.
fn file_stem(task: &str) -> String {
    let base = Path::new(task).file_name().and_then(|s| s.to_str()).unwrap_or(task);
    base.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stem_keeps_the_base_name_only() {
        assert_eq!(file_stem("/a/b/alias swap.c"), "alias_swap.c");
        assert_eq!(file_stem("x.i"), "x.i");
    }

    #[test]
    fn engine_scope_restores_the_previous_label() {
        let outer = engine_scope("bmc");
        {
            let _inner = engine_scope("cegar");
            assert_eq!(ENGINE.with(|e| e.get()), "cegar");
        }
        assert_eq!(ENGINE.with(|e| e.get()), "bmc");
        drop(outer);
        assert_eq!(ENGINE.with(|e| e.get()), "unknown");
    }
}
