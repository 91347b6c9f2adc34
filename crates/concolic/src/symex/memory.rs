//! Memory in a traced run: accesses through addresses that may be
//! symbolic (the out-of-bounds alternative, symbolic reads and writes over
//! the objects an address can point into), and the byte shadows that carry
//! stored values' expressions.

use super::*;

impl Run<'_, '_> {
    /// Checks a memory access of `n` bytes through a pointer whose address
    /// may be symbolic: offers the out-of-bounds alternative, then fixes
    /// the address unless the load can read it symbolically.
    pub(super) fn address(&mut self, inst: Inst, addr: u64, sp: Option<ExprId>, n: u64) -> Result<u64, Stop> {
        let Some(e) = sp else { return Ok(addr) };
        let w = self.dm.pointer_bits();
        let site = (self.frame().func, self.frame().block);
        if let Some(obj) = self.mem.find(addr).and_then(|i| self.mem.object(i)).filter(|o| o.live) {
            let (base, size) = (obj.base, obj.size);
            if size >= n && addr >= base && addr + n <= base + size {
                let lo = self.sym.bv(base, w);
                let hi = self.sym.bv(base + size - n, w);
                let ge = self.sym.cmp(walkdown_ir::CmpPred::Uge, e, lo);
                let le = self.sym.cmp(walkdown_ir::CmpPred::Ule, e, hi);
                let inside = self.sym.and(ge, le);
                let outside = self.sym.not(inside);
                let goal = self.t.goals.error_site(self.frame().func, inst);
                let alt = Alternative {
                    cond: outside,
                    goal,
                    kind: AltKind::Check(CheckKind::OutOfBounds),
                    target: None,
                    useless: false,
                    distance: None,
                };
                self.branch_point(site, vec![alt], inside);
            }
        }
        Ok(addr)
    }

    /// The shadow of `n` bytes loaded from `addr` as a value of `ty`.
    pub(super) fn load_shadow(&mut self, addr: u64, n: u64, ty: Type, sp: Option<ExprId>) -> Option<ExprId> {
        if !self.tracked(ty) {
            if sp.is_some() {
                self.concretize(addr, sp, self.dm.pointer_bits());
            }
            return None;
        }
        let w = self.width(ty);
        if let Some(pe) = sp {
            if let Some(e) = self.symbolic_read(addr, pe, n, w) {
                return Some(e);
            }
            self.concretize(addr, sp, self.dm.pointer_bits());
        }
        self.bytes_shadow(addr, n, w)
    }

    /// The value at a concrete address from the byte shadows.
    pub(super) fn bytes_shadow(&mut self, addr: u64, n: u64, w: u32) -> Option<ExprId> {
        if self.mem_shadow.is_empty() || !(0..n).any(|i| self.mem_shadow.contains_key(&(addr + i))) {
            return None;
        }
        let mut acc: Option<ExprId> = None;
        for i in (0..n).rev() {
            let byte = match self.mem_shadow.get(&(addr + i)) {
                Some(&e) => e,
                None => {
                    let v = self.mem.load(addr + i, 1).unwrap_or(0);
                    self.sym.bv(v, 8)
                }
            };
            acc = Some(match acc {
                None => byte,
                Some(hi) => self.sym.concat(hi, byte),
            });
        }
        let e = acc.expect("n > 0");
        Some(if w < 8 * n as u32 { self.sym.extract(e, w - 1, 0) } else { e })
    }

    /// A read through a symbolic address within a small object: the choice
    /// over every aligned position the address may take.
    pub(super) fn symbolic_read(&mut self, addr: u64, pe: ExprId, n: u64, w: u32) -> Option<ExprId> {
        let idx = self.mem.find(addr)?;
        let obj = self.mem.object(idx)?;
        if !obj.live || obj.size > self.limits.max_symbolic_object || obj.size < n {
            return None;
        }
        let (base, size) = (obj.base, obj.size);
        let phase = (addr - base) % n;
        let pw = self.dm.pointer_bits();
        let mut positions: Vec<u64> = Vec::new();
        let mut off = phase;
        while off + n <= size {
            positions.push(base + off);
            off += n;
        }
        let mut acc: Option<ExprId> = None;
        for &p in positions.iter().rev() {
            let v = match self.bytes_shadow(p, n, w) {
                Some(e) => e,
                None => {
                    let bits = self.mem.load(p, n).ok()?;
                    self.sym.bv(bits, w)
                }
            };
            acc = Some(match acc {
                None => v,
                Some(rest) => {
                    let pc = self.sym.bv(p, pw);
                    let at = self.sym.eq(pe, pc);
                    self.sym.ite(at, v, rest)
                }
            });
        }
        // Keep the address on its alignment class, which the choice assumes.
        self.keep_alignment(pe, base, n, phase);
        acc
    }

