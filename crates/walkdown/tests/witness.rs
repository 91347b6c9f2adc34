//! Correctness witnesses (`witness.yml`): written when every `reach_error`
//! goal ends unreachable and invariants at the loop heads pass walkdown's
//! own checks, in the YAML witness format 2.0, and true of the program as
//! gcc compiles it.
//!
//! Each fixture in `tests/witness/` says on its first line what `gen` must
//! do: `// witness: written` (or `written: WORDS`, words of the reason,
//! which names the invariants' source), `// witness: written, empty` (a
//! program without loops: an empty invariant set), or `// witness: not
//! written: WORDS` (words of the reason). A written witness is then checked independently of walkdown's
//! interpreter: each invariant is inserted into a copy of the C program as
//! a check at its loop statement (in the condition of a `while`/`for`, at
//! the start of a `do` body, so it runs every time the loop head is
//! reached), the copy is compiled with gcc and every test of the suite is
//! run; a failing invariant exits with a code of its own.
//!
//! The public tasks whose witnesses walkdown writes are checked the same way
//! when `../shared` is present.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use walkdown_formats::report::read_report;
use walkdown_ir::DataModel;
use walkdown_native::{NativeOutcome, RunLimits};

/// The exit code of a failing invariant in the instrumented copy.
const BROKEN_INVARIANT: i32 = 113;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/witness");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

/// Runs `gen` on `program` (a C file or a task file) into `out`.
fn gen(program: &Path, out: &Path, time: u32) -> walkdown_formats::report::Report {
    let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--jobs", "1", "--time", &time.to_string(), "--out"])
        .arg(out)
        .arg(program)
        .status()
        .expect("walkdown runs");
    assert!(matches!(status.code(), Some(0 | 1)), "{}: {status}", program.display());
    read_report(&out.join("report.json")).expect("report")
}

/// A loop invariant of a witness: line, column, C expression.
#[derive(Debug)]
struct Invariant {
    line: usize,
    column: usize,
    value: String,
}

