//! `walkdown gen TASK.yml`: an SV-COMP/Test-Comp task definition in place
//! of a C file. The task gives the program (its one input file), the data
//! model and the property to generate tests for; flags given on the
//! command line win over the task's.

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use walkdown_formats::task::{read_task, TaskProperty};
use walkdown_ir::DataModel;

/// Whether `file` is a task definition (by its extension).
pub fn is_task_file(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "yml" || e == "yaml")
}

/// What a task definition tells `gen`.
#[derive(Debug)]
pub struct TaskSettings {
    /// The program.
    pub program: PathBuf,
    /// The data model (LP64 when the task names none, as the competitions do).
    pub data_model: DataModel,
    /// `true` for coverage-error (coverage-error-call or unreach-call), `false` for coverage-branches.
    pub cover_error: bool,
}

/// Reads `file` as a task: one C input file, language C, and a property
/// walkdown generates tests for (coverage-branches first, else
/// coverage-error-call or unreach-call), unless `property_given` (the
/// command line names the property, so the task's do not matter).
pub fn task_settings(file: &Path, property_given: bool) -> Result<TaskSettings> {
    crate::load::check_input_file(file, &["yml", "yaml"])?;
    let task = read_task(file)?;
    if let Some(lang) = &task.language {
        if lang != "C" {
            bail!("{}: options.language is {lang}; walkdown reads C", file.display());
        }
    }
    let program = match task.input_files.as_slice() {
        [one] => one.clone(),
        many => bail!(
            "{}: the task has {} input files ({}); walkdown gen takes a task with one",
            file.display(),
            many.len(),
            many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
    };
    let cover_error = if task.has(&TaskProperty::CoverageBranches) {
        false
    } else if task.has(&TaskProperty::CoverageErrorCall) || task.has(&TaskProperty::UnreachCall) {
        true
    } else if property_given {
        false
    } else {
        let listed: Vec<&str> = task.properties.iter().map(|p| p.property_file.as_str()).collect();
        bail!(
            "{}: none of the task's properties ({}) is one walkdown generates tests for (coverage-branches.prp, coverage-error-call.prp, unreach-call.prp); name one with --property",
            file.display(),
            if listed.is_empty() { "none listed".to_string() } else { listed.join(", ") }
        );
    };
    let data_model = match task.data_model.as_deref() {
        Some("ILP32") => DataModel::ILP32,
        _ => DataModel::LP64,
    };
    Ok(TaskSettings { program, data_model, cover_error })
}
