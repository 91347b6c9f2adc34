//! The `concolic` kind of the filetests (`walkdown_testsupport::filetest`):
//! the symbolic search alone (no random fallback, no mutants), 20 s, with
//! the trip-count forms `walkdown gen` computes by default.
//!
//! Settings: `search=ORDER` (`--search`'s names; the default order when
//! absent). A goal is covered when a kept test covers it.

use std::sync::atomic::AtomicBool;
use std::time::Duration;
use walkdown_concolic::{generate, GenSettings, SearchKind};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::Goals;
use walkdown_ir::Program;
use walkdown_testsupport::filetest::{Fixture, Outcome, Probe, Run, SubTest, Verdict};

/// The concolic engine.
pub struct Concolic;

/// The settings of the fixtures: what the symbolic reasoning finds.
pub fn settings(search: SearchKind, program: &Program) -> GenSettings {
    let loop_forms = walkdown_absint::trip_count_forms(&walkdown_absint::analyze_relational(program));
    GenSettings {
        time: Duration::from_secs(20),
        search,
        random_fallback: false,
        mutation_share: 0.0,
        loop_forms,
        ..GenSettings::default()
    }
}

impl SubTest for Concolic {
    fn kind(&self) -> &'static str {
        "concolic"
    }

    fn gives(&self) -> &'static [Verdict] {
        &[Verdict::Covered, Verdict::Open]
    }

    fn run(&self, _fx: &Fixture, run: &Run, program: &Program, goals: &Goals) -> Result<Vec<Outcome>, String> {
        let search = match run.get("search") {
            Some(s) => SearchKind::parse(s).ok_or(format!("no search order {s}"))?,
            None => GenSettings::default().search,
        };
        let result =
            generate(program, goals, &settings(search, program), &AtomicBool::new(false)).map_err(|e| e.to_string())?;
        let mut o = Outcome::new(goals);
        for t in &result.tests {
            for g in &t.covered {
                o.verdicts[g.index()] = Verdict::Covered;
            }
        }
        o.probes =
            result.tests.iter().map(|t| Probe { vector: t.vector.clone(), covered: Some(t.covered.clone()) }).collect();
        Ok(vec![o])
    }
}
