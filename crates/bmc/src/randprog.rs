//! Random programs in the shape of the paper's experiment (Section 7):
//! a sequence of control-flow diamonds, each two levels of nested
//! if-then-else (four paths through each), every block three statements
//! that are linear integer assignments or assumptions guarding the choice
//! that led to the block, over 10 to 20 variables whose initial values are
//! inputs. Choices are `nondet i1` inputs (the paper's non-deterministic
//! `goto`), so a path is feasible exactly when its assumptions hold.
//!
//! Deterministic given the seed (SplitMix64), built directly as IR.

use walkdown_ir::{
    BinOp, Block, BlockCall, Body, CmpPred, Const, DataModel, FileId, FuncData, InstKind, Loc, Operand, Program,
    Terminator, Type, Value,
};

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// The shape of one random program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Control-flow diamonds in sequence (the paper: 2 to 9).
    pub diamonds: usize,
    /// Integer variables (the paper: 10 to 20).
    pub vars: usize,
}

/// The program of `diamonds` diamonds for `seed` (the variable count is
/// drawn from 10 to 20 by the seed).
pub fn paper_program(diamonds: usize, seed: u64) -> Program {
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ diamonds as u64);
    let vars = rng.range(10, 20) as usize;
    build(Shape { diamonds, vars }, &mut rng)
}

struct Builder<'r> {
    body: Body,
    rng: &'r mut Rng,
    vals: Vec<Value>,
    line: u32,
}

/// The variables' type. The paper's variables are unbounded integers;
/// 8-bit machine integers keep Z3's bit-blasting cheap (the constants are
/// small, so few paths depend on wrap-around).
const W: Type = Type::I8;

impl Builder<'_> {
    fn loc(&mut self) -> Loc {
        self.line += 1;
        Loc { file: FileId::from_u32(0), line: self.line, col: 1 }
    }

    fn k(&self, v: i64) -> Operand {
        Operand::Const(Const::int(W, v, DataModel::LP64))
    }

    fn emit(&mut self, b: Block, kind: InstKind, loc: Loc) -> Value {
        self.body.append(b, kind, loc).1.expect("a value")
    }

    /// `x_i := a * x_j + x_k + c`.
    fn assignment(&mut self, b: Block) {
        let loc = self.loc();
        let n = self.vals.len() as u64;
        let (i, j, k) = (self.rng.below(n) as usize, self.rng.below(n) as usize, self.rng.below(n) as usize);
        let a = self.rng.range(-2, 2);
        let c = self.rng.range(-10, 10);
        let ka = self.k(a);
        let kc = self.k(c);
        let prod =
            self.emit(b, InstKind::Bin { op: BinOp::Mul, ty: W, lhs: Operand::Value(self.vals[j]), rhs: ka }, loc);
        let sum = self.emit(
            b,
            InstKind::Bin { op: BinOp::Add, ty: W, lhs: Operand::Value(prod), rhs: Operand::Value(self.vals[k]) },
            loc,
        );
        let v = self.emit(b, InstKind::Bin { op: BinOp::Add, ty: W, lhs: Operand::Value(sum), rhs: kc }, loc);
        self.vals[i] = v;
    }

    /// `assume x_i PRED x_j + c` (or against a constant).
    fn assumption(&mut self, b: Block) {
        let loc = self.loc();
        let n = self.vals.len() as u64;
        let i = self.rng.below(n) as usize;
        let preds = [CmpPred::Slt, CmpPred::Sle, CmpPred::Sgt, CmpPred::Sge, CmpPred::Eq, CmpPred::Ne];
        let pred = preds[self.rng.below(preds.len() as u64) as usize];
        let c = self.rng.range(-20, 20);
        let kc = self.k(c);
        let rhs = if self.rng.below(2) == 0 {
            kc
        } else {
            let j = self.rng.below(n) as usize;
            Operand::Value(self.emit(
                b,
                InstKind::Bin { op: BinOp::Add, ty: W, lhs: Operand::Value(self.vals[j]), rhs: kc },
                loc,
            ))
        };
        let cond = self.emit(b, InstKind::Cmp { pred, ty: W, lhs: Operand::Value(self.vals[i]), rhs }, loc);
        self.body.append(b, InstKind::Assume { cond: Operand::Value(cond) }, loc);
    }

    /// Three statements; a block entered by a choice starts with its guard.
    fn statements(&mut self, b: Block, guarded: bool) {
        for s in 0..3 {
            if s == 0 && guarded || self.rng.below(4) == 0 {
                self.assumption(b);
            } else {
                self.assignment(b);
            }
        }
    }

    /// Ends `b` with a non-deterministic choice between `t` and `f`.
    fn choice(&mut self, b: Block, t: Block, f: Block) {
        let loc = self.loc();
        let c = self.emit(b, InstKind::Nondet { ty: Type::I1, signed: false }, loc);
        self.body.set_term(
            b,
            Terminator::Branch { cond: Operand::Value(c), if_true: BlockCall::new(t), if_false: BlockCall::new(f) },
            loc,
        );
    }
}

fn build(shape: Shape, rng: &mut Rng) -> Program {
    let mut p = Program::new(DataModel::LP64);
    p.files.push("random.c".into());
    let mut bld = Builder { body: Body::default(), rng, vals: Vec::new(), line: 0 };
    let entry = bld.body.add_block();
    for _ in 0..shape.vars {
        let loc = bld.loc();
        let v = bld.emit(entry, InstKind::Nondet { ty: W, signed: true }, loc);
        bld.vals.push(v);
    }
    let mut top = entry;
    bld.statements(top, false);
    for _ in 0..shape.diamonds {
        let [l, r, ll, lr, rl, rr] = [(); 6].map(|_| bld.body.add_block());
        bld.choice(top, l, r);
        let saved = bld.vals.clone();
        let mut outs: Vec<(Block, Vec<Value>)> = Vec::new();
        for (side, kids) in [(l, [ll, lr]), (r, [rl, rr])] {
            bld.vals = saved.clone();
            bld.statements(side, true);
            bld.choice(side, kids[0], kids[1]);
            let mid = bld.vals.clone();
            for kid in kids {
                bld.vals = mid.clone();
                bld.statements(kid, true);
                outs.push((kid, bld.vals.clone()));
            }
        }
        let join = bld.body.add_block();
        let params: Vec<Value> = (0..shape.vars).map(|_| bld.body.add_param(join, W)).collect();
        for (b, vals) in outs {
            let loc = bld.loc();
            let args = vals.into_iter().map(Operand::Value).collect();
            bld.body.set_term(b, Terminator::Jump(BlockCall { block: join, args }), loc);
        }
        bld.vals = params;
        bld.statements(join, false);
        top = join;
    }
    let loc = bld.loc();
    let ret = Operand::Value(bld.vals[0]);
    bld.body.set_term(top, Terminator::Return(Some(ret)), loc);
    let mut f = FuncData::external("main", Vec::new(), Some(W), false);
    f.builtin = None;
    f.loc = Loc { file: FileId::from_u32(0), line: 0, col: 0 };
    f.body = Some(bld.body);
    p.funcs.push(f);
    p
}
