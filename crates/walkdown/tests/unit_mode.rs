//! Unit mode (`gen --entry`) and `check`: the seeds' heap-shaped examples
//! (read from `../shared`, skipped without it) and our own functions over
//! lists, trees and arrays of structs (`tests/unit/heap.c`): the shapes
//! each test builds, `unit_tests.c` compiled with gcc reproducing every
//! test's outcome, branch coverage per function, and each planted bug
//! confirmed by `check`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unit/heap.c")
}

/// Runs `walkdown CMD FILE --entry NAME` into a fresh directory; returns
/// the exit code and the report.
fn run(cmd: &str, file: &Path, entry: &str, time: &str, out: &Path) -> (i32, Value) {
    run_with(cmd, file, entry, time, out, &[])
}

fn run_with(cmd: &str, file: &Path, entry: &str, time: &str, out: &Path, extra: &[&str]) -> (i32, Value) {
    let status = walkdown()
        .args([cmd])
        .arg(file)
        .args(["--entry", entry, "--time", time, "-q", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("walkdown runs");
    let text = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("no report for {entry}: {e}\n{}", String::from_utf8_lossy(&status.stderr)));
    (status.status.code().unwrap_or(-1), serde_json::from_str(&text).unwrap())
}

/// Compiles and runs `unit_tests.c`; checks that every test ends natively
/// as the interpreter says; returns the output lines.
fn native_agrees(out: &Path) -> Vec<String> {
    let exe = out.join("unit_tests");
    let cc = Command::new("gcc")
        .args(["-g", "-w", "-O0"])
        .arg(out.join("unit_tests.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(cc.status.success(), "unit_tests.c does not compile: {}", String::from_utf8_lossy(&cc.stderr));
    let ran = Command::new(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&ran.stdout).into_owned();
    let lines: Vec<String> = text.lines().filter(|l| l.contains("[walkdown: ")).map(str::to_string).collect();
    assert!(!lines.is_empty(), "no test ran: {text}");
    for line in &lines {
        let (native, expected) = line.split_once("[walkdown: ").unwrap();
        let agrees = if expected.starts_with("returns") {
            native.contains(": returned")
        } else if expected.starts_with("div_by_zero") {
            native.contains("signal 8")
        } else if expected.starts_with("null_deref") {
            native.contains("signal 11")
        } else if expected.starts_with("reach_error") {
            native.contains(": reach_error")
        } else {
            // Out-of-bounds reads and overflow go through silently in a
            // plain build; `check` confirms them with the sanitizers.
            true
        };
        assert!(agrees, "native run disagrees with the interpreter: {line}");
    }
    lines
}

fn shapes(report: &Value) -> Vec<(String, String)> {
    report["unit"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["shape"].as_str().unwrap().to_string(), t["outcome"].as_str().unwrap().to_string()))
        .collect()
}

fn has(shapes: &[(String, String)], shape: &str, outcome: &str) -> bool {
    shapes.iter().any(|(s, o)| s.contains(shape) && o.starts_with(outcome))
}

#[test]
fn seeds_node_swap_and_hex_abs() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("skipped: ../shared (WALKDOWN_SHARED) is absent");
        return;
    };
    let seeds = shared.join("bench/seeds");
    let dir = tempfile::tempdir().unwrap();

    // swap_and_divide compares neither pointer with NULL: by default the
    // API's contract keeps both non-NULL, and only the division fails.
    let out = dir.path().join("swap");
    let (code, report) = run("gen", &seeds.join("node_swap.c"), "swap_and_divide", "8", &out);
    assert_eq!(code, 1, "errors are found");
    let s = shapes(&report);
    assert!(s.iter().any(|(_, o)| o.starts_with("div_by_zero")), "{s:?}");
    assert!(s.iter().all(|(sh, _)| !sh.contains("self = NULL") && !sh.contains("out = NULL")), "{s:?}");
    native_agrees(&out);
    // With NULL declared legal, the null pointers are inputs too.
    let out = dir.path().join("swap-nullable");
    let (_, report) = run_with("gen", &seeds.join("node_swap.c"), "swap_and_divide", "8", &out, &["--nullable", "all"]);
    let s = shapes(&report);
    assert!(has(&s, "self = NULL", "null_deref"), "{s:?}");
    assert!(has(&s, "self = &o1, out = NULL", "null_deref"), "the null output pointer: {s:?}");
    native_agrees(&out);

    let out = dir.path().join("link");
    let (_, report) = run("gen", &seeds.join("node_swap.c"), "link_values", "8", &out);
    let s = shapes(&report);
    assert!(has(&s, "n1 = &o1, n2 = &o1", "reach_error"), "the aliasing case: {s:?}");
    assert!(!s.iter().any(|(sh, o)| o.starts_with("reach_error") && !sh.contains("n1 = &o1, n2 = &o1")), "{s:?}");
    let lines = native_agrees(&out);
    assert!(lines.iter().any(|l| l.contains(": reach_error")), "{lines:?}");

    let out = dir.path().join("hex");
    let (code, report) = run("check", &seeds.join("hex_abs.c"), "first_letter", "5", &out);
    assert_eq!(code, 1, "the null dereference is confirmed");
    assert!(has(&shapes(&report), "x = 0", "null_deref"));
    let check = report["check"].as_array().unwrap();
    assert!(check.iter().any(|c| c["verdict"] == "confirmed" && c["kind"] == "error null_deref"), "{check:?}");
}

