//! Printing that a closed pipe cannot turn into a panic.
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone fails
//! with `EPIPE`, and `println!` panics on that. Commands that only print
//! restore the default action ([`default_sigpipe`]) and end quietly, as Unix
//! filters do; `gen` must finish its report whatever happens to its
//! terminal, so it prints through [`outln`] and [`errln`], which drop what
//! cannot be written.

use std::fmt;
use std::io::Write;

/// Restores the default action of SIGPIPE: the process ends, silently, at
/// its first write to a pipe nobody reads.
pub fn default_sigpipe() {
    // SAFETY: setting a signal's disposition to its default is
    // async-signal-safe and has no memory effects.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Writes one line to stdout; a write that fails (a closed pipe, a full
/// disk) is dropped, since the run's results are in its files.
pub fn outln(args: fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
}

/// Writes to stderr without a newline (the progress line); failures are
/// dropped as in [`outln`].
pub fn err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// Writes one line to stderr; failures are dropped as in [`outln`].
pub fn errln(args: fmt::Arguments<'_>) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|()| e.write_all(b"\n"));
}
