//! The simplifying constructors of Boolean and bit-vector terms and of
//! array reads and writes: each folds constants and applies its local
//! identities before it looks the node up.

use super::*;

impl ExprPool {
    /// `¬a`. Negated comparisons become the opposite comparison, so a
    /// branch condition and its negation are both plain comparisons.
    pub fn not(&mut self, a: ExprId) -> R {
        self.expect_bool("not", a)?;
        match *self.get(a) {
            Node::Bool(b) => Ok(self.bool_const(!b)),
            Node::Not(x) => Ok(x),
            Node::Cmp(op, x, y) => {
                let flipped = match op {
                    CmpOp::Ult => CmpOp::Ule,
                    CmpOp::Ule => CmpOp::Ult,
                    CmpOp::Slt => CmpOp::Sle,
                    CmpOp::Sle => CmpOp::Slt,
                };
                self.cmp(flipped, y, x)
            }
            _ => self.intern(Node::Not(a), Sort::Bool),
        }
    }

    /// Conjunction of any number of Booleans (`true` for none).
    pub fn and(&mut self, args: &[ExprId]) -> R {
        self.junction(args, true)
    }

    /// Disjunction of any number of Booleans (`false` for none).
    pub fn or(&mut self, args: &[ExprId]) -> R {
        self.junction(args, false)
    }

    /// `a ∧ b`.
    pub fn and2(&mut self, a: ExprId, b: ExprId) -> R {
        self.junction(&[a, b], true)
    }

    /// `a ∨ b`.
    pub fn or2(&mut self, a: ExprId, b: ExprId) -> R {
        self.junction(&[a, b], false)
    }

    /// `a → b`, built as `¬a ∨ b`.
    pub fn implies(&mut self, a: ExprId, b: ExprId) -> R {
        self.expect_bool("implies", a)?;
        let na = self.not(a)?;
        self.or2(na, b)
    }

    /// Boolean exclusive or, built as `¬(a = b)`.
    pub fn xor(&mut self, a: ExprId, b: ExprId) -> R {
        self.expect_bool("xor", a)?;
        self.expect_bool("xor", b)?;
        let e = self.eq(a, b)?;
        self.not(e)
    }

    // `is_and` picks the operator; its absorbing constant is `!is_and`.
    fn junction(&mut self, args: &[ExprId], is_and: bool) -> R {
        let op = if is_and { "and" } else { "or" };
        let mut out: Vec<ExprId> = Vec::with_capacity(args.len());
        for &a in args {
            self.expect_bool(op, a)?;
            match self.get(a) {
                Node::Bool(b) if *b == is_and => {}
                Node::Bool(_) => return Ok(self.bool_const(!is_and)),
                Node::And(xs) if is_and => out.extend_from_slice(xs),
                Node::Or(xs) if !is_and => out.extend_from_slice(xs),
                _ => out.push(a),
            }
        }
        out.sort_unstable();
        out.dedup();
        // `x` together with `¬x` decides the junction.
        for &e in &out {
            if let Node::Not(x) = self.get(e) {
                if out.binary_search(x).is_ok() {
                    return Ok(self.bool_const(!is_and));
                }
            }
        }
        match out.len() {
            0 => Ok(self.bool_const(is_and)),
            1 => Ok(out[0]),
            _ => {
                let xs = out.into_boxed_slice();
                let node = if is_and { Node::And(xs) } else { Node::Or(xs) };
                self.intern(node, Sort::Bool)
            }
        }
    }

    /// Equality of two Booleans or two bit-vectors of one width. (An
    /// array compared with itself is `true`; other array equalities are
    /// refused, since the backend reads arrays only through `select`.)
    pub fn eq(&mut self, a: ExprId, b: ExprId) -> R {
        let (sa, sb) = (self.sort(a), self.sort(b));
        if sa != sb {
            return Err(ExprError::Mismatch { op: "=", left: sa, right: sb });
        }
        if a == b {
            return Ok(self.true_id);
        }
        match sa {
            Sort::Array { .. } => Err(ExprError::SortMismatch { op: "=", expected: "Bool or a bit-vector", found: sa }),
            Sort::Bool => {
                let (a, b) = self.order_const_right(a, b, |p, id| p.as_bool_const(id).is_some());
                match (self.as_bool_const(a), self.as_bool_const(b)) {
                    (Some(x), Some(y)) => Ok(self.bool_const(x == y)),
                    (_, Some(true)) => Ok(a),
                    (_, Some(false)) => self.not(a),
                    _ => self.intern(Node::Eq(a, b), Sort::Bool),
                }
            }
            Sort::BitVec(w) => {
                let (a, b) = self.order_const_right(a, b, |p, id| p.as_bv_const(id).is_some());
                let Some(c) = self.as_bv_const(b) else {
                    return self.intern(Node::Eq(a, b), Sort::Bool);
                };
                if self.as_bv_const(a).is_some() {
                    // Equal constants are one node, caught by `a == b`.
                    return Ok(self.false_id);
                }
                self.eq_const(w, a, b, c)
            }
        }
    }