    /// A write through a symbolic address within a small object: every
    /// aligned position the address may take gets `addr == position ?
    /// value : old`, byte by byte (the array-store semantics, spelled over
    /// the byte shadows). False when the object is too large or unknown;
    /// the caller then fixes the address.
    pub(super) fn symbolic_write(&mut self, addr: u64, pe: ExprId, n: u64, v: u64, sv: Option<ExprId>, w: u32) -> bool {
        let Some(obj) = self.mem.find(addr).and_then(|i| self.mem.object(i)) else { return false };
        if !obj.live || obj.size > self.limits.max_symbolic_object || obj.size < n {
            return false;
        }
        let (base, size) = (obj.base, obj.size);
        let phase = (addr - base) % n;
        let pw = self.dm.pointer_bits();
        let full = (8 * n) as u32;
        let value = match sv {
            Some(e) if w < full => self.sym.cast(walkdown_ir::CastOp::ZExt, w, full, e),
            Some(e) => e,
            None => self.sym.bv(v, full.min(64)),
        };
        let mut off = phase;
        while off + n <= size {
            let p = base + off;
            let pc = self.sym.bv(p, pw);
            let here = self.sym.eq(pe, pc);
            for i in 0..n {
                let lo = (8 * i) as u32;
                let new_byte = self.sym.extract(value, lo + 7, lo);
                let old_byte = match self.mem_shadow.get(&(p + i)) {
                    Some(&e) => e,
                    None => {
                        let b = self.mem.load(p + i, 1).unwrap_or(0);
                        self.sym.bv(b, 8)
                    }
                };
                let byte = self.sym.ite(here, new_byte, old_byte);
                if self.sym.const_value(byte).is_some() {
                    self.mem_shadow.remove(&(p + i));
                } else {
                    self.mem_shadow.insert(p + i, byte);
                }
            }
            off += n;
        }
        self.keep_alignment(pe, base, n, phase);
        true
    }

    /// Keeps a symbolic address `pe` on the alignment class (offset from
    /// `base` modulo the access size `n` equal to `phase`) that a choice
    /// over an object's aligned positions assumes.
    pub(super) fn keep_alignment(&mut self, pe: ExprId, base: u64, n: u64, phase: u64) {
        if phase == 0 && n == 1 {
            return;
        }
        let pw = self.dm.pointer_bits();
        let nn = self.sym.bv(n, pw);
        let b = self.sym.bv(base, pw);
        let rel = self.sym.bin(walkdown_ir::BinOp::Sub, pw, pe, b);
        let r = self.sym.bin(walkdown_ir::BinOp::URem, pw, rel, nn);
        let ph = self.sym.bv(phase, pw);
        let aligned = self.sym.eq(r, ph);
        if !self.sym.is_true(aligned) {
            self.push_constraint(aligned);
        }
    }

    pub(super) fn clear_shadow(&mut self, addr: u64, n: u64) {
        if self.mem_shadow.is_empty() {
            return;
        }
        if n > 4096 {
            self.mem_shadow.retain(|&a, _| a < addr || a >= addr + n);
        } else {
            for i in 0..n {
                self.mem_shadow.remove(&(addr + i));
            }
        }
    }

    pub(super) fn store_shadow(&mut self, addr: u64, n: u64, sv: Option<ExprId>, w: u32) {
        let Some(e) = sv else {
            self.clear_shadow(addr, n);
            return;
        };
        let full = (8 * n) as u32;
        let e = if w < full { self.sym.cast(walkdown_ir::CastOp::ZExt, w, full, e) } else { e };
        for i in 0..n {
            let lo = (8 * i) as u32;
            let byte = self.sym.extract(e, lo + 7, lo);
            if self.sym.const_value(byte).is_some() {
                self.mem_shadow.remove(&(addr + i));
            } else {
                self.mem_shadow.insert(addr + i, byte);
            }
        }
    }

    /// `memmove` with shadows.
    pub(super) fn copy(&mut self, dst: u64, src: u64, n: u64) -> Result<(), Stop> {
        self.mem.copy(dst, src, n).map_err(|f| error(format!("{} in a library call", f.kind.name())))?;
        if self.mem_shadow.is_empty() {
            return Ok(());
        }
        let moved: Vec<(u64, Option<ExprId>)> =
            (0..n).map(|i| (dst + i, self.mem_shadow.get(&(src + i)).copied())).collect();
        for (a, s) in moved {
            match s {
                Some(e) => {
                    self.mem_shadow.insert(a, e);
                }
                None => {
                    self.mem_shadow.remove(&a);
                }
            }
        }
        Ok(())
    }
}
