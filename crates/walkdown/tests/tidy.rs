//! Repository hygiene, checked by the test suite:
//!
//! - no tracked file is a compiled object, archive, executable or LLVM
//!   bitcode (`git ls-files`; skipped with a message outside a git
//!   checkout);
//! - every workspace crate has a section in `ARCHITECTURE.md`, and none
//!   depends on a crate its "Must not depend on" line names. The rules are
//!   read from `ARCHITECTURE.md` itself, so the page and the test cannot
//!   drift; the dependencies come from `cargo metadata --no-deps` (direct
//!   normal and build dependencies; dev-dependencies are the tests').

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// What a file is when its first bytes say it is compiled, else `None`.
fn compiled_kind(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    for (ext, kind) in [(".o", "object file"), (".a", "archive"), (".so", "shared object"), (".bc", "LLVM bitcode")] {
        if name.ends_with(ext) {
            return Some(kind);
        }
    }
    if name.ends_with(".gcda") || name.ends_with(".gcno") {
        return Some("gcov data");
    }
    let mut head = [0u8; 8];
    let n = std::io::Read::read(&mut std::fs::File::open(path).ok()?, &mut head).ok()?;
    let head = &head[..n];
    if head.starts_with(b"\x7fELF") {
        Some("ELF file")
    } else if head.starts_with(b"!<arch>\n") {
        Some("archive")
    } else if head.starts_with(b"BC\xc0\xde") || head.starts_with(b"\xde\xc0\x17\x0b") {
        Some("LLVM bitcode")
    } else if [b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe"].iter().any(|m| head.starts_with(*m)) {
        Some("Mach-O file")
    } else {
        None
    }
}

#[test]
fn no_compiled_file_is_tracked() {
    let root = repo_root();
    let out = Command::new("git").arg("-C").arg(&root).args(["ls-files", "-z"]).output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        _ => {
            eprintln!("no_compiled_file_is_tracked: skipped: {} is not a git checkout", root.display());
            return;
        }
    };
    let mut bad = Vec::new();
    for name in out.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        if let Some(kind) = compiled_kind(&root.join(&name)) {
            bad.push(format!("  {name} ({kind})"));
        }
    }
    assert!(
        bad.is_empty(),
        "compiled files are tracked; remove them with `git rm --cached` and ignore them in .gitignore:\n{}",
        bad.join("\n")
    );
}

/// The dependency rules of `ARCHITECTURE.md`: its groups (`- \`@name\`:
/// \`crate\`, ...`) and, per crate section (a `## ` heading whose first
/// code span is the package name), the code spans of its
/// `- Must not depend on:` line, groups expanded.
struct Rules {
    forbidden: BTreeMap<String, BTreeSet<String>>,
}

fn code_spans(line: &str) -> Vec<String> {
    line.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

fn parse_rules(text: &str, workspace: &BTreeSet<String>) -> Result<Rules, String> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    groups.insert("@workspace".into(), workspace.iter().cloned().collect());
    let mut raw: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = code_spans(heading).into_iter().next();
            continue;
        }
        let item = line.trim_start();
        if let Some(rest) = item.strip_prefix("- `@") {
            if let Some((name, members)) = rest.split_once("`:") {
                groups.insert(format!("@{name}"), code_spans(members));
            }
        } else if let Some(rest) = item.strip_prefix("- Must not depend on:") {
            let krate = section.clone().ok_or_else(|| format!("a rule outside a crate section: {line}"))?;
            if raw.insert(krate.clone(), code_spans(rest)).is_some() {
                return Err(format!("two \"Must not depend on\" lines for {krate}"));
            }
        }
    }
    let mut forbidden = BTreeMap::new();
    for (krate, names) in raw {
        let mut set = BTreeSet::new();
        for name in names {
            if name.starts_with('@') {
                let members = groups.get(&name).ok_or_else(|| format!("{krate}: unknown group {name}"))?;
                set.extend(members.iter().cloned());
            } else {
                set.insert(name);
            }
        }
        set.remove(&krate);
        forbidden.insert(krate, set);
    }
    Ok(Rules { forbidden })
}

#[test]
fn crate_dependencies_follow_architecture_md() {
    let root = repo_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&root)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pkg in meta["packages"].as_array().expect("packages") {
        let name = pkg["name"].as_str().unwrap().to_string();
        let direct = pkg["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect();
        deps.insert(name, direct);
    }
    let workspace: BTreeSet<String> = deps.keys().cloned().collect();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let rules = parse_rules(&text, &workspace).unwrap_or_else(|e| panic!("ARCHITECTURE.md: {e}"));

    let mut problems = Vec::new();
    for (krate, direct) in &deps {
        let Some(forbidden) = rules.forbidden.get(krate) else {
            problems.push(format!(
                "{krate} has no section in ARCHITECTURE.md: add a section headed ## `{krate}` (crates/...) \
                 with what it is, its invariants and a `- Must not depend on:` line"
            ));
            continue;
        };
        for dep in direct {
            if forbidden.contains(dep) {
                problems.push(format!("{krate} depends on {dep}, which ARCHITECTURE.md says it must not"));
            }
        }
    }
    for krate in rules.forbidden.keys().filter(|k| !workspace.contains(*k)) {
        eprintln!("crate_dependencies_follow_architecture_md: note: {krate} has rules in ARCHITECTURE.md but is not in the workspace");
    }
    assert!(problems.is_empty(), "dependency rules broken:\n  {}", problems.join("\n  "));
}

#[test]
fn the_rules_parser_reads_groups_and_sections() {
    let ws: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let text = "- `@g`: `x`, `y`\n## `a` (crates/a)\n- Must not depend on: `@g`, `b`\n## `b`\n- Must not depend on: `@workspace`\n";
    let rules = parse_rules(text, &ws).unwrap();
    assert_eq!(rules.forbidden["a"], ["b", "x", "y"].iter().map(|s| s.to_string()).collect());
    assert_eq!(rules.forbidden["b"], ["a", "c"].iter().map(|s| s.to_string()).collect());
    assert!(parse_rules("## `a`\n- Must not depend on: `@nope`\n", &ws).is_err());
}
