//! The library models: allocation, memory and string functions (with their
//! bounds checks), exit/abort, output, math.

mod common;
use common::*;
use walkdown_interp::Outcome;
use walkdown_ir::*;

const DM: DataModel = DataModel::LP64;
const SZ: Type = Type::I64;

struct Lib {
    malloc: FuncId,
    calloc: FuncId,
    realloc: FuncId,
    free: FuncId,
    memset: FuncId,
    memcpy: FuncId,
    memmove: FuncId,
    memcmp: FuncId,
    strlen: FuncId,
    strcmp: FuncId,
    strncmp: FuncId,
    strcpy: FuncId,
    strncpy: FuncId,
    strchr: FuncId,
    printf: FuncId,
    exit: FuncId,
    abort: FuncId,
    fabs: FuncId,
    sqrtf: FuncId,
}

fn lib(p: &mut Program) -> Lib {
    use Type::{Ptr, F32, F64, I32};
    Lib {
        malloc: declare(p, "malloc", vec![SZ], Some(Ptr), false),
        calloc: declare(p, "calloc", vec![SZ, SZ], Some(Ptr), false),
        realloc: declare(p, "realloc", vec![Ptr, SZ], Some(Ptr), false),
        free: declare(p, "free", vec![Ptr], None, false),
        memset: declare(p, "memset", vec![Ptr, I32, SZ], Some(Ptr), false),
        memcpy: declare(p, "memcpy", vec![Ptr, Ptr, SZ], Some(Ptr), false),
        memmove: declare(p, "memmove", vec![Ptr, Ptr, SZ], Some(Ptr), false),
        memcmp: declare(p, "memcmp", vec![Ptr, Ptr, SZ], Some(I32), false),
        strlen: declare(p, "strlen", vec![Ptr], Some(SZ), false),
        strcmp: declare(p, "strcmp", vec![Ptr, Ptr], Some(I32), false),
        strncmp: declare(p, "strncmp", vec![Ptr, Ptr, SZ], Some(I32), false),
        strcpy: declare(p, "strcpy", vec![Ptr, Ptr], Some(Ptr), false),
        strncpy: declare(p, "strncpy", vec![Ptr, Ptr, SZ], Some(Ptr), false),
        strchr: declare(p, "strchr", vec![Ptr, I32], Some(Ptr), false),
        printf: declare(p, "printf", vec![Ptr], Some(I32), true),
        exit: declare(p, "exit", vec![I32], None, false),
        abort: declare(p, "abort", vec![], None, false),
        fabs: declare(p, "fabs", vec![F64], Some(F64), false),
        sqrtf: declare(p, "sqrtf", vec![F32], Some(F32), false),
    }
}

fn string_global(p: &mut Program, name: &str, bytes: &[u8], size: u64) -> Operand {
    let g = p.globals.push(GlobalData {
        name: name.into(),
        size,
        align: 1,
        constant: true,
        init: bytes.to_vec(),
        relocs: vec![],
        loc: Loc::UNKNOWN,
    });
    Operand::Global(g)
}

fn kind(o: &Outcome) -> Option<CheckKind> {
    match o {
        Outcome::Error { kind, .. } => Some(*kind),
        _ => None,
    }
}

#[test]
fn heap_functions() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let (mut f, _) = Fb::new(&[]);
    // a = malloc(8); memset(a, 0x11, 8); b = calloc(2, 4); memcpy(b, a, 4);
    // a = realloc(a, 16); check a[7] == 0x11 and a[8] == 0;
    // return memcmp(a, b, 8) > 0 (a[4] = 0x11 > b[4] = 0)
    let a = f.call(l.malloc, vec![c64(8)], Some(Type::Ptr));
    f.call(l.memset, vec![a, c32(0x111), c64(8)], Some(Type::Ptr));
    let b = f.call(l.calloc, vec![c64(2), c64(4)], Some(Type::Ptr));
    let b4 = f.ptradd(b, c64(4));
    let z = f.load(Type::I32, b4);
    f.check_eq(Type::I32, z, c32(0));
    let r = f.call(l.memcpy, vec![b, a, c64(4)], Some(Type::Ptr));
    f.check_eq(Type::Ptr, r, b);
    let a2 = f.call(l.realloc, vec![a, c64(16)], Some(Type::Ptr));
    let a7 = f.ptradd(a2, c64(7));
    let v7 = f.load(Type::I8, a7);
    f.check_eq(Type::I8, v7, ci(Type::I8, 0x11, DM));
    let a8 = f.ptradd(a2, c64(8));
    let v8 = f.load(Type::I8, a8);
    f.check_eq(Type::I8, v8, ci(Type::I8, 0, DM));
    let d = f.call(l.memcmp, vec![a2, b, c64(8)], Some(Type::I32));
    let same = f.call(l.memcmp, vec![a2, b, c64(4)], Some(Type::I32));
    f.check_eq(Type::I32, same, c32(0));
    let pos = f.cmp(CmpPred::Sgt, Type::I32, d, c32(0));
    f.call(l.free, vec![a2], None);
    f.call(l.free, vec![b], None);
    let overflow = f.call(l.calloc, vec![c64(1 << 40), c64(1 << 40)], Some(Type::Ptr));
    f.check_eq(Type::Ptr, overflow, Operand::Const(Const::null()));
    let r = f.cast(CastOp::ZExt, Type::I1, Type::I32, pos);
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(1));
}

