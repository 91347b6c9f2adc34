//! The C library's string and memory functions in a traced run, followed
//! the way their simple byte loops run, without running code:
//!
//! - `strcmp`, `strncmp`, `memcmp` walk both strings while the bytes are
//!   equal (and, for the string functions, not the terminator), as
//!   `for (; i < n && a[i] == b[i] && a[i]; i++);` does, and return the
//!   difference of the bytes where the walk stopped, as the interpreter
//!   does (`a[i] - b[i]` of unsigned bytes, in 32 bits);
//! - `strlen`, `strnlen` walk to the terminator (`s[i] != 0`); `strchr`,
//!   `memchr`, `strrchr` compare each byte with the character searched
//!   for (which may be an input itself) and, but `memchr`, with the
//!   terminator;
//! - `strcpy`, `strncpy`, `strcat`, `strncat` walk their source (and
//!   `strcat`'s destination) to the terminator and copy the shadows of the
//!   bytes they copy with the bytes (`memcpy`, `memmove`, `memset`, in
//!   `calls`, keep shadows too; they decide nothing).
//!
//! Each step's decision on a byte that has a shadow is a branch point, as
//! the loop's condition in program code would be: the path condition
//! holds its outcome, the alternative is the other one. These points
//! belong to no goal, like a branch of library code, and target the
//! call's block: the search takes them as fresh candidates
//! (`schedule::Deferred` hands goal-less candidates on as it does those of
//! open goals) and `cfg-distance` ranks them by the distance of the call.
//! Bytes without shadows decide nothing, an outcome already in the path
//! (a second walk over the same bytes) is not offered again, and a call
//! records [`TraceLimits::max_string_points`] points at most (its block,
//! [`TraceLimits::max_string_points_per_site`] a run), so long strings do
//! not fill the path condition. Results that are differences
//! carry their expression; lengths and the pointers searches return stay
//! concrete, pinned by the decisions that lead to them.
//!
//! Pointer arguments and counts are fixed to their values (the equality
//! joins the path condition), as the other models do. `strstr` stays
//! concrete (`calls::shared_builtin`): its loop runs a comparison at every
//! start position, and the decisions of all of them would pin every byte
//! of the haystack for one outcome that a branch on the result rarely
//! needs.

use super::*;

/// A byte a library loop read, with its shadow.
#[derive(Clone, Copy)]
struct Byte {
    v: u8,
    e: Option<ExprId>,
}

impl Byte {
    const ZERO: Byte = Byte { v: 0, e: None };
}

/// The decisions one call may still record, and where.
struct Decisions {
    left: u32,
    site: (FuncId, Block),
}

fn lib_fault(f: walkdown_interp::memory::MemFault) -> Stop {
    error(format!("{} in a library call", f.kind.name()))
}

impl Run<'_, '_> {
    /// Runs `b` if it is one of this module's functions (true), with the
    /// call's `args`, writing its result to `result` as a `ret`.
    pub(super) fn string_builtin(
        &mut self,
        b: Builtin,
        args: &[(u64, Option<ExprId>)],
        result: Option<Value>,
        ret: Option<Type>,
    ) -> Result<bool, Stop> {
        use Builtin::*;
        if !matches!(b, Strlen | Strnlen | Strcmp | Strncmp | Memcmp | Strchr | Memchr | Strrchr)
            && !matches!(b, Strcpy | Strncpy | Strcat | Strncat)
        {
            return Ok(false);
        }
        let (a, c) = self.string_args(b, args);
        let mut d = self.decisions();
        let (value, shadow) = self.string_call(&mut d, b, a, c)?;
        if let (Some(r), Some(ty)) = (result, ret) {
            let w = ty.bits(self.dm);
            let bits = walkdown_interp::eval::truncate(value, w);
            // Differences are 32-bit values the caller reads as `ret`.
            let shadow = shadow.map(|e| self.sym.resize(e, 32, w, false));
            self.set(r, bits, shadow);
        }
        Ok(true)
    }

