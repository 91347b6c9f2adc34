//! The literal syntax of one input value, shared by every format that holds
//! test values: Test-Comp `<input>` elements, the one-value-a-line text form
//! and `--inputs` lists.
//!
//! What is accepted follows what Test-Comp validators accept:
//!
//! - decimal integers with an optional sign and C suffixes (`42`, `-5`,
//!   `7L`, `10ull`); a leading `0` does **not** make a literal octal
//!   (`010` is ten), because the validators read values with decimal
//!   conversions;
//! - hexadecimal (`0x1F`, `-0x10`) and binary (`0b101`) integers;
//! - character literals (`'a'`, `'\n'`, `'\x41'`, `'\101'`), whose value is
//!   that of a C `char` (signed on x86, so `'\xff'` is -1);
//! - `true` and `false`;
//! - floating-point numbers (`1.5`, `-2e10`, `.5`, `0x1.8p1`, `inf`, `nan`,
//!   with an optional `f`/`F`/`l`/`L` suffix).
//!
//! Integers keep their exact value (up to 128 bits, wrapping like the
//! validators' 128-bit arithmetic); the consumer converts to the width it
//! reads. Anything else is rejected with a [`LiteralError`] rather than read
//! as 0, so a malformed test is noticed instead of silently changing meaning.

use thiserror::Error;
use walkdown_ir::testvec::InputValue;

/// Why a piece of text is not a value literal.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum LiteralError {
    /// Nothing but whitespace.
    #[error("empty value")]
    Empty,
    /// A character that cannot appear where it stands.
    #[error("unexpected character {found:?} at offset {offset}")]
    UnexpectedChar {
        /// The offending character.
        found: char,
        /// Byte offset in the trimmed literal.
        offset: usize,
    },
    /// A prefix (`0x`, `0b`, a sign) with no digits after it.
    #[error("no digits")]
    NoDigits,
    /// An integer whose magnitude needs more than 128 bits.
    #[error("integer does not fit in 128 bits")]
    TooLarge,
    /// A character literal without its closing quote, or with more than one
    /// character inside.
    #[error("malformed character literal")]
    BadCharLiteral,
    /// A backslash escape C does not know.
    #[error("unknown escape sequence")]
    BadEscape,
    /// A non-ASCII character between quotes: its value as a C `char` would
    /// depend on the source encoding.
    #[error("non-ASCII character literal")]
    NonAsciiChar,
    /// A suffix that is neither an integer nor a floating-point C suffix.
    #[error("invalid suffix {0:?}")]
    BadSuffix(String),
}

/// Parse one value literal (surrounding whitespace is ignored).
pub fn parse_value(text: &str) -> Result<InputValue, LiteralError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(LiteralError::Empty);
    }
    if text.eq_ignore_ascii_case("true") {
        return Ok(InputValue::Int(1));
    }
    if text.eq_ignore_ascii_case("false") {
        return Ok(InputValue::Int(0));
    }
    if let Some(body) = text.strip_prefix('\'') {
        return parse_char_literal(body).map(InputValue::Int);
    }

    let (negative, unsigned_part) = match text.as_bytes()[0] {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let sign_len = text.len() - unsigned_part.len();

    if let Some(special) = parse_special_float(unsigned_part) {
        return Ok(InputValue::Float(if negative { -special } else { special }));
    }
    let lower_prefix = unsigned_part.get(..2).map(str::to_ascii_lowercase);
    match lower_prefix.as_deref() {
        Some("0x") => parse_hex(&unsigned_part[2..], negative, sign_len + 2),
        Some("0b") => {
            let magnitude = parse_integer_digits(&unsigned_part[2..], 2, sign_len + 2)?;
            Ok(InputValue::Int(apply_sign(magnitude, negative)))
        }
        _ => parse_decimal(unsigned_part, negative, sign_len),
    }
}

/// The canonical spelling of a value, which [`parse_value`] reads back to
/// the same value: integers in decimal, finite floats as their exact
/// decimal expansion (always with a `.`, so they are read back as floats),
/// else `inf`/`-inf`/`nan`.
///
/// Not the shortest round-trip spelling: validators read values with
/// `strtold`, and the `long double` nearest to the shortest spelling can
/// differ from the `f64` (`1.2345678901234568e18` is 1234567890123456768
/// as an `f64` but ...800 as a `long double`), which changes what a 64-bit
/// integer input or, by double rounding, a `float` input gets. Every `f64`
/// is a `long double`, so the exact spelling reads back exactly.
pub fn format_value(value: InputValue) -> String {
    match value {
        InputValue::Int(v) => v.to_string(),
        InputValue::Float(f) if f.is_nan() => "nan".to_string(),
        InputValue::Float(f) if f.is_infinite() => if f > 0.0 { "inf" } else { "-inf" }.to_string(),
        InputValue::Float(f) => {
            // 1074 fractional digits hold every binary64 fraction exactly.
            let exact = format!("{f:.1074}");
            let mut text = exact.trim_end_matches('0').to_string();
            if text.ends_with('.') {
                text.push('0');
            }
            text
        }
    }
}

