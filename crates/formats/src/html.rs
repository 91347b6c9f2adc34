//! `report/index.html`: the verdict report a person reads, built from a
//! `report.json` (and the program's source and the suite's tests).
//!
//! One self-contained page (inline CSS and a few lines of inline script, no
//! network): a summary (goals by verdict, coverage, errors), each engine's
//! figures grouped and in words ([`engines`]), goals by verdict over time
//! as an inline SVG plot ([`plot`]), the error list with the command that
//! reproduces each error, the functions with their goals by verdict
//! ([`functions`]), the source (each of the program's files) with each
//! line's goals marked by verdict (clicking a mark shows the goal's
//! evidence: for a covered goal the test with its input values, for a
//! proof the engine and method, for a bounded proof the bound, for an open
//! goal the reasons), then every goal and every test as plain tables, which
//! the marks link to. Above the goal table, filters by verdict, kind and
//! function and a search box over goals and tests ([`filters`]; the page
//! reads the same without its script, the filters then do nothing). Each
//! section's module brings its own style.
//!
//! The page stays lean for large programs: one table row per source line,
//! no per-line script, and the goal details only once, in the goal table;
//! the filters hide rows through one attribute each, no re-rendering.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::atomic::write_atomically;
use crate::report::{GoalEntry, Report};
use crate::FormatError;

mod engines;
mod filters;
mod functions;
mod plot;

pub use plot::verdicts_over_time;

/// What the page shows of one test beyond `report.json`.
#[derive(Clone, Debug, Default)]
pub struct TestDetails {
    /// Its input values, spelled as in the test file; `None` when the file
    /// could not be read.
    pub inputs: Option<Vec<String>>,
    /// The shell command that replays it.
    pub reproduce: String,
}

/// One of the program's files.
#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    /// Its name, as locations give it.
    pub name: String,
    /// Its text, `None` when it cannot be read (the page then lists its
    /// goals without the source).
    pub text: Option<String>,
}

/// Everything the page is built from.
pub struct HtmlInput<'a> {
    /// The run's report.
    pub report: &'a Report,
    /// The program's files (its first file first), each shown with its
    /// goals.
    pub sources: &'a [SourceFile],
    /// Per test file name, its inputs and reproduce command.
    pub tests: &'a BTreeMap<String, TestDetails>,
}

/// The verdict classes, in the order a line's colour prefers them (a line
/// with an open goal is shown open, whatever else it has).
const VERDICTS: [(&str, &str); 4] = [("open", "o"), ("infeasible", "i"), ("unreachable", "u"), ("covered", "c")];

fn class_of(status: &str) -> &'static str {
    VERDICTS.iter().find(|(s, _)| *s == status).map_or("o", |(_, c)| c)
}

/// `text` escaped for HTML text and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// An anchor id made of `prefix` and `name` (any character not safe in an
/// id or a URL fragment becomes `_`).
fn anchor(prefix: &str, name: &str) -> String {
    let mut out = String::from(prefix);
    out.extend(name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }));
    out
}

/// `(file, line)` of a `file:line:col` location (file names may hold colons).
pub fn location_line(location: &str) -> Option<(&str, usize)> {
    let mut parts = location.rsplitn(3, ':');
    let (c, l, f) = (parts.next()?, parts.next(), parts.next());
    match (f, l) {
        (Some(f), Some(l)) if c.parse::<u64>().is_ok() => Some((f, l.parse().ok()?)),
        _ => {
            let mut parts = location.rsplitn(2, ':');
            let (l, f) = (parts.next()?, parts.next()?);
            Some((f, l.parse().ok()?))
        }
    }
}

/// The short mark of a goal kind on its line (`T`, `F`, `case 3`, `div_by_zero`).
fn mark(kind: &str) -> &str {
    match kind {
        "branch true" => "T",
        "branch false" => "F",
        k => k.strip_prefix("error ").unwrap_or(k),
    }
}

/// The evidence of a goal's verdict, in words.
fn evidence(g: &GoalEntry) -> String {
    match g.status.as_str() {
        "covered" => match &g.test {
            Some(t) => format!("covered by <a href=\"#{}\">{}</a>", anchor("t-", t), esc(t)),
            None => "covered".into(),
        },
        "unreachable" => format!("proved unreachable: {}", esc(g.proved_by.as_deref().unwrap_or("(proof not named)"))),
        "infeasible" => {
            format!("infeasible within a bound: {}", esc(g.proved_by.as_deref().unwrap_or("(bound not named)")))
        }
        _ => format!("open: {}", esc(&g.open_reasons.join("; "))),
    }
}