    /// The first three arguments, pointers and counts fixed to their
    /// values, and the character a search looks for (the second argument
    /// of `strchr`, `memchr`, `strrchr`, converted to a byte), which keeps
    /// its shadow.
    fn string_args(&mut self, b: Builtin, args: &[(u64, Option<ExprId>)]) -> ([u64; 3], Byte) {
        let searched = matches!(b, Builtin::Strchr | Builtin::Memchr | Builtin::Strrchr);
        let arg = |i: usize| args.get(i).copied().unwrap_or((0, None));
        let mut a = [0u64; 3];
        for (i, slot) in a.iter_mut().enumerate() {
            let (v, s) = arg(i);
            if !(searched && i == 1) {
                self.concretize(v, s, self.dm.pointer_bits());
            }
            *slot = v;
        }
        let c = match arg(1) {
            (v, s) if searched => Byte { v: v as u8, e: s.map(|e| self.low_byte(e)) },
            _ => Byte::ZERO,
        };
        (a, c)
    }

    /// The walk of `b` on arguments `a` (and `c`): its result and the
    /// result's shadow.
    fn string_call(
        &mut self,
        d: &mut Decisions,
        b: Builtin,
        a: [u64; 3],
        c: Byte,
    ) -> Result<(u64, Option<ExprId>), Stop> {
        use Builtin::*;
        Ok(match b {
            Strlen => (self.length(d, a[0], u64::MAX)?, None),
            Strnlen => (self.length(d, a[0], a[1])?, None),
            Strcmp => self.compare(d, a[0], a[1], u64::MAX, true)?,
            Strncmp => self.compare(d, a[0], a[1], a[2], true)?,
            Memcmp => {
                // The interpreter checks both ranges before comparing.
                self.mem.bytes(a[0], a[2]).map_err(lib_fault)?;
                self.mem.bytes(a[1], a[2]).map_err(lib_fault)?;
                self.compare(d, a[0], a[1], a[2], false)?
            }
            Strchr => (self.find(d, a[0], c, None)?, None),
            Memchr => (self.find(d, a[0], c, Some(a[2]))?, None),
            Strrchr => (self.find_last(d, a[0], c)?, None),
            Strcpy => {
                let n = self.string(d, a[1], u64::MAX)?.len() as u64;
                self.copy(a[0], a[1], n)?;
                (a[0], None)
            }
            Strncpy => {
                self.strncpy(d, a[0], a[1], a[2])?;
                (a[0], None)
            }
            // `strcat`, `strncat`: `string_builtin` lets no other through.
            _ => {
                let limit = if b == Strncat { a[2] } else { u64::MAX };
                self.strcat(d, a[0], a[1], limit)?;
                (a[0], None)
            }
        })
    }

    /// The budget of one call at the current block: at most
    /// [`TraceLimits::max_string_points`] decisions, and what is left of
    /// the block's [`TraceLimits::max_string_points_per_site`].
    fn decisions(&self) -> Decisions {
        let site = (self.frame().func, self.frame().block);
        let used = self.string_visits.get(&site).copied().unwrap_or(0);
        let left = self.limits.max_string_points.min(self.limits.max_string_points_per_site.saturating_sub(used));
        Decisions { left, site }
    }

    /// One decision of a byte loop: `cond` (none when no byte involved
    /// has a shadow) came out `holds`. The path condition gets the
    /// outcome, a goal-less branch point the other one. Past the budget
    /// the outcome is dropped, as a branch's past its site's cap is: a
    /// long string would otherwise put one constraint a byte into every
    /// later query, for alternatives deep inside one string that a search
    /// rarely needs; every test is replayed, so a dropped constraint
    /// costs a divergence, never a false result.
    fn decide(&mut self, d: &mut Decisions, cond: Option<ExprId>, holds: bool) {
        let Some(c) = cond else { return };
        let not_c = self.sym.not(c);
        let (taken, other) = if holds { (c, not_c) } else { (not_c, c) };
        // An outcome an earlier walk over the same bytes put into the path
        // (`strlen(s)` before `strchr(s, c)`: `s[i] != 0` again) adds
        // nothing, and its alternative contradicts the path: asking for it
        // would be a query sure to be unsatisfiable.
        if self.sym.is_true(taken) || self.path_facts.contains(&taken) {
            return;
        }
        if d.left == 0
            || self.trace.points.len() >= self.limits.max_points
            || self.trace.path.len() >= self.limits.max_path
        {
            self.trace.dropped_constraints += 1;
            return;
        }
        d.left -= 1;
        *self.string_visits.entry(d.site).or_insert(0) += 1;
        let alt = Alternative {
            cond: other,
            goal: None,
            kind: AltKind::Branch,
            target: Some(d.site),
            useless: false,
            distance: None,
        };
        let prefix = self.trace.path.len();
        self.trace.points.push(BranchPoint { prefix, alternatives: vec![alt], site: d.site });
        self.push_constraint(taken);
    }

