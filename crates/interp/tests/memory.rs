//! Memory: loads and stores, every kind of fault, pointers in memory in
//! both data models, globals with relocations, stack lifetime.

mod common;
use common::*;
use walkdown_interp::{Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::{GoalKind, Goals};
use walkdown_ir::*;

fn error_kind(o: &Outcome) -> Option<CheckKind> {
    match o {
        Outcome::Error { kind, .. } => Some(*kind),
        _ => None,
    }
}

fn malloc(p: &mut Program) -> FuncId {
    let sz = p.data_model.pointer_int();
    declare(p, "malloc", vec![sz], Some(Type::Ptr), false)
}

fn free(p: &mut Program) -> FuncId {
    declare(p, "free", vec![Type::Ptr], None, false)
}

#[test]
fn little_endian_loads_and_stores() {
    let mut p = program(DataModel::LP64);
    let (mut f, _) = Fb::new(&[]);
    let s = f.alloca(c64(8));
    f.store(Type::I64, s, c64(0x0102_0304_0506_0708));
    let b = f.load(Type::I8, s);
    f.check_eq(Type::I8, b, ci(Type::I8, 8, DataModel::LP64));
    let q = f.ptradd(s, c64(2));
    let h = f.load(Type::I16, q);
    f.check_eq(Type::I16, h, ci(Type::I16, 0x0506, DataModel::LP64));
    f.store(Type::I1, s, Operand::Const(Const::bool(true)));
    let w = f.load(Type::I32, s);
    f.check_eq(Type::I32, w, c32(0x0506_0701));
    let t = f.load(Type::I1, s);
    let r = f.cast(CastOp::ZExt, Type::I1, Type::I32, t);
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(1));
}

#[test]
fn stack_memory_starts_zeroed() {
    let mut p = program(DataModel::LP64);
    let (mut f, _) = Fb::new(&[]);
    let s = f.alloca(c64(16));
    let q = f.ptradd(s, c64(12));
    let v = f.load(Type::I32, q);
    f.ret(Some(v));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[]).outcome, Outcome::Exit(0));
}

/// Loads at `base + offset` of an alloca of 4 bytes; `offset` is an input.
fn probe_program() -> (Program, Inst) {
    let mut p = program(DataModel::LP64);
    let (mut f, _) = Fb::new(&[]);
    let s = f.alloca(c64(4));
    let off = f.nondet(Type::I64, true);
    let q = f.ptradd(s, off);
    let (i, v) = f.ins_id(InstKind::Load { ty: Type::I32, ptr: q });
    f.ret(v);
    with_main(&mut p, f);
    (p, i)
}

#[test]
fn out_of_bounds_after_the_end_and_before_the_start() {
    let (p, load) = probe_program();
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(0));
    let r = run(&p, &[1]);
    assert_eq!(error_kind(&r.outcome), Some(CheckKind::OutOfBounds));
    let r = run(&p, &[4]);
    assert_eq!(error_kind(&r.outcome), Some(CheckKind::OutOfBounds));
    let r = run(&p, &[-1]);
    assert_eq!(error_kind(&r.outcome), Some(CheckKind::OutOfBounds));
    let r = run(&p, &[-1000]);
    assert_eq!(error_kind(&r.outcome), Some(CheckKind::OutOfBounds));
    // The error site is the load, and its goal is covered.
    let goals = Goals::compute(&p);
    let Outcome::Error { inst, goal: Some(g), loc, .. } = r.outcome else { panic!("{:?}", r.outcome) };
    assert_eq!(inst, load);
    assert_eq!(loc.line, 5);
    assert!(matches!(goals.goals[g].kind, GoalKind::Error { inst: i, .. } if i == load));
    assert!(r.covered.contains(&g));
}

#[test]
fn null_dereference() {
    let mut p = program(DataModel::LP64);
    let (mut f, _) = Fb::new(&[]);
    let off = f.nondet(Type::I64, true);
    let q = f.ptradd(Operand::Const(Const::null()), off);
    f.store(Type::I32, q, c32(1));
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    assert_eq!(error_kind(&run(&p, &[0]).outcome), Some(CheckKind::NullDeref));
    assert_eq!(error_kind(&run(&p, &[0xff8]).outcome), Some(CheckKind::NullDeref));
    assert_eq!(error_kind(&run(&p, &[0x1000]).outcome), Some(CheckKind::OutOfBounds));
}

