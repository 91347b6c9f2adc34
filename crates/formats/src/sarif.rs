//! `errors.sarif`: the errors of a generation run in SARIF 2.1.0, for code
//! scanning views and editors; `check.sarif`: `walkdown check`'s verdicts.
//!
//! One result per distinct error (kind and location), one rule per error
//! kind; each result names the test that reaches the error, its input
//! values and the command that reproduces it. Built through the typed
//! model of the `serde-sarif` crate (generated from the 2.1.0 schema), so
//! the file has the schema's shape by construction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, PropertyBag, Region,
    ReportingDescriptor, Result as SarifResult, Run, Sarif, Tool, ToolComponent,
};

use crate::atomic::write_atomically;
use crate::literal::format_value;
use crate::report::Report;
use crate::testcase::read_testcase;
use crate::FormatError;

/// The schema the file declares.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// What each error kind means, for the rule's description.
fn describe(kind: &str) -> &'static str {
    match kind {
        "reach_error" => "A call of reach_error() is reached.",
        "assert" | "assertion" => "An assertion fails.",
        "abort" => "The program calls abort().",
        "div_by_zero" => "An integer division or remainder by zero.",
        "overflow" => "A signed integer overflow (undefined behaviour in C).",
        "shift" => "A shift by a negative amount or by the operand's width or more.",
        "out_of_bounds" => "A memory access outside the object it points into.",
        "null" => "A dereference of a null pointer.",
        "use_after_free" => "A memory access to an object already freed.",
        "double_free" | "invalid_free" => "A free() of memory not allocated by malloc, or already freed.",
        "memory_limit" => "The run exceeds the memory limit.",
        _ => "A runtime error walkdown detects.",
    }
}

/// The SARIF location of a report's `file:line:column`.
fn physical_location(location: &str) -> PhysicalLocation {
    let (file, line, column) = split_location(location);
    let mut region = Region::builder().build();
    region.start_line = line;
    region.start_column = column;
    PhysicalLocation::builder()
        .artifact_location(ArtifactLocation::builder().uri(uri_of_path(&file)).build())
        .region(region)
        .build()
}

/// `file:line:col` split from the right (file names may hold colons).
fn split_location(location: &str) -> (String, Option<i64>, Option<i64>) {
    let mut parts = location.rsplitn(3, ':');
    let (c, l, f) = (parts.next(), parts.next(), parts.next());
    match (f, l.and_then(|l| l.parse().ok()), c.and_then(|c| c.parse().ok())) {
        (Some(f), Some(l), Some(c)) => (f.to_string(), Some(l), Some(c)),
        _ => {
            // `file:line` or no position at all.
            let mut parts = location.rsplitn(2, ':');
            let (l, f) = (parts.next(), parts.next());
            match (f, l.and_then(|l| l.parse().ok())) {
                (Some(f), Some(l)) => (f.to_string(), Some(l), None),
                _ => (location.to_string(), None, None),
            }
        }
    }
}

