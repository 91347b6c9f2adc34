//! walkdown's own test format for programs with an environment: command-
//! line arguments, standard input and named files besides the `nondet`
//! values. Test-Comp's XML cannot hold these, so `gen` writes one JSON file
//! per test into `env-tests/` beside the suite directory, and `run`,
//! `replay` and `validate` read it.
//!
//! ```json
//! {
//!   "format": "walkdown-env-test/1",
//!   "environment": {"args": {"count": 3, "len": 8}, "stdin": 32, "files": []},
//!   "args": ["-m", "2"],
//!   "stdin": "x\nx\n",
//!   "files": {},
//!   "inputs": ["7"],
//!   "covers_error": true
//! }
//! ```
//!
//! - `environment`: the bounds the test was generated within
//!   (`walkdown_ir::env::Environment`; absent parts are `null` or empty).
//!   Replaying in walkdown's interpreter needs them: the start function
//!   draws that many bytes.
//! - `args`, `stdin`, `files`: byte strings, written as JSON strings whose
//!   characters U+0000 to U+00FF each stand for one byte (Latin-1), so
//!   printable ASCII reads as itself and every byte can be written.
//! - `inputs`: the values of the program's own `__VERIFIER_nondet_*` calls,
//!   in order, as Test-Comp writes them.

use crate::literal::{format_value, parse_value};
use crate::FormatError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use walkdown_ir::env::{ArgBound, EnvInputs, Environment, FileBound};
use walkdown_ir::testvec::{InputValue, TestVector};

/// The format tag of [`EnvTest`] files.
pub const FORMAT: &str = "walkdown-env-test/1";

/// The directory (beside the suite) `gen` writes environment tests into.
pub const ENV_TESTS_DIR: &str = "env-tests";

/// One test of a program with an environment.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvTest {
    /// The bounds the test was made within.
    pub environment: Environment,
    /// Arguments, standard input and files.
    pub inputs: EnvInputs,
    /// The program's own input values, after the environment's.
    pub values: Vec<InputValue>,
    /// Whether the test reaches `reach_error`.
    pub covers_error: bool,
}

impl EnvTest {
    /// The test of a whole test vector (the environment's prefix first);
    /// `None` when the vector does not describe an environment within the
    /// bounds. A vector shorter than the prefix (engines drop trailing
    /// zeros) is read as the interpreter reads it: every missing value is 0.
    pub fn from_vector(environment: &Environment, vector: &TestVector, covers_error: bool) -> Option<EnvTest> {
        let mut values = vector.values.clone();
        if values.len() < environment.prefix_len() {
            values.resize(environment.prefix_len(), InputValue::Int(0));
        }
        let (inputs, rest) = environment.decode(&values)?;
        Some(EnvTest { environment: environment.clone(), inputs, values: rest.to_vec(), covers_error })
    }

    /// The whole test vector the interpreter consumes.
    pub fn vector(&self) -> Result<TestVector, walkdown_ir::env::EnvMismatch> {
        let mut values = self.environment.encode(&self.inputs)?;
        values.extend_from_slice(&self.values);
        Ok(TestVector { values })
    }
}

#[derive(Serialize, Deserialize)]
struct ArgsJson {
    count: u32,
    len: u32,
}

#[derive(Serialize, Deserialize)]
struct FileJson {
    name: String,
    len: u32,
}

#[derive(Serialize, Deserialize)]
struct EnvironmentJson {
    args: Option<ArgsJson>,
    stdin: Option<u32>,
    #[serde(default)]
    files: Vec<FileJson>,
}

#[derive(Serialize, Deserialize)]
struct EnvTestJson {
    format: String,
    environment: EnvironmentJson,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    stdin: String,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    inputs: Vec<String>,
    #[serde(default)]
    covers_error: bool,
}

