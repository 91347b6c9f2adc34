//! Programs of several translation units: each unit's locations name its
//! file, `static` functions of one name stay apart under readable names,
//! a build database's units are linked only as needed (an unused unit is
//! not even compiled), and what cannot be linked is an error naming the
//! files.
//!
//! Needs clang-14, opt-14 and llvm-link-14 (installed by `scripts/setup`).

use std::path::{Path, PathBuf};
use walkdown_frontend::{compile_program, CompiledProgram, FrontendError, FrontendSettings};
use walkdown_ir::units::{Linkage, Sources, Unit};

/// Writes `files` (name, text) into `dir`; their paths.
fn write(dir: &Path, files: &[(&str, &str)]) -> Vec<PathBuf> {
    files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect()
}

fn compile(sources: &Sources) -> Result<CompiledProgram, FrontendError> {
    compile_program(sources, &FrontendSettings::default())
}

const MAIN: &str =
    "int twice(int);\nstatic int helper(int x) { return x + 1; }\nint main(void) {\n  return helper(twice(2));\n}\n";
const OTHER: &str =
    "static int helper(int x) {\n  if (x > 3)\n    return x;\n  return 0;\n}\nint twice(int y) { return helper(2 * y); }\n";

#[test]
fn each_unit_names_its_own_file_and_statics_stay_apart() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(dir.path(), &[("main.c", MAIN), ("other.c", OTHER)]);
    let c = compile(&Sources::files(&paths, &[])).expect("links");
    let files: Vec<&str> = c.program.files.iter().map(|(_, f)| f.as_str()).take(2).collect();
    assert_eq!(files, [paths[0].to_str().unwrap(), paths[1].to_str().unwrap()]);
    let func = |name: &str| c.program.funcs.iter().find(|(_, f)| f.name == name).map(|(_, f)| f.clone());
    let mine = func(&format!("helper@{}", paths[0].display())).expect("main.c's helper");
    let theirs = func(&format!("helper@{}", paths[1].display())).expect("other.c's helper");
    assert_eq!((mine.loc.file.as_u32(), mine.loc.line), (0, 2));
    assert_eq!((theirs.loc.file.as_u32(), theirs.loc.line), (1, 1));
    assert_eq!(func("twice").expect("twice").loc.file.as_u32(), 1);
    assert_eq!(c.units.len(), 2);
}

#[test]
fn a_build_database_links_only_what_the_entry_needs() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(
        dir.path(),
        &[
            ("tool_b.c", "int twice(int);\nint main(void) { return twice(1) - 2; }\n"),
            ("lib/other.c", OTHER),
            // Never needed, so never compiled: its syntax error is no error.
            ("lib/broken.c", "int unused(void) { return ; ; }}}\n"),
            ("tool_a.c", MAIN),
        ],
    );
    let units = paths.iter().map(|p| Unit::new(p.clone())).collect();
    let mut sources = Sources { units, others: Linkage::AsNeeded, target: None };
    match compile(&sources) {
        Err(FrontendError::SeveralMains { units }) => assert_eq!(units, [paths[0].clone(), paths[3].clone()]),
        other => panic!("expected several mains, got {other:?}"),
    }
    sources.target = Some("tool_a.c".into());
    let c = compile(&sources).expect("links");
    let used: Vec<&Path> = c.units.iter().map(|u| u.path.as_path()).collect();
    assert_eq!(used, [paths[3].as_path(), paths[1].as_path()]);
    assert!(c.program.funcs.iter().all(|(_, f)| f.name != "unused"));
}

#[test]
fn what_cannot_be_linked_is_an_error_naming_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(
        dir.path(),
        &[
            ("main.c", MAIN),
            ("other.c", OTHER),
            ("again.c", "int twice(int y) { return y; }\n"),
            ("bad.c", "int twice(int y) {\n  return y +;\n}\n"),
            ("nomain.c", "int f(void) { return 1; }\n"),
        ],
    );
    let files = |ks: &[usize]| Sources::files(&ks.iter().map(|&k| paths[k].clone()).collect::<Vec<_>>(), &[]);
    match compile(&files(&[0, 1, 2])) {
        Err(e @ FrontendError::DuplicateDefinition { .. }) => {
            let words = e.to_string();
            assert!(words.contains("`twice`") && words.contains("other.c") && words.contains("again.c"), "{words}");
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    match compile(&files(&[0, 3])) {
        Err(e @ FrontendError::Compile { .. }) => {
            let words = e.to_string();
            assert!(words.contains(&format!("{}:2:", paths[3].display())), "{words}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(matches!(compile(&files(&[1, 4])), Err(FrontendError::NoMain { .. })));
    let missing = Sources::files(&[paths[0].clone(), dir.path().join("gone.c")], &[]);
    match compile(&missing) {
        Err(FrontendError::MissingUnit { path }) => assert!(path.ends_with("gone.c")),
        other => panic!("expected a missing unit, got {other:?}"),
    }
    let target = Sources { target: Some("nomain.c".into()), ..files(&[0, 1, 4]) };
    assert!(matches!(compile(&target), Err(FrontendError::Target { .. })));
}

#[test]
fn flags_reach_clang_and_local_headers_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(
        dir.path(),
        &[
            (
                "src/main.c",
                "#include \"local.h\"\n#include <config.h>\nint main(void) { return LOCAL + CONFIG + EXTRA; }\n",
            ),
            ("src/local.h", "#define LOCAL 1\n"),
            ("include/config.h", "#define CONFIG 2\n"),
        ],
    );
    let flags = vec![format!("-I{}", dir.path().join("include").display()), "-DEXTRA=3".to_string()];
    let c = compile(&Sources::files(&paths[..1], &flags)).expect("compiles with the flags");
    assert!(c.program.funcs.iter().any(|(_, f)| f.name == "main"));
}
