//! The report's plot: goals by verdict over time as stacked steps (covered
//! at the bottom, then unreachable, infeasible, open on top, together
//! every goal), an inline SVG with both axes labelled at round values.
//!
//! Why stacked: the question a reader brings is "how much is settled, and
//! when did it settle"; stacked bands show the settled share and each
//! verdict's part at every moment, and the open band shrinking is the
//! campaign's progress. The series is `report.json`'s `timeline`; reports
//! without one (older versions) give the covered band from the tests'
//! times and leave the rest open.

use std::fmt::Write as _;

use super::seconds;
use crate::report::{Report, TimelineEntry};

/// The plot's style: bands in the verdicts' colours (open faint, as what
/// is left), light gridlines under dark axes.
pub(super) const STYLE: &str = "svg .grid{stroke:#ddd}svg .ttl{font-size:12px;fill:#222}\
svg .band{stroke:none;fill-opacity:.8}svg .band.c{fill:#2e8b3e}svg .band.u{fill:#3c64c8}svg .band.i{fill:#c89016}\
svg .band.o{fill:#c83c3c;fill-opacity:.25}";

/// The plot's geometry: its size and the margins that hold the labels.
const W: f64 = 720.0;
const H: f64 = 260.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 42.0;

/// The verdicts bottom up, with their CSS class.
const BANDS: [(&str, &str); 4] = [("covered", "c"), ("unreachable", "u"), ("infeasible", "i"), ("open", "o")];

/// The series of `report`, ending at `end` seconds: its timeline, or one
/// made from its tests' times.
pub fn verdicts_over_time(report: &Report, end: f64) -> Vec<TimelineEntry> {
    let total = report.goals.len();
    let mut points = if report.timeline.is_empty() {
        let mut sorted: Vec<_> = report.tests.iter().collect();
        sorted.sort_by(|a, b| a.found_at_s.total_cmp(&b.found_at_s));
        let mut covered = 0;
        let mut points = vec![TimelineEntry { open: total, ..TimelineEntry::default() }];
        for t in sorted {
            covered += t.new_goals.len();
            let covered = covered.min(total);
            points.push(TimelineEntry { at_s: t.found_at_s.max(0.0), covered, open: total - covered, ..points[0] });
        }
        points
    } else {
        report.timeline.clone()
    };
    let last = *points.last().expect("a series starts with a point at 0 s");
    points.push(TimelineEntry { at_s: end.max(last.at_s), ..last });
    points
}

/// Round steps for an axis from 0 to `max` with about `ticks` labels:
/// 1, 2 or 5 times a power of ten.
fn tick_step(max: f64, ticks: f64) -> f64 {
    let raw = (max / ticks).max(1e-9);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power)
}

/// A tick's label: whole numbers plainly, small steps with their decimals.
fn tick_label(v: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{v:.0}")
    } else {
        let decimals = (-step.log10().floor()) as usize;
        format!("{v:.decimals$}")
    }
}

/// How the page maps seconds and goal counts to the plot's coordinates.
struct Scale {
    t_max: f64,
    y_max: f64,
}

impl Scale {
    fn x(&self, t: f64) -> f64 {
        LEFT + (t / self.t_max) * (W - LEFT - RIGHT)
    }

    fn y(&self, n: f64) -> f64 {
        TOP + (1.0 - n / self.y_max) * (H - TOP - BOTTOM)
    }
}

/// The band of one verdict: the area between the stacked sums below it
/// (`lower`) and with it (`upper`), as steps (each point's counts hold
/// until the next point).
fn band_path(
    points: &[TimelineEntry],
    lower: impl Fn(&TimelineEntry) -> usize,
    upper: impl Fn(&TimelineEntry) -> usize,
    s: &Scale,
) -> String {
    let ends: Vec<f64> = points.iter().skip(1).map(|p| p.at_s).chain(points.last().map(|p| p.at_s)).collect();
    let mut d = String::new();
    for (p, &end) in points.iter().zip(&ends) {
        let v = s.y(upper(p) as f64);
        let _ = write!(d, "{}{:.1},{v:.1}L{:.1},{v:.1}", if d.is_empty() { "M" } else { "L" }, s.x(p.at_s), s.x(end));
    }
    for (p, &end) in points.iter().zip(&ends).rev() {
        let v = s.y(lower(p) as f64);
        let _ = write!(d, "L{:.1},{v:.1}L{:.1},{v:.1}", s.x(end), s.x(p.at_s));
    }
    d.push('Z');
    d
}

/// The SVG of `points` (see [`verdicts_over_time`]) for `total` goals.
pub fn plot(points: &[TimelineEntry], total: usize) -> String {
    let scale =
        Scale { t_max: points.iter().map(|p| p.at_s).fold(0.0f64, f64::max).max(1e-3), y_max: total.max(1) as f64 };
    let mut svg = format!(
        "<svg id=\"plot\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"goals by verdict over time\">"
    );
    let count = |p: &TimelineEntry, k: usize| [p.covered, p.unreachable, p.infeasible, p.open][k];
    for (k, (verdict, class)) in BANDS.iter().enumerate() {
        let lower = move |p: &TimelineEntry| (0..k).map(|j| count(p, j)).sum::<usize>();
        let upper = move |p: &TimelineEntry| (0..=k).map(|j| count(p, j)).sum::<usize>();
        let d = band_path(points, lower, upper, &scale);
        let _ = write!(svg, "<path d=\"{d}\" class=\"band {class}\"><title>{verdict}</title></path>");
    }
    axes(&mut svg, &scale);
    svg.push_str("</svg>");
    svg
}

