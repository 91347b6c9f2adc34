//! The report's function view: one row per function with its goals by
//! verdict and the share covered, as genhtml's function table gives line
//! and branch counts per function.
//!
//! Why: in a program of 2,000 goals the question is usually "which
//! functions did it not get into", which neither the summary (one number)
//! nor the goal table (one row per goal) answers at a glance. Functions
//! come in source order (their first goal's place), so the table reads
//! like the file; a function's name links to its first line and its goals
//! are one click away (the goal table's search).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{esc, location_line, place, SourceFile};
use crate::report::{GoalEntry, Report};

/// The table's style: counts in the verdicts' colours, a stacked bar.
pub(super) const STYLE: &str =
    ".nc{color:#2e8b3e}.nu{color:#3c64c8}.ni{color:#a87400}.no{color:#c83c3c;font-weight:600}\
.bar{display:inline-flex;width:8em;height:.8em;background:#eee;border-radius:2px;overflow:hidden;vertical-align:middle}\
.bar .k{border-radius:0;height:100%}";

/// One function's goals by verdict.
#[derive(Default)]
struct Row<'a> {
    first: Option<&'a GoalEntry>,
    /// covered, unreachable, infeasible, open.
    counts: [usize; 4],
}

fn verdict_index(status: &str) -> usize {
    match status {
        "covered" => 0,
        "unreachable" => 1,
        "infeasible" => 2,
        _ => 3,
    }
}

/// The functions of `goals` in source order (file, then line), with
/// their counts.
fn rows(goals: &[GoalEntry]) -> Vec<(&str, Row<'_>)> {
    let mut by_name: BTreeMap<&str, Row<'_>> = BTreeMap::new();
    for g in goals {
        let row = by_name.entry(g.function.as_str()).or_default();
        row.counts[verdict_index(&g.status)] += 1;
        let earlier = |a: &GoalEntry, b: &GoalEntry| {
            let key = |g: &GoalEntry| location_line(&g.location).map(|(f, l)| (f.to_string(), l));
            key(a) < key(b)
        };
        if row.first.is_none_or(|f| earlier(g, f)) {
            row.first = Some(g);
        }
    }
    let mut out: Vec<(&str, Row<'_>)> = by_name.into_iter().collect();
    let order = |r: &Row<'_>| r.first.and_then(|g| location_line(&g.location)).map(|(f, l)| (f.to_string(), l));
    out.sort_by(|a, b| order(&a.1).cmp(&order(&b.1)).then(a.0.cmp(b.0)));
    out
}

/// A location's link to its line as `file.c:12` (the file's name without
/// its directory: the column is narrow, the goal table has the rest).
fn short_place(location: &str, files: &[SourceFile]) -> String {
    match location_line(location) {
        Some((file, line)) => {
            let name = std::path::Path::new(file).file_name().map_or(file.into(), |n| n.to_string_lossy());
            place(location, files).replace(&format!(">{}<", esc(location)), &format!(">{}:{line}<", esc(&name)))
        }
        None => place(location, files),
    }
}

/// The section: a table of every function that has goals.
pub(super) fn function_section(out: &mut String, report: &Report, files: &[SourceFile]) {
    let rows = rows(&report.goals);
    let _ = write!(
        out,
        "<h2>Functions ({})</h2><div class=\"cv-auto\"><table id=\"functions\" class=\"t\"><tr><th>function</th><th>first goal</th>\
<th class=\"num\">goals</th><th class=\"num\">covered</th><th class=\"num\">unreachable</th><th class=\"num\">infeasible</th>\
<th class=\"num\">open</th><th class=\"num\">covered %</th><th>by verdict</th></tr>",
        rows.len()
    );
    for (name, row) in rows {
        let total: usize = row.counts.iter().sum();
        let pct = |n: usize| if total == 0 { 0.0 } else { 100.0 * n as f64 / total as f64 };
        let where_ = row.first.map_or(String::new(), |g| short_place(&g.location, files));
        let _ = write!(
            out,
            "<tr class=\"func\" data-function=\"{n}\"><td><a href=\"#goals\" class=\"fn\" data-function=\"{n}\">{n}</a></td><td>{where_}</td><td class=\"num\">{total}</td>",
            n = esc(name)
        );
        for (k, class) in ["c", "u", "i", "o"].iter().enumerate() {
            let n = row.counts[k];
            let _ =
                write!(out, "<td class=\"num{}\">{n}</td>", if n > 0 { format!(" n{class}") } else { String::new() });
        }
        let _ = write!(out, "<td class=\"num\">{:.1}%</td><td><span class=\"bar\">", pct(row.counts[0]));
        for (k, class) in ["c", "u", "i", "o"].iter().enumerate() {
            if row.counts[k] > 0 {
                let _ = write!(out, "<span class=\"k {class}\" style=\"width:{:.1}%\"></span>", pct(row.counts[k]));
            }
        }
        out.push_str("</span></td></tr>");
    }
    out.push_str("</table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(function: &str, line: usize, status: &str) -> GoalEntry {
        GoalEntry {
            function: function.into(),
            location: format!("p.c:{line}:3"),
            status: status.into(),
            ..Default::default()
        }
    }

    #[test]
    fn functions_come_in_source_order_with_their_counts() {
        let report = Report {
            goals: vec![
                goal("main", 20, "covered"),
                goal("helper", 5, "open"),
                goal("main", 22, "unreachable"),
                goal("helper", 4, "covered"),
                goal("main", 21, "covered"),
            ],
            ..Default::default()
        };
        let files = [SourceFile { name: "p.c".into(), text: Some("\n".repeat(30)) }];
        let mut page = String::new();
        function_section(&mut page, &report, &files);
        let helper = page.find("data-function=\"helper\"").unwrap();
        let main = page.find("data-function=\"main\"").unwrap();
        assert!(helper < main, "helper starts on line 4, main on line 20");
        assert!(page.contains("<h2>Functions (2)</h2>"));
        assert!(page.contains(
            "<td><a href=\"#L20\">p.c:20</a></td><td class=\"num\">3</td><td class=\"num nc\">2</td><td class=\"num nu\">1</td>\
<td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">66.7%</td>"
        ));
    }
}
