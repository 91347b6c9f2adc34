//! Programs built with the IR's API (`Body::add_block`, `add_param`,
//! `append`, `set_term`), printed, parsed back and compared: the text is a
//! fixed point, value and block ids survive, and when the program was built
//! in textual order the parsed program is identical to the original.

mod common;

use common::{assert_round_trip, assert_same_text};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::verify::verify_program;
use walkdown_ir::write::program_to_string;
use walkdown_ir::{
    BinOp, Block, BlockCall, Body, CastOp, CheckKind, CmpPred, Const, DataModel, FileId, FuncData, GlobalData,
    InstKind, Loc, Operand, Program, Reloc, RelocTarget, Terminator, Type, UnOp, Value,
};
use walkdown_ir_reader::parse_program;

fn loc(line: u32, col: u32) -> Loc {
    Loc { file: FileId::from_u32(0), line, col }
}

fn define(program: &mut Program, name: &str, params: Vec<Type>, ret: Option<Type>, body: Body) {
    program.funcs.push(FuncData {
        name: name.to_string(),
        params,
        ret,
        variadic: false,
        loc: loc(1, 1),
        body: Some(body),
        builtin: None,
        library: false,
    });
}

/// A program built in textual order: declarations before definitions,
/// instructions appended block by block.
fn counting_loop() -> Program {
    let mut p = Program::new(DataModel::LP64);
    p.files.push("count.c".into());
    p.files.push("inc/\u{e9}t\u{e9}.h".into());
    let limit = p.globals.push(GlobalData {
        name: "limit".into(),
        size: 4,
        align: 4,
        constant: true,
        init: vec![10, 0, 0, 0],
        relocs: Vec::new(),
        loc: loc(1, 5),
    });
    let putchar = p.funcs.push(FuncData::external("putchar", vec![Type::I32], Some(Type::I32), false));
    p.globals.push(GlobalData {
        name: "hooks".into(),
        size: 16,
        align: 8,
        constant: false,
        init: Vec::new(),
        relocs: vec![
            Reloc { offset: 0, target: RelocTarget::Func(putchar), addend: 0 },
            Reloc { offset: 8, target: RelocTarget::Global(limit), addend: 2 },
        ],
        loc: Loc { file: FileId::from_u32(1), line: 3, col: 1 },
    });

    let mut body = Body::default();
    let entry = body.add_block();
    let header = body.add_block();
    let latch = body.add_block();
    let exit = body.add_block();
    let start = body.add_param(entry, Type::I32);
    let i = body.add_param(header, Type::I32);
    let total = body.add_param(header, Type::I64);
    let result = body.add_param(exit, Type::I64);

    let (_, bound) = body.append(entry, InstKind::Load { ty: Type::I32, ptr: Operand::Global(limit) }, loc(4, 15));
    let bound = bound.expect("load has a result");
    body.set_term(
        entry,
        Terminator::Jump(BlockCall {
            block: header,
            args: vec![start.into(), Const::int(Type::I64, 0, DataModel::LP64).into()],
        }),
        loc(5, 3),
    );
    let (_, more) = body.append(
        header,
        InstKind::Cmp { pred: CmpPred::Slt, ty: Type::I32, lhs: i.into(), rhs: bound.into() },
        loc(5, 17),
    );
    body.set_term(
        header,
        Terminator::Branch {
            cond: more.expect("cmp has a result").into(),
            if_true: BlockCall::new(latch),
            if_false: BlockCall { block: exit, args: vec![total.into()] },
        },
        loc(5, 3),
    );
    let (_, wide) = body.append(
        latch,
        InstKind::Cast { op: CastOp::SExt, from: Type::I32, to: Type::I64, arg: i.into() },
        loc(6, 11),
    );
    let (_, sum) = body.append(
        latch,
        InstKind::Bin { op: BinOp::Add, ty: Type::I64, lhs: total.into(), rhs: wide.expect("sext").into() },
        loc(6, 11),
    );
    body.append(
        latch,
        InstKind::Call { callee: walkdown_ir::Callee::Direct(putchar), args: vec![i.into()], ret: Some(Type::I32) },
        loc(7, 5),
    );
    let (_, next) = body.append(
        latch,
        InstKind::Bin {
            op: BinOp::Add,
            ty: Type::I32,
            lhs: i.into(),
            rhs: Const::int(Type::I32, 1, DataModel::LP64).into(),
        },
        loc(5, 30),
    );
    body.set_term(
        latch,
        Terminator::Jump(BlockCall { block: header, args: vec![next.expect("add").into(), sum.expect("add").into()] }),
        loc(5, 3),
    );
    body.set_term(exit, Terminator::Return(Some(result.into())), loc(9, 3));
    define(&mut p, "count", vec![Type::I32], Some(Type::I64), body);
    p
}

