//! Native confirmation of errors. The interpreter is walkdown's judge, but
//! it is not the machine: a program that relies on what the interpreter
//! models differently (an external function without a model, a pointer
//! squeezed through 32 bits, undefined behaviour) can reach an error in
//! walkdown's run and not natively. So every test that would be kept for
//! an error runs natively first (through the [`ErrorCheck`] the driver
//! gives, gcc and walkdown's harness), and the error carries the verdict
//! as its evidence: confirmed, unconfirmed with the native outcome, or
//! unchecked with the reason (no gcc, a program that does not build
//! natively). Only a confirmed or unchecked error stops a
//! `coverage-error` campaign; a later test that confirms an unconfirmed
//! error site takes its place.
//!
//! A test whose replay called a function without a model is different:
//! there the interpreter fed the call an input value, so its inputs mean
//! something else natively; it is kept only when the native run confirms
//! its error, and otherwise listed as refuted ([`RefutedTest`]).

use super::{Campaign, ErrorFound};
use crate::verdict::OpenReason;
use walkdown_interp::{Outcome, RunResult};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::CheckKind;
use walkdown_ir::Loc;

/// What a native run of an error test says (see [`ErrorCheck`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeVerdict {
    /// The native run ends in the same error.
    Confirmed,
    /// It does not; how it ended, in words (`killed by signal 11
    /// (SIGSEGV) natively (gcc)`).
    Refuted(String),
    /// It could not be run; why (gcc is not installed, the program does
    /// not build natively, no native check in this mode).
    Unchecked(String),
}

impl NativeVerdict {
    /// Its word in reports: `confirmed`, `unconfirmed`, `unchecked`.
    pub fn word(&self) -> &'static str {
        match self {
            NativeVerdict::Confirmed => "confirmed",
            NativeVerdict::Refuted(_) => "unconfirmed",
            NativeVerdict::Unchecked(_) => "unchecked",
        }
    }

    /// The native outcome or the reason there is none; empty when
    /// confirmed.
    pub fn detail(&self) -> &str {
        match self {
            NativeVerdict::Confirmed => "",
            NativeVerdict::Refuted(s) | NativeVerdict::Unchecked(s) => s,
        }
    }

    /// Whether the error counts as found: confirmed natively, or where no
    /// native run can say otherwise.
    pub fn counts(&self) -> bool {
        !matches!(self, NativeVerdict::Refuted(_))
    }
}

/// Why an error is unchecked when the campaign has no [`ErrorCheck`] (unit
/// mode, embedders).
pub const NOT_IN_THIS_MODE: &str = "not run natively in this mode";

/// The verdict of an error test when the campaign has no [`ErrorCheck`].
pub(crate) fn no_check() -> NativeVerdict {
    NativeVerdict::Unchecked(NOT_IN_THIS_MODE.into())
}

/// Runs an error test natively (see the module doc).
pub trait ErrorCheck: Send + Sync {
    /// Runs `vector` natively; `error` is what the interpreter's replay
    /// reached.
    fn check(&self, vector: &TestVector, error: &ErrorFound) -> NativeVerdict;
}

/// An error test through unmodelled functions that the native check
/// refuted (not in the suite).
#[derive(Clone, Debug)]
pub struct RefutedTest {
    /// Its input values.
    pub vector: TestVector,
    /// The error the interpreter's replay reached.
    pub error: ErrorFound,
    /// How the native run ended instead.
    pub native: String,
    /// The unmodelled functions the replay called.
    pub unmodelled: Vec<String>,
    /// The engine that submitted it.
    pub engine: &'static str,
    /// Seconds since the start.
    pub at: f64,
}

/// Refuted tests listed in the snapshot (more are only counted).
pub const MAX_REFUTED_LISTED: usize = 50;

/// Native checks refuted at one error site after which further tests
/// reaching it are not run natively: a search that keeps finding the site
/// through a behaviour the native program does not share would otherwise
/// spend its budget on native runs.
pub const MAX_REFUTED_PER_SITE: usize = 64;

