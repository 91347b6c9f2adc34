//! The `bmc` kind of the filetests (`walkdown_testsupport::filetest`).
//!
//! Settings: `unwind=K` (the bound, 2 when absent) and `alg=NAME` (one
//! cover algorithm). Without `alg` a line runs every algorithm, and
//! statement cover after a summary phase.

use std::sync::atomic::AtomicBool;
use walkdown_bmc::engine::settings_with;
use walkdown_bmc::{run_bmc, BmcSettings, CoverAlgorithm, GoalVerdict};
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;
use walkdown_testsupport::filetest::{Fixture, Outcome, Probe, Run, SubTest, Verdict};

/// The bounded engine.
pub struct Bmc;

impl SubTest for Bmc {
    fn kind(&self) -> &'static str {
        "bmc"
    }

    fn gives(&self) -> &'static [Verdict] {
        &[Verdict::Covered, Verdict::Unreachable, Verdict::Infeasible, Verdict::Open]
    }

    fn run(&self, _fx: &Fixture, run: &Run, program: &Program, goals: &Goals) -> Result<Vec<Outcome>, String> {
        let k: u32 = run.get("unwind").map_or(Ok(2), str::parse).map_err(|e| format!("unwind: {e}"))?;
        let variants: Vec<(CoverAlgorithm, bool)> = match run.get("alg") {
            Some(name) => {
                let alg =
                    CoverAlgorithm::ALL.into_iter().find(|a| a.name() == name).ok_or(format!("no algorithm {name}"))?;
                vec![(alg, false)]
            }
            None => CoverAlgorithm::ALL
                .into_iter()
                .map(|a| (a, false))
                .chain([(CoverAlgorithm::Statements, true)])
                .collect(),
        };
        let mut outcomes = Vec::new();
        for (alg, summaries) in variants {
            let settings = BmcSettings { summaries, ..settings_with(alg, k) };
            let r = run_bmc(program, goals, &settings, &AtomicBool::new(false)).map_err(|e| e.to_string())?;
            let mut o = Outcome::new(goals);
            o.variant = format!("{}{}", alg.name(), if summaries { ", summaries" } else { "" });
            if let Some(e) = &r.unsupported {
                return Err(format!("{}: unsupported: {e}", o.variant));
            }
            for (i, v) in r.verdicts.iter().enumerate() {
                o.verdicts[i] = match v {
                    GoalVerdict::Covered(_) => Verdict::Covered,
                    GoalVerdict::Unreachable => Verdict::Unreachable,
                    GoalVerdict::InfeasibleWithin(_) => Verdict::Infeasible,
                    GoalVerdict::Open => Verdict::Open,
                };
            }
            o.probes =
                r.tests.iter().map(|t| Probe { vector: t.vector.clone(), covered: Some(t.covered.clone()) }).collect();
            outcomes.push(o);
        }
        Ok(outcomes)
    }
}
