//! Trip-count symbols at loop exits, from the closed forms of
//! [`walkdown_absint::trip_count_forms`].
//!
//! When a run leaves a loop by a summarizable exit, a fresh symbol `N`
//! stands for the number of iterations: the loop head's parameters get
//! their closed forms in `N` as shadows, and the path condition gets, in
//! place of the exit branch's own constraint, "the exit is taken at `N`
//! and was not taken at `N - 1`". For guards linear in the counter this
//! pins `N` to the trip count as a function of the inputs, so a later
//! branch on a value that depends on the input only through the loop (a
//! counter `i`, or `k += 2` per iteration) becomes a question about the
//! inputs. The current run satisfies the constraint with `N` equal to its
//! trip count, because the forms hold bit-exactly.

use super::Run;
use std::collections::HashMap;
use std::collections::HashSet;
use walkdown_absint::LoopForms;
use walkdown_ir::{CastOp, InstKind, Operand, Value, ValueDef};
use walkdown_smt::ExprId;

/// Width of trip-count symbols.
const TRIP_WIDTH: u32 = 64;

/// Trip counts the solver may choose at most: a longer run could not be
/// replayed within the interpreter's step limit anyway.
const MAX_TRIP: u64 = 1 << 26;

/// Def-tree depth followed when re-deriving an exit condition.
const MAX_DEPTH: u32 = 48;

/// A loop whose exits may be summarized, with the instructions of its
/// blocks (to tell values computed in the loop from those before it).
pub struct TripLoop {
    /// The closed forms and exits.
    pub forms: LoopForms,
    /// Instructions of the loop's blocks.
    pub insts: HashSet<walkdown_ir::Inst>,
}

impl TripLoop {
    /// The loop of `forms` in `body`.
    pub fn new(forms: LoopForms, body: &walkdown_ir::Body) -> TripLoop {
        let insts = forms.blocks.iter().flat_map(|&b| body.blocks[b].insts.iter().copied()).collect();
        TripLoop { forms, insts }
    }
}

/// A summarized loop exit: the constraint that replaces the exit branch's
/// own, and the head parameters' new shadows.
pub(super) struct TripExit {
    pub constraint: ExprId,
    pub rebind: Vec<(Value, ExprId)>,
}

impl Run<'_, '_> {
    /// The summary of leaving loop `forms` through the branch on `cond`
    /// (taken when `cond` is `exit_when`), or `None` when the exit condition
    /// cannot be re-derived from the head parameters or depends on no input.
    pub(super) fn trip_exit(&mut self, forms: &TripLoop, cond: &Operand, exit_when: bool) -> Option<TripExit> {
        if self.trip_symbols_used >= self.limits.max_trip_symbols {
            return None;
        }
        let Operand::Value(cond) = *cond else { return None };
        let n = self.t.trip_symbol(self.sym.pool(), self.trip_symbols_used as usize, TRIP_WIDTH);
        let mut depends_on_input = false;
        let at_n = self.closed_forms(forms, n, &mut depends_on_input);
        let one = self.sym.bv(1, TRIP_WIDTH);
        let n_minus_1 = self.sym.bin(walkdown_ir::BinOp::Sub, TRIP_WIDTH, n, one);
        let at_n_minus_1 = self.closed_forms(forms, n_minus_1, &mut depends_on_input);
        let exit_at_n = self.rederive(forms, cond, &at_n, &mut depends_on_input)?;
        let exit_before = self.rederive(forms, cond, &at_n_minus_1, &mut depends_on_input)?;
        if !depends_on_input {
            return None;
        }
        let (exit_at_n, exit_before) = {
            let a = self.sym.bv1_to_bool(exit_at_n);
            let b = self.sym.bv1_to_bool(exit_before);
            if exit_when {
                (a, b)
            } else {
                (self.sym.not(a), self.sym.not(b))
            }
        };
        let zero = self.sym.bv(0, TRIP_WIDTH);
        let first = self.sym.eq(n, zero);
        // N == 0, or the loop did not leave here at N - 1.
        let not_first = self.sym.not(first);
        let left_earlier = self.sym.and(not_first, exit_before);
        let neither = self.sym.not(left_earlier);
        let max = self.sym.bv(MAX_TRIP, TRIP_WIDTH);
        let in_range = self.sym.cmp(walkdown_ir::CmpPred::Ule, n, max);
        let c = self.sym.and(exit_at_n, neither);
        let constraint = self.sym.and(c, in_range);
        self.trip_symbols_used += 1;
        Some(TripExit { constraint, rebind: at_n.into_iter().collect() })
    }

