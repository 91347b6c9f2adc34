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
    /// The value as the low `bits` bits of an integer, converted like a C
    /// cast to an integer type of that width.
    pub fn to_int_bits(self, bits: u32, signed: bool) -> u64 {
        let wide: i128 = match self {
            InputValue::Int(v) => v,
            InputValue::Float(f) => float_to_int(f, bits, signed),
        };
        truncate(wide as u128 as u64, bits)
    }

    /// The value as an `f64` (for `f32` inputs the caller rounds it).
    pub fn to_f64(self) -> f64 {
        match self {
            InputValue::Int(v) => v as f64,
            InputValue::Float(f) => f,
        }
    }
}

fn float_to_int(f: f64, bits: u32, signed: bool) -> i128 {
    // C leaves out-of-range conversions undefined; x86 gives the "integer
    // indefinite" value for signed targets, which is what we mirror.
    if f.is_nan() {
        return if signed { i128::from(i64::MIN) } else { 0 };
    }
    let t = f.trunc();
    if signed {
        let min = -(2f64.powi(bits as i32 - 1));
        let max = 2f64.powi(bits as i32 - 1);
        if t < min || t >= max {
            return -(1i128 << (bits - 1));
        }
        t as i128
    } else {
        t as i128
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
