//! The corpus helpers shared by the integration tests (`walkdown-testsupport`).
#![allow(unused_imports)]

pub use walkdown_testsupport::*;
