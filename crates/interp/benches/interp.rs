//! Throughput of the interpreter's loop: IR instructions per second on a
//! tight loop (`cargo bench -p walkdown-interp`). Prints the median of 5
//! runs.
//!
//! The loop sums over `i` from 0 to 10^7 with a multiply, a xor, a shift, a
//! load and a store of a stack slot, two adds, a compare and a branch, and
//! calls a small function every 16th iteration.

use std::time::Instant;
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::TestVector;
use walkdown_ir::*;

/// Iterations; `WALKDOWN_BENCH_N` overrides it (for profiling).
fn iterations() -> i64 {
    std::env::var("WALKDOWN_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000_000)
}

fn c64(v: i64) -> Operand {
    Operand::Const(Const::int(Type::I64, v, DataModel::LP64))
}

fn bin(body: &mut Body, b: Block, op: BinOp, lhs: Operand, rhs: Operand) -> Operand {
    let (_, v) = body.append(b, InstKind::Bin { op, ty: Type::I64, lhs, rhs }, Loc::UNKNOWN);
    Operand::Value(v.expect("result"))
}

fn program(n: i64) -> Program {
    let mut p = Program::new(DataModel::LP64);
    let loc = |line| Loc { file: FileId::from_u32(0), line, col: 1 };
    p.files.push("bench.c".into());

    // i64 f(i64 x) { return (x & 255) + 1; }
    let mut fb = Body::default();
    let e = fb.add_block();
    let x = fb.add_param(e, Type::I64);
    let y = bin(&mut fb, e, BinOp::And, x.into(), c64(255));
    let z = bin(&mut fb, e, BinOp::Add, y, c64(1));
    fb.set_term(e, Terminator::Return(Some(z)), loc(2));
    let f =
        p.funcs.push(FuncData { body: Some(fb), ..FuncData::external("f", vec![Type::I64], Some(Type::I64), false) });

    let mut body = Body::default();
    let b0 = body.add_block();
    let b1 = body.add_block();
    let b2 = body.add_block();
    let b3 = body.add_block();
    let b4 = body.add_block();
    let b5 = body.add_block();
    let i = body.add_param(b1, Type::I64);
    let sum = body.add_param(b1, Type::I64);

    // b0: slot = alloca 8; store 0; jump b1(0, 0)
    let (_, slot) = body.append(b0, InstKind::Alloca { size: c64(8), align: 8 }, loc(5));
    let slot = Operand::Value(slot.expect("slot"));
    body.append(b0, InstKind::Store { ty: Type::I64, ptr: slot, value: c64(0) }, loc(5));
    body.set_term(b0, Terminator::Jump(BlockCall { block: b1, args: vec![c64(0), c64(0)] }), loc(6));

    // b1: branch i < N
    let (_, c) =
        body.append(b1, InstKind::Cmp { pred: CmpPred::Slt, ty: Type::I64, lhs: i.into(), rhs: c64(n) }, loc(6));
    body.set_term(
        b1,
        Terminator::Branch {
            cond: Operand::Value(c.expect("cmp")),
            if_true: BlockCall::new(b2),
            if_false: BlockCall::new(b3),
        },
        loc(6),
    );

    // b2: the body.
    let t1 = bin(&mut body, b2, BinOp::Mul, i.into(), c64(3));
    let t2 = bin(&mut body, b2, BinOp::Xor, t1, sum.into());
    let t3 = bin(&mut body, b2, BinOp::LShr, t2, c64(1));
    let (_, s) = body.append(b2, InstKind::Load { ty: Type::I64, ptr: slot }, loc(7));
    let s2 = bin(&mut body, b2, BinOp::Add, Operand::Value(s.expect("load")), t3);
    body.append(b2, InstKind::Store { ty: Type::I64, ptr: slot, value: s2 }, loc(7));
    let sum2 = bin(&mut body, b2, BinOp::Add, sum.into(), t1);
    let i2 = bin(&mut body, b2, BinOp::Add, i.into(), c64(1));
    let low = bin(&mut body, b2, BinOp::And, i2, c64(15));
    let (_, z) = body.append(b2, InstKind::Cmp { pred: CmpPred::Eq, ty: Type::I64, lhs: low, rhs: c64(0) }, loc(8));
    body.set_term(
        b2,
        Terminator::Branch {
            cond: Operand::Value(z.expect("cmp")),
            if_true: BlockCall { block: b4, args: vec![] },
            if_false: BlockCall { block: b5, args: vec![i2, sum2] },
        },
        loc(8),
    );
    // b4: every 16th iteration, sum2 += f(i2).
    let (_, r) =
        body.append(b4, InstKind::Call { callee: Callee::Direct(f), args: vec![i2], ret: Some(Type::I64) }, loc(9));
    let sum3 = bin(&mut body, b4, BinOp::Add, sum2, Operand::Value(r.expect("call")));
    body.set_term(b4, Terminator::Jump(BlockCall { block: b5, args: vec![i2, sum3] }), loc(9));
    // b5(i, sum): back edge.
    let pi = body.add_param(b5, Type::I64);
    let ps = body.add_param(b5, Type::I64);
    body.set_term(b5, Terminator::Jump(BlockCall { block: b1, args: vec![pi.into(), ps.into()] }), loc(10));

    // b3: return (load slot + sum) as i32.
    let (_, s) = body.append(b3, InstKind::Load { ty: Type::I64, ptr: slot }, loc(11));
    let tot = bin(&mut body, b3, BinOp::Add, Operand::Value(s.expect("load")), sum.into());
    let (_, r) =
        body.append(b3, InstKind::Cast { op: CastOp::Trunc, from: Type::I64, to: Type::I32, arg: tot }, loc(11));
    body.set_term(b3, Terminator::Return(Some(Operand::Value(r.expect("trunc")))), loc(11));
    p.funcs.push(FuncData { body: Some(body), ..FuncData::external("main", vec![], Some(Type::I32), false) });
    p
}

fn expected(n: i64) -> i32 {
    let (mut slot, mut sum) = (0i64, 0i64);
    for i in 0..n {
        let t1 = i.wrapping_mul(3);
        slot = slot.wrapping_add(((t1 ^ sum) as u64 >> 1) as i64);
        sum = sum.wrapping_add(t1);
        let i2 = i + 1;
        if i2 & 15 == 0 {
            sum = sum.wrapping_add((i2 & 255) + 1);
        }
    }
    slot.wrapping_add(sum) as i32
}

fn main() {
    let n = iterations();
    let p = program(n);
    if let Err(e) = walkdown_ir::verify::verify_program(&p) {
        eprintln!("bench program does not verify:\n{e}");
        std::process::exit(1);
    }
    let interp = Interpreter::new(&p, &Goals::compute(&p)).expect("prepare");
    let want = expected(n);
    let opts = RunOptions { limits: ExecLimits { max_steps: u64::MAX, ..ExecLimits::default() }, record_lines: false };
    let mut rates = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let r = interp.run(&TestVector::default(), &opts);
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(r.outcome, Outcome::Exit(want), "wrong result");
        rates.push(r.steps as f64 / secs);
        println!("run: {} steps in {:.3} s = {:.1} M inst/s", r.steps, secs, r.steps as f64 / secs / 1e6);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "interp tight loop: median {:.1} M IR instructions/s (5 runs; best {:.1})",
        rates[2] / 1e6,
        rates[4] / 1e6
    );

    let lines = RunOptions { record_lines: true, ..opts };
    let t = Instant::now();
    let r = interp.run(&TestVector::default(), &lines);
    let secs = t.elapsed().as_secs_f64();
    println!("with record_lines: {:.1} M inst/s", r.steps as f64 / secs / 1e6);
}