/// A relative or absolute path as a URI reference: unreserved characters
/// and `/` stay, everything else is percent-encoded.
fn uri_of_path(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn text(s: impl Into<String>) -> Message {
    Message::builder().text(s.into()).build()
}

/// The SARIF log of `report`'s errors. `suite` is the directory of the
/// tests (for their input values; a test that cannot be read is named
/// without them); `reproduce` gives the shell command that replays a
/// test file.
pub fn errors_sarif(report: &Report, suite: &Path, reproduce: &dyn Fn(&Path) -> String) -> Sarif {
    let mut seen = BTreeSet::new();
    let mut kinds = BTreeMap::new();
    let mut results = Vec::new();
    for e in &report.errors {
        if !seen.insert((e.kind.clone(), e.location.clone())) {
            continue;
        }
        let next = kinds.len();
        let rule_index = *kinds.entry(e.kind.clone()).or_insert(next);
        let physical = physical_location(&e.location);
        let location = Location::builder().physical_location(physical).build();
        let test_path = suite.join(&e.test);
        let mut properties = BTreeMap::new();
        properties.insert("test".to_string(), serde_json::Value::String(e.test.clone()));
        if let Ok(case) = read_testcase(&test_path) {
            let values: Vec<serde_json::Value> =
                case.vector.values.iter().map(|v| serde_json::Value::String(format_value(*v))).collect();
            properties.insert("inputs".to_string(), serde_json::Value::Array(values));
        }
        let command = reproduce(&test_path);
        properties.insert("reproduce".to_string(), serde_json::Value::String(command.clone()));
        if !e.native.is_empty() {
            properties.insert("native".to_string(), serde_json::Value::String(e.native.clone()));
        }
        if !e.native_outcome.is_empty() {
            properties.insert("nativeOutcome".to_string(), serde_json::Value::String(e.native_outcome.clone()));
        }
        let message =
            format!("{} at {} (test {}; {}; reproduce with: {command})", e.kind, e.location, e.test, e.native_words());
        // An error the native run does not reproduce is a warning: the
        // interpreter and the machine disagree, which may be walkdown's
        // modelling rather than the program.
        let level = match e.unconfirmed() {
            true => serde_sarif::sarif::ResultLevel::Warning,
            false => serde_sarif::sarif::ResultLevel::Error,
        };
        results.push(
            SarifResult::builder()
                .rule_id(e.kind.clone())
                .rule_index(rule_index as i64)
                .level(level)
                .message(text(message))
                .locations(vec![location])
                .properties(PropertyBag::builder().additional_properties(properties).build())
                .build(),
        );
    }
    sarif_log(report, kinds, results, &|kind| describe(kind))
}

/// Writes `report`'s errors to `path` as SARIF (see [`errors_sarif`]).
pub fn write_errors_sarif(
    path: &Path,
    report: &Report,
    suite: &Path,
    reproduce: &dyn Fn(&Path) -> String,
) -> Result<(), FormatError> {
    let log = errors_sarif(report, suite, reproduce);
    let text = serde_json::to_string_pretty(&log).expect("a SARIF log always serializes");
    write_atomically(path, text.as_bytes())
}

/// The SARIF log of `walkdown check`: one result per possible runtime
/// error of `report.check`, at level `error` when confirmed (a test's
/// native run shows it), `warning` when unknown and `note` when refuted
/// (proved unreachable) or excluded (only a call that breaks the API's
/// contract reaches it); the verdict and its evidence are in the message
/// and the properties.
pub fn check_sarif(report: &Report) -> Sarif {
    let mut kinds = BTreeMap::new();
    let mut results = Vec::new();
    for c in &report.check {
        let kind = c.kind.trim_start_matches("error ").to_string();
        let next = kinds.len();
        let rule_index = *kinds.entry(kind.clone()).or_insert(next);
        let physical = physical_location(&c.location);
        let level = match c.verdict.as_str() {
            "confirmed" => serde_sarif::sarif::ResultLevel::Error,
            "refuted" | "excluded" => serde_sarif::sarif::ResultLevel::Note,
            _ => serde_sarif::sarif::ResultLevel::Warning,
        };
        let mut properties = BTreeMap::new();
        properties.insert("verdict".to_string(), serde_json::Value::String(c.verdict.clone()));
        properties.insert("evidence".to_string(), serde_json::Value::String(c.evidence.clone()));
        properties.insert("goal".to_string(), serde_json::Value::String(c.goal.clone()));
        results.push(
            SarifResult::builder()
                .rule_id(kind.clone())
                .rule_index(rule_index as i64)
                .level(level)
                .message(text(format!("possible {kind} in {}: {}: {}", c.function, c.verdict, c.evidence)))
                .locations(vec![Location::builder().physical_location(physical).build()])
                .properties(PropertyBag::builder().additional_properties(properties).build())
                .build(),
        );
    }
    sarif_log(report, kinds, results, &|kind| {
        if kind == "memory" {
            "A memory access that may fault (null, out of bounds, freed)."
        } else {
            describe(kind)
        }
    })
}

/// One run of walkdown as a SARIF log: a rule per kind (in the order of
/// the results' rule indices, described by `what`) and the results.
fn sarif_log(
    report: &Report,
    kinds: BTreeMap<String, usize>,
    results: Vec<SarifResult>,
    what: &dyn Fn(&str) -> &'static str,
) -> Sarif {
    let mut by_index: Vec<(usize, String)> = kinds.into_iter().map(|(k, i)| (i, k)).collect();
    by_index.sort();
    let rules: Vec<ReportingDescriptor> = by_index
        .into_iter()
        .map(|(_, kind)| {
            ReportingDescriptor::builder()
                .id(kind.clone())
                .short_description(MultiformatMessageString::builder().text(what(&kind)).build())
                .build()
        })
        .collect();
    let (name, version) = report.producer.split_once(' ').unwrap_or((report.producer.as_str(), ""));
    let mut driver = ToolComponent::builder().name(name).rules(rules).build();
    if !version.is_empty() {
        driver.version = Some(version.to_string());
    }
    let run = Run::builder().tool(Tool::builder().driver(driver).build()).results(results).build();
    Sarif::builder().schema(SCHEMA_URI).version(serde_json::json!("2.1.0")).runs(vec![run]).build()
}

/// Writes [`check_sarif`] of `report` to `path`.
pub fn write_check_sarif(path: &Path, report: &Report) -> Result<(), FormatError> {
    let text = serde_json::to_string_pretty(&check_sarif(report)).expect("a SARIF log always serializes");
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_split_from_the_right() {
        assert_eq!(split_location("a:b.c:12:5"), ("a:b.c".into(), Some(12), Some(5)));
        assert_eq!(split_location("x.c:7"), ("x.c".into(), Some(7), None));
        assert_eq!(split_location("x.c"), ("x.c".into(), None, None));
        assert_eq!(uri_of_path("dir with space/ä.c"), "dir%20with%20space/%C3%A4.c");
    }

    #[test]
    fn check_levels_follow_verdicts() {
        let entry = |verdict: &str| crate::report::CheckEntry {
            goal: "g1".into(),
            kind: "error div_by_zero".into(),
            location: "f.c:3:7".into(),
            function: "f".into(),
            verdict: verdict.into(),
            evidence: "why".into(),
        };
        let report = Report {
            producer: "walkdown 0.1.0".into(),
            check: vec![entry("confirmed"), entry("refuted"), entry("unknown")],
            ..Default::default()
        };
        let log = serde_json::to_value(check_sarif(&report)).unwrap();
        let levels: Vec<&str> =
            log["runs"][0]["results"].as_array().unwrap().iter().map(|r| r["level"].as_str().unwrap()).collect();
        assert_eq!(levels, ["error", "note", "warning"]);
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][0]["id"], "div_by_zero");
        assert_eq!(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
    }

    #[test]
    fn unconfirmed_errors_are_warnings_with_their_native_outcome() {
        let entry = |line: u32, native: &str, outcome: &str| crate::report::ErrorEntry {
            kind: "reach_error".into(),
            location: format!("f.c:{line}:3"),
            test: format!("test-0000{line}.xml"),
            native: native.into(),
            native_outcome: outcome.into(),
        };
        let report = Report {
            producer: "walkdown 0.1.0".into(),
            errors: vec![
                entry(1, "confirmed", ""),
                entry(2, "unconfirmed", "killed by signal 11 (SIGSEGV) natively (gcc)"),
                entry(3, "unchecked", "gcc is not installed"),
            ],
            ..Default::default()
        };
        let none = Path::new("/nonexistent");
        let log =
            serde_json::to_value(errors_sarif(&report, none, &|p| format!("walkdown run {}", p.display()))).unwrap();
        let results = log["runs"][0]["results"].as_array().unwrap();
        let levels: Vec<&str> = results.iter().map(|r| r["level"].as_str().unwrap()).collect();
        assert_eq!(levels, ["error", "warning", "error"]);
        assert_eq!(results[1]["properties"]["native"], "unconfirmed");
        assert_eq!(results[1]["properties"]["nativeOutcome"], "killed by signal 11 (SIGSEGV) natively (gcc)");
        let message = results[1]["message"]["text"].as_str().unwrap();
        assert!(message.contains("unconfirmed: killed by signal 11"), "{message}");
        assert!(results[0]["message"]["text"].as_str().unwrap().contains("confirmed natively"));
    }
}
