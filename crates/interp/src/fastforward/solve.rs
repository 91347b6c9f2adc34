//! Exact solving for fast-forwarding: the first iteration at which a
//! comparison of values affine in the iteration count changes its outcome,
//! in machine (modular) arithmetic, over one count or two (an outer count
//! and a segment's own), and sums of segment lengths for line counts.

use super::*;

/// A set of residues modulo `2^w`: `lo, lo+1, ..., lo+len-1` (wrapping).
#[derive(Clone, Copy, Debug)]
pub(super) struct Arc {
    pub(super) lo: u128,
    pub(super) len: u128,
}

pub(super) fn modulus(w: u32) -> u128 {
    1u128 << w
}

pub(super) fn contains(arc: Arc, v: u128, m: u128) -> bool {
    (v + m - arc.lo) % m < arc.len
}

/// The smallest `k >= 1` at which predicate `p` differs from its value at
/// `k = 0`; `Ok(None)` if it never does.
pub(super) fn first_change(p: &Pred) -> Result<Option<u128>, GiveUp> {
    match arc_form(p)? {
        Some(f) => along(&f, 0),
        None => Ok(None),
    }
}

/// A comparison as residues: it has its outcome at the point where every
/// variable is 0 exactly where `(a + sum of s[i]*v[i]) mod m` lies in `rec`.
#[derive(Clone, Copy, Debug)]
pub(super) struct ArcForm {
    pub(super) a: u128,
    pub(super) s: [u128; NV],
    pub(super) m: u128,
    pub(super) rec: Arc,
}

pub(super) fn complement(x: Arc, m: u128) -> Arc {
    Arc { lo: (x.lo + x.len) % m, len: m - x.len }
}

/// The smallest `v >= 1` of variable `t` (the others 0) at which the
/// comparison changes its outcome; `Ok(None)` if it never does.
pub(super) fn along(f: &ArcForm, t: usize) -> Result<Option<u128>, GiveUp> {
    let s = f.s.get(t).copied().unwrap_or(0);
    let target = complement(f.rec, f.m);
    if s == 0 || target.len == 0 {
        return Ok(None);
    }
    first_hit(f.a, s, f.m, target).ok_or(GiveUp)
}

/// `p` as an [`ArcForm`]; `Ok(None)` when it cannot change (no variable
/// in it).
pub(super) fn arc_form(p: &Pred) -> Result<Option<ArcForm>, GiveUp> {
    let (mut x, mut y, mut pred) = (p.x, p.y, p.pred);
    let (Some((_, xs, xb)), Some((_, ys, yb))) = (x.low(), y.low()) else {
        return Err(GiveUp);
    };
    if xs == Z && ys == Z {
        return Ok(None);
    }
    if xs != Z && ys != Z {
        // Two varying values: equality is their difference against zero;
        // their order is not affine.
        if !matches!(pred, CmpPred::Eq | CmpPred::Ne) {
            return Err(GiveUp);
        }
        // Equal as registers iff equal modulo the narrower of the
        // comparison and the values (zero-extended registers).
        let zero = |v: V| matches!(v, V::Aff { .. });
        let w = if zero(x) && zero(y) && xb == yb && xb <= p.bits {
            xb
        } else if xb >= p.bits && yb >= p.bits && !matches!(x, V::Low { .. }) && !matches!(y, V::Low { .. }) {
            p.bits
        } else {
            return Err(GiveUp);
        };
        x = lin(x, y, w, u64::wrapping_sub, u64::wrapping_sub);
        y = konst(0);
    } else if xs == Z {
        std::mem::swap(&mut x, &mut y);
        pred = match pred {
            CmpPred::Ult => CmpPred::Ugt,
            CmpPred::Ule => CmpPred::Uge,
            CmpPred::Ugt => CmpPred::Ult,
            CmpPred::Uge => CmpPred::Ule,
            CmpPred::Slt => CmpPred::Sgt,
            CmpPred::Sle => CmpPred::Sge,
            CmpPred::Sgt => CmpPred::Slt,
            CmpPred::Sge => CmpPred::Sle,
            other => other,
        };
    }
    let Some(c) = y.constant() else {
        return Err(GiveUp);
    };
    let signed = matches!(pred, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge);
    let pb = p.bits;
    // The register as an integer is `u(k) + off`, `u(k) = (a + s*k) mod
    // 2^w`, as the comparison reads it; `cv` is the constant as it reads it.
    let sext_c = |c: u64| i128::from(crate::eval::sext(c, pb));
    let (a, s, w, off, cv): (u64, St, u32, i128, i128) = match x {
        V::Aff { a, s, bits } | V::SAff { a, s, bits, .. } if u32::from(bits) >= pb => {
            // The comparison sees the low `pb` bits only.
            if signed {
                let half = 1u64 << (pb - 1);
                (a.wrapping_add(half), s, pb, -i128::from(half), sext_c(c))
            } else {
                (a, s, pb, 0, i128::from(c & mask(pb)))
            }
        }
        V::Aff { a, s, bits } => {
            // Zero-extended and narrower: never negative.
            let b = u32::from(bits);
            (a, s, b, 0, if signed { sext_c(c) } else { i128::from(c & mask(pb)) })
        }
        V::SAff { a, s, bits, to } if signed && pb <= u32::from(to) => {
            let b = u32::from(bits);
            let half = 1u64 << (b - 1);
            (a.wrapping_add(half), s, b, -i128::from(half), sext_c(c))
        }
        _ => return Err(GiveUp),
    };
    if w == 0 {
        return Err(GiveUp);
    }
    let m = modulus(w);
    let (a, s) = (u128::from(a) % m, s.map(|x| u128::from(x) % m));
    if s == [0; NV] {
        return Ok(None);
    }
    let mi = m as i128;
    // `u op (cv - off)`, as an arc of residues.
    let t = cv - off;
    let from = |lo: i128| -> Arc {
        let lo = lo.max(0);
        if lo >= mi {
            Arc { lo: 0, len: 0 }
        } else {
            Arc { lo: lo as u128, len: (mi - lo) as u128 }
        }
    };
    let below = |n: i128| Arc { lo: 0, len: n.clamp(0, mi) as u128 };
    let holds = match pred {
        CmpPred::Eq | CmpPred::Ne => {
            let eq = if (0..mi).contains(&t) { Arc { lo: t as u128, len: 1 } } else { Arc { lo: 0, len: 0 } };
            if pred == CmpPred::Eq {
                eq
            } else if eq.len == 0 {
                Arc { lo: 0, len: m }
            } else {
                Arc { lo: (eq.lo + 1) % m, len: m - 1 }
            }
        }
        CmpPred::Ult | CmpPred::Slt => below(t),
        CmpPred::Ule | CmpPred::Sle => below(t + 1),
        CmpPred::Ugt | CmpPred::Sgt => from(t + 1),
        CmpPred::Uge | CmpPred::Sge => from(t),
        _ => return Err(GiveUp),
    };
    let rec = if contains(holds, a, m) { holds } else { complement(holds, m) };
    Ok(Some(ArcForm { a, s, m, rec }))
}

