//! lcov tracefiles of a suite's native coverage: `validate --lcov FILE`
//! and `gen --lcov` (which writes `OUT/coverage.info`) turn the gcov data
//! `validate` reads into `walkdown_formats::lcov` records, one per file
//! of the program.

use anyhow::{Context, Result};
use std::path::Path;
use std::time::Duration;
use walkdown_formats::lcov::{write_lcov, LcovFunction, LcovRecord};
use walkdown_ir::units::Unit;
use walkdown_ir::DataModel;
use walkdown_native::{validate_units, GcovCoverage, RunLimits, SuiteCoverage};

/// The lcov record of `coverage`, measured on the file `program`.
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

/// Writes the tracefile of `files` (each file of the program with its
/// coverage) to `path`.
pub fn write_coverage_info(path: &Path, files: &[(&Path, &GcovCoverage)]) -> Result<()> {
    let records: Vec<LcovRecord> = files.iter().map(|(file, coverage)| lcov_record(file, coverage)).collect();
    write_lcov(path, &records).with_context(|| format!("cannot write {}", path.display()))
}

/// The files of a suite's native replay, each with its coverage.
pub fn unit_files(result: &SuiteCoverage) -> Vec<(&Path, &GcovCoverage)> {
    result.units.iter().map(|(u, c)| (u.path.as_path(), c)).collect()
}

/// Replays the suite in `suite_dir` natively on the program of `units`
/// (2 s a test, as `validate`) and writes its coverage to `path`; returns
/// the branch coverage in percent.
pub fn replay_and_write(path: &Path, units: &[Unit], suite_dir: &Path, data_model: DataModel) -> Result<f64> {
    let suite = walkdown_formats::read_suite(suite_dir)?;
    let limits = RunLimits { timeout: Duration::from_secs(2), ..RunLimits::default() };
    let result = validate_units(units, &suite.vectors(), data_model, &limits, None)
        .with_context(|| format!("cannot replay {} natively", suite_dir.display()))?;
    write_coverage_info(path, &unit_files(&result))?;
    Ok(result.coverage.branch_percent())
}