    // `a = c` for a non-constant `a`: peel invertible operators off `a`
    // so the constraint ends up on the symbol itself.
    fn eq_const(&mut self, w: u32, a: ExprId, b: ExprId, c: u128) -> R {
        match self.get(a).clone() {
            Node::BvBin(BvBinOp::Add, x, k) if self.as_bv_const(k).is_some() => {
                let kv = self.as_bv_const(k).unwrap_or(0);
                let c2 = self.bv_const(w, c.wrapping_sub(kv))?;
                self.eq(x, c2)
            }
            Node::BvBin(BvBinOp::Xor, x, k) if self.as_bv_const(k).is_some() => {
                let kv = self.as_bv_const(k).unwrap_or(0);
                let c2 = self.bv_const(w, c ^ kv)?;
                self.eq(x, c2)
            }
            Node::BvUn(op, x) => {
                let c2 = self.bv_const(w, fold::un(op, w, c))?;
                self.eq(x, c2)
            }
            Node::Ite { cond, then, els }
                if self.fold_comparison_bits && self.as_bv_const(then).is_some() && self.as_bv_const(els).is_some() =>
            {
                let (t, e) = (self.as_bv_const(then).unwrap_or(0), self.as_bv_const(els).unwrap_or(0));
                match (c == t, c == e) {
                    (true, true) => Ok(self.true_id),
                    (true, false) => Ok(cond),
                    (false, true) => self.not(cond),
                    (false, false) => Ok(self.false_id),
                }
            }
            Node::ZExt { arg, .. } => {
                let wx = self.bv_width("=", arg)?;
                if c >> wx != 0 {
                    return Ok(self.false_id);
                }
                let c2 = self.bv_const(wx, c)?;
                self.eq(arg, c2)
            }
            Node::SExt { arg, .. } => {
                let wx = self.bv_width("=", arg)?;
                let low = c & mask(wx);
                if fold::sext(wx, w, low) != c {
                    return Ok(self.false_id);
                }
                let c2 = self.bv_const(wx, low)?;
                self.eq(arg, c2)
            }
            Node::Concat(h, l) => {
                let wl = self.bv_width("=", l)?;
                let wh = w - wl;
                let ch = self.bv_const(wh, c >> wl)?;
                let cl = self.bv_const(wl, c)?;
                let eh = self.eq(h, ch)?;
                let el = self.eq(l, cl)?;
                self.and2(eh, el)
            }
            _ => self.intern(Node::Eq(a, b), Sort::Bool),
        }
    }

    /// `¬(a = b)`.
    pub fn ne(&mut self, a: ExprId, b: ExprId) -> R {
        let e = self.eq(a, b)?;
        self.not(e)
    }

    /// If-then-else on Booleans, bit-vectors or arrays (an array
    /// if-then-else is the memory of whichever path was taken; `select`
    /// and the evaluator look through it).
    pub fn ite(&mut self, cond: ExprId, then: ExprId, els: ExprId) -> R {
        self.expect_bool("ite", cond)?;
        let (st, se) = (self.sort(then), self.sort(els));
        if st != se {
            return Err(ExprError::Mismatch { op: "ite", left: st, right: se });
        }
        if let Some(c) = self.as_bool_const(cond) {
            return Ok(if c { then } else { els });
        }
        if then == els {
            return Ok(then);
        }
        if let Node::Not(c) = *self.get(cond) {
            return self.ite(c, els, then);
        }
        if st == Sort::Bool {
            match (self.as_bool_const(then), self.as_bool_const(els)) {
                (Some(true), Some(false)) => return Ok(cond),
                (Some(false), Some(true)) => return self.not(cond),
                (Some(true), _) => return self.or2(cond, els),
                (Some(false), _) => {
                    let nc = self.not(cond)?;
                    return self.and2(nc, els);
                }
                (_, Some(true)) => {
                    let nc = self.not(cond)?;
                    return self.or2(nc, then);
                }
                (_, Some(false)) => return self.and2(cond, then),
                _ => {}
            }
        }
        self.intern(Node::Ite { cond, then, els }, st)
    }

    // ----- bit-vectors ---------------------------------------------------

