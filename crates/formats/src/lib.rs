//! Test file formats: the only place in walkdown that knows how tests are
//! written down.
//!
//! - [`testcase`]: Test-Comp test cases (test-format 1.1 XML);
//! - [`metadata`]: the suite's `metadata.xml`;
//! - [`suite`]: a whole suite directory, in validator order;
//! - [`lines`]: one value a line, and comma lists for `--inputs`;
//! - [`literal`]: the value syntax all of them share;
//! - [`report`]: `report.json` of a generation run;
//! - [`sarif`]: `errors.sarif`, the run's errors in SARIF 2.1.0;
//! - [`html`]: `report/index.html`, the verdict report a person reads;
//! - [`lcov`]: `coverage.info`, native coverage as an lcov tracefile;
//! - [`task`]: SV-COMP/Test-Comp task definitions (`TASK.yml`);
//! - [`batch`]: shard summaries of `walkdown batch`;
//! - [`compile_commands`]: a project's build (`compile_commands.json`) as units;
//! - [`witness`]: `witness.yml`, an SV-COMP correctness witness (YAML 2.0).
//!
//! Every writer is crash-safe ([`atomic`]): an interrupted run leaves whole
//! files only.

pub mod atomic;
pub mod batch;
pub mod compile_commands;
pub mod envtest;
pub mod eva;
pub mod html;
pub mod lcov;
pub mod lines;
pub mod literal;
pub mod metadata;
pub mod report;
pub mod sarif;
pub mod suite;
pub mod task;
pub mod testcase;
pub mod witness;
mod xmldoc;

use std::io;
use std::path::PathBuf;

use thiserror::Error;

pub use lines::{format_lines, format_value_list, parse_lines, parse_value_list, read_lines_file, write_lines_file};
pub use literal::{format_value, parse_value, LiteralError};
pub use metadata::{read_metadata, write_metadata, Metadata, Specification};
pub use suite::{read_suite, Suite, SuiteTest};
pub use testcase::{read_testcase, write_testcase, InputAnnotation, TestCase};

/// Everything that can go wrong reading or writing a test file.
#[derive(Debug, Error)]
pub enum FormatError {
    /// A JSON file is not a well-formed report.
    #[error("{}: malformed report: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The file or directory could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// What was being read.
        path: PathBuf,
        /// The underlying failure.
        source: io::Error,
    },
    /// The file could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// The underlying failure.
        source: io::Error,
    },
    /// The file is not well-formed XML of the flat shape Test-Comp uses.
    #[error("{}: malformed XML: {message}", path.display())]
    Xml {
        /// The file.
        path: PathBuf,
        /// What the XML reader found wrong.
        message: String,
    },
    /// The XML file is of another kind than expected.
    #[error("{}: root element is <{found}>, expected <{expected}>", path.display())]
    UnexpectedRoot {
        /// The file.
        path: PathBuf,
        /// The root element the reader wanted.
        expected: &'static str,
        /// The root element the file has.
        found: String,
    },
    /// An `<input>` of a test case holds no valid value.
    #[error("{}: input {} (counting from 1): bad value {value:?}: {reason}", path.display(), index + 1)]
    BadValue {
        /// The file.
        path: PathBuf,
        /// Position of the input among the file's inputs, from 0.
        index: usize,
        /// The text of the input.
        value: String,
        /// Why it is not a value.
        reason: LiteralError,
    },
    /// A line of a one-value-a-line file holds no valid value.
    #[error("{}:{line}: bad value {value:?}: {reason}", path.display())]
    BadLine {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The text of the line, without comment and surrounding blanks.
        value: String,
        /// Why it is not a value.
        reason: LiteralError,
    },
    /// An item of a comma-separated value list is not a value.
    #[error("item {} (counting from 1) of the value list: bad value {value:?}: {reason}", index + 1)]
    BadListItem {
        /// Position in the list, from 0.
        index: usize,
        /// The text of the item.
        value: String,
        /// Why it is not a value.
        reason: LiteralError,
    },
    /// A task definition (`TASK.yml`) that walkdown cannot use.
    #[error("{}: {message}", path.display())]
    Task {
        /// The task file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A suite path that is not a directory.
    #[error("{}: not a test suite directory", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// A document could not be serialized as YAML (a bug).
    #[error("cannot write YAML: {0}")]
    Yaml(String),
}
