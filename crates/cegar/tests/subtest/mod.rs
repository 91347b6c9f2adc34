//! The `cegar` kind of the filetests (`walkdown_testsupport::filetest`):
//! the model checker alone, within 20 s.
//!
//! Settings: `refinement=suffix|core` (suffix when absent). Every proof
//! must be the model checker's own.

use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_campaign::Verdict as Campaign;
use walkdown_cegar::{run_cegar, CegarSettings, Refinement};
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;
use walkdown_testsupport::filetest::{Fixture, Outcome, Probe, Run, SubTest, Verdict};

/// The predicate-abstraction model checker.
pub struct Cegar;

impl SubTest for Cegar {
    fn kind(&self) -> &'static str {
        "cegar"
    }

    fn gives(&self) -> &'static [Verdict] {
        &[Verdict::Covered, Verdict::Unreachable, Verdict::Open]
    }

    fn run(&self, _fx: &Fixture, run: &Run, program: &Program, goals: &Goals) -> Result<Vec<Outcome>, String> {
        let mut settings = CegarSettings::default();
        settings.checker.refinement = match run.get("refinement") {
            None | Some("suffix") => Refinement::Suffix,
            Some("core") => Refinement::Core,
            Some("interpolants") => Refinement::Interpolants,
            Some(r) => return Err(format!("no refinement {r}")),
        };
        let (snap, engine) = run_cegar(program, goals, settings, Duration::from_secs(20), &AtomicBool::new(false))
            .map_err(|e| e.to_string())?;
        eprintln!("{}: {} ({:?})", run.label(), engine.end, engine.figures);
        let mut o = Outcome::new(goals);
        for (i, g) in snap.goals.iter().enumerate() {
            o.verdicts[i] = match &g.verdict {
                Campaign::Covered { .. } => Verdict::Covered,
                Campaign::Unreachable(p) => {
                    if p.engine != "cegar" {
                        o.failures.push(format!("goal {i}: proved by {} instead of cegar", p.engine));
                    }
                    Verdict::Unreachable
                }
                Campaign::Infeasible(_) => Verdict::Infeasible,
                Campaign::Open => Verdict::Open,
            };
        }
        o.probes =
            snap.tests.iter().map(|t| Probe { vector: t.vector.clone(), covered: Some(t.covered.clone()) }).collect();
        Ok(vec![o])
    }
}