#[test]
fn own_functions_coverage_and_planted_bugs() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture();
    let plain = [
        "list_insert",
        "list_delete",
        "list_reverse",
        "list_find",
        "list_length",
        "tree_find",
        "tree_height",
        "tree_ordered",
        "total_value",
    ];
    let mut figures = Vec::new();
    for f in plain {
        let out = dir.path().join(f);
        // The concolic engine alone: with the other engines sharing a
        // loaded machine's cores, 3 s is not always enough for each shape.
        let (_, report) = run_with("gen", &file, f, "4", &out, &["--engine", "concolic"]);
        let edges = branch_outcomes(&report, f);
        let covered = edges.iter().filter(|g| g["status"] == "covered").count();
        assert!(covered * 4 >= edges.len() * 3, "{f}: {covered} of {} branch outcomes covered", edges.len());
        native_agrees(&out);
        // The same measured natively: gcov on unit_tests.c, per function.
        let v = walkdown().arg("validate").arg(&file).arg(out.join("unit_tests.c")).output().unwrap();
        let text = String::from_utf8_lossy(&v.stdout).into_owned();
        let line = text.lines().find(|l| l.starts_with(&format!("function {f}: "))).unwrap_or_else(|| {
            panic!("validate names no coverage of {f}: {text}{}", String::from_utf8_lossy(&v.stderr))
        });
        let words: Vec<&str> = line.split_whitespace().collect();
        let (taken, total): (u32, u32) = (words[2].parse().unwrap(), words[4].parse().unwrap());
        // Within 4 objects, a loop bound of 8 nodes cannot be hit.
        assert!(taken * 4 >= total * 3, "{line}");
        figures.push(format!("{f}: IR {covered}/{}, gcov {taken}/{total}", edges.len()));
    }
    eprintln!(
        "unit-mode branch coverage (concolic, 4 s each; IR branch outcomes, gcov branches): {}",
        figures.join("; ")
    );
    // The planted bugs, each confirmed natively (list_last's only when
    // its caller may pass NULL, which it does not check).
    for (f, kind, extra) in [
        ("move_key", "error reach_error", &[][..]),
        ("list_last", "error null_deref", &["--nullable", "head"][..]),
        ("max_price", "error out_of_bounds", &[][..]),
    ] {
        let out = dir.path().join(format!("check-{f}"));
        let (code, report) = run_with("check", &file, f, "4", &out, extra);
        assert_eq!(code, 1, "{f}: a confirmed error");
        let check = report["check"].as_array().unwrap();
        assert!(check.iter().any(|c| c["verdict"] == "confirmed" && c["kind"] == kind), "{f}: {check:?}");
        assert!(check.iter().all(|c| c["function"] == f), "{f}: only the unit's own sites: {check:?}");
    }
}

fn lazy_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unit/lazy.c")
}

/// The branch outcomes of `f` in the report (its goals but the errors).
fn branch_outcomes<'r>(report: &'r Value, f: &str) -> Vec<&'r Value> {
    report["goals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["function"] == f && !g["kind"].as_str().unwrap().starts_with("error"))
        .collect()
}

