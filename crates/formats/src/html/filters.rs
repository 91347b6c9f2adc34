//! The filter bar over the goal table: a box per verdict, the goal kinds
//! and functions, a search box over goals and tests, with its style and
//! the script that drives it.
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

/// The filter bar's style: it stays in view while the goal table scrolls.
pub(super) const STYLE: &str = "#filters{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd;z-index:1}\
#filters label{margin-right:.8em;white-space:nowrap}#filters input[type=search]{width:18em}#shown{color:#666;margin-left:.5em}";

/// The filters' script, run after the page's own: the bar hides the goal
/// rows whose verdict is unticked, whose kind or function is not the one
/// chosen, or whose text does not hold the search words, and the test
/// rows that do not hold them; a function's name in the function table
/// chooses it; a link to a hidden row clears the filters. Errors reach the
/// page's `data-script-error`; `data-shown` (`GOALS/TESTS` shown) is set
/// after each filtering and `data-filters` once the bar works, for
/// headless checks.
pub(super) const SCRIPT: &str = "(function(){var bar=document.getElementById('filters');if(!bar)return;\
var all=function(s){return [].slice.call(document.querySelectorAll(s))},\
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
if(r&&r.hidden){clear();r.scrollIntoView()}});apply();document.body.setAttribute('data-filters','1')})();";

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