impl Campaign<'_> {
    /// The native verdict on `replay`'s error, when the ledger may keep the
    /// test for it (a new error site, an unconfirmed one, or a test through
    /// unmodelled functions that covers a new goal); `None` when there is
    /// nothing to check. Runs natively outside the lock; each vector once.
    pub(super) fn confirm(
        &self,
        engine: &'static str,
        vector: &TestVector,
        replay: &RunResult,
    ) -> Option<NativeVerdict> {
        let Outcome::Error { kind, loc, goal, .. } = replay.outcome else { return None };
        let error = ErrorFound { kind, loc, goal };
        let unmodelled = !replay.unknown_externals.is_empty();
        let key: Vec<u64> = replay.inputs.iter().map(|i| i.bits).chain([replay.inputs.len() as u64]).collect();
        {
            let inner = self.lock();
            let site_settled = inner.errors_seen.get(&(kind, loc)).is_some_and(|&i| {
                let test = inner.errors[i].1;
                inner.error_checks.get(&test).is_none_or(NativeVerdict::counts)
            });
            let new_goal = replay
                .covered
                .iter()
                .any(|g| !matches!(inner.goals[g.index()].verdict, crate::Verdict::Covered { .. }));
            if site_settled && !(unmodelled && new_goal) {
                return None;
            }
            self.error_check.as_ref()?;
            if let Some(v) = inner.checked.get(&key) {
                return Some(v.clone());
            }
            if inner.refuted_at.get(&(kind, loc)).is_some_and(|&n| n >= MAX_REFUTED_PER_SITE) {
                return Some(NativeVerdict::Refuted(format!(
                    "not run natively: {MAX_REFUTED_PER_SITE} tests reaching this error were refuted before"
                )));
            }
        }
        let consumed = self.consumed(vector, replay);
        let verdict = self.error_check.as_ref()?.check(&consumed, &error);
        self.note_verdict(engine, consumed, error, replay, key, &verdict);
        Some(verdict)
    }

    /// The file the test would be: the values the replay consumed.
    pub(super) fn consumed(&self, vector: &TestVector, replay: &RunResult) -> TestVector {
        let dm = self.program.data_model;
        if replay.inputs_exhausted {
            return vector.clone();
        }
        TestVector { values: replay.inputs.iter().map(|i| InputValue::from_bits(i.ty, i.signed, i.bits, dm)).collect() }
    }

    /// Counts a native verdict, remembers it for the vector, and lists a
    /// refuted test through unmodelled functions (which is not kept).
    fn note_verdict(
        &self,
        engine: &'static str,
        consumed: TestVector,
        error: ErrorFound,
        replay: &RunResult,
        key: Vec<u64>,
        verdict: &NativeVerdict,
    ) {
        let mut inner = self.lock();
        if inner.checked.insert(key, verdict.clone()).is_some() {
            // Another engine checked the same vector meanwhile.
            return;
        }
        let site: (CheckKind, Loc) = (error.kind, error.loc);
        match verdict {
            NativeVerdict::Confirmed => inner.confirmed_count += 1,
            NativeVerdict::Unchecked(_) => inner.unchecked_count += 1,
            NativeVerdict::Refuted(_) if replay.unknown_externals.is_empty() => {
                inner.unconfirmed_count += 1;
                *inner.refuted_at.entry(site).or_insert(0) += 1;
            }
            NativeVerdict::Refuted(native) => {
                inner.refuted_count += 1;
                *inner.refuted_at.entry(site).or_insert(0) += 1;
                let unmodelled = &replay.unknown_externals;
                if inner.refuted.len() < MAX_REFUTED_LISTED {
                    let at = self.start.elapsed().as_secs_f64();
                    let native = native.clone();
                    let unmodelled = unmodelled.clone();
                    inner.refuted.push(RefutedTest { vector: consumed, error, native, unmodelled, engine, at });
                }
            }
        }
        drop(inner);
        if let (false, Some(g)) = (verdict.counts(), error.goal) {
            let why = match replay.unknown_externals.is_empty() {
                true => "a test reaching it in the interpreter does not reach it natively".to_string(),
                false => format!(
                    "a test reaching it calls {} (no model) and does not reach it natively",
                    replay.unknown_externals.join(", ")
                ),
            };
            self.note_open("native check", g, OpenReason::Unsupported(why));
        }
    }
}
