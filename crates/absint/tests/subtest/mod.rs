//! The `absint` kind of the filetests (`walkdown_testsupport::filetest`):
//! the interval analysis. Its verdicts are `unreachable` (an outcome it
//! proves dead) and `open`; its probes are 2000 seeded random input
//! vectors, of which none may cover what it proves dead.
//!
//! Output queries: `interval FUNC:bN vK`, the interval of a value on entry
//! to a block (`[lo, hi]`).

use walkdown_absint::{analyze, Analysis};
use walkdown_interp::{ExecLimits, RunOptions};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::Goals;
use walkdown_ir::{Program, Value};
use walkdown_testsupport::filetest::{Fixture, Outcome, Probe, Run, SubTest, Verdict};

/// The abstract interpretation.
pub struct Absint;

fn interval(a: &Analysis<'_>, query: &str) -> Result<String, String> {
    let parts: Vec<&str> = query.split_whitespace().collect();
    let ["interval", at, value] = parts[..] else { return Err(format!("unknown query `{query}`")) };
    let (func, block) = at.split_once(":b").ok_or(format!("`{at}` is not FUNC:bN"))?;
    let block: u32 = block.parse().map_err(|_| format!("bad block in `{at}`"))?;
    let v: u32 = value.strip_prefix('v').and_then(|v| v.parse().ok()).ok_or(format!("bad value `{value}`"))?;
    let (f, b) = a.lookup(func, block).map_err(|e| e.to_string())?;
    Ok(a.interval_at(f, b, Value::from_u32(v)).to_string())
}

impl SubTest for Absint {
    fn kind(&self) -> &'static str {
        "absint"
    }

    fn gives(&self) -> &'static [Verdict] {
        &[Verdict::Unreachable, Verdict::Open]
    }

    fn run(&self, fx: &Fixture, _run: &Run, program: &Program, goals: &Goals) -> Result<Vec<Outcome>, String> {
        let a = analyze(program);
        let mut o = Outcome::new(goals);
        for g in a.dead_goals(goals) {
            o.verdicts[g.index()] = Verdict::Unreachable;
        }
        let name = fx.path.display().to_string();
        o.probes = walkdown_testsupport::input_vectors(&name, 2000)
            .into_iter()
            .map(|vector| Probe { vector, covered: None })
            .collect();
        o.replay = RunOptions { limits: ExecLimits { max_steps: 100_000, ..Default::default() }, ..Default::default() };
        for out in fx.outputs_for("absint") {
            let answer = interval(&a, &out.query).unwrap_or_else(|e| format!("error: {e}"));
            o.outputs.insert(out.query.clone(), answer);
        }
        Ok(vec![o])
    }
}
