//! walkdown's own C harness (`c/walkdown_harness.c`): the Test-Comp
//! functions a task calls (`__VERIFIER_nondet_*`, `__VERIFIER_assume`,
//! `reach_error`, ...), fed from a file of values, and the report it leaves
//! behind when the run ends. This module holds the contract between the
//! Rust side and that C file: environment variable names, the input file
//! syntax and the report syntax (including what the sandbox denied).

use walkdown_ir::testvec::TestVector;

use crate::sandbox::Denial;

/// The harness source, compiled next to every task.
pub const HARNESS_SOURCE: &str = include_str!("../c/walkdown_harness.c");

/// Environment variable naming the file of input values, one a line.
pub const ENV_INPUTS: &str = "WD_INPUTS";
/// Environment variable naming the report file the harness writes.
pub const ENV_REPORT: &str = "WD_REPORT";
/// Environment variable with the address-space limit, in MiB.
pub const ENV_MEMORY_LIMIT_MB: &str = "WD_MEMLIMIT_MB";
/// Environment variable choosing what happens when inputs run out
/// (`exit` ends the run with status 1; anything else returns 0).
pub const ENV_EXHAUSTED: &str = "WD_EXHAUSTED";

/// The input file for `vector`: integers in decimal, floats in a form that
/// reads back to the same `double` (`strtold` accepts every spelling used).
pub fn input_file_text(vector: &TestVector) -> String {
    let mut text = String::new();
    for value in &vector.values {
        // The spelling test files use: exact for floats, so `strtold` in
        // the harness reads back the very `f64`.
        text.push_str(&walkdown_formats::format_value(*value));
        text.push('\n');
    }
    text
}

/// How the harness says the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportedEnd {
    /// `exit()` or a return from `main`.
    Exit,
    /// The harness aborted the run itself (error reached, assertion failed).
    HarnessAbort,
    /// A fatal signal arrived (including `SIGABRT` from the task's `abort()`
    /// and `SIGTERM` from a timeout).
    Signal(i32),
}

/// The content of a report file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HarnessReport {
    /// `nondet` calls executed, including those past the last value.
    pub nondet_calls: u64,
    /// Some `nondet` call found no value left.
    pub inputs_exhausted: bool,
    /// `__VERIFIER_assume` was called with a false condition.
    pub assume_failed: bool,
    /// `reach_error` (or `__VERIFIER_error`) was entered.
    pub reach_error: bool,
    /// An `assert()` failed (an `__assert_fail` not coming from `reach_error`).
    pub assert_fail: bool,
    /// How the process ended, if the report says.
    pub end: Option<ReportedEnd>,
    /// What the program tried that failed the way the sandbox makes it
    /// fail (`denied ACTION ERROR SUBJECT` lines; see `crate::sandbox`).
    pub denied: Vec<Denial>,
}

impl HarnessReport {
    /// Parse a report; `None` when the text is not a complete report (the
    /// process was killed before it could write one).
    pub fn parse(text: &str) -> Option<HarnessReport> {
        let mut report = HarnessReport::default();
        for line in text.lines() {
            let (key, value) = line.split_once(' ')?;
            let flag = || match value {
                "0" => Some(false),
                "1" => Some(true),
                _ => None,
            };
            match key {
                "nondet_calls" => report.nondet_calls = value.parse().ok()?,
                "inputs_exhausted" => report.inputs_exhausted = flag()?,
                "assume_failed" => report.assume_failed = flag()?,
                "reach_error" => report.reach_error = flag()?,
                "assert_fail" => report.assert_fail = flag()?,
                // An unreadable denial is dropped, not the whole report.
                "denied" => report.denied.extend(Denial::parse(value)),
                "end" => {
                    report.end = Some(match value {
                        "exit" => ReportedEnd::Exit,
                        "abort" => ReportedEnd::HarnessAbort,
                        other => ReportedEnd::Signal(other.strip_prefix("signal ")?.parse().ok()?),
                    })
                }
                // Newer harness fields are ignored rather than fatal.
                _ => {}
            }
        }
        // The `end` line comes last: without it the write was cut short.
        report.end.is_some().then_some(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::testvec::InputValue;

    #[test]
    fn input_text_spellings() {
        let vector = TestVector {
            values: vec![
                InputValue::Int(-3),
                InputValue::Int(i128::from(u64::MAX)),
                InputValue::Float(2.0),
                InputValue::Float(1.2345678901234568e18),
                InputValue::Float(f64::NAN),
                InputValue::Float(f64::NEG_INFINITY),
                InputValue::Float(-0.1),
                InputValue::Float(-0.0),
            ],
        };
        assert_eq!(
            input_file_text(&vector),
            "-3\n18446744073709551615\n2.0\n1234567890123456768.0\nnan\n-inf\n\
             -0.1000000000000000055511151231257827021181583404541015625\n-0.0\n"
        );
        let tiny = input_file_text(&TestVector { values: vec![InputValue::Float(f64::from_bits(1))] });
        assert!(tiny.starts_with("0.000") && tiny.trim_end().ends_with("625"), "{tiny}");
        let huge = input_file_text(&TestVector { values: vec![InputValue::Float(1e300)] });
        assert!(huge.starts_with("100000000000000005250476025520442024870446858110815915491585411551180245798890819"));
        assert!(huge.ends_with("40160.0\n") && huge.len() == 301 + 3, "{huge}");
        assert_eq!(huge.trim_end().parse::<f64>().unwrap(), 1e300);
    }

    #[test]
    fn parses_reports() {
        let text = "nondet_calls 12\ninputs_exhausted 1\nassume_failed 0\nreach_error 0\nassert_fail 1\nend signal 6\n";
        let report = HarnessReport::parse(text).unwrap();
        assert_eq!(report.nondet_calls, 12);
        assert!(report.inputs_exhausted && report.assert_fail && !report.reach_error);
        assert_eq!(report.end, Some(ReportedEnd::Signal(6)));
        assert_eq!(HarnessReport::parse("nondet_calls 1\nend exit\n").unwrap().end, Some(ReportedEnd::Exit));
        assert_eq!(HarnessReport::parse("nondet_calls 1\n"), None);
        assert_eq!(HarnessReport::parse(""), None);
        assert_eq!(HarnessReport::parse("nondet_calls x\nend exit\n"), None);
        let denied =
            HarnessReport::parse("denied write EROFS /home/u/a b\ndenied fork EAGAIN \ndenied x y\nend exit\n");
        let denied = denied.unwrap().denied;
        assert_eq!(denied.len(), 2, "{denied:?}");
        assert_eq!(denied[0].describe(), "write to /home/u/a b denied (EROFS)");
        assert_eq!(denied[1].action, crate::sandbox::DeniedAction::Fork);
    }
}