#[test]
fn realloc_of_a_freed_block_is_a_double_free() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let a = f.call(l.malloc, vec![c64(8)], Some(Type::Ptr));
    f.call(l.free, vec![a], None);
    f.call(l.realloc, vec![a, c64(16)], Some(Type::Ptr));
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    assert_eq!(kind(&run(&p, &[]).outcome), Some(CheckKind::DoubleFree));
}

#[test]
fn memory_functions_check_every_byte() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let n = f.nondet(SZ, false);
    let which = f.nondet(Type::I32, false);
    let a = f.alloca(c64(8));
    let b = f.alloca(c64(8));
    let blocks: Vec<Block> = (0..4).map(|_| f.new_block()).collect();
    let end = f.new_block();
    f.term(Terminator::Switch {
        ty: Type::I32,
        value: which,
        cases: (0..4).map(|k| (k as u64, BlockCall::new(blocks[k]))).collect(),
        default: BlockCall::new(end),
    });
    let ops = [l.memset, l.memcpy, l.memmove, l.memcmp];
    for (k, &op) in ops.iter().enumerate() {
        f.switch_to(blocks[k]);
        let args = if k == 0 { vec![a, c32(0), n] } else { vec![a, b, n] };
        let ret = if k == 3 { Some(Type::I32) } else { Some(Type::Ptr) };
        f.call(op, args, ret);
        f.term(Terminator::Jump(BlockCall::new(end)));
    }
    f.switch_to(end);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    for k in 0..4 {
        assert_eq!(run(&p, &[8, k]).outcome, Outcome::Exit(0), "op {k} in bounds");
        assert_eq!(run(&p, &[0, k]).outcome, Outcome::Exit(0), "op {k} empty");
        let r = run(&p, &[9, k]);
        assert_eq!(kind(&r.outcome), Some(CheckKind::OutOfBounds), "op {k} one byte over");
        let Outcome::Error { goal, .. } = r.outcome else { unreachable!() };
        assert!(goal.is_some(), "library calls are memory error sites");
    }
}

#[test]
fn memmove_overlapping() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let a = f.alloca(c64(8));
    f.store(Type::I64, a, c64(0x0807_0605_0403_0201));
    let a1 = f.ptradd(a, c64(1));
    f.call(l.memmove, vec![a1, a, c64(7)], Some(Type::Ptr));
    let v = f.load(Type::I64, a);
    f.check_eq(Type::I64, v, c64(0x0706_0504_0302_0101));
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(0));
}