fn apply_sign(magnitude: u128, negative: bool) -> i128 {
    // Two's-complement wrap: a magnitude above i128::MAX is an unsigned
    // 128-bit value, kept bit for bit like the validators do.
    let bits = magnitude as i128;
    if negative {
        bits.wrapping_neg()
    } else {
        bits
    }
}

fn parse_special_float(text: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// Digits of `radix`, optionally followed by an integer suffix; `offset` is
/// where `text` starts in the literal, for error positions.
fn parse_integer_digits(text: &str, radix: u32, offset: usize) -> Result<u128, LiteralError> {
    let digits_end = text.char_indices().find(|(_, c)| !c.is_digit(radix)).map_or(text.len(), |(i, _)| i);
    if digits_end == 0 {
        return match text.chars().next() {
            None => Err(LiteralError::NoDigits),
            Some(found) => Err(LiteralError::UnexpectedChar { found, offset }),
        };
    }
    check_integer_suffix(&text[digits_end..])?;
    accumulate(&text[..digits_end], radix)
}

fn accumulate(digits: &str, radix: u32) -> Result<u128, LiteralError> {
    let mut value: u128 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix).ok_or(LiteralError::NoDigits)?;
        value = value
            .checked_mul(u128::from(radix))
            .and_then(|v| v.checked_add(u128::from(d)))
            .ok_or(LiteralError::TooLarge)?;
    }
    Ok(value)
}

/// C integer suffixes: an optional `u`/`U` before or after an optional
/// `l`, `L`, `ll` or `LL`.
fn check_integer_suffix(suffix: &str) -> Result<(), LiteralError> {
    let valid = match suffix.len() {
        0 => true,
        _ => {
            let without_u =
                suffix.strip_prefix(['u', 'U']).or_else(|| suffix.strip_suffix(['u', 'U'])).unwrap_or(suffix);
            let had_u = without_u.len() != suffix.len();
            matches!(without_u, "l" | "L" | "ll" | "LL") || (had_u && without_u.is_empty())
        }
    };
    if valid {
        Ok(())
    } else {
        Err(LiteralError::BadSuffix(suffix.to_string()))
    }
}

fn check_float_suffix(suffix: &str) -> Result<(), LiteralError> {
    if matches!(suffix, "" | "f" | "F" | "l" | "L") {
        Ok(())
    } else {
        Err(LiteralError::BadSuffix(suffix.to_string()))
    }
}

fn parse_decimal(text: &str, negative: bool, offset: usize) -> Result<InputValue, LiteralError> {
    let is_float =
        text.find(|c: char| !c.is_ascii_digit()).is_some_and(|i| matches!(text.as_bytes()[i], b'.' | b'e' | b'E'));
    if !is_float {
        let magnitude = parse_integer_digits(text, 10, offset)?;
        return Ok(InputValue::Int(apply_sign(magnitude, negative)));
    }
    let number_end = decimal_float_end(text);
    check_float_suffix(&text[number_end..])?;
    let magnitude: f64 = text[..number_end].parse().map_err(|_| first_unexpected(text, offset))?;
    Ok(InputValue::Float(if negative { -magnitude } else { magnitude }))
}

/// Length of the longest prefix of the form `digits [. digits] [e [sign] digits]`.
fn decimal_float_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
            j += 1;
        }
        let exponent_start = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j > exponent_start {
            i = j;
        }
    }
    i
}

fn first_unexpected(text: &str, offset: usize) -> LiteralError {
    match text.char_indices().find(|(_, c)| !c.is_ascii_digit() && *c != '.') {
        Some((i, found)) => LiteralError::UnexpectedChar { found, offset: offset + i },
        None => LiteralError::NoDigits,
    }
}

/// Hexadecimal integer, or hexadecimal float when a `.` or `p` exponent
/// follows the digits.
fn parse_hex(text: &str, negative: bool, offset: usize) -> Result<InputValue, LiteralError> {
    let digits_end = text.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(text.len());
    let rest = &text[digits_end..];
    if !(rest.starts_with('.') || rest.starts_with(['p', 'P'])) {
        let magnitude = parse_integer_digits(text, 16, offset)?;
        return Ok(InputValue::Int(apply_sign(magnitude, negative)));
    }
    let magnitude = parse_hex_float(text, offset)?;
    Ok(InputValue::Float(if negative { -magnitude } else { magnitude }))
}

