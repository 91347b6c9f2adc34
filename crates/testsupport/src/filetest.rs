//! Filetests: small C or textual IR programs that state, in comments, which
//! engines run them and what each must report (after Cranelift's
//! `filetests`: `test <kind>` headers, one [`SubTest`] per kind).
//!
//! The grammar (`//` comments in C, `;` in `.wir`; see docs/testing.md):
//!
//! ```text
//! // test: KIND [KEY=VALUE]...             one run of an engine (repeatable)
//! // expect[ KIND,...]: WHERE GOAL VERDICT the verdict of a goal
//! // expect[ KIND,...]: others VERDICT     of every branch outcome not listed
//! // output KIND: QUERY => TEXT            a textual output (WALKDOWN_BLESS=1)
//! ```
//!
//! `WHERE` is a line number, `@MARK` (the line holding `/* MARK */`) or
//! `FUNC:bN` (a block of the textual IR); `GOAL` is `true`, `false`,
//! `case N`, `case default`, `succ K` or `error KIND`; `VERDICT` is
//! `covered`, `unreachable`, `infeasible` (within the bound) or `open`.
//! An expectation without kinds holds for every kind, one with kinds
//! overrides it for those. A kind that cannot give a verdict reads it as
//! `open` ([`SubTest::gives`]): a static pass covers nothing, so `covered`
//! means to it "not claimed unreachable".
//!
//! The runner checks every kept test of every engine once more in the
//! interpreter (the judge): its replay covers what the engine said it
//! covers, and no goal an engine proves unreachable is covered by any
//! replay. [`compare_kinds`] runs a fixture that declares several kinds
//! through all of them and fails when one proves unreachable what another
//! covers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use walkdown_interp::{Interpreter, Outcome as RunEnd, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, GoalKind, Goals};
use walkdown_ir::testvec::TestVector;
use walkdown_ir::Program;

/// The directories that hold filetests, relative to the workspace root.
pub const FIXTURE_DIRS: &[&str] = &[
    "crates/absint/tests/wir",
    "crates/bmc/tests/fixtures",
    "crates/cegar/tests/fixtures",
    "crates/concolic/tests/fixtures",
];

/// What an engine says of a goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// A kept test covers it.
    Covered,
    /// Proved unreachable, without bound.
    Unreachable,
    /// No execution within the bound reaches it.
    Infeasible,
    /// Nothing is claimed.
    Open,
}

impl Verdict {
    /// The word of the grammar.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Covered => "covered",
            Verdict::Unreachable => "unreachable",
            Verdict::Infeasible => "infeasible",
            Verdict::Open => "open",
        }
    }

    /// The verdict spelled `w`.
    pub fn parse(w: &str) -> Option<Verdict> {
        [Verdict::Covered, Verdict::Unreachable, Verdict::Infeasible, Verdict::Open].into_iter().find(|v| v.word() == w)
    }
}

/// One `test:` line: a kind and its settings.
#[derive(Clone, Debug)]
pub struct Run {
    /// The kind (`bmc`, `cegar`, `concolic`, `absint`).
    pub kind: String,
    /// `KEY=VALUE` settings, in order.
    pub settings: Vec<(String, String)>,
}

impl Run {
    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.settings.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The line as written, for messages.
    pub fn label(&self) -> String {
        let mut s = self.kind.clone();
        for (k, v) in &self.settings {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

/// Where an expectation's goal is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Where {
    /// A source line.
    Line(u32),
    /// A block of a function (the textual IR's `bN`).
    Block(String, u32),
}

/// An expectation's target.
#[derive(Clone, Debug)]
pub enum Target {
    /// The goal `goal` (as written: `true`, `case 3`, `error div_by_zero`,
    /// `succ 1`) at `at`.
    Goal { at: Where, goal: String },
    /// Every branch outcome no other expectation names.
    Others,
}

/// One `expect` line.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The kinds it is for; empty for every kind.
    pub kinds: Vec<String>,
    /// What it is about.
    pub target: Target,
    /// The verdict.
    pub verdict: Verdict,
    /// Its line in the file (1-based).
    pub line: usize,
}

/// One `output` line.
#[derive(Clone, Debug)]
pub struct Output {
    /// The kind that answers.
    pub kind: String,
    /// The question (`interval main:b2 v5`).
    pub query: String,
    /// The expected text.
    pub want: String,
    /// Its line in the file (1-based).
    pub line: usize,
}

/// A parsed fixture.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// The file.
    pub path: PathBuf,
    /// Its file name, for messages.
    pub name: String,
    /// Its text.
    pub text: String,
    /// The `test:` lines.
    pub runs: Vec<Run>,
    /// The `expect` lines.
    pub expects: Vec<Expect>,
    /// The `output` lines.
    pub outputs: Vec<Output>,
}

