//! Control flow: calls (direct, indirect, recursive), limits, block
//! arguments, goals of branches and switches, line counts.

mod common;
use common::*;
use walkdown_interp::{ExecLimits, LineCount, Outcome, RunOptions};
use walkdown_ir::goals::{EdgeLabel, Goals};
use walkdown_ir::testvec::TestVector;
use walkdown_ir::*;

const DM: DataModel = DataModel::LP64;

/// `int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }`
fn fact(p: &mut Program) -> FuncId {
    let id = p.funcs.next_key();
    let (mut f, ps) = Fb::new(&[Type::I32]);
    let n = ps[0];
    let c = f.cmp(CmpPred::Sle, Type::I32, n, c32(1));
    let base = f.new_block();
    let rec = f.new_block();
    f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(base), if_false: BlockCall::new(rec) });
    f.switch_to(base);
    f.ret(Some(c32(1)));
    f.switch_to(rec);
    let m = f.bin(BinOp::Sub, Type::I32, n, c32(1));
    let r = f.call(id, vec![m], Some(Type::I32));
    let v = f.bin(BinOp::Mul, Type::I32, n, r);
    f.ret(Some(v));
    define(p, "fact", vec![Type::I32], Some(Type::I32), f)
}

#[test]
fn recursion() {
    let mut p = program(DM);
    let fid = fact(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let n = f.nondet(Type::I32, true);
    let r = f.call(fid, vec![n], Some(Type::I32));
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[5]).outcome, Outcome::Exit(120));
    assert_eq!(run(&p, &[10]).outcome, Outcome::Exit(3628800));
    // Deep but within the default limit (gcc's usual depth, not 20,000).
    assert_eq!(run(&p, &[10_000]).outcome, Outcome::Exit(0));
    assert_eq!(run(&p, &[90_000]).outcome, Outcome::Exit(0));
    // Beyond it.
    assert_eq!(run(&p, &[150_000]).outcome, Outcome::DepthLimit);
    let opts = RunOptions { limits: ExecLimits { max_call_depth: 10, ..Default::default() }, ..Default::default() };
    assert_eq!(run_with(&p, TestVector::from_ints([8]), &opts).outcome, Outcome::Exit(40320));
    assert_eq!(run_with(&p, TestVector::from_ints([9]), &opts).outcome, Outcome::Exit(362880));
    assert_eq!(run_with(&p, TestVector::from_ints([10]), &opts).outcome, Outcome::DepthLimit);
}

#[test]
fn step_limit_on_an_infinite_loop() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let lp = f.new_block();
    let i = f.body.add_param(lp, Type::I32);
    f.term(Terminator::Jump(BlockCall { block: lp, args: vec![c32(0)] }));
    f.switch_to(lp);
    let j = f.bin(BinOp::Add, Type::I32, i.into(), c32(1));
    f.term(Terminator::Jump(BlockCall { block: lp, args: vec![j] }));
    with_main(&mut p, f);
    let opts = RunOptions { limits: ExecLimits { max_steps: 1000, ..Default::default() }, ..Default::default() };
    let r = run_with(&p, TestVector::default(), &opts);
    assert_eq!(r.outcome, Outcome::StepLimit);
    assert_eq!(r.steps, 1000);
    // Steps are exact: entry jump (1) + 2 per iteration, fused or not.
    let (mut f, _) = Fb::new(&[]);
    let lp = f.new_block();
    let done = f.new_block();
    let i = f.body.add_param(lp, Type::I32);
    f.term(Terminator::Jump(BlockCall { block: lp, args: vec![c32(0)] }));
    f.switch_to(lp);
    let j = f.bin(BinOp::Add, Type::I32, i.into(), c32(1));
    let c = f.cmp(CmpPred::Slt, Type::I32, j, c32(10));
    f.term(Terminator::Branch {
        cond: c,
        if_true: BlockCall { block: lp, args: vec![j] },
        if_false: BlockCall::new(done),
    });
    f.switch_to(done);
    f.ret(Some(j));
    let mut p = program(DM);
    with_main(&mut p, f);
    let r = run_plain(&p, TestVector::default(), &RunOptions::default());
    assert_eq!(r.outcome, Outcome::Exit(10));
    assert_eq!(r.steps, 1 + 10 * 3 + 1);
    assert_eq!((r.skipped_steps, r.fast_forwards), (0, 0));
    // Fast-forwarded: the first iteration runs, the next eight are jumped
    // over (the exit test changes at the ninth), the last runs; the steps
    // jumped over are counted apart.
    let ff = run(&p, &[]);
    assert_eq!(ff.outcome, Outcome::Exit(10));
    assert_eq!(ff.fast_forwards, 1);
    assert_eq!(ff.steps, 1 + 3 + 3 + 1);
    assert_eq!(u128::from(ff.steps) + ff.skipped_steps, u128::from(r.steps));
    let exact = RunOptions { limits: ExecLimits { max_steps: 32, ..Default::default() }, ..Default::default() };
    assert_eq!(run_plain(&p, TestVector::default(), &exact).outcome, Outcome::Exit(10));
    for max in 1..32 {
        let opts = RunOptions { limits: ExecLimits { max_steps: max, ..Default::default() }, ..Default::default() };
        let r = run_plain(&p, TestVector::default(), &opts);
        assert_eq!(r.outcome, Outcome::StepLimit, "{max}");
        assert_eq!(r.steps, max);
    }
}

