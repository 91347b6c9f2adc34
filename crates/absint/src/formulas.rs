//! The analyses' states as [`Formula`]s over a function's values, for
//! engines that check or print invariants (correctness witnesses): per
//! block, the meet of the interval analysis and the relational product —
//! each value's bounds, the affine equalities among values (counters
//! projected away) evaluated in a type where their sums cannot wrap, and
//! the octagonal inequalities between two values of at most 32 bits
//! (computed in `i64`).

use walkdown_ir::formula::{Formula, Term};
use walkdown_ir::{BinOp, Block, CastOp, CmpPred, Const, FuncId, Operand, Type};

use crate::affine::Var;
use crate::analysis::Analysis;
use crate::domain::Domain;
use crate::interval::{is_full, norm};
use crate::relational::RelAnalysis;

/// What the analyses know on entry to `block` of `func`; `None` when no
/// execution gets there. For a block that only branches on a parameter,
/// the disjunction of what they know on each edge into it: the analyses'
/// successor states come from those edges one at a time (see
/// `crate::fixpoint`), so their join alone would not imply them.
pub fn entry_formula(
    intervals: &Analysis<'_>,
    relational: Option<&RelAnalysis<'_>>,
    func: FuncId,
    block: Block,
) -> Option<Formula> {
    let program = intervals.program();
    let dm = program.data_model;
    let body = program.funcs.get(func)?.body.as_ref()?;
    if !body.blocks.is_valid(block) {
        return None;
    }
    if let Some(ivs) = intervals.edge_states_into(func, block) {
        let rels = relational.map(|r| r.edge_states_into(func, block));
        // The two analyses list the same edges when both reach the block;
        // otherwise the intervals' edges alone.
        let rels = match rels {
            Some(Some(r)) if r.len() == ivs.len() => r.into_iter().map(Some).collect(),
            _ => vec![None; ivs.len()],
        };
        let parts: Vec<Formula> =
            ivs.iter().zip(&rels).filter_map(|(iv, rel)| state_formula(body, dm, iv, rel.as_ref())).collect();
        return (!parts.is_empty()).then(|| Formula::or(parts));
    }
    let iv = intervals.entry_state(func, block);
    let rel = relational.map(|r| r.entry_state(func, block));
    state_formula(body, dm, &iv, rel.as_ref())
}

/// The formula of an interval state and a relational one (`None`: bottom).
fn state_formula(
    body: &walkdown_ir::Body,
    dm: walkdown_ir::DataModel,
    iv: &crate::state::IntervalState,
    rel: Option<&crate::relational::RelState>,
) -> Option<Formula> {
    if iv.is_bottom() || rel.is_some_and(|r| r.iv.is_bottom() || r.eq.is_bottom()) {
        return None;
    }
    let mut values: Vec<walkdown_ir::Value> = iv.constrained().map(|(v, _)| v).collect();
    if let Some(r) = rel {
        values.extend(r.iv.constrained().map(|(v, _)| v));
    }
    values.sort();
    values.dedup();
    let mut atoms = Vec::new();
    for v in values {
        let ty = body.values[v].ty;
        if !ty.is_int() {
            continue;
        }
        let w = ty.bits(dm);
        let mut range = norm(iv.get(v), w);
        if let Some(r) = rel {
            range = range.meet(norm(r.iv.get(v), w));
        }
        if range.is_bottom() {
            return None;
        }
        if is_full(range, w) {
            continue;
        }
        let value = Term::value(v);
        if w == 1 {
            // Booleans are canonical 0/1.
            if range.lo == range.hi {
                atoms.push(Formula::Cmp { pred: CmpPred::Eq, ty, lhs: value, rhs: constant(ty, range.lo, dm) });
            }
            continue;
        }
        let (min, max) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
        if range.lo == range.hi {
            atoms.push(Formula::Cmp { pred: CmpPred::Eq, ty, lhs: value, rhs: constant(ty, range.lo, dm) });
            continue;
        }
        if range.lo > min {
            atoms.push(Formula::Cmp { pred: CmpPred::Sle, ty, lhs: constant(ty, range.lo, dm), rhs: value.clone() });
        }
        if range.hi < max {
            atoms.push(Formula::Cmp { pred: CmpPred::Sle, ty, lhs: value, rhs: constant(ty, range.hi, dm) });
        }
    }
    if let Some(r) = rel {
        let proj = r.eq.project(|v| matches!(v, Var::Val(_)));
        for row in proj.rows() {
            let terms: Option<Vec<(i64, walkdown_ir::Value)>> = row
                .terms
                .iter()
                .map(|&(v, c)| match v {
                    Var::Val(v) => i64::try_from(c).ok().map(|c| (c, v)),
                    _ => None,
                })
                .collect();
            let (Some(terms), Ok(constant_term)) = (terms, i64::try_from(row.constant)) else { continue };
            let Some(eval_ty) = crate::invariants::eval_type(body, dm, |v| r.iv.get(v), &terms, constant_term) else {
                continue;
            };
            if let Some(f) = linear_equality(body, dm, &terms, constant_term, eval_ty) {
                atoms.push(f);
            }
        }
    }
    if let Some(r) = rel {
        for ((x, sx, y, sy), c) in r.stated_octagon(body, dm) {
            let (Var::Val(x), Var::Val(y)) = (x, y) else { continue };
            if let Some(f) = octagonal(body, dm, (x, sx), (y, sy), c) {
                atoms.push(f);
            }
        }
    }
    Some(Formula::and(atoms))
}