/// Bytes as a string of the characters U+0000..U+00FF.
pub fn bytes_to_latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The bytes of a string of characters U+0000..U+00FF; `None` when it has
/// another character.
pub fn latin1_to_bytes(text: &str) -> Option<Vec<u8>> {
    text.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

/// The JSON text of `test`.
pub fn format_env_test(test: &EnvTest) -> String {
    let e = &test.environment;
    let json = EnvTestJson {
        format: FORMAT.into(),
        environment: EnvironmentJson {
            args: e.args.map(|a| ArgsJson { count: a.count, len: a.len }),
            stdin: e.stdin,
            files: e.files.iter().map(|f| FileJson { name: f.name.clone(), len: f.len }).collect(),
        },
        args: test.inputs.args.iter().map(|a| bytes_to_latin1(a)).collect(),
        stdin: bytes_to_latin1(&test.inputs.stdin),
        files: test.inputs.files.iter().map(|(n, d)| (n.clone(), bytes_to_latin1(d))).collect(),
        inputs: test.values.iter().map(|&v| format_value(v)).collect(),
        covers_error: test.covers_error,
    };
    let mut text = serde_json::to_string_pretty(&json).expect("an environment test serialises");
    text.push('\n');
    text
}

/// Parses an environment test; `origin` names the file in errors.
pub fn parse_env_test(text: &str, origin: &Path) -> Result<EnvTest, FormatError> {
    let bad = |message: String| FormatError::Malformed { path: origin.into(), message };
    let json: EnvTestJson = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if json.format != FORMAT {
        return Err(bad(format!("format `{}`, expected `{FORMAT}`", json.format)));
    }
    let bytes = |what: &str, s: &str| {
        latin1_to_bytes(s).ok_or_else(|| bad(format!("{what} has a character above U+00FF (one byte per character)")))
    };
    let environment = Environment {
        args: json.environment.args.map(|a| ArgBound { count: a.count, len: a.len }),
        stdin: json.environment.stdin,
        files: json.environment.files.into_iter().map(|f| FileBound { name: f.name, len: f.len }).collect(),
    };
    let mut inputs = EnvInputs { stdin: bytes("stdin", &json.stdin)?, ..Default::default() };
    for (i, a) in json.args.iter().enumerate() {
        inputs.args.push(bytes(&format!("argument {}", i + 1), a)?);
    }
    for f in &environment.files {
        let data = json.files.get(&f.name).map(|d| bytes(&format!("file `{}`", f.name), d)).transpose()?;
        inputs.files.push((f.name.clone(), data.unwrap_or_default()));
    }
    if let Some(name) = json.files.keys().find(|n| !environment.files.iter().any(|f| &&f.name == n)) {
        return Err(bad(format!("file `{name}` is not one of the environment's files")));
    }
    let values = json
        .inputs
        .iter()
        .map(|v| parse_value(v).map_err(|e| bad(format!("input `{v}`: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let test = EnvTest { environment, inputs, values, covers_error: json.covers_error };
    test.vector().map_err(|e| bad(format!("the test does not fit its environment: {e}")))?;
    Ok(test)
}

/// Reads an environment test file.
pub fn read_env_test(path: &Path) -> Result<EnvTest, FormatError> {
    let text = std::fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.into(), source })?;
    parse_env_test(&text, path)
}

/// Writes an environment test file.
pub fn write_env_test(path: &Path, test: &EnvTest) -> Result<(), FormatError> {
    std::fs::write(path, format_env_test(test)).map_err(|source| FormatError::Write { path: path.into(), source })
}

/// Whether `path` names an environment test (by its extension).
pub fn is_env_test_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// The environment tests of a directory, in natural order of their names.
pub fn read_env_tests(dir: &Path) -> Result<Vec<(String, EnvTest)>, FormatError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FormatError::Read { path: dir.into(), source })?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort_by(|a, b| crate::suite::natural_order(a, b));
    names.into_iter().map(|n| read_env_test(&dir.join(&n)).map(|t| (n, t))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test() -> EnvTest {
        EnvTest {
            environment: Environment {
                args: Some(ArgBound { count: 2, len: 4 }),
                stdin: Some(8),
                files: vec![FileBound { name: "in.txt".into(), len: 3 }],
            },
            inputs: EnvInputs {
                args: vec![b"-m".to_vec(), vec![0xff, b'"']],
                stdin: b"x\0y\n".to_vec(),
                files: vec![("in.txt".into(), b"ab".to_vec())],
            },
            values: vec![InputValue::Int(-3)],
            covers_error: true,
        }
    }

    #[test]
    fn a_test_survives_its_json_and_its_vector() {
        let t = test();
        let text = format_env_test(&t);
        assert!(text.contains("\"-m\""), "{text}");
        assert_eq!(parse_env_test(&text, Path::new("t.json")).unwrap(), t);
        let v = t.vector().unwrap();
        assert_eq!(EnvTest::from_vector(&t.environment, &v, true).unwrap(), t);
    }

    #[test]
    fn a_short_vector_reads_its_missing_values_as_zero() {
        let env = test().environment;
        // argc 1, then the first argument's first byte: everything after is 0.
        let v = TestVector { values: vec![InputValue::Int(1), InputValue::Int(i128::from(b'x'))] };
        let t = EnvTest::from_vector(&env, &v, false).unwrap();
        assert_eq!(t.inputs.args, vec![b"x".to_vec()]);
        assert!(t.inputs.stdin.is_empty() && t.values.is_empty());
        let over = TestVector { values: vec![InputValue::Int(3)] };
        assert_eq!(EnvTest::from_vector(&env, &over, false), None, "3 arguments exceed the bound of 2");
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let text = format_env_test(&test()).replace("\"x\\u0000y\\n\"", "\"0123456789\"");
        let err = parse_env_test(&text, Path::new("t.json")).unwrap_err().to_string();
        assert!(err.contains("standard input"), "{err}");
        let err = parse_env_test("{\"format\": \"other\"}", Path::new("t.json")).unwrap_err().to_string();
        assert!(err.contains("t.json"), "{err}");
        assert_eq!(latin1_to_bytes("é"), Some(vec![0xe9]));
        assert_eq!(latin1_to_bytes("€"), None);
    }
}
