//! Source locations.

use crate::entities::FileId;
use std::fmt;

/// A position in a source file; line 0 means "unknown".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// The file, an index into [`crate::Program::files`].
    pub file: FileId,
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub col: u32,
}

impl Default for FileId {
    fn default() -> Self {
        FileId::from_u32(0)
    }
}

impl Loc {
    /// The unknown location.
    pub const UNKNOWN: Loc = Loc { file: FileId::from_u32(0), line: 0, col: 0 };

    /// Whether the location names a source line.
    pub fn is_known(self) -> bool {
        self.line != 0
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}