#[test]
fn program_built_in_textual_order_comes_back_identical() {
    let original = counting_loop();
    verify_program(&original).expect("the built program is well formed");
    let parsed = assert_round_trip(&original);
    assert_eq!(format!("{parsed:?}"), format!("{original:?}"));
    verify_program(&parsed).expect("the parsed program is well formed");
}

/// Built out of textual order: a definition before a declaration, an
/// instruction created before the ones it is placed after, values created
/// in an order unrelated to the layout. The text still round-trips and
/// every value keeps its id and type; only function and instruction ids,
/// which the text does not spell, are renumbered.
#[test]
fn program_built_out_of_order_keeps_its_value_ids() {
    let mut p = Program::new(DataModel::LP64);
    let mut body = Body::default();
    let entry = body.add_block();
    let second = body.add_block();
    let late_param = body.add_param(second, Type::F64); // v0, in b1
    let early = body.create_inst(InstKind::Nondet { ty: Type::F64, signed: true }, loc(2, 2)); // i0, v1
    let (_, first) = body.append(entry, InstKind::Nondet { ty: Type::F64, signed: true }, loc(1, 1)); // i1, v2
    body.blocks[entry].insts.push(early);
    let early_value = body.insts[early].result.expect("nondet has a result");
    body.set_term(entry, Terminator::Jump(BlockCall { block: second, args: vec![early_value.into()] }), loc(3, 3));
    let (_, sum) = body.append(
        second,
        InstKind::Bin { op: BinOp::FAdd, ty: Type::F64, lhs: late_param.into(), rhs: first.expect("nondet").into() },
        loc(4, 4),
    );
    body.set_term(second, Terminator::Return(Some(sum.expect("fadd").into())), loc(5, 5));
    define(&mut p, "main", Vec::new(), Some(Type::F64), body);
    p.funcs.push(FuncData::external("abort", Vec::new(), None, false));
    verify_program(&p).expect("well formed");

    let parsed = assert_round_trip(&p);
    let original_body = p.funcs[p.func_by_name("main").expect("main")].body.as_ref().expect("defined");
    let parsed_body = parsed.funcs[parsed.func_by_name("main").expect("main")].body.as_ref().expect("defined");
    assert_eq!(parsed.func_by_name("abort").map(|f| f.index()), Some(0));
    assert_eq!(parsed_body.values.len(), original_body.values.len());
    for (v, data) in original_body.values.iter() {
        assert_eq!(parsed_body.values[v].ty, data.ty, "{v}");
    }
    assert_eq!(parsed_body.values[late_param].def, walkdown_ir::ValueDef::Param(Block::new(1), 0));
    // Instructions are renumbered in program order: `early` comes second.
    let early_parsed = parsed_body.blocks[entry].insts[1];
    assert_eq!(early_parsed.index(), 1);
    assert_eq!(parsed_body.insts[early_parsed].result, Some(early_value));
    assert_eq!(parsed_body.insts[early_parsed].loc, loc(2, 2));
    verify_program(&parsed).expect("well formed");
}

