//! Nested loops: an inner loop met while walking an outer iteration is
//! summarized as segments of iterations on one path, each affine in a
//! variable of its own, and absorbed into the outer walk.

use super::*;

/// The whole run of inner loop `li`, entered with the values in `vals`
/// (affine in the variables of the loops around it), as the exit it leads
/// to; `vals` is left as after the exit, and what the run does is added
/// to `w`.
///
/// The run is cut into segments, stretches of iterations that take one
/// path. Each is walked with the head's values affine in a new variable
/// `u` (its iterations from its start); its length at the current point
/// (every variable 0) is the first `u` at which any comparison on it, its
/// inner loops' included, changes, and as a function of the jumped loop's
/// count `k` it is `l0 + l1*k`, read off the comparison that ends it when
/// that steps by one in `u` (`e == d`: the inner loop runs to the outer
/// counter), else constant. Nothing rests on the length being right: each
/// segment's comparisons become conditions to hold over its whole range
/// ([`Cons`]), and the jump ([`plan`]) goes only as far as all of them
/// hold. A segment of one iteration whatever `k` is walked without a
/// variable.
pub(super) fn summarize(ctx: &mut Ctx<'_>, li: usize, vals: &mut Vec<(u32, V)>, w: &mut Walk) -> Result<u32, GiveUp> {
    let p = ctx.p;
    let l = p.ff.loops.get(li).ok_or(GiveUp)?;
    for _ in 0..MAX_SEGMENTS {
        let head: Vec<V> = l.params.iter().map(|&(reg, _)| value_of(ctx, vals, reg)).collect();
        let before = vals.clone();
        let mut probe = Walk::default();
        if let End::Exit(to) = walk_in(ctx, l, vals, &mut probe)? {
            absorb(w, probe, None)?;
            return Ok(to);
        }
        // Each head value's step, the same wherever the enclosing
        // variables are.
        let mut steps = Vec::with_capacity(head.len());
        for ((&(_, bits), h), n) in l.params.iter().zip(&head).zip(&probe.next) {
            if bits == 0 {
                if h != n || h.constant().is_none() {
                    return Err(GiveUp);
                }
                steps.push(0);
                continue;
            }
            let m = mask(u32::from(bits));
            let (V::Aff { a: ha, s: hs, bits: hb }, V::Aff { a: na, s: ns, bits: nb }) = (*h, *n) else {
                return Err(GiveUp);
            };
            if (hs != Z && hb < bits) || (ns != Z && nb < bits) || masked(hs, m) != masked(ns, m) {
                return Err(GiveUp);
            }
            steps.push(na.wrapping_sub(ha) & m);
        }
        if steps.iter().all(|&s| s == 0) {
            // The same state again: a loop that never ends.
            return Err(GiveUp);
        }
        // The head's values after `len` iterations (with `u`: in variable `u`).
        let at = |len: Len, u: Option<usize>| -> Vec<V> {
            l.params
                .iter()
                .zip(&head)
                .zip(&steps)
                .map(|((&(_, bits), &h), &st)| match h {
                    V::Aff { a, s, .. } if bits != 0 => {
                        let m = mask(u32::from(bits));
                        let mut s = masked(s, m);
                        s[0] = s[0].wrapping_add(st.wrapping_mul(len.1 as u64)) & m;
                        if let Some(u) = u {
                            s[u] = st;
                        }
                        V::Aff { a: a.wrapping_add(st.wrapping_mul(len.0 as u64)) & m, s, bits }
                    }
                    other => other,
                })
                .collect()
        };
        let u = ctx.depth;
        if u >= NV {
            return Err(GiveUp);
        }
        let head_u = at((0, 0), Some(u));
        *vals = before.clone();
        for (&(reg, _), &v) in l.params.iter().zip(&head_u) {
            set_val(vals, reg, v);
        }
        ctx.depth += 1;
        let mut uw = Walk::default();
        let end = walk_in(ctx, l, vals, &mut uw);
        ctx.depth -= 1;
        if !matches!(end?, End::Back) || uw.pcs != probe.pcs || !same_pcs(&uw.wpcs, &probe.wpcs) {
            return Err(GiveUp);
        }
        // The back edge carries exactly the next iteration's values.
        for ((&(_, bits), (hu, n)), &st) in l.params.iter().zip(head_u.iter().zip(&uw.next)).zip(&steps) {
            let ok = match (*hu, *n) {
                _ if bits == 0 => hu == n,
                (V::Aff { a: ha, s: hs, .. }, V::Aff { a: na, s: ns, bits: nb }) => {
                    let m = mask(u32::from(bits));
                    nb >= bits && na & m == ha.wrapping_add(st) & m && masked(ns, m) == masked(hs, m)
                }
                _ => false,
            };
            if !ok {
                return Err(GiveUp);
            }
        }
        // The segment's length here: the first change along `u`.
        let mut n0: Option<u128> = None;
        let mut by: Option<Pred> = None;
        for pr in &uw.preds {
            let Some(f) = arc_form(pr)? else { continue };
            if let Some(v) = along(&f, u)? {
                if n0.is_none_or(|b| v < b) {
                    n0 = Some(v);
                    by = Some(*pr);
                }
            }
        }
        for c in &uw.cons {
            if let Some(v) = first_violation(c, u)? {
                if n0.is_none_or(|b| v < b) {
                    n0 = Some(v);
                    by = match c {
                        Cons::Pred { p, .. } => Some(*p),
                        Cons::NonNeg(_) => None,
                    };
                }
            }
        }
        // A path no comparison leaves: the loop never ends.
        let n0 = n0.ok_or(GiveUp)?;
        let len = length(by, u, n0);
        *vals = before;
        if len == (1, 0) {
            for (&(reg, _), v) in l.params.iter().zip(at((1, 0), None)) {
                set_val(vals, reg, v);
            }
            absorb(w, probe, None)?;
        } else {
            for (&(reg, _), v) in l.params.iter().zip(at(len, None)) {
                set_val(vals, reg, v);
            }
            absorb(w, uw, Some((len, u)))?;
            w.cons.push(Cons::NonNeg(len));
        }
    }
    Err(GiveUp)
}

