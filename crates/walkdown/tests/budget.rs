//! `walkdown gen --time S` keeps to its budget on programs that are large
//! or hold huge objects: the campaign (from the start of the budget to its
//! stop, `elapsed_s` in report.json) ends within S plus a little, whatever
//! the static analyses or an engine would need to finish.
//!
//! The programs are generated here: a straight-line `main` reading one
//! input per `if` (the relational analysis's cost grows with the square of
//! the inputs, and the bounded engine's formula with the lines), and a
//! program with a 1 GiB static array.

use std::path::Path;
use std::process::Command;
use std::time::Instant;
use walkdown_formats::report::{read_report, Report};

/// A `main` of `n` tests of fresh inputs: `4 n + 7` lines.
fn straight_line(n: usize) -> String {
    let mut s = String::from(
        "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main(void) {\n  int y = 0;\n",
    );
    for k in 0..n {
        s.push_str(&format!("  if (__VERIFIER_nondet_int() == {k})\n    y += {};\n  else\n    y -= 1;\n", k % 7));
    }
    s.push_str("  if (y == 12345) reach_error();\n  return 0;\n}\n");
    s
}

/// Runs `gen` with `args`; the report and the wall-clock seconds.
fn gen(program: &Path, out: &Path, args: &[&str]) -> (Report, f64) {
    let start = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["gen", "--quiet", "--out"])
        .arg(out)
        .args(args)
        .arg(program)
        .output()
        .expect("walkdown runs");
    let wall = start.elapsed().as_secs_f64();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    (read_report(&out.join("report.json")).expect("report.json"), wall)
}

/// Runs `gen` as [`gen`] does; a run whose campaign took `limit` seconds
/// or more is run once again (into a second directory) and that run is
/// returned. The machines are shared: a run starved of the processor for
/// a while overshoots without any fault of its own (a busy CI machine ran
/// 5 executions and 6 queries in 1.3 s that take 0.05 s otherwise), while
/// a campaign that does not keep to its budget overshoots every time.
fn gen_within(program: &Path, out: &Path, args: &[&str], limit: f64) -> (Report, f64) {
    let (r, wall) = gen(program, out, args);
    if r.elapsed_s < limit {
        return (r, wall);
    }
    eprintln!("{}: {:.2}s, not under {limit}s; once more in case the machine was busy", program.display(), r.elapsed_s);
    gen(program, &out.with_extension("again"), args)
}

fn engine_status(r: &Report, name: &str) -> String {
    r.engines.iter().find(|e| e.name == name).map(|e| e.status.clone()).unwrap_or_default()
}

/// The static analyses get a share of the budget: on 1,500 inputs they
/// would take about 15 s; they stop at their share and prove nothing.
#[test]
fn static_analysis_keeps_to_its_share() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("wide.c");
    std::fs::write(&src, straight_line(1500)).expect("write");
    let (r, _) = gen_within(&src, &tmp.path().join("out"), &["--time", "2", "--engine", "concolic"], 2.8);
    assert!(r.elapsed_s < 2.8, "the campaign took {:.2}s of a 2s budget", r.elapsed_s);
    assert!(engine_status(&r, "absint").contains("budget"), "{:?}", engine_status(&r, "absint"));
    assert_eq!(r.goals_unreachable, 0);
}

/// Small programs keep their proofs: the share is at least a second.
#[test]
fn small_programs_keep_their_proofs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("dead.c");
    std::fs::write(&src, "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  if (x > 0 && x < 0)\n    return 1;\n  return 0;\n}\n")
        .expect("write");
    let (r, _) = gen(&src, &tmp.path().join("out"), &["--time", "1"]);
    assert_eq!(engine_status(&r, "absint"), "finished");
    assert!(r.goals_unreachable >= 1, "{:?}", r.goals.iter().map(|g| (&g.kind, &g.status)).collect::<Vec<_>>());
}

/// The bounded engine on a 20,000-line program: the formula's cover query
/// and the cut-point query end within the budget (it took 4 to 8 s of a
/// 3 s budget: building the disjunction of 10,000 targets took 2 s, and
/// the cut-point query was started with a second left).
#[test]
fn bounded_engine_keeps_to_the_budget_on_large_programs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("long.c");
    std::fs::write(&src, straight_line(5000)).expect("write");
    let (r, wall) = gen_within(
        &src,
        &tmp.path().join("out"),
        &["--time", "2", "--engine", "bmc", "--no-static", "--no-invariants"],
        3.0,
    );
    assert!(r.elapsed_s < 3.0, "the campaign took {:.2}s of a 2s budget ({wall:.1}s in all)", r.elapsed_s);
}

/// A 1 GiB static array is not materialized by the engines that encode
/// memory (it was, byte by byte, by bmc and cegar: 1.1 GB and twice the
/// budget).
#[test]
fn huge_static_arrays_cost_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("huge.c");
    std::fs::write(
        &src,
        "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nstatic char a[1L << 30];\nint main(void) {\n  int i = __VERIFIER_nondet_int();\n  if (i > 0 && i < 100) {\n    a[i] = 1;\n    if (a[i + 1]) reach_error();\n  }\n  return 0;\n}\n",
    )
    .expect("write");
    for engine in ["bmc", "cegar"] {
        let (r, _) = gen_within(&src, &tmp.path().join(engine), &["--time", "1", "--engine", engine], 1.6);
        assert!(r.elapsed_s < 1.6, "{engine}: the campaign took {:.2}s of a 1s budget", r.elapsed_s);
    }
}

/// `--time` counts from the start: loading (the frontend, the C library's
/// code, the goals) comes out of the budget, not on top of it. A filter
/// that formats numbers loads musl's printf and strtod; it took the budget
/// plus its loading time before. (Loading takes 0.2 to 4 s of the 8, by
/// how busy the machine is and whether the compile cache is warm; the
/// campaign gets the rest, at least half.)
#[test]
fn loading_counts_against_the_budget() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = tmp.path().join("filter.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n  double d = argc > 1 ? strtod(argv[1], 0) : 0.5;\n  char line[32];\n  while (fgets(line, sizeof line, stdin))\n    printf(\"%g %s\", d * atof(line), line);\n  return 0;\n}\n",
    )
    .expect("write");
    let budget = 8.0;
    let (r, wall) = gen_within(&src, &tmp.path().join("out"), &["--time", "8", "--no-error-exit"], budget - 0.2);
    // One goal stays open, so the campaign runs to its budget: what loading
    // left of the 8 s.
    assert!(r.goals_open > 0, "the campaign ran to its budget");
    // Loading takes 1 to 4 s on a fresh clone, 0.2 s with the frontend's
    // compile cache warm; without this rule the campaign would take all 8.
    assert!(r.elapsed_s < budget - 0.05, "the campaign took {:.2}s: loading came out of the budget", r.elapsed_s);
    assert!(r.elapsed_s >= budget / 2.0 - 0.1, "the campaign got at least half: {:.2}s", r.elapsed_s);
    assert!(wall < budget + 3.0, "gen took {wall:.2}s for --time {budget}");
}
