//! Hand-written textual IR in the printer's exact form: parsing then
//! printing gives it back byte for byte, the verifier accepts it, and the
//! parsed program has the ids and data the text says.

mod common;

use common::{assert_canonical, assert_same_text, parse, reprint};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::{
    BinOp, Block, Builtin, Callee, CheckKind, Const, DataModel, FileId, InstKind, Loc, Operand, RelocTarget,
    Terminator, Type, Value, ValueDef,
};

/// Every global form, declarations (variadic, void, quoted names), and
/// functions using every integer operation.
const INTEGERS: &str = include_str!("programs/integers.wir");

#[test]
fn integer_program_is_canonical() {
    let p = assert_canonical(INTEGERS);
    assert_eq!(p.data_model, DataModel::LP64);
    assert_eq!(p.files.values().cloned().collect::<Vec<_>>(), vec!["main.c", "lib/odd \"name\"\\.h"]);
    let table = &p.globals[p.global_by_name("table").expect("table")];
    assert_eq!(table.relocs.len(), 3);
    assert_eq!(table.relocs[1].target, RelocTarget::Func(p.func_by_name("helper").expect("helper")));
    assert_eq!(table.relocs[1].addend, -4);
    assert_eq!(table.relocs[2].target, RelocTarget::Global(p.global_by_name("odd name").expect("odd")));
    let message = &p.globals[p.global_by_name("message").expect("message")];
    assert!(message.constant);
    assert_eq!(message.init, b"hi\n\0");
    assert_eq!(message.loc, Loc { file: FileId::from_u32(2), line: 1, col: 12 });
    let bytes = &p.globals[p.global_by_name("bytes").expect("bytes")];
    assert_eq!(bytes.init, vec![0x00, 0xff, 0x7f, 0x80]);

    // Declarations get their builtin model from their name; definitions none.
    let printf = &p.funcs[p.func_by_name("printf").expect("printf")];
    assert!(printf.variadic && printf.body.is_none());
    assert_eq!(printf.builtin, Some(Builtin::Print));
    assert_eq!(p.funcs[p.func_by_name("malloc").expect("malloc")].builtin, Some(Builtin::Malloc));
    assert_eq!(p.funcs[p.func_by_name("weird fn").expect("weird")].builtin, None);
    let helper = p.func_by_name("helper").expect("helper");
    assert_eq!(p.funcs[helper].builtin, None);

    let arith = p.funcs[p.func_by_name("arith").expect("arith")].body.as_ref().expect("defined");
    assert_eq!(arith.values.len(), 49);
    assert_eq!(arith.insts.len(), 49);
    // Constants hold their bits truncated to the type.
    let v2 = &arith.insts[arith.blocks[Block::new(0)].insts[0]];
    assert_eq!(
        v2.kind,
        InstKind::Bin {
            op: BinOp::Add,
            ty: Type::I32,
            lhs: Operand::Value(Value::new(0)),
            rhs: Operand::Const(Const { ty: Type::I32, bits: 0xffff_ffff }),
        }
    );
    assert_eq!(v2.loc, Loc { file: FileId::from_u32(0), line: 21, col: 3 });
    // Direct calls, indirect calls through a function's address.
    let call_kinds: Vec<&InstKind> =
        arith.insts.values().map(|d| &d.kind).filter(|k| matches!(k, InstKind::Call { .. })).collect();
    assert!(matches!(call_kinds[3], InstKind::Call { callee: Callee::Direct(f), .. } if *f == helper));
    assert!(matches!(
        call_kinds[4],
        InstKind::Call { callee: Callee::Indirect(Operand::Func(f)), .. } if *f == helper
    ));
    assert!(matches!(call_kinds[7], InstKind::Call { ret: None, .. }));
}

/// Floats: every float operation, cast and predicate, and the special
/// values (negative zero, infinities, NaN bit patterns, subnormals).
const FLOATS: &str = include_str!("programs/floats.wir");