/// Reads a witness and checks its shape (format 2.0, one invariant set of
/// loop invariants about `program`).
fn read_witness(path: &Path, program_file: &str) -> Vec<Invariant> {
    let text = std::fs::read_to_string(path).expect("witness.yml");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("YAML");
    let entries = doc.as_sequence().expect("a list of entries");
    assert_eq!(entries.len(), 1, "{text}");
    let e = &entries[0];
    assert_eq!(e["entry_type"], "invariant_set");
    assert_eq!(e["metadata"]["format_version"], "2.0");
    assert_eq!(e["metadata"]["task"]["input_files"][0].as_str(), Some(program_file));
    let spec = e["metadata"]["task"]["specification"].as_str().expect("specification");
    assert!(spec == "G ! call(reach_error())" || spec == "G ! call(__VERIFIER_error())", "{spec}");
    let content = e["content"].as_sequence().expect("content");
    content
        .iter()
        .map(|c| {
            let i = &c["invariant"];
            assert_eq!(i["type"], "loop_invariant");
            assert_eq!(i["format"], "c_expression");
            assert_eq!(i["location"]["file_name"].as_str(), Some(program_file));
            Invariant {
                line: i["location"]["line"].as_u64().unwrap() as usize,
                column: i["location"]["column"].as_u64().unwrap() as usize,
                value: i["value"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

/// `source` with each invariant checked where its loop's head runs.
fn instrument(source: &str, invariants: &[Invariant]) -> String {
    let mut lines: Vec<String> = source.lines().map(String::from).collect();
    let mut sorted: Vec<&Invariant> = invariants.iter().collect();
    // From the end, so earlier insertions do not move later positions.
    sorted.sort_by_key(|i| std::cmp::Reverse((i.line, i.column)));
    for inv in sorted {
        let check = format!("__walkdown_invariant({})", inv.value);
        // The loop statement may span lines: work on the text from the
        // keyword on.
        let start: usize = lines[..inv.line - 1].iter().map(|l| l.len() + 1).sum::<usize>() + inv.column - 1;
        let mut text = lines.join("\n");
        let rest = &text[start..];
        let at = if rest.starts_with("while") {
            start + rest.find('(').expect("while (") + 1
        } else if rest.starts_with("for") {
            let open = start + rest.find('(').expect("for (") + 1;
            let mut depth = 0;
            let mut semi = None;
            for (k, ch) in text[open..].char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ';' if depth == 0 => {
                        semi = Some(open + k + 1);
                        break;
                    }
                    _ => {}
                }
            }
            let at = semi.expect("for (init;");
            if text[at..].trim_start().starts_with(';') {
                text.insert_str(at, &format!(" {check}, 1"));
                lines = text.lines().map(String::from).collect();
                continue;
            }
            at
        } else if rest.starts_with("do") {
            let brace = start + rest.find('{').expect("do {") + 1;
            text.insert_str(brace, &format!(" {check};"));
            lines = text.lines().map(String::from).collect();
            continue;
        } else {
            panic!("no loop keyword at {}:{}: {}", inv.line, inv.column, &rest[..rest.len().min(30)]);
        };
        text.insert_str(at, &format!("{check}, "));
        lines = text.lines().map(String::from).collect();
    }
    // On the first line, so line numbers stay as they are.
    let prelude = format!(
        "static int __walkdown_invariant(int holds) {{ if (!holds) __builtin_exit({BROKEN_INVARIANT}); return 0; }} "
    );
    let mut out = prelude + &lines.join("\n");
    out.push('\n');
    out
}

/// Runs the suite of `out` natively on `program` with the witness's
/// invariants checked; panics on a broken one.
fn check_natively(program: &Path, out: &Path, data_model: DataModel) {
    let invariants = read_witness(&out.join("witness.yml"), &program.display().to_string());
    let source = std::fs::read_to_string(program).expect("program");
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join(program.file_name().unwrap());
    std::fs::write(&copy, instrument(&source, &invariants)).unwrap();
    let suite = walkdown_formats::read_suite(&out.join("test-suite")).expect("suite");
    let vectors: Vec<_> = suite.tests.iter().map(|t| t.case.vector.clone()).collect();
    assert!(!vectors.is_empty());
    let limits = RunLimits { timeout: Duration::from_secs(10), ..RunLimits::default() };
    let runs = walkdown_native::validate_suite(&copy, &vectors, data_model, &limits).unwrap_or_else(|e| {
        panic!("{}: the instrumented copy does not build or run: {e}\n{invariants:?}", program.display())
    });
    for (k, run) in runs.runs.iter().enumerate() {
        assert_ne!(
            run.outcome,
            NativeOutcome::Exit(BROKEN_INVARIANT),
            "{}: test {k} breaks an invariant of {invariants:?}",
            program.display()
        );
    }
}

#[test]
fn fixtures_get_the_witness_they_expect_and_its_invariants_hold_natively() {
    let tmp = tempfile::tempdir().unwrap();
    let mut written = 0;
    for f in fixtures() {
        let text = std::fs::read_to_string(&f).unwrap();
        let expect = text.lines().next().unwrap().trim_start_matches("// witness: ").to_string();
        let out = tmp.path().join(f.file_stem().unwrap());
        let r = gen(&f, &out, 20);
        let w = r.witness.unwrap_or_else(|| panic!("{}: no witness entry in the report", f.display()));
        assert!(r.proof_conflicts.is_empty(), "{}: {:?}", f.display(), r.proof_conflicts);
        if expect == "written" || expect.starts_with("written: ") {
            assert_eq!(w.status, "written", "{}: {w:?}", f.display());
            let words = expect.trim_start_matches("written").trim_start_matches(": ");
            assert!(w.reason.contains(words), "{}: the reason should say {words:?}: {w:?}", f.display());
            assert!(w.loop_invariants > 0 && w.tests_checked > 0, "{}: {w:?}", f.display());
            check_natively(&f, &out, DataModel::LP64);
            written += 1;
        } else if expect == "written, empty" {
            assert_eq!(w.status, "written", "{}: {w:?}", f.display());
            assert_eq!(w.loop_invariants, 0, "{}: {w:?}", f.display());
            assert!(w.inductiveness_queries > 0, "{}: the proof was not checked: {w:?}", f.display());
            let invariants = read_witness(&out.join("witness.yml"), &f.display().to_string());
            assert!(invariants.is_empty(), "{}: {invariants:?}", f.display());
            written += 1;
        } else {
            let words = expect.trim_start_matches("not written: ");
            assert_eq!(w.status, "not written", "{}: {w:?}", f.display());
            assert!(w.reason.contains(words), "{}: the reason should say {words:?}: {w:?}", f.display());
            assert!(!out.join("witness.yml").exists(), "{}: a witness file was left", f.display());
        }
    }
    assert!(written >= 6, "{written} fixtures with witnesses");
}

#[test]
fn a_program_without_reach_error_has_no_witness_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("plain.c");
    std::fs::write(&program, "int main() { int s = 0; for (int i = 0; i < 3; i++) s += i; return s; }\n").unwrap();
    let r = gen(&program, &tmp.path().join("out"), 5);
    assert!(r.witness.is_none(), "{:?}", r.witness);
}

/// The Horn-clause engine alone proves `count.c` and states Spacer's
/// invariant at the loop; it holds natively.
#[test]
fn horn_invariants_make_a_witness() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/witness/count.c");
    let out = tmp.path().join("horn");
    let status = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--engines", "concolic,horn", "--jobs", "1", "--time", "20", "--out"])
        .arg(&out)
        .arg(&f)
        .status()
        .expect("walkdown runs");
    assert!(matches!(status.code(), Some(0 | 1)), "{status}");
    let r = read_report(&out.join("report.json")).expect("report");
    let w = r.witness.expect("a witness entry");
    assert_eq!(w.status, "written", "{w:?}");
    assert!(w.reason.contains("Horn clauses"), "{w:?}");
    assert!(w.loop_invariants > 0, "{w:?}");
    check_natively(&f, &out, DataModel::LP64);
}

/// Public tasks (unreach-call true) whose witnesses walkdown writes: each
/// must be written again, and hold natively.
#[test]
fn public_tasks_with_witnesses() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("public_tasks_with_witnesses: skipped: ../shared (the benchmark corpus) is not present");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // diamond_1-1: Spacer (Z3 5.4.1) states `x < 128` as the high bits of
    // x being zero, which the witness must say in C.
    for task in [
        "loop-acceleration/const_1-1",
        "loop-simple/nested_1",
        "loops-crafted-1/sumt2",
        "loop-acceleration/diamond_1-1",
        // Equalities the induction step kept, restated and checked by
        // Houdini; and loop bounds beside a complete unwinding.
        "loops-crafted-1/in-de20",
        "reducercommutativity/avg05-1",
    ] {
        let yml = shared.join("bench/sv").join(format!("{task}.yml"));
        let program = ["c", "i"]
            .iter()
            .map(|e| shared.join("bench/sv").join(format!("{task}.{e}")))
            .find(|p| p.exists())
            .expect("task program");
        let out = tmp.path().join(task.replace('/', "_"));
        let r = gen(&yml, &out, 20);
        let w = r.witness.unwrap_or_else(|| panic!("{task}: no witness entry"));
        assert_eq!(w.status, "written", "{task}: {w:?}");
        // The witness names the program as the task file does.
        let named = read_witness(&out.join("witness.yml"), &program.display().to_string());
        assert!(!named.is_empty(), "{task}: the program has loops");
        check_natively(&program, &out, DataModel::ILP32);
    }
}

