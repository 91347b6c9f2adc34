//! The HTML report: `gen` writes `OUT/report/index.html`, `walkdown report
//! OUT` rebuilds the same page from `report.json`; the page is
//! self-contained and shows every goal (a mark on its source line and a row
//! of the goal table), every test with its inputs, every error with its
//! reproduce command; each engine's figures in words with the raw counters
//! behind a toggle, goals by verdict over time, one row per function.
//! When Debian's `chromium` is installed the page is also rendered
//! headless: its script runs without error, a click on a goal's mark opens
//! the panel with the goal's evidence, and the filters and the search show
//! exactly the rows they should (after ticking "open" alone, the open goals
//! and nothing else), also on the largest public task, where they must stay
//! fast (skipped with a message without chromium or `../shared`; under
//! `WALKDOWN_REQUIRE_SHARED=1` a missing chromium fails).

use std::path::{Path, PathBuf};
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/classify.c")
}

fn gen(program: &Path, out: &Path) -> serde_json::Value {
    let status = walkdown().args(["gen", "--quiet", "--time", "20", "--out"]).arg(out).arg(program).status().unwrap();
    assert!(matches!(status.code(), Some(0 | 1)), "gen failed: {status}");
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn page_shows_every_goal_test_and_error_and_report_rebuilds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let report = gen(&example(), &out);
    let page_path = out.join("report/index.html");
    let page = std::fs::read_to_string(&page_path).expect("gen writes report/index.html");
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    // Self-contained: nothing is fetched.
    for outside in ["<script src", "<link", "<img", "@import", "url(", "http://", "https://"] {
        assert!(!page.contains(outside), "the page refers outside itself: {outside}");
    }
    let goals = report["goals"].as_array().unwrap();
    assert!(!goals.is_empty());
    assert_eq!(page.matches("<tr id=\"g-").count(), goals.len(), "one row per goal");
    for g in goals {
        let id = g["id"].as_str().unwrap();
        let status = g["status"].as_str().unwrap();
        let kind = g["kind"].as_str().unwrap();
        let family = if kind.starts_with("error ") { kind } else { kind.split(' ').next().unwrap() };
        let function = g["function"].as_str().unwrap();
        assert!(
            page.contains(&format!(
                "<tr id=\"g-{id}\" class=\"goal\" data-verdict=\"{status}\" data-kind=\"{family}\" data-function=\"{function}\">"
            )),
            "row of {id}"
        );
        assert!(page.contains(&format!("href=\"#g-{id}\"")), "mark of {id} on its line");
        let line = g["location"].as_str().unwrap().rsplit(':').nth(1).unwrap();
        assert!(page.contains(&format!("<tr id=\"L{line}\" class=")), "line {line} of {id} is marked");
        if status == "covered" {
            let test = g["test"].as_str().unwrap();
            assert!(page.contains(&format!("data-test=\"t-{test}\"")), "{id}'s mark names its test");
        }
    }
    // Every source line is on the page.
    let lines = std::fs::read_to_string(example()).unwrap().lines().count();
    for n in 1..=lines {
        assert!(page.contains(&format!("<tr id=\"L{n}\"")), "line {n}");
    }
    for t in report["tests"].as_array().unwrap() {
        let file = t["file"].as_str().unwrap();
        assert!(page.contains(&format!("<tr id=\"t-{file}\" class=\"test\">")), "row of test {file}");
    }
    let errors = report["errors"].as_array().unwrap();
    assert!(!errors.is_empty(), "classify.c has a reachable reach_error");
    assert_eq!(page.matches("<tr class=\"err\">").count(), errors.len());
    assert!(page.contains("walkdown run "), "a reproduce command");
    assert!(page.contains("<svg id=\"plot\""), "goals by verdict over time");
    assert_eq!(page.matches("class=\"band ").count(), 4, "a band per verdict");
    assert!(page.contains(">goals</text>") && page.contains(">seconds since the search began"), "axes named");
    let timeline = report["timeline"].as_array().expect("report.json records goals by verdict over time");
    let last = timeline.last().unwrap();
    for v in ["covered", "unreachable", "infeasible", "open"] {
        assert_eq!(last[v], report[format!("goals_{v}")], "the timeline ends at the final {v} count");
    }
    // Engines in words, the raw counters behind a toggle.
    let engines = report["engines"].as_array().unwrap();
    assert_eq!(page.matches("<tr class=\"engine\">").count(), engines.len());
    assert_eq!(page.matches("<summary>raw counters</summary>").count(), engines.len());
    assert!(page.contains("<dt>time</dt><dd>") && page.contains(" holding a worker"));
    // One row per function that has goals.
    let mut functions: Vec<&str> = goals.iter().map(|g| g["function"].as_str().unwrap()).collect();
    functions.sort();
    functions.dedup();
    assert_eq!(page.matches("<tr class=\"func\"").count(), functions.len());
    for (verdict, n) in [("covered", "goals_covered"), ("unreachable", "goals_unreachable"), ("open", "goals_open")] {
        let want = report[n].as_u64().unwrap();
        assert!(
            page.contains(&format!("<tr data-verdict=\"{verdict}\"><td><span class=\"k {}\"></span> {verdict}</td><td class=\"num\">{want}</td>", &verdict[..1])),
            "summary count of {verdict}"
        );
    }

    // `walkdown report` rebuilds the same page from report.json.
    std::fs::remove_file(&page_path).unwrap();
    let rebuilt = walkdown().arg("report").arg(&out).output().unwrap();
    assert!(rebuilt.status.success(), "{}", String::from_utf8_lossy(&rebuilt.stderr));
    assert_eq!(std::fs::read_to_string(&page_path).unwrap(), page, "report rebuilds the page gen wrote");

    // A moved source: `--source` finds it; without it, the page says so.
    let moved = tmp.path().join("elsewhere.html");
    let no_source = out.join("report.json");
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&no_source).unwrap()).unwrap();
    json["program"] = serde_json::Value::String(tmp.path().join("gone/classify.c").display().to_string());
    std::fs::write(&no_source, serde_json::to_string(&json).unwrap()).unwrap();
    let o = walkdown().arg("report").arg(&out).arg("--output").arg(&moved).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read the source"));
    let page = std::fs::read_to_string(&moved).unwrap();
    assert!(page.contains("could not be read") && page.matches("<tr id=\"g-").count() == goals.len());
    let o =
        walkdown().arg("report").arg(&out).arg("--source").arg(example()).arg("--output").arg(&moved).output().unwrap();
    assert!(o.status.success());
    assert!(std::fs::read_to_string(&moved).unwrap().contains("<tr id=\"L1\""));

    // Bad input: clear errors.
    let o = walkdown().arg("report").arg(tmp.path().join("nope")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a directory"));
    let o = walkdown().arg("report").arg(tmp.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("no report.json"));

    render_headless(&out.join("report/index.html"), &report);
}