#[test]
fn heap_use_after_free_double_free_invalid_free() {
    // p = malloc(8); *p = 5; if in0 & 1: free(p); if in0 & 2: x = *p;
    // if in0 & 4: free(p); if in0 & 8: free(p + 1); return *p
    let mut p = program(DataModel::LP64);
    let m = malloc(&mut p);
    let fr = free(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let mode = f.nondet(Type::I64, false);
    let ptr = f.call(m, vec![c64(8)], Some(Type::Ptr));
    f.store(Type::I32, ptr, c32(5));
    let step = |f: &mut Fb, bit: i64, action: &dyn Fn(&mut Fb)| {
        let b = f.bin(BinOp::And, Type::I64, mode, c64(bit));
        let c = f.cmp(CmpPred::Ne, Type::I64, b, c64(0));
        let yes = f.new_block();
        let next = f.new_block();
        f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(yes), if_false: BlockCall::new(next) });
        f.switch_to(yes);
        action(f);
        f.term(Terminator::Jump(BlockCall::new(next)));
        f.switch_to(next);
    };
    step(&mut f, 1, &|f| {
        f.call(fr, vec![ptr], None);
    });
    step(&mut f, 2, &|f| {
        f.load(Type::I32, ptr);
    });
    step(&mut f, 4, &|f| {
        f.call(fr, vec![ptr], None);
    });
    step(&mut f, 8, &|f| {
        let q = f.ptradd(ptr, c64(1));
        f.call(fr, vec![q], None);
    });
    step(&mut f, 16, &|f| {
        let g = Operand::Global(GlobalId::from_u32(0));
        f.call(fr, vec![g], None);
    });
    step(&mut f, 32, &|f| {
        f.call(fr, vec![Operand::Const(Const::null())], None);
    });
    let v = f.load(Type::I32, ptr);
    f.ret(Some(v));
    with_main(&mut p, f);
    p.globals.push(GlobalData {
        name: "g".into(),
        size: 4,
        align: 4,
        constant: false,
        init: vec![],
        relocs: vec![],
        loc: Loc::UNKNOWN,
    });
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(5));
    assert_eq!(run(&p, &[32]).outcome, Outcome::Exit(5), "free(NULL) is a no-op");
    assert_eq!(error_kind(&run(&p, &[1]).outcome), Some(CheckKind::UseAfterFree));
    assert_eq!(error_kind(&run(&p, &[1 | 2]).outcome), Some(CheckKind::UseAfterFree));
    assert_eq!(error_kind(&run(&p, &[1 | 4]).outcome), Some(CheckKind::DoubleFree));
    assert_eq!(error_kind(&run(&p, &[8]).outcome), Some(CheckKind::InvalidFree));
    assert_eq!(error_kind(&run(&p, &[1 | 8]).outcome), Some(CheckKind::DoubleFree));
    assert_eq!(error_kind(&run(&p, &[16]).outcome), Some(CheckKind::InvalidFree));
    // Free errors are reported at the call, with its error-site goal.
    let r = run(&p, &[1 | 4]);
    let Outcome::Error { goal: Some(g), .. } = r.outcome else { panic!() };
    assert!(r.covered.contains(&g));
}

/// `int *f() { int x = 7; return &x; }  main: return *f();`
#[test]
fn stack_slot_is_freed_at_return() {
    let mut p = program(DataModel::LP64);
    let (mut g, _) = Fb::new(&[]);
    let s = g.alloca(c64(4));
    g.store(Type::I32, s, c32(7));
    g.ret(Some(s));
    let gid = define(&mut p, "f", vec![], Some(Type::Ptr), g);
    let (mut f, _) = Fb::new(&[]);
    let q = f.call(gid, vec![], Some(Type::Ptr));
    let v = f.load(Type::I32, q);
    f.ret(Some(v));
    with_main(&mut p, f);
    assert_eq!(error_kind(&run(&p, &[]).outcome), Some(CheckKind::UseAfterFree));
}