/// Block arguments are a parallel copy: `(a, b) = (b, a)` each iteration.
#[test]
fn block_arguments_swap() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let lp = f.new_block();
    let done = f.new_block();
    let a = f.body.add_param(lp, Type::I32);
    let b = f.body.add_param(lp, Type::I32);
    let n = f.body.add_param(lp, Type::I32);
    f.term(Terminator::Jump(BlockCall { block: lp, args: vec![c32(1), c32(2), c32(0)] }));
    f.switch_to(lp);
    let n2 = f.bin(BinOp::Add, Type::I32, n.into(), c32(1));
    let c = f.cmp(CmpPred::Ult, Type::I32, n2, c32(3));
    f.term(Terminator::Branch {
        cond: c,
        if_true: BlockCall { block: lp, args: vec![b.into(), a.into(), n2] },
        if_false: BlockCall::new(done),
    });
    f.switch_to(done);
    let t = f.bin(BinOp::Mul, Type::I32, a.into(), c32(10));
    let r = f.bin(BinOp::Add, Type::I32, t, b.into());
    f.ret(Some(r));
    with_main(&mut p, f);
    // Iterations: (1,2) -> (2,1) -> (1,2); the third test exits with (1,2).
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(12));
}

/// `int add1(int x)`, `int dbl(int x)` called through a pointer stored in
/// memory, chosen by the input.
#[test]
fn function_pointers() {
    let mut p = program(DM);
    let (mut g, ps) = Fb::new(&[Type::I32]);
    let r = g.bin(BinOp::Add, Type::I32, ps[0], c32(1));
    g.ret(Some(r));
    let add1 = define(&mut p, "add1", vec![Type::I32], Some(Type::I32), g);
    let (mut g, ps) = Fb::new(&[Type::I32]);
    let r = g.bin(BinOp::Mul, Type::I32, ps[0], c32(2));
    g.ret(Some(r));
    let dbl = define(&mut p, "dbl", vec![Type::I32], Some(Type::I32), g);
    let (mut f, _) = Fb::new(&[]);
    let which = f.nondet(Type::I1, false);
    let fp = f.ins(InstKind::Select {
        ty: Type::Ptr,
        cond: which,
        if_true: Operand::Func(add1),
        if_false: Operand::Func(dbl),
    });
    let slot = f.alloca(c64(8));
    f.store(Type::Ptr, slot, fp);
    let q = f.load(Type::Ptr, slot);
    let r = f.call_ind(q, vec![c32(20)], Some(Type::I32));
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[1]).outcome, Outcome::Exit(21));
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(40));
}

#[test]
fn bad_indirect_calls() {
    let mut p = program(DM);
    let (mut g, ps) = Fb::new(&[Type::I32, Type::I32]);
    let r = g.bin(BinOp::Add, Type::I32, ps[0], ps[1]);
    g.ret(Some(r));
    let two = define(&mut p, "two", vec![Type::I32, Type::I32], Some(Type::I32), g);
    let (mut f, _) = Fb::new(&[]);
    let mode = f.nondet(Type::I32, false);
    let slot = f.alloca(c64(8));
    let sw_null = f.new_block();
    let sw_data = f.new_block();
    let sw_arity = f.new_block();
    let ok = f.new_block();
    f.term(Terminator::Switch {
        ty: Type::I32,
        value: mode,
        cases: vec![(0, BlockCall::new(sw_null)), (1, BlockCall::new(sw_data)), (2, BlockCall::new(sw_arity))],
        default: BlockCall::new(ok),
    });
    f.switch_to(sw_null);
    let r = f.call_ind(Operand::Const(Const::null()), vec![], Some(Type::I32));
    f.ret(Some(r));
    f.switch_to(sw_data);
    let r = f.call_ind(slot, vec![], Some(Type::I32));
    f.ret(Some(r));
    f.switch_to(sw_arity);
    let r = f.call_ind(Operand::Func(two), vec![c32(1)], Some(Type::I32));
    f.ret(Some(r));
    f.switch_to(ok);
    let r = f.call_ind(Operand::Func(two), vec![c32(1), c32(2)], Some(Type::I32));
    f.ret(Some(r));
    with_main(&mut p, f);
    assert!(matches!(run(&p, &[0]).outcome, Outcome::Error { kind: CheckKind::NullDeref, .. }));
    assert!(matches!(run(&p, &[1]).outcome, Outcome::Error { kind: CheckKind::OutOfBounds, .. }));
    assert!(matches!(run(&p, &[2]).outcome, Outcome::Unsupported { .. }));
    assert_eq!(run(&p, &[3]).outcome, Outcome::Exit(3));
}

