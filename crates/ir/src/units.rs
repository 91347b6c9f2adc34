//! What a program is built from: its translation units, each a C file with
//! the flags its build compiles it with, and how they are linked. Data
//! only: the frontend compiles the units with clang-14 and links them into
//! one module, `walkdown-native` compiles the units the frontend used with
//! gcc.

use std::path::{Path, PathBuf};

/// One translation unit: a C file and its compile flags.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// The C file (`.c`, `.i`), spelled as locations and reports name it
    /// (as given on the command line, or relative to the current directory
    /// when a build database names it).
    pub path: PathBuf,
    /// The flags that change what the unit means (`-I`, `-D`, `-U`,
    /// `-std=`, `-include`, ...), given to clang and gcc after their own;
    /// every path in them is absolute, since neither compiler runs in the
    /// unit's directory.
    pub flags: Vec<String>,
}

impl Unit {
    /// A unit of `path` without flags.
    pub fn new(path: impl Into<PathBuf>) -> Unit {
        Unit { path: path.into(), flags: Vec::new() }
    }
}

/// How the units other than the one that defines `main` are linked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Linkage {
    /// Every unit whole, as `cc a.c b.c` links them (files named on the
    /// command line).
    #[default]
    Whole,
    /// Only the units that define something the program uses, and of
    /// those only what it uses, as a linker takes the members of a static
    /// library (the units of a project's build database).
    AsNeeded,
}

/// The units of a program and how they are linked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// The units, in the order reports list them when all are used.
    pub units: Vec<Unit>,
    /// How units other than the entry's are linked.
    pub others: Linkage,
    /// The unit whose `main` is the program's, when several units define
    /// one (`--target`): a path that names one unit (the same file, or the
    /// end of exactly one unit's path). Units that define another `main`
    /// are left out.
    pub target: Option<PathBuf>,
}

impl Sources {
    /// A program of one file without flags.
    pub fn one(path: impl Into<PathBuf>) -> Sources {
        Sources { units: vec![Unit::new(path)], ..Sources::default() }
    }

    /// Whole units named on the command line, in order, each with `flags`.
    pub fn files(paths: &[PathBuf], flags: &[String]) -> Sources {
        let units = paths.iter().map(|p| Unit { path: p.clone(), flags: flags.to_vec() }).collect();
        Sources { units, ..Sources::default() }
    }

    /// The first unit's file (the one reports list first), if any.
    pub fn first(&self) -> Option<&Path> {
        self.units.first().map(|u| u.path.as_path())
    }

    /// Whether this is one file without flags linked whole: the program
    /// walkdown has always read, which needs no linking of units.
    pub fn is_single_file(&self) -> bool {
        self.units.len() == 1 && self.units[0].flags.is_empty() && self.others == Linkage::Whole
    }

    /// Whether linking must look at what each unit defines: to pick the
    /// entry among several `main`s or to take units only as needed. Units
    /// named on the command line without `--target` are all used.
    pub fn needs_resolution(&self) -> bool {
        self.others == Linkage::AsNeeded || self.target.is_some()
    }
}