/// An instruction created but never placed leaves a hole in the value ids
/// the printer writes; the reader refuses such text and names the hole.
#[test]
fn unplaced_instruction_results_make_the_text_unreadable() {
    let mut p = Program::new(DataModel::LP64);
    let mut body = Body::default();
    let entry = body.add_block();
    body.create_inst(InstKind::Nondet { ty: Type::I32, signed: true }, Loc::UNKNOWN); // v0, never placed
    let (_, kept) = body.append(entry, InstKind::Nondet { ty: Type::I32, signed: true }, Loc::UNKNOWN);
    body.set_term(entry, Terminator::Return(Some(kept.expect("nondet").into())), Loc::UNKNOWN);
    define(&mut p, "main", Vec::new(), Some(Type::I32), body);
    let error = parse_program(&program_to_string(&p)).expect_err("v0 is missing");
    assert!(error.message.contains("v0 is never defined in @main, yet v1 is"), "{error}");
}

/// A location without a line is not printed, whatever its file.
#[test]
fn unknown_locations_print_nothing() {
    let mut p = Program::new(DataModel::LP64);
    let mut body = Body::default();
    let entry = body.add_block();
    body.set_term(entry, Terminator::Return(None), Loc { file: FileId::from_u32(1), line: 0, col: 0 });
    define(&mut p, "main", Vec::new(), None, body);
    let parsed = assert_round_trip(&p);
    let parsed_body = parsed.funcs[walkdown_ir::FuncId::new(0)].body.as_ref().expect("defined");
    assert_eq!(parsed_body.blocks[entry].term_loc, Loc::UNKNOWN);
}

/// A legal (from, to) pair for every cast.
fn cast_types(op: CastOp) -> (Type, Type) {
    match op {
        CastOp::Trunc => (Type::I64, Type::I8),
        CastOp::ZExt => (Type::I1, Type::I32),
        CastOp::SExt => (Type::I16, Type::I64),
        CastOp::FpToUi => (Type::F64, Type::I32),
        CastOp::FpToSi => (Type::F32, Type::I64),
        CastOp::UiToFp => (Type::I32, Type::F32),
        CastOp::SiToFp => (Type::I64, Type::F64),
        CastOp::FpTrunc => (Type::F64, Type::F32),
        CastOp::FpExt => (Type::F32, Type::F64),
        CastOp::PtrToInt => (Type::Ptr, Type::I64),
        CastOp::IntToPtr => (Type::I64, Type::Ptr),
        CastOp::Bitcast => (Type::I32, Type::F32),
    }
}