/// The largest public task: its page stays one file of modest size, and
/// in the browser its filters work and take little time.
#[test]
fn the_page_of_the_largest_public_task_loads_and_filters_fast() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("html_report: large page skipped: ../shared (WALKDOWN_SHARED) not found");
        return;
    };
    let program = shared.join("bench/sv/eca-rers2012/Problem01_label00.yml");
    if !program.is_file() {
        walkdown_testsupport::require_shared(&shared);
        eprintln!("html_report: large page skipped: {} not found", program.display());
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // The concolic engine alone proves nothing: what it does not cover in
    // its budget stays open, so the page has hundreds of open goals to
    // filter.
    let o = walkdown()
        .args(["gen", "--quiet", "--engine", "concolic", "--time", "8", "--out"])
        .arg(&out)
        .arg(&program)
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "gen failed: {}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(report["goals"].as_array().unwrap().len() > 1000, "the largest task has many goals");
    assert!(report["goals_open"].as_u64().unwrap() > 100, "concolic leaves goals open");
    let page = out.join("report/index.html");
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size < 4_000_000, "the page is {size} bytes");
    render_headless(&page, &report);
}

/// SIGTERM during the search: the page is written, and says so.
#[test]
fn an_interrupted_run_writes_the_page() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/html/slow.c");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut child = walkdown()
        .args(["gen", "--quiet", "--time", "120", "--out"])
        .arg(&out)
        .arg(&program)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Until the search has begun (the report is there), then 1 s more.
    let start = std::time::Instant::now();
    while !out.join("report.json").exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(child.try_wait().unwrap().is_none(), "gen is still searching");
    Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    child.wait().unwrap();
    let page = std::fs::read_to_string(out.join("report/index.html")).expect("the page is written on interrupt");
    assert!(page.contains("<tr><th>status</th><td>interrupted</td></tr>"), "{}", &page[..page.len().min(3000)]);
    assert!(page.contains("<tr id=\"L15\" class="), "the source with its goals");
    // The search was cut short: the goal behind the hash is not covered
    // (open, or infeasible within an unwinding), and ticking its verdict
    // alone shows it and nothing else.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(report["goals_covered"].as_u64() < report["goals_total"].as_u64(), "a goal is left");
    render_headless(&out.join("report/index.html"), &report);
}

