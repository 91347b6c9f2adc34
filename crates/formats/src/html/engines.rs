//! The report's engine section: each engine's counters of `report.json`
//! grouped (time, runs, queries, proofs, what it dropped, its search) and
//! named in words with units, the raw counters behind a `<details>`.
//!
//! Why a table of names here rather than in the engines: an engine
//! publishes `(name, number)` pairs meant for machines (report.json,
//! `--stats`), and those names are stable; the words a person reads can
//! change with the page. A counter this table does not know is still shown,
//! under "other", by its raw name, so a new counter is never hidden.

use std::fmt::Write as _;

use super::{esc, figure, seconds};
use crate::report::{EngineFigures, Report};

/// The figures' style: group names in a narrow column beside their items.
pub(super) const STYLE: &str = "dl.fig{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:0 .8em}\
dl.fig dt{color:#666}dl.fig dd{margin:0}\
details.raw summary{color:#666;cursor:pointer;font-size:12px}details.raw code{font-size:12px}";

/// The groups, in the order the page shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Time,
    Runs,
    Queries,
    Proofs,
    Dropped,
    Search,
    Other,
}

impl Group {
    const ALL: [Group; 7] =
        [Group::Time, Group::Runs, Group::Queries, Group::Proofs, Group::Dropped, Group::Search, Group::Other];

    fn word(self) -> &'static str {
        match self {
            Group::Time => "time",
            Group::Runs => "runs",
            Group::Queries => "queries",
            Group::Proofs => "proofs",
            Group::Dropped => "dropped",
            Group::Search => "search",
            Group::Other => "other",
        }
    }
}

/// How a counter's number reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// A count (`1,234 traced runs`).
    Count,
    /// Seconds (`4.2 s in the solver`).
    Seconds,
    /// A rate (`310 traced runs a second`).
    PerSecond,
}

/// What a counter means: its group, its words, its unit.
struct Named {
    key: &'static str,
    group: Group,
    words: &'static str,
    unit: Unit,
}

const fn n(key: &'static str, group: Group, words: &'static str, unit: Unit) -> Named {
    Named { key, group, words, unit }
}

use Group::{Dropped, Proofs, Queries, Runs, Search, Time};
use Unit::{Count, PerSecond, Seconds};

/// The counters the engines publish (concolic, bmc, cegar, absint, the
/// solver layers and the portfolio), in the order a group lists them.
const NAMES: &[Named] = &[
    n("solver_s", Time, "in the solver", Seconds),
    n("fp_s", Time, "in float queries", Seconds),
    n("trace_s", Time, "tracing runs", Seconds),
    n("replay_s", Time, "replaying tests", Seconds),
    n("executions", Runs, "traced runs", Count),
    n("executions_per_s", Runs, "traced runs a second", PerSecond),
    n("replays", Runs, "replays in the interpreter", Count),
    n("adopted_tests", Runs, "tests of other engines traced", Count),
    n("random_runs", Runs, "random inputs run", Count),
    n("mutations", Runs, "mutants of kept tests run", Count),
    n("mutations_kept", Runs, "mutants kept", Count),
    n("float_mutations", Runs, "mutants with a made float value", Count),
    n("divergences", Runs, "runs that missed the aimed-for branch", Count),
    n("tests", Runs, "tests from counterexamples", Count),
    n("queries", Queries, "solver queries", Count),
    n("sat", Queries, "satisfiable", Count),
    n("unsat", Queries, "unsatisfiable", Count),
    n("unknown", Queries, "unknown", Count),
    n("tryfirst", Queries, "asked first (annotations' tryfirst)", Count),
    n("slow_queued", Queries, "cut short and asked again later", Count),
    n("slow_sat", Queries, "of those, satisfiable later", Count),
    n("fp_queries", Queries, "over float inputs", Count),
    n("fp_sat", Queries, "over floats satisfiable", Count),
    n("fp_unknown", Queries, "over floats unknown", Count),
    n("fp_fallbacks", Queries, "over floats asked again with the floats fixed", Count),
    n("fp_fallback_sat", Queries, "of those, satisfiable", Count),
    n("float_fallbacks", Queries, "depths asked again with fresh float results", Count),
    n("induction_queries", Queries, "induction queries", Count),
    n("slicing", Queries, "reached the slicer", Count),
    n("cache", Queries, "reached the answer cache", Count),
    n("cex-cache", Queries, "reached the model cache", Count),
    n("z3", Queries, "reached Z3", Count),
    n("bitwuzla", Queries, "reached Bitwuzla", Count),
    n("proved_unreachable", Proofs, "goals proved unreachable", Count),
    n("induction_proved", Proofs, "goals proved by induction", Count),
    n("invariants_kept", Proofs, "loop invariants proved inductive", Count),
    n("refinements", Proofs, "refinements", Count),
    n("failed_refinements", Proofs, "refinements that failed", Count),
    n("interpolations", Proofs, "paths sent for interpolation", Count),
    n("interpolation_failures", Proofs, "paths without interpolants", Count),
    n("predicates", Proofs, "predicates", Count),
    n("duplicates", Dropped, "duplicate candidates", Count),
    n("dropped", Dropped, "candidates (too many waiting)", Count),
    n("slow_dropped", Dropped, "slow queries (their goal was settled meanwhile)", Count),
    n("monitor_pruned", Dropped, "candidates leading to no open goal", Count),
    n("pruned", Dropped, "runs an annotation pruned", Count),
    n("useless_edges", Dropped, "edges found useless", Count),
    n("waiting", Search, "candidates waiting", Count),
    n("monitor_ordered", Search, "candidates ordered by distance to a goal", Count),
    n("expressions", Search, "expressions in the pool", Count),
    n("unwinding", Search, "deepest unwinding", Count),
    n("depths", Search, "unwindings tried", Count),
    n("blocks", Search, "blocks", Count),
    n("rounds", Search, "abstraction rounds", Count),
    n("nodes", Search, "abstract states", Count),
    n("covered_nodes", Search, "abstract states covered by others", Count),
    n("monitor_states", Search, "states given to the monitor", Count),
    n("work_ticks", Search, "work units", Count),
];

