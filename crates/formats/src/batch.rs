//! Shard summaries of `walkdown batch` (`shard-I-of-N.json`): which tasks
//! a shard ran, with each task's figures from its `report.json`, so that
//! `walkdown batch --merge` can put shards run on different machines
//! back into one table.

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::atomic::write_atomically;
use crate::FormatError;

/// One shard's summary.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ShardSummary {
    /// This shard's number, from 1.
    pub shard: usize,
    /// How many shards the list was cut into.
    pub shards: usize,
    /// The task list, as given.
    pub list: String,
    /// SHA-256 of the task list's text: shards of different lists do not merge.
    pub list_sha256: String,
    /// Tasks in the whole list.
    pub list_tasks: usize,
    /// The `gen` arguments every task ran with.
    pub gen_args: Vec<String>,
    /// `running` while the shard goes on, then `finished` (or `interrupted`).
    pub status: String,
    /// The shard's tasks, in list order.
    pub tasks: Vec<TaskResult>,
}

/// One task's result.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskResult {
    /// Its position in the list, from 0.
    pub index: usize,
    /// The task as the list names it.
    pub task: String,
    /// The directory of its results, relative to the shard's directory.
    pub dir: String,
    /// `gen`'s exit code (`None` when it was killed or did not start).
    pub exit_code: Option<i32>,
    /// What went wrong, when `gen` failed (the end of its error output).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub failure: String,
    /// Wall-clock seconds of the run.
    pub wall_s: f64,
    /// The figures of its `report.json`, when there is one.
    pub figures: Option<TaskFigures>,
}

/// The figures of one task's `report.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TaskFigures {
    /// The property.
    pub property: String,
    /// The data model.
    pub data_model: String,
    /// Goals in all.
    pub goals: usize,
    /// Goals covered.
    pub covered: usize,
    /// Goals proved unreachable.
    pub unreachable: usize,
    /// Goals infeasible within a bound.
    pub infeasible: usize,
    /// Goals open.
    pub open: usize,
    /// Tests kept.
    pub tests: usize,
    /// Distinct errors reached, as `kind@line`.
    pub errors: Vec<String>,
    /// Why the run stopped.
    pub stop_reason: String,
}

/// The file name of shard `i` of `n`.
pub fn shard_file_name(i: usize, n: usize) -> String {
    format!("shard-{i}-of-{n}.json")
}

/// Writes `summary` to `path` atomically.
pub fn write_shard_summary(path: &Path, summary: &ShardSummary) -> Result<(), FormatError> {
    let text = serde_json::to_string_pretty(summary).expect("a shard summary always serializes");
    write_atomically(path, text.as_bytes())
}

/// Reads a shard summary.
pub fn read_shard_summary(path: &Path) -> Result<ShardSummary, FormatError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| FormatError::Malformed { path: path.to_path_buf(), message: e.to_string() })
}

/// SHA-256 of `bytes` in hex (the task list's fingerprint).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