#[test]
fn string_functions() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let hello = string_global(&mut p, "s0", b"hello\0", 6);
    let help = string_global(&mut p, "s1", b"help\0", 5);
    let (mut f, _) = Fb::new(&[]);
    let n = f.call(l.strlen, vec![hello], Some(SZ));
    f.check_eq(SZ, n, c64(5));
    let c = f.call(l.strcmp, vec![hello, help], Some(Type::I32));
    let pos = f.cmp(CmpPred::Slt, Type::I32, c, c32(0));
    f.ins(InstKind::Check { kind: CheckKind::Assertion, cond: pos }); // 'l' < 'p'
    let c = f.call(l.strncmp, vec![hello, help, c64(3)], Some(Type::I32));
    f.check_eq(Type::I32, c, c32(0));
    let c = f.call(l.strcmp, vec![hello, hello], Some(Type::I32));
    f.check_eq(Type::I32, c, c32(0));
    let buf = f.alloca(c64(8));
    f.call(l.memset, vec![buf, c32(0x7a), c64(8)], Some(Type::Ptr));
    let r = f.call(l.strcpy, vec![buf, help], Some(Type::Ptr));
    f.check_eq(Type::Ptr, r, buf);
    let n = f.call(l.strlen, vec![buf], Some(SZ));
    f.check_eq(SZ, n, c64(4));
    let b5 = f.ptradd(buf, c64(5));
    let z = f.load(Type::I8, b5);
    f.check_eq(Type::I8, z, ci(Type::I8, 0x7a, DM)); // untouched after the terminator
    f.call(l.strncpy, vec![buf, hello, c64(8)], Some(Type::Ptr));
    let b7 = f.ptradd(buf, c64(7));
    let z = f.load(Type::I8, b7);
    f.check_eq(Type::I8, z, ci(Type::I8, 0, DM)); // padded with zeros
    let e = f.call(l.strchr, vec![hello, c32(i64::from(b'l'))], Some(Type::Ptr));
    let h2 = f.ptradd(hello, c64(2));
    f.check_eq(Type::Ptr, e, h2);
    let e = f.call(l.strchr, vec![hello, c32(i64::from(b'z'))], Some(Type::Ptr));
    f.check_eq(Type::Ptr, e, Operand::Const(Const::null()));
    let e = f.call(l.strchr, vec![hello, c32(0)], Some(Type::Ptr));
    let h5 = f.ptradd(hello, c64(5));
    f.check_eq(Type::Ptr, e, h5);
    let r = f.call(l.printf, vec![hello, c32(3)], Some(Type::I32));
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(0));
}

#[test]
fn string_functions_fault_past_the_end() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let unterminated = string_global(&mut p, "u", b"abc", 3);
    let long = string_global(&mut p, "long", b"0123456789\0", 11);
    let (mut f, _) = Fb::new(&[]);
    let which = f.nondet(Type::I32, false);
    let buf = f.alloca(c64(4));
    let blocks: Vec<Block> = (0..5).map(|_| f.new_block()).collect();
    let end = f.new_block();
    f.term(Terminator::Switch {
        ty: Type::I32,
        value: which,
        cases: (0..5).map(|k| (k as u64, BlockCall::new(blocks[k]))).collect(),
        default: BlockCall::new(end),
    });
    let calls: [(FuncId, Vec<Operand>, Type); 5] = [
        (l.strlen, vec![unterminated], SZ),
        (l.strcpy, vec![buf, long], Type::Ptr),
        (l.strcmp, vec![unterminated, unterminated], Type::I32),
        (l.strchr, vec![unterminated, c32(0)], Type::Ptr),
        (l.strncpy, vec![buf, long, c64(5)], Type::Ptr),
    ];
    for (k, (func, args, ret)) in calls.into_iter().enumerate() {
        f.switch_to(blocks[k]);
        f.call(func, args, Some(ret));
        f.term(Terminator::Jump(BlockCall::new(end)));
    }
    f.switch_to(end);
    // Reading only as far as the first difference stays in bounds.
    let c = f.call(l.strncmp, vec![unterminated, long, c64(100)], Some(Type::I32));
    let neg = f.cmp(CmpPred::Sgt, Type::I32, c, c32(0));
    f.ins(InstKind::Check { kind: CheckKind::Assertion, cond: neg });
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    for k in 0..5 {
        assert_eq!(kind(&run(&p, &[k]).outcome), Some(CheckKind::OutOfBounds), "case {k}");
    }
    assert_eq!(run(&p, &[9]).outcome, Outcome::Exit(0));
}

#[test]
fn exit_abort_and_math() {
    let mut p = program(DM);
    let l = lib(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let which = f.nondet(Type::I32, false);
    let x = f.call(l.fabs, vec![cf(Type::F64, -2.5)], Some(Type::F64));
    f.check_eq(Type::F64, x, cf(Type::F64, 2.5));
    let y = f.call(l.sqrtf, vec![cf(Type::F32, 2.0)], Some(Type::F32));
    f.check_eq(Type::F32, y, cf(Type::F32, 2.0f32.sqrt().into()));
    let (a, b, end) = (f.new_block(), f.new_block(), f.new_block());
    f.term(Terminator::Switch {
        ty: Type::I32,
        value: which,
        cases: vec![(0, BlockCall::new(a)), (1, BlockCall::new(b))],
        default: BlockCall::new(end),
    });
    f.switch_to(a);
    f.call(l.exit, vec![c32(3)], None);
    f.term(Terminator::Unreachable);
    f.switch_to(b);
    f.call(l.abort, vec![], None);
    f.term(Terminator::Unreachable);
    f.switch_to(end);
    f.ret(Some(c32(-2)));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(3));
    assert_eq!(run(&p, &[1]).outcome, Outcome::Abort);
    assert_eq!(run(&p, &[2]).outcome, Outcome::Exit(-2));
}