    /// The byte at `addr` and its shadow.
    fn byte(&mut self, addr: u64) -> Result<Byte, Stop> {
        let v = self.mem.load(addr, 1).map_err(lib_fault)? as u8;
        Ok(Byte { v, e: self.mem_shadow.get(&addr).copied() })
    }

    fn byte_expr(&mut self, b: Byte) -> ExprId {
        b.e.unwrap_or_else(|| self.sym.bv(u64::from(b.v), 8))
    }

    /// The low byte of a value (the character `strchr` converts its `int`
    /// argument to).
    fn low_byte(&mut self, e: ExprId) -> ExprId {
        let w = self.sym.width(e);
        self.sym.resize(e, w, 8, false)
    }

    /// `x == y`, when either has a shadow.
    fn same(&mut self, x: Byte, y: Byte) -> Option<ExprId> {
        if x.e.is_none() && y.e.is_none() {
            return None;
        }
        let (a, b) = (self.byte_expr(x), self.byte_expr(y));
        Some(self.sym.eq(a, b))
    }

    /// `x == 0`, when `x` has a shadow.
    fn is_zero(&mut self, x: Byte) -> Option<ExprId> {
        self.same(x, Byte::ZERO)
    }

    /// `strncmp(a, b, n)` (`strings`) or `memcmp(a, b, n)`: the loop
    /// `for (; i < n && a[i] == b[i] && (!strings || a[i]); i++);`, one
    /// decision a step, then the difference of the bytes where it stopped
    /// (0 when it ran to `n`).
    fn compare(
        &mut self,
        d: &mut Decisions,
        a: u64,
        b: u64,
        n: u64,
        strings: bool,
    ) -> Result<(u64, Option<ExprId>), Stop> {
        let mut i = 0u64;
        while i < n {
            let x = self.byte(a.wrapping_add(i))?;
            let y = self.byte(b.wrapping_add(i))?;
            let go_on = x.v == y.v && !(strings && x.v == 0);
            let cond = match self.same(x, y) {
                Some(eq) if strings => {
                    let z = self.same(x, Byte::ZERO).unwrap_or_else(|| self.sym.bool(x.v == 0));
                    let nz = self.sym.not(z);
                    Some(self.sym.and(eq, nz))
                }
                eq => eq,
            };
            self.decide(d, cond, go_on);
            if !go_on {
                return Ok(self.difference(x, y));
            }
            i += 1;
        }
        Ok((0, None))
    }

    /// `x - y` of unsigned bytes, in 32 bits.
    fn difference(&mut self, x: Byte, y: Byte) -> (u64, Option<ExprId>) {
        let v = u64::from((i32::from(x.v) - i32::from(y.v)) as u32);
        if x.e.is_none() && y.e.is_none() {
            return (v, None);
        }
        let (a, b) = (self.byte_expr(x), self.byte_expr(y));
        let a = self.sym.resize(a, 8, 32, false);
        let b = self.sym.resize(b, 8, 32, false);
        (v, Some(self.sym.bin(walkdown_ir::BinOp::Sub, 32, a, b)))
    }

    /// `strnlen(s, n)` (`strlen` with `n` unbounded): the offset of the
    /// first zero byte, or `n`.
    fn length(&mut self, d: &mut Decisions, s: u64, n: u64) -> Result<u64, Stop> {
        let mut i = 0u64;
        while i < n {
            let x = self.byte(s.wrapping_add(i))?;
            let cond = self.is_zero(x);
            self.decide(d, cond, x.v == 0);
            if x.v == 0 {
                return Ok(i);
            }
            i += 1;
        }
        Ok(n)
    }