fn comment_prefix(path: &Path) -> &'static str {
    if path.extension().is_some_and(|e| e == "wir") {
        ";"
    } else {
        "//"
    }
}

fn is_kind_list(s: &str) -> bool {
    !s.is_empty()
        && s.split(',').all(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
}

impl Fixture {
    /// Reads and parses `path`.
    pub fn read(path: &Path) -> Result<Fixture, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Fixture::parse(path, text)
    }

    /// Parses `text` (the file `path`).
    pub fn parse(path: &Path, text: String) -> Result<Fixture, String> {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let prefix = comment_prefix(path);
        let mut fx = Fixture {
            path: path.to_path_buf(),
            name: name.clone(),
            text: String::new(),
            runs: vec![],
            expects: vec![],
            outputs: vec![],
        };
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |m: &str| format!("{name}:{line}: {m}: `{}`", raw.trim());
            let t = raw.trim_start();
            if t.starts_with("//!") || t.starts_with("; expect dead:") || t.starts_with("; expect interval:") {
                return Err(err("old expectation syntax"));
            }
            let Some(rest) = t.strip_prefix(prefix) else { continue };
            let rest = rest.trim_start();
            let Some((head, body)) = rest.split_once(':') else { continue };
            let mut words = head.split_whitespace();
            let (Some(directive), kinds, None) = (words.next(), words.next(), words.next()) else { continue };
            let body = body.trim();
            match directive {
                "test" if kinds.is_none() => {
                    let mut toks = body.split_whitespace();
                    let kind = toks.next().ok_or_else(|| err("no kind"))?.to_string();
                    let mut settings = Vec::new();
                    for tok in toks {
                        let (k, v) = tok.split_once('=').ok_or_else(|| err("a setting is KEY=VALUE"))?;
                        settings.push((k.to_string(), v.to_string()));
                    }
                    fx.runs.push(Run { kind, settings });
                }
                "expect" if kinds.is_none_or(is_kind_list) => {
                    let kinds = kinds.map_or_else(Vec::new, |k| k.split(',').map(str::to_string).collect());
                    let toks: Vec<&str> = body.split_whitespace().collect();
                    let (Some(last), true) = (toks.last(), toks.len() >= 2) else { return Err(err("too short")) };
                    let verdict = Verdict::parse(last).ok_or_else(|| err("unknown verdict"))?;
                    let target = if toks.len() == 2 && toks[0] == "others" {
                        Target::Others
                    } else {
                        let at = parse_where(&text, toks[0]).map_err(|m| err(&m))?;
                        let goal = toks[1..toks.len() - 1].join(" ");
                        if goal.is_empty() {
                            return Err(err("no goal"));
                        }
                        Target::Goal { at, goal }
                    };
                    fx.expects.push(Expect { kinds, target, verdict, line });
                }
                "output" => {
                    let kind = kinds.ok_or_else(|| err("output needs a kind"))?.to_string();
                    let (query, want) = body.split_once("=>").ok_or_else(|| err("output is QUERY => TEXT"))?;
                    fx.outputs.push(Output {
                        kind,
                        query: query.trim().to_string(),
                        want: want.trim().to_string(),
                        line,
                    });
                }
                _ => {}
            }
        }
        if fx.runs.is_empty() {
            return Err(format!("{}: no `{prefix} test: KIND` line", fx.name));
        }
        fx.text = text;
        Ok(fx)
    }

    /// The distinct kinds of its `test:` lines, in order.
    pub fn kinds(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for r in &self.runs {
            if !v.contains(&r.kind.as_str()) {
                v.push(&r.kind);
            }
        }
        v
    }

    /// Its `output` lines for `kind`.
    pub fn outputs_for<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Output> + 'a {
        self.outputs.iter().filter(move |o| o.kind == kind)
    }
}

