//! The corpus helpers shared by the integration tests (`walkdown-testsupport`),
//! and the soundness check of instrumented invariants.
#![allow(unused_imports, dead_code)]

pub use walkdown_testsupport::*;

pub mod instrumented;