/// `h* [. h*] [p [sign] d+] [suffix]` with at least one hex digit.
fn parse_hex_float(text: &str, offset: usize) -> Result<f64, LiteralError> {
    let bytes = text.as_bytes();
    // Keep at least 60 leading significant bits, more than the 53 an f64
    // holds; later digits only scale the value.
    let mut mantissa: u64 = 0;
    let mut binary_exponent: i64 = 0;
    let mut any_digit = false;
    let mut i = 0;
    let mut after_point = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'.' && !after_point {
            after_point = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            any_digit = true;
            if mantissa >> 60 == 0 {
                mantissa = (mantissa << 4) | u64::from(d);
                if after_point {
                    binary_exponent -= 4;
                }
            } else if !after_point {
                binary_exponent += 4;
            }
        } else {
            break;
        }
        i += 1;
    }
    if !any_digit {
        return Err(LiteralError::NoDigits);
    }
    if i < bytes.len() && matches!(bytes[i], b'p' | b'P') {
        let mut j = i + 1;
        let exponent_negative = j < bytes.len() && bytes[j] == b'-';
        if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
            j += 1;
        }
        let start = j;
        let mut exponent: i64 = 0;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            // Saturate: any exponent this large already over- or underflows.
            exponent = (exponent * 10 + i64::from(bytes[j] - b'0')).min(1 << 20);
            j += 1;
        }
        if j == start {
            return Err(match text[j..].chars().next() {
                Some(found) => LiteralError::UnexpectedChar { found, offset: offset + j },
                None => LiteralError::NoDigits,
            });
        }
        binary_exponent += if exponent_negative { -exponent } else { exponent };
        i = j;
    }
    check_float_suffix(&text[i..])?;
    Ok(scale_by_power_of_two(mantissa as f64, binary_exponent))
}

fn scale_by_power_of_two(mut value: f64, mut exponent: i64) -> f64 {
    // Step in chunks so that intermediate powers stay finite and normal.
    while exponent > 0 && value.is_finite() && value != 0.0 {
        let step = exponent.min(1000);
        value *= 2f64.powi(step as i32);
        exponent -= step;
    }
    while exponent < 0 && value != 0.0 {
        let step = (-exponent).min(1000);
        value /= 2f64.powi(step as i32);
        exponent += step;
    }
    value
}

/// The body of a character literal (after the opening quote), as the value
/// of a signed C `char`.
fn parse_char_literal(body: &str) -> Result<i128, LiteralError> {
    let inner = body.strip_suffix('\'').ok_or(LiteralError::BadCharLiteral)?;
    let byte: u8 = if let Some(escape) = inner.strip_prefix('\\') {
        parse_escape(escape)?
    } else {
        let mut chars = inner.chars();
        let c = chars.next().ok_or(LiteralError::BadCharLiteral)?;
        if chars.next().is_some() {
            return Err(LiteralError::BadCharLiteral);
        }
        if !c.is_ascii() {
            return Err(LiteralError::NonAsciiChar);
        }
        c as u8
    };
    Ok(i128::from(byte as i8))
}