    fn order_const_right(&self, a: ExprId, b: ExprId, is_const: impl Fn(&Self, ExprId) -> bool) -> (ExprId, ExprId) {
        let (ca, cb) = (is_const(self, a), is_const(self, b));
        if (ca && !cb) || (ca == cb && a > b) {
            (b, a)
        } else {
            (a, b)
        }
    }

    /// A binary bit-vector operator on two operands of one width.
    pub fn binop(&mut self, op: BvBinOp, a: ExprId, b: ExprId) -> R {
        let w = self.same_bv(op.smt_name(), a, b)?;
        if let (Some(x), Some(y)) = (self.as_bv_const(a), self.as_bv_const(b)) {
            return self.bv_const(w, fold::bin(op, w, x, y));
        }
        let (a, b) = if op.is_commutative() {
            self.order_const_right(a, b, |p, id| p.as_bv_const(id).is_some())
        } else {
            (a, b)
        };
        let (ca, cb) = (self.as_bv_const(a), self.as_bv_const(b));
        let ones = mask(w);
        match op {
            BvBinOp::Add => {
                if cb == Some(0) {
                    return Ok(a);
                }
                if let (Node::BvBin(BvBinOp::Add, x, k), Some(c2)) = (self.get(a).clone(), cb) {
                    if let Some(c1) = self.as_bv_const(k) {
                        let k2 = self.bv_const(w, c1.wrapping_add(c2))?;
                        return self.binop(BvBinOp::Add, x, k2);
                    }
                }
            }
            BvBinOp::Sub => {
                if a == b {
                    return self.bv_const(w, 0);
                }
                if let Some(c) = cb {
                    // `x - c` is `x + (-c)`, so constant chains merge in add.
                    let k = self.bv_const(w, c.wrapping_neg())?;
                    return self.binop(BvBinOp::Add, a, k);
                }
            }
            BvBinOp::Mul => match cb {
                Some(0) => return Ok(b),
                Some(1) => return Ok(a),
                _ => {}
            },
            BvBinOp::UDiv => match cb {
                Some(0) => return self.bv_const(w, ones),
                Some(1) => return Ok(a),
                _ => {}
            },
            BvBinOp::SDiv => {
                if cb == Some(1) {
                    return Ok(a);
                }
            }
            BvBinOp::URem | BvBinOp::SRem => {
                if cb == Some(0) {
                    return Ok(a);
                }
                // x rem x is 0 for x ≠ 0, and x itself (also 0) for x = 0.
                if cb == Some(1) || a == b {
                    return self.bv_const(w, 0);
                }
            }
            BvBinOp::Shl | BvBinOp::LShr => {
                if cb == Some(0) || ca == Some(0) {
                    return Ok(a);
                }
                if matches!(cb, Some(s) if s >= u128::from(w)) {
                    return self.bv_const(w, 0);
                }
            }
            BvBinOp::AShr => {
                if cb == Some(0) || ca == Some(0) || ca == Some(ones) {
                    return Ok(a);
                }
            }
            BvBinOp::And => {
                if cb == Some(0) {
                    return Ok(b);
                }
                if cb == Some(ones) || a == b {
                    return Ok(a);
                }
            }
            BvBinOp::Or => {
                if cb == Some(ones) {
                    return Ok(b);
                }
                if cb == Some(0) || a == b {
                    return Ok(a);
                }
            }
            BvBinOp::Xor => {
                if cb == Some(0) {
                    return Ok(a);
                }
                if a == b {
                    return self.bv_const(w, 0);
                }
                if cb == Some(ones) {
                    return self.unop(BvUnOp::Not, a);
                }
            }
        }
        self.intern(Node::BvBin(op, a, b), Sort::BitVec(w))
    }

