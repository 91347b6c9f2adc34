//! lcov tracefiles of a suite's native coverage: `validate --lcov FILE`
//! and `gen --lcov` (which writes `OUT/coverage.info`) turn the gcov data
//! `validate` reads into `walkdown_formats::lcov` records.

use anyhow::{Context, Result};
use std::path::Path;
use std::time::Duration;
use walkdown_formats::lcov::{write_lcov, LcovFunction, LcovRecord};
use walkdown_ir::DataModel;
use walkdown_native::{validate_suite, GcovCoverage, RunLimits};

/// The lcov record of `coverage`, measured on `program`.
pub fn lcov_record(program: &Path, coverage: &GcovCoverage) -> LcovRecord {
    let source = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    LcovRecord {
        test_name: "walkdown".into(),
        source: source.display().to_string(),
        functions: coverage
            .functions
            .iter()
            .map(|f| LcovFunction { name: f.name.clone(), line: f.start_line, count: f.execution_count })
            .collect(),
        lines: coverage.lines.clone(),
        branches: coverage.branch_counts.clone(),
    }
}

/// Writes the tracefile of `coverage` to `path`.
pub fn write_coverage_info(path: &Path, program: &Path, coverage: &GcovCoverage) -> Result<()> {
    write_lcov(path, &lcov_record(program, coverage)).with_context(|| format!("cannot write {}", path.display()))
}

/// Replays the suite in `suite_dir` natively (2 s a test, as `validate`)
/// and writes its coverage to `path`; returns the branch coverage in percent.
pub fn replay_and_write(path: &Path, program: &Path, suite_dir: &Path, data_model: DataModel) -> Result<f64> {
    let suite = walkdown_formats::read_suite(suite_dir)?;
    let limits = RunLimits { timeout: Duration::from_secs(2), ..RunLimits::default() };
    let result = validate_suite(program, &suite.vectors(), data_model, &limits)
        .with_context(|| format!("cannot replay {} natively", suite_dir.display()))?;
    write_coverage_info(path, program, &result.coverage)?;
    Ok(result.coverage.branch_percent())
}
