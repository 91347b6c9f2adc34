//! The HTML report: `gen` writes `OUT/report/index.html`, `walkdown report
//! OUT` rebuilds the same page from `report.json`; the page is
//! self-contained and shows every goal (a mark on its source line and a row
//! of the goal table), every test with its inputs, every error with its
//! reproduce command. When Debian's `chromium` is installed the page is
//! also rendered headless: its script runs without error, and a click on a
//! goal's mark opens the panel with the goal's evidence (skipped with a
//! message otherwise).

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
        assert!(page.contains(&format!("<tr id=\"g-{id}\" class=\"goal\" data-verdict=\"{status}\">")), "row of {id}");
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
    assert!(page.contains("<svg id=\"plot\""), "coverage over time");
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

    render_headless(&out.join("report/index.html"));
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
}

/// Renders the page in headless Chromium: the script ran (`data-ready`)
/// without error, and a click on the first covered goal's mark shows its
/// evidence and its test's inputs in the panel.
fn render_headless(page: &Path) {
    let Some(chromium) = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
    else {
        eprintln!("html_report: headless rendering skipped: chromium is not installed (Debian `chromium`; scripts/setup installs it)");
        return;
    };
    let dump = |file: &Path| -> String {
        let o = Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=2000", "--dump-dom"])
            .arg(file)
            .output()
            .unwrap();
        assert!(o.status.success(), "chromium failed: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let dom = dump(page);
    assert!(dom.contains("data-ready=\"1\""), "the page's script did not run to its end");
    assert!(!dom.contains("data-script-error=\""), "script error: {dom:.2000}");
    // A copy of the page that clicks the first covered mark once loaded.
    let text = std::fs::read_to_string(page).unwrap();
    let click = "<script>(function(){var a=document.querySelector('a.g.c[data-test]');a.dispatchEvent(new MouseEvent('click',{bubbles:true,cancelable:true}));\
var p=document.getElementById('panel');document.body.setAttribute('data-panel',p.className+'|'+p.textContent)})();</script></body>";
    let clicked = page.with_file_name("clicked.html");
    std::fs::write(&clicked, text.replace("</body>", click)).unwrap();
    let dom = dump(&clicked);
    assert!(!dom.contains("data-script-error=\""), "script error after a click");
    let panel = dom.split("data-panel=\"").nth(1).expect("the click ran").split('"').next().unwrap();
    assert!(panel.starts_with("on|"), "the panel opens: {panel}");
    assert!(
        panel.contains("covered by test-") && panel.contains("walkdown run "),
        "goal and test in the panel: {panel}"
    );
}
