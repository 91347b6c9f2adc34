//! Preconditions written in the source as ACSL function contracts (the
//! annotation language of Frama-C, whose EVA walkdown already runs):
//! a `/*@ … */` comment right before a function's declaration or
//! definition, with `requires` clauses. Unit mode reads the subset a C
//! harness can act on:
//!
//! - `requires \valid(p);` or `\valid_read(p)`: `p` is not NULL;
//! - `requires \valid(p + (0 .. n-1));` (or `\valid_read`, or `(0 .. K)`
//!   for a number `K`): `p` points to `n` (or `K + 1`) elements;
//! - `requires E;` where `E` is a C expression over the parameters
//!   (`\null`, `\true` and `\false` may appear): a precondition;
//! - a clause joined by `&&` is read as its conjuncts.
//!
//! Other clauses (`assigns`, `ensures`, …) are not preconditions and are
//! skipped; a `requires` with other ACSL constructs (`\separated`, `==>`,
//! quantifiers) is kept as [`AcslClause::NotUnderstood`], which the
//! contract reports and otherwise ignores.

/// One precondition of an ACSL contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AcslClause {
    /// `\valid(p)`: the parameter is not NULL.
    Valid(String),
    /// `\valid(p + (0 .. n-1))`: the parameter points to that many
    /// elements (a parameter's name or a number).
    ValidRange(String, String),
    /// A C expression.
    Requires(String),
    /// A `requires` clause unit mode does not understand (its text).
    NotUnderstood(String),
}

/// The contract of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcslContract {
    /// The function it is written before.
    pub function: String,
    /// The line of the `/*@`.
    pub line: u32,
    /// Its preconditions.
    pub clauses: Vec<AcslClause>,
}

/// Every ACSL function contract of `text`.
pub fn contracts(text: &str) -> Vec<AcslContract> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = text[at..].find("/*@").map(|i| at + i) {
        let Some(end) = text[start..].find("*/").map(|i| start + i) else { break };
        at = end + 2;
        let Some(function) = function_after(&text[at..]) else { continue };
        let line = text[..start].matches('\n').count() as u32 + 1;
        let body = strip_line_marks(&text[start + 3..end]);
        let mut clauses = Vec::new();
        for statement in body.split(';') {
            let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
            let Some(expr) = statement.strip_prefix("requires ") else { continue };
            for conjunct in split_and(expr) {
                clauses.push(clause(conjunct.trim()));
            }
        }
        if !clauses.is_empty() {
            found.push(AcslContract { function, line, clauses });
        }
    }
    found
}

/// ACSL lets each line of a multi-line annotation start with `@`.
fn strip_line_marks(body: &str) -> String {
    body.lines().map(|l| l.trim_start().trim_start_matches('@')).collect::<Vec<_>>().join("\n")
}

/// The name of the function whose declaration follows (the identifier
/// before the first `(`), if a function's declaration follows.
fn function_after(text: &str) -> Option<String> {
    let text = text.trim_start();
    let stop = text.find(['(', ';', '{', '='])?;
    if text.as_bytes()[stop] != b'(' {
        return None;
    }
    let before = text[..stop].trim_end();
    let name: String = before.chars().rev().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let name: String = name.chars().rev().collect();
    (!name.is_empty()).then_some(name)
}

/// `e` split at its top-level `&&`.
fn split_and(e: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let b = e.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'&' if depth == 0 && b.get(i + 1) == Some(&b'&') => {
                parts.push(&e[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&e[start..]);
    parts
}

fn clause(e: &str) -> AcslClause {
    let inner =
        e.strip_prefix("\\valid_read(").or_else(|| e.strip_prefix("\\valid(")).and_then(|r| r.strip_suffix(')'));
    if let Some(inner) = inner {
        let inner = inner.trim();
        if is_identifier(inner) {
            return AcslClause::Valid(inner.to_string());
        }
        if let Some((p, range)) = inner.split_once('+') {
            let range = range.trim().trim_start_matches('(').trim_end_matches(')');
            if let Some(upper) = range.trim().strip_prefix('0').and_then(|r| r.trim_start().strip_prefix("..")) {
                let upper = upper.trim();
                let count = match upper.strip_suffix("- 1").or_else(|| upper.strip_suffix("-1")) {
                    Some(n) if is_identifier(n.trim()) => Some(n.trim().to_string()),
                    _ => upper.parse::<u64>().ok().map(|k| (k + 1).to_string()),
                };
                if let (true, Some(n)) = (is_identifier(p.trim()), count) {
                    return AcslClause::ValidRange(p.trim().to_string(), n);
                }
            }
        }
        return AcslClause::NotUnderstood(e.to_string());
    }
    let c = e.replace("\\null", "((void *)0)").replace("\\true", "1").replace("\\false", "0");
    if c.contains('\\') || c.contains("==>") || c.contains("<==>") {
        AcslClause::NotUnderstood(e.to_string())
    } else {
        AcslClause::Requires(c)
    }
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requires_clauses_before_a_function() {
        let text = "/* plain */\n/*@ requires \\valid(p);\n  @ requires \\valid_read(s + (0 .. n-1)) && n <= 16;\n  @ requires \\valid(t + (0..7));\n  @ assigns *p;\n  @ requires \\separated(p, s);\n  @ requires q != \\null;\n*/\nint f(int *p, const char *s, unsigned n, char *t, int *q);\n/*@ requires x > 0; */ int g;\n";
        let c = contracts(text);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].function, "f");
        assert_eq!(c[0].line, 2);
        assert_eq!(
            c[0].clauses,
            [
                AcslClause::Valid("p".into()),
                AcslClause::ValidRange("s".into(), "n".into()),
                AcslClause::Requires("n <= 16".into()),
                AcslClause::ValidRange("t".into(), "8".into()),
                AcslClause::NotUnderstood("\\separated(p, s)".into()),
                AcslClause::Requires("q != ((void *)0)".into()),
            ]
        );
    }
}
