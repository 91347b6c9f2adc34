//! What the `bitwuzla-sys` 0.8.0 bindings do not say right for the linked
//! Bitwuzla 0.10.0 (see `scripts/fetch-bitwuzla`): option numbers and the
//! interpolation functions.
//!
//! The crate's functions, term kinds, rounding modes and result values
//! are the same in 0.10.0's C header (compared when the build moved to
//! 0.10.0), so the rest of the backend uses the crate. Options are not:
//! 0.10.0 inserted `PRODUCE_INTERPOLANTS` and others, which moved every
//! later number, so the options walkdown sets are numbered here from
//! 0.10.0's `include/bitwuzla/option.h`. [`HEADER_VERSION`] is the version
//! they were read from; a test checks it against the linked library.

use std::cell::RefCell;
use std::ffi::{c_char, CStr};

use bitwuzla_sys::{bitwuzla_set_abort_callback, Bitwuzla, BitwuzlaOption, BitwuzlaTerm};

/// The Bitwuzla version the numbers below were read from.
pub const HEADER_VERSION: &str = "0.10.0";

/// `BITWUZLA_OPT_PRODUCE_MODELS`.
pub const OPT_PRODUCE_MODELS: BitwuzlaOption = 1;
/// `BITWUZLA_OPT_PRODUCE_INTERPOLANTS`.
pub const OPT_PRODUCE_INTERPOLANTS: BitwuzlaOption = 2;
/// `BITWUZLA_OPT_INTERPOLANTS_SUBST`.
pub const OPT_INTERPOLANTS_SUBST: BitwuzlaOption = 42;
/// `BITWUZLA_OPT_PP_VARIABLE_SUBST`.
pub const OPT_PP_VARIABLE_SUBST: BitwuzlaOption = 57;

extern "C" {
    /// An inductive sequence of interpolants for the partitions given as
    /// `asc` increments `as_[i]` of `ac[i]` assertions each; null (with
    /// `size` untouched) when Bitwuzla raised an error.
    pub fn bitwuzla_get_interpolants(
        bitwuzla: *mut Bitwuzla,
        asc: u32,
        ac: *mut u32,
        as_: *mut *mut BitwuzlaTerm,
        size: *mut usize,
    ) -> *mut BitwuzlaTerm;
}

thread_local! {
    /// The message of the error Bitwuzla raised inside [`catching`].
    static RAISED: RefCell<Option<String>> = const { RefCell::new(None) };
}

unsafe extern "C" fn record(msg: *const c_char) {
    // SAFETY: Bitwuzla passes a NUL-terminated message it owns for the call.
    let text = unsafe { CStr::from_ptr(msg) }.to_string_lossy().trim().to_string();
    RAISED.with(|r| *r.borrow_mut() = Some(text));
}

/// Runs `f` (one C API call) with Bitwuzla's errors recorded instead of
/// ending the process, and returns the error's message if it raised one.
///
/// By default an error inside a C API call prints and exits. Interpolation
/// raises errors on inputs it does not support (Bitwuzla 0.10.0: some
/// proofs mixing arrays or uninterpreted functions); the C API catches them
/// and calls the abort callback, and when that returns, the call returns
/// its empty result. So only calls whose empty result the caller checks
/// may run here: the callback is set for `f` alone (it is per thread).
pub fn catching<T>(f: impl FnOnce() -> T) -> (T, Option<String>) {
    RAISED.with(|r| *r.borrow_mut() = None);
    // SAFETY: the callback only records the message; it is unset again
    // before any other call.
    unsafe { bitwuzla_set_abort_callback(Some(record)) };
    let out = f();
    // SAFETY: back to Bitwuzla's default (print and exit).
    unsafe { bitwuzla_set_abort_callback(None) };
    (out, RAISED.with(|r| r.borrow_mut().take()))
}

#[cfg(test)]
mod tests {
    /// The option numbers above are right only for the version they were
    /// read from.
    #[test]
    fn the_linked_bitwuzla_is_the_one_the_numbers_are_for() {
        assert_eq!(super::super::bitwuzla_version(), super::HEADER_VERSION);
    }
}
