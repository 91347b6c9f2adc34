//! Refinement by interpolation ([`Refinement::Interpolants`]): the
//! infeasible path as one part per step, each over the state before the
//! step and the state after it, so that the leaves two sides of a cut
//! share are exactly the state at the cut; Bitwuzla's sequence
//! interpolants (see `walkdown_smt::Interpolator`) are then facts about
//! the state at each location of the path, and their comparisons become
//! that location's predicates, without carrying anything back by weakest
//! precondition.
//!
//! The path's own formula ([`Checker::path_formula`]) threads the state
//! through by substitution, so its cuts share input and local copies, not
//! state; here every position's scalar state is a fresh copy of its
//! location's state symbols (the entry's own at position 0) tied to the
//! step's results by equations. A cut's interpolant is read back over the
//! location's own symbols. Memory is still threaded by substitution (the
//! pool has no equality of arrays), so an interpolant that speaks of
//! memory names earlier copies and is dropped: interpolation refines over
//! scalar state only.
//!
//! **Words, not bits.** Bitwuzla computes an interpolant by substitution
//! where it can (word-level: `0 < cap`, `k = 0`), else from its SAT
//! proof, and then it is typically a conjunction of single bits of the
//! state (`(= ((_ extract 4 4) x) #b0)` for each of bits 4 to 31: "x is
//! below 16"). As atoms, each bit would be a predicate of its own, and
//! the abstraction's cost grows with the number of predicates; so the
//! fixed bits of one variable become one word-level fact, `x < 2^k` when
//! they are the zero high bits and `(x & mask) = value` otherwise
//! ([`word_facts`]), and every other conjunct is kept whole.
//!
//! Interpolation is asked for the paths the suffix refinement cannot
//! remove (see `refine`). Predicates are only ever added: the
//! abstraction stays sound whatever they are, so an interpolant read back
//! wrongly can cost precision, not a proof.

use super::*;
use walkdown_smt::{Interpolation, Interpolator};

/// Path positions of the state copies are offset by this, apart from the
/// positions of the locals' copies in the same table.
const STATE_COPY: usize = 1 << 40;

/// An infeasible path cut into parts, and per cut the substitution from
/// the state copies there back to the location's own state symbols.
struct Parts {
    parts: Vec<ExprId>,
    cuts: Vec<(Block, HashMap<Leaf, ExprId>)>,
}

impl<S: Solver> Checker<'_, S> {
    /// Adds the facts of the interpolants of the infeasible `path` as
    /// predicates; returns whether any was new.
    pub(super) fn refine_by_interpolants(
        &mut self,
        path: &[(Block, u32)],
        fin: Final,
        driver: &mut dyn Driver,
    ) -> bool {
        let Parts { parts, cuts } = self.interpolation_parts(path, fin);
        if parts.len() < 2 {
            return false;
        }
        let (settings, deadline) = self.interpolation_limits;
        let interpolator = self.interpolator.get_or_insert_with(|| {
            let mut i = Interpolator::new(settings);
            i.set_deadline(deadline);
            i
        });
        let (before, started) = (interpolator.work(), std::time::Instant::now());
        let answer = interpolator.sequence(&mut self.m.pool, &parts);
        driver.charge(interpolator.work().saturating_sub(before), parts.len() as u64);
        self.figures.interpolations += 1;
        debug(|| format!("interpolation of {} parts took {:?}: {answer:?}", parts.len(), started.elapsed()));
        let Ok(Interpolation::Interpolants(itps)) = answer else {
            self.figures.interpolation_failures += 1;
            return false;
        };
        let added = self.figures.predicates;
        for (itp, (loc, back)) in itps.into_iter().zip(cuts) {
            let fact = self.m.pool.substitute(itp, &back, &mut HashMap::new()).expect("sorts");
            if loc == Body::ENTRY || self.m.pool.as_bool_const(fact).is_some() || !self.over_state(loc, fact) {
                continue;
            }
            for p in word_facts(&mut self.m.pool, fact) {
                debug(|| format!("predicate at {loc:?}: {}", self.m.pool.display(p)));
                if self.m.pool.as_bool_const(p).is_none() {
                    self.add_predicate(loc, p);
                }
            }
        }
        self.figures.predicates > added
    }

    /// The parts of `path` (then `fin`): per position, its condition and,
    /// when a part follows, the equations of the next state's copies.
    fn interpolation_parts(&mut self, path: &[(Block, u32)], fin: Final) -> Parts {
        // (The memory is threaded as in `path_formula`, see the module doc.)
        let start = if path.is_empty() { self.final_loc(path) } else { path[0].0 };
        let mut params: Vec<ExprId> = self.m.states[start.index()].params.clone();
        let mut mem: Option<ExprId> = self.m.states[start.index()].mem;
        let (mut parts, mut cuts) = (Vec::new(), Vec::new());
        let last = match fin {
            Final::Edge(_) => path.len() - 1,
            Final::Error(_) => path.len(),
        };
        for pos in 0..=last {
            let at = self.position(path, fin, pos, &params, mem).expect("positions up to the last exist");
            let mut memo = HashMap::new();
            let mut conj = vec![self.m.pool.substitute(at.cond, &at.map, &mut memo).expect("sorts")];
            if let (Some((pp, pm, to)), true) = (at.post, pos < last) {
                let (next_params, back) = self.state_copies(to, pos + 1);
                for (&copy, &value) in next_params.iter().zip(&pp) {
                    let v = self.m.pool.substitute(value, &at.map, &mut memo).expect("sorts");
                    conj.push(self.m.pool.eq(copy, v).expect("sorts"));
                }
                mem = Some(self.m.pool.substitute(pm, &at.map, &mut memo).expect("sorts"));
                cuts.push((to, back));
                params = next_params;
            }
            parts.push(self.m.pool.and(&conj).expect("Boolean"));
        }
        Parts { parts, cuts }
    }

    /// Fresh copies of the scalar state symbols of `loc` for path
    /// position `pos`, and the substitution from them back to the symbols.
    fn state_copies(&mut self, loc: Block, pos: usize) -> (Vec<ExprId>, HashMap<Leaf, ExprId>) {
        let mut back = HashMap::new();
        let mut params = Vec::new();
        for s in self.m.states[loc.index()].params.clone() {
            let leaf = *self.m.pool.symbols_of(s).first().expect("a state symbol is a leaf");
            let (e, _) = self.copy_of(leaf, STATE_COPY + pos);
            let copied = *self.m.pool.symbols_of(e).first().expect("a copy is a leaf");
            back.insert(copied, s);
            params.push(e);
        }
        (params, back)
    }
}