/// An escape sequence after the backslash; the whole text must be used.
fn parse_escape(escape: &str) -> Result<u8, LiteralError> {
    let simple = match escape {
        "n" => Some(b'\n'),
        "t" => Some(b'\t'),
        "r" => Some(b'\r'),
        "a" => Some(0x07),
        "b" => Some(0x08),
        "f" => Some(0x0c),
        "v" => Some(0x0b),
        "\\" => Some(b'\\'),
        "'" => Some(b'\''),
        "\"" => Some(b'"'),
        "?" => Some(b'?'),
        _ => None,
    };
    if let Some(byte) = simple {
        return Ok(byte);
    }
    if let Some(hex) = escape.strip_prefix('x') {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(LiteralError::BadEscape);
        }
        // Like a C compiler with an 8-bit char, keep the low byte.
        let value = accumulate(hex, 16).map_err(|_| LiteralError::BadEscape)?;
        return Ok(value as u8);
    }
    if (1..=3).contains(&escape.len()) && escape.chars().all(|c| ('0'..='7').contains(&c)) {
        let value = accumulate(escape, 8).map_err(|_| LiteralError::BadEscape)?;
        return Ok(value as u8);
    }
    Err(LiteralError::BadEscape)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> i128 {
        match parse_value(text) {
            Ok(InputValue::Int(v)) => v,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    fn float(text: &str) -> f64 {
        match parse_value(text) {
            Ok(InputValue::Float(v)) => v,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn decimal_integers_with_signs_and_suffixes() {
        assert_eq!(int("42"), 42);
        assert_eq!(int("  -5 "), -5);
        assert_eq!(int("+7"), 7);
        for text in ["7u", "7U", "7l", "7L", "7ll", "7LL", "7ul", "7lu", "7ULL", "7llu", "7uLL"] {
            assert_eq!(int(text), 7, "{text}");
        }
        assert_eq!(int("010"), 10, "a leading zero is not octal");
        assert_eq!(int("-0"), 0);
        assert_eq!(int("18446744073709551615"), 18446744073709551615);
    }

    #[test]
    fn hex_binary_and_wide_values() {
        assert_eq!(int("0x1F"), 31);
        assert_eq!(int("0X1f"), 31);
        assert_eq!(int("-0x10"), -16);
        assert_eq!(int("0xffffffffu"), 0xffff_ffff);
        assert_eq!(int("0b101"), 5);
        assert_eq!(int("-0B11"), -3);
        // The largest unsigned 128-bit value keeps its bits.
        assert_eq!(int("340282366920938463463374607431768211455"), -1);
        assert_eq!(parse_value("340282366920938463463374607431768211456"), Err(LiteralError::TooLarge));
    }

    #[test]
    fn char_literals_are_signed_chars() {
        assert_eq!(int("'a'"), 97);
        assert_eq!(int("'\\n'"), 10);
        assert_eq!(int("'\\x41'"), 65);
        assert_eq!(int("'\\101'"), 65);
        assert_eq!(int("'\\0'"), 0);
        assert_eq!(int("'\\xff'"), -1);
        assert_eq!(int("'\\''"), 39);
        assert_eq!(int("' '"), 32);
        assert_eq!(parse_value("'ab'"), Err(LiteralError::BadCharLiteral));
        assert_eq!(parse_value("'a"), Err(LiteralError::BadCharLiteral));
        assert_eq!(parse_value("'\\q'"), Err(LiteralError::BadEscape));
        assert_eq!(parse_value("'é'"), Err(LiteralError::NonAsciiChar));
    }

    #[test]
    fn booleans() {
        assert_eq!(int("true"), 1);
        assert_eq!(int("FALSE"), 0);
    }

    #[test]
    fn floats() {
        assert_eq!(float("1.5"), 1.5);
        assert_eq!(float("-2e10"), -2e10);
        assert_eq!(float("1.5f"), 1.5);
        assert_eq!(float("2.5L"), 2.5);
        assert_eq!(float(".5"), 0.5);
        assert_eq!(float("5."), 5.0);
        assert_eq!(float("1E-3"), 1e-3);
        assert_eq!(float("0x1.8p1"), 3.0);
        assert_eq!(float("-0x1p-2"), -0.25);
        assert_eq!(float("0x.8"), 0.5);
        assert_eq!(float("0x1p-1074"), 5e-324);
        assert_eq!(float("inf"), f64::INFINITY);
        assert_eq!(float("-Infinity"), f64::NEG_INFINITY);
        assert!(float("nan").is_nan());
        assert!(float("-0.0").is_sign_negative());
    }

    #[test]
    fn rejects_malformed_values() {
        assert_eq!(parse_value(""), Err(LiteralError::Empty));
        assert_eq!(parse_value("   "), Err(LiteralError::Empty));
        assert_eq!(parse_value("0x"), Err(LiteralError::NoDigits));
        assert_eq!(parse_value("-"), Err(LiteralError::NoDigits));
        assert!(matches!(parse_value("abc"), Err(LiteralError::UnexpectedChar { found: 'a', .. })));
        assert_eq!(parse_value("12q"), Err(LiteralError::BadSuffix("q".into())));
        assert_eq!(parse_value("1lul"), Err(LiteralError::BadSuffix("lul".into())));
        assert_eq!(parse_value("1.5x"), Err(LiteralError::BadSuffix("x".into())));
        assert_eq!(parse_value("0b102"), Err(LiteralError::BadSuffix("2".into())));
        assert!(parse_value("1e").is_err());
        assert!(parse_value("0x1p").is_err());
    }

    #[test]
    fn formatting_round_trips() {
        let samples = [
            InputValue::Int(0),
            InputValue::Int(-1),
            InputValue::Int(i128::MAX),
            InputValue::Int(i128::MIN),
            InputValue::Float(1.0),
            InputValue::Float(-0.0),
            InputValue::Float(0.1),
            InputValue::Float(1e300),
            InputValue::Float(5e-324),
            InputValue::Float(f64::MAX),
            InputValue::Float(f64::INFINITY),
            InputValue::Float(f64::NEG_INFINITY),
        ];
        for value in samples {
            let text = format_value(value);
            let back = parse_value(&text).unwrap();
            match (value, back) {
                (InputValue::Float(a), InputValue::Float(b)) => {
                    assert_eq!(a.to_bits(), b.to_bits(), "{text}")
                }
                _ => assert_eq!(value, back, "{text}"),
            }
        }
        assert_eq!(format_value(InputValue::Float(f64::NAN)), "nan");
        assert_eq!(format_value(InputValue::Float(2.0)), "2.0");
    }
}
