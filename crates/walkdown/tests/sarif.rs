//! `gen` writes its errors as SARIF 2.1.0: one result per distinct error,
//! one rule per kind, the location, the test's inputs and a command that
//! reproduces it (run here). The log is checked against the SARIF 2.1.0
//! schema by Python's `jsonschema` (an independent reader; the schema is
//! the one the `serde-sarif` crate was generated from, read where cargo
//! keeps it); that part skips with a message when `jsonschema` or the
//! schema is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

/// The SARIF 2.1.0 schema shipped with the `serde-sarif` sources.
fn schema() -> Option<PathBuf> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let package = meta["packages"].as_array()?.iter().find(|p| p["name"] == "serde-sarif")?;
    let manifest = PathBuf::from(package["manifest_path"].as_str()?);
    let schema = manifest.parent()?.join("src/schema.json");
    schema.exists().then_some(schema)
}

#[test]
fn errors_sarif_has_one_result_per_error_and_reproduces_each() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sarif/two_errors.c");
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let status = walkdown().args(["gen", "--quiet", "--time", "20", "--out"]).arg(&out).arg(&program).status().unwrap();
    assert_eq!(status.code(), Some(1), "errors are found");
    let text = std::fs::read_to_string(out.join("errors.sarif")).expect("errors.sarif is written");
    let log: serde_json::Value = serde_json::from_str(&text).expect("errors.sarif is JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "walkdown");
    let rules: Vec<&str> =
        run["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut sorted = rules.clone();
    sorted.sort();
    assert_eq!(sorted, ["div_by_zero", "reach_error"], "one rule per kind");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "one result per distinct error, though reach_error has two paths: {results:#?}");
    for r in results {
        let kind = r["ruleId"].as_str().unwrap();
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize], kind);
        let region = &r["locations"][0]["physicalLocation"]["region"];
        let line = region["startLine"].as_u64().unwrap();
        assert_eq!(line, if kind == "reach_error" { 12 } else { 10 }, "{r:#?}");
        assert!(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("two_errors.c"));
        let inputs = r["properties"]["inputs"].as_array().expect("the test's inputs");
        assert!(!inputs.is_empty());
        // The command replays the test to the same error.
        let test = r["properties"]["test"].as_str().unwrap();
        let replay =
            walkdown().arg("run").arg(&program).arg("--test").arg(out.join("test-suite").join(test)).output().unwrap();
        let said = String::from_utf8_lossy(&replay.stdout).to_string() + &String::from_utf8_lossy(&replay.stderr);
        assert!(said.contains(kind) && said.contains(&format!(":{line}:")), "{kind}: {said}");
        assert!(r["properties"]["reproduce"].as_str().unwrap().starts_with("walkdown run "));
    }

    let Some(schema) = schema() else {
        eprintln!("errors_sarif: schema check skipped: the serde-sarif sources (with schema.json) were not found");
        return;
    };
    let check = Command::new("python3")
        .args(["-c", "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))"])
        .arg(out.join("errors.sarif"))
        .arg(&schema)
        .output();
    match check {
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named 'jsonschema'") => {
            eprintln!("errors_sarif: schema check skipped: python3 has no jsonschema (Debian python3-jsonschema)");
        }
        Ok(o) => assert!(o.status.success(), "errors.sarif does not validate: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => eprintln!("errors_sarif: schema check skipped: python3 cannot run: {e}"),
    }
}