fn parse_where(text: &str, tok: &str) -> Result<Where, String> {
    if let Some(mark) = tok.strip_prefix('@') {
        let pat = format!("/* {mark} */");
        return text
            .lines()
            .position(|l| l.contains(&pat))
            .map(|i| Where::Line(i as u32 + 1))
            .ok_or_else(|| format!("no line marked {mark}"));
    }
    if let Some((func, block)) = tok.split_once(':') {
        let b = block.strip_prefix('b').and_then(|b| b.parse().ok()).ok_or_else(|| format!("bad block `{block}`"))?;
        return Ok(Where::Block(func.to_string(), b));
    }
    tok.parse().map(Where::Line).map_err(|_| format!("`{tok}` is neither a line, @MARK nor FUNC:bN"))
}

/// Every fixture of [`FIXTURE_DIRS`], sorted by path; panics on a file
/// that does not parse.
pub fn fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    for dir in FIXTURE_DIRS {
        for e in std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}")) {
            let p = e.expect("directory entry").path();
            if p.extension().is_some_and(|e| e == "c" || e == "wir") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths.iter().map(|p| Fixture::read(p).unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// A test an engine ran or kept, for the judge.
#[derive(Clone, Debug)]
pub struct Probe {
    /// The inputs.
    pub vector: TestVector,
    /// The goals the engine says its run covers; `None` when it claims
    /// nothing (a static pass's random inputs): the replay's count.
    pub covered: Option<Vec<GoalId>>,
}

/// What one run of an engine reported.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Which variant of the run this is (`interpolants`, `statements,
    /// summaries`); empty when there is one.
    pub variant: String,
    /// The verdict of every goal, by goal index.
    pub verdicts: Vec<Verdict>,
    /// Its tests, replayed by the judge.
    pub probes: Vec<Probe>,
    /// The limits of the replays.
    pub replay: RunOptions,
    /// Answers to the fixture's `output` queries for this kind.
    pub outputs: BTreeMap<String, String>,
    /// Failures of checks only this kind makes.
    pub failures: Vec<String>,
}

impl Outcome {
    /// An outcome with every goal open.
    pub fn new(goals: &Goals) -> Outcome {
        Outcome {
            variant: String::new(),
            verdicts: vec![Verdict::Open; goals.len()],
            probes: vec![],
            replay: RunOptions::default(),
            outputs: BTreeMap::new(),
            failures: vec![],
        }
    }
}

/// One kind of filetest: runs its engine on a program.
pub trait SubTest {
    /// The kind its `test:` lines name.
    fn kind(&self) -> &'static str;
    /// The verdicts it can give; an expected verdict outside them is read
    /// as `open`.
    fn gives(&self) -> &'static [Verdict];
    /// Runs the engine as `run` says; one outcome per variant.
    fn run(&self, fx: &Fixture, run: &Run, program: &Program, goals: &Goals) -> Result<Vec<Outcome>, String>;
}

/// Reads a fixture's program: `.wir` through the reader, C through
/// `compile_c` (the caller's frontend); verified.
pub fn load(fx: &Fixture, compile_c: &dyn Fn(&Path) -> Result<Program, String>) -> Result<Program, String> {
    let p = if fx.path.extension().is_some_and(|e| e == "wir") {
        walkdown_ir_reader::parse_and_verify(&fx.text).map_err(|e| e.to_string())?
    } else {
        compile_c(&fx.path)?
    };
    walkdown_ir::verify::verify_program(&p).map_err(|e| format!("{e:?}"))?;
    Ok(p)
}

