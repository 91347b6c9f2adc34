//! SV-COMP/Test-Comp task definitions (`TASK.yml`, format versions 1.0 to
//! 2.0): the input file(s), the properties with their expected verdicts,
//! and the options (language, data model), as the competitions hand tasks
//! to tools. Paths are resolved against the task file's directory.

use std::path::{Path, PathBuf};

use serde_yaml::Value;

use crate::FormatError;

/// The properties walkdown knows by their property file's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskProperty {
    /// `coverage-branches.prp`: cover every branch.
    CoverageBranches,
    /// `coverage-error-call.prp`: a test that calls `reach_error`.
    CoverageErrorCall,
    /// `unreach-call.prp`: `reach_error` is never called (a verification
    /// property; a test generator looks for the call).
    UnreachCall,
    /// Any other property file, by its name (`termination.prp`, ...).
    Other(String),
}

impl TaskProperty {
    fn from_file(file: &str) -> TaskProperty {
        match Path::new(file).file_name().and_then(|n| n.to_str()).unwrap_or(file) {
            "coverage-branches.prp" => TaskProperty::CoverageBranches,
            "coverage-error-call.prp" => TaskProperty::CoverageErrorCall,
            "unreach-call.prp" => TaskProperty::UnreachCall,
            other => TaskProperty::Other(other.to_string()),
        }
    }
}

/// One entry of `properties`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskPropertyEntry {
    /// The property, from its file's name.
    pub property: TaskProperty,
    /// The `property_file` as written.
    pub property_file: String,
    /// `expected_verdict`, when given.
    pub expected_verdict: Option<bool>,
}

/// A task definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// The task file.
    pub path: PathBuf,
    /// `format_version` as written.
    pub format_version: String,
    /// The input files, resolved against the task file's directory.
    pub input_files: Vec<PathBuf>,
    /// The properties, in order.
    pub properties: Vec<TaskPropertyEntry>,
    /// `options.language` (`C`), when given.
    pub language: Option<String>,
    /// `options.data_model` (`ILP32`, `LP64`), when given.
    pub data_model: Option<String>,
}

impl Task {
    /// Whether the task lists `p`.
    pub fn has(&self, p: &TaskProperty) -> bool {
        self.properties.iter().any(|e| &e.property == p)
    }
}

/// The format versions this reader knows.
const VERSIONS: &[&str] = &["1.0", "1.1", "2.0"];

/// Reads and checks a task definition.
pub fn read_task(path: &Path) -> Result<Task, FormatError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    parse_task(&text, path)
}

/// Parses a task definition's text; `path` names it in errors and is the
/// base of its relative paths.
pub fn parse_task(text: &str, path: &Path) -> Result<Task, FormatError> {
    let bad = |message: String| FormatError::Task { path: path.to_path_buf(), message };
    let doc: Value = serde_yaml::from_str(text).map_err(|e| bad(format!("not YAML: {e}")))?;
    let map = doc
        .as_mapping()
        .ok_or_else(|| bad("the document is not a mapping of keys (format_version, input_files, ...)".into()))?;
    let get = |key: &str| map.get(Value::String(key.into()));
    let format_version = match get("format_version") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => return Err(bad("format_version is not a version string".into())),
        None => return Err(bad("no format_version (a task definition starts with format_version: '2.0')".into())),
    };
    if !VERSIONS.contains(&format_version.as_str()) {
        return Err(bad(format!(
            "format_version {format_version} is not one walkdown reads ({})",
            VERSIONS.join(", ")
        )));
    }
    let base = path.parent().unwrap_or(Path::new(""));
    let input_files: Vec<PathBuf> = match get("input_files") {
        Some(Value::String(s)) => vec![base.join(s)],
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(|s| base.join(s))
                    .ok_or_else(|| bad("input_files holds an entry that is not a file name".into()))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(bad("input_files is neither a file name nor a list of them".into())),
        None => return Err(bad("no input_files".into())),
    };
    if input_files.is_empty() {
        return Err(bad("input_files is empty".into()));
    }
    let mut properties = Vec::new();
    match get("properties") {
        None | Some(Value::Null) => {}
        Some(Value::Sequence(items)) => {
            for (i, item) in items.iter().enumerate() {
                let entry =
                    item.as_mapping().ok_or_else(|| bad(format!("properties entry {} is not a mapping", i + 1)))?;
                let file = entry
                    .get(Value::String("property_file".into()))
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(format!("properties entry {} has no property_file", i + 1)))?;
                let expected_verdict = match entry.get(Value::String("expected_verdict".into())) {
                    None => None,
                    Some(Value::Bool(b)) => Some(*b),
                    Some(_) => {
                        return Err(bad(format!(
                            "properties entry {} ({file}): expected_verdict is not true or false",
                            i + 1
                        )))
                    }
                };
                properties.push(TaskPropertyEntry {
                    property: TaskProperty::from_file(file),
                    property_file: file.to_string(),
                    expected_verdict,
                });
            }
        }
        Some(_) => return Err(bad("properties is not a list".into())),
    }
    let options = get("options");
    let option = |key: &str| -> Result<Option<String>, FormatError> {
        match options.and_then(|o| o.as_mapping()).and_then(|o| o.get(Value::String(key.into()))) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(format!("options.{key} is not a word"))),
        }
    };
    let language = option("language")?;
    let data_model = option("data_model")?;
    if let Some(dm) = &data_model {
        if dm != "ILP32" && dm != "LP64" {
            return Err(bad(format!("options.data_model {dm} is neither ILP32 nor LP64")));
        }
    }
    Ok(Task { path: path.to_path_buf(), format_version, input_files, properties, language, data_model })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_version_2_task() {
        let text = "format_version: '2.0'\n# a comment\ninput_files: 'p.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\n  - property_file: ../properties/coverage-branches.prp\noptions:\n  language: C\n  data_model: ILP32\n";
        let task = parse_task(text, Path::new("dir/t.yml")).unwrap();
        assert_eq!(task.input_files, vec![PathBuf::from("dir/p.c")]);
        assert_eq!(task.properties[0].property, TaskProperty::UnreachCall);
        assert_eq!(task.properties[0].expected_verdict, Some(false));
        assert!(task.has(&TaskProperty::CoverageBranches));
        assert_eq!(task.data_model.as_deref(), Some("ILP32"));
        assert_eq!(task.language.as_deref(), Some("C"));
    }

    #[test]
    fn bad_tasks_name_what_is_wrong() {
        let err = |t: &str| parse_task(t, Path::new("t.yml")).unwrap_err().to_string();
        assert!(err("input_files: a.c\n").contains("no format_version"));
        assert!(err("format_version: '3.0'\ninput_files: a.c\n").contains("format_version 3.0"));
        assert!(err("format_version: '2.0'\n").contains("no input_files"));
        assert!(err("format_version: '2.0'\ninput_files: a.c\noptions:\n  data_model: LP32\n").contains("LP32"));
        assert!(err("format_version: '2.0'\ninput_files: a.c\nproperties:\n  - expected_verdict: true\n")
            .contains("no property_file"));
        assert!(err("[1, 2").contains("not YAML"));
        let list = parse_task("format_version: '1.0'\ninput_files: [a.c, b.c]\n", Path::new("t.yml")).unwrap();
        assert_eq!(list.input_files.len(), 2);
    }
}
