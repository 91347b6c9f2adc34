//! The concrete memory: one flat, byte-addressed space of objects.
//!
//! Like KLEE's, pointers are plain integers, so `ptrtoint`/`inttoptr` and
//! pointers stored in memory need no special handling. Every object (global,
//! function, stack slot, heap block) gets a base address from a bump
//! allocator that starts at [`first_address`] and leaves a guard gap of at
//! least [`GUARD`] bytes after each object; bases are aligned to at least
//! 16 bytes. The start is shaped like a native process of the data model:
//! under LP64 above 4 GiB, where an x86-64 position-independent
//! executable's data and glibc's heap lie, so a pointer cut to 32 bits
//! (through an `unsigned int`) and widened again points at no object and
//! faults, as natively; under ILP32 low, so every address fits in 32 bits. Addresses are never reused, so a stale pointer still finds the
//! object it pointed to and the fault is classified as a use after free.
//!
//! Objects are kept in a vector sorted by base (allocation is monotonic);
//! an address is resolved by checking the last object hit, then by binary
//! search. An access of `n` bytes that is not entirely inside one live object
//! with the needed permission faults with:
//! - [`CheckKind::NullDeref`] when the address is below [`NULL_LIMIT`];
//! - [`CheckKind::UseAfterFree`] when it falls inside a freed object;
//! - [`CheckKind::OutOfBounds`] otherwise (past the end, before the start,
//!   between objects, into a function, or a write to a constant global).
//!
//! Objects of [`LAZY_MIN`] bytes or more (a program's 1 GiB static array)
//! are allocated as zero pages the host maps on first touch, and remember
//! which 4 KiB pages the run wrote: creating one costs nothing, and copying
//! the prepared memory at the start of every run copies the written pages
//! only, so a run that touches little of a huge object is fast. Bounds are
//! those of the whole object, as for any other.
//!
//! Freed objects keep their address range but drop their bytes (the buffers
//! are recycled for later allocations). When the most recent objects are
//! freed (stack slots at every return, a `malloc`/`free` pair in a loop),
//! adjacent freed ranges at the end of the table are merged, so long runs do
//! not accumulate records; an address in a gap between merged objects then
//! counts as inside a freed object.

use walkdown_ir::{CheckKind, DataModel, FuncId, GlobalId};

/// Addresses below this are "null" (a fault there is a null dereference).
pub const NULL_LIMIT: u64 = 0x1000;
/// The base address of the first object under ILP32.
pub const FIRST_ADDRESS_ILP32: u64 = 0x10000;
/// The base address of the first object under LP64: where the data of an
/// x86-64 position-independent executable is mapped (glibc's heap follows
/// it), above 4 GiB.
pub const FIRST_ADDRESS_LP64: u64 = 0x5555_5555_0000;

/// The base address of the first object under `dm` (see the module doc).
pub fn first_address(dm: DataModel) -> u64 {
    match dm {
        DataModel::ILP32 => FIRST_ADDRESS_ILP32,
        DataModel::LP64 => FIRST_ADDRESS_LP64,
    }
}
/// The minimum gap between two objects.
pub const GUARD: u64 = 16;
/// The minimum alignment of every base address.
pub const MIN_ALIGN: u64 = 16;

const READ: u8 = 1;
const WRITE: u8 = 2;
const RECYCLE_MAX_BUFFERS: usize = 64;
const RECYCLE_MAX_BYTES: usize = 1 << 20;
/// Objects at least this large are allocated lazily (see the module doc).
pub const LAZY_MIN: u64 = 1 << 20;
/// The granularity of the written-page record of lazy objects.
const PAGE: usize = 4096;

/// What an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// A global variable.
    Global(GlobalId),
    /// A function (not accessible; its address is what function pointers
    /// hold).
    Func(FuncId),
    /// A stack slot (`alloca`), freed when its function returns.
    Stack,
    /// A heap block from `malloc`, `calloc` or `realloc`.
    Heap,
    /// Data the interpreter made up (`argv` of `main`).
    Runtime,
}

/// One object of the address space.
#[derive(Debug)]
pub struct Object {
    /// Its first address.
    pub base: u64,
    /// Its size in bytes (for merged freed records: the span they cover).
    pub size: u64,
    /// What it is.
    pub kind: ObjectKind,
    /// Whether it has not been freed.
    pub live: bool,
    perm: u8,
    data: Vec<u8>,
    /// For lazy objects: one bit per page that may hold a nonzero byte.
    dirty: Option<Vec<u64>>,
}