/// The goals `at`/`goal` name, and for `error KIND` where KIND is a
/// finer class than the goal's (`out_of_bounds` of `error memory`), KIND.
fn resolve(program: &Program, goals: &Goals, at: &Where, goal: &str) -> (Vec<GoalId>, Option<String>) {
    let mut want = match goal {
        "true" | "false" => format!("branch {goal}"),
        g => g.to_string(),
    };
    let mut fine = None;
    if let Some(kind) = goal.strip_prefix("error ") {
        fine = Some(kind.to_string());
        let class = match kind {
            "out_of_bounds" | "null_deref" | "use_after_free" => Some("error memory"),
            "double_free" | "invalid_free" => Some("error free"),
            _ => None,
        };
        if let Some(c) = class {
            want = c.to_string();
        }
    }
    let succ: Option<u32> = goal.strip_prefix("succ ").and_then(|s| s.parse().ok());
    let ids = goals
        .goals
        .iter()
        .filter(|(id, g)| {
            let here = match at {
                Where::Line(l) => g.loc.line == *l,
                Where::Block(f, b) => match g.kind {
                    GoalKind::Edge { func, block, .. } => program.funcs[func].name == *f && block.index() as u32 == *b,
                    GoalKind::Error { .. } => false,
                },
            };
            here && match (succ, g.kind) {
                (Some(k), GoalKind::Edge { succ, .. }) => succ == k,
                (Some(_), _) => false,
                (None, _) => goals.describe(*id) == want,
            }
        })
        .map(|(id, _)| id)
        .collect();
    (ids, fine)
}

/// What the judge saw of an outcome's probes.
struct Judged {
    covered: BTreeSet<GoalId>,
    /// (error kind, line) of runs that ended in an error.
    errors: BTreeSet<(String, u32)>,
}

fn judge(interp: &Interpreter, o: &Outcome, name: &str, failures: &mut Vec<String>) -> Judged {
    let mut j = Judged { covered: BTreeSet::new(), errors: BTreeSet::new() };
    for (i, p) in o.probes.iter().enumerate() {
        let r = interp.run(&p.vector, &o.replay);
        if let Some(c) = &p.covered {
            if *c != r.covered {
                failures.push(format!("{name}: test {i} replays to other goals"));
            }
        }
        if let RunEnd::Error { kind, loc, .. } = &r.outcome {
            j.errors.insert((kind.name().to_string(), loc.line));
        }
        j.covered.extend(r.covered);
    }
    j
}

fn effective(v: Verdict, gives: &[Verdict]) -> Verdict {
    if gives.contains(&v) {
        v
    } else {
        Verdict::Open
    }
}

/// Checks `o` (of `sub` on `fx`) against the fixture; returns failures and
/// the texts to bless (line, new text).
fn check(
    fx: &Fixture,
    sub: &dyn SubTest,
    program: &Program,
    goals: &Goals,
    interp: &Interpreter,
    name: &str,
    o: &Outcome,
) -> (Vec<String>, Vec<(usize, String)>) {
    let mut failures = o.failures.clone();
    let judged = judge(interp, o, name, &mut failures);
    let kind = sub.kind();
    // Unqualified expectations first, so that those for this kind override.
    let mut applicable: Vec<&Expect> = fx.expects.iter().filter(|e| e.kinds.is_empty()).collect();
    applicable.extend(fx.expects.iter().filter(|e| e.kinds.iter().any(|k| k == kind)));
    let mut listed: BTreeMap<GoalId, (Verdict, &Expect, Option<String>, u32)> = BTreeMap::new();
    let mut others = None;
    for e in &applicable {
        match &e.target {
            Target::Others => others = Some(e.verdict),
            Target::Goal { at, goal } => {
                let (ids, fine) = resolve(program, goals, at, goal);
                if ids.is_empty() {
                    failures.push(format!("{name}: line {}: no goal `{goal}` at {at:?}", e.line));
                }
                for id in ids {
                    listed.insert(id, (e.verdict, e, fine.clone(), goals.goals[id].loc.line));
                }
            }
        }
    }
    for (id, (want, e, fine, line)) in &listed {
        let want = effective(*want, sub.gives());
        let got = o.verdicts[id.index()];
        if got != want {
            failures.push(format!(
                "{name}: {} at line {line} (expectation on line {}): expected {}, got {}",
                goals.describe(*id),
                e.line,
                want.word(),
                got.word()
            ));
        }
        if let (Verdict::Covered, Some(k)) = (want, fine) {
            if !judged.errors.contains(&(k.clone(), *line)) {
                failures.push(format!("{name}: no test ends in {k} at line {line}"));
            }
        }
    }
    if let Some(v) = others {
        let want = effective(v, sub.gives());
        for (id, g) in goals.goals.iter() {
            if listed.contains_key(&id) || !matches!(g.kind, GoalKind::Edge { .. }) {
                continue;
            }
            let got = o.verdicts[id.index()];
            if got != want {
                failures.push(format!(
                    "{name}: {} at line {} is {}, expected {} (others)",
                    goals.describe(id),
                    g.loc.line,
                    got.word(),
                    want.word()
                ));
            }
        }
    }
    for (i, v) in o.verdicts.iter().enumerate() {
        let id = GoalId::new(i);
        if *v == Verdict::Unreachable && judged.covered.contains(&id) {
            failures.push(format!(
                "{name}: {} at line {} proved unreachable but covered by a test",
                goals.describe(id),
                goals.goals[id].loc.line
            ));
        }
    }
    let mut bless = Vec::new();
    for out in fx.outputs_for(kind) {
        match o.outputs.get(&out.query) {
            None => failures.push(format!("{name}: line {}: no answer to `{}`", out.line, out.query)),
            Some(got) if *got != out.want => {
                if blessing() {
                    bless.push((out.line, got.clone()));
                } else {
                    failures.push(format!(
                        "{name}: line {}: {}: expected {}, got {got} (WALKDOWN_BLESS=1 rewrites it)",
                        out.line, out.query, out.want
                    ));
                }
            }
            Some(_) => {}
        }
    }
    (failures, bless)
}

