//! Typed integer ids and the arenas they index.
//!
//! Every IR entity (function, block, value, instruction, global) is a `u32`
//! newtype. Arenas ([`PrimaryMap`]) hand out ids; analyses keep their results
//! in [`SecondaryMap`]s keyed by the same ids instead of in fields on IR
//! nodes, so the IR stays a plain data structure that any engine can share.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A dense `u32` id that indexes an arena.
pub trait EntityRef: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    /// The id with this index.
    fn new(index: usize) -> Self;
    /// The index of this id.
    fn index(self) -> usize;
}

/// Declares an id type whose `Display` is `prefix` followed by the index,
/// which is also its spelling in the textual IR.
#[macro_export]
macro_rules! entity_id {
    ($(#[$attr:meta])* $name:ident, $prefix:expr) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $crate::entity::EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize);
                $name(index as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl $name {
            /// The textual prefix of this id kind.
            pub const PREFIX: &'static str = $prefix;
            /// The raw index.
            #[inline]
            pub fn as_u32(self) -> u32 {
                self.0
            }
            /// The id with the raw index `index`.
            #[inline]
            pub const fn from_u32(index: u32) -> Self {
                $name(index)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    };
}

/// An arena that owns its entries and allocates their ids.
///
/// It is indexed only by its own key type, never by `usize`, so ids of
/// different kinds cannot be mixed up.
#[derive(Clone, PartialEq)]
pub struct PrimaryMap<K: EntityRef, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        PrimaryMap { items: Vec::new(), _key: PhantomData }
    }
    /// Adds an entry and returns its id.
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.items.len());
        self.items.push(v);
        k
    }
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// Whether `k` names an entry of this arena.
    pub fn is_valid(&self, k: K) -> bool {
        k.index() < self.items.len()
    }
    /// The entry `k`, if it exists.
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index())
    }
    /// All ids in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        (0..self.items.len()).map(K::new)
    }
    /// All entries in id order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }
    /// All `(id, entry)` pairs in id order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// All `(id, entry)` pairs in id order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.items.iter_mut().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// The id the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.items.len())
    }
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> Index<K> for PrimaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for PrimaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

impl<K: EntityRef, V: fmt::Debug> fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Side data keyed by the ids of some [`PrimaryMap`]; reading a key that was
/// never written yields the default value.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    items: Vec<V>,
    default: V,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V: Clone + Default> SecondaryMap<K, V> {
    /// An empty table whose default is `V::default()`.
    pub fn new() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityRef, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty table with an explicit default.
    pub fn with_default(default: V) -> Self {
        SecondaryMap { items: Vec::new(), default, _key: PhantomData }
    }
    /// The entry for `k`, or the default.
    #[inline]
    pub fn get(&self, k: K) -> &V {
        self.items.get(k.index()).unwrap_or(&self.default)
    }
    /// Sets the entry for `k`.
    pub fn set(&mut self, k: K, v: V) {
        *self.entry(k) = v;
    }
    /// A mutable reference to the entry for `k`, growing the table.
    pub fn entry(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.items.len() {
            self.items.resize(i + 1, self.default.clone());
        }
        &mut self.items[i]
    }
    /// Entries written so far (and defaults in between), in id order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
}

impl<K: EntityRef, V: Clone> Index<K> for SecondaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        self.get(k)
    }
}

impl<K: EntityRef, V: Clone> IndexMut<K> for SecondaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        self.entry(k)
    }
}
