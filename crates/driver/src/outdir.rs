//! The output directory of `gen`: a lock, so that two runs never write
//! into one directory at once, and a manifest of every file a run wrote,
//! so that the next run removes exactly those and never a file someone
//! else put there.
//!
//! The lock is an `flock` on `OUT/.walkdown-lock`, held for the whole run
//! and released by the kernel however the process ends, so a crashed run
//! leaves no stale lock. The file itself stays: deleting it would let a
//! run that opened the old file and a run that created a new one both
//! believe they hold the lock. It holds the owner's pid, start time and
//! program, for the error the next run gives.
//!
//! The manifest `OUT/.walkdown-manifest` lists one path (relative to OUT)
//! a line. A file is listed *before* it is created, so a run killed at any
//! point leaves no file of its own unlisted.

use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Name of the lock file in OUT.
pub const LOCK_FILE: &str = ".walkdown-lock";
/// Name of the manifest in OUT.
pub const MANIFEST_FILE: &str = ".walkdown-manifest";
/// The manifest's first line.
const MANIFEST_HEADER: &str =
    "# Files walkdown gen wrote into this directory, one a line; the next run into it removes these and only these.";

/// An exclusive lock on an output directory, released on drop (or when
/// the process ends).
#[derive(Debug)]
pub struct OutLock {
    _file: File,
}

/// Creates `out` if needed and locks it; a directory another live run
/// holds is an error naming that run.
pub fn lock_out_dir(out: &Path, program: &Path) -> Result<OutLock> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open the lock file {}", path.display()))?;
    // SAFETY: flock on a file descriptor we own; no memory is involved.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if !locked {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(err).with_context(|| format!("cannot lock {}", path.display()));
        }
        let mut owner = String::new();
        let _ = file.read_to_string(&mut owner);
        let owner = owner.split_whitespace().collect::<Vec<_>>().join(" ");
        bail!(
            "{} is in use by another walkdown gen ({}); wait for it to end or choose another --out",
            out.display(),
            if owner.is_empty() { "its details are not written yet".to_string() } else { owner }
        );
    }
    let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let text = format!("pid {} started {} (Unix time) on {}\n", std::process::id(), started, program.display());
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(OutLock { _file: file })
}

/// The manifest of the current run: what it has written so far.
#[derive(Debug)]
pub struct Manifest {
    out: PathBuf,
    file: Mutex<Option<File>>,
}

impl Manifest {
    /// A manifest for `out`; nothing is read or written until [`Manifest::begin`].
    pub fn new(out: &Path) -> Manifest {
        Manifest { out: out.to_path_buf(), file: Mutex::new(None) }
    }

    /// Clears what the previous run into OUT wrote (the files its manifest
    /// lists) and starts a new manifest. `planned` are the fixed files this
    /// run will write and `is_ours` tells the names of files it may write
    /// (relative to OUT): a file with such a name that the old manifest
    /// does not list was put there by someone else, and is an error before
    /// anything is removed. Returns the unlisted files of `suite_dir`
    /// (relative to OUT) that are left alone, for a warning.
    pub fn begin(&self, planned: &[&str], is_ours: impl Fn(&str) -> bool, suite_dir: &str) -> Result<Vec<String>> {
        let manifest_path = self.out.join(MANIFEST_FILE);
        let old = read_manifest(&manifest_path)?;
        let mut present = Vec::new();
        for name in planned {
            if self.out.join(name).exists() {
                present.push(name.to_string());
            }
        }
        let mut others = Vec::new();
        if let Ok(entries) = std::fs::read_dir(self.out.join(suite_dir)) {
            for e in entries.filter_map(|e| e.ok()) {
                let name = format!("{suite_dir}/{}", e.file_name().to_string_lossy());
                if planned.contains(&name.as_str()) || e.file_name().to_string_lossy().starts_with('.') {
                    continue;
                }
                if is_ours(&name) {
                    present.push(name);
                } else if !old.contains(&name) {
                    others.push(name);
                }
            }
        }
        let foreign: Vec<&String> = present.iter().filter(|n| !old.contains(*n)).collect();
        if let Some(first) = foreign.first() {
            bail!(
                "{} was not written by walkdown gen (it is not listed in {}){}: move it away or choose another --out; nothing was changed",
                self.out.join(first).display(),
                manifest_path.display(),
                if foreign.len() > 1 { format!(", nor are {} more files walkdown would overwrite", foreign.len() - 1) } else { String::new() }
            );
        }
        for name in &old {
            match std::fs::remove_file(self.out.join(name)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("cannot remove {}", self.out.join(name).display())),
            }
        }
        let mut file =
            File::create(&manifest_path).with_context(|| format!("cannot write {}", manifest_path.display()))?;
        writeln!(file, "{MANIFEST_HEADER}").with_context(|| format!("cannot write {}", manifest_path.display()))?;
        *self.file.lock().unwrap_or_else(|e| e.into_inner()) = Some(file);
        Ok(others)
    }

    /// Lists `name` (relative to OUT) before the caller creates it.
    pub fn record(&self, name: &str) -> Result<(), String> {
        let mut guard = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let Some(file) = guard.as_mut() else {
            return Err(format!("{}: the manifest is not started", self.out.display()));
        };
        // One write per line: the line is whole or absent after a crash.
        file.write_all(format!("{name}\n").as_bytes())
            .map_err(|e| format!("{}: {e}", self.out.join(MANIFEST_FILE).display()))
    }
}

/// The paths an old manifest lists; only plain relative paths below OUT
/// count (a hand-edited `../x` or `/x` line is ignored, never followed).
fn read_manifest(path: &Path) -> Result<BTreeSet<String>> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok(text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| Path::new(l).components().all(|c| matches!(c, Component::Normal(_))))
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_paths_outside_the_directory_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MANIFEST_FILE);
        std::fs::write(&path, "# header\nreport.json\n../escape\n/etc/passwd\ntest-suite/test-00000.xml\n\n").unwrap();
        let listed: Vec<String> = read_manifest(&path).unwrap().into_iter().collect();
        assert_eq!(listed, vec!["report.json".to_string(), "test-suite/test-00000.xml".to_string()]);
    }

    #[test]
    fn a_second_lock_on_one_directory_fails_and_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_out_dir(dir.path(), Path::new("a.c")).unwrap();
        let second = lock_out_dir(dir.path(), Path::new("b.c")).unwrap_err().to_string();
        assert!(second.contains("in use by another walkdown gen"), "{second}");
        assert!(second.contains(&format!("pid {}", std::process::id())) && second.contains("a.c"), "{second}");
        drop(first);
        lock_out_dir(dir.path(), Path::new("b.c")).unwrap();
    }
}