impl Clone for Object {
    /// A lazy object's copy starts as fresh zero pages and copies only the
    /// pages written so far; other objects copy their bytes.
    fn clone(&self) -> Self {
        let data = match &self.dirty {
            None => self.data.clone(),
            Some(bits) => match zeroed(self.data.len()) {
                Ok(mut d) => {
                    for (w, &word) in bits.iter().enumerate() {
                        let mut b = word;
                        while b != 0 {
                            let page = w * 64 + b.trailing_zeros() as usize;
                            b &= b - 1;
                            let start = page * PAGE;
                            let end = (start + PAGE).min(d.len());
                            d[start..end].copy_from_slice(&self.data[start..end]);
                        }
                    }
                    d
                }
                // The host refused fresh zero pages: copy the bytes (what
                // a clone did before lazy objects).
                Err(_) => self.data.clone(),
            },
        };
        Object {
            base: self.base,
            size: self.size,
            kind: self.kind,
            live: self.live,
            perm: self.perm,
            data,
            dirty: self.dirty.clone(),
        }
    }
}

impl Object {
    /// Records that bytes `[off, off + len)` may have been written.
    #[inline(always)]
    fn touch(&mut self, off: usize, len: usize) {
        if let Some(bits) = &mut self.dirty {
            if len == 0 {
                return;
            }
            for page in off / PAGE..=(off + len - 1) / PAGE {
                if let Some(w) = bits.get_mut(page / 64) {
                    *w |= 1 << (page % 64);
                }
            }
        }
    }

    /// Its bytes (empty once freed).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
    /// Whether the program may write it.
    pub fn writable(&self) -> bool {
        self.perm & WRITE != 0
    }
}

/// A faulting access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFault {
    /// The error class.
    pub kind: CheckKind,
    /// The first address of the access.
    pub addr: u64,
}

/// Why an allocation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The live heap and stack bytes would exceed the memory limit.
    OutOfMemory,
    /// No addresses are left (the 32-bit space of ILP32 is used up).
    AddressSpace,
}

/// The address space of one run.
#[derive(Clone, Debug)]
pub struct Memory {
    objects: Vec<Object>,
    next: u64,
    limit: u64,
    last: usize,
    live_bytes: u64,
    max_live_bytes: u64,
    recycled: Vec<Vec<u8>>,
    fresh_fill: u64,
}

impl Memory {
    /// An empty address space for data model `dm`.
    pub fn new(dm: DataModel) -> Memory {
        let limit = match dm {
            DataModel::ILP32 => 1u64 << 32,
            DataModel::LP64 => 1u64 << 47,
        };
        Memory {
            objects: Vec::new(),
            next: first_address(dm),
            limit,
            last: 0,
            live_bytes: 0,
            max_live_bytes: u64::MAX,
            recycled: Vec::new(),
            fresh_fill: 0,
        }
    }

    /// What new stack and heap objects hold: zeros for `seed` 0 (the
    /// default), otherwise bytes derived from `seed` and their addresses.
    /// C leaves these contents indeterminate, so a run whose result depends
    /// on the fill reads uninitialized memory.
    pub fn set_fresh_fill(&mut self, seed: u64) {
        self.fresh_fill = seed;
    }

    /// See [`Memory::set_fresh_fill`].
    pub fn fresh_fill(&self) -> u64 {
        self.fresh_fill
    }

    /// Limits the bytes of live stack and heap objects.
    pub fn set_max_live_bytes(&mut self, n: u64) {
        self.max_live_bytes = n;
    }

