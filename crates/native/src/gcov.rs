//! Coverage of the task's files as gcov reports it, aggregated exactly as the
//! reference measurement (`measure.py`, `gcov_coverage`) does: every
//! outcome of every conditional jump gcc emitted counts as a branch
//! ("taken at least once"), and a line's count is the largest over gcov's
//! entries for that line.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::compile::NativeBuild;
use crate::NativeError;

/// Coverage of the task file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcovCoverage {
    /// Branch outcomes gcc emitted for the task.
    pub branches_total: u64,
    /// Branch outcomes taken at least once.
    pub branches_covered: u64,
    /// Branch outcomes on lines that were executed.
    pub branches_executed: u64,
    /// Execution count of each line gcov knows, by line number.
    pub lines: BTreeMap<u32, u64>,
    /// Lines gcov knows (`lines.len()`).
    pub lines_total: u64,
    /// Lines executed at least once.
    pub lines_covered: u64,
    /// Taken-counts of the branch outcomes of each line, in gcov's order
    /// (entries of one line from several functions are concatenated;
    /// inconsistent negative counts after a timeout read as 0).
    pub branch_counts: BTreeMap<u32, Vec<u64>>,
    /// Functions of the task.
    pub functions_total: u64,
    /// Functions entered at least once.
    pub functions_covered: u64,
    /// Each function of the task: name, first line, how often it was entered.
    pub functions: Vec<GcovFunction>,
}

/// One function as gcov reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcovFunction {
    /// Its name.
    pub name: String,
    /// The line it starts on.
    pub start_line: u32,
    /// The line it ends on.
    pub end_line: u32,
    /// How often it was entered.
    pub execution_count: u64,
}

impl GcovCoverage {
    /// Covered branches in percent (100 when there are none, as the
    /// reference reports).
    pub fn branch_percent(&self) -> f64 {
        percent(self.branches_covered, self.branches_total)
    }

