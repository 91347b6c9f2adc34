//! Frama-C's property report (`-report-csv`): one property a line, columns
//! `directory, file, line, function, property kind, status, property`,
//! separated by tabs.

/// One property of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvaProperty {
    /// The file's name.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The function.
    pub function: String,
    /// `signed_overflow`, `division_by_zero`, `mem_access`, `user assertion`, ...
    pub kind: String,
    /// `Valid`, `Unknown`, `Invalid`, `Dead`, `Invalid or unreachable`, ...
    pub status: String,
    /// The property in ACSL.
    pub property: String,
}

impl EvaProperty {
    /// Whether EVA proved it for every execution (including by showing the
    /// code dead).
    pub fn proved(&self) -> bool {
        self.status.starts_with("Valid") || self.status == "Dead"
    }
}

/// Reads a report; a malformed line is an error naming it.
pub fn read_eva_report(text: &str) -> Result<Vec<EvaProperty>, String> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        if k == 0 || line.trim().is_empty() {
            continue; // the header
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 7 {
            return Err(format!("line {}: {} columns, 7 expected", k + 1, cols.len()));
        }
        let Ok(line_no) = cols[2].trim().parse() else {
            return Err(format!("line {}: {:?} is no line number", k + 1, cols[2]));
        };
        out.push(EvaProperty {
            file: cols[1].into(),
            line: line_no,
            function: cols[3].into(),
            kind: cols[4].into(),
            status: cols[5].into(),
            property: cols[6..].join("\t"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_report() {
        let text = "directory\tfile\tline\tfunction\tproperty kind\tstatus\tproperty\n\
                    /tmp\ttask.c\t5\tmain\tuser assertion\tDead\t\\false\n\
                    /tmp\ttask.c\t6\tmain\tsigned_overflow\tUnknown\tx + 1 ≤ 2147483647\n";
        let r = read_eva_report(text).unwrap();
        assert_eq!(r.len(), 2);
        assert!(r[0].proved() && !r[1].proved());
        assert_eq!((r[1].line, r[1].kind.as_str()), (6, "signed_overflow"));
        assert!(read_eva_report("h\nx\ty\n").is_err());
    }
}