/// Every mnemonic of every operator list, with operands of every type, in
/// one function; the verifier accepts it and the parsed instructions equal
/// the built ones.
#[test]
fn every_operator_round_trips() {
    let dm = DataModel::LP64;
    let mut p = Program::new(dm);
    let mut body = Body::default();
    let entry = body.add_block();
    let params: Vec<Value> = Type::ALL.iter().map(|&ty| body.add_param(entry, ty)).collect();
    let of = |ty: Type| -> Operand { Operand::Value(params[Type::ALL.iter().position(|&t| t == ty).unwrap_or(0)]) };
    let mut kinds = Vec::new();
    for &op in BinOp::ALL {
        let ty = if op.is_float() { Type::F64 } else { Type::I32 };
        kinds.push(InstKind::Bin { op, ty, lhs: of(ty), rhs: of(ty) });
    }
    for &op in UnOp::ALL {
        let ty = if op == UnOp::FNeg { Type::F32 } else { Type::I64 };
        kinds.push(InstKind::Un { op, ty, arg: of(ty) });
    }
    for &pred in CmpPred::ALL {
        let ty = if pred.is_float() { Type::F64 } else { Type::I8 };
        kinds.push(InstKind::Cmp { pred, ty, lhs: of(ty), rhs: Const::int(ty, -1, dm).into() });
    }
    for &op in CastOp::ALL {
        let (from, to) = cast_types(op);
        kinds.push(InstKind::Cast { op, from, to, arg: of(from) });
    }
    for &kind in CheckKind::ALL {
        kinds.push(InstKind::Check { kind, cond: of(Type::I1) });
    }
    for &ty in &Type::ALL {
        kinds.push(InstKind::Nondet { ty, signed: ty != Type::I16 });
        kinds.push(InstKind::Load { ty, ptr: of(Type::Ptr) });
        kinds.push(InstKind::Store { ty, ptr: of(Type::Ptr), value: of(ty) });
        kinds.push(InstKind::Select { ty, cond: of(Type::I1), if_true: of(ty), if_false: of(ty) });
    }
    kinds.push(InstKind::Alloca { size: of(Type::I64), align: 16 });
    kinds.push(InstKind::PtrAdd { base: of(Type::Ptr), offset: of(Type::I64) });
    kinds.push(InstKind::Assume { cond: of(Type::I1) });
    kinds.push(InstKind::Call {
        callee: walkdown_ir::Callee::Indirect(of(Type::Ptr)),
        args: params.iter().map(|&v| v.into()).collect(),
        ret: Some(Type::F32),
    });
    for kind in &kinds {
        body.append(entry, kind.clone(), loc(2, 3));
    }
    body.set_term(entry, Terminator::Unreachable, Loc::UNKNOWN);
    define(&mut p, "all", Type::ALL.to_vec(), None, body);
    verify_program(&p).expect("well formed");

    let parsed = assert_round_trip(&p);
    assert_eq!(format!("{parsed:?}"), format!("{p:?}"));
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Constants of every type, boundary values and random bit patterns
/// (including NaN payloads and subnormals), keep their exact bits.
#[test]
fn constants_keep_their_exact_bits() {
    for dm in [DataModel::LP64, DataModel::ILP32] {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut consts = Vec::new();
        for &ty in &Type::ALL {
            let bits = ty.bits(dm);
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let edges = [0, 1, mask, mask >> 1, (mask >> 1) + 1, 0x7ff8_0000_0000_0000, 0x7fc0_0000, 0x8000_0000];
            for raw in edges.into_iter().chain((0..500).map(|_| rng.next())) {
                consts.push(Const { ty, bits: raw & mask });
            }
        }
        let mut p = Program::new(dm);
        let mut body = Body::default();
        let entry = body.add_block();
        for c in &consts {
            body.append(
                entry,
                InstKind::Store { ty: c.ty, ptr: Const::null().into(), value: (*c).into() },
                Loc::UNKNOWN,
            );
        }
        body.set_term(entry, Terminator::Return(None), Loc::UNKNOWN);
        define(&mut p, "consts", Vec::new(), None, body);
        verify_program(&p).expect("well formed");
        let parsed = assert_round_trip(&p);
        assert_eq!(format!("{parsed:?}"), format!("{p:?}"), "{dm}");
    }
}

/// Names and file names with quotes, backslashes, spaces, control bytes,
/// non-ASCII letters, a leading digit, or nothing at all.
#[test]
fn odd_names_round_trip() {
    let names = ["", "a b", "1st", "quote\"d", "back\\slash", "tab\there", "\u{e9}t\u{e9}", "new\nline", "$x.y_z"];
    let mut p = Program::new(DataModel::LP64);
    for (i, name) in names.iter().enumerate() {
        p.files.push(format!("dir/{name}.c"));
        let global = GlobalData {
            name: format!("g{name}"),
            size: 8,
            align: 8,
            constant: false,
            init: name.as_bytes().iter().take(8).copied().collect(),
            relocs: Vec::new(),
            loc: Loc { file: FileId::from_u32(i as u32), line: 1, col: 1 },
        };
        p.globals.push(global);
        p.funcs.push(FuncData::external(name, vec![Type::Ptr], None, true));
    }
    let parsed = assert_round_trip(&p);
    assert_eq!(format!("{parsed:?}"), format!("{p:?}"));
    let text = program_to_string(&p);
    assert!(text.contains("declare @\"\"(ptr, ...)"), "{text}");
    assert!(text.contains("declare @\"1st\"(ptr, ...)"), "{text}");
    assert!(text.contains("declare @$x.y_z(ptr, ...)"), "{text}");
    assert_same_text(&program_to_string(&parsed), &text);
}