/// A public task without loops whose proof is the bounded engine's
/// complete unwinding gets a witness with an empty invariant set.
#[test]
fn a_loop_free_public_task_gets_an_empty_witness() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("a_loop_free_public_task_gets_an_empty_witness: skipped: ../shared is not present");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let task = shared.join("bench/sv/ntdrivers-simplified/kbfiltr_simpl1.cil");
    let out = tmp.path().join("kbfiltr");
    let r = gen(&task.with_extension("cil.yml"), &out, 20);
    let w = r.witness.expect("a witness entry");
    assert_eq!(w.status, "written", "{w:?}");
    assert_eq!(w.loop_invariants, 0, "{w:?}");
    assert!(w.reason.contains("no loops"), "{w:?}");
    let invariants = read_witness(&out.join("witness.yml"), &task.with_extension("cil.c").display().to_string());
    assert!(invariants.is_empty(), "{invariants:?}");
}

/// The native check catches a false invariant, in each kind of loop.
#[test]
fn the_native_check_catches_a_false_invariant() {
    let source = "int main() {\n  int i = 0, j, k = 0;\n  while (i < 5) i++;\n  for (j = 0; j < 5; j++) k++;\n  do { k--; } while (k > 0);\n  return 0;\n}\n";
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("loops.c");
    std::fs::write(&program, source).unwrap();
    let vectors = vec![walkdown_ir::testvec::TestVector { values: vec![] }];
    let limits = RunLimits { timeout: Duration::from_secs(10), ..RunLimits::default() };
    let cases = [(3, 3, "i < 2"), (4, 3, "j < 3"), (5, 3, "k > 2"), (3, 3, "i <= 5")];
    for (line, column, value) in cases {
        let inv = Invariant { line, column, value: value.into() };
        let copy = tmp.path().join(format!("copy{line}.c"));
        std::fs::write(&copy, instrument(source, &[inv])).unwrap();
        let runs = walkdown_native::validate_suite(&copy, &vectors, DataModel::LP64, &limits).expect("builds");
        let broken = runs.runs[0].outcome == NativeOutcome::Exit(BROKEN_INVARIANT);
        assert_eq!(broken, value != "i <= 5", "{value} at line {line}: {:?}", runs.runs[0].outcome);
    }
}
