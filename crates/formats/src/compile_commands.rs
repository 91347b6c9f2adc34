//! `compile_commands.json`: a project's build as a JSON compilation
//! database (what `bear -- make` and CMake's
//! `CMAKE_EXPORT_COMPILE_COMMANDS` write), read into the program's
//! translation units.
//!
//! Each entry names a `directory`, a `file` and the compiler's command
//! (`arguments` as a list, or `command` as one shell line). What is kept of
//! the command is what changes the meaning of the unit's C: include paths
//! (`-I`, `-isystem`, `-iquote`, `-idirafter`), macros (`-D`, `-U`,
//! `-include`, `-imacros`), the language standard (`-std=`, `-ansi`) and a
//! few code-generation choices C code can see (`-funsigned-char`,
//! `-fcommon`, ...); paths in them are made absolute, since walkdown
//! compiles in directories of its own. Everything else is dropped: the
//! output and mode (`-o`, `-c`), optimisation and debug levels, warnings,
//! the machine (walkdown's `--data-model` decides it), dependency files,
//! and flags clang-14 might not know. Only C files (`.c`, `.i`) are units;
//! a file compiled twice (a static and a shared build) is taken once, with
//! its first command.

use crate::FormatError;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};
use walkdown_ir::units::Unit;

/// Flags kept with the path or word that follows them (`-I dir` or
/// `-Idir`), and whether that is a path to make absolute.
const WITH_VALUE: &[(&str, bool)] = &[
    ("-I", true),
    ("-isystem", true),
    ("-iquote", true),
    ("-idirafter", true),
    ("-include", true),
    ("-imacros", true),
    ("-D", false),
    ("-U", false),
];

/// Flags kept as they are.
const ALONE: &[&str] = &[
    "-ansi",
    "-funsigned-char",
    "-fsigned-char",
    "-fno-signed-char",
    "-fno-unsigned-char",
    "-fcommon",
    "-fno-common",
    "-fshort-enums",
    "-fshort-wchar",
    "-fgnu89-inline",
    "-nostdinc",
    "-pthread",
];

/// Flags that take the next word as their value and are dropped with it.
const DROPPED_WITH_VALUE: &[&str] =
    &["-o", "-MF", "-MT", "-MQ", "-x", "-arch", "-target", "--target", "-Xclang", "-Xlinker", "-Xassembler"];

/// Reads the database at `path`; relative names in it are relative to
/// their entry's directory, which is relative to the database's own.
pub fn read_compile_commands(path: &Path) -> Result<Vec<Unit>, FormatError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = std::fs::canonicalize(&base).unwrap_or(base);
    let cwd = std::env::current_dir().unwrap_or_default();
    units_of(&text, &base, &cwd).map_err(|message| FormatError::Malformed { path: path.to_path_buf(), message })
}

/// The units of the database `text` whose relative directories are
/// relative to `base`; units under `cwd` are named relative to it.
pub fn units_of(text: &str, base: &Path, cwd: &Path) -> Result<Vec<Unit>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let entries = doc.as_array().ok_or("not a list of compile commands")?;
    let mut units: Vec<Unit> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = |name: &str| entry.get(name).and_then(Value::as_str);
        let (Some(directory), Some(file)) = (field("directory"), field("file")) else {
            return Err(format!("entry {i} has no `directory` or no `file`"));
        };
        let dir = clean(&base.join(directory));
        let path = clean(&dir.join(file));
        if !path.extension().is_some_and(|e| e == "c" || e == "i") {
            continue;
        }
        let words: Vec<String> = match (entry.get("arguments").and_then(Value::as_array), field("command")) {
            (Some(args), _) => args.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            (None, Some(command)) => split_command(command).map_err(|e| format!("entry {i}: {e}"))?,
            (None, None) => return Err(format!("entry {i} has neither `arguments` nor `command`")),
        };
        let shown = path.strip_prefix(cwd).map(Path::to_path_buf).unwrap_or_else(|_| path.clone());
        if units.iter().any(|u| u.path == shown) {
            continue;
        }
        units.push(Unit { path: shown, flags: kept_flags(words.get(1..).unwrap_or(&[]), &dir) });
    }
    if units.is_empty() {
        return Err("no C file (.c, .i) among its entries".into());
    }
    Ok(units)
}

