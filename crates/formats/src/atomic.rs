//! Crash-safe file writing: a reader of the destination sees either the old
//! content or the complete new one, never a torn file, even when walkdown is
//! killed mid-write (tests are written as they are found, so an interrupted
//! run must leave only whole files behind).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::FormatError;

/// Distinguishes temporary files of concurrent writers in one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write `contents` to `path` by writing a temporary file in the same
/// directory (so the rename stays on one file system) and renaming it over
/// `path`.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), FormatError> {
    let write_error = |source: io::Error| FormatError::Write { path: path.to_path_buf(), source };
    let temp = temp_path_for(path).map_err(write_error)?;
    let result = write_and_sync(&temp, contents).and_then(|()| fs::rename(&temp, path));
    if result.is_err() {
        // Best effort: the temporary name is ours alone, nobody else reads it.
        let _ = fs::remove_file(&temp);
    }
    result.map_err(write_error)
}

fn temp_path_for(path: &Path) -> io::Result<PathBuf> {
    let file_name =
        path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "destination has no file name"))?;
    let unique = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    // A leading dot keeps half-written files out of `*.xml` globs of other
    // readers, such as a validator running on the suite concurrently.
    let temp_name = format!(".{}.tmp-{}-{}", file_name.to_string_lossy(), std::process::id(), unique);
    Ok(path.with_file_name(temp_name))
}

fn write_and_sync(temp: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file: File = OpenOptions::new().write(true).create_new(true).open(temp)?;
    file.write_all(contents)?;
    // Without the sync a crash after the rename could leave an empty file
    // under the final name on file systems that reorder metadata and data.
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.txt")]);
    }

    #[test]
    fn missing_directory_is_a_write_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/a.txt");
        assert!(matches!(write_atomically(&path, b"x"), Err(FormatError::Write { .. })));
    }
}