/// Every branch outcome of `f` in the report is covered.
fn all_branches_covered(report: &Value, f: &str) -> bool {
    let edges = branch_outcomes(report, f);
    !edges.is_empty() && edges.iter().all(|g| g["status"] == "covered")
}

#[test]
fn pointers_are_decided_on_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = lazy_fixture();

    // second_key reads l, l->next and l->next->key, never l->next->next:
    // no test makes a third node or decides that field.
    let out = dir.path().join("second_key");
    let (_, report) = run_with("gen", &file, "second_key", "3", &out, &["--engine", "concolic"]);
    assert!(all_branches_covered(&report, "second_key"), "{:?}", report["goals"]);
    let s = shapes(&report);
    assert!(s.iter().all(|(sh, _)| !sh.contains("o3 =")), "a deeper node was built: {s:?}");
    assert!(
        s.iter().any(|(sh, _)| sh.contains("o1 = struct node {key = ")
            && sh.contains("next = &o2}; o2 = struct node {key = ")
            && sh.ends_with("next = unread}")),
        "l->next->next is never decided: {s:?}"
    );
    // No choice is read for it either: at most l's choice and key and
    // l->next's choice and key in any test.
    for t in report["tests"].as_array().unwrap() {
        let xml = std::fs::read_to_string(out.join("test-suite").join(t["file"].as_str().unwrap())).unwrap();
        assert!(xml.matches("<input").count() <= 4, "{xml}");
    }
    native_agrees(&out);

    // wide_pick reads w->c and w->c->tag / w->c->d only: a and b are never
    // decided; the aliasing case (w->c->d == w) is found on demand.
    let out = dir.path().join("wide_pick");
    let (_, report) = run_with("gen", &file, "wide_pick", "3", &out, &["--engine", "concolic"]);
    assert!(all_branches_covered(&report, "wide_pick"), "{:?}", report["goals"]);
    let s = shapes(&report);
    assert!(
        s.iter().filter(|(sh, _)| sh.contains("o1 = ")).all(|(sh, _)| sh.contains("a = unread, b = unread")),
        "{s:?}"
    );
    native_agrees(&out);

    // Arrays behind pointers are lazy too: elder_initial reads p->name
    // only when p->age > 60, and never p->boss.
    let elder = dir.path().join("elder_initial");
    let (_, report_e) = run_with("gen", &file, "elder_initial", "3", &elder, &["--engine", "concolic"]);
    assert!(all_branches_covered(&report_e, "elder_initial"), "{:?}", report_e["goals"]);
    assert_eq!(
        report_e["unit"]["functions"],
        serde_json::json!(["elder_initial"]),
        "the harness's functions are not the unit's"
    );
    let s = shapes(&report_e);
    let people: Vec<&String> = s.iter().map(|(sh, _)| sh).filter(|sh| sh.contains("o1 = struct person")).collect();
    assert!(people.iter().all(|sh| sh.contains("boss = unread")), "{s:?}");
    assert!(people.iter().any(|sh| sh.contains("name = unread")), "{s:?}");
    assert!(people.iter().any(|sh| sh.contains("name = &o2") && sh.contains("o2 = char[")), "{s:?}");
    native_agrees(&elder);

    // A copy of a struct carries its unread pointers: reading the copy's
    // decides the original's (the C test sets the original; the copy
    // copies it).
    let copy = dir.path().join("copy_read");
    let (_, report_c) = run_with("gen", &file, "copy_read", "3", &copy, &["--engine", "concolic"]);
    assert!(all_branches_covered(&report_c, "copy_read"), "{:?}", report_c["goals"]);
    let s = shapes(&report_c);
    assert!(has(&s, "o1 = struct pair {a = &o2, b = unread}", "returns"), "{s:?}");
    native_agrees(&copy);

    // A struct by value: a, never read, stays undecided.
    let byval = dir.path().join("pair_by_value");
    let (_, report_v) = run_with("gen", &file, "pair_by_value", "3", &byval, &["--engine", "concolic"]);
    assert!(all_branches_covered(&report_v, "pair_by_value"), "{:?}", report_v["goals"]);
    let s = shapes(&report_v);
    assert!(s.iter().all(|(sh, _)| sh.starts_with("q = {a = unread, b = ")), "{s:?}");
    assert!(has(&s, "b = &o1", "returns"), "{s:?}");
    native_agrees(&byval);

    // The interpreter's replay of each kept test (`run` on the unit
    // program, loaded anew) makes the same decisions as gen's run: it reads
    // every input (a replay without the lazy calls would stop short).
    for t in report["tests"].as_array().unwrap() {
        let test = out.join("test-suite").join(t["file"].as_str().unwrap());
        let ran = walkdown().arg("run").arg(out.join("lazy-unit.c")).arg("--test").arg(&test).output().unwrap();
        let text = String::from_utf8_lossy(&ran.stdout).into_owned();
        let consumed = text.lines().find(|l| l.starts_with("inputs: ")).unwrap_or_else(|| panic!("{text}"));
        // `inputs: A of B consumed`: every value of the test is read.
        let words: Vec<&str> = consumed.split_whitespace().collect();
        let (read, given): (usize, usize) = (words[1].parse().unwrap(), words[3].parse().unwrap());
        assert!(read >= given, "{test:?}: {consumed}");
    }
    // Natively the unit program would follow placeholders: replay and
    // validate send the user to unit_tests.c instead.
    let first = out.join("test-suite").join(report["tests"][0]["file"].as_str().unwrap());
    let replay = walkdown().arg("replay").arg(out.join("lazy-unit.c")).arg(&first).output().unwrap();
    assert_eq!(replay.status.code(), Some(2), "{}", String::from_utf8_lossy(&replay.stderr));
    assert!(
        String::from_utf8_lossy(&replay.stderr).contains("unit_tests.c"),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

#[test]
fn harness_branches_are_not_goals() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("find_first");
    let (_, report) = run_with("gen", &lazy_fixture(), "find_first", "2", &out, &["--engine", "concolic", "--lcov"]);
    let goals = report["goals"].as_array().unwrap();
    // --lcov measures the original program natively, through unit_tests.c.
    let info = std::fs::read_to_string(out.join("coverage.info")).unwrap();
    assert!(info.lines().any(|l| l.starts_with("SF:") && l.ends_with("tests/unit/lazy.c")), "{info}");
    let hit: u32 = info.lines().find_map(|l| l.strip_prefix("BRH:")).unwrap().parse().unwrap();
    assert!(hit >= 6, "find_first's branches are hit natively: {info}");
    let harness: Vec<&Value> = goals
        .iter()
        .filter(|g| g["function"] == "main" || g["function"].as_str().unwrap().starts_with("__wd_"))
        .collect();
    assert!(harness.is_empty(), "the harness's branches are goals: {harness:?}");
    assert!(all_branches_covered(&report, "find_first"), "{goals:?}");
    // Every goal is in the program's own lines, none in the appended harness.
    let lines = std::fs::read_to_string(lazy_fixture()).unwrap().lines().count() as u64;
    for g in goals {
        let loc = g["location"].as_str().unwrap();
        let line: u64 = loc.rsplit(':').nth(1).unwrap().parse().unwrap();
        assert!(line <= lines, "a goal past the program's last line: {g}");
    }
    // `goals` on the unit program lists the same.
    let listed = walkdown().arg("goals").arg(out.join("lazy-unit.c")).output().unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.lines().count() == goals.len(), "{text}");
    assert!(
        text.lines().all(|l| l.rsplit('\t').next().is_some_and(|f| f != "main" && !f.starts_with("__wd_"))),
        "{text}"
    );
}

/// A unit whose parameter, struct field and global are `long double`
/// (each filled from a `double` input, widened exactly): the error behind
/// a `long double` product is found, and `unit_tests.c`, compiled with
/// gcc (the x87's `long double`), ends every test as the interpreter did.
#[test]
fn long_double_parameters_fields_and_globals() {
    let dir = tempfile::tempdir().unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unit/long_double.c");
    let out = dir.path().join("out");
    let (code, report) =
        run_with("gen", &file, "apply_interest", "20", &out, &["--engine", "concolic", "--property", "coverage-error"]);
    assert_eq!(code, 1, "an error: {report}");
    assert!(shapes(&report).iter().any(|(_, o)| o.starts_with("reach_error")), "{report}");
    // walkdown's soft-float runtime is not among the unit's functions.
    assert_eq!(report["unit"]["functions"], serde_json::json!(["apply_interest"]), "{report}");
    let lines = native_agrees(&out);
    assert!(lines.iter().any(|l| l.contains(": reach_error")), "{lines:?}");
}
