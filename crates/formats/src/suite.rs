//! A whole Test-Comp test suite directory: `metadata.xml` and the test case
//! files, found the way Test-Comp's validators find them (every `*.xml`
//! below the directory, in natural order, so `test-2` comes before
//! `test-10`).

use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};

use walkdown_ir::testvec::TestVector;

use crate::metadata::{metadata_from_document, Metadata};
use crate::testcase::{testcase_from_document, TestCase};
use crate::xmldoc::parse_flat;
use crate::FormatError;

/// One test of a suite.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteTest {
    /// Path of the file relative to the suite directory, `/`-separated.
    pub name: String,
    /// Its content.
    pub case: TestCase,
}

/// A suite as read from a directory.
#[derive(Debug, Default)]
pub struct Suite {
    /// The content of `metadata.xml`, if the suite has one.
    pub metadata: Option<Metadata>,
    /// The tests in natural order of their names.
    pub tests: Vec<SuiteTest>,
    /// XML files that are neither metadata nor a readable test case, with
    /// the reason. Validators skip such files; the caller decides whether
    /// that is acceptable.
    pub invalid: Vec<(String, FormatError)>,
}

impl Suite {
    /// The test vectors, in suite order.
    pub fn vectors(&self) -> Vec<TestVector> {
        self.tests.iter().map(|test| test.case.vector.clone()).collect()
    }
}

/// Read every `*.xml` file below `dir`. Files whose root element is neither
/// `testcase` nor `test-metadata` are ignored, as validators do.
pub fn read_suite(dir: &Path) -> Result<Suite, FormatError> {
    if !dir.is_dir() {
        return Err(FormatError::NotADirectory { path: dir.to_path_buf() });
    }
    let mut files = Vec::new();
    collect_xml_files(dir, dir, &mut files)?;
    files.sort_by(|(a, _), (b, _)| natural_order(a, b));

    let mut suite = Suite::default();
    for (name, path) in files {
        let text = match fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(source) => {
                suite.invalid.push((name, FormatError::Read { path, source }));
                continue;
            }
        };
        let document = match parse_flat(&text) {
            Ok(document) => document,
            Err(message) => {
                suite.invalid.push((name, FormatError::Xml { path, message }));
                continue;
            }
        };
        let is_metadata = document.root == "test-metadata" || path.file_name().is_some_and(|n| n == "metadata.xml");
        if is_metadata {
            match metadata_from_document(&document, &path) {
                Ok(metadata) => suite.metadata = Some(metadata),
                Err(error) => suite.invalid.push((name, error)),
            }
        } else if document.root == "testcase" {
            match testcase_from_document(&document, &path) {
                Ok(case) => suite.tests.push(SuiteTest { name, case }),
                Err(error) => suite.invalid.push((name, error)),
            }
        }
    }
    Ok(suite)
}

fn collect_xml_files(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), FormatError> {
    let read_error = |source| FormatError::Read { path: dir.to_path_buf(), source };
    for entry in fs::read_dir(dir).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(read_error)?;
        // Symbolic links are followed only to files: a link to a directory
        // could form a cycle.
        if file_type.is_dir() {
            collect_xml_files(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "xml") && path.is_file() {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let name = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push((name, path));
        }
    }
    Ok(())
}

/// Natural order: runs of digits compare as numbers, everything else
/// character by character.
pub fn natural_order(a: &str, b: &str) -> Ordering {
    let (mut rest_a, mut rest_b) = (a, b);
    loop {
        match (rest_a.is_empty(), rest_b.is_empty()) {
            (true, true) => return a.cmp(b),
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        let (run_a, tail_a) = split_run(rest_a);
        let (run_b, tail_b) = split_run(rest_b);
        let order = match (is_digits(run_a), is_digits(run_b)) {
            (true, true) => compare_numbers(run_a, run_b),
            _ => run_a.cmp(run_b),
        };
        if order != Ordering::Equal {
            return order;
        }
        rest_a = tail_a;
        rest_b = tail_b;
    }
}

fn is_digits(run: &str) -> bool {
    run.as_bytes().first().is_some_and(u8::is_ascii_digit)
}

/// The leading run of all-digit or all-non-digit characters, and the rest.
fn split_run(text: &str) -> (&str, &str) {
    let digits = is_digits(text);
    let end = text.char_indices().find(|(_, c)| c.is_ascii_digit() != digits).map_or(text.len(), |(i, _)| i);
    text.split_at(end)
}

fn compare_numbers(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{write_metadata, Specification};
    use crate::testcase::write_testcase;
    use walkdown_ir::DataModel;

    #[test]
    fn natural_order_puts_numbers_in_numeric_order() {
        let mut names = vec!["test-10.xml", "test-2.xml", "test-1.xml", "a/test-3.xml", "test-02.xml"];
        names.sort_by(|a, b| natural_order(a, b));
        assert_eq!(names, vec!["a/test-3.xml", "test-1.xml", "test-02.xml", "test-2.xml", "test-10.xml"]);
        assert_eq!(natural_order("x99999999999999999999999", "x100000000000000000000000"), Ordering::Less);
        assert_eq!(natural_order("t1", "t1a"), Ordering::Less);
    }

    #[test]
    fn reads_a_suite_directory() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("p.c");
        fs::write(&program, "int main(){}").unwrap();
        let suite_dir = dir.path().join("suite");
        fs::create_dir_all(suite_dir.join("sub")).unwrap();
        let metadata =
            Metadata::for_program(&program, Specification::CoverBranches, DataModel::LP64, "walkdown").unwrap();
        write_metadata(&suite_dir.join("metadata.xml"), &metadata).unwrap();
        for i in [10, 2, 1] {
            let case = TestCase::new(TestVector::from_ints([i]));
            write_testcase(&suite_dir.join(format!("test-{i}.xml")), &case).unwrap();
        }
        write_testcase(&suite_dir.join("sub/test-0.xml"), &TestCase::new(TestVector::from_ints([0]))).unwrap();
        fs::write(suite_dir.join("broken.xml"), "<testcase><input>").unwrap();
        fs::write(suite_dir.join("bad-value.xml"), "<testcase><input>x</input></testcase>").unwrap();
        fs::write(suite_dir.join("other.xml"), "<report/>").unwrap();
        fs::write(suite_dir.join("notes.txt"), "ignored").unwrap();

        let suite = read_suite(&suite_dir).unwrap();
        assert_eq!(suite.metadata.as_ref(), Some(&metadata));
        let names: Vec<_> = suite.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["sub/test-0.xml", "test-1.xml", "test-2.xml", "test-10.xml"]);
        assert_eq!(suite.vectors()[3], TestVector::from_ints([10]));
        let invalid: Vec<_> = suite.invalid.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(invalid, vec!["bad-value.xml", "broken.xml"]);
        assert!(matches!(suite.invalid[0].1, FormatError::BadValue { .. }));
    }

    #[test]
    fn missing_directory_is_an_error() {
        let error = read_suite(Path::new("/nonexistent/suite")).unwrap_err();
        assert!(matches!(error, FormatError::NotADirectory { .. }));
    }
}
