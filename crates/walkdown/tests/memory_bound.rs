//! `gen --max-memory`: under a bound far below what walkdown needs, the
//! campaign degrades step by step (caches shed, engines dropped, the least
//! useful first, then the campaign stopped) and ends with a finished
//! report that says what was dropped, never by being killed; without a
//! bound given, the default is half the machine's memory; a bound of 0 is
//! a usage error. The soak run over hours is `scripts/soak-memory`.

use std::path::Path;
use std::process::{Command, Output};
use walkdown_formats::report::{read_report, Report};

/// A `main` of `n` tests of fresh inputs (work for every engine).
fn program(n: usize) -> String {
    let mut s = String::from(
        "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main(void) {\n  int y = 0;\n",
    );
    for k in 0..n {
        s.push_str(&format!("  if (__VERIFIER_nondet_int() == {k})\n    y += {};\n  else\n    y -= 1;\n", k % 7));
    }
    s.push_str("  if (y == 12345) reach_error();\n  return 0;\n}\n");
    s
}

/// A hash over 64 inputs with branches on it: goals no engine settles in
/// a minute, so every engine is still at work when the bound bites.
const HASH: &str = r#"extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
int main(void) {
  unsigned h = 0, y = 0;
  for (int i = 0; i < 64; i++) {
    h = h * 31u + __VERIFIER_nondet_uint();
    if (h % 1000u == 7u) y++;
    if ((h ^ (h >> 7)) % 977u == 3u) y += 2;
  }
  if (h == 0xdeadbeefu && y == 5u) reach_error();
  return 0;
}
"#;

fn gen(program: &Path, out: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--out"])
        .arg(out)
        .args(args)
        .arg(program)
        .output()
        .expect("walkdown runs")
}

fn report(out: &Path, o: &Output) -> Report {
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    read_report(&out.join("report.json")).expect("report.json")
}

#[test]
fn a_tiny_bound_drops_engines_then_stops_with_a_finished_report() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("hash.c");
    std::fs::write(&file, HASH).unwrap();
    let out = tmp.path().join("out");
    // Far below what the binary alone maps: every step is taken. Three
    // engines, so three steps of dropping them.
    let args = ["--time", "60", "--max-memory", "20", "--engines", "concolic,bmc,cegar"];
    let r = report(&out, &gen(&file, &out, &args));
    assert_eq!(r.status, "finished");
    assert_eq!(r.stop_reason, "memory bound", "{:?}", r.memory);
    assert!(r.elapsed_s < 50.0, "stopped by the bound, not the budget: {} s", r.elapsed_s);
    let m = r.memory.as_ref().expect("the memory section");
    assert_eq!(m.bound_mb, Some(20.0));
    assert!(m.peak_mb > 20.0);
    let what: Vec<&str> = m.dropped.iter().map(|d| d.what.as_str()).collect();
    assert!(what[0].starts_with("caches"), "{what:?}");
    let engines: Vec<&str> = what.iter().filter(|w| w.starts_with("engine ")).copied().collect();
    assert_eq!(engines.len(), 2, "two of three engines dropped, one kept to the end: {what:?}");
    assert_eq!(what.last().copied(), Some("the campaign stopped: nothing left to drop"), "{what:?}");
    let dropped_status = r.engines.iter().filter(|e| e.status.starts_with("stopped: memory bound")).count();
    assert_eq!(dropped_status, 2, "{:?}", r.engines.iter().map(|e| &e.status).collect::<Vec<_>>());
    assert!(!r.tests.is_empty(), "the tests found before the stop are kept");
}

#[test]
fn the_default_bound_is_half_the_machine_and_zero_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("lines.c");
    std::fs::write(&file, program(3)).unwrap();
    let out = tmp.path().join("out");
    let r = report(&out, &gen(&file, &out, &["--time", "5"]));
    let m = r.memory.as_ref().expect("the memory section");
    let total_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("MemTotal:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0);
    match total_mb {
        Some(total) => {
            let bound = m.bound_mb.expect("a default bound");
            assert!((bound - total / 2.0).abs() <= 1.0, "bound {bound} MB, machine {total} MB");
        }
        None => assert_eq!(m.bound_mb, None),
    }
    assert!(m.dropped.is_empty(), "{:?}", m.dropped);
    assert!(m.peak_mb > 0.0);
    let o = gen(&file, &tmp.path().join("zero"), &["--max-memory", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-memory must be at least 1"));
}
