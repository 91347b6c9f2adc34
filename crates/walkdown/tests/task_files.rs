//! `walkdown gen TASK.yml`: the task definition gives the program, the data
//! model and the property (coverage-branches, or coverage-error for
//! coverage-error-call and unreach-call); command-line flags win; tasks
//! walkdown cannot run are refused naming why. Every task file of the
//! public benchmark set (`../shared`, skipped with a message when absent)
//! reads and names an existing program.

use std::path::Path;
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn gen(task: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let o =
        walkdown().args(["gen", "--quiet", "--time", "10", "--out"]).arg(out).args(extra).arg(task).output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr))
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn a_task_file_names_program_data_model_and_property() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tasks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/classify.c"), dir.join("classify.c"))
        .unwrap();
    let task = dir.join("classify.yml");
    std::fs::write(
        &task,
        "format_version: '2.0'\n\ninput_files: 'classify.c'\n\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\n\noptions:\n  language: C\n  data_model: ILP32\n",
    )
    .unwrap();
    let out = tmp.path().join("out1");
    let (code, said) = gen(&task, &out, &[]);
    assert_eq!(code, Some(1), "reach_error is found: {said}");
    let r = report(&out);
    assert_eq!(r["data_model"], "ILP32");
    assert_eq!(r["property"], "coverage-error");
    assert!(r["program"].as_str().unwrap().ends_with("tasks/classify.c"));
    let metadata = std::fs::read_to_string(out.join("test-suite/metadata.xml")).unwrap();
    assert!(
        metadata.contains("<architecture>32bit</architecture>") && metadata.contains("@CALL(reach_error)"),
        "{metadata}"
    );

    // Flags win over the task.
    let out = tmp.path().join("out2");
    let (_, said) = gen(&task, &out, &["--data-model", "LP64", "--property", "coverage-branches"]);
    let r = report(&out);
    assert_eq!((r["data_model"].as_str(), r["property"].as_str()), (Some("LP64"), Some("coverage-branches")), "{said}");

    // coverage-branches is chosen when the task lists it; LP64 by default.
    let both = dir.join("both.yml");
    std::fs::write(&both, "format_version: '1.0'\ninput_files: 'classify.c'\nproperties:\n  - property_file: ../properties/coverage-error-call.prp\n  - property_file: ../properties/coverage-branches.prp\n").unwrap();
    let out = tmp.path().join("out3");
    gen(&both, &out, &[]);
    let r = report(&out);
    assert_eq!((r["data_model"].as_str(), r["property"].as_str()), (Some("LP64"), Some("coverage-branches")));

    // A task with none of those properties runs when the flag names one.
    let other = dir.join("other.yml");
    std::fs::write(&other, "format_version: '2.0'\ninput_files: 'classify.c'\nproperties:\n  - property_file: ../properties/no-overflow.prp\n").unwrap();
    let out = tmp.path().join("out4");
    let (code, said) = gen(&other, &out, &["--property", "coverage-branches"]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(report(&out)["property"], "coverage-branches");

    // Refusals name the construct.
    let cases = [
        ("format_version: '2.0'\ninput_files: ['classify.c', 'other.c']\nproperties:\n  - property_file: coverage-branches.prp\n", "2 input files"),
        ("format_version: '2.0'\ninput_files: 'classify.c'\nproperties:\n  - property_file: termination.prp\n", "none of the task's properties (termination.prp)"),
        ("format_version: '2.0'\ninput_files: 'classify.c'\nproperties:\n  - property_file: coverage-branches.prp\noptions:\n  language: Java\n", "options.language is Java"),
        ("format_version: '9'\ninput_files: 'classify.c'\n", "format_version 9"),
        ("format_version: '2.0'\ninput_files: 'missing.c'\nproperties:\n  - property_file: coverage-branches.prp\n", "missing.c: no such file"),
    ];
    for (i, (text, expect)) in cases.iter().enumerate() {
        let bad = dir.join(format!("bad{i}.yml"));
        std::fs::write(&bad, text).unwrap();
        let (code, said) = gen(&bad, &tmp.path().join(format!("bad{i}")), &[]);
        assert_eq!(code, Some(2), "{text}: {said}");
        assert!(said.contains(expect), "{text}: want {expect:?} in {said}");
    }
}

#[test]
fn every_public_task_file_reads() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("task_files: public tasks skipped: ../shared (WALKDOWN_SHARED) not found");
        return;
    };
    let mut stack = vec![shared.join("bench/sv")];
    let mut read = 0;
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "yml") {
                let task = walkdown_formats::task::read_task(&p).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(task.input_files.len(), 1, "{}", p.display());
                assert!(task.input_files[0].is_file(), "{}: {}", p.display(), task.input_files[0].display());
                read += 1;
            }
        }
    }
    eprintln!("task_files: {read} public task files read");
    assert!(read >= 45);
}
