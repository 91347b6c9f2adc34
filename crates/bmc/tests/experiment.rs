//! The paper's experiment on small sizes: random diamond programs verify,
//! are deterministic per seed, and the four covering algorithms agree on
//! which blocks are infeasible when they run to their end; statement cover
//! needs at most one query per block plus one, and each of its models is a
//! complete execution that the interpreter replays to a normal exit.

use std::time::Duration;
use walkdown_bmc::cover::{cover, CoverAlgorithm, CoverSettings, GroupStatus};
use walkdown_bmc::experiment::{cover_blocks, encode_blocks};
use walkdown_bmc::randprog::paper_program;
use walkdown_bmc::vc::Vc;
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;

#[test]
fn random_programs_are_well_formed_and_deterministic() {
    for d in 2..=9 {
        let p = paper_program(d, 3);
        walkdown_ir::verify::verify_program(&p).unwrap();
        let q = paper_program(d, 3);
        assert_eq!(walkdown_ir::write::program_to_string(&p), walkdown_ir::write::program_to_string(&q));
        let blocks = p.funcs.values().next().unwrap().body.as_ref().unwrap().blocks.len();
        assert_eq!(blocks, 1 + 7 * d);
    }
}

#[test]
fn algorithms_agree_and_models_replay() {
    for d in 2..=3 {
        for seed in 0..3 {
            let p = paper_program(d, seed);
            let mut sets = Vec::new();
            for alg in CoverAlgorithm::ALL {
                let o = cover_blocks(&p, alg, Duration::from_secs(30)).unwrap();
                assert!(o.complete, "{alg:?} on {d} diamonds, seed {seed} did not finish");
                if alg == CoverAlgorithm::Statements {
                    assert!(o.stats.queries <= o.status.len() as u64 + 1);
                }
                let inf: Vec<usize> = (0..o.status.len()).filter(|&i| o.status[i] == GroupStatus::Infeasible).collect();
                sets.push(inf);
            }
            assert!(sets.windows(2).all(|w| w[0] == w[1]), "{d} diamonds, seed {seed}: {sets:?}");
            // Statement cover's models are complete executions.
            let (mut vc, targets) = encode_blocks(&p).unwrap();
            let goals = Goals::compute(&p);
            let interp = Interpreter::new(&p, &goals).unwrap();
            let (path_vars, succs) = vc.path_graph();
            let groups = vc.blocks.len();
            let mut bad = Vec::new();
            let mut on_model = |vc: &Vc, m: &walkdown_smt::Model| -> Vec<usize> {
                let tv = TestVector {
                    values: vc
                        .inputs(m)
                        .iter()
                        .map(|(s, b)| walkdown_ir::testvec::InputValue::from_bits(s.ty, s.signed, *b, p.data_model))
                        .collect(),
                };
                let r = interp.run(&tv, &RunOptions::default());
                if !matches!(r.outcome, Outcome::Exit(_)) {
                    bad.push(format!("{:?}", r.outcome));
                }
                (0..vc.blocks.len()).filter(|&i| Vc::holds(m, vc.blocks[i].reach_sym)).collect()
            };
            let settings = CoverSettings { algorithm: CoverAlgorithm::Statements, ..CoverSettings::default() };
            cover(&mut vc, &targets, groups, &path_vars, &succs, &settings, &|_| false, &|_| false, &mut on_model);
            assert!(bad.is_empty(), "{d} diamonds, seed {seed}: replays ended {bad:?}");
        }
    }
}

/// The formula is linear in the program: terms per instruction stay within
/// a constant band from 2 to 9 diamonds (the paper's claim for its
/// encoding, checked on the random programs).
#[test]
fn formula_size_is_linear_in_the_program() {
    let mut ratios = Vec::new();
    for d in 2..=9 {
        let p = paper_program(d, 5);
        let body = p.funcs.values().next().unwrap().body.as_ref().unwrap();
        let size = body.insts.len() + body.blocks.len() + body.values.len();
        let (vc, _) = encode_blocks(&p).expect("encodes");
        let r = vc.size() as f64 / size as f64;
        eprintln!("{d} diamonds: program {size}, formula {} terms, ratio {r:.2}", vc.size());
        ratios.push(r);
    }
    let (lo, hi) = ratios.iter().fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    assert!(hi <= 1.5 * lo, "terms per program entity vary from {lo:.2} to {hi:.2}");
}
