//! Value types and the data model that fixes the width of pointers.

use std::fmt;

/// The type of an SSA value. Aggregates exist only in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A boolean, the result of comparisons.
    I1,
    /// An 8-bit integer.
    I8,
    /// A 16-bit integer.
    I16,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// A pointer; its width is the data model's.
    Ptr,
    /// An IEEE single.
    F32,
    /// An IEEE double.
    F64,
}

impl Type {
    /// The C type name of an input of this type (`signed` for integers),
    /// as test-suite annotations spell it.
    pub fn c_name(self, signed: bool, dm: DataModel) -> &'static str {
        use Type::*;
        match (self, signed) {
            (I1, _) => "_Bool",
            (I8, true) => "char",
            (I8, false) => "unsigned char",
            (I16, true) => "short",
            (I16, false) => "unsigned short",
            (I32, true) => "int",
            (I32, false) => "unsigned int",
            (I64, true) => "long long",
            (I64, false) => "unsigned long long",
            (Ptr, _) if dm.pointer_bits() == 64 => "unsigned long",
            (Ptr, _) => "unsigned int",
            (F32, _) => "float",
            (F64, _) => "double",
        }
    }

    /// All types, in the order the textual IR lists them.
    pub const ALL: [Type; 8] = [Type::I1, Type::I8, Type::I16, Type::I32, Type::I64, Type::Ptr, Type::F32, Type::F64];

    /// The integer type of `bits` bits, if there is one.
    pub fn int(bits: u32) -> Option<Type> {
        Some(match bits {
            1 => Type::I1,
            8 => Type::I8,
            16 => Type::I16,
            32 => Type::I32,
            64 => Type::I64,
            _ => return None,
        })
    }

    /// Width in bits under data model `dm`.
    #[inline]
    pub fn bits(self, dm: DataModel) -> u32 {
        match self {
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 => 64,
            Type::Ptr => dm.pointer_bits(),
        }
    }

    /// Size in bytes of the type stored in memory (`i1` takes one byte).
    #[inline]
    pub fn store_size(self, dm: DataModel) -> u64 {
        u64::from(self.bits(dm).div_ceil(8))
    }

    /// Whether this is an integer type (`i1` to `i64`).
    pub fn is_int(self) -> bool {
        matches!(self, Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64)
    }

    /// Whether this is `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// Whether values of this type are integers or pointers (bit vectors).
    pub fn is_int_or_ptr(self) -> bool {
        self.is_int() || self == Type::Ptr
    }

    /// The textual spelling.
    pub fn name(self) -> &'static str {
        match self {
            Type::I1 => "i1",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::Ptr => "ptr",
            Type::F32 => "f32",
            Type::F64 => "f64",
        }
    }

    /// The type spelled `s`.
    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The C data model: the widths of `long` and of pointers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DataModel {
    /// 64-bit `long` and pointers (x86-64 Linux); the default.
    #[default]
    LP64,
    /// 32-bit `int`, `long` and pointers (`-m32`).
    ILP32,
}

impl DataModel {
    /// Pointer width in bits.
    #[inline]
    pub fn pointer_bits(self) -> u32 {
        match self {
            DataModel::LP64 => 64,
            DataModel::ILP32 => 32,
        }
    }

    /// Pointer width in bytes.
    #[inline]
    pub fn pointer_bytes(self) -> u64 {
        u64::from(self.pointer_bits() / 8)
    }

    /// The integer type as wide as a pointer.
    pub fn pointer_int(self) -> Type {
        match self {
            DataModel::LP64 => Type::I64,
            DataModel::ILP32 => Type::I32,
        }
    }

    /// The textual spelling.
    pub fn name(self) -> &'static str {
        match self {
            DataModel::LP64 => "LP64",
            DataModel::ILP32 => "ILP32",
        }
    }

    /// The data model spelled `s` (case-insensitive).
    pub fn from_name(s: &str) -> Option<DataModel> {
        match s.to_ascii_uppercase().as_str() {
            "LP64" => Some(DataModel::LP64),
            "ILP32" => Some(DataModel::ILP32),
            _ => None,
        }
    }
}

impl fmt::Display for DataModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
