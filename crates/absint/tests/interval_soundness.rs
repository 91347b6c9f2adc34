//! The interval operations against the interpreter's own per-operation
//! semantics (`walkdown_interp::eval`): for many small operand intervals of
//! widths 1, 8, 16, 32 and 64, placed near 0 and near the signed and
//! unsigned boundaries, every concrete result of every pair of elements
//! must lie in the abstract result, and refining by a comparison must keep
//! every pair for which it has the assumed outcome.

mod support;

use walkdown_absint::interval::{binop, compare, crange, from_bits, norm, refine_compare};
use walkdown_absint::Interval;
use walkdown_interp::eval::{eval_bin_bits, eval_cmp_bits, truncate};
use walkdown_ir::{BinOp, CmpPred};

fn bits_of(v: i128, w: u32) -> u64 {
    truncate(v as u64, w)
}

fn random_interval(rng: &mut support::Rng, w: u32) -> Interval {
    let r = crange(w);
    let anchors = [0i128, 1, -1, r.lo, r.hi, r.lo + 1, r.hi - 1, 7, -8, 100, -100];
    let a = anchors[rng.below(anchors.len() as u64) as usize] + rng.range(-6, 6);
    let len = rng.range(0, 12);
    let lo = a.clamp(r.lo, r.hi);
    Interval::new(lo, (lo + len).min(r.hi))
}

#[test]
fn interval_operations_are_sound() {
    let ops: Vec<BinOp> = BinOp::ALL.iter().copied().filter(|o| !o.is_float()).collect();
    let preds: Vec<CmpPred> = CmpPred::ALL.iter().copied().filter(|p| !p.is_float()).collect();
    let mut rng = support::Rng::new(42);
    for &w in &[1u32, 8, 16, 32, 64] {
        for _ in 0..10_000 {
            let (x, y) = (random_interval(&mut rng, w), random_interval(&mut rng, w));
            // Shift amounts are often small constants or ranges.
            let y_shift = if rng.below(2) == 0 { Interval::new(0, rng.range(0, 70)) } else { y };
            for &op in &ops {
                let y = if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr) { norm(y_shift, w) } else { y };
                let r = binop(op, x, y, w);
                let out_w = if op.yields_bool() { 1 } else { w };
                for a in x.lo..=x.hi {
                    for b in y.lo..=y.hi {
                        let c = eval_bin_bits(op, w, bits_of(a, w), bits_of(b, w));
                        let c = from_bits(c, out_w);
                        assert!(r.contains(c), "{op} w{w}: {a} {op} {b} = {c} not in {r} (x {x}, y {y})");
                    }
                }
            }
            for &p in &preds {
                let r = compare(p, x, y, w);
                for outcome in [false, true] {
                    let (rx, ry) = refine_compare(p, outcome, x, y, w);
                    for a in x.lo..=x.hi {
                        for b in y.lo..=y.hi {
                            let c = eval_cmp_bits(p, w, bits_of(a, w), bits_of(b, w));
                            assert!(r.contains(i128::from(c)), "{p} w{w}: {a} {b} gives {c}, not in {r}");
                            if c == outcome {
                                assert!(
                                    rx.contains(a) && ry.contains(b),
                                    "refine {p}={outcome} w{w}: ({a}, {b}) lost: x {x} -> {rx}, y {y} -> {ry}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