#[test]
fn float_program_is_canonical() {
    let p = assert_canonical(FLOATS);
    let body = p.funcs[p.func_by_name("floats").expect("floats")].body.as_ref().expect("defined");
    let consts: Vec<Const> = body
        .insts
        .values()
        .flat_map(|d| {
            let mut found = Vec::new();
            d.kind.for_each_operand(|o| {
                if let Operand::Const(c) = o {
                    found.push(*c)
                }
            });
            found
        })
        .collect();
    let has = |c: Const| consts.contains(&c);
    assert!(has(Const { ty: Type::F64, bits: (-0.0f64).to_bits() }));
    assert!(has(Const { ty: Type::F64, bits: f64::INFINITY.to_bits() }));
    assert!(has(Const { ty: Type::F64, bits: f64::NEG_INFINITY.to_bits() }));
    assert!(has(Const { ty: Type::F64, bits: 0x7ff8_0000_0000_0001 }));
    assert!(has(Const { ty: Type::F32, bits: 0x7fc0_0000 }));
    assert!(has(Const { ty: Type::F32, bits: 0x7f80_0001 }));
    assert!(has(Const { ty: Type::F32, bits: 1 }));
    assert!(has(Const { ty: Type::F64, bits: 1 }));
    assert!(has(Const { ty: Type::F32, bits: u64::from(0.1f32.to_bits()) }));
}

/// Control flow: every terminator, block parameters, loops whose back edges
/// pass arguments, a use written before its (dominating) definition, every
/// `check` kind, `assume` and `nondet` of every type.
const CONTROL: &str = include_str!("programs/control.wir");