/// The smallest `k >= 1` with `(a + s*k) mod m` in `target`, for `a` not
/// in it: `Some(Some(k))`, `Some(None)` if there is none, `None` if this
/// solver cannot tell.
pub(super) fn first_hit(a: u128, s: u128, m: u128, target: Arc) -> Option<Option<u128>> {
    // Steps no longer than the target cannot jump over it: the first
    // iteration past its lower end lands inside.
    let forward = |a: u128, s: u128, lo: u128| -> u128 {
        let d = (lo + m - a) % m;
        d.div_ceil(s)
    };
    if s <= target.len {
        return Some(Some(forward(a, s, target.lo)));
    }
    let back = m - s;
    if back <= target.len {
        // Stepping down: mirror v -> m-1-v.
        let a2 = m - 1 - a;
        let lo2 = (2 * m - target.lo - target.len) % m;
        return Some(Some(forward(a2, back, lo2)));
    }
    if target.len == 1 {
        // s*k = lo - a (mod 2^w): a linear congruence.
        let t = (target.lo + m - a) % m;
        let tz = s.trailing_zeros();
        if !t.is_multiple_of(1u128 << tz) {
            return Some(None);
        }
        let w = m.trailing_zeros() - tz;
        let u = (s >> tz) as u64; // odd
                                  // The inverse of an odd number modulo 2^64 (Newton's iteration).
        let mut inv: u64 = u;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(u.wrapping_mul(inv)));
        }
        let k = ((t >> tz) as u64).wrapping_mul(inv) as u128 % (1u128 << w);
        return Some(if k == 0 { None } else { Some(k) });
    }
    None
}

/// The smallest value `v >= 1` of variable `t` (the variables before it
/// 0) at which condition `c` fails somewhere in the ranges of the
/// variables after it; `Ok(None)` if it never does.
pub(super) fn first_violation(c: &Cons, t: usize) -> Result<Option<u128>, GiveUp> {
    match *c {
        Cons::NonNeg((l0, l1)) => {
            if t != 0 || l1 >= 0 {
                return Ok(None);
            }
            if l0 < 0 {
                return Err(GiveUp);
            }
            Ok(Some((l0 / -l1 + 1) as u128))
        }
        Cons::Pred { p, ranges } => {
            let Some(f) = arc_form(&p)? else { return Ok(None) };
            let mut inner = (t + 1..NV).filter(|&j| f.s[j] != 0);
            match (inner.next(), inner.next()) {
                (None, _) => along(&f, t),
                (Some(j), None) => {
                    let (l0, l1) = ranges[j].ok_or(GiveUp)?;
                    // Before `t`, `k` is 0: the range is what it is there.
                    two_d(&f, t, j, (l0, if t == 0 { l1 } else { 0 }))
                }
                _ => Err(GiveUp),
            }
        }
    }
}