    /// The head parameters' closed forms with `counter` for the loop
    /// counter.
    fn closed_forms(&mut self, forms: &TripLoop, counter: ExprId, dep: &mut bool) -> HashMap<Value, ExprId> {
        let body = self.frame().body;
        let mut out = HashMap::new();
        for f in &forms.forms.forms {
            let w = self.width(body.values[f.value].ty);
            let mut acc = self.sym.bv(f.constant as u64, w);
            let c = self.sym.resize(counter, TRIP_WIDTH, w, false);
            let k = self.sym.bv(f.per_iteration as u64, w);
            let term = self.sym.bin(walkdown_ir::BinOp::Mul, w, k, c);
            acc = self.sym.bin(walkdown_ir::BinOp::Add, w, acc, term);
            for &(coef, v) in &f.terms {
                let vw = self.width(body.values[v].ty);
                let (bits, shadow) = self.operand(&Operand::Value(v));
                *dep |= shadow.is_some();
                let e = shadow.unwrap_or_else(|| self.sym.bv(bits, vw));
                let e = self.sym.resize(e, vw, w, true);
                let k = self.sym.bv(coef as u64, w);
                let term = self.sym.bin(walkdown_ir::BinOp::Mul, w, k, e);
                acc = self.sym.bin(walkdown_ir::BinOp::Add, w, acc, term);
            }
            out.insert(f.value, acc);
        }
        out
    }

    /// `v` computed again from the head parameters' values in `subst`
    /// through the pure integer instructions of the loop; values defined
    /// outside the loop keep their shadows (or concrete values).
    fn rederive(
        &mut self,
        forms: &TripLoop,
        v: Value,
        subst: &HashMap<Value, ExprId>,
        dep: &mut bool,
    ) -> Option<ExprId> {
        let mut memo = HashMap::new();
        self.rederive_rec(forms, v, subst, dep, &mut memo, 0)
    }

    fn rederive_rec(
        &mut self,
        forms: &TripLoop,
        v: Value,
        subst: &HashMap<Value, ExprId>,
        dep: &mut bool,
        memo: &mut HashMap<Value, ExprId>,
        depth: u32,
    ) -> Option<ExprId> {
        if let Some(&e) = subst.get(&v).or_else(|| memo.get(&v)) {
            return Some(e);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let body = self.frame().body;
        let current = |run: &mut Self, dep: &mut bool| {
            let (bits, shadow) = run.operand(&Operand::Value(v));
            *dep |= shadow.is_some();
            let w = run.width(body.values[v].ty);
            shadow.unwrap_or_else(|| run.sym.bv(bits, w))
        };
        let inst = match body.values[v].def {
            ValueDef::Param(b, _) => {
                // A parameter of a block inside the loop (not the head:
                // those are in `subst`) changes within an iteration.
                return if forms.forms.blocks.contains(&b) { None } else { Some(current(self, dep)) };
            }
            ValueDef::Inst(i) => i,
        };
        if !forms.insts.contains(&inst) {
            return Some(current(self, dep));
        }
        let operand = |run: &mut Self,
                       op: &Operand,
                       w: u32,
                       dep: &mut bool,
                       memo: &mut HashMap<Value, ExprId>|
         -> Option<ExprId> {
            match *op {
                Operand::Value(x) => run.rederive_rec(forms, x, subst, dep, memo, depth + 1),
                _ => {
                    let (bits, _) = run.operand(op);
                    Some(run.sym.bv(bits, w))
                }
            }
        };
        let e = match &body.insts[inst].kind {
            InstKind::Bin { op, ty, lhs, rhs } if !op.is_float() && ty.is_int_or_ptr() => {
                let w = self.width(*ty);
                let a = operand(self, lhs, w, dep, memo)?;
                let b = operand(self, rhs, w, dep, memo)?;
                self.sym.bin(*op, w, a, b)
            }
            InstKind::Cmp { pred, ty, lhs, rhs } if !pred.is_float() && ty.is_int_or_ptr() => {
                let w = self.width(*ty);
                let a = operand(self, lhs, w, dep, memo)?;
                let b = operand(self, rhs, w, dep, memo)?;
                let c = self.sym.cmp(*pred, a, b);
                self.sym.bool_to_bv1(c)
            }
            InstKind::Cast { op, from, to, arg }
                if from.is_int_or_ptr()
                    && to.is_int_or_ptr()
                    && matches!(op, CastOp::SExt | CastOp::ZExt | CastOp::Trunc) =>
            {
                let (fw, tw) = (self.width(*from), self.width(*to));
                let a = operand(self, arg, fw, dep, memo)?;
                self.sym.cast(*op, fw, tw, a)
            }
            InstKind::Select { ty, cond, if_true, if_false } if ty.is_int_or_ptr() => {
                let w = self.width(*ty);
                let c = operand(self, cond, 1, dep, memo)?;
                let t = operand(self, if_true, w, dep, memo)?;
                let f = operand(self, if_false, w, dep, memo)?;
                let cb = self.sym.bv1_to_bool(c);
                self.sym.ite(cb, t, f)
            }
            _ => return None,
        };
        memo.insert(v, e);
        Some(e)
    }
}
