//! Models of the C library functions the IR marks as [`Builtin`]s.
//!
//! Each model reads its arguments from the caller's registers, touches
//! memory only through [`Memory`](crate::memory::Memory)'s checked accessors
//! (so every byte a function reads or writes is bounds-checked, and a fault
//! is reported at the call with its error-site goal), and writes its result
//! truncated to the type the caller expects.
//!
//! - `malloc`, `calloc`, `realloc` allocate fresh zeroed heap blocks (NULL
//!   beyond the memory limit; `calloc` also on size overflow); `malloc(0)`
//!   gives a unique empty block; `realloc(p, 0)` frees `p` and returns NULL.
//! - `free` and `realloc` report double and invalid frees.
//! - `memset`, `memcpy`, `memmove`, `memcmp` check their whole ranges;
//!   `memcmp` returns the difference of the first differing bytes.
//! - `strlen`, `strcmp`, `strncmp`, `strcpy`, `strncpy`, `strchr` read
//!   exactly the bytes the C definition reads (up to the terminator or the
//!   first difference); `strcmp`/`strncmp` return the byte difference.
//! - Output functions do nothing and return 0; `exit` ends the run with its
//!   code, `abort` with [`Outcome::Abort`]; `fabs`/`sqrt` compute in the
//!   precision of their argument.
//! - Input, string-search, rounding and `abs` functions are modelled in
//!   [`crate::libc`], shared with the concolic engine.

use crate::api::Outcome;
use crate::code::CallSite;
use crate::eval::{eval_fabs, eval_sqrt};
use crate::exec::{Flow, Machine};
use crate::memory::{AllocError, MemFault, ObjectKind};
use walkdown_ir::{Builtin, CheckKind, Type};

/// Heap blocks are aligned like glibc's.
const HEAP_ALIGN: u64 = 16;

impl Machine<'_, '_> {
    /// Runs builtin `b` for the call at `pc`; `param0` is the declared type
    /// of its first parameter.
    pub(crate) fn call_builtin(
        &mut self,
        regs: &mut [u64],
        b: Builtin,
        param0: Option<Type>,
        site: &CallSite,
        pc: usize,
        base: usize,
    ) -> Flow {
        if let Some(need) = crate::libc::arity(b) {
            return self.call_shared(regs, b, need, param0, site, pc, base);
        }
        let mut args = [0u64; 3];
        let need = arity(b);
        for (i, a) in args.iter_mut().enumerate().take(need) {
            match self.arg(regs, site, base, i) {
                Some(v) => *a = v,
                None => {
                    return Flow::Stop(self.unsupported(pc, format!("call of {b:?} with {} arguments", site.args_len)))
                }
            }
        }
        let [a0, a1, a2] = args;
        let r: Result<u64, Stop> = match b {
            Builtin::Malloc => Ok(self.heap_alloc(a0)),
            Builtin::Calloc => Ok(a0.checked_mul(a1).map_or(0, |n| self.heap_alloc_zeroed(n))),
            Builtin::Realloc => self.realloc(a0, a1),
            Builtin::Free => self.mem.free_heap(a0).map(|()| 0).map_err(Stop::Error),
            Builtin::Memset => self.memset(a0, a1 as u8, a2),
            Builtin::Memcpy | Builtin::Memmove => self.mem.copy(a0, a1, a2).map(|()| a0).map_err(Stop::from),
            Builtin::Memcmp => self.memcmp(a0, a1, a2),
            Builtin::Strlen => self.strlen(a0),
            Builtin::Strcmp => self.strncmp(a0, a1, u64::MAX),
            Builtin::Strncmp => self.strncmp(a0, a1, a2),
            Builtin::Strcpy => self.strcpy(a0, a1),
            Builtin::Strncpy => self.strncpy(a0, a1, a2),
            Builtin::Strchr => self.strchr(a0, a1 as u8),
            Builtin::Print | Builtin::NoOp | Builtin::Annotation | Builtin::Prune | Builtin::TryFirst => Ok(0),
            Builtin::Exit => {
                let code = self.arg(regs, site, base, 0).unwrap_or(0) as u32 as i32;
                return Flow::Stop(Outcome::Exit(code));
            }
            Builtin::Abort => return Flow::Stop(Outcome::Abort),
            Builtin::Fabs | Builtin::Sqrt => {
                let ty = site.ret.or(param0).unwrap_or(Type::F64);
                let v = self.arg(regs, site, base, 0).unwrap_or(0);
                Ok(if b == Builtin::Fabs { eval_fabs(ty, v) } else { eval_sqrt(ty, v) })
            }
            // Run by `call_shared` above.
            _ => Ok(0),
        };
        match r {
            Ok(v) => {
                self.set_result(regs, site, base, v);
                Flow::Next
            }
            Err(Stop::Error(kind)) => Flow::Stop(self.error(pc, kind)),
        }
    }

