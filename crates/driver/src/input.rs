//! The program as a command line names it: one file (C, textual IR, a
//! task definition), several C files with compile flags, or a project's
//! build database with the unit whose `main` to test; resolved into the
//! translation units the frontend compiles ([`Sources`]).

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use walkdown_ir::units::{Linkage, Sources, Unit};

/// What names the program on the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramInput {
    /// The files, in order (the first is the one reports list first).
    pub files: Vec<PathBuf>,
    /// Compile flags for every unit (`-I` with absolute paths, `-D`,
    /// `-std=`), after a build database's own.
    pub flags: Vec<String>,
    /// `--compile-commands`: a build database whose C units are the
    /// program's, linked as needed.
    pub compile_commands: Option<PathBuf>,
    /// `--target`: the unit whose `main` is tested when several define one.
    pub target: Option<PathBuf>,
}

impl ProgramInput {
    /// One file, without flags.
    pub fn file(path: impl Into<PathBuf>) -> ProgramInput {
        ProgramInput { files: vec![path.into()], ..ProgramInput::default() }
    }

    /// Whether this is one file and nothing else: the program walkdown has
    /// always read (a C file, a `.wir` file or a task definition).
    pub fn is_one_file(&self) -> bool {
        self.files.len() == 1 && self.flags.is_empty() && self.compile_commands.is_none() && self.target.is_none()
    }

    /// The file the program is named by in messages: the first file, the
    /// target, or the build database.
    pub fn name(&self) -> PathBuf {
        let named = self.files.first().or(self.target.as_ref()).or(self.compile_commands.as_ref());
        named.cloned().unwrap_or_default()
    }

    /// The translation units: the files, or the build database's C units
    /// (read here), each with the flags.
    pub fn sources(&self) -> Result<Sources> {
        let Some(db) = &self.compile_commands else {
            if self.files.is_empty() {
                bail!("no program file given (give one or more C files, or --compile-commands FILE)");
            }
            for file in &self.files {
                crate::load::check_input_file(file, &["c", "i"])?;
            }
            return Ok(Sources {
                units: self.files.iter().map(|f| Unit { path: f.clone(), flags: self.flags.clone() }).collect(),
                others: Linkage::Whole,
                target: self.target.clone(),
            });
        };
        if !self.files.is_empty() {
            bail!(
                "give the program's C files or --compile-commands, not both (pick the unit to test with --target {})",
                self.files[0].display()
            );
        }
        let mut units = walkdown_formats::compile_commands::read_compile_commands(db)?;
        for u in &mut units {
            u.flags.extend(self.flags.iter().cloned());
        }
        Ok(Sources { units, others: Linkage::AsNeeded, target: self.target.clone() })
    }

    /// The words that name the program on walkdown's command line (what a
    /// command that reproduces a test starts with).
    pub fn words(&self) -> Vec<String> {
        let mut words: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        words.extend(self.flags.iter().cloned());
        if let Some(db) = &self.compile_commands {
            words.extend(["--compile-commands".to_string(), db.display().to_string()]);
        }
        if let Some(t) = &self.target {
            words.extend(["--target".to_string(), t.display().to_string()]);
        }
        words
    }
}

/// The compile flags of a command line's `-I DIR`, `-D NAME[=VALUE]` and
/// `-std=STD`, with include directories made absolute (the compilers run
/// elsewhere).
pub fn compile_flags(includes: &[PathBuf], defines: &[String], std: Option<&str>) -> Vec<String> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut flags: Vec<String> = includes.iter().map(|d| format!("-I{}", absolute(d).display())).collect();
    flags.extend(defines.iter().map(|d| format!("-D{d}")));
    flags.extend(std.map(|s| format!("-std={s}")));
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_name_the_program_as_given() {
        let input = ProgramInput {
            files: vec!["a.c".into(), "b.c".into()],
            flags: compile_flags(&["/inc".into()], &["N=1".into()], Some("c99")),
            ..ProgramInput::default()
        };
        assert_eq!(input.words(), ["a.c", "b.c", "-I/inc", "-DN=1", "-std=c99"]);
        assert!(!input.is_one_file() && ProgramInput::file("a.c").is_one_file());
        let db = ProgramInput {
            compile_commands: Some("build/compile_commands.json".into()),
            target: Some("tool.c".into()),
            ..ProgramInput::default()
        };
        assert_eq!(db.words(), ["--compile-commands", "build/compile_commands.json", "--target", "tool.c"]);
        assert_eq!(db.name(), PathBuf::from("tool.c"));
    }
}