#[test]
fn writes_to_constant_globals_and_functions_fault() {
    let mut p = program(DataModel::LP64);
    p.globals.push(GlobalData {
        name: "k".into(),
        size: 4,
        align: 4,
        constant: true,
        init: vec![42],
        relocs: vec![],
        loc: Loc::UNKNOWN,
    });
    let (mut f, _) = Fb::new(&[]);
    let mode = f.nondet(Type::I32, false);
    let g = Operand::Global(GlobalId::from_u32(0));
    let v = f.load(Type::I32, g);
    let c = f.cmp(CmpPred::Eq, Type::I32, mode, c32(0));
    let a = f.new_block();
    let b = f.new_block();
    f.term(Terminator::Branch { cond: c, if_true: BlockCall::new(a), if_false: BlockCall::new(b) });
    f.switch_to(a);
    f.store(Type::I32, g, c32(1));
    f.ret(Some(v));
    f.switch_to(b);
    let fp = Operand::Func(FuncId::from_u32(0));
    let w = f.load(Type::I8, fp);
    let r = f.cast(CastOp::ZExt, Type::I8, Type::I32, w);
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(error_kind(&run(&p, &[0]).outcome), Some(CheckKind::OutOfBounds));
    assert_eq!(error_kind(&run(&p, &[1]).outcome), Some(CheckKind::OutOfBounds));
}

/// A pointer to a slot stored in another slot, loaded back and followed;
/// and `ptrtoint`/`inttoptr` round trips.
fn pointer_chase(dm: DataModel) -> Program {
    let mut p = program(dm);
    let pint = dm.pointer_int();
    let (mut f, _) = Fb::new(&[]);
    let a = f.alloca(ci(pint, 4, dm));
    f.store(Type::I32, a, c32(99));
    let pp = f.alloca(ci(pint, dm.pointer_bytes() as i64, dm));
    f.store(Type::Ptr, pp, a);
    let back = f.load(Type::Ptr, pp);
    let eq = f.cmp(CmpPred::Eq, Type::Ptr, back, a);
    f.ins(InstKind::Check { kind: CheckKind::Assertion, cond: eq });
    let n = f.cast(CastOp::PtrToInt, Type::Ptr, pint, back);
    let n2 = f.bin(BinOp::Add, pint, n, ci(pint, 0, dm));
    let q = f.cast(CastOp::IntToPtr, pint, Type::Ptr, n2);
    let v = f.load(Type::I32, q);
    // In a 64-bit int, the address fits the data model's width.
    let wide = f.cast(CastOp::PtrToInt, Type::Ptr, Type::I64, q);
    let hi = f.bin(BinOp::LShr, Type::I64, wide, c64(i64::from(dm.pointer_bits()) - 1));
    let hi = f.bin(BinOp::LShr, Type::I64, hi, c64(1));
    let ok = f.cmp(CmpPred::Eq, Type::I64, hi, c64(0));
    f.ins(InstKind::Check { kind: CheckKind::Assertion, cond: ok });
    f.ret(Some(v));
    with_main(&mut p, f);
    p
}

#[test]
fn pointers_in_memory_lp64() {
    assert_eq!(run(&pointer_chase(DataModel::LP64), &[]).outcome, Outcome::Exit(99));
}

#[test]
fn pointers_in_memory_ilp32() {
    assert_eq!(run(&pointer_chase(DataModel::ILP32), &[]).outcome, Outcome::Exit(99));
}

