//! Helpers for building small programs with the IR builder API.

#![allow(dead_code)]

use walkdown_interp::{Interpreter, RunOptions, RunResult};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::*;

/// Location on `line` of file 0.
pub fn at(line: u32) -> Loc {
    Loc { file: FileId::from_u32(0), line, col: 1 }
}

/// An integer constant of type `ty` (truncated).
pub fn ci(ty: Type, v: i64, dm: DataModel) -> Operand {
    Operand::Const(Const::int(ty, v, dm))
}

/// An `i32` constant.
pub fn c32(v: i64) -> Operand {
    ci(Type::I32, v, DataModel::LP64)
}

/// An `i64` constant.
pub fn c64(v: i64) -> Operand {
    ci(Type::I64, v, DataModel::LP64)
}

/// A float constant.
pub fn cf(ty: Type, v: f64) -> Operand {
    let bits = if ty == Type::F32 { u64::from((v as f32).to_bits()) } else { v.to_bits() };
    Operand::Const(Const { ty, bits })
}

/// A function body being built, with a current block.
pub struct Fb {
    pub body: Body,
    pub cur: Block,
    pub line: u32,
}

impl Fb {
    /// A body with an entry block taking `params`.
    pub fn new(params: &[Type]) -> (Fb, Vec<Operand>) {
        let mut body = Body::default();
        let b = body.add_block();
        let ps = params.iter().map(|&t| Operand::Value(body.add_param(b, t))).collect();
        (Fb { body, cur: b, line: 1 }, ps)
    }

    /// Appends an instruction at the current block (on a new line) and
    /// returns its result.
    pub fn ins(&mut self, kind: InstKind) -> Operand {
        self.line += 1;
        let (_, v) = self.body.append(self.cur, kind, at(self.line));
        v.map(Operand::Value).unwrap_or(Operand::Const(Const::bool(false)))
    }

    /// Appends an instruction and returns its id.
    pub fn ins_id(&mut self, kind: InstKind) -> (Inst, Option<Operand>) {
        self.line += 1;
        let (i, v) = self.body.append(self.cur, kind, at(self.line));
        (i, v.map(Operand::Value))
    }

    pub fn bin(&mut self, op: BinOp, ty: Type, lhs: Operand, rhs: Operand) -> Operand {
        self.ins(InstKind::Bin { op, ty, lhs, rhs })
    }
    pub fn cmp(&mut self, pred: CmpPred, ty: Type, lhs: Operand, rhs: Operand) -> Operand {
        self.ins(InstKind::Cmp { pred, ty, lhs, rhs })
    }
    pub fn cast(&mut self, op: CastOp, from: Type, to: Type, arg: Operand) -> Operand {
        self.ins(InstKind::Cast { op, from, to, arg })
    }
    pub fn nondet(&mut self, ty: Type, signed: bool) -> Operand {
        self.ins(InstKind::Nondet { ty, signed })
    }
    pub fn load(&mut self, ty: Type, ptr: Operand) -> Operand {
        self.ins(InstKind::Load { ty, ptr })
    }
    pub fn store(&mut self, ty: Type, ptr: Operand, value: Operand) {
        self.ins(InstKind::Store { ty, ptr, value });
    }
    pub fn alloca(&mut self, size: Operand) -> Operand {
        self.ins(InstKind::Alloca { size, align: 8 })
    }
    pub fn ptradd(&mut self, base: Operand, offset: Operand) -> Operand {
        self.ins(InstKind::PtrAdd { base, offset })
    }
    pub fn call(&mut self, f: FuncId, args: Vec<Operand>, ret: Option<Type>) -> Operand {
        self.ins(InstKind::Call { callee: Callee::Direct(f), args, ret })
    }
    pub fn call_ind(&mut self, p: Operand, args: Vec<Operand>, ret: Option<Type>) -> Operand {
        self.ins(InstKind::Call { callee: Callee::Indirect(p), args, ret })
    }
    /// `check kind (lhs == rhs)` on type `ty`.
    pub fn check_eq(&mut self, ty: Type, lhs: Operand, rhs: Operand) -> Inst {
        let pred = if ty.is_float() { CmpPred::FOeq } else { CmpPred::Eq };
        let c = self.cmp(pred, ty, lhs, rhs);
        self.ins_id(InstKind::Check { kind: CheckKind::Assertion, cond: c }).0
    }
    pub fn new_block(&mut self) -> Block {
        self.body.add_block()
    }
    pub fn switch_to(&mut self, b: Block) {
        self.cur = b;
    }
    pub fn term(&mut self, t: Terminator) {
        self.line += 1;
        self.body.set_term(self.cur, t, at(self.line));
    }
    pub fn ret(&mut self, v: Option<Operand>) {
        self.term(Terminator::Return(v));
    }
}

/// A program in data model `dm`.
pub fn program(dm: DataModel) -> Program {
    let mut p = Program::new(dm);
    p.files.push("test.c".into());
    p
}

/// Adds a defined function.
pub fn define(p: &mut Program, name: &str, params: Vec<Type>, ret: Option<Type>, fb: Fb) -> FuncId {
    p.funcs.push(FuncData { body: Some(fb.body), ..FuncData::external(name, params, ret, false) })
}

/// Declares an external function.
pub fn declare(p: &mut Program, name: &str, params: Vec<Type>, ret: Option<Type>, variadic: bool) -> FuncId {
    p.funcs.push(FuncData::external(name, params, ret, variadic))
}

/// Adds `int main()` with the body `fb`.
pub fn with_main(p: &mut Program, fb: Fb) -> FuncId {
    define(p, "main", vec![], Some(Type::I32), fb)
}

/// Verifies `p` (the tests build well-formed programs).
pub fn verified(p: &Program) {
    if let Err(e) = walkdown_ir::verify::verify_program(p) {
        panic!("test program does not verify:\n{e}\n{}", walkdown_ir::write::program_to_string(p));
    }
}

/// Runs `p` on integer inputs with default options.
pub fn run(p: &Program, inputs: &[i128]) -> RunResult {
    run_with(p, TestVector::from_ints(inputs.iter().copied()), &RunOptions::default())
}

/// Runs `p` on `tv` with `opts`.
pub fn run_with(p: &Program, tv: TestVector, opts: &RunOptions) -> RunResult {
    verified(p);
    let goals = Goals::compute(p);
    let interp = Interpreter::new(p, &goals).expect("prepare");
    interp.run(&tv, opts)
}

/// Runs `p` on `tv` with `opts` without fast-forwarding loops (the plain
/// run, iteration by iteration).
#[allow(dead_code)]
pub fn run_plain(p: &Program, tv: TestVector, opts: &RunOptions) -> RunResult {
    verified(p);
    let goals = Goals::compute(p);
    let mut interp = Interpreter::new(p, &goals).expect("prepare");
    interp.set_fast_forward(false);
    interp.run(&tv, opts)
}

/// A test vector of mixed values.
pub fn tv(values: &[InputValue]) -> TestVector {
    TestVector { values: values.to_vec() }
}
