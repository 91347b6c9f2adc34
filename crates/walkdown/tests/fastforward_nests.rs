//! Random loop nests, fast-forwarded and plain: seeded C programs with two
//! or three nested `for` loops over counters of 8, 16 or 32 bits (starts
//! and bounds that are constants, the input, or an outer counter plus a
//! constant; steps of 1, 2 or -1; `<`, `<=`, `!=` and `>` tests), an
//! innermost body that compares the counters with each other and with
//! constants under `&&` (adding to an accumulator, and sometimes calling
//! `reach_error`), and an exit value kept after an inner loop, run on a
//! few inputs with fast-forwarding and without it: outcome, goals, inputs,
//! every line count and the total steps must agree. Runs the plain run
//! does not finish within its step limit are not compared. The test fails
//! if too few runs are compared or too few programs have their outermost
//! loop jumped, so it cannot pass vacuously. `WALKDOWN_NEST_ROUNDS=N` runs
//! N programs (default 300).

use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::DataModel;
use walkdown_testsupport::Rng;

fn pick<'a>(rng: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len() as u64) as usize]
}

/// A random nest; the line of its outermost `for`.
fn program(rng: &mut Rng) -> (String, u32) {
    let depth = 2 + rng.below(2) as usize;
    let types: Vec<&str> =
        (0..depth).map(|_| pick(rng, &["unsigned char", "unsigned short", "unsigned", "int"])).collect();
    let mut lines: Vec<String> = vec![
        "extern unsigned __VERIFIER_nondet_uint(void);".into(),
        "extern void reach_error(void);".into(),
        "int main(void) {".into(),
        "  unsigned n = __VERIFIER_nondet_uint();".into(),
        "  if (n > 40) return 0;".into(),
        "  unsigned acc = 0;".into(),
        "  unsigned last = 0;".into(),
    ];
    for (i, t) in types.iter().enumerate() {
        lines.push(format!("  {t} c{i};"));
    }
    let outer_line = lines.len() as u32 + 1;
    let operand = |rng: &mut Rng, level: usize| -> String {
        match rng.below(if level == 0 { 2 } else { 4 }) {
            0 => format!("{}", rng.below(30)),
            1 => "n".to_string(),
            2 => format!("c{}", rng.below(level as u64)),
            _ => format!("c{} + {}", rng.below(level as u64), 1 + rng.below(5)),
        }
    };
    for level in 0..depth {
        let indent = "  ".repeat(level + 1);
        let c = format!("c{level}");
        let header = match rng.below(5) {
            0 => format!("for ({c} = {}; {c} > {}; {c}--)", operand(rng, level), rng.below(4)),
            1 => format!("for ({c} = {}; {c} != {}; {c}++)", rng.below(3), operand(rng, level)),
            2 => format!("for ({c} = {}; {c} <= {}; {c} += 2)", rng.below(3), operand(rng, level)),
            _ => format!("for ({c} = {}; {c} < {}; {c}++)", operand(rng, level), operand(rng, level)),
        };
        lines.push(format!("{indent}{header} {{"));
    }
    let indent = "  ".repeat(depth + 1);
    let atom = |rng: &mut Rng| -> String {
        let x = rng.below(depth as u64);
        let y = rng.below(depth as u64);
        match rng.below(4) {
            0 => format!("c{x} == c{y}"),
            1 => format!("c{x} == {}", rng.below(20)),
            2 => format!("c{x} != {}", rng.below(20)),
            _ => format!("c{x} < c{y}"),
        }
    };
    let cond: Vec<String> = (0..1 + rng.below(3)).map(|_| atom(rng)).collect();
    let (k1, k2) = (rng.below(4), if rng.below(2) == 0 { 0 } else { rng.below(4) });
    lines.push(format!("{indent}if ({}) acc += {k1}; else acc += {k2};", cond.join(" && ")));
    if rng.below(3) == 0 {
        let cond: Vec<String> = (0..2 + rng.below(2)).map(|_| atom(rng)).collect();
        lines.push(format!("{indent}if ({}) reach_error();", cond.join(" && ")));
    }
    for level in (0..depth).rev() {
        let indent = "  ".repeat(level + 1);
        lines.push(format!("{indent}}}"));
        if level > 0 && rng.below(2) == 0 {
            lines.push(format!("{indent}last = c{level};"));
        }
    }
    lines.push("  return (int)((acc + last + c0) & 0x7f);".into());
    lines.push("}".into());
    (lines.join("\n") + "\n", outer_line)
}

#[test]
fn random_nests_agree_with_plain_runs() {
    let rounds: u64 = std::env::var("WALKDOWN_NEST_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let dir = std::env::temp_dir().join(format!("walkdown-nests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let limits = ExecLimits { max_steps: 3_000_000, ..ExecLimits::default() };
    let options = RunOptions { limits, record_lines: true };
    let (mut compared, mut outer_jumped, mut problems) = (0usize, 0usize, Vec::new());
    for seed in 0..rounds {
        let mut rng = Rng::new(0x6e65_7374 ^ seed.wrapping_mul(0x9e37_79b9));
        let (text, outer_line) = program(&mut rng);
        let path = dir.join(format!("nest{seed}.c"));
        std::fs::write(&path, &text).expect("write");
        let program =
            compile_c(&path, &FrontendSettings { data_model: DataModel::LP64, ..FrontendSettings::default() })
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let goals = Goals::compute(&program);
        let ff = Interpreter::new(&program, &goals).expect("prepare");
        let mut plain = ff.clone();
        plain.set_fast_forward(false);
        let mut jumped = false;
        for n in [0i128, 1, 7, 23, 40] {
            let tv = TestVector::from_ints([n]);
            let rp = plain.run(&tv, &options);
            if matches!(rp.outcome, Outcome::StepLimit | Outcome::TimeLimit) {
                continue;
            }
            let rf = ff.run(&tv, &options);
            let what = format!("seed {seed} n={n}");
            compared += 1;
            if rf.outcome != rp.outcome {
                problems.push(format!("{what}: outcome {:?} vs plain {:?}", rf.outcome, rp.outcome));
            }
            if rf.covered != rp.covered {
                problems.push(format!("{what}: goals differ"));
            }
            if rf.inputs != rp.inputs {
                problems.push(format!("{what}: inputs differ"));
            }
            for (a, b) in rf.line_counts.iter().zip(&rp.line_counts) {
                if a != b {
                    problems.push(format!("{what}: line {}: {} vs plain {}", a.line, a.count, b.count));
                }
            }
            if u128::from(rf.steps) + rf.skipped_steps != u128::from(rp.steps) {
                problems.push(format!("{what}: steps {} + {} vs plain {}", rf.steps, rf.skipped_steps, rp.steps));
            }
            jumped |= rf.jumps.iter().any(|j| j.loc.line == outer_line);
            if problems.len() > 20 {
                break;
            }
        }
        if !problems.is_empty() && problems.iter().any(|p| p.starts_with(&format!("seed {seed} "))) {
            problems.push(format!("seed {seed} program:\n{text}"));
        }
        outer_jumped += usize::from(jumped);
        if problems.len() > 20 {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{rounds} nests: {compared} runs compared, {outer_jumped} programs with their outermost loop jumped");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(compared as u64 >= rounds * 2, "only {compared} runs compared");
    assert!(outer_jumped as u64 * 10 >= rounds, "only {outer_jumped} programs had their outermost loop jumped");
}