/// A segment's length `l0 + l1*k` given its length `n0` at `k = 0` and the
/// comparison that ends it (`by`), in variable `u`: exact while the
/// comparison steps by one in `u` and depends on no variable but `u` and
/// `k`; otherwise the constant `n0` (then the conditions stop the jump
/// where it is not).
pub(super) fn length(by: Option<Pred>, u: usize, n0: u128) -> Len {
    let n = i128::try_from(n0).unwrap_or(i128::MAX);
    let constant = (n, 0);
    let Some(f) = by.and_then(|p| arc_form(&p).ok().flatten()) else {
        return constant;
    };
    if (1..NV).any(|i| i != u && f.s[i] != 0) {
        return constant;
    }
    let m = f.m;
    let s0 = if f.s[0] > m / 2 { f.s[0] as i128 - m as i128 } else { f.s[0] as i128 };
    // Stepping up, the comparison changes where the value leaves its arc
    // at the top; stepping down, at the bottom.
    let (expect, l1) = if f.s[u] == 1 {
        ((f.rec.lo + f.rec.len + m - f.a) % m, -s0)
    } else if f.s[u] == m - 1 {
        ((f.a + m - f.rec.lo) % m + 1, s0)
    } else {
        return constant;
    };
    if expect != n0 {
        return constant;
    }
    (n, l1)
}

/// Adds a walk of an inner loop's iterations to the walk it is part of:
/// once (`seg` None: an exit, or a segment of one iteration), or as a
/// segment of length `len` in variable `u`.
pub(super) fn absorb(w: &mut Walk, child: Walk, seg: Option<(Len, usize)>) -> Result<(), GiveUp> {
    match seg {
        None => {
            w.pcs.extend(child.pcs);
            w.wpcs.extend(child.wpcs);
            w.preds.extend(child.preds);
            w.cons.extend(child.cons);
        }
        Some((len, u)) => {
            for pc in child.pcs {
                w.wpcs.push((pc, Weight::one().times(len)?));
            }
            for (pc, wt) in child.wpcs {
                w.wpcs.push((pc, wt.times(len)?));
            }
            for p in child.preds {
                let mut ranges = [None; NV];
                ranges[u] = Some(len);
                w.cons.push(Cons::Pred { p, ranges });
            }
            for mut c in child.cons {
                if let Cons::Pred { ranges, .. } = &mut c {
                    ranges[u] = Some(len);
                }
                w.cons.push(c);
            }
        }
    }
    for g in child.goals {
        if !w.goals.contains(&g) {
            w.goals.push(g);
        }
    }
    Ok(())
}
