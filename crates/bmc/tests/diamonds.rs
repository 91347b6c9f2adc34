//! The seed example `../shared/bench/seeds/diamonds.c`: the three blocks
//! marked DEAD are reported unreachable without bound (the loop bound is
//! the constant 2, so with unwinding 2 no execution is cut), and every other
//! branch outcome is covered by a replayed test, with every algorithm.

mod common;

use walkdown_bmc::engine::settings_with;
use walkdown_bmc::{CoverAlgorithm, GoalVerdict};
use walkdown_ir::goals::GoalKind;
use walkdown_ir::DataModel;

#[test]
fn diamonds_dead_blocks_are_unreachable() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let path = shared.join("bench/seeds/diamonds.c");
    let program = common::load(&path, DataModel::LP64);
    let text = std::fs::read_to_string(&path).unwrap();
    let dead_lines: Vec<u32> =
        text.lines().enumerate().filter(|(_, l)| l.contains("/* DEAD")).map(|(i, _)| i as u32 + 1).collect();
    assert_eq!(dead_lines.len(), 3);
    for alg in CoverAlgorithm::ALL {
        let (goals, r) = common::run(&program, &settings_with(alg, 2));
        assert!(r.unsupported.is_none(), "{:?}", r.unsupported);
        assert_eq!(r.cut_reachable, Some(false), "{alg:?}");
        let mut unreachable_lines = Vec::new();
        for (id, g) in goals.goals.iter() {
            if !matches!(g.kind, GoalKind::Edge { .. }) {
                continue;
            }
            match r.verdicts[id.as_u32() as usize] {
                GoalVerdict::Covered(_) => {}
                GoalVerdict::Unreachable => unreachable_lines.push(g.loc.line),
                v => panic!("{alg:?}: goal {id} at line {} is {v:?}", g.loc.line),
            }
        }
        unreachable_lines.sort();
        assert_eq!(unreachable_lines, dead_lines, "{alg:?}: {:?}", r.verdicts);
    }
}