    /// The objects, in address order.
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// Number of object records (freed ones included).
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }

    /// A new zeroed object of `size` bytes; returns its index and base.
    /// Globals and runtime data are writable unless `read_only`; functions
    /// are not accessible.
    pub fn alloc(
        &mut self,
        size: u64,
        align: u64,
        kind: ObjectKind,
        read_only: bool,
    ) -> Result<(usize, u64), AllocError> {
        let counted = matches!(kind, ObjectKind::Stack | ObjectKind::Heap);
        if counted && self.live_bytes.saturating_add(size) > self.max_live_bytes {
            return Err(AllocError::OutOfMemory);
        }
        let align = align.max(MIN_ALIGN).checked_next_power_of_two().ok_or(AllocError::AddressSpace)?;
        let base = self.next.checked_add(align - 1).ok_or(AllocError::AddressSpace)? & !(align - 1);
        let end = base.checked_add(size).and_then(|e| e.checked_add(GUARD)).ok_or(AllocError::AddressSpace)?;
        if end > self.limit || size > isize::MAX as u64 {
            return Err(AllocError::AddressSpace);
        }
        let len = usize::try_from(size).map_err(|_| AllocError::AddressSpace)?;
        let lazy = size >= LAZY_MIN && !matches!(kind, ObjectKind::Func(_));
        let data = if matches!(kind, ObjectKind::Func(_)) {
            Vec::new()
        } else if lazy {
            let mut v = zeroed(len)?;
            if counted && self.fresh_fill != 0 {
                fill_pattern(&mut v, self.fresh_fill, base);
            }
            v
        } else {
            let mut v = self.recycled.pop().unwrap_or_default();
            v.clear();
            // The host may refuse a huge block: that is the program's
            // allocation failing, not the interpreter's.
            v.try_reserve_exact(len).map_err(|_| AllocError::OutOfMemory)?;
            v.resize(len, 0);
            if counted && self.fresh_fill != 0 {
                fill_pattern(&mut v, self.fresh_fill, base);
            }
            v
        };
        let perm = match kind {
            ObjectKind::Func(_) => 0,
            _ if read_only => READ,
            _ => READ | WRITE,
        };
        self.next = end;
        if counted {
            self.live_bytes += size;
        }
        let mut dirty = lazy.then(|| vec![0u64; len.div_ceil(PAGE).div_ceil(64)]);
        if let (Some(bits), true) = (&mut dirty, counted && self.fresh_fill != 0) {
            bits.fill(u64::MAX);
        }
        self.objects.push(Object { base, size, kind, live: true, perm, data, dirty });
        Ok((self.objects.len() - 1, base))
    }

    /// Frees the object at index `idx` (a stack slot at its function's
    /// return, or a heap block). Freeing twice is harmless here; `free` of
    /// the program goes through [`Memory::free_heap`].
    pub fn release(&mut self, idx: usize) {
        let Some(o) = self.objects.get_mut(idx) else {
            return;
        };
        if !o.live {
            return;
        }
        o.live = false;
        o.perm = 0;
        o.dirty = None;
        if matches!(o.kind, ObjectKind::Stack | ObjectKind::Heap) {
            self.live_bytes = self.live_bytes.saturating_sub(o.size);
        }
        let data = std::mem::take(&mut o.data);
        if self.recycled.len() < RECYCLE_MAX_BUFFERS && data.capacity() <= RECYCLE_MAX_BYTES {
            self.recycled.push(data);
        }
        self.merge_tail();
    }

    /// Merges trailing freed records into one.
    fn merge_tail(&mut self) {
        while self.objects.len() >= 2 {
            let n = self.objects.len();
            let (a, b) = (&self.objects[n - 2], &self.objects[n - 1]);
            if a.live || b.live {
                break;
            }
            let end = b.base + b.size;
            self.objects[n - 2].size = end - self.objects[n - 2].base;
            self.objects.pop();
        }
        if self.last >= self.objects.len() {
            self.last = 0;
        }
    }

    /// The index of the object whose range `[base, base + size)` holds
    /// `addr` (or whose base is `addr`, for empty objects).
    pub fn find(&self, addr: u64) -> Option<usize> {
        let i = self.objects.partition_point(|o| o.base <= addr).checked_sub(1)?;
        let o = &self.objects[i];
        (addr - o.base < o.size || addr == o.base).then_some(i)
    }

    /// The object at index `idx`.
    pub fn object(&self, idx: usize) -> Option<&Object> {
        self.objects.get(idx)
    }

    /// Classifies a faulting access at `addr`.
    pub fn classify(&self, addr: u64) -> CheckKind {
        if addr < NULL_LIMIT {
            return CheckKind::NullDeref;
        }
        match self.find(addr) {
            Some(i) if !self.objects[i].live => CheckKind::UseAfterFree,
            _ => CheckKind::OutOfBounds,
        }
    }

    /// Resolves an access of `n >= 1` bytes at `addr` needing `perm` to
    /// (object index, offset).
    #[inline(always)]
    fn resolve(&mut self, addr: u64, n: u64, perm: u8) -> Result<(usize, usize), MemFault> {
        if let Some(o) = self.objects.get(self.last) {
            let off = addr.wrapping_sub(o.base);
            if off < o.size && n <= o.size - off && o.perm & perm != 0 {
                return Ok((self.last, off as usize));
            }
        }
        self.resolve_slow(addr, n, perm)
    }

    #[inline(never)]
    fn resolve_slow(&mut self, addr: u64, n: u64, perm: u8) -> Result<(usize, usize), MemFault> {
        if let Some(i) = self.find(addr) {
            let o = &self.objects[i];
            let off = addr - o.base;
            if off < o.size && n <= o.size - off && o.perm & perm != 0 {
                self.last = i;
                return Ok((i, off as usize));
            }
        }
        Err(MemFault { kind: self.classify(addr), addr })
    }

    /// Reads an `n`-byte (1 to 8) little-endian integer.
    #[inline(always)]
    pub fn load(&mut self, addr: u64, n: u64) -> Result<u64, MemFault> {
        let (i, off) = self.resolve(addr, n, READ)?;
        let d = &self.objects[i].data;
        let v = match n {
            8 => d.get(off..off + 8).map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8]))),
            4 => d.get(off..off + 4).map(|s| u64::from(u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))),
            2 => d.get(off..off + 2).map(|s| u64::from(u16::from_le_bytes(s.try_into().unwrap_or([0; 2])))),
            1 => d.get(off).map(|&b| u64::from(b)),
            _ => {
                let n = (n as usize).min(8);
                d.get(off..off + n).map(|src| {
                    let mut buf = [0u8; 8];
                    buf[..n].copy_from_slice(src);
                    u64::from_le_bytes(buf)
                })
            }
        };
        v.ok_or(MemFault { kind: CheckKind::OutOfBounds, addr })
    }

    /// Writes the low `n` bytes (1 to 8) of `v`, little-endian.
    #[inline(always)]
    pub fn store(&mut self, addr: u64, n: u64, v: u64) -> Result<(), MemFault> {
        let (i, off) = self.resolve(addr, n, WRITE)?;
        self.objects[i].touch(off, n as usize);
        let d = &mut self.objects[i].data;
        let ok = match n {
            8 => d.get_mut(off..off + 8).map(|s| s.copy_from_slice(&v.to_le_bytes())),
            4 => d.get_mut(off..off + 4).map(|s| s.copy_from_slice(&(v as u32).to_le_bytes())),
            2 => d.get_mut(off..off + 2).map(|s| s.copy_from_slice(&(v as u16).to_le_bytes())),
            1 => d.get_mut(off).map(|b| *b = v as u8),
            _ => {
                let n = (n as usize).min(8);
                d.get_mut(off..off + n).map(|s| s.copy_from_slice(&v.to_le_bytes()[..n]))
            }
        };
        ok.ok_or(MemFault { kind: CheckKind::OutOfBounds, addr })
    }

    /// The `len` bytes at `addr`, all inside one readable object (`len == 0`
    /// yields an empty slice without any check).
    pub fn bytes(&mut self, addr: u64, len: u64) -> Result<&[u8], MemFault> {
        if len == 0 {
            return Ok(&[]);
        }
        let (i, off) = self.resolve(addr, len, READ)?;
        let len = len as usize;
        self.objects[i].data.get(off..off + len).ok_or(MemFault { kind: CheckKind::OutOfBounds, addr })
    }

    /// The `len` bytes at `addr`, writable.
    pub fn bytes_mut(&mut self, addr: u64, len: u64) -> Result<&mut [u8], MemFault> {
        if len == 0 {
            return Ok(&mut []);
        }
        let (i, off) = self.resolve(addr, len, WRITE)?;
        let len = len as usize;
        self.objects[i].touch(off, len);
        self.objects[i].data.get_mut(off..off + len).ok_or(MemFault { kind: CheckKind::OutOfBounds, addr })
    }

    /// The readable bytes from `addr` to the end of its object: what a
    /// string function may scan. Faults if `addr` itself is not readable.
    pub fn tail(&mut self, addr: u64) -> Result<&[u8], MemFault> {
        let (i, off) = self.resolve(addr, 1, READ)?;
        Ok(&self.objects[i].data[off..])
    }

    /// Copies `len` bytes from `src` to `dst` (the ranges may overlap).
    pub fn copy(&mut self, dst: u64, src: u64, len: u64) -> Result<(), MemFault> {
        if len == 0 {
            return Ok(());
        }
        let (si, soff) = self.resolve(src, len, READ)?;
        let (di, doff) = self.resolve(dst, len, WRITE)?;
        let len = len as usize;
        self.objects[di].touch(doff, len);
        if si == di {
            self.objects[di].data.copy_within(soff..soff + len, doff);
        } else {
            let (a, b) = if si < di {
                let (l, r) = self.objects.split_at_mut(di);
                (&l[si].data, &mut r[0].data)
            } else {
                let (l, r) = self.objects.split_at_mut(si);
                (&r[0].data, &mut l[di].data)
            };
            b[doff..doff + len].copy_from_slice(&a[soff..soff + len]);
        }
        Ok(())
    }

    /// Writes `bytes` at `addr` (for initial contents; checks like a store).
    pub fn write_bytes(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemFault> {
        self.bytes_mut(addr, bytes.len() as u64)?.copy_from_slice(bytes);
        Ok(())
    }

    /// Writes initial contents into object `idx` regardless of permissions.
    pub(crate) fn init_object(&mut self, idx: usize, offset: usize, bytes: &[u8]) -> bool {
        if let Some(o) = self.objects.get_mut(idx) {
            o.touch(offset, bytes.len());
        }
        match self.objects.get_mut(idx).and_then(|o| o.data.get_mut(offset..offset + bytes.len())) {
            Some(d) => {
                d.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    /// `free(addr)`: NULL is a no-op; a live heap block's base frees it;
    /// a freed block (at its base or inside) is a double free; anything else
    /// is an invalid free.
    pub fn free_heap(&mut self, addr: u64) -> Result<(), CheckKind> {
        if addr == 0 {
            return Ok(());
        }
        let idx = self.heap_block(addr)?;
        self.release(idx);
        Ok(())
    }

    /// The index of the live heap block whose base is `addr`, or the
    /// error `free(addr)` raises.
    pub fn heap_block(&self, addr: u64) -> Result<usize, CheckKind> {
        let Some(i) = self.find(addr) else {
            return Err(CheckKind::InvalidFree);
        };
        let o = &self.objects[i];
        match (o.kind, o.live) {
            (ObjectKind::Heap, true) if o.base == addr => Ok(i),
            (ObjectKind::Stack, false) if o.base == addr => Err(CheckKind::InvalidFree),
            (_, false) => Err(CheckKind::DoubleFree),
            _ => Err(CheckKind::InvalidFree),
        }
    }
}

/// `len` zero bytes the host maps on first touch (`calloc`'s large
/// allocations), or an error when it refuses them.
fn zeroed(len: usize) -> Result<Vec<u8>, AllocError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).map_err(|_| AllocError::AddressSpace)?;
    // SAFETY: `layout` has a nonzero size. A non-null result of
    // `alloc_zeroed` is `len` initialized (zero) bytes allocated by the
    // global allocator with the layout of `[u8; len]`, which is exactly
    // what `Vec::from_raw_parts(ptr, len, len)` requires of its arguments.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return Err(AllocError::OutOfMemory);
        }
        Ok(Vec::from_raw_parts(ptr, len, len))
    }
}