/// Whether `WALKDOWN_BLESS=1` asks to rewrite expected texts.
pub fn blessing() -> bool {
    std::env::var_os("WALKDOWN_BLESS").is_some_and(|v| v == "1")
}

fn bless_file(fx: &Fixture, texts: &[(usize, String)]) {
    let mut lines: Vec<String> = fx.text.lines().map(str::to_string).collect();
    for (line, got) in texts {
        let l = &mut lines[line - 1];
        let head = l.split_once("=>").map(|(h, _)| h.to_string()).expect("an output line");
        *l = format!("{head}=> {got}");
    }
    let mut text = lines.join("\n");
    if fx.text.ends_with('\n') {
        text.push('\n');
    }
    std::fs::write(&fx.path, text).unwrap_or_else(|e| panic!("{}: {e}", fx.path.display()));
    eprintln!("blessed {} line(s) of {}", texts.len(), fx.path.display());
}

/// Runs every `test:` line of kind `sub.kind()` of `fx`; returns the
/// failures, and the outcomes.
pub fn run_fixture(
    fx: &Fixture,
    sub: &dyn SubTest,
    compile_c: &dyn Fn(&Path) -> Result<Program, String>,
) -> (Vec<String>, Vec<Outcome>) {
    let mut failures = Vec::new();
    let mut outcomes = Vec::new();
    let program = match load(fx, compile_c) {
        Ok(p) => p,
        Err(e) => return (vec![format!("{}: {e}", fx.name)], outcomes),
    };
    let goals = Goals::compute(&program);
    let interp = Interpreter::new(&program, &goals).expect("the interpreter prepares the program");
    let mut bless = Vec::new();
    for run in fx.runs.iter().filter(|r| r.kind == sub.kind()) {
        match sub.run(fx, run, &program, &goals) {
            Err(e) => failures.push(format!("{} ({}): {e}", fx.name, run.label())),
            Ok(os) => {
                for o in os {
                    let name = if o.variant.is_empty() {
                        format!("{} ({})", fx.name, run.label())
                    } else {
                        format!("{} ({}, {})", fx.name, run.label(), o.variant)
                    };
                    let (f, b) = check(fx, sub, &program, &goals, &interp, &name, &o);
                    failures.extend(f);
                    for x in b {
                        if !bless.iter().any(|(l, _)| *l == x.0) {
                            bless.push(x);
                        }
                    }
                    outcomes.push(o);
                }
            }
        }
    }
    if !bless.is_empty() {
        bless_file(fx, &bless);
    }
    (failures, outcomes)
}