/// `int x = 5; int *px = &x + 1 (addend -4 back); int (*fp)() = &h;`
#[test]
fn globals_with_relocations() {
    for dm in [DataModel::LP64, DataModel::ILP32] {
        let mut p = program(dm);
        let pb = dm.pointer_bytes();
        let (mut h, _) = Fb::new(&[]);
        h.ret(Some(c32(31)));
        let hid = define(&mut p, "h", vec![], Some(Type::I32), h);
        let x = p.globals.push(GlobalData {
            name: "x".into(),
            size: 8,
            align: 4,
            constant: false,
            init: vec![0, 0, 0, 0, 5],
            relocs: vec![],
            loc: Loc::UNKNOWN,
        });
        let px = p.globals.push(GlobalData {
            name: "px".into(),
            size: 2 * pb,
            align: pb as u32,
            constant: true,
            init: vec![],
            relocs: vec![
                Reloc { offset: 0, target: RelocTarget::Global(x), addend: 4 },
                Reloc { offset: pb, target: RelocTarget::Func(hid), addend: 0 },
            ],
            loc: Loc::UNKNOWN,
        });
        let (mut f, _) = Fb::new(&[]);
        let q = f.load(Type::Ptr, Operand::Global(px));
        let v = f.load(Type::I32, q);
        let slot = f.ptradd(Operand::Global(px), ci(dm.pointer_int(), pb as i64, dm));
        let fp = f.load(Type::Ptr, slot);
        let w = f.call_ind(fp, vec![], Some(Type::I32));
        let r = f.bin(BinOp::Add, Type::I32, v, w);
        f.ret(Some(r));
        with_main(&mut p, f);
        assert_eq!(run(&p, &[]).outcome, Outcome::Exit(36), "{dm}");
        let interp = Interpreter::new(&p, &Goals::compute(&p)).unwrap();
        let addr = interp.global_address(x).unwrap();
        assert!(addr >= 0x10000 && addr.is_multiple_of(16));
        if dm == DataModel::ILP32 {
            assert!(addr < 1 << 32);
        }
    }
}

/// The memory limit makes malloc return NULL.
#[test]
fn malloc_beyond_the_limit_returns_null() {
    let mut p = program(DataModel::LP64);
    let m = malloc(&mut p);
    let (mut f, _) = Fb::new(&[]);
    let n = f.nondet(Type::I64, false);
    let q = f.call(m, vec![n], Some(Type::Ptr));
    let isnull = f.cmp(CmpPred::Eq, Type::Ptr, q, Operand::Const(Const::null()));
    let r = f.cast(CastOp::ZExt, Type::I1, Type::I32, isnull);
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[100]).outcome, Outcome::Exit(0));
    assert_eq!(run(&p, &[1 << 40]).outcome, Outcome::Exit(1));
    assert_eq!(run(&p, &[-1]).outcome, Outcome::Exit(1));
    let opts = RunOptions {
        limits: walkdown_interp::ExecLimits { max_memory: 50, ..Default::default() },
        ..Default::default()
    };
    let r = run_with(&p, walkdown_ir::testvec::TestVector::from_ints([100]), &opts);
    assert_eq!(r.outcome, Outcome::Exit(1));
}

/// A dynamic alloca of a huge size is unsupported, not a crash.
#[test]
fn huge_alloca_is_unsupported() {
    let mut p = program(DataModel::LP64);
    let (mut f, _) = Fb::new(&[]);
    let n = f.nondet(Type::I64, false);
    f.alloca(n);
    f.ret(Some(c32(0)));
    with_main(&mut p, f);
    assert!(matches!(run(&p, &[1 << 50]).outcome, Outcome::Unsupported { .. }));
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(0));
}

/// Allocas in a loop of calls do not pile up object records, and stale
/// pointers into any of them still fault as use after free.
#[test]
fn many_calls_with_allocas() {
    let mut p = program(DataModel::LP64);
    let (mut g, _) = Fb::new(&[]);
    let s = g.alloca(c64(4));
    g.store(Type::I32, s, c32(1));
    g.ret(Some(s));
    let gid = define(&mut p, "g", vec![], Some(Type::Ptr), g);
    let (mut f, _) = Fb::new(&[]);
    let first = f.call(gid, vec![], Some(Type::Ptr));
    let lp = f.new_block();
    let i = f.body.add_param(lp, Type::I32);
    let done = f.new_block();
    f.term(Terminator::Jump(BlockCall { block: lp, args: vec![c32(0)] }));
    f.switch_to(lp);
    f.call(gid, vec![], Some(Type::Ptr));
    let i2 = f.bin(BinOp::Add, Type::I32, i.into(), c32(1));
    let c = f.cmp(CmpPred::Slt, Type::I32, i2, c32(100_000));
    f.term(Terminator::Branch {
        cond: c,
        if_true: BlockCall { block: lp, args: vec![i2] },
        if_false: BlockCall::new(done),
    });
    f.switch_to(done);
    let v = f.load(Type::I32, first);
    f.ret(Some(v));
    with_main(&mut p, f);
    let r = run(&p, &[]);
    assert_eq!(error_kind(&r.outcome), Some(CheckKind::UseAfterFree));
}

