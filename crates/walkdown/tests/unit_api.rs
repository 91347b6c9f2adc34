//! Unit mode on APIs (`check --entry`): the API's contract keeps the
//! calls to those a library's users make. Our own small APIs
//! (`tests/unit/api.c`) show each part: a buffer paired with its length
//! (by name, by use through a callee, by pointer), a struct made by its
//! initializer, the NULL rule, preconditions from ACSL and from
//! `--requires`, a callback stub, report mode; the two real bugs within
//! the contracts stay confirmed. Then the public entry points of the six
//! real libraries of `../shared/bench/real` (read from there, skipped
//! without it): no confirmed error breaks their documented contracts.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn api() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unit/api.c")
}

/// What one run says: exit code, stdout, the report.
struct Ran {
    code: i32,
    stdout: String,
    report: Value,
}

impl Ran {
    /// The `check` verdicts of this kind (`confirmed`, `excluded`, …).
    fn verdicts(&self, verdict: &str) -> Vec<&Value> {
        self.report["check"].as_array().map_or(Vec::new(), |c| c.iter().filter(|e| e["verdict"] == verdict).collect())
    }
    fn contract(&self) -> Vec<&str> {
        self.report["unit"]["contract"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect()
    }
    /// The shapes of the tests that call the entry (a run whose inputs
    /// break an assumed precondition ends before the call: no function).
    fn shapes(&self) -> Vec<&str> {
        let tests = self.report["unit"]["tests"].as_array().unwrap();
        tests.iter().filter(|t| t["function"] != "").map(|t| t["shape"].as_str().unwrap()).collect()
    }
}

/// `walkdown CMD FILE --entry ENTRY --time T EXTRA…` into `out`.
fn run(cmd: &str, file: &Path, entry: &str, time: &str, out: &Path, extra: &[&str]) -> Ran {
    let ran = walkdown()
        .arg(cmd)
        .arg(file)
        .args(["--entry", entry, "--time", time, "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("walkdown runs");
    let text = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("no report for {entry}: {e}\n{}", String::from_utf8_lossy(&ran.stderr)));
    Ran {
        code: ran.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&ran.stdout).into_owned(),
        report: serde_json::from_str(&text).unwrap(),
    }
}

#[test]
fn lengths_initializers_and_real_bugs() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n);
    // A length named as such, right after its buffer: reading v[count]
    // is a bug within the contract.
    let r = run("check", &api(), "last_of", "3", &d("last_of"), &[]);
    assert!(r.contract().iter().any(|c| c.starts_with("v has count elements")), "{:?}", r.contract());
    assert_eq!(r.verdicts("confirmed").len(), 1, "{}", r.stdout);
    assert_eq!(r.code, 1);
    // Found by use: `how_many` bounds the loop of the callee `vals` goes to.
    let r = run("check", &api(), "total", "3", &d("total"), &[]);
    assert!(r.contract().contains(&"vals has how_many elements (how_many bounds the accesses through it)"));
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    // An output buffer whose capacity a pointer holds.
    let r = run("check", &api(), "put_digits", "3", &d("put_digits"), &[]);
    assert!(r.contract().iter().any(|c| c.starts_with("dst has *dstcap elements")), "{:?}", r.contract());
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    // The struct comes from its initializer; built field by field
    // (`--init none`) its fields lie about its array.
    let r = run("check", &api(), "counter_add", "3", &d("counter"), &[]);
    assert!(r.contract().iter().any(|c| c.starts_with("c is initialized by counter_init(c)")));
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    assert!(r.shapes().iter().all(|s| s.contains("made by counter_init")), "{:?}", r.shapes());
    let r = run("check", &api(), "counter_add", "3", &d("counter-none"), &["--init", "none"]);
    assert!(!r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    // A callback's stub returns what the test needs: 7 divides by zero.
    let r = run("check", &api(), "apply", "3", &d("apply"), &[]);
    assert!(r.verdicts("confirmed").iter().any(|c| c["kind"] == "error div_by_zero"), "{}", r.stdout);
    assert_eq!(r.report["unit"]["functions"], serde_json::json!(["apply"]), "the stub is not the unit's");
    // gen's error lines name the user's file, not the unit copy.
    let line = r.stdout.lines().find(|l| l.starts_with("error div_by_zero at ")).expect("an error line");
    assert!(line.contains("tests/unit/api.c:") && !line.contains("api-unit.c"), "{line}");
}

