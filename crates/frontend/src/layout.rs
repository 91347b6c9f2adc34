//! Sizes, alignments and field offsets of LLVM types under a data model
//! (x86-64 for LP64, i386 System V for ILP32).

use llvm_ir::types::{FPType, NamedStructDef, Type as LType, Types};
use walkdown_ir::{DataModel, Type};

/// Type layout for one module.
pub struct Layout<'m> {
    pub dm: DataModel,
    pub types: &'m Types,
}

/// A type with no layout, described for the error message.
pub type LayoutError = String;

impl<'m> Layout<'m> {
    /// The IR type of an LLVM first-class scalar type.
    pub fn scalar(&self, ty: &LType) -> Result<Type, LayoutError> {
        match ty {
            LType::IntegerType { bits } if *bits > MAX_WIDE_BITS => Err(format!(
                "{bits}-bit integers (wider than {MAX_WIDE_BITS} bits: a run of bit-fields longer than {MAX_WIDE_BITS} bits in a packed struct)"
            )),
            LType::IntegerType { bits } => container(*bits).ok_or_else(|| {
                format!("{bits}-bit integers in this use (integers of 65 to {MAX_WIDE_BITS} bits are lowered in arithmetic, comparisons, casts, selects, phis, loads and stores only)")
            }),
            LType::PointerType { .. } => Ok(Type::Ptr),
            LType::FPType(FPType::Single) => Ok(Type::F32),
            LType::FPType(FPType::Double) => Ok(Type::F64),
            LType::FPType(FPType::X86_FP80) => Err("long double in this use (long double values are lowered in arithmetic, comparisons, conversions, loads, stores, phis, selects, and parameters and results of functions the program defines; not inside aggregate values or as arguments of functions walkdown has no model of)".into()),
            LType::FPType(other) => Err(format!("floating-point type {other:?}")),
            other => Err(format!("values of type {other}")),
        }
    }

    /// The allocation size in bytes (including tail padding).
    pub fn size_of(&self, ty: &LType) -> Result<u64, LayoutError> {
        Ok(match ty {
            // LLVM's allocation size: the store size rounded up to the
            // alignment (`i96` takes 12 bytes in ILP32, 16 in LP64).
            LType::IntegerType { bits } if *bits > 64 => round_up(u64::from(bits.div_ceil(8)), self.align_of(ty)?),
            LType::IntegerType { bits } => {
                let store = u64::from(bits.div_ceil(8)).next_power_of_two();
                round_up(store, self.align_of(ty)?)
            }
            LType::PointerType { .. } => self.dm.pointer_bytes(),
            LType::FPType(FPType::Single) => 4,
            LType::FPType(FPType::Double) => 8,
            LType::FPType(FPType::X86_FP80) => match self.dm {
                DataModel::LP64 => 16,
                DataModel::ILP32 => 12,
            },
            LType::ArrayType { element_type, num_elements } | LType::VectorType { element_type, num_elements, .. } => {
                self.size_of(element_type)? * *num_elements as u64
            }
            LType::StructType { element_types, is_packed } => {
                let (size, _) = self.struct_layout(element_types, *is_packed)?;
                size
            }
            LType::NamedStructType { name } => return self.size_of(self.named(name)?.as_ref()),
            other => return Err(format!("the size of type {other}")),
        })
    }

    /// The ABI alignment in bytes.
    pub fn align_of(&self, ty: &LType) -> Result<u64, LayoutError> {
        Ok(match ty {
            // Integers wider than 64 bits take the alignment of the widest
            // integer clang-14's data layouts name (`i64`: 8 bytes on
            // x86-64, 4 on i386), as LLVM 14 does for widths a layout
            // does not list; clang pads C types (`__int128` aligned to 16)
            // explicitly around them.
            LType::IntegerType { bits } if *bits > 64 => match self.dm {
                DataModel::ILP32 => 4,
                DataModel::LP64 => 8,
            },
            LType::IntegerType { bits } => {
                let natural = u64::from(bits.div_ceil(8)).next_power_of_two();
                match self.dm {
                    // i386 System V aligns 8-byte scalars to 4 bytes.
                    DataModel::ILP32 => natural.min(4),
                    DataModel::LP64 => natural.min(16),
                }
            }
            LType::PointerType { .. } => self.dm.pointer_bytes(),
            LType::FPType(FPType::Single) => 4,
            LType::FPType(FPType::Double) => match self.dm {
                DataModel::ILP32 => 4,
                DataModel::LP64 => 8,
            },
            LType::FPType(FPType::X86_FP80) => match self.dm {
                DataModel::LP64 => 16,
                DataModel::ILP32 => 4,
            },
            LType::ArrayType { element_type, .. } | LType::VectorType { element_type, .. } => {
                self.align_of(element_type)?
            }
            LType::StructType { element_types, is_packed } => {
                if *is_packed {
                    1
                } else {
                    let mut a = 1;
                    for t in element_types {
                        a = a.max(self.align_of(t)?);
                    }
                    a
                }
            }
            LType::NamedStructType { name } => return self.align_of(self.named(name)?.as_ref()),
            other => return Err(format!("the alignment of type {other}")),
        })
    }

