//! The encoder's state: the term constructors it uses, fresh symbols, and
//! the memory model (states as stores over a byte array, merged where
//! paths join; loads, stores, and the library functions with a model).

use super::*;

/// A memory state.
#[derive(Clone, Debug)]
pub(super) enum MemNode {
    /// An SMT array term (the initial memory, or unknown memory).
    Base(ExprId),
    /// A byte stored over a state.
    Store(usize, ExprId, ExprId),
    /// The state of the incoming edge taken: (selection, state) per edge.
    Merge(Vec<(ExprId, usize)>),
}

pub(super) struct Enc<'a> {
    pub(super) mems: Vec<MemNode>,
    pub(super) reads: std::collections::HashMap<(usize, ExprId), ExprId>,
    pub(super) arrays: std::collections::HashMap<usize, ExprId>,
    pub(super) pool: &'a mut ExprPool,
    pub(super) program: &'a Program,
    pub(super) pw: u32,
    pub(super) assertions: Vec<ExprId>,
    pub(super) approximations: Vec<(String, Loc)>,
    pub(super) next_addr: u64,
    /// See [`EntryState::repeats`].
    pub(super) repeats: bool,
    pub(super) settings: &'a VcSettings,
}

impl Enc<'_> {
    /// Runs a pool constructor; the encoder only builds well-sorted terms,
    /// so a failure is a bug here.
    pub(super) fn x(&mut self, f: impl FnOnce(&mut ExprPool) -> Result<ExprId, walkdown_smt::ExprError>) -> ExprId {
        f(self.pool).unwrap_or_else(|err| panic!("ill-sorted term in the bmc encoding (a bug): {err}"))
    }

    pub(super) fn x2<T>(&mut self, f: impl FnOnce(&mut ExprPool) -> Result<T, walkdown_smt::ExprError>) -> T {
        f(self.pool).unwrap_or_else(|err| panic!("ill-sorted term in the bmc encoding (a bug): {err}"))
    }

    pub(super) fn width(&self, ty: Type) -> u32 {
        ty.bits(self.program.data_model)
    }

    pub(super) fn bv(&mut self, v: u64, w: u32) -> ExprId {
        Sym::new(self.pool).bv(v, w)
    }

    pub(super) fn sym(&mut self, name: &str, w: u32) -> (SymId, ExprId) {
        self.x2(|p| p.new_symbol(name, w))
    }

    /// A Boolean variable: a 1-bit symbol, and the term "it is 1".
    pub(super) fn var(&mut self, name: &str) -> (SymId, ExprId) {
        let (s, x) = self.sym(name, 1);
        let one = self.bv(1, 1);
        (s, self.x(|p| p.eq(x, one)))
    }

    pub(super) fn havoc(&mut self, what: &str, w: u32, loc: Loc) -> ExprId {
        self.approximations.push((what.to_string(), loc));
        self.sym(&format!("havoc_{what}"), w).1
    }

    /// A fresh object's address; `size` bytes when known.
    pub(super) fn fresh_object(&mut self, size: Option<u64>) -> ExprId {
        let big = if self.pw == 64 { 1 << 24 } else { 1 << 16 };
        let size = size.unwrap_or(big).min(big);
        let addr = self.next_addr;
        self.next_addr = self.next_addr.wrapping_add(size.div_ceil(16) * 16 + 64);
        self.bv(addr, self.pw)
    }

    /// The address of an object allocated by a block that may run again
    /// while the objects it allocated before are live: a fresh symbol (one
    /// per execution once steps are renamed apart), so it may alias any
    /// other such object (an over-approximation), placed in an area of its
    /// own, above every fixed object.
    pub(super) fn repeated_object(&mut self, what: &str, loc: Loc) -> ExprId {
        self.approximations.push((format!("{what} that may repeat"), loc));
        let pw = self.pw;
        let (lo, hi) = if pw == 64 { (0x7f00_0000_0000u64, 0x7fff_0000_0000u64) } else { (0xe000_0000, 0xf000_0000) };
        let a = self.sym(&format!("obj_{what}"), pw).1;
        let (l, h) = (self.bv(lo, pw), self.bv(hi, pw));
        let above = self.x(|p| p.ule(l, a));
        let below = self.x(|p| p.ult(a, h));
        self.assertions.push(above);
        self.assertions.push(below);
        a
    }

    /// The memory of whichever incoming edge is taken.
    pub(super) fn merge(&mut self, arms: Vec<(ExprId, usize)>) -> usize {
        self.mems.push(MemNode::Merge(arms));
        self.mems.len() - 1
    }

    /// Memory state `m` as one array term (if-then-else of arrays at
    /// joins), for reads at symbolic addresses.
    pub(super) fn array_of(&mut self, m: usize) -> ExprId {
        if let Some(&t) = self.arrays.get(&m) {
            return t;
        }
        let mut stores = Vec::new();
        let mut cur = m;
        while let MemNode::Store(prev, a, v) = self.mems[cur] {
            if let Some(&t) = self.arrays.get(&prev) {
                stores.push((a, v));
                let mut acc = t;
                for (a, v) in stores.drain(..).rev() {
                    acc = self.x(|p| p.store(acc, a, v));
                }
                self.arrays.insert(m, acc);
                return acc;
            }
            stores.push((a, v));
            cur = prev;
        }
        let mut acc = match self.mems[cur].clone() {
            MemNode::Base(t) => t,
            MemNode::Merge(arms) => {
                let mut acc: Option<ExprId> = None;
                for (sel, mm) in arms.iter().rev() {
                    let t = self.array_of(*mm);
                    acc = Some(match acc {
                        None => t,
                        Some(rest) if rest == t => t,
                        Some(rest) => self.x(|p| p.ite(*sel, t, rest)),
                    });
                }
                acc.expect("a merge has arms")
            }
            MemNode::Store(..) => unreachable!(),
        };
        for (a, v) in stores.into_iter().rev() {
            acc = self.x(|p| p.store(acc, a, v));
        }
        self.arrays.insert(m, acc);
        acc
    }

    /// The byte at `addr` in memory state `m`. At a constant address the
    /// read looks through stores at other constant addresses and becomes an
    /// if-then-else of the incoming reads at joins (so globals and other
    /// fixed cells behave like SSA values, which the solver handles far
    /// better than if-then-else of arrays); at a symbolic address it is a
    /// `select` from the state's array.
    pub(super) fn read(&mut self, m: usize, addr: ExprId) -> ExprId {
        let Some(ca) = self.pool.as_bv_const(addr) else {
            let t = self.array_of(m);
            return self.x(|p| p.select(t, addr));
        };
        if let Some(&r) = self.reads.get(&(m, addr)) {
            return r;
        }
        let mut stores = Vec::new();
        let mut cur = m;
        let mut hit = None;
        while let MemNode::Store(prev, a, v) = self.mems[cur] {
            match self.pool.as_bv_const(a) {
                Some(x) if x == ca => {
                    hit = Some(v);
                    break;
                }
                Some(_) => {}
                None => stores.push((a, v)),
            }
            cur = prev;
        }
        let mut r = match hit {
            Some(v) => v,
            None => match self.mems[cur].clone() {
                MemNode::Base(t) => self.x(|p| p.select(t, addr)),
                MemNode::Merge(arms) => {
                    let mut acc: Option<ExprId> = None;
                    for (sel, mm) in arms.iter().rev() {
                        let v = self.read(*mm, addr);
                        acc = Some(match acc {
                            None => v,
                            Some(rest) if rest == v => v,
                            Some(rest) => self.x(|p| p.ite(*sel, v, rest)),
                        });
                    }
                    acc.expect("a merge has arms")
                }
                MemNode::Store(..) => unreachable!(),
            },
        };
        for (a, v) in stores.into_iter().rev() {
            let same = self.x(|p| p.eq(a, addr));
            r = self.x(|p| p.ite(same, v, r));
        }
        self.reads.insert((m, addr), r);
        r
    }

    /// Memory state `m` with `byte` stored at `addr`.
    pub(super) fn store_byte(&mut self, m: usize, addr: ExprId, byte: ExprId) -> usize {
        self.mems.push(MemNode::Store(m, addr, byte));
        self.mems.len() - 1
    }

    pub(super) fn load(&mut self, mem: usize, p: ExprId, ty: Type) -> ExprId {
        let n = ty.store_size(self.program.data_model);
        let mut acc: Option<ExprId> = None;
        for i in 0..n {
            let off = self.bv(i, self.pw);
            let addr = self.x(|q| q.add(p, off));
            let byte = self.read(mem, addr);
            acc = Some(match acc {
                None => byte,
                Some(lo) => self.x(|q| q.concat(byte, lo)),
            });
        }
        let v = acc.unwrap();
        if ty == Type::I1 {
            self.x(|q| q.extract(v, 0, 0))
        } else {
            v
        }
    }

    pub(super) fn store(&mut self, mut mem: usize, p: ExprId, v: ExprId, ty: Type) -> usize {
        let n = ty.store_size(self.program.data_model);
        let v = if ty == Type::I1 { self.x(|q| q.zext(v, 8)) } else { v };
        for i in 0..n {
            let off = self.bv(i, self.pw);
            let addr = self.x(|q| q.add(p, off));
            let byte = self.x(|q| q.extract(v, (8 * i + 7) as u32, (8 * i) as u32));
            mem = self.store_byte(mem, addr, byte);
        }
        mem
    }

    pub(super) fn unknown_memory(&mut self, what: &str, loc: Loc) -> usize {
        self.approximations.push((what.to_string(), loc));
        let pw = self.pw;
        let t = self.x2(|p| p.new_array(what, pw)).1;
        self.mems.push(MemNode::Base(t));
        self.mems.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        args: &[ExprId],
        ret_w: Option<u32>,
        mem: &mut usize,
        pass: &mut ExprId,
        events: &mut Vec<Event>,
        loc: Loc,
    ) -> Result<Option<ExprId>, EncodeError> {
        let pw = self.pw;
        let arg = |i: usize| args.get(i).copied();
        let ret0 = |e: &mut Self| ret_w.map(|w| e.bv(0, w));
        let konst = |e: &Self, x: Option<ExprId>| x.and_then(|x| e.pool.as_bv_const(x)).map(|v| v as u64);
        Ok(match b {
            Builtin::Malloc | Builtin::Calloc | Builtin::Realloc => {
                let size = match b {
                    Builtin::Malloc => konst(self, arg(0)),
                    Builtin::Calloc => konst(self, arg(0)).zip(konst(self, arg(1))).and_then(|(a, c)| a.checked_mul(c)),
                    _ => None,
                };
                let addr =
                    if self.repeats { self.repeated_object("heap object", loc) } else { self.fresh_object(size) };
                if b == Builtin::Realloc {
                    // The old contents move; not modelled.
                    *mem = self.unknown_memory("realloc", loc);
                }
                // The interpreter returns null when memory runs out.
                let null = self.bv(0, pw);
                let (_, flag) = self.sym("alloc_fails", 1);
                let one = self.bv(1, 1);
                let fails = self.x(|p| p.eq(flag, one));
                Some(self.x(|p| p.ite(fails, null, addr)))
            }
            Builtin::Free | Builtin::NoOp | Builtin::Annotation | Builtin::Prune | Builtin::TryFirst => ret0(self),
            Builtin::Print => ret0(self),
            // `fwrite` writes nothing the model keeps and returns its count
            // (0 for items of size 0).
            Builtin::Fwrite => match (ret_w, arg(1), arg(2)) {
                (Some(w), Some(size), Some(n)) if self.pool.width(n) == Some(w) && self.pool.width(size) == Some(w) => {
                    let zero = self.bv(0, w);
                    let empty = self.x(|p| p.eq(size, zero));
                    Some(self.x(|p| p.ite(empty, zero, n)))
                }
                (Some(w), _, _) => Some(self.havoc("library result", w, loc)),
                (None, _, _) => None,
            },
            Builtin::Memset => {
                match konst(self, arg(2)) {
                    Some(nb) if nb <= self.settings.max_bulk_bytes => {
                        let d = arg(0).unwrap();
                        let c = arg(1).unwrap();
                        let byte = self.x(|p| p.extract(c, 7, 0));
                        for i in 0..nb {
                            let off = self.bv(i, pw);
                            let a = self.x(|p| p.add(d, off));
                            *mem = self.store_byte(*mem, a, byte);
                        }
                    }
                    _ => *mem = self.unknown_memory("memset", loc),
                }
                arg(0)
            }
            Builtin::Memcpy | Builtin::Memmove => {
                match konst(self, arg(2)) {
                    Some(nb) if nb <= self.settings.max_bulk_bytes => {
                        let (d, s) = (arg(0).unwrap(), arg(1).unwrap());
                        let src = *mem;
                        let mut bytes = Vec::new();
                        for i in 0..nb {
                            let off = self.bv(i, pw);
                            let a = self.x(|p| p.add(s, off));
                            bytes.push(self.read(src, a));
                        }
                        for (i, byte) in bytes.into_iter().enumerate() {
                            let off = self.bv(i as u64, pw);
                            let a = self.x(|p| p.add(d, off));
                            *mem = self.store_byte(*mem, a, byte);
                        }
                    }
                    _ => *mem = self.unknown_memory("memcpy", loc),
                }
                arg(0)
            }
            Builtin::Strcpy | Builtin::Strncpy => {
                *mem = self.unknown_memory("strcpy", loc);
                arg(0)
            }
            Builtin::Strcat | Builtin::Strncat => {
                *mem = self.unknown_memory("strcat", loc);
                arg(0)
            }
            Builtin::Strrchr
            | Builtin::Strstr
            | Builtin::Strnlen
            | Builtin::Memchr
            | Builtin::Abs
            | Builtin::Floor
            | Builtin::Ceil
            | Builtin::Trunc
            | Builtin::Round
            | Builtin::Rint
            | Builtin::Fmod
            | Builtin::Copysign => ret_w.map(|w| self.havoc("library result", w, loc)),
            Builtin::Memcmp
            | Builtin::Strlen
            | Builtin::Strcmp
            | Builtin::Strncmp
            | Builtin::Strchr
            | Builtin::Fabs
            | Builtin::Sqrt => ret_w.map(|w| self.havoc("library result", w, loc)),
            Builtin::Exit | Builtin::Abort => {
                events.push(Event::Stop);
                *pass = self.pool.ff();
                ret0(self)
            }
        })
    }
}