#[test]
fn null_rule_and_preconditions() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n);
    // name_len never compares its pointer with NULL: NULL is not an input…
    let r = run("check", &api(), "name_len", "3", &d("name"), &[]);
    assert!(r.contract().contains(&"name != NULL (name_len does not compare it with NULL)"));
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    assert!(r.shapes().iter().all(|s| !s.contains("name = NULL")), "{:?}", r.shapes());
    // … unless a flag says it is legal;
    let r = run("check", &api(), "name_len", "3", &d("name-nullable"), &["--nullable", "name"]);
    assert!(r.verdicts("confirmed").iter().any(|c| c["kind"] == "error null_deref"), "{}", r.stdout);
    // report mode tries it and says what the error needs.
    let r = run("check", &api(), "name_len", "3", &d("name-report"), &["--contract", "report"]);
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    let excluded = r.verdicts("excluded");
    assert!(excluded.iter().any(|c| c["evidence"].as_str().unwrap().contains("`name != NULL`")), "{}", r.stdout);
    assert!(
        r.stdout.lines().any(|l| l.starts_with("error null_deref at ")
            && l.contains("needs a precondition the API's contract excludes: `name != NULL`")),
        "{}",
        r.stdout
    );
    // safe_len checks: NULL is one of its inputs.
    let r = run("gen", &api(), "safe_len", "3", &d("safe"), &[]);
    assert!(r.shapes().iter().any(|s| s.starts_with("s = NULL")), "{:?}", r.shapes());
    // An ACSL precondition keeps the index in range; without one the
    // table is read out of bounds, and --requires says the same.
    let r = run("check", &api(), "lookup", "3", &d("lookup"), &[]);
    assert!(r.contract().contains(&"idx < 4 (ACSL requires)"), "{:?}", r.contract());
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    let r = run("check", &api(), "lookup2", "3", &d("lookup2"), &[]);
    assert!(!r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    let r = run("check", &api(), "lookup2", "3", &d("lookup2-req"), &["--requires", "idx >= 0 && idx < 4"]);
    assert!(r.verdicts("confirmed").is_empty(), "{}", r.stdout);
    // No kept test of the entry breaks the precondition.
    assert!(r.shapes().iter().all(|s| ["idx = 0", "idx = 1", "idx = 2", "idx = 3"].contains(s)), "{:?}", r.shapes());
}

/// The public entry points of the real libraries, with the preconditions
/// their documentation states that walkdown cannot infer: utf8.h's string
/// functions take utf8 strings (valid ones: `utf8valid` returns NULL).
const REAL_ENTRIES: &[(&str, &str, &[&str])] = &[
    ("jsmn.c", "jsmn_parse", &[]),
    ("inih.c", "ini_parse_string", &[]),
    ("base58.c", "b58tobin", &[]),
    ("base58.c", "b58enc", &[]),
    ("semver.c", "semver_parse", &[]),
    ("semver.c", "semver_satisfies", &[]),
    ("utf8.c", "utf8valid", &[]),
    ("utf8.c", "utf8len", &["--requires", "!utf8valid(str)"]),
    ("utf8.c", "utf8casecmp", &["--requires", "!utf8valid(src1)", "--requires", "!utf8valid(src2)"]),
    ("utf8.c", "utf8makevalid", &[]),
    ("sds.c", "sdssplitargs", &[]),
    ("sds.c", "sdssplitlen", &[]),
];

#[test]
fn real_libraries_keep_their_contracts() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("skipped: ../shared (WALKDOWN_SHARED) is absent");
        return;
    };
    let real = shared.join("bench/real");
    if !real.is_dir() {
        walkdown_testsupport::require_shared(&real);
        eprintln!("skipped: {} is absent", real.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut figures = Vec::new();
    for (file, entry, extra) in REAL_ENTRIES {
        let r = run("check", &real.join(file), entry, "3", &dir.path().join(entry), extra);
        let confirmed = r.verdicts("confirmed");
        assert!(
            confirmed.is_empty(),
            "{entry}: a confirmed error breaks no documented contract of {file}, or is a real bug: {confirmed:#?}\ncontract: {:#?}",
            r.contract()
        );
        assert!(r.report["unit"]["tests"].as_array().is_some_and(|t| !t.is_empty()), "{entry}: no test");
        figures.push(format!("{entry}: {} unknown", r.verdicts("unknown").len()));
    }
    eprintln!("real libraries, check --entry --time 3: no confirmed error; {}", figures.join(", "));
}