    /// Size and field offsets of a struct.
    pub fn struct_layout(&self, fields: &[llvm_ir::TypeRef], packed: bool) -> Result<(u64, Vec<u64>), LayoutError> {
        let mut offset = 0;
        let mut align = 1;
        let mut offsets = Vec::with_capacity(fields.len());
        for f in fields {
            let a = if packed { 1 } else { self.align_of(f)? };
            align = align.max(a);
            offset = round_up(offset, a);
            offsets.push(offset);
            offset += self.size_of(f)?;
        }
        Ok((round_up(offset, align), offsets))
    }

    /// The byte offset of field `index` of a struct type.
    pub fn field_offset(&self, ty: &LType, index: u64) -> Result<(u64, llvm_ir::TypeRef), LayoutError> {
        match ty {
            LType::StructType { element_types, is_packed } => {
                let (_, offsets) = self.struct_layout(element_types, *is_packed)?;
                let i = index as usize;
                match (offsets.get(i), element_types.get(i)) {
                    (Some(o), Some(t)) => Ok((*o, t.clone())),
                    _ => Err(format!("field {index} of {ty}")),
                }
            }
            LType::NamedStructType { name } => self.field_offset(self.named(name)?.as_ref(), index),
            other => Err(format!("a field of non-struct type {other}")),
        }
    }

    /// The definition of a named struct.
    pub fn named(&self, name: &str) -> Result<llvm_ir::TypeRef, LayoutError> {
        match self.types.named_struct_def(name) {
            Some(NamedStructDef::Defined(t)) => Ok(t.clone()),
            _ => Err(format!("opaque struct %{name}")),
        }
    }

    /// Resolves a named struct to its definition; other types unchanged.
    pub fn resolve(&self, ty: &llvm_ir::TypeRef) -> Result<llvm_ir::TypeRef, LayoutError> {
        match ty.as_ref() {
            LType::NamedStructType { name } => self.named(name),
            _ => Ok(ty.clone()),
        }
    }
}

/// The IR type that holds an LLVM `iN`: `iN` itself for the IR's widths;
/// for other widths up to 64 (clang's coerced struct parameters such as
/// `i48`, bit-field storage units such as `i24`) the next wider IR integer,
/// in which the value is kept zero-extended (the lowering masks and
/// sign-extends where the operation needs it; see `func.rs`).
pub fn container(bits: u32) -> Option<Type> {
    match bits {
        0 => None,
        1 => Some(Type::I1),
        2..=8 => Some(Type::I8),
        9..=16 => Some(Type::I16),
        17..=32 => Some(Type::I32),
        33..=64 => Some(Type::I64),
        _ => None,
    }
}

/// The width of an LLVM integer type that is not one of the IR's own
/// widths (1, 8, 16, 32, 64), if `ty` is one.
pub fn odd_int_bits(ty: &LType) -> Option<u32> {
    match ty {
        LType::IntegerType { bits } if !matches!(bits, 1 | 8 | 16 | 32 | 64) && *bits < 64 => Some(*bits),
        _ => None,
    }
}

/// The widest integer the lowering splits into 64-bit limbs (clang's
/// longest runs of packed bit-fields in Csmith programs are 152 bits).
pub const MAX_WIDE_BITS: u32 = 256;

/// The width of an LLVM integer type wider than 64 bits and at most
/// [`MAX_WIDE_BITS`] (`__int128`, a long run of packed bit-fields), which
/// the lowering keeps as `i64` limbs (see `func/wide.rs`).
pub fn wide_bits(ty: &LType) -> Option<u32> {
    match ty {
        LType::IntegerType { bits } if (65..=MAX_WIDE_BITS).contains(bits) => Some(*bits),
        _ => None,
    }
}

/// Whether `ty` is `long double` (x86 80-bit extended precision).
pub fn is_f80(ty: &LType) -> bool {
    matches!(ty, LType::FPType(FPType::X86_FP80))
}

/// The width of a value the lowering keeps as 64-bit limbs: an integer
/// wider than 64 bits, or a `long double` (80 bits: the significand, then
/// the sign and exponent; see `func/f80.rs`).
pub fn limb_bits(ty: &LType) -> Option<u32> {
    if is_f80(ty) {
        Some(80)
    } else {
        wide_bits(ty)
    }
}

fn round_up(v: u64, align: u64) -> u64 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align) * align
    }
}