/// Prints `what` under `WALKDOWN_CEGAR_DEBUG`.
fn debug(what: impl FnOnce() -> String) {
    if std::env::var_os("WALKDOWN_CEGAR_DEBUG").is_some() {
        eprintln!("cegar: {}", what());
    }
}

/// The conjuncts of `fact`, with the conjuncts that fix single bits of one
/// variable merged into one fact about the variable (see the module doc).
fn word_facts(pool: &mut walkdown_smt::ExprPool, fact: ExprId) -> Vec<ExprId> {
    let conjuncts = match pool.get(fact) {
        Term::And(xs) => xs.to_vec(),
        _ => vec![fact],
    };
    let mut out = Vec::new();
    // Per variable, in order of first appearance: (mask, value) of its fixed bits.
    let mut fixed: Vec<(ExprId, u128, u128)> = Vec::new();
    for c in conjuncts {
        match fixed_bit(pool, c) {
            Some((arg, bit, one)) => {
                let i = fixed.iter().position(|f| f.0 == arg).unwrap_or_else(|| {
                    fixed.push((arg, 0, 0));
                    fixed.len() - 1
                });
                fixed[i].1 |= 1 << bit;
                fixed[i].2 |= u128::from(one) << bit;
            }
            None => out.push(c),
        }
    }
    for (arg, mask, value) in fixed {
        let w = pool.width(arg).expect("a bit-vector");
        let all = if w == 128 { u128::MAX } else { (1u128 << w) - 1 };
        let low = mask.trailing_zeros();
        let high_zeros = value == 0 && low > 0 && mask == all & !((1u128 << low) - 1);
        let f = if high_zeros {
            let bound = pool.bv_const(w, 1 << low).expect("width");
            pool.ult(arg, bound)
        } else {
            let (m, v) = (pool.bv_const(w, mask).expect("width"), pool.bv_const(w, value).expect("width"));
            let masked = pool.bvand(arg, m).expect("sorts");
            pool.eq(masked, v)
        };
        out.push(f.expect("sorts"));
    }
    out
}

/// `(arg, bit, value)` when `c` fixes one bit of `arg`: `(= ((_ extract
/// b b) arg) #bV)`, either way round, or its negation.
fn fixed_bit(pool: &walkdown_smt::ExprPool, c: ExprId) -> Option<(ExprId, u32, bool)> {
    let (eq, negated) = match pool.get(c) {
        Term::Not(x) => (*x, true),
        _ => (c, false),
    };
    let Term::Eq(a, b) = pool.get(eq) else { return None };
    let (ext, k) = match (pool.as_bv_const(*a), pool.as_bv_const(*b)) {
        (None, Some(k)) => (*a, k),
        (Some(k), None) => (*b, k),
        _ => return None,
    };
    match pool.get(ext) {
        Term::Extract { arg, hi, lo } if hi == lo && pool.width(*arg).is_some_and(|w| w <= 128) => {
            Some((*arg, *lo, (k == 1) != negated))
        }
        _ => None,
    }
}