/// `sx * x + sy * y <= c` over the values' signed readings, computed in
/// `i64` from values of at most 32 bits (so it cannot wrap).
fn octagonal(
    body: &walkdown_ir::Body,
    dm: walkdown_ir::DataModel,
    (x, sx): (walkdown_ir::Value, bool),
    (y, sy): (walkdown_ir::Value, bool),
    c: i128,
) -> Option<Formula> {
    let wide = |v: walkdown_ir::Value| -> Option<Term> {
        let ty = body.values[v].ty;
        (ty.is_int() && (2..=32).contains(&ty.bits(dm))).then(|| Term::Cast {
            op: CastOp::SExt,
            from: ty,
            to: Type::I64,
            arg: Box::new(Term::value(v)),
        })
    };
    let (tx, ty) = (wide(x)?, wide(y)?);
    let c = i64::try_from(c).ok()?;
    let bin = |op, a: Term, b: Term| Term::Bin { op, ty: Type::I64, lhs: Box::new(a), rhs: Box::new(b) };
    let le = |lhs: Term, k: i64| Formula::Cmp {
        pred: CmpPred::Sle,
        ty: Type::I64,
        lhs,
        rhs: constant(Type::I64, i128::from(k), dm),
    };
    Some(match (sx, sy) {
        (true, true) => le(bin(BinOp::Add, tx, ty), c),
        (true, false) => le(bin(BinOp::Sub, tx, ty), c),
        (false, true) => le(bin(BinOp::Sub, ty, tx), c),
        // -(x + y) <= c is x + y >= -c.
        (false, false) => Formula::Cmp {
            pred: CmpPred::Sle,
            ty: Type::I64,
            lhs: constant(Type::I64, -i128::from(c), dm),
            rhs: bin(BinOp::Add, tx, ty),
        },
    })
}

fn constant(ty: Type, c: i128, dm: walkdown_ir::DataModel) -> Term {
    Term::Operand(Operand::Const(Const::int(ty, c as i64, dm)))
}

/// `sum(c * v) + constant == 0`, the values sign-extended to `ty`.
fn linear_equality(
    body: &walkdown_ir::Body,
    dm: walkdown_ir::DataModel,
    terms: &[(i64, walkdown_ir::Value)],
    constant_term: i64,
    ty: Type,
) -> Option<Formula> {
    let tw = ty.bits(dm);
    let mut acc: Option<Term> = None;
    for &(c, v) in terms {
        let vt = body.values[v].ty;
        if !vt.is_int() || vt.bits(dm) > tw {
            return None;
        }
        let mut x = Term::value(v);
        if vt.bits(dm) < tw {
            x = Term::Cast { op: CastOp::SExt, from: vt, to: ty, arg: Box::new(x) };
        }
        if c != 1 {
            x = Term::Bin { op: BinOp::Mul, ty, lhs: Box::new(constant(ty, i128::from(c), dm)), rhs: Box::new(x) };
        }
        acc = Some(match acc {
            None => x,
            Some(a) => Term::Bin { op: BinOp::Add, ty, lhs: Box::new(a), rhs: Box::new(x) },
        });
    }
    Some(Formula::Cmp { pred: CmpPred::Eq, ty, lhs: acc?, rhs: constant(ty, -i128::from(constant_term), dm) })
}
