//! Test vectors: the sequence of input values a run consumes, one per
//! `nondet` executed, independent of any file format.
//!
//! A value is kept untyped (`Int` or `Float`) the way Test-Comp writes it; the
//! consumer converts it to the type of the `nondet` that reads it, with C
//! cast semantics (integers wrap, floats truncate toward zero).

/// One input value as written in a test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputValue {
    /// An integer literal (decimal, hex, char, `true`/`false`), wide enough
    /// for every C integer type, signed or unsigned.
    Int(i128),
    /// A floating-point literal.
    Float(f64),
}

impl InputValue {
    /// The value a test records for the raw `bits` an input of type `ty`
    /// took (a float's bit pattern, or an integer's low bits, read as
    /// signed when `signed`): what engines write for a model's or a
    /// replay's inputs.
    pub fn from_bits(ty: crate::Type, signed: bool, bits: u64, dm: crate::DataModel) -> InputValue {
        match ty {
            crate::Type::F32 => InputValue::Float(f64::from(f32::from_bits(bits as u32))),
            crate::Type::F64 => InputValue::Float(f64::from_bits(bits)),
            _ => {
                let w = ty.bits(dm);
                let v = if w >= 64 { bits } else { bits & ((1u64 << w) - 1) };
                if signed && w < 128 && w > 0 && v >> (w - 1) & 1 == 1 {
                    InputValue::Int(i128::from(v) - (1i128 << w))
                } else {
                    InputValue::Int(i128::from(v))
                }
            }
        }
    }

    /// The value as the low `bits` bits (at most 64) of an integer, the way
    /// walkdown's native harness (and the reference harness of
    /// `shared/eval`) converts a value for an integer `nondet`: an integer
    /// wraps; a floating-point value is truncated toward zero to a 128-bit
    /// integer whose low bits are kept ([`float_to_wide`]). `signed` does
    /// not change the bits.
    pub fn to_int_bits(self, bits: u32, signed: bool) -> u64 {
        let _ = signed;
        let wide: u128 = match self {
            InputValue::Int(v) => v as u128,
            InputValue::Float(f) => float_to_wide(f),
        };
        truncate(wide as u64, bits)
    }

    /// The value as a `_Bool`: whether the (128-bit, see [`float_to_wide`])
    /// integer it converts to is non-zero.
    pub fn to_bool(self) -> bool {
        match self {
            InputValue::Int(v) => v != 0,
            InputValue::Float(f) => float_to_wide(f) != 0,
        }
    }

    /// The value as an `f64` (integers rounded to nearest).
    pub fn to_f64(self) -> f64 {
        match self {
            InputValue::Int(v) => v as f64,
            InputValue::Float(f) => f,
        }
    }

    /// The value as an `f32`, rounded once (an integer is not rounded to
    /// `f64` first).
    pub fn to_f32(self) -> f32 {
        match self {
            InputValue::Int(v) => v as f32,
            InputValue::Float(f) => f as f32,
        }
    }
}

/// A floating-point input converted for an integer `nondet`, as the
/// harnesses do it (`(unsigned __int128)x` for `x >= 0`, else
/// `(unsigned __int128)(__int128)x`, with libgcc's conversions): truncated
/// toward zero, as 128-bit two's complement. NaN, the infinities and values
/// outside `[-2^127, 2^128)` give 0. For types of up to 64 bits this is
/// the truncated value reduced modulo `2^bits` for every finite value
/// (an `f64` of magnitude `2^117` or more is a multiple of `2^64`).
pub fn float_to_wide(f: f64) -> u128 {
    if !f.is_finite() {
        return 0;
    }
    let t = f.trunc();
    if t >= 2f64.powi(128) || t < -(2f64.powi(127)) {
        return 0;
    }
    if t >= 0.0 {
        t as u128
    } else {
        (t as i128) as u128
    }
}

/// Keep the low `bits` bits of `v`.
pub fn truncate(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// A test: the values of the `nondet` calls of one run, in call order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestVector {
    /// Values in the order the program reads them.
    pub values: Vec<InputValue>,
}

impl TestVector {
    /// A vector of integer values.
    pub fn from_ints(values: impl IntoIterator<Item = i128>) -> Self {
        TestVector { values: values.into_iter().map(InputValue::Int).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected bits printed by the harness's conversion (`strtold`, then
    /// `(unsigned __int128)` / `(__int128)`) in a gcc x86-64 build, low 64
    /// bits.
    #[test]
    fn float_inputs_convert_like_the_harness() {
        let rows: [(f64, u64); 16] = [
            (1e10, 0x2540be400),
            (-1e10, 0xfffffffdabf41c00),
            (3e9, 0xb2d05e00),
            (-3e9, 0xffffffff4d2fa200),
            (1e19, 0x8ac7230489e80000),
            (-1e19, 0x7538dcfb76180000),
            (2e19, 0x158e460913d00000),
            (1e20, 0x6bc75e2d63100000),
            (-1e20, 0x9438a1d29cf00000),
            (1e40, 0),
            (-1e40, 0),
            (1e300, 0),
            (f64::INFINITY, 0),
            (f64::NEG_INFINITY, 0),
            (f64::NAN, 0),
            (-2.75, (-2i64) as u64),
        ];
        for (f, bits) in rows {
            assert_eq!(InputValue::Float(f).to_int_bits(64, true), bits, "{f:e}");
            assert_eq!(InputValue::Float(f).to_int_bits(32, false), bits & 0xffff_ffff, "{f:e}");
        }
        // Within 128 bits: exact (the harness reads the exact spelling of
        // the f64, see walkdown-native's input file).
        assert_eq!(float_to_wide(1.7e38), 1.7e38f64 as u128);
        assert_eq!(float_to_wide(-1.7e38), (-1.7e38f64 as i128) as u128);
        assert_eq!(float_to_wide(-1.7e38) >> 120, 0x80);
        assert_eq!(float_to_wide(4e38), 0);
        assert!(!InputValue::Float(0.5).to_bool());
        assert!(InputValue::Float(-1.5).to_bool());
        assert!(InputValue::Float(1e20).to_bool());
        assert!(!InputValue::Float(1e300).to_bool());
        assert!(!InputValue::Float(f64::NAN).to_bool());
        assert!(InputValue::Int(-256).to_bool());
    }

    #[test]
    fn integers_wrap() {
        assert_eq!(InputValue::Int(-1).to_int_bits(8, false), 0xff);
        assert_eq!(InputValue::Int(i128::from(u64::MAX)).to_int_bits(64, true), u64::MAX);
        assert_eq!(InputValue::Int(0x1_0000_0001).to_int_bits(32, true), 1);
        assert_eq!(InputValue::Int((1 << 60) + (1 << 36) + 1).to_f32(), ((1u64 << 60) + (1 << 36) + 1) as f32);
    }
}