/// In ILP32, pointer arithmetic wraps at 32 bits: `p + (-1)` is one byte
/// before `p`, and `p + 4` past a 4-byte slot is out of bounds.
#[test]
fn ilp32_pointer_arithmetic_wraps() {
    let dm = DataModel::ILP32;
    let mut p = program(dm);
    let (mut f, _) = Fb::new(&[]);
    let off = f.nondet(Type::I32, true);
    let s = f.alloca(ci(Type::I32, 4, dm));
    f.store(Type::I32, s, c32(77));
    let q = f.ptradd(s, off);
    let back = f.ptradd(q, ci(Type::I32, 0, dm));
    let v = f.load(Type::I8, back);
    let r = f.cast(CastOp::ZExt, Type::I8, Type::I32, v);
    f.ret(Some(r));
    with_main(&mut p, f);
    assert_eq!(run(&p, &[0]).outcome, Outcome::Exit(77));
    assert_eq!(error_kind(&run(&p, &[-1]).outcome), Some(CheckKind::OutOfBounds));
    assert_eq!(error_kind(&run(&p, &[4]).outcome), Some(CheckKind::OutOfBounds));
    // i32::MIN lands far from every object (wrapping at 32 bits).
    assert_eq!(error_kind(&run(&p, &[i32::MIN as i128]).outcome), Some(CheckKind::OutOfBounds));
}

/// The resident memory of this process, in bytes (Linux `VmRSS`).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A 1 GiB object is neither materialized when it is allocated nor when
/// the memory is copied for a run (every run starts from a copy of the
/// prepared memory): only the pages written are. Its bounds stay exact.
#[test]
fn huge_objects_cost_the_pages_they_use() {
    use walkdown_interp::memory::{Memory, ObjectKind};
    const GIB: u64 = 1 << 30;
    let Some(before) = resident_bytes() else {
        eprintln!("skipped: no /proc/self/status to read the resident memory from");
        return;
    };
    let mut m = Memory::new(DataModel::LP64);
    let (_, base) = m.alloc(GIB, 16, ObjectKind::Global(GlobalId::from_u32(0)), false).unwrap();
    m.store(base + 12_345_678, 4, 0xdead_beef).unwrap();
    m.store(base + GIB - 8, 8, 7).unwrap();
    let copies: Vec<Memory> = (0..3).map(|_| m.clone()).collect();
    for c in &copies {
        let mut c = c.clone();
        assert_eq!(c.load(base + 12_345_678, 4).unwrap(), 0xdead_beef);
        assert_eq!(c.load(base + GIB - 8, 8).unwrap(), 7);
        assert_eq!(c.load(base + GIB / 2, 8).unwrap(), 0);
        assert_eq!(c.load(base + GIB - 4, 8).unwrap_err().kind, CheckKind::OutOfBounds);
        assert_eq!(c.load(base + GIB, 1).unwrap_err().kind, CheckKind::OutOfBounds);
        // A write to a copy is the copy's alone.
        c.store(base + 100, 1, 9).unwrap();
        assert_eq!(c.load(base + 100, 1).unwrap(), 9);
        assert_eq!(m.load(base + 100, 1).unwrap(), 0);
    }
    let after = resident_bytes().unwrap_or(u64::MAX);
    // Five 1 GiB objects exist (the original, three copies, one copy of a
    // copy at a time); materialized they would take 4 GiB and more.
    assert!(
        after.saturating_sub(before) < 256 << 20,
        "resident memory grew by {} MiB",
        after.saturating_sub(before) >> 20
    );
}
