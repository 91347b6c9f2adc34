//! Random loops, fast-forwarded and plain: seeded programs with one loop
//! over one to three counters of 8, 16, 32 or 64 bits (constant or input
//! starts, steps of either sign, an in-body branch on a counter, its sum
//! with a constant, its truncation, extension or a masked value, or two
//! counters against each other, a second branch that multiplies or resets
//! a counter, an exit test of a random predicate against a bound near the
//! start) must give the same outcome, goals, inputs, line counts and
//! total steps with fast-forwarding on and off. Loops the plain run does
//! not finish within its step limit are not compared. The test fails if
//! too few programs are compared or too few jumps are made, so it cannot
//! pass vacuously. `WALKDOWN_FF_ROUNDS=N` runs N programs (default 1500).

mod common;

use common::*;
use walkdown_interp::{ExecLimits, Outcome, RunOptions};
use walkdown_ir::testvec::TestVector;
use walkdown_ir::*;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
    fn small(&mut self) -> i64 {
        self.below(15) as i64 - 7
    }
}

const DM: DataModel = DataModel::LP64;
const PREDS: [CmpPred; 10] = [
    CmpPred::Eq,
    CmpPred::Ne,
    CmpPred::Ult,
    CmpPred::Ule,
    CmpPred::Ugt,
    CmpPred::Uge,
    CmpPred::Slt,
    CmpPred::Sle,
    CmpPred::Sgt,
    CmpPred::Sge,
];

/// A random one-loop program and an input vector for it.
fn program_of(rng: &mut Rng) -> (Program, Vec<i128>) {
    let w = rng.pick(&[Type::I8, Type::I16, Type::I32, Type::I64]);
    let n = 1 + rng.below(3) as usize;
    let (mut f, _) = Fb::new(&[]);
    let mut inputs = Vec::new();
    let mut inits = Vec::new();
    let base = rng.below(2000) as i64 - 1000;
    for _ in 0..n {
        if rng.below(3) == 0 {
            inits.push(f.nondet(w, true));
            inputs.push(i128::from(base + rng.small() * 10));
        } else {
            inits.push(ci(w, base + rng.small() * 10, DM));
        }
    }
    let lp = f.new_block();
    let ba = f.new_block();
    let bb = f.new_block();
    let latch = f.new_block();
    let done = f.new_block();
    let vs: Vec<Operand> = (0..n).map(|_| Operand::Value(f.body.add_param(lp, w))).collect();
    let us: Vec<Operand> = (0..n).map(|_| Operand::Value(f.body.add_param(latch, w))).collect();
    f.term(Terminator::Jump(BlockCall { block: lp, args: inits }));

    // The in-body branch.
    f.switch_to(lp);
    let a = rng.below(n as u64) as usize;
    let (x, xt) = match rng.below(6) {
        0 => (vs[a], w),
        1 => (f.bin(BinOp::Add, w, vs[a], ci(w, rng.small() * 100, DM)), w),
        2 => (f.bin(BinOp::And, w, vs[a], ci(w, 7, DM)), w),
        3 if w != Type::I64 => (f.cast(CastOp::ZExt, w, Type::I64, vs[a]), Type::I64),
        4 if w != Type::I64 => (f.cast(CastOp::SExt, w, Type::I64, vs[a]), Type::I64),
        5 if w != Type::I8 => (f.cast(CastOp::Trunc, w, Type::I8, vs[a]), Type::I8),
        _ => (vs[a], w),
    };
    let rhs = if xt == w && n > 1 && rng.below(3) == 0 { vs[(a + 1) % n] } else { ci(xt, base + rng.small() * 50, DM) };
    let c = f.cmp(rng.pick(&PREDS), xt, x, rhs);
    f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(ba), if_false: BlockCall::new(bb) });
    for (blk, sign) in [(ba, 1i64), (bb, -1i64)] {
        f.switch_to(blk);
        let mut next = Vec::new();
        for &v in &vs {
            let u = match rng.below(12) {
                0 => f.bin(BinOp::Mul, w, v, ci(w, 3, DM)),
                1 => ci(w, base, DM),
                2 => v,
                _ => f.bin(BinOp::Add, w, v, ci(w, sign * (1 + rng.below(5) as i64) * rng.pick(&[1, 1, 1, -1]), DM)),
            };
            next.push(u);
        }
        f.term(Terminator::Jump(BlockCall { block: latch, args: next }));
    }
    // The exit test.
    f.switch_to(latch);
    let bound = ci(w, base + rng.small() * 300, DM);
    let e = f.cmp(rng.pick(&PREDS), w, us[0], bound);
    f.term(Terminator::Branch {
        cond: e,
        if_true: BlockCall { block: lp, args: us.clone() },
        if_false: BlockCall::new(done),
    });
    f.switch_to(done);
    let mut acc = us[0];
    for &u in &us[1..] {
        acc = f.bin(BinOp::Xor, w, acc, u);
    }
    let r = match w {
        Type::I64 => f.cast(CastOp::Trunc, w, Type::I32, acc),
        Type::I32 => acc,
        _ => f.cast(CastOp::SExt, w, Type::I32, acc),
    };
    f.ret(Some(r));
    let mut p = program(DM);
    with_main(&mut p, f);
    (p, inputs)
}

#[test]
fn random_loops_fast_forwarded_and_plain_agree() {
    let rounds: u64 = std::env::var("WALKDOWN_FF_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1500);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let options =
        RunOptions { limits: ExecLimits { max_steps: 2_000_000, ..ExecLimits::default() }, record_lines: true };
    let (mut compared, mut with_jumps, mut unfinished) = (0u64, 0u64, 0u64);
    let mut skipped_total = 0u128;
    for round in 0..rounds {
        let (p, inputs) = program_of(&mut rng);
        let tv = TestVector::from_ints(inputs.iter().copied());
        let plain = run_plain(&p, tv.clone(), &options);
        if plain.outcome == Outcome::StepLimit {
            unfinished += 1;
            continue;
        }
        let ff = run_with(&p, tv, &options);
        let show = || walkdown_ir::write::program_to_string(&p);
        assert_eq!(ff.outcome, plain.outcome, "round {round}, inputs {inputs:?}:\n{}", show());
        assert_eq!(ff.covered, plain.covered, "round {round}:\n{}", show());
        assert_eq!(ff.inputs, plain.inputs, "round {round}");
        assert_eq!(ff.line_counts, plain.line_counts, "round {round}:\n{}", show());
        assert_eq!(u128::from(ff.steps) + ff.skipped_steps, u128::from(plain.steps), "round {round}:\n{}", show());
        compared += 1;
        if ff.fast_forwards > 0 {
            with_jumps += 1;
        }
        skipped_total += ff.skipped_steps;
    }
    eprintln!(
        "{rounds} programs: {compared} compared ({with_jumps} with jumps, {skipped_total} steps jumped over), \
         {unfinished} not finished plainly within the limit"
    );
    assert!(compared * 3 >= rounds, "too few programs end: {compared} of {rounds}");
    assert!(with_jumps * 5 >= compared, "too few jumps: {with_jumps} of {compared}");
}
