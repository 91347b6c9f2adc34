//! `coverage.info`: a suite's native coverage as an lcov tracefile, the
//! format `genhtml`, CI coverage pages and editors read.
//!
//! One record for each of the program's files: its functions (`FN`, `FNDA`, `FNF`,
//! `FNH`), its branch outcomes (`BRDA`, `BRF`, `BRH`: each outcome gcov
//! reports for a line, numbered in gcov's order; `-` for the outcomes of
//! a line never executed, as lcov's own `geninfo` writes them) and its
//! lines (`DA`, `LF`, `LH`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::atomic::write_atomically;
use crate::FormatError;

/// One function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LcovFunction {
    /// Its name.
    pub name: String,
    /// Its first line.
    pub line: u32,
    /// How often it was entered.
    pub count: u64,
}

/// The coverage of one source file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LcovRecord {
    /// The test name (`TN`; letters, digits and `_` only, may be empty).
    pub test_name: String,
    /// The source file (`SF`), best absolute so that genhtml finds it.
    pub source: String,
    /// Its functions.
    pub functions: Vec<LcovFunction>,
    /// Execution count of each line with code.
    pub lines: BTreeMap<u32, u64>,
    /// Taken-counts of each line's branch outcomes, in order.
    pub branches: BTreeMap<u32, Vec<u64>>,
}

/// A test name as lcov accepts it.
fn test_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// The tracefile text of `record`.
pub fn format_lcov(record: &LcovRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "TN:{}", test_name(&record.test_name));
    let _ = writeln!(out, "SF:{}", record.source);
    // genhtml wants one FN per name; gcov lists a name once per file.
    let mut seen = std::collections::BTreeSet::new();
    let functions: Vec<&LcovFunction> =
        record.functions.iter().filter(|f| !f.name.is_empty() && seen.insert(&f.name)).collect();
    for f in &functions {
        let _ = writeln!(out, "FN:{},{}", f.line.max(1), f.name);
    }
    for f in &functions {
        let _ = writeln!(out, "FNDA:{},{}", f.count, f.name);
    }
    let _ = writeln!(out, "FNF:{}", functions.len());
    let _ = writeln!(out, "FNH:{}", functions.iter().filter(|f| f.count > 0).count());
    let (mut found, mut hit) = (0, 0);
    for (line, counts) in &record.branches {
        let executed = record.lines.get(line).copied().unwrap_or(0) > 0;
        for (i, c) in counts.iter().enumerate() {
            found += 1;
            if *c > 0 {
                hit += 1;
            }
            if executed {
                let _ = writeln!(out, "BRDA:{line},0,{i},{c}");
            } else {
                let _ = writeln!(out, "BRDA:{line},0,{i},-");
            }
        }
    }
    let _ = writeln!(out, "BRF:{found}");
    let _ = writeln!(out, "BRH:{hit}");
    for (line, count) in &record.lines {
        let _ = writeln!(out, "DA:{line},{count}");
    }
    let _ = writeln!(out, "LF:{}", record.lines.len());
    let _ = writeln!(out, "LH:{}", record.lines.values().filter(|c| **c > 0).count());
    out.push_str("end_of_record\n");
    out
}

/// Writes `records` (one per file) to `path` atomically.
pub fn write_lcov(path: &Path, records: &[LcovRecord]) -> Result<(), FormatError> {
    let text: String = records.iter().map(format_lcov).collect();
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_in_lcov_order_with_unexecuted_branches_dashed() {
        let record = LcovRecord {
            test_name: "walk-down".into(),
            source: "/x/p.c".into(),
            functions: vec![
                LcovFunction { name: "main".into(), line: 3, count: 2 },
                LcovFunction { name: "f".into(), line: 9, count: 0 },
            ],
            lines: BTreeMap::from([(3, 2), (4, 2), (9, 0)]),
            branches: BTreeMap::from([(4, vec![2, 0]), (9, vec![0, 0])]),
        };
        assert_eq!(
            format_lcov(&record),
            "TN:walk_down\nSF:/x/p.c\nFN:3,main\nFN:9,f\nFNDA:2,main\nFNDA:0,f\nFNF:2\nFNH:1\n\
BRDA:4,0,0,2\nBRDA:4,0,1,0\nBRDA:9,0,0,-\nBRDA:9,0,1,-\nBRF:4\nBRH:1\nDA:3,2\nDA:4,2\nDA:9,0\nLF:3\nLH:2\nend_of_record\n"
        );
    }
}