/// Both axes with gridlines, round ticks and titles.
fn axes(svg: &mut String, scale: &Scale) {
    let (bottom, right, t_max, y_max) = (H - BOTTOM, W - RIGHT, scale.t_max, scale.y_max);
    let (x, y) = (|t| scale.x(t), |n| scale.y(n));
    let step = tick_step(y_max, 5.0).max(1.0);
    for v in (0..).map(|i| f64::from(i) * step).take_while(|v| *v <= y_max + 1e-9) {
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{yv:.1}\" x2=\"{right}\" y2=\"{yv:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"lb\" text-anchor=\"end\">{}</text>",
            LEFT - 5.0,
            y(v) + 4.0,
            tick_label(v, step),
            yv = y(v)
        );
    }
    let step = tick_step(t_max, 6.0);
    for t in (0..).map(|i| f64::from(i) * step).take_while(|t| *t <= t_max * (1.0 + 1e-9)) {
        let _ = write!(
            svg,
            "<line x1=\"{xt:.1}\" y1=\"{bottom}\" x2=\"{xt:.1}\" y2=\"{}\" class=\"ax\"/><text x=\"{xt:.1}\" y=\"{}\" class=\"lb\" text-anchor=\"middle\">{}</text>",
            bottom + 4.0,
            bottom + 16.0,
            tick_label(t, step),
            xt = x(t)
        );
    }
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\" class=\"ax\"/><line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\" class=\"ax\"/>\
<text x=\"{:.1}\" y=\"{}\" class=\"lb ttl\" text-anchor=\"middle\">seconds since the search began (end: {})</text>\
<text x=\"14\" y=\"{:.1}\" class=\"lb ttl\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">goals</text>",
        (LEFT + right) / 2.0,
        H - 6.0,
        seconds(t_max),
        (TOP + bottom) / 2.0,
        (TOP + bottom) / 2.0
    );
}

/// The legend under the plot: each verdict's colour and its final count.
pub fn legend(points: &[TimelineEntry]) -> String {
    let last = points.last().copied().unwrap_or_default();
    let mut out = String::from("<p id=\"plot-legend\">");
    for (k, (verdict, class)) in BANDS.iter().enumerate() {
        let n = [last.covered, last.unreachable, last.infeasible, last.open][k];
        let _ = write!(out, "<span class=\"k {class}\"></span> {verdict} {n} ");
    }
    out.push_str("(at the end; hover a band for its verdict)</p>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TestEntry;

    #[test]
    fn the_series_falls_back_to_the_tests_and_ends_at_the_end() {
        let t = |at: f64, n: usize| TestEntry { found_at_s: at, new_goals: vec!["g".into(); n], ..Default::default() };
        let report =
            Report { goals: vec![Default::default(); 5], tests: vec![t(2.0, 1), t(1.0, 3)], ..Default::default() };
        let got: Vec<(f64, usize, usize)> =
            verdicts_over_time(&report, 5.0).iter().map(|p| (p.at_s, p.covered, p.open)).collect();
        assert_eq!(got, vec![(0.0, 0, 5), (1.0, 3, 2), (2.0, 4, 1), (5.0, 4, 1)]);
        let timeline = vec![
            TimelineEntry { open: 5, ..Default::default() },
            TimelineEntry { at_s: 0.5, unreachable: 2, open: 3, ..Default::default() },
        ];
        let report = Report { timeline, ..report };
        let got = verdicts_over_time(&report, 3.0);
        assert_eq!(got.len(), 3);
        assert_eq!((got[2].at_s, got[2].unreachable, got[2].covered), (3.0, 2, 0), "the timeline wins");
    }

    #[test]
    fn axes_have_round_ticks() {
        assert_eq!(tick_step(2000.0, 5.0), 500.0);
        assert_eq!(tick_step(7.3, 6.0), 2.0);
        assert_eq!(tick_step(0.04, 6.0), 0.01);
        assert_eq!(tick_label(0.25, 0.05), "0.25");
        let points = vec![
            TimelineEntry { open: 10, ..Default::default() },
            TimelineEntry { at_s: 1.5, covered: 4, unreachable: 1, infeasible: 2, open: 3 },
            TimelineEntry { at_s: 3.0, covered: 4, unreachable: 1, infeasible: 2, open: 3 },
        ];
        let svg = plot(&points, 10);
        assert_eq!(svg.matches("class=\"band ").count(), 4);
        for label in [">0</text>", ">2</text>", ">10</text>", ">0.5</text>", ">3.0</text>", ">goals</text>"] {
            assert!(svg.contains(label), "{label} in {svg}");
        }
        assert!(legend(&points).contains("<span class=\"k o\"></span> open 3 "));
    }
}