/// Bytes derived from `seed` and the address of each (SplitMix64 of both),
/// so that neighbouring uninitialized variables differ.
fn fill_pattern(bytes: &mut [u8], seed: u64, base: u64) {
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let mut z = seed ^ base.wrapping_add(8 * i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_classified() {
        let mut m = Memory::new(DataModel::LP64);
        let (_, a) = m.alloc(8, 8, ObjectKind::Heap, false).unwrap();
        let (ib, b) = m.alloc(4, 4, ObjectKind::Stack, false).unwrap();
        assert!(b >= a + 8 + GUARD);
        m.store(a, 8, 0x0102030405060708).unwrap();
        assert_eq!(m.load(a + 1, 2).unwrap(), 0x0607);
        assert_eq!(m.load(a + 4, 8).unwrap_err().kind, CheckKind::OutOfBounds);
        assert_eq!(m.load(a - 1, 1).unwrap_err().kind, CheckKind::OutOfBounds);
        assert_eq!(m.load(8, 1).unwrap_err().kind, CheckKind::NullDeref);
        m.release(ib);
        assert_eq!(m.load(b, 1).unwrap_err().kind, CheckKind::UseAfterFree);
        assert_eq!(m.free_heap(a + 1), Err(CheckKind::InvalidFree));
        assert_eq!(m.free_heap(a), Ok(()));
        assert_eq!(m.free_heap(a), Err(CheckKind::DoubleFree));
        assert_eq!(m.object_count(), 1);
    }
}