    /// Runs a model of [`crate::libc`] (shared with the concolic engine).
    #[allow(clippy::too_many_arguments)]
    fn call_shared(
        &mut self,
        regs: &mut [u64],
        b: Builtin,
        need: usize,
        param0: Option<Type>,
        site: &CallSite,
        pc: usize,
        base: usize,
    ) -> Flow {
        let mut args = [0u64; 3];
        for (i, a) in args.iter_mut().enumerate().take(need) {
            match self.arg(regs, site, base, i) {
                Some(v) => *a = v,
                None => {
                    return Flow::Stop(self.unsupported(pc, format!("call of {b:?} with {} arguments", site.args_len)))
                }
            }
        }
        match crate::libc::call(&mut self.mem, b, &args[..need], site.ret, param0) {
            Ok(effect) => {
                self.set_result(regs, site, base, effect.value);
                Flow::Next
            }
            Err(f) => Flow::Stop(self.error(pc, f.kind)),
        }
    }

    /// A fresh zeroed heap block, or NULL.
    fn heap_alloc(&mut self, n: u64) -> u64 {
        match self.mem.alloc(n, HEAP_ALIGN, ObjectKind::Heap, false) {
            Ok((_, addr)) => addr,
            Err(AllocError::OutOfMemory | AllocError::AddressSpace) => 0,
        }
    }

    /// A fresh heap block filled with zeros whatever the fresh-object fill
    /// (`calloc`), or NULL.
    fn heap_alloc_zeroed(&mut self, n: u64) -> u64 {
        let addr = self.heap_alloc(n);
        if addr != 0 && n != 0 && self.mem.fresh_fill() != 0 {
            if let Ok(bytes) = self.mem.bytes_mut(addr, n) {
                bytes.fill(0);
            }
        }
        addr
    }

    fn realloc(&mut self, p: u64, n: u64) -> Result<u64, Stop> {
        if p == 0 {
            return Ok(self.heap_alloc(n));
        }
        let old = self.mem.heap_block(p).map_err(Stop::Error)?;
        if n == 0 {
            self.mem.release(old);
            return Ok(0);
        }
        let old_size = self.mem.object(old).map_or(0, |o| o.size);
        let new = self.heap_alloc(n);
        if new == 0 {
            return Ok(0);
        }
        self.mem.copy(new, p, old_size.min(n))?;
        // Allocation appends, so the old block's index is unchanged.
        self.mem.release(old);
        Ok(new)
    }

    fn memset(&mut self, p: u64, c: u8, n: u64) -> Result<u64, Stop> {
        self.mem.bytes_mut(p, n)?.fill(c);
        Ok(p)
    }

    fn memcmp(&mut self, a: u64, b: u64, n: u64) -> Result<u64, Stop> {
        let mut buf = std::mem::take(&mut self.bytes);
        buf.clear();
        let r = self.mem.bytes(a, n).map(|s| buf.extend_from_slice(s)).and_then(|()| {
            let sb = self.mem.bytes(b, n)?;
            Ok(buf.iter().zip(sb).find(|(x, y)| x != y).map_or(0, |(&x, &y)| i32::from(x) - i32::from(y)))
        });
        self.bytes = buf;
        Ok(r? as u32 as u64)
    }

    /// Copies the string at `s` (with its terminator, at most `limit` bytes)
    /// into `self.bytes`; returns whether a terminator was copied.
    fn read_string(&mut self, s: u64, limit: u64) -> Result<bool, Stop> {
        self.bytes.clear();
        if limit == 0 {
            return Ok(false);
        }
        let t = self.mem.tail(s)?;
        let lim = usize::try_from(limit).unwrap_or(usize::MAX);
        let window = &t[..t.len().min(lim)];
        match window.iter().position(|&c| c == 0) {
            Some(i) => {
                self.bytes.extend_from_slice(&window[..=i]);
                Ok(true)
            }
            None if window.len() == lim => {
                self.bytes.extend_from_slice(window);
                Ok(false)
            }
            None => {
                // The scan runs off the end of the object.
                let addr = s.wrapping_add(t.len() as u64);
                Err(Stop::Error(self.mem.classify(addr)).fault_or_oob())
            }
        }
    }