    /// `strchr(s, c)` (`n` none: up to the terminator, which it finds
    /// when `c` is 0) or `memchr(s, c, n)`: the address of the first byte
    /// equal to `c`, or 0.
    fn find(&mut self, d: &mut Decisions, s: u64, c: Byte, n: Option<u64>) -> Result<u64, Stop> {
        let mut i = 0u64;
        while n.is_none_or(|n| i < n) {
            let at = s.wrapping_add(i);
            let x = self.byte(at)?;
            let cond = self.same(x, c);
            self.decide(d, cond, x.v == c.v);
            if x.v == c.v {
                return Ok(at);
            }
            if n.is_none() {
                let cond = self.is_zero(x);
                self.decide(d, cond, x.v == 0);
                if x.v == 0 {
                    return Ok(0);
                }
            }
            i += 1;
        }
        Ok(0)
    }

    /// `strrchr(s, c)`: `for (;; i++) { if (s[i] == c) last = i; if
    /// (!s[i]) break; }`, so `strrchr(s, 0)` finds the terminator.
    fn find_last(&mut self, d: &mut Decisions, s: u64, c: Byte) -> Result<u64, Stop> {
        let mut last = None;
        let mut i = 0u64;
        loop {
            let at = s.wrapping_add(i);
            let x = self.byte(at)?;
            let cond = self.same(x, c);
            self.decide(d, cond, x.v == c.v);
            if x.v == c.v {
                last = Some(at);
            }
            let cond = self.is_zero(x);
            self.decide(d, cond, x.v == 0);
            if x.v == 0 {
                return Ok(last.unwrap_or(0));
            }
            i += 1;
        }
    }

    /// The bytes of the string at `s` with its terminator, reading at most
    /// `n` (then without one).
    fn string(&mut self, d: &mut Decisions, s: u64, n: u64) -> Result<Vec<Byte>, Stop> {
        let mut out = Vec::new();
        while (out.len() as u64) < n {
            let x = self.byte(s.wrapping_add(out.len() as u64))?;
            out.push(x);
            let cond = self.is_zero(x);
            self.decide(d, cond, x.v == 0);
            if x.v == 0 {
                break;
            }
        }
        Ok(out)
    }

    /// Writes `bytes` at `at` with their shadows.
    fn put(&mut self, at: u64, bytes: &[Byte]) -> Result<(), Stop> {
        let values: Vec<u8> = bytes.iter().map(|b| b.v).collect();
        self.mem.write_bytes(at, &values).map_err(lib_fault)?;
        for (i, b) in bytes.iter().enumerate() {
            let a = at.wrapping_add(i as u64);
            match b.e {
                Some(e) => self.mem_shadow.insert(a, e),
                None => self.mem_shadow.remove(&a),
            };
        }
        Ok(())
    }

    /// `strncpy(dst, src, n)`: the string (at most `n` bytes), then zeros
    /// up to `n`.
    fn strncpy(&mut self, d: &mut Decisions, dst: u64, src: u64, n: u64) -> Result<(), Stop> {
        if n == 0 {
            return Ok(());
        }
        let mut bytes = self.string(d, src, n)?;
        // The destination is checked before the padding is made, so a huge
        // `n` faults instead of allocating.
        self.mem.bytes_mut(dst, n).map_err(lib_fault)?;
        bytes.resize(n as usize, Byte::ZERO);
        self.put(dst, &bytes)
    }

    /// `strcat(dst, src)` (`limit` unbounded) or `strncat`: the source's
    /// first `limit` bytes at most, and a terminator, at the end of the
    /// destination's string.
    fn strcat(&mut self, d: &mut Decisions, dst: u64, src: u64, limit: u64) -> Result<(), Stop> {
        let end = dst.wrapping_add(self.length(d, dst, u64::MAX)?);
        let mut bytes = self.string(d, src, limit)?;
        if bytes.last().is_some_and(|b| b.v == 0) {
            bytes.pop();
        }
        bytes.push(Byte::ZERO);
        self.put(end, &bytes)
    }
}