/// The flags of a command's words (without the compiler) that walkdown
/// keeps (see the module doc), with paths made absolute against `dir`;
/// other words (the unit's file itself) are dropped.
fn kept_flags(words: &[String], dir: &Path) -> Vec<String> {
    let mut kept = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        i += 1;
        if DROPPED_WITH_VALUE.contains(&w) {
            i += 1;
            continue;
        }
        if ALONE.contains(&w) || w.starts_with("-std=") {
            kept.push(w.to_string());
            continue;
        }
        let Some(&(flag, is_path)) = WITH_VALUE.iter().find(|(f, _)| w.starts_with(f)) else { continue };
        // `-I dir` or `-Idir` (`-include` is not `-I`: flags are case-sensitive).
        let attached = &w[flag.len()..];
        let value = if attached.is_empty() {
            let Some(v) = words.get(i) else { break };
            i += 1;
            v.clone()
        } else {
            attached.to_string()
        };
        let value = if is_path { clean(&dir.join(&value)).display().to_string() } else { value };
        if flag.len() == 2 {
            kept.push(format!("{flag}{value}"));
        } else {
            kept.push(flag.to_string());
            kept.push(value);
        }
    }
    kept
}

/// `path` without `.` components and with `..` applied where it can be,
/// without asking the file system (a database may name files that a
/// symbolic link would place elsewhere: its names are what it means).
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// The words of a shell command line: blanks separate words; single
/// quotes keep everything, double quotes keep everything but `\"` and `\\`;
/// a backslash outside quotes keeps the next character.
fn split_command(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("unterminated ' in `command`".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err("unterminated \" in `command`".into()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("unterminated \" in `command`".into()),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_split_as_a_shell_splits_them() {
        let words = split_command(r#"cc -DNAME="\"x y\"" -I'my dir' a\ b.c  -c"#).unwrap();
        assert_eq!(words, ["cc", r#"-DNAME="x y""#, "-Imy dir", "a b.c", "-c"]);
        assert!(split_command("cc 'open").is_err());
    }

    #[test]
    fn units_keep_the_flags_that_change_their_meaning() {
        let db = r#"[
          {"directory": "/proj/build", "file": "../src/main.c",
           "arguments": ["gcc", "-c", "-O2", "-g", "-Wall", "-I../include", "-I", "gen", "-DDEBUG=1", "-U", "NDEBUG",
                         "-std=c99", "-include", "config.h", "-m32", "-fPIC", "-MD", "-MF", "main.d", "-o", "main.o",
                         "../src/main.c"]},
          {"directory": "/proj/build", "file": "/proj/src/main.c", "command": "cc -fPIC -c ../src/main.c"},
          {"directory": "/proj", "file": "src/util.cpp", "command": "c++ -c src/util.cpp"},
          {"directory": "/elsewhere", "file": "lib.c", "command": "cc -Iinc -fsanitize=address -c lib.c"}
        ]"#;
        let units = units_of(db, Path::new("/"), Path::new("/proj")).unwrap();
        assert_eq!(units.len(), 2, "{units:?}");
        assert_eq!(units[0].path, PathBuf::from("src/main.c"));
        assert_eq!(
            units[0].flags,
            [
                "-I/proj/include",
                "-I/proj/build/gen",
                "-DDEBUG=1",
                "-UNDEBUG",
                "-std=c99",
                "-include",
                "/proj/build/config.h"
            ]
        );
        assert_eq!(units[1].path, PathBuf::from("/elsewhere/lib.c"));
        assert_eq!(units[1].flags, ["-I/elsewhere/inc"]);
    }

    #[test]
    fn malformed_databases_say_what_is_wrong() {
        assert!(units_of("{}", Path::new("/"), Path::new("/")).unwrap_err().contains("not a list"));
        assert!(units_of(r#"[{"file": "a.c"}]"#, Path::new("/"), Path::new("/")).unwrap_err().contains("entry 0"));
        let cxx = r#"[{"directory": "/", "file": "a.cc", "command": "c++ a.cc"}]"#;
        assert!(units_of(cxx, Path::new("/"), Path::new("/")).unwrap_err().contains("no C file"));
    }
}
