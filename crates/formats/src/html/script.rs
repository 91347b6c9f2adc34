//! The page's style and script, and the controls the script drives (the
//! filter bar over the goal table).
//!
//! Why one small script and no framework: the page must open from a file
//! with no network, load fast with thousands of goals, and read the same
//! without script. Each control changes one attribute per row (`hidden`);
//! the rows carry what the filters test (`data-verdict`, `data-kind`,
//! `data-function`), so nothing is re-rendered and the row text is read
//! once, on the first search.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::esc;
use crate::report::Report;

pub(super) const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 2em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}\
.t td,.t th{border-bottom:1px solid #eee}.num{text-align:right;white-space:nowrap}\
code,pre,.src{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}\
.src{width:100%;table-layout:fixed}.src td{padding:0 6px;white-space:pre;overflow:hidden}\
.src td.n{width:4em;text-align:right;color:#888;user-select:none}.src td.m{width:12em;white-space:normal}\
tr.c td.s{background:#e6f6e6}tr.u td.s{background:#e8eefc}tr.i td.s{background:#fdf3d6}tr.o td.s{background:#fbe3e3}\
a.g{display:inline-block;border-radius:3px;padding:0 4px;margin:1px;font-size:11px;text-decoration:none;color:#fff}\
a.g.c,.k.c{background:#2e8b3e}a.g.u,.k.u{background:#3c64c8}a.g.i,.k.i{background:#c89016}a.g.o,.k.o{background:#c83c3c}\
.pair{display:flex;flex-wrap:wrap;gap:0 3em;align-items:flex-start}#summary{max-width:46em}.k{display:inline-block;width:.8em;height:.8em;border-radius:2px}\
.nc{color:#2e8b3e}.nu{color:#3c64c8}.ni{color:#a87400}.no{color:#c83c3c;font-weight:600}\
.bar{display:inline-flex;width:8em;height:.8em;background:#eee;border-radius:2px;overflow:hidden;vertical-align:middle}\
.bar .k{border-radius:0;height:100%}\
#panel{position:fixed;right:1em;top:1em;max-width:36em;max-height:80vh;overflow:auto;background:#fff;border:1px solid #999;\
box-shadow:0 2px 10px #0003;padding:.6em 1em;display:none}#panel.on{display:block}#panel table{font-size:13px}#panel td{white-space:normal;overflow-wrap:anywhere}\
dl.fig{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:0 .8em}dl.fig dt{color:#666}dl.fig dd{margin:0}\
details.raw summary{color:#666;cursor:pointer;font-size:12px}details.raw code{font-size:12px}\
svg .ax{stroke:#444}svg .grid{stroke:#ddd}svg .lb{font-size:11px;fill:#444}svg .ttl{font-size:12px;fill:#222}\
svg .band{stroke:none;fill-opacity:.8}svg .band.c{fill:#2e8b3e}svg .band.u{fill:#3c64c8}svg .band.i{fill:#c89016}svg .band.o{fill:#c83c3c;fill-opacity:.25}\
#filters{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd;z-index:1}\
#filters label{margin-right:.8em;white-space:nowrap}#filters input[type=search]{width:18em}#shown{color:#666;margin-left:.5em}\
tr:target{outline:2px solid #f90}\
.cv-auto{content-visibility:auto;contain-intrinsic-size:auto 2000px}";

/// The page's script: a click on a goal's mark shows the goal's row of the
/// goal table and, for a covered goal, its test's row (inputs, command) in a
/// panel, one field a line; the filter bar hides the goal rows whose
/// verdict is unticked, whose kind or function is not the one chosen, or
/// whose text does not hold the search words, and the test rows that do not
/// hold them; a function's name in the function table chooses it; a link to
/// a hidden row clears the filters. Errors are written into
/// `data-script-error` of `<body>`, `data-ready` is set when it has run,
/// and `data-shown` (`GOALS/TESTS` shown) after each filtering, for
/// headless checks.
pub(super) const SCRIPT: &str = "window.addEventListener('error',function(e){document.body.setAttribute('data-script-error',String(e.message))});\
(function(){var p=document.getElementById('panel');\
function kv(id,table){var r=document.getElementById(id);if(!r)return '';\
var hs=document.querySelectorAll('#'+table+' tr:first-child th'),h='<table>';\
for(var i=0;i<r.cells.length;i++)h+='<tr><th>'+(hs[i]?hs[i].textContent:'')+'</th><td>'+r.cells[i].innerHTML+'</td></tr>';return h+'</table>'}\
document.addEventListener('click',function(e){var a=e.target.closest('a.g');\
if(!a){if(!e.target.closest('#panel'))p.className='';return}e.preventDefault();\
var t=a.getAttribute('data-test'),h='<p><b>'+a.title+'</b></p>'+kv(a.getAttribute('href').slice(1),'goals');\
if(t)h+='<p><b>covering test</b></p>'+kv(t,'tests');p.innerHTML=h;p.className='on'});\
var bar=document.getElementById('filters');\
if(bar){var all=function(s){return [].slice.call(document.querySelectorAll(s))},\
goals=all('#goals tr.goal'),tests=all('#tests tr.test'),boxes=all('#filters input[name=verdict]'),\
kind=document.getElementById('kind'),fn=document.getElementById('function'),q=document.getElementById('search'),\
shown=document.getElementById('shown'),text=function(r){return r._t||(r._t=r.textContent.toLowerCase())};\
var apply=function(){var on={},k=kind.value,f=fn.value,s=q.value.trim().toLowerCase(),ng=0,nt=0;\
boxes.forEach(function(b){on[b.value]=b.checked});\
goals.forEach(function(r){var v=on[r.getAttribute('data-verdict')]&&(!k||r.getAttribute('data-kind')==k)\
&&(!f||r.getAttribute('data-function')==f)&&(!s||text(r).indexOf(s)>=0);r.hidden=!v;if(v)ng++});\
tests.forEach(function(r){var v=!s||text(r).indexOf(s)>=0;r.hidden=!v;if(v)nt++});\
shown.textContent=ng+' of '+goals.length+' goals and '+nt+' of '+tests.length+' tests shown';\
document.body.setAttribute('data-shown',ng+'/'+nt)};\
var clear=function(){boxes.forEach(function(b){b.checked=true});kind.value='';fn.value='';q.value='';apply()};\
bar.addEventListener('input',apply);bar.addEventListener('change',apply);\
bar.addEventListener('submit',function(e){e.preventDefault()});\
document.getElementById('clear').addEventListener('click',function(e){e.preventDefault();clear()});\
document.addEventListener('click',function(e){var a=e.target.closest('a.fn');if(!a)return;\
fn.value=a.getAttribute('data-function');apply()});\
window.addEventListener('hashchange',function(){var r=document.getElementById(location.hash.slice(1));\
if(r&&r.hidden){clear();r.scrollIntoView()}});apply()}\
document.body.setAttribute('data-ready','1')})();";

/// The family of a goal kind the kind filter offers: `branch`, `case`,
/// `default`, or an error kind whole (`error div_by_zero`).
pub(super) fn kind_family(kind: &str) -> &str {
    if kind.starts_with("error ") {
        kind
    } else {
        kind.split_whitespace().next().unwrap_or(kind)
    }
}

/// The filter bar: a box per verdict (with its count), the kinds and the
/// functions of the goals, a search box over goals and tests, and what
/// is shown.
pub(super) fn filter_bar(out: &mut String, report: &Report) {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut functions: BTreeMap<&str, usize> = BTreeMap::new();
    for g in &report.goals {
        *kinds.entry(kind_family(&g.kind)).or_default() += 1;
        *functions.entry(g.function.as_str()).or_default() += 1;
    }
    out.push_str("<form id=\"filters\" role=\"search\">");
    for (verdict, class) in [("covered", "c"), ("unreachable", "u"), ("infeasible", "i"), ("open", "o")] {
        let n = report.goals.iter().filter(|g| g.status == verdict).count();
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" name=\"verdict\" value=\"{verdict}\" checked> <span class=\"k {class}\"></span> {verdict} ({n})</label>"
        );
    }
    let options = |out: &mut String, id: &str, all: &str, items: &BTreeMap<&str, usize>| {
        let _ = write!(out, "<label>{id} <select id=\"{id}\"><option value=\"\">{all}</option>");
        for (item, n) in items {
            let _ = write!(out, "<option value=\"{v}\">{v} ({n})</option>", v = esc(item));
        }
        out.push_str("</select></label>");
    };
    options(out, "kind", "every kind", &kinds);
    options(out, "function", "every function", &functions);
    out.push_str(
        "<label><input type=\"search\" id=\"search\" placeholder=\"search goals and tests\" aria-label=\"search goals and tests\"></label>\
<a href=\"#goals\" id=\"clear\">show all</a><span id=\"shown\"></span></form>",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::GoalEntry;

    #[test]
    fn the_bar_offers_each_verdict_kind_and_function_once() {
        let goal = |kind: &str, function: &str, status: &str| GoalEntry {
            kind: kind.into(),
            function: function.into(),
            status: status.into(),
            ..Default::default()
        };
        let report = Report {
            goals: vec![
                goal("branch true", "main", "covered"),
                goal("branch false", "main", "open"),
                goal("case 3", "f<x>", "open"),
                goal("error div_by_zero", "main", "unreachable"),
            ],
            ..Default::default()
        };
        let mut bar = String::new();
        filter_bar(&mut bar, &report);
        assert!(bar.contains("value=\"open\" checked> <span class=\"k o\"></span> open (2)</label>"));
        assert!(bar.contains("<option value=\"branch\">branch (2)</option><option value=\"case\">case (1)</option>"));
        assert!(bar.contains("<option value=\"error div_by_zero\">error div_by_zero (1)</option>"));
        assert!(bar.contains("<option value=\"f&lt;x&gt;\">f&lt;x&gt; (1)</option>"));
        assert!(bar.contains("id=\"search\""));
    }
}