/// The filetest of one kind: every fixture that declares it; panics with
/// every failure. Returns the number of fixtures run.
pub fn run_kind(sub: &dyn SubTest, compile_c: &dyn Fn(&Path) -> Result<Program, String>) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    for fx in fixtures().iter().filter(|f| f.kinds().contains(&sub.kind())) {
        n += 1;
        failures.extend(run_fixture(fx, sub, compile_c).0);
    }
    assert!(n > 0, "no fixture declares `test: {}`", sub.kind());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    n
}

/// Runs every fixture that declares two or more of `subs`' kinds through
/// each of them (checking each against the fixture), then compares: no
/// kind may prove unreachable a goal a test of another kind covers.
/// Returns the number of fixtures compared.
pub fn compare_kinds(subs: &[&dyn SubTest], compile_c: &dyn Fn(&Path) -> Result<Program, String>) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    for fx in fixtures() {
        let mine: Vec<&&dyn SubTest> = subs.iter().filter(|s| fx.kinds().contains(&s.kind())).collect();
        if mine.len() < 2 {
            continue;
        }
        n += 1;
        let program = match load(&fx, compile_c) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", fx.name));
                continue;
            }
        };
        let goals = Goals::compute(&program);
        let interp = Interpreter::new(&program, &goals).expect("the interpreter prepares the program");
        // (kind, goals proved unreachable, goals its tests cover)
        let mut claims: Vec<(&str, BTreeSet<GoalId>, BTreeSet<GoalId>)> = Vec::new();
        for sub in mine {
            let (f, outcomes) = run_fixture(&fx, *sub, compile_c);
            failures.extend(f);
            for o in outcomes {
                let mut ignored = Vec::new();
                let judged = judge(&interp, &o, &fx.name, &mut ignored);
                let dead =
                    (0..goals.len()).filter(|&i| o.verdicts[i] == Verdict::Unreachable).map(GoalId::new).collect();
                claims.push((sub.kind(), dead, judged.covered));
            }
        }
        for (k1, dead, _) in &claims {
            for (k2, _, covered) in &claims {
                for id in dead.intersection(covered) {
                    failures.push(format!(
                        "{}: {k1} proves {} at line {} unreachable, a test of {k2} covers it",
                        fx.name,
                        goals.describe(*id),
                        goals.goals[*id].loc.line
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_grammar() {
        let text = "/* x\n// test: bmc unwind=4\n// test: cegar\n// expect: @M true unreachable\n// expect bmc,cegar: 3 case default open\n// expect: others covered\n*/\nint x; /* M */\n";
        let fx = Fixture::parse(Path::new("a.c"), text.to_string()).unwrap();
        assert_eq!(fx.kinds(), ["bmc", "cegar"]);
        assert_eq!(fx.runs[0].get("unwind"), Some("4"));
        assert_eq!(fx.expects.len(), 3);
        assert!(matches!(&fx.expects[0].target, Target::Goal { at: Where::Line(8), goal } if goal == "true"));
        assert_eq!(fx.expects[1].kinds, ["bmc", "cegar"]);
        assert!(matches!(fx.expects[2].target, Target::Others));
        let wir =
            "; test: absint\n; expect: main:b4 succ 0 unreachable\n; output absint: interval main:b2 v1 => [0, 9]\n";
        let fx = Fixture::parse(Path::new("a.wir"), wir.to_string()).unwrap();
        assert!(
            matches!(&fx.expects[0].target, Target::Goal { at: Where::Block(f, 4), goal } if f == "main" && goal == "succ 0")
        );
        assert_eq!(fx.outputs[0].query, "interval main:b2 v1");
        assert_eq!(fx.outputs[0].want, "[0, 9]");
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for bad in [
            "// test: bmc unwind\n",
            "// test: bmc\n// expect: 3 true maybe\n",
            "//! expect 3 true covered\n",
            "int x;\n",
        ] {
            assert!(Fixture::parse(Path::new("a.c"), bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_fixture_parses() {
        assert!(fixtures().len() >= 30);
    }
}