#[test]
fn branch_and_switch_goals() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(Type::I32, true);
    let c = f.cmp(CmpPred::Sgt, Type::I32, x, c32(10));
    let big = f.new_block();
    let small = f.new_block();
    let (k1, k2, kd, end) = (f.new_block(), f.new_block(), f.new_block(), f.new_block());
    f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(big), if_false: BlockCall::new(small) });
    f.switch_to(big);
    f.ret(Some(c32(100)));
    f.switch_to(small);
    f.term(Terminator::Switch {
        ty: Type::I32,
        value: x,
        cases: vec![
            (1, BlockCall::new(k1)),
            (Const::int(Type::I32, -2, DM).bits, BlockCall::new(k2)),
            (1, BlockCall::new(kd)),
        ],
        default: BlockCall::new(kd),
    });
    for (b, v) in [(k1, 1), (k2, 2), (kd, 3)] {
        f.switch_to(b);
        f.term(Terminator::Jump(BlockCall::new(end)));
        let _ = v;
    }
    f.switch_to(end);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    let goals = Goals::compute(&p);
    let labels = |r: &walkdown_interp::RunResult| -> Vec<EdgeLabel> {
        r.covered.iter().map(|&g| goals.goals[g].label).collect()
    };
    assert_eq!(labels(&run(&p, &[11])), vec![EdgeLabel::True]);
    assert_eq!(labels(&run(&p, &[1])), vec![EdgeLabel::False, EdgeLabel::Case(1)]);
    assert_eq!(labels(&run(&p, &[-2])), vec![EdgeLabel::False, EdgeLabel::Case(-2)]);
    assert_eq!(labels(&run(&p, &[7])), vec![EdgeLabel::False, EdgeLabel::Default]);
    // The duplicate case 1 (index 2) is never taken: the first one wins.
    let r = run(&p, &[1]);
    assert!(r.covered.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn line_counts() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let lp = f.new_block();
    let done = f.new_block();
    let i = f.body.add_param(lp, Type::I32);
    f.term(Terminator::Jump(BlockCall { block: lp, args: vec![c32(0)] }));
    f.switch_to(lp);
    // Two instructions on line 100, then the branch on line 101.
    let l = Loc { file: FileId::from_u32(0), line: 100, col: 1 };
    let (_, j) = f.body.append(lp, InstKind::Bin { op: BinOp::Add, ty: Type::I32, lhs: i.into(), rhs: c32(1) }, l);
    let j = Operand::Value(j.unwrap());
    let (_, c) = f.body.append(lp, InstKind::Cmp { pred: CmpPred::Slt, ty: Type::I32, lhs: j, rhs: c32(7) }, l);
    f.body.set_term(
        lp,
        Terminator::Branch {
            cond: Operand::Value(c.unwrap()),
            if_true: BlockCall { block: lp, args: vec![j] },
            if_false: BlockCall::new(done),
        },
        Loc { line: 101, ..l },
    );
    f.switch_to(done);
    f.ret(Some(j));
    let dead = f.new_block();
    f.switch_to(dead);
    f.body.set_term(dead, Terminator::Return(Some(c32(9))), Loc { line: 200, ..l });
    with_main(&mut p, f);
    let opts = RunOptions { record_lines: true, ..Default::default() };
    let r = run_with(&p, TestVector::default(), &opts);
    assert_eq!(r.outcome, Outcome::Exit(7));
    let count = |line: u32| r.line_counts.iter().find(|c| c.line == line).map(|c| c.count);
    assert_eq!(count(100), Some(7));
    assert_eq!(count(101), Some(7));
    assert_eq!(count(200), Some(0), "lines that did not run are listed with 0");
    assert!(r.line_counts.windows(2).all(|w| (w[0].file, w[0].line) < (w[1].file, w[1].line)));
    assert!(r.line_counts.iter().all(|c: &LineCount| c.line != 0));
    // Without the option, no counts.
    assert!(run(&p, &[]).line_counts.is_empty());
}