    /// A unary bit-vector operator.
    pub fn unop(&mut self, op: BvUnOp, a: ExprId) -> R {
        let w = self.bv_width(op.smt_name(), a)?;
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(w, fold::un(op, w, x));
        }
        if let Node::BvUn(inner, x) = *self.get(a) {
            if inner == op {
                return Ok(x);
            }
        }
        self.intern(Node::BvUn(op, a), Sort::BitVec(w))
    }

    /// A comparison of two bit-vectors of one width.
    pub fn cmp(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> R {
        let w = self.same_bv(op.smt_name(), a, b)?;
        let (ca, cb) = (self.as_bv_const(a), self.as_bv_const(b));
        if let (Some(x), Some(y)) = (ca, cb) {
            return Ok(self.bool_const(fold::cmp(op, w, x, y)));
        }
        let ones = mask(w);
        let smin = 1u128 << (w - 1);
        let smax = smin.wrapping_sub(1) & ones;
        let known = match op {
            _ if a == b => Some(matches!(op, CmpOp::Ule | CmpOp::Sle)),
            CmpOp::Ult if cb == Some(0) || ca == Some(ones) => Some(false),
            CmpOp::Ule if ca == Some(0) || cb == Some(ones) => Some(true),
            CmpOp::Slt if cb == Some(smin) || ca == Some(smax) => Some(false),
            CmpOp::Sle if ca == Some(smin) || cb == Some(smax) => Some(true),
            _ => None,
        };
        if let Some(k) = known {
            return Ok(self.bool_const(k));
        }
        self.intern(Node::Cmp(op, a, b), Sort::Bool)
    }

    /// Zero extension to `to` bits (`to` ≥ the operand's width).
    pub fn zext(&mut self, a: ExprId, to: u32) -> R {
        let w = self.bv_width("zero_extend", a)?;
        if to < w || to > MAX_WIDTH {
            return Err(ExprError::BadExtend { op: "zero_extend", from: w, to });
        }
        if to == w {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, x);
        }
        if let Node::ZExt { arg, .. } = *self.get(a) {
            return self.zext(arg, to);
        }
        self.intern(Node::ZExt { arg: a, width: to }, Sort::BitVec(to))
    }

    /// Sign extension to `to` bits (`to` ≥ the operand's width).
    pub fn sext(&mut self, a: ExprId, to: u32) -> R {
        let w = self.bv_width("sign_extend", a)?;
        if to < w || to > MAX_WIDTH {
            return Err(ExprError::BadExtend { op: "sign_extend", from: w, to });
        }
        if to == w {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(to, fold::sext(w, to, x));
        }
        match *self.get(a) {
            Node::SExt { arg, .. } => return self.sext(arg, to),
            // A strict zero extension has a clear sign bit.
            Node::ZExt { arg, .. } => return self.zext(arg, to),
            _ => {}
        }
        self.intern(Node::SExt { arg: a, width: to }, Sort::BitVec(to))
    }

    /// Bits `hi` down to `lo` of `a`.
    pub fn extract(&mut self, a: ExprId, hi: u32, lo: u32) -> R {
        let w = self.bv_width("extract", a)?;
        if lo > hi || hi >= w {
            return Err(ExprError::BadExtract { hi, lo, width: w });
        }
        let n = hi - lo + 1;
        if n == w {
            return Ok(a);
        }
        if let Some(x) = self.as_bv_const(a) {
            return self.bv_const(n, fold::extract(hi, lo, x));
        }
        match *self.get(a) {
            Node::Extract { arg, lo: lo2, .. } => return self.extract(arg, hi + lo2, lo + lo2),
            Node::Concat(h, l) => {
                let wl = self.bv_width("extract", l)?;
                if hi < wl {
                    return self.extract(l, hi, lo);
                }
                if lo >= wl {
                    return self.extract(h, hi - wl, lo - wl);
                }
                let top = self.extract(h, hi - wl, 0)?;
                let bottom = self.extract(l, wl - 1, lo)?;
                return self.concat(top, bottom);
            }
            Node::ZExt { arg, .. } => {
                let wy = self.bv_width("extract", arg)?;
                if hi < wy {
                    return self.extract(arg, hi, lo);
                }
                if lo >= wy {
                    return self.bv_const(n, 0);
                }
                let part = self.extract(arg, wy - 1, lo)?;
                return self.zext(part, n);
            }
            Node::SExt { arg, .. } => {
                let wy = self.bv_width("extract", arg)?;
                if hi < wy {
                    return self.extract(arg, hi, lo);
                }
            }
            _ => {}
        }
        self.intern(Node::Extract { arg: a, hi, lo }, Sort::BitVec(n))
    }

    /// `hi` placed above `lo`; the widths must add up to at most 128.
    pub fn concat(&mut self, hi: ExprId, lo: ExprId) -> R {
        let wh = self.bv_width("concat", hi)?;
        let wl = self.bv_width("concat", lo)?;
        let w = wh + wl;
        check_width(w)?;
        let (ch, cl) = (self.as_bv_const(hi), self.as_bv_const(lo));
        if let (Some(x), Some(y)) = (ch, cl) {
            return self.bv_const(w, fold::concat(wl, x, y));
        }
        if ch == Some(0) {
            return self.zext(lo, w);
        }
        if let (Node::Extract { arg: a1, hi: h1, lo: l1 }, Node::Extract { arg: a2, hi: h2, lo: l2 }) =
            (self.get(hi), self.get(lo))
        {
            if a1 == a2 && *l1 == h2 + 1 {
                let (a, h, l) = (*a1, *h1, *l2);
                return self.extract(a, h, l);
            }
        }
        self.intern(Node::Concat(hi, lo), Sort::BitVec(w))
    }

    /// The byte of `array` at `index`. Stores at other constant indices
    /// are skipped, a store at the same index answers directly.
    pub fn select(&mut self, array: ExprId, index: ExprId) -> R {
        let iw = self.array_index_width_of("select", array)?;
        let w = self.bv_width("select", index)?;
        if w != iw {
            return Err(ExprError::Mismatch { op: "select", left: Sort::BitVec(iw), right: Sort::BitVec(w) });
        }
        let ci = self.as_bv_const(index);
        let mut cur = array;
        loop {
            match *self.get(cur) {
                Node::Store { array: inner, index: j, value } => {
                    if j == index {
                        return Ok(value);
                    }
                    match (ci, self.as_bv_const(j)) {
                        (Some(x), Some(y)) if x != y => cur = inner,
                        _ => break,
                    }
                }
                Node::ConstArray { value, .. } => return self.bv_const(8, u128::from(value)),
                _ => break,
            }
        }
        self.intern(Node::Select { array: cur, index }, Sort::BitVec(8))
    }

    /// `array` with the byte at `index` replaced by the 8-bit `value`.
    pub fn store(&mut self, array: ExprId, index: ExprId, value: ExprId) -> R {
        let iw = self.array_index_width_of("store", array)?;
        let w = self.bv_width("store", index)?;
        if w != iw {
            return Err(ExprError::Mismatch { op: "store", left: Sort::BitVec(iw), right: Sort::BitVec(w) });
        }
        let vw = self.bv_width("store", value)?;
        if vw != 8 {
            return Err(ExprError::Mismatch { op: "store", left: Sort::BitVec(8), right: Sort::BitVec(vw) });
        }
        match *self.get(array) {
            // The later store hides the earlier one at the same index.
            Node::Store { array: inner, index: j, .. } if j == index => return self.store(inner, index, value),
            _ => {}
        }
        // Writing back what is already there changes nothing.
        if let Node::Select { array: a2, index: i2 } = *self.get(value) {
            if a2 == array && i2 == index {
                return Ok(array);
            }
        }
        self.intern(Node::Store { array, index, value }, Sort::Array { index_width: iw })
    }

    // ----- named shorthands ----------------------------------------------

    /// `bvadd`
    pub fn add(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Add, a, b)
    }
    /// `bvsub`
    pub fn sub(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Sub, a, b)
    }
    /// `bvmul`
    pub fn mul(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Mul, a, b)
    }
    /// `bvudiv`
    pub fn udiv(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::UDiv, a, b)
    }
    /// `bvsdiv`
    pub fn sdiv(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::SDiv, a, b)
    }
    /// `bvurem`
    pub fn urem(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::URem, a, b)
    }
    /// `bvsrem`
    pub fn srem(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::SRem, a, b)
    }
    /// `bvshl`
    pub fn shl(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Shl, a, b)
    }
    /// `bvlshr`
    pub fn lshr(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::LShr, a, b)
    }
    /// `bvashr`
    pub fn ashr(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::AShr, a, b)
    }
    /// `bvand`
    pub fn bvand(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::And, a, b)
    }
    /// `bvor`
    pub fn bvor(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Or, a, b)
    }
    /// `bvxor`
    pub fn bvxor(&mut self, a: ExprId, b: ExprId) -> R {
        self.binop(BvBinOp::Xor, a, b)
    }
    /// `bvnot`
    pub fn bvnot(&mut self, a: ExprId) -> R {
        self.unop(BvUnOp::Not, a)
    }
    /// `bvneg`
    pub fn neg(&mut self, a: ExprId) -> R {
        self.unop(BvUnOp::Neg, a)
    }
    /// `bvult`
    pub fn ult(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ult, a, b)
    }
    /// `bvule`
    pub fn ule(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ule, a, b)
    }
    /// `bvslt`
    pub fn slt(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Slt, a, b)
    }
    /// `bvsle`
    pub fn sle(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Sle, a, b)
    }
    /// `bvugt`, built as `b <u a`.
    pub fn ugt(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ult, b, a)
    }
    /// `bvuge`, built as `b ≤u a`.
    pub fn uge(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Ule, b, a)
    }
    /// `bvsgt`, built as `b <s a`.
    pub fn sgt(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Slt, b, a)
    }
    /// `bvsge`, built as `b ≤s a`.
    pub fn sge(&mut self, a: ExprId, b: ExprId) -> R {
        self.cmp(CmpOp::Sle, b, a)
    }
}
