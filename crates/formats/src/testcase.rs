//! Test-Comp test cases (test-format 1.1): one XML file per test,
//! `<testcase><input variable=".." type="..">VALUE</input>...</testcase>`,
//! read into a [`TestVector`] and written from one.

use std::fs;
use std::path::Path;

use walkdown_ir::testvec::TestVector;

use crate::atomic::write_atomically;
use crate::literal::{format_value, parse_value};
use crate::xmldoc::{escape_text, find_attribute, parse_flat, FlatDocument};
use crate::FormatError;

const XML_DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"#;
const TESTCASE_DOCTYPE: &str = r#"<!DOCTYPE testcase PUBLIC "+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN" "https://sosy-lab.org/test-format/testcase-1.1.dtd">"#;

/// What a test case file says about one input besides its value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputAnnotation {
    /// The `variable` attribute: the program variable the value is for.
    pub variable: Option<String>,
    /// The `type` attribute: the C type of the `nondet` call, e.g. `int`.
    pub type_name: Option<String>,
}

/// A test case as the file holds it: the values, and the optional
/// annotations validators ignore but readers of the suite appreciate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestCase {
    /// The input values, in the order the program reads them.
    pub vector: TestVector,
    /// One entry per value; empty when nothing is annotated.
    pub annotations: Vec<InputAnnotation>,
    /// The `coversError="true"` attribute: this test reaches the error the
    /// specification is about.
    pub covers_error: bool,
}

impl TestCase {
    /// A test case with no annotations.
    pub fn new(vector: TestVector) -> Self {
        TestCase { vector, annotations: Vec::new(), covers_error: false }
    }

    /// Attach a C type name to each value (`int`, `unsigned int`, ...);
    /// `types` is matched to values by position.
    pub fn with_types<S: AsRef<str>>(mut self, types: &[S]) -> Self {
        self.annotations =
            types.iter().map(|t| InputAnnotation { variable: None, type_name: Some(t.as_ref().to_string()) }).collect();
        self
    }
}

/// Read a test case file.
pub fn read_testcase(path: &Path) -> Result<TestCase, FormatError> {
    let text = fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    parse_testcase(&text, path)
}

/// Parse the text of a test case file; `origin` names it in errors.
pub fn parse_testcase(text: &str, origin: &Path) -> Result<TestCase, FormatError> {
    let document = parse_flat(text).map_err(|message| FormatError::Xml { path: origin.to_path_buf(), message })?;
    testcase_from_document(&document, origin)
}

pub(crate) fn testcase_from_document(document: &FlatDocument, origin: &Path) -> Result<TestCase, FormatError> {
    if document.root != "testcase" {
        return Err(FormatError::UnexpectedRoot {
            path: origin.to_path_buf(),
            expected: "testcase",
            found: document.root.clone(),
        });
    }
    let covers_error = document.root_attribute("coversError").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let mut case = TestCase { covers_error, ..TestCase::default() };
    for (index, input) in document.children.iter().filter(|c| c.name == "input").enumerate() {
        let value = parse_value(&input.text).map_err(|reason| FormatError::BadValue {
            path: origin.to_path_buf(),
            index,
            value: input.text.clone(),
            reason,
        })?;
        case.vector.values.push(value);
        case.annotations.push(InputAnnotation {
            variable: find_attribute(&input.attributes, "variable").map(str::to_string),
            type_name: find_attribute(&input.attributes, "type").map(str::to_string),
        });
    }
    if case.annotations.iter().all(|a| *a == InputAnnotation::default()) {
        case.annotations.clear();
    }
    Ok(case)
}

/// The text of a test case file.
pub fn format_testcase(case: &TestCase) -> String {
    let mut out = String::new();
    out.push_str(XML_DECLARATION);
    out.push('\n');
    out.push_str(TESTCASE_DOCTYPE);
    out.push('\n');
    out.push_str(if case.covers_error { "<testcase coversError=\"true\">\n" } else { "<testcase>\n" });
    for (index, value) in case.vector.values.iter().enumerate() {
        out.push_str("  <input");
        if let Some(annotation) = case.annotations.get(index) {
            if let Some(variable) = &annotation.variable {
                out.push_str(&format!(" variable=\"{}\"", escape_text(variable)));
            }
            if let Some(type_name) = &annotation.type_name {
                out.push_str(&format!(" type=\"{}\"", escape_text(type_name)));
            }
        }
        out.push('>');
        out.push_str(&escape_text(&format_value(*value)));
        out.push_str("</input>\n");
    }
    out.push_str("</testcase>\n");
    out
}