/// `main(int argc, char **argv)` gets argc = 1 and argv[0] = "main".
#[test]
fn main_arguments() {
    let mut p = program(DM);
    let (mut f, ps) = Fb::new(&[Type::I32, Type::Ptr]);
    let a0 = f.load(Type::Ptr, ps[1]);
    let ch = f.load(Type::I8, a0);
    let chi = f.cast(CastOp::ZExt, Type::I8, Type::I32, ch);
    let slot1 = f.ptradd(ps[1], c64(8));
    let a1 = f.load(Type::Ptr, slot1);
    let isnull = f.cmp(CmpPred::Eq, Type::Ptr, a1, Operand::Const(Const::null()));
    f.ins(InstKind::Check { kind: CheckKind::Assertion, cond: isnull });
    let r = f.bin(BinOp::Add, Type::I32, chi, ps[0]);
    f.ret(Some(r));
    define(&mut p, "main", vec![Type::I32, Type::Ptr], Some(Type::I32), f);
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(i32::from(b'm') + 1));
}

#[test]
fn void_main_and_unreachable() {
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(Type::I1, false);
    let a = f.new_block();
    let b = f.new_block();
    f.term(Terminator::Branch { cond: x, if_true: BlockCall::new(a), if_false: BlockCall::new(b) });
    f.switch_to(a);
    f.ret(None);
    f.switch_to(b);
    f.term(Terminator::Unreachable);
    define(&mut p, "main", vec![], None, f);
    assert_eq!(run(&p, &[1]).outcome, Outcome::Exit(0));
    assert!(matches!(run(&p, &[0]).outcome, Outcome::Unsupported { .. }));
}

#[test]
fn programs_without_main_are_rejected() {
    let mut p = program(DM);
    declare(&mut p, "main", vec![], Some(Type::I32), false);
    let err = walkdown_interp::Interpreter::new(&p, &Goals::compute(&p)).unwrap_err();
    assert_eq!(err, walkdown_interp::InterpError::NoEntry);
}

/// Programs the verifier would reject still never make the interpreter
/// panic: structural problems are `InterpError`s, bad calls `Unsupported`.
#[test]
fn malformed_programs_do_not_panic() {
    use walkdown_interp::{InterpError, Interpreter};
    let prepare = |p: &Program| Interpreter::new(p, &Goals::compute(p));
    // A use of a value that does not exist.
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    f.ret(Some(Operand::Value(Value::from_u32(99))));
    with_main(&mut p, f);
    assert!(matches!(prepare(&p), Err(InterpError::Malformed { .. })));
    // A jump to a block that does not exist.
    let mut p = program(DM);
    let (mut f, _) = Fb::new(&[]);
    f.term(Terminator::Jump(BlockCall::new(Block::from_u32(7))));
    with_main(&mut p, f);
    assert!(matches!(prepare(&p), Err(InterpError::Malformed { .. })));
    // A direct call with the wrong number of arguments: unsupported when run.
    let mut p = program(DM);
    let (mut g, ps) = Fb::new(&[Type::I32]);
    g.ret(Some(ps[0]));
    let gid = define(&mut p, "g", vec![Type::I32], Some(Type::I32), g);
    let (mut f, _) = Fb::new(&[]);
    let r = f.call(gid, vec![], Some(Type::I32));
    f.ret(Some(r));
    with_main(&mut p, f);
    let r = prepare(&p).unwrap().run(&TestVector::default(), &RunOptions::default());
    assert!(matches!(r.outcome, Outcome::Unsupported { .. }));
    // Mismatched operand types and odd operations just compute something.
    let mut p = program(DataModel::ILP32);
    let (mut f, _) = Fb::new(&[]);
    let x = f.nondet(Type::I64, true);
    let y = f.bin(BinOp::Shl, Type::Ptr, x, c64(70));
    let z = f.bin(BinOp::FAdd, Type::I8, y, x);
    let w = f.ins(InstKind::Un { op: UnOp::FNeg, ty: Type::I1, arg: z });
    let v = f.cast(CastOp::FpToUi, Type::I16, Type::F32, w);
    let u = f.ins(InstKind::Un { op: UnOp::Ctlz, ty: Type::F64, arg: v });
    let s = f.cast(CastOp::Trunc, Type::I64, Type::I32, u);
    f.ret(Some(s));
    with_main(&mut p, f);
    let r = prepare(&p).unwrap().run(&TestVector::from_ints([-1]), &RunOptions::default());
    assert!(matches!(r.outcome, Outcome::Exit(_)));
}