/// One figure in words: `4.2 s in the solver`, `1,234 traced runs`.
fn words(value: f64, words: &str, unit: Unit) -> String {
    match unit {
        Unit::Seconds => format!("{} {words}", seconds(value)),
        Unit::Count | Unit::PerSecond => format!("{} {words}", grouped(value)),
    }
}

/// A figure with thousands grouped (`12,345`), decimals as [`figure`].
fn grouped(v: f64) -> String {
    let text = figure(v);
    let (int, frac) = text.split_once('.').map_or((text.as_str(), ""), |(i, f)| (i, f));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut out = String::from(sign);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// The figures of engine `e` by group, in words. Zero counts are left out
/// (the raw counters show them); the engine's own time and the goals and
/// tests the report credits to it come first.
fn grouped_figures(e: &EngineFigures, report: &Report) -> Vec<(Group, Vec<String>)> {
    let mut groups: Vec<(Group, Vec<String>)> = Group::ALL.iter().map(|g| (*g, Vec::new())).collect();
    let mut push = |g: Group, text: String| groups.iter_mut().find(|(k, _)| *k == g).unwrap().1.push(text);
    push(Group::Time, format!("{} holding a worker", seconds(e.time_s)));
    let kept = report.tests.iter().filter(|t| t.engine == e.name).count();
    if kept > 0 {
        push(Group::Runs, format!("{} tests kept", grouped(kept as f64)));
    }
    let prefix = format!("{}:", e.name);
    for (status, what) in
        [("unreachable", "goals proved unreachable"), ("infeasible", "goals infeasible within a bound")]
    {
        let proved = report
            .goals
            .iter()
            .filter(|g| g.status == status && g.proved_by.as_deref().is_some_and(|p| p.starts_with(&prefix)))
            .count();
        if proved > 0 {
            push(Group::Proofs, format!("{} {what} (in the final table)", grouped(proved as f64)));
        }
    }
    for named in NAMES {
        if let Some(&v) = e.figures.get(named.key) {
            if v != 0.0 {
                push(named.group, words(v, named.words, named.unit));
            }
        }
    }
    for (key, &v) in &e.figures {
        if v != 0.0 && !NAMES.iter().any(|n| n.key == key) {
            let unit = if key.ends_with("_s") { Unit::Seconds } else { Unit::Count };
            push(Group::Other, words(v, key, unit));
        }
    }
    groups.retain(|(_, items)| !items.is_empty());
    groups
}

/// The engines' section: a table, one row per engine, its figures by
/// group, the raw counters in a `<details>` of the row.
pub(super) fn engine_section(out: &mut String, report: &Report) {
    out.push_str(
        "<h2>Engines</h2><table id=\"engines\" class=\"t\"><tr><th>engine</th><th>status</th><th class=\"num\">time</th><th>figures</th></tr>",
    );
    for e in &report.engines {
        let _ = write!(
            out,
            "<tr class=\"engine\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td><dl class=\"fig\">",
            esc(&e.name),
            esc(&e.status),
            seconds(e.time_s)
        );
        for (group, items) in grouped_figures(e, report) {
            let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", group.word(), esc(&items.join(" · ")));
        }
        out.push_str("</dl><details class=\"raw\"><summary>raw counters</summary><code>");
        let raw: Vec<String> = e.figures.iter().map(|(k, v)| format!("{k} {}", figure(*v))).collect();
        let _ = write!(out, "{}</code></details></td></tr>", esc(&raw.join(", ")));
    }
    out.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{GoalEntry, TestEntry};

    #[test]
    fn figures_are_grouped_in_words_and_unknown_counters_are_kept() {
        let mut e =
            EngineFigures { name: "concolic".into(), status: "budget".into(), time_s: 12.5, ..Default::default() };
        for (k, v) in
            [("executions", 12345.0), ("solver_s", 4.25), ("queries", 300.0), ("sat", 0.0), ("new_thing", 7.0)]
        {
            e.figures.insert(k.into(), v);
        }
        let report = Report {
            tests: vec![TestEntry { engine: "concolic".into(), ..Default::default() }],
            goals: vec![GoalEntry {
                status: "unreachable".into(),
                proved_by: Some("concolic: exhausted".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let groups = grouped_figures(&e, &report);
        let find = |g: Group| groups.iter().find(|(k, _)| *k == g).map(|(_, v)| v.join(" · ")).unwrap_or_default();
        assert_eq!(find(Group::Time), "12.5 s holding a worker · 4.250 s in the solver");
        assert_eq!(find(Group::Runs), "1 tests kept · 12,345 traced runs");
        assert_eq!(find(Group::Queries), "300 solver queries", "zero counts are left out");
        assert!(find(Group::Proofs).starts_with("1 goals proved unreachable"));
        assert_eq!(find(Group::Other), "7 new_thing");
        let mut page = String::new();
        engine_section(&mut page, &Report { engines: vec![e], ..report });
        assert!(page.contains("<details class=\"raw\"><summary>raw counters</summary><code>executions 12345, "));
        assert!(page.contains("<dt>time</dt><dd>12.5 s holding a worker"));
        assert_eq!(grouped(-1234567.5), "-1,234,568");
        assert_eq!(grouped(12.25), "12.25");
    }
}