/// [`first_violation`] of a comparison in variable `t` and in the variable
/// `j` of a segment that ranges over `0..l0 + l1*t`.
pub(super) fn two_d(f: &ArcForm, t: usize, j: usize, (l0, l1): Len) -> Result<Option<u128>, GiveUp> {
    let m = f.m;
    if f.rec.len == m {
        return Ok(None);
    }
    let (st, sj) = (f.s[t], f.s[j]);
    if st == 0 {
        // The range of `j` must stay below its first change.
        let Some(us) = along(f, j)? else { return Ok(None) };
        let us = i128::try_from(us).map_err(|_| GiveUp)?;
        if l0 > us {
            return Err(GiveUp);
        }
        return Ok((l1 > 0).then(|| ((us - l0) / l1 + 1) as u128));
    }
    // With a unit step in `j` the values a segment takes are an arc: at
    // `t = v` it starts `o(v)` into the arc of the recorded outcome (from
    // its bottom stepping up, from its top stepping down) and must end
    // inside it: `o(v) + len(v) <= |arc|`.
    let (o0, os) = if sj == 1 {
        ((f.a + m - f.rec.lo) % m, st)
    } else if sj == m - 1 {
        ((f.rec.lo + f.rec.len + 2 * m - 1 - f.a) % m, (m - st) % m)
    } else {
        return Err(GiveUp);
    };
    let os = if os > m / 2 { os as i128 - m as i128 } else { os as i128 };
    let (rl, o0) = (f.rec.len as i128, o0 as i128);
    // `o` is affine in `v` while it stays in the arc if its step cannot
    // jump over the rest of the circle.
    if o0 >= rl || os.unsigned_abs() > m - f.rec.len {
        return Err(GiveUp);
    }
    let leaves = match os.cmp(&0) {
        std::cmp::Ordering::Greater => Some((rl - o0 + os - 1) / os),
        std::cmp::Ordering::Less => Some(o0 / -os + 1),
        std::cmp::Ordering::Equal => None,
    };
    let overruns = first_both((l0, l1), (o0 + l0 - rl, os + l1));
    Ok(match (leaves, overruns) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
    .map(|v| v as u128))
}

/// The smallest `v >= 1` with `c1 + d1*v >= 1` and `c2 + d2*v >= 1`.
pub(super) fn first_both((c1, d1): Len, (c2, d2): Len) -> Option<i128> {
    let range = |c: i128, d: i128| -> (i128, i128) {
        match d.cmp(&0) {
            std::cmp::Ordering::Equal => {
                if c >= 1 {
                    (1, i128::MAX)
                } else {
                    (1, 0)
                }
            }
            std::cmp::Ordering::Greater => ((1 - c).div_euclid(d) + i128::from((1 - c).rem_euclid(d) != 0), i128::MAX),
            std::cmp::Ordering::Less => (1, (c - 1).div_euclid(-d)),
        }
    };
    let (a1, b1) = range(c1, d1);
    let (a2, b2) = range(c2, d2);
    let (lo, hi) = (a1.max(a2).max(1), b1.min(b2));
    (lo <= hi).then_some(lo)
}

/// `sum over x in 0..k of the product of (l0 + l1*x)` over `f`,
/// saturating at `u128::MAX` (nested loops of 2^32 iterations each run
/// their bodies more often than that).
pub(super) fn weighted_sum(f: &[Len], k: u128) -> u128 {
    let at = |x: i128| -> Option<i128> {
        f.iter().try_fold(1i128, |acc, &(l0, l1)| acc.checked_mul(l0.checked_add(l1.checked_mul(x)?)?))
    };
    if k <= 4096 {
        let mut sum: u128 = 0;
        for x in 0..k as i128 {
            match at(x) {
                Some(v) => sum = sum.saturating_add(v.max(0) as u128),
                None => return u128::MAX,
            }
        }
        return sum;
    }
    // A polynomial of degree `f.len()`: by its forward differences at 0,
    // the sum is `sum of d_i * C(k, i + 1)`.
    let exact = || -> Option<u128> {
        let mut row: Vec<i128> = (0..=f.len() as i128).map(at).collect::<Option<_>>()?;
        let mut total: i128 = 0;
        for i in 0..=f.len() {
            let d = *row.first()?;
            let mut c: u128 = 1;
            for j in 0..=i as u128 {
                c = c.checked_mul(k - j)? / (j + 1);
            }
            total = total.checked_add(d.checked_mul(i128::try_from(c).ok()?)?)?;
            row = row.windows(2).map(|w| w[1].checked_sub(w[0])).collect::<Option<_>>()?;
        }
        u128::try_from(total).ok()
    };
    exact().unwrap_or(u128::MAX)
}