#[test]
fn control_flow_program_is_canonical() {
    let p = assert_canonical(CONTROL);
    let main = p.funcs[p.entry().expect("main")].body.as_ref().expect("defined");
    // Ids are the printed ones, even where the use comes first in the text.
    assert_eq!(main.values[Value::new(10)].def, ValueDef::Inst(main.blocks[Block::new(2)].insts[0]));
    assert_eq!(main.values[Value::new(11)].def, ValueDef::Param(Block::new(3), 0));
    assert_eq!(main.values[Value::new(16)].ty, Type::I8);
    assert_eq!(main.values[Value::new(20)].def, ValueDef::Param(Block::new(8), 2));
    assert!(matches!(
        main.insts[main.blocks[Block::new(0)].insts[1]].kind,
        InstKind::Nondet { ty: Type::I8, signed: false }
    ));
    // Instructions are numbered in program order.
    let order: Vec<usize> = main.blocks.values().flat_map(|b| b.insts.iter().map(|i| i.index())).collect();
    assert_eq!(order, (0..main.insts.len()).collect::<Vec<_>>());
    let kinds: Vec<CheckKind> = main
        .insts
        .values()
        .filter_map(|d| match d.kind {
            InstKind::Check { kind, .. } => Some(kind),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, CheckKind::ALL.to_vec());
    match &main.blocks[Block::new(4)].term {
        Terminator::Switch { ty: Type::I32, cases, default, .. } => {
            let keys: Vec<u64> = cases.iter().map(|(k, _)| *k).collect();
            assert_eq!(keys, vec![0, 0xffff_ffff, 0x7fff_ffff, 0x8000_0000]);
            assert_eq!(default.block, Block::new(3));
            assert_eq!(default.args.len(), 2);
        }
        other => panic!("expected a switch, got {other:?}"),
    }
    assert_eq!(main.blocks[Block::new(4)].term_loc, Loc { file: FileId::from_u32(0), line: 47, col: 7 });
    let nothing = p.funcs[p.func_by_name("nothing").expect("nothing")].body.as_ref().expect("defined");
    assert_eq!(nothing.blocks[Block::new(0)].term, Terminator::Return(None));
}

/// Memory: allocas, loads and stores of every type, pointer arithmetic and
/// pointer/integer casts, addresses of globals and functions as operands.
const MEMORY: &str = include_str!("programs/memory.wir");

#[test]
fn memory_program_is_canonical() {
    let p = assert_canonical(MEMORY);
    let body = p.funcs[p.func_by_name("memory").expect("memory")].body.as_ref().expect("defined");
    let stores: Vec<&InstKind> =
        body.insts.values().map(|d| &d.kind).filter(|k| matches!(k, InstKind::Store { .. })).collect();
    let memory = p.func_by_name("memory").expect("memory");
    assert!(matches!(stores[9], InstKind::Store { value: Operand::Func(f), .. } if *f == memory));
    assert!(matches!(
        stores[11],
        InstKind::Store { value: Operand::Const(Const { ty: Type::Ptr, bits: 0xdead_beef }), .. }
    ));
    assert!(matches!(body.insts[body.blocks[Block::new(0)].insts[1]].kind, InstKind::Alloca { align: 1, .. }));
}

/// The 32-bit data model: pointer-width sizes and offsets are `i32`.
const ILP32: &str = include_str!("programs/ilp32.wir");

#[test]
fn ilp32_program_is_canonical() {
    let p = assert_canonical(ILP32);
    assert_eq!(p.data_model, DataModel::ILP32);
    // Pointer constants must fit the 32-bit pointer.
    let too_wide = ILP32.replace("ptr 0xffffffff", "ptr 0x100000000");
    let err = walkdown_ir_reader::parse_program(&too_wide).expect_err("too wide");
    assert!(err.message.contains("does not fit in 32 bits"), "{err}");
}

/// Programs the verifier rejects still round-trip.
#[test]
fn unverifiable_programs_round_trip() {
    let text = "datamodel LP64\n\ndeclare @f(i32) -> i32\n\ndefine @empty() {\n}\n\ndefine @bad() -> i32 {\nb0:\n  v0 = add ptr i64 1, f32 2.0\n  v1 = call i64 @f()\n  ret v1\n}\n";
    assert_same_text(&reprint(text), text);
    assert!(walkdown_ir_reader::parse_and_verify(text).is_err());
}

/// Comments, blank lines, odd spacing, `\r\n` line ends, lower-case data
/// model, and a missing `datamodel` line (LP64) all read as the canonical
/// text.
#[test]
fn comments_and_spacing_are_ignored() {
    let messy = "; a test program\r\n\r\ndatamodel lp64 ; the default\r\nglobal   @g size 4 align 4=\"\\01\"relocs 0:@g+0   !1:2\n\n\n; functions follow\ndefine @f(i32,...)->i32{ ; opening\n b0(v0:i32):;label\n\tv1=add i32 v0,i32 +5!3:4 ; comment\n  ret v1\n} ; done\n";
    let canonical = "datamodel LP64\nglobal @g size 4 align 4 = \"\\01\" relocs 0: @g +0 !1:2\n\ndefine @f(i32, ...) -> i32 {\nb0(v0: i32):\n  v1 = add i32 v0, i32 5 !3:4\n  ret v1\n}\n";
    assert_same_text(&reprint(messy), canonical);
    let without_datamodel = "define @f() {\nb0:\n  ret\n}\n";
    assert_eq!(parse(without_datamodel).data_model, DataModel::LP64);
}

/// Literals the printer would write differently still read as the same
/// constants: unsigned spellings of negative numbers, hex integers,
/// `i1 -1`, float texts with `+` and `e+`.
#[test]
fn alternative_literal_spellings() {
    let text = "datamodel LP64\n\ndefine @f() -> i8 {\nb0:\n  v0 = add i8 i8 255, i8 0x80\n  v1 = select i8 i1 -1, v0, i8 +3\n  v2 = fadd f64 f64 1e+2, f64 +0.5\n  ret v1\n}\n";
    let canonical = "datamodel LP64\n\ndefine @f() -> i8 {\nb0:\n  v0 = add i8 i8 -1, i8 -128\n  v1 = select i8 i1 1, v0, i8 3\n  v2 = fadd f64 f64 100.0, f64 0.5\n  ret v1\n}\n";
    assert_same_text(&reprint(text), canonical);
}