/// Debian's chromium, or `None` (with a message) when it is not
/// installed; under `WALKDOWN_REQUIRE_SHARED=1` (CI) its absence fails.
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()));
    if found.is_none() {
        assert!(
            !walkdown_testsupport::shared_required(),
            "chromium is not installed (scripts/setup installs Debian's `chromium`)"
        );
        eprintln!("html_report: headless rendering skipped: chromium is not installed (Debian `chromium`; scripts/setup installs it)");
    }
    found
}

/// The DOM of `file` after its scripts ran, from headless chromium.
fn dump(chromium: &str, file: &Path) -> String {
    let o = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=2000", "--dump-dom"])
        .arg(file)
        .output()
        .unwrap();
    assert!(o.status.success(), "chromium failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A copy of `page` with `script` run after the page's own, and the value
/// it leaves in `data-probe` of `<body>` once chromium has run it.
fn probe(chromium: &str, page: &Path, name: &str, script: &str) -> String {
    let text = std::fs::read_to_string(page).unwrap();
    let probed = page.with_file_name(format!("{name}.html"));
    std::fs::write(&probed, text.replace("</body>", &format!("<script>{script}</script></body>"))).unwrap();
    let dom = dump(chromium, &probed);
    assert!(
        !dom.contains("data-script-error=\""),
        "script error in {name}: {:.2000}",
        dom.split("data-script-error=\"").nth(1).unwrap_or("")
    );
    let value =
        dom.split("data-probe=\"").nth(1).unwrap_or_else(|| panic!("{name} did not run")).split('"').next().unwrap();
    value.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
}

/// Renders the page in headless Chromium: the script ran (`data-ready`)
/// without error, a click on the first covered goal's mark shows its
/// evidence and its test's inputs in the panel, and the filters and the
/// search show the rows they should.
fn render_headless(page: &Path, report: &serde_json::Value) {
    let Some(chromium) = chromium() else { return };
    let dom = dump(chromium, page);
    assert!(dom.contains("data-ready=\"1\""), "the page's script did not run to its end");
    assert!(dom.contains("data-filters=\"1\""), "the filters' script did not run to its end");
    assert!(!dom.contains("data-script-error=\""), "script error: {dom:.2000}");
    let goals = report["goals"].as_array().unwrap();
    if goals.iter().any(|g| g["status"] == "covered") {
        let click = "var a=document.querySelector('a.g.c[data-test]');a.dispatchEvent(new MouseEvent('click',{bubbles:true,cancelable:true}));\
var p=document.getElementById('panel');document.body.setAttribute('data-probe',p.className+'|'+p.textContent)";
        let panel = probe(chromium, page, "clicked", click);
        assert!(panel.starts_with("on|"), "the panel opens: {panel}");
        assert!(
            panel.contains("covered by test-") && panel.contains("walkdown run "),
            "goal and test in the panel: {panel:.500}"
        );
    }
    check_filters(chromium, page, report);
}

/// What the filter bar should show, against what it shows: each verdict
/// alone, the search for one test, a kind, a function's link, and the
/// time one filtering takes.
fn check_filters(chromium: &str, page: &Path, report: &serde_json::Value) {
    // Helpers of the probe: the visible rows of a table, one verdict
    // ticked, a value typed, each result appended to `out`.
    const PROBE: &str = "var out=[],bar=document.getElementById('filters');\
function vis(s){return [].slice.call(document.querySelectorAll(s)).filter(function(r){return !r.hidden})}\
function fire(el,type){el.dispatchEvent(new Event(type,{bubbles:true}))}\
function only(v){[].slice.call(bar.querySelectorAll('input[name=verdict]')).forEach(function(b){b.checked=(v===null||b.value==v)});fire(bar.querySelector('input[name=verdict]'),'change')}\
function rows(){var g=vis('#goals tr.goal');return g.length+':'+g.map(function(r){return r.getAttribute('data-verdict')}).filter(function(v,i,a){return a.indexOf(v)==i}).sort().join(',')}\
['covered','unreachable','infeasible','open'].forEach(function(v){only(v);out.push(v+'='+rows())});only(null);\
var q=document.getElementById('search'),t0=performance.now();q.value=TEST;fire(q,'input');var ms=performance.now()-t0;\
out.push('search='+vis('#tests tr.test').map(function(r){return r.id}).join(',')+':'+vis('#goals tr.goal').length);\
out.push('ms='+ms.toFixed(1));q.value='';fire(q,'input');\
var k=document.getElementById('kind');k.value='branch';fire(k,'change');var g=vis('#goals tr.goal');\
out.push('kind='+g.length+':'+g.every(function(r){return r.getAttribute('data-kind')=='branch'}));k.value='';fire(k,'change');\
var a=document.querySelector('a.fn'),f=a.getAttribute('data-function');a.dispatchEvent(new MouseEvent('click',{bubbles:true,cancelable:true}));\
g=vis('#goals tr.goal');out.push('function='+f+':'+g.length+':'+g.every(function(r){return r.getAttribute('data-function')==f}));\
document.body.setAttribute('data-probe',out.join('|'))";
    let goals = report["goals"].as_array().unwrap();
    let tests = report["tests"].as_array().unwrap();
    // The last test: its name is in its own row and in the evidence of the
    // goals it covered first, nowhere else.
    let test = tests.last().map_or("no-such-test", |t| t["file"].as_str().unwrap());
    let script = PROBE.replace("TEST", &format!("'{test}'"));
    let got = probe(chromium, page, "filtered", &script);
    let fields: std::collections::BTreeMap<&str, &str> = got.split('|').filter_map(|f| f.split_once('=')).collect();
    let count = |pred: &dyn Fn(&serde_json::Value) -> bool| goals.iter().filter(|g| pred(g)).count();
    for v in ["covered", "unreachable", "infeasible", "open"] {
        let n = count(&|g| g["status"] == v);
        let want = if n == 0 { "0:".to_string() } else { format!("{n}:{v}") };
        assert_eq!(fields[v], want, "after ticking {v} alone, its goals and nothing else: {got}");
    }
    // The search: the test's row, and the goals whose evidence names it.
    let covered_by = count(&|g| g["test"] == test);
    let want = if tests.is_empty() { "search=:0".to_string() } else { format!("search=t-{test}:{covered_by}") };
    assert!(got.contains(&want), "searching {test}: want {want} in {got}");
    let branches = count(&|g| g["kind"].as_str().unwrap().starts_with("branch "));
    assert_eq!(fields["kind"], format!("{branches}:true"), "kind branch: {got}");
    // The first function's link (functions come in source order).
    let (function, shown) = fields["function"].split_once(':').unwrap();
    let of_function = count(&|g| g["function"] == function);
    assert!(of_function > 0 && shown == format!("{of_function}:true"), "{function}'s link: {got}");
    let ms: f64 = fields["ms"].parse().unwrap();
    eprintln!("html_report: {} goals, {} tests: one search took {ms:.1} ms", goals.len(), tests.len());
    assert!(ms < 500.0, "one search over {} goals and {} tests took {ms} ms", goals.len(), tests.len());
}
