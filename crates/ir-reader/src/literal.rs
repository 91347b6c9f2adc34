//! Numeric literals: unsigned sizes, signed addends, integer constants of a
//! given width, float constants, and the `v3` / `b0` spellings of ids.
//!
//! Every function returns `None` or an error message instead of panicking,
//! whatever the text.

use walkdown_ir::{Const, DataModel, Type};

/// An integer written in decimal or `0x` hex, with an optional sign.
/// `None` when the text is not such an integer or does not fit an `i128`.
pub fn parse_integer(text: &str) -> Option<i128> {
    let (negative, magnitude) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = if let Some(hex) = magnitude.strip_prefix("0x").or_else(|| magnitude.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i128::from_str_radix(hex, 16).ok()?
    } else {
        if magnitude.is_empty() || !magnitude.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        magnitude.parse::<i128>().ok()?
    };
    Some(if negative { -value } else { value })
}

/// A non-negative integer that fits `T` (sizes, alignments, offsets, line
/// numbers).
pub fn parse_unsigned<T: TryFrom<i128>>(text: &str) -> Option<T> {
    if text.starts_with('-') {
        return None;
    }
    T::try_from(parse_integer(text)?).ok()
}

/// A signed 64-bit integer (relocation addends).
pub fn parse_i64(text: &str) -> Option<i64> {
    i64::try_from(parse_integer(text)?).ok()
}

/// The low `width` bits of an integer literal, which must lie in
/// `-2^(width-1) ..= 2^width - 1` (so both `i8 -1` and `i8 255` mean the
/// bits `0xff`).
pub fn int_bits(text: &str, width: u32) -> Result<u64, String> {
    let value = parse_integer(text).ok_or_else(|| format!("`{text}` is not an integer"))?;
    let width = width.clamp(1, 64);
    let min = -(1i128 << (width - 1));
    let max = (1i128 << width) - 1;
    if value < min || value > max {
        return Err(format!("{value} does not fit in {width} bits"));
    }
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    // Two's complement of a value in range: keep the low 64 bits, then mask.
    Ok((value as u64) & mask)
}

/// The IEEE bits of a float literal of type `ty` (`f32` or `f64`): Rust's
/// float syntax (`1.5`, `-0.0`, `1e-7`, `inf`, `-inf`) or raw bits in hex
/// (`0x7ff8000000000000`, how NaNs are written).
pub fn float_bits(text: &str, ty: Type) -> Result<u64, String> {
    if text.starts_with("0x") || text.starts_with("0X") {
        let bits = parse_unsigned::<u64>(text).ok_or_else(|| format!("`{text}` is not a hex bit pattern"))?;
        if ty == Type::F32 && bits > u64::from(u32::MAX) {
            return Err(format!("`{text}` does not fit in 32 bits"));
        }
        return Ok(bits);
    }
    match ty {
        Type::F32 => text.parse::<f32>().map(|v| u64::from(v.to_bits())),
        _ => text.parse::<f64>().map(f64::to_bits),
    }
    .map_err(|_| format!("`{text}` is not a {ty} literal"))
}

/// The constant `ty LITERAL`: `ptr null` or an address, a float literal,
/// or an integer.
pub fn constant(ty: Type, text: &str, data_model: DataModel) -> Result<Const, String> {
    let bits = match ty {
        Type::Ptr if text == "null" => 0,
        Type::F32 | Type::F64 => float_bits(text, ty)?,
        _ => int_bits(text, ty.bits(data_model))?,
    };
    Ok(Const { ty, bits })
}

/// The index in an id spelled `prefix` then decimal digits (`v12`, `b0`);
/// `None` for any other word, including ones with leading zeros (`v01`).
pub fn entity_index(word: &str, prefix: &str) -> Option<u32> {
    let digits = word.strip_prefix(prefix)?;
    let canonical =
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    if !canonical {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_range_become_their_low_bits() {
        assert_eq!(int_bits("-1", 8), Ok(0xff));
        assert_eq!(int_bits("255", 8), Ok(0xff));
        assert!(int_bits("256", 8).is_err());
        assert!(int_bits("-129", 8).is_err());
        assert_eq!(int_bits("-9223372036854775808", 64), Ok(1 << 63));
        assert_eq!(int_bits("18446744073709551615", 64), Ok(u64::MAX));
        assert!(int_bits("18446744073709551616", 64).is_err());
        assert_eq!(int_bits("1", 1), Ok(1));
        assert_eq!(int_bits("-1", 1), Ok(1));
        assert!(int_bits("2", 1).is_err());
        assert_eq!(int_bits("0x10", 32), Ok(16));
        assert!(int_bits("0x", 32).is_err());
        assert!(int_bits("0x+5", 32).is_err());
        assert!(int_bits("1.0", 32).is_err());
        assert!(int_bits("99999999999999999999999999999999999999999999", 64).is_err());
    }

    #[test]
    fn floats_parse_debug_text_and_hex_bits() {
        assert_eq!(float_bits("-0.0", Type::F64), Ok((-0.0f64).to_bits()));
        assert_eq!(float_bits("inf", Type::F32), Ok(u64::from(f32::INFINITY.to_bits())));
        assert_eq!(float_bits("1e-45", Type::F32), Ok(1));
        assert_eq!(float_bits("0x7fc00001", Type::F32), Ok(0x7fc0_0001));
        assert!(float_bits("0x100000000", Type::F32).is_err());
        assert!(float_bits("one", Type::F64).is_err());
    }

    #[test]
    fn entity_indices() {
        assert_eq!(entity_index("v12", "v"), Some(12));
        assert_eq!(entity_index("b0", "b"), Some(0));
        assert_eq!(entity_index("v01", "v"), None);
        assert_eq!(entity_index("v", "v"), None);
        assert_eq!(entity_index("bswap", "b"), None);
        assert_eq!(entity_index("v99999999999", "v"), None);
    }
}