    /// Covered lines in percent (100 when there are none).
    pub fn line_percent(&self) -> f64 {
        percent(self.lines_covered, self.lines_total)
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

impl NativeBuild {
    /// Forget the coverage of earlier runs (delete the gcov data files).
    pub fn reset_coverage(&self) -> Result<(), NativeError> {
        let runs_data = self.objects.iter().map(|o| self.run_data_file(o));
        for data in self.objects.iter().map(|o| o.with_extension("gcda")).chain(runs_data) {
            match fs::remove_file(data) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(NativeError::Io { context: "deleting the gcov data file".into(), source: error })
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The coverage accumulated by the runs since the build (or the last
    /// [`NativeBuild::reset_coverage`]). Before any run every count is 0.
    /// Of a program of several units, the figures are the sums of
    /// [`NativeBuild::unit_coverage`]'s, and the tables by line are empty
    /// (they are each file's).
    pub fn coverage(&self) -> Result<GcovCoverage, NativeError> {
        let mut units = self.unit_coverage()?;
        if units.len() == 1 {
            return Ok(units.remove(0));
        }
        Ok(GcovCoverage::total(&units))
    }

    /// The coverage of each unit, in the order of the units.
    pub fn unit_coverage(&self) -> Result<Vec<GcovCoverage>, NativeError> {
        self.objects.iter().zip(&self.copies).map(|(object, copy)| self.gcov(object, copy)).collect()
    }

    /// Where the runs write `object`'s data: under `GCOV_PREFIX`, which
    /// gcc's runtime puts before the data file's absolute path.
    fn run_data_file(&self, object: &Path) -> PathBuf {
        let absolute = object.with_extension("gcda");
        self.gcov_data_dir().join(absolute.strip_prefix("/").unwrap_or(&absolute))
    }

    /// gcov's coverage of the unit compiled from `copy` into `object`.
    fn gcov(&self, object: &Path, copy: &Path) -> Result<GcovCoverage, NativeError> {
        let data_file = object.with_extension("gcda");
        // The runs wrote their data where the sandbox let them; gcov reads
        // it beside the note file.
        let written = self.run_data_file(object);
        if written.exists() {
            fs::copy(&written, &data_file).map_err(|source| NativeError::Io {
                context: format!("copying {} to {}", written.display(), data_file.display()),
                source,
            })?;
        }
        // Without data gcov still reads the note file and reports every
        // line and branch with count 0.
        let target = if data_file.exists() { data_file } else { object.with_extension("gcno") };
        let object_dir = object.parent().unwrap_or(self.build_dir());
        let output = Command::new(&self.gcov)
            .args([OsStr::new("--json-format"), OsStr::new("--stdout"), OsStr::new("-b"), OsStr::new("-c")])
            .arg("-o")
            .arg(object_dir)
            .arg(&target)
            .current_dir(object_dir)
            .output()
            .map_err(|source| NativeError::ToolNotRun { tool: self.gcov.clone(), source })?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || stdout.trim().is_empty() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(NativeError::Gcov { message: stderr.trim().to_string() });
        }
        aggregate_gcov_json(&stdout, copy.file_name().unwrap_or_default())
    }
}

impl GcovCoverage {
    /// The figures of `files` summed (the tables by line left empty: each
    /// is one file's).
    pub fn total(files: &[GcovCoverage]) -> GcovCoverage {
        let mut sum = GcovCoverage::default();
        for f in files {
            sum.branches_total += f.branches_total;
            sum.branches_covered += f.branches_covered;
            sum.branches_executed += f.branches_executed;
            sum.lines_total += f.lines_total;
            sum.lines_covered += f.lines_covered;
            sum.functions_total += f.functions_total;
            sum.functions_covered += f.functions_covered;
        }
        sum
    }
}

/// Sum gcov's JSON documents (one a line) over the entries of the file
/// whose base name is `task_name`.
pub fn aggregate_gcov_json(stdout: &str, task_name: &OsStr) -> Result<GcovCoverage, NativeError> {
    let mut coverage = GcovCoverage::default();
    let mut found = false;
    for chunk in stdout.lines().map(str::trim).filter(|l| l.starts_with('{')) {
        let document: Value =
            serde_json::from_str(chunk).map_err(|e| NativeError::Gcov { message: format!("unreadable JSON: {e}") })?;
        let files = document.get("files").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for file in files {
            let name = file.get("file").and_then(Value::as_str).unwrap_or_default();
            if Path::new(name).file_name() != Some(task_name) {
                continue;
            }
            found = true;
            add_file(&mut coverage, file)?;
        }
    }
    if !found {
        return Err(NativeError::Gcov {
            message: format!("gcov reported no data for {}", task_name.to_string_lossy()),
        });
    }
    coverage.lines_total = coverage.lines.len() as u64;
    coverage.lines_covered = coverage.lines.values().filter(|&&count| count > 0).count() as u64;
    Ok(coverage)
}

fn add_file(coverage: &mut GcovCoverage, file: &Value) -> Result<(), NativeError> {
    let malformed = |what: &str| NativeError::Gcov { message: format!("malformed gcov JSON: {what}") };
    for line in file.get("lines").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
        let number = line
            .get("line_number")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| malformed("line without line_number"))?;
        let count = line.get("count").and_then(execution_count).ok_or_else(|| malformed("line without count"))?;
        let entry = coverage.lines.entry(number).or_insert(0);
        *entry = (*entry).max(count);
        let branches = line.get("branches").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let counts: Vec<u64> = branches
            .iter()
            .map(|b| b.get("count").and_then(execution_count).ok_or_else(|| malformed("branch without count")))
            .collect::<Result<_, _>>()?;
        coverage.branches_total += counts.len() as u64;
        coverage.branches_covered += counts.iter().filter(|&&c| c > 0).count() as u64;
        if count > 0 {
            coverage.branches_executed += counts.len() as u64;
        }
        if !counts.is_empty() {
            coverage.branch_counts.entry(number).or_default().extend(counts);
        }
    }
    for function in file.get("functions").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
        coverage.functions_total += 1;
        let count = function.get("execution_count").and_then(execution_count).unwrap_or(0);
        if count > 0 {
            coverage.functions_covered += 1;
        }
        let line =
            |key: &str| function.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
        coverage.functions.push(GcovFunction {
            name: function.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
            start_line: line("start_line"),
            end_line: line("end_line"),
            execution_count: count,
        });
    }
    Ok(())
}

/// A count from gcov's JSON. gcov derives the counts of uninstrumented
/// arcs by flow conservation, which a run killed mid-function (a timeout)
/// breaks, so counts can come out negative; like the reference, such a
/// count means "not executed", and is read as 0.
fn execution_count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| value.as_i64().map(|_| 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"{"gcc_version": "12.2.0", "files": [{"file": "/tmp/b/other.c", "lines": [{"line_number": 1, "count": 5, "branches": [{"count": 1}]}], "functions": []}, {"file": "/tmp/b/t.c", "lines": [{"branches": [{"count": 2}, {"count": 0}], "count": 3, "line_number": 1}, {"branches": [], "count": 0, "line_number": 2}, {"branches": [{"count": 0}, {"count": 0}], "count": 0, "line_number": 4}, {"branches": [{"count": 1}, {"count": 0}], "count": 7, "line_number": 1}, {"branches": [{"count": -2}], "count": -3, "line_number": 9}], "functions": [{"name": "f", "execution_count": 3}, {"name": "g", "execution_count": 0}]}]}"#;

    #[test]
    fn aggregates_like_the_reference() {
        let coverage = aggregate_gcov_json(&format!("{SAMPLE}\n"), OsStr::new("t.c")).unwrap();
        assert_eq!(coverage.branches_total, 7);
        assert_eq!(coverage.branches_covered, 2);
        assert_eq!(coverage.branches_executed, 4);
        assert_eq!(coverage.lines, BTreeMap::from([(1, 7), (2, 0), (4, 0), (9, 0)]));
        assert_eq!((coverage.lines_total, coverage.lines_covered), (4, 1));
        assert_eq!(coverage.branch_counts[&1], vec![2, 0, 1, 0]);
        assert_eq!(coverage.branch_counts[&9], vec![0]);
        assert_eq!((coverage.functions_total, coverage.functions_covered), (2, 1));
        assert_eq!(coverage.functions[0].name, "f");
        assert_eq!(coverage.functions[0].execution_count, 3);
        assert!((coverage.branch_percent() - 200.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn missing_file_and_bad_json_are_errors() {
        assert!(matches!(aggregate_gcov_json(SAMPLE, OsStr::new("u.c")), Err(NativeError::Gcov { .. })));
        assert!(matches!(aggregate_gcov_json("{nope", OsStr::new("t.c")), Err(NativeError::Gcov { .. })));
    }
}