    /// The string at `s` without its terminator, if it is one of at most
    /// `limit` bytes inside one object.
    pub(crate) fn read_cstring(&mut self, s: u64, limit: u64) -> Result<&[u8], MemFault> {
        let t = self.mem.tail(s)?;
        let lim = usize::try_from(limit).unwrap_or(usize::MAX).min(t.len());
        match t[..lim].iter().position(|&c| c == 0) {
            Some(i) => Ok(&t[..i]),
            None => Err(MemFault { kind: CheckKind::OutOfBounds, addr: s }),
        }
    }

    fn strlen(&mut self, s: u64) -> Result<u64, Stop> {
        self.read_string(s, u64::MAX)?;
        Ok(self.bytes.len() as u64 - 1)
    }

    fn strncmp(&mut self, a: u64, b: u64, n: u64) -> Result<u64, Stop> {
        if n == 0 {
            return Ok(0);
        }
        // Byte by byte, so exactly the bytes compared are checked (a's
        // before b's).
        let mut i = 0u64;
        loop {
            if i == n {
                return Ok(0);
            }
            let ca = self.mem.load(a.wrapping_add(i), 1)?;
            let cb = self.mem.load(b.wrapping_add(i), 1)?;
            if ca != cb || ca == 0 {
                return Ok((ca as i32 - cb as i32) as u32 as u64);
            }
            i += 1;
        }
    }

    fn strcpy(&mut self, d: u64, s: u64) -> Result<u64, Stop> {
        self.read_string(s, u64::MAX)?;
        let n = self.bytes.len() as u64;
        self.mem.copy(d, s, n)?;
        Ok(d)
    }

    fn strncpy(&mut self, d: u64, s: u64, n: u64) -> Result<u64, Stop> {
        if n == 0 {
            return Ok(d);
        }
        self.read_string(s, n)?;
        let src = std::mem::take(&mut self.bytes);
        let r = self.mem.bytes_mut(d, n).map(|dst| {
            dst[..src.len()].copy_from_slice(&src);
            dst[src.len()..].fill(0);
        });
        self.bytes = src;
        r?;
        Ok(d)
    }

    fn strchr(&mut self, s: u64, c: u8) -> Result<u64, Stop> {
        let t = self.mem.tail(s)?;
        for (i, &ch) in t.iter().enumerate() {
            if ch == c {
                return Ok(s.wrapping_add(i as u64));
            }
            if ch == 0 {
                return Ok(0);
            }
        }
        let addr = s.wrapping_add(t.len() as u64);
        Err(Stop::Error(self.mem.classify(addr)).fault_or_oob())
    }
}

/// How many arguments a builtin reads.
fn arity(b: Builtin) -> usize {
    match b {
        Builtin::Malloc | Builtin::Free | Builtin::Strlen => 1,
        Builtin::Calloc | Builtin::Realloc | Builtin::Strcmp | Builtin::Strcpy | Builtin::Strchr => 2,
        Builtin::Memset
        | Builtin::Memcpy
        | Builtin::Memmove
        | Builtin::Memcmp
        | Builtin::Strncmp
        | Builtin::Strncpy => 3,
        Builtin::Print
        | Builtin::NoOp
        | Builtin::Annotation
        | Builtin::Prune
        | Builtin::TryFirst
        | Builtin::Exit
        | Builtin::Abort
        | Builtin::Fabs
        | Builtin::Sqrt => 0,
        // Modelled in `crate::libc`, which says how many.
        _ => crate::libc::arity(b).unwrap_or(0),
    }
}

/// Why a model stops the run.
enum Stop {
    Error(CheckKind),
}

impl Stop {
    /// A scan that ran off an object reads the byte after it, which is at
    /// worst out of bounds (never "null" for a valid start address).
    fn fault_or_oob(self) -> Stop {
        match self {
            Stop::Error(CheckKind::NullDeref) => Stop::Error(CheckKind::OutOfBounds),
            s => s,
        }
    }
}

impl From<MemFault> for Stop {
    fn from(f: MemFault) -> Stop {
        Stop::Error(f.kind)
    }
}