/// Which of the program's `files` a location's `goal_file` names: the
/// same path, or else the one file of the same file name (one of them may
/// be relative to another directory).
fn file_index(goal_file: &str, files: &[SourceFile]) -> Option<usize> {
    if let Some(k) = files.iter().position(|f| f.name == goal_file) {
        return Some(k);
    }
    let base = Path::new(goal_file).file_name();
    let same: Vec<usize> = (0..files.len()).filter(|&k| Path::new(&files[k].name).file_name() == base).collect();
    match same[..] {
        [k] => Some(k),
        _ => None,
    }
}

/// The anchor of line `line` of file `k` (`L12`, `F1L12`).
fn line_anchor(k: usize, line: usize) -> String {
    if k == 0 {
        format!("L{line}")
    } else {
        format!("F{k}L{line}")
    }
}

/// A location's link to its line on the page, when its file is shown.
fn place(location: &str, files: &[SourceFile]) -> String {
    let shown = location_line(location).and_then(|(f, l)| Some((file_index(f, files)?, l)));
    match shown {
        Some((k, l)) if files[k].text.is_some() => {
            format!("<a href=\"#{}\">{}</a>", line_anchor(k, l), esc(location))
        }
        _ => esc(location),
    }
}

/// A figure as a person reads it: whole numbers and figures of 100 or
/// more without decimals, others with two or three.
fn figure(v: f64) -> String {
    if (v.fract() == 0.0 && v.abs() < 1e15) || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Seconds, to a precision that suits their size.
fn seconds(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1} s")
    } else {
        format!("{s:.3} s")
    }
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 2em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}\
.t td,.t th{border-bottom:1px solid #eee}.num{text-align:right;white-space:nowrap}\
code,pre,.src{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}\
.src{width:100%;table-layout:fixed}.src td{padding:0 6px;white-space:pre;overflow:hidden}\
.src td.n{width:4em;text-align:right;color:#888;user-select:none}.src td.m{width:12em;white-space:normal}\
tr.c td.s{background:#e6f6e6}tr.u td.s{background:#e8eefc}tr.i td.s{background:#fdf3d6}tr.o td.s{background:#fbe3e3}\
a.g{display:inline-block;border-radius:3px;padding:0 4px;margin:1px;font-size:11px;text-decoration:none;color:#fff}\
a.g.c,.k.c{background:#2e8b3e}a.g.u,.k.u{background:#3c64c8}a.g.i,.k.i{background:#c89016}a.g.o,.k.o{background:#c83c3c}\
.k{display:inline-block;width:.8em;height:.8em;border-radius:2px}\
.pair{display:flex;flex-wrap:wrap;gap:0 3em;align-items:flex-start}#summary{max-width:46em}\
#panel{position:fixed;right:1em;top:1em;max-width:36em;max-height:80vh;overflow:auto;background:#fff;border:1px solid #999;\
box-shadow:0 2px 10px #0003;padding:.6em 1em;display:none}#panel.on{display:block}#panel table{font-size:13px}#panel td{white-space:normal;overflow-wrap:anywhere}\
svg .ax{stroke:#444}svg .lb{font-size:11px;fill:#444}\
tr:target{outline:2px solid #f90}\
.cv-auto{content-visibility:auto;contain-intrinsic-size:auto 2000px}";

/// The page's script: a click on a goal's mark shows the goal's row of the
/// goal table and, for a covered goal, its test's row (inputs, command) in a
/// panel, one field a line. Errors are written into `data-script-error` of `<body>`, and
/// `data-ready` is set when it has run, for headless checks.
const SCRIPT: &str = "window.addEventListener('error',function(e){document.body.setAttribute('data-script-error',String(e.message))});\
(function(){var p=document.getElementById('panel');\
function kv(id,table){var r=document.getElementById(id);if(!r)return '';\
var hs=document.querySelectorAll('#'+table+' tr:first-child th'),h='<table>';\
for(var i=0;i<r.cells.length;i++)h+='<tr><th>'+(hs[i]?hs[i].textContent:'')+'</th><td>'+r.cells[i].innerHTML+'</td></tr>';return h+'</table>'}\
document.addEventListener('click',function(e){var a=e.target.closest('a.g');\
if(!a){if(!e.target.closest('#panel'))p.className='';return}e.preventDefault();\
var t=a.getAttribute('data-test'),h='<p><b>'+a.title+'</b></p>'+kv(a.getAttribute('href').slice(1),'goals');\
if(t)h+='<p><b>covering test</b></p>'+kv(t,'tests');p.innerHTML=h;p.className='on'});\
document.body.setAttribute('data-ready','1')})();";

/// The HTML page of `input`.
pub fn render_html(input: &HtmlInput<'_>) -> String {
    let r = input.report;
    let text_size: usize = input.sources.iter().filter_map(|f| f.text.as_ref()).map(String::len).sum();
    let mut out = String::with_capacity(64 * 1024 + text_size * 3);
    let title = format!("walkdown: {}", r.program);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}{}{}{}{}</style></head><body>",
        esc(&title),
        engines::STYLE,
        plot::STYLE,
        functions::STYLE,
        filters::STYLE
    );
    let _ = write!(out, "<h1>{}</h1><div id=\"panel\"></div>", esc(&title));

    // Summary.
    let total = r.goals.len();
    let count = |s: &str| r.goals.iter().filter(|g| g.status == s).count();
    let pct = |n: usize| if total == 0 { 0.0 } else { 100.0 * n as f64 / total as f64 };
    let branches: Vec<&GoalEntry> = r.goals.iter().filter(|g| !g.kind.starts_with("error")).collect();
    let branches_covered = branches.iter().filter(|g| g.status == "covered").count();
    out.push_str("<h2>Summary</h2><div class=\"pair\"><table id=\"summary\" class=\"t\">");
    for (k, v) in [
        ("program", r.program.clone()),
        ("producer", r.producer.clone()),
        ("property", r.property.clone()),
        ("data model", r.data_model.clone()),
        ("search", r.search.clone()),
        ("seed", r.seed.to_string()),
        ("environment", r.environment.clone().unwrap_or_else(|| "none (no arguments, no input)".into())),
        (
            "status",
            if r.stop_reason.is_empty() || r.stop_reason == r.status {
                r.status.clone()
            } else {
                format!("{} ({})", r.status, r.stop_reason)
            },
        ),
        ("elapsed", seconds(r.elapsed_s)),
    ] {
        let _ = write!(out, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
    }
    out.push_str("</table><table id=\"verdicts\" class=\"t\"><tr><th>verdict</th><th class=\"num\">goals</th><th class=\"num\">share</th></tr>");
    for (status, class) in [("covered", "c"), ("unreachable", "u"), ("infeasible", "i"), ("open", "o")] {
        let n = count(status);
        let _ = write!(
            out,
            "<tr data-verdict=\"{status}\"><td><span class=\"k {class}\"></span> {status}</td><td class=\"num\">{n}</td><td class=\"num\">{:.1}%</td></tr>",
            pct(n)
        );
    }
    let settled = count("covered") + count("unreachable");
    let _ = write!(
        out,
        "<tr><th>all goals</th><td class=\"num\" id=\"goal-count\">{total}</td><td></td></tr>\
<tr><td>settled (covered or unreachable)</td><td class=\"num\">{settled}</td><td class=\"num\">{:.1}%</td></tr>\
<tr><td>branch and case outcomes covered</td><td class=\"num\">{branches_covered} of {}</td><td class=\"num\">{:.1}%</td></tr>\
<tr><td>tests</td><td class=\"num\">{}</td><td></td></tr><tr><td>errors</td><td class=\"num\">{}</td><td></td></tr>\
<tr><td>proof conflicts</td><td class=\"num\">{}</td><td></td></tr></table></div>",
        pct(settled),
        branches.len(),
        if branches.is_empty() { 0.0 } else { 100.0 * branches_covered as f64 / branches.len() as f64 },
        r.tests.len(),
        r.errors.len(),
        r.proof_conflicts.len()
    );

    engines::engine_section(&mut out, r);

    // Goals by verdict over time.
    let end = r.elapsed_s.max(r.tests.iter().map(|t| t.found_at_s).fold(0.0, f64::max));
    let series = verdicts_over_time(r, end);
    out.push_str("<h2>Goals by verdict over time</h2>");
    out.push_str(&plot::plot(&series, total));
    out.push_str(&plot::legend(&series));

    // Errors.
    let _ = write!(out, "<h2>Errors ({})</h2>", r.errors.len());
    if r.errors.is_empty() {
        out.push_str("<p id=\"errors\">No test reaches an error.</p>");
    } else {
        out.push_str(
            "<table id=\"errors\" class=\"t\"><tr><th>error</th><th>where</th><th>test</th><th>native run</th><th>reproduce</th></tr>",
        );
        for e in &r.errors {
            let place = place(&e.location, input.sources);
            let reproduce = input.tests.get(&e.test).map_or(String::new(), |t| t.reproduce.clone());
            let _ = write!(
                out,
                "<tr class=\"err\"><td>{}</td><td>{place}</td><td><a href=\"#{}\">{}</a></td><td>{}</td><td><code>{}</code></td></tr>",
                esc(&e.kind),
                anchor("t-", &e.test),
                esc(&e.test),
                esc(&e.native_words()),
                esc(&reproduce)
            );
        }
        out.push_str("</table>");
    }
    if !r.proof_conflicts.is_empty() {
        out.push_str("<h2>Proof conflicts</h2><table id=\"conflicts\" class=\"t\"><tr><th>goal</th><th>proof</th><th>test</th></tr>");
        for c in &r.proof_conflicts {
            let _ = write!(
                out,
                "<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td><a href=\"#{}\">{}</a></td></tr>",
                anchor("g-", &c.goal),
                esc(&c.goal),
                esc(&c.proof),
                anchor("t-", &c.test),
                esc(&c.test)
            );
        }
        out.push_str("</table>");
    }

    functions::function_section(&mut out, r, input.sources);

    // Source, each line with its goals.
    let mut by_line: Vec<BTreeMap<usize, Vec<&GoalEntry>>> = vec![BTreeMap::new(); input.sources.len()];
    let mut elsewhere = 0;
    for g in &r.goals {
        match location_line(&g.location).and_then(|(f, l)| Some((file_index(f, input.sources)?, l))) {
            Some((k, l)) => by_line[k].entry(l).or_default().push(g),
            None => elsewhere += 1,
        }
    }
    out.push_str("<h2>Source</h2>");
    let legend = "<p><span class=\"k c\"></span> covered <span class=\"k u\"></span> unreachable (proved) \
<span class=\"k i\"></span> infeasible within a bound <span class=\"k o\"></span> open. \
Click a mark for its evidence (T/F: a branch's true/false outcome).</p>";
    if input.sources.iter().any(|f| f.text.is_some()) {
        out.push_str(legend);
    }
    for (k, file) in input.sources.iter().enumerate() {
        if input.sources.len() > 1 {
            let _ = write!(out, "<h3 id=\"{}\">{}</h3>", anchor("file-", &k.to_string()), esc(&file.name));
        }
        let id = if k == 0 { "source".to_string() } else { format!("source-{k}") };
        match &file.text {
            Some(text) => source_table(&mut out, &id, k, text, &by_line[k]),
            None => {
                let _ =
                    write!(out, "<p id=\"{id}\">The source file could not be read; its goals are listed below.</p>");
            }
        }
    }
    if elsewhere > 0 {
        let _ = write!(out, "<p>{elsewhere} goals lie in other files (listed below).</p>");
    }

    // Goals.
    let _ = write!(out, "<h2>Goals ({total})</h2>");
    filters::filter_bar(&mut out, r);
    let _ = write!(out, "<div class=\"cv-auto\"><table id=\"goals\" class=\"t\"><tr><th>goal</th><th>kind</th><th>where</th><th>function</th><th>verdict</th></tr>");
    for g in &r.goals {
        let place = place(&g.location, input.sources);
        let _ = write!(
            out,
            "<tr id=\"{}\" class=\"goal\" data-verdict=\"{}\" data-kind=\"{}\" data-function=\"{}\"><td>{}</td><td>{}</td><td>{place}</td><td>{}</td><td><span class=\"k {}\"></span> {}</td></tr>",
            anchor("g-", &g.id),
            esc(&g.status),
            esc(filters::kind_family(&g.kind)),
            esc(&g.function),
            esc(&g.id),
            esc(&g.kind),
            esc(&g.function),
            class_of(&g.status),
            evidence(g)
        );
    }
    out.push_str("</table></div>");

    // Tests.
    let _ = write!(out, "<h2>Tests ({})</h2><div class=\"cv-auto\"><table id=\"tests\" class=\"t\"><tr><th>test</th><th>engine</th><th class=\"num\">found at</th><th>outcome</th><th class=\"num\">new goals</th><th>inputs</th><th>reproduce</th></tr>", r.tests.len());
    for t in &r.tests {
        let details = input.tests.get(&t.file);
        let inputs = match details.and_then(|d| d.inputs.as_ref()) {
            Some(v) if v.is_empty() => "(none)".to_string(),
            Some(v) => format!("<code>{}</code>", esc(&v.join(", "))),
            None => "(test file not readable)".to_string(),
        };
        let _ = write!(
            out,
            "<tr id=\"{}\" class=\"test\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{inputs}</td><td><code>{}</code></td></tr>",
            anchor("t-", &t.file),
            esc(&t.file),
            esc(&t.engine),
            seconds(t.found_at_s),
            esc(&t.outcome),
            t.new_goals.len(),
            esc(details.map_or("", |d| d.reproduce.as_str()))
        );
    }
    out.push_str("</table></div>");
    let _ = writeln!(out, "<script>{SCRIPT}{}</script></body></html>", filters::SCRIPT);
    out
}

/// The table of one file's `text` (the `k`-th file, table id `id`), each
/// line with the marks of its goals (`goals`, by line).
fn source_table(out: &mut String, id: &str, k: usize, text: &str, goals: &BTreeMap<usize, Vec<&GoalEntry>>) {
    let lines: Vec<&str> = text.lines().collect();
    let _ = write!(out, "<div class=\"cv-auto\"><table id=\"{id}\" class=\"src\" data-lines=\"{}\"><colgroup><col style=\"width:4em\"><col style=\"width:12em\"><col></colgroup>", lines.len());
    let last = lines.len().max(goals.keys().next_back().copied().unwrap_or(0));
    for n in 1..=last {
        let code = lines.get(n - 1).copied().unwrap_or("");
        let marks = goals.get(&n);
        let class =
            marks.map(|gs| VERDICTS.iter().find(|(s, _)| gs.iter().any(|g| g.status == *s)).map_or("o", |(_, c)| *c));
        let row = line_anchor(k, n);
        match class {
            Some(c) => {
                let _ = write!(out, "<tr id=\"{row}\" class=\"{c}\"><td class=\"n\">{n}</td><td class=\"m\">");
            }
            None => {
                let _ = write!(out, "<tr id=\"{row}\"><td class=\"n\">{n}</td><td class=\"m\">");
            }
        }
        for g in marks.into_iter().flatten() {
            let test_attr = match (&g.status[..], &g.test) {
                ("covered", Some(t)) => format!(" data-test=\"{}\"", anchor("t-", t)),
                _ => String::new(),
            };
            let _ = write!(
                out,
                "<a class=\"g {}\" href=\"#{}\" title=\"{} {}: {}\"{test_attr}>{}</a>",
                class_of(&g.status),
                anchor("g-", &g.id),
                esc(&g.id),
                esc(&g.kind),
                esc(&g.status),
                esc(mark(&g.kind))
            );
        }
        let _ = write!(out, "</td><td class=\"s\">{}</td></tr>", esc(code));
    }
    out.push_str("</table></div>");
}

/// Writes the page of `input` to `path` atomically, creating its directory.
pub fn write_html(path: &Path, input: &HtmlInput<'_>) -> Result<(), FormatError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| FormatError::Write { path: dir.to_path_buf(), source })?;
    }
    write_atomically(path, render_html(input).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ErrorEntry, GoalEntry, TestEntry};

    fn goal(id: &str, kind: &str, line: usize, status: &str) -> GoalEntry {
        GoalEntry {
            id: id.into(),
            kind: kind.into(),
            location: format!("dir/p.c:{line}:3"),
            function: "main".into(),
            status: status.into(),
            proved_by: (status == "unreachable" || status == "infeasible")
                .then(|| "bmc: infeasible within unwinding 2".into()),
            open_reasons: if status == "open" { vec!["concolic: budget".into()] } else { vec![] },
            test: (status == "covered").then(|| "test-00000.xml".into()),
        }
    }

    #[test]
    fn every_goal_has_a_mark_and_a_row_and_text_is_escaped() {
        let report = Report {
            program: "dir/p.c".into(),
            goals: vec![
                goal("g0", "branch true", 2, "covered"),
                goal("g1", "branch false", 2, "unreachable"),
                goal("g2", "error div_by_zero", 3, "open"),
                goal("g3", "case 1", 9, "infeasible"),
            ],
            tests: vec![TestEntry {
                file: "test-00000.xml".into(),
                new_goals: vec!["g0".into()],
                found_at_s: 0.5,
                ..Default::default()
            }],
            errors: vec![ErrorEntry {
                kind: "reach_error".into(),
                location: "dir/p.c:3:1".into(),
                test: "test-00000.xml".into(),
                native: "unconfirmed".into(),
                native_outcome: "killed by signal 11 (SIGSEGV) natively (gcc)".into(),
            }],
            elapsed_s: 2.0,
            ..Default::default()
        };
        let mut tests = BTreeMap::new();
        tests.insert(
            "test-00000.xml".to_string(),
            TestDetails {
                inputs: Some(vec!["42".into(), "-1".into()]),
                reproduce: "walkdown run p.c --test 'a b'".into(),
            },
        );
        let src = "int main() {\n  if (x < 3 && y > 2) {\n  return 1/x;\n}\n";
        let sources = [SourceFile { name: "dir/p.c".into(), text: Some(src.into()) }];
        let page = render_html(&HtmlInput { report: &report, sources: &sources, tests: &tests });
        for id in ["g0", "g1", "g2", "g3"] {
            assert!(page.contains(&format!("href=\"#g-{id}\"")), "mark of {id}");
            assert!(page.contains(&format!("<tr id=\"g-{id}\"")), "row of {id}");
        }
        assert!(page.contains("x &lt; 3 &amp;&amp; y &gt; 2"));
        assert!(page.contains("<code>42, -1</code>"));
        assert!(page.contains("walkdown run p.c --test &#39;a b&#39;"));
        // Line 2 has a covered and an unreachable goal: shown by the weaker.
        assert!(page.contains("<tr id=\"L2\" class=\"u\">"));
        assert!(page.contains("<tr id=\"L3\" class=\"o\">"));
        // The goal on line 9 is past the end of the text: the lines run on.
        assert!(page.contains("<tr id=\"L9\" class=\"i\">"));
        assert!(page.contains("<svg id=\"plot\""));
        assert!(page.contains("<td>unconfirmed: killed by signal 11 (SIGSEGV) natively (gcc)</td>"));
        assert!(!page.contains("http://") && !page.contains("https://"), "no network");
    }

    #[test]
    fn each_file_of_the_program_is_shown_with_its_goals() {
        let mut second = goal("g1", "branch true", 2, "covered");
        second.location = "src/other.c:2:5".into();
        let report = Report {
            program: "dir/p.c".into(),
            goals: vec![goal("g0", "branch true", 1, "open"), second],
            ..Default::default()
        };
        let sources = [
            SourceFile { name: "dir/p.c".into(), text: Some("int main() {}\n".into()) },
            SourceFile { name: "src/other.c".into(), text: Some("int f(int x) {\n  if (x) return 1;\n}\n".into()) },
        ];
        let page = render_html(&HtmlInput { report: &report, sources: &sources, tests: &BTreeMap::new() });
        assert!(page.contains("<tr id=\"L1\" class=\"o\">"));
        assert!(page.contains("<tr id=\"F1L2\" class=\"c\">"));
        assert!(page.contains("<a href=\"#F1L2\">src/other.c:2:5</a>"));
        assert!(page.contains("<h3 id=\"file-1\">src/other.c</h3>"));
        assert!(!page.contains("other files"));
    }

    #[test]
    fn locations_give_file_and_line() {
        assert_eq!(location_line("a:b.c:12:5"), Some(("a:b.c", 12)));
        assert_eq!(location_line("x.c:7"), Some(("x.c", 7)));
        assert_eq!(location_line("x.c"), None);
    }
}
