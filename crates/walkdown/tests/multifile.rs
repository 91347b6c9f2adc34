//! Programs of several C files and programs of a project's build.
//!
//! `tests/multifile/` is a program of two files whose planted bug is
//! reached only through a function of the second (`other.c`): `gen main.c
//! other.c` finds it, the goals of `other.c` name that file, each file's
//! static `clamp` keeps a name of its own, the report lists both files,
//! `replay` reproduces the error natively and `validate` measures each
//! file. A build database written by the test (two tools that each define
//! `main`, a shared library unit, an unused unit that does not even
//! compile) is read with `--compile-commands`: without `--target` it is an
//! error naming both tools; with it, the tool's program links only what it
//! uses, and its error test replays natively. What cannot be linked is an
//! error naming the file.
//!
//! Needs clang-14, opt-14, llvm-link-14 and gcc (installed by `scripts/setup`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn said(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// The fixture's directory; commands run there, naming its files as given.
fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/multifile")
}

/// The report's test that reaches `reach_error`.
fn error_test(report: &serde_json::Value) -> String {
    let errors = report["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors[0]["test"].as_str().unwrap().to_string()
}

#[test]
fn a_bug_in_the_second_file_is_found_located_and_replayed() {
    let out = tempfile::tempdir().unwrap();
    let o = walkdown()
        .current_dir(fixture_dir())
        .args(["gen", "main.c", "other.c", "--time", "20", "--quiet", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("error reach_error at other.c:15:5"), "{}", said(&o));

    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["program"], "main.c");
    assert_eq!(report["sources"], serde_json::json!(["main.c", "other.c"]));
    let goals = report["goals"].as_array().unwrap();
    let in_file = |g: &serde_json::Value, f: &str| g["location"].as_str().unwrap().starts_with(&format!("{f}:"));
    assert!(goals.iter().filter(|g| g["function"] == "check_pair").all(|g| in_file(g, "other.c")), "{goals:?}");
    for (function, file) in [("clamp@main.c", "main.c"), ("clamp@other.c", "other.c")] {
        let theirs: Vec<_> = goals.iter().filter(|g| g["function"] == function).collect();
        assert!(!theirs.is_empty() && theirs.iter().all(|g| in_file(g, file)), "{function}: {goals:?}");
    }
    // The HTML report shows the second file with its goals.
    let page = std::fs::read_to_string(out.path().join("report/index.html")).unwrap();
    assert!(page.contains("<tr id=\"F1L14\" class=\"c\">"), "the second file's line 14, covered");
    assert!(page.contains("walkdown run main.c other.c --test"), "reproduce commands name both files");

    let test = out.path().join("test-suite").join(error_test(&report));
    let o = walkdown().current_dir(fixture_dir()).args(["replay", "main.c", "other.c"]).arg(&test).output().unwrap();
    assert!(said(&o).contains("reach_error reached"), "{}", said(&o));
    assert_eq!(o.status.code(), Some(1));

    let o = walkdown()
        .current_dir(fixture_dir())
        .args(["validate", "main.c", "other.c"])
        .arg(out.path().join("test-suite"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
    assert!(said(&o).contains("  other.c: branches 6 of 6"), "{}", said(&o));
}

/// Writes a small project and its build database into `dir`: two tools
/// that each define `main`, a library unit both use, one nothing uses
/// (with a syntax error: a unit nothing needs is never compiled); the
/// tools include the library's header through `-Ilib` and the bug needs
/// `-DLIMIT=7`.
fn project(dir: &Path) -> PathBuf {
    let files = [
        ("lib/lib.h", "int lib_check(int x);\nint lib_max(int a, int b);\n"),
        (
            "lib/lib.c",
            "#include \"lib.h\"\nextern void reach_error(void);\nint lib_check(int x) {\n  if (x == LIMIT * 3)\n    reach_error();\n  return x > LIMIT;\n}\nint lib_max(int a, int b) { return a > b ? a : b; }\n",
        ),
        ("lib/unused.c", "int lib_unused(void) { return 5 }\n"),
        (
            "tools/check.c",
            "#include <lib.h>\nextern int __VERIFIER_nondet_int(void);\nint main(void) { return lib_check(__VERIFIER_nondet_int()); }\n",
        ),
        (
            "tools/max.c",
            "#include <lib.h>\nextern int __VERIFIER_nondet_int(void);\nint main(void) { return lib_max(__VERIFIER_nondet_int(), 3); }\n",
        ),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let entries: Vec<serde_json::Value> = ["tools/check.c", "lib/lib.c", "lib/unused.c", "tools/max.c"]
        .iter()
        .map(|f| {
            serde_json::json!({
                "directory": dir.display().to_string(),
                "file": dir.join(f).display().to_string(),
                "command": format!("/usr/bin/cc -O2 -Wall -Ilib -DLIMIT=7 -c -o {f}.o {f}"),
            })
        })
        .collect();
    let db = dir.join("build/compile_commands.json");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, serde_json::to_string_pretty(&entries).unwrap()).unwrap();
    db
}

#[test]
fn a_build_database_gives_the_units_their_flags_and_links_what_a_tool_uses() {
    let dir = tempfile::tempdir().unwrap();
    let db = project(dir.path());
    let o = walkdown().current_dir(dir.path()).arg("goals").arg("--compile-commands").arg(&db).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(said(&o).contains("several units define main (tools/check.c, tools/max.c)"), "{}", said(&o));

    let out = dir.path().join("out");
    let o = walkdown()
        .current_dir(dir.path())
        .args(["gen", "--compile-commands"])
        .arg(&db)
        .args(["--target", "check.c", "--time", "20", "--quiet", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("error reach_error at lib/lib.c:5:5"), "{}", said(&o));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["program"], "tools/check.c");
    assert_eq!(report["sources"], serde_json::json!(["tools/check.c", "lib/lib.c"]));
    let functions: Vec<&str> =
        report["goals"].as_array().unwrap().iter().filter_map(|g| g["function"].as_str()).collect();
    assert!(!functions.contains(&"lib_max"), "only what the tool uses is linked: {functions:?}");
    // A second run takes the units from the cache in OUT: its entries are
    // not written again.
    let cache = out.join(".walkdown-cache/units");
    let written = || -> Vec<(PathBuf, std::time::SystemTime)> {
        let mut entries: Vec<_> = cache
            .read_dir()
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.clone(), std::fs::metadata(&p).unwrap().modified().unwrap()))
            .collect();
        entries.sort();
        entries
    };
    let before = written();
    assert_eq!(before.len(), 4, "the tool's unit and the library's, each a module and its headers: {before:?}");
    let again = walkdown()
        .current_dir(dir.path())
        .args(["gen", "--compile-commands"])
        .arg(&db)
        .args(["--target", "check.c", "--time", "2", "--quiet", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1), "{}", said(&again));
    assert_eq!(written(), before);

    let test = out.join("test-suite").join(error_test(&report));
    let o = walkdown()
        .current_dir(dir.path())
        .args(["replay", "--compile-commands"])
        .arg(&db)
        .args(["--target", "tools/check.c"])
        .arg(&test)
        .output()
        .unwrap();
    assert!(said(&o).contains("tools/check.c: reach_error reached"), "{}", said(&o));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn what_cannot_be_linked_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("main.c", "int f(void);\nint main(void) { return f(); }\n");
    write("f.c", "int f(void) {\n  return 1 +;\n}\n");
    write("g.c", "int f(void) { return 2; }\n");
    write("h.c", "int f(void) { return 3; }\n");
    let goals = |files: &[&str], more: &[&str]| {
        walkdown().current_dir(dir.path()).arg("goals").args(files).args(more).output().unwrap()
    };
    let cases: &[(&[&str], &str)] = &[
        (&["main.c", "f.c"], "f.c:2:"),
        (&["main.c", "g.c", "h.c"], "`f` is defined in both g.c and h.c"),
        (&["main.c", "gone.c"], "gone.c: no such file"),
        (&["main.c", "g.c", "main.c"], "several units define main"),
    ];
    for (files, words) in cases {
        let o = goals(files, &[]);
        assert_eq!(o.status.code(), Some(2), "{files:?}: {}", said(&o));
        assert!(said(&o).contains(words), "{files:?}: want {words:?}, got {}", said(&o));
    }
    let o = goals(&["g.c"], &["-DX", "-std=c99"]);
    assert!(o.status.success(), "flags of one file: {}", said(&o));
    let o = goals(&["g.c", "h.c"], &["--target", "g.c"]);
    assert!(said(&o).contains("--target g.c: g.c does not define main"), "{}", said(&o));
    let o = goals(&["g.c", "h.c"], &[]);
    assert!(said(&o).contains("no unit defines main (g.c, h.c)"), "{}", said(&o));
}