/// Write a test case file, crash-safely (see [`crate::atomic`]).
pub fn write_testcase(path: &Path, case: &TestCase) -> Result<(), FormatError> {
    write_atomically(path, format_testcase(case).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::LiteralError;
    use walkdown_ir::testvec::InputValue;

    fn origin() -> &'static Path {
        Path::new("test-1.xml")
    }

    #[test]
    fn reads_a_validator_style_file() {
        let text = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE testcase PUBLIC "+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN" "https://sosy-lab.org/test-format/testcase-1.1.dtd">
<!-- produced by hand -->
<testcase coversError="true">
  <input variable="x" type="int">-5</input>
  <input type="unsigned int">0xFFu</input>
  <input>'\n'</input>
  <input>  1.5e3f </input>
  <input><![CDATA[7]]></input>
  <input>&#52;2</input>
</testcase>
"#;
        let case = parse_testcase(text, origin()).unwrap();
        assert!(case.covers_error);
        assert_eq!(
            case.vector.values,
            vec![
                InputValue::Int(-5),
                InputValue::Int(255),
                InputValue::Int(10),
                InputValue::Float(1500.0),
                InputValue::Int(7),
                InputValue::Int(42),
            ]
        );
        assert_eq!(case.annotations[0].variable.as_deref(), Some("x"));
        assert_eq!(case.annotations[1].type_name.as_deref(), Some("unsigned int"));
        assert_eq!(case.annotations[2], InputAnnotation::default());
    }

    #[test]
    fn round_trips_values_and_types() {
        let vector = TestVector {
            values: vec![
                InputValue::Int(-1),
                InputValue::Int(i128::from(u64::MAX)),
                InputValue::Float(0.1),
                InputValue::Float(f64::NEG_INFINITY),
            ],
        };
        let mut case = TestCase::new(vector).with_types(&["int", "unsigned long", "double", "float"]);
        case.annotations[0].variable = Some("a<b&\"c\"".to_string());
        let text = format_testcase(&case);
        assert!(text.contains("<!DOCTYPE testcase PUBLIC"));
        assert!(text.contains("type=\"unsigned long\""));
        assert_eq!(parse_testcase(&text, origin()).unwrap(), case);
    }

    #[test]
    fn empty_testcase_round_trips() {
        let case = TestCase::new(TestVector::default());
        assert_eq!(parse_testcase(&format_testcase(&case), origin()).unwrap(), case);
        let self_closing = parse_testcase("<testcase/>", origin()).unwrap();
        assert_eq!(self_closing, case);
    }

    #[test]
    fn bad_value_names_file_index_and_text() {
        let text = "<testcase><input>1</input><input>12abc</input></testcase>";
        let error = parse_testcase(text, origin()).unwrap_err();
        match &error {
            FormatError::BadValue { path, index, value, reason } => {
                assert_eq!(path, origin());
                assert_eq!(*index, 1);
                assert_eq!(value, "12abc");
                assert_eq!(*reason, LiteralError::BadSuffix("abc".into()));
            }
            other => panic!("unexpected {other:?}"),
        }
        let message = error.to_string();
        assert!(message.contains("test-1.xml") && message.contains("12abc"), "{message}");
    }

    #[test]
    fn structural_errors() {
        assert!(matches!(parse_testcase("<test-metadata/>", origin()), Err(FormatError::UnexpectedRoot { .. })));
        assert!(matches!(parse_testcase("<testcase><input>1</input>", origin()), Err(FormatError::Xml { .. })));
        assert!(matches!(
            parse_testcase("<testcase><input><b>1</b></input></testcase>", origin()),
            Err(FormatError::Xml { .. })
        ));
        assert!(matches!(
            parse_testcase("<testcase><input>&bogus;</input></testcase>", origin()),
            Err(FormatError::Xml { .. })
        ));
        assert!(matches!(parse_testcase("", origin()), Err(FormatError::Xml { .. })));
    }

    #[test]
    fn writes_and_reads_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test-3.xml");
        let case = TestCase::new(TestVector::from_ints([1, -2, 3]));
        write_testcase(&path, &case).unwrap();
        assert_eq!(read_testcase(&path).unwrap(), case);
        let missing = read_testcase(&dir.path().join("nope.xml")).unwrap_err();
        assert!(matches!(missing, FormatError::Read { .. }));
    }
}
