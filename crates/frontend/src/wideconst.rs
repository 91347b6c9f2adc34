//! The true values of integer constants wider than 64 bits.
//!
//! The llvm-ir crate keeps only the low 64 bits of an integer constant
//! (`Constant::Int { value: u64 }`), so `and i120 %x, -2097152` would read
//! as a mask with zeros above bit 63. The textual IR has the whole value:
//! this table maps each wide constant's (width, low 64 bits) to the values
//! the text spells with them, and, where two spellings share their low
//! bits (`i72 0` and `i72 -18446744073709551616`), to the instruction or
//! global whose line holds each, so the lowering can tell them apart or
//! refuse.

use std::collections::HashMap;

/// Where a constant appears: the enclosing function ("" outside functions)
/// and the name the line defines (`%5` → "5", `@g` → "g"; "" if none).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Site {
    func: String,
    dest: String,
}

/// Wide integer constants of one module's text.
#[derive(Default, Debug)]
pub struct WideConsts {
    by_low: HashMap<(u32, u64), Vec<(Site, Limbs)>>,
}

/// A value of `bits` bits as `ceil(bits / 64)` 64-bit limbs, least
/// significant first, the bits above `bits` clear.
pub type Limbs = Vec<u64>;

/// The limbs of the `bits`-bit two's-complement value of a decimal
/// spelling (`-` allowed); the value is taken modulo `2^bits`.
pub fn limbs_of_decimal(text: &str, bits: u32) -> Option<Limbs> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let k = bits.div_ceil(64) as usize;
    let mut v = vec![0u64; k];
    for d in digits.bytes() {
        let mut carry = u128::from(d - b'0');
        for limb in v.iter_mut() {
            let x = u128::from(*limb) * 10 + carry;
            *limb = x as u64;
            carry = x >> 64;
        }
    }
    if neg {
        let mut carry = 1u128;
        for limb in v.iter_mut() {
            let x = u128::from(!*limb) + carry;
            *limb = x as u64;
            carry = x >> 64;
        }
    }
    mask_limbs(&mut v, bits);
    Some(v)
}

/// Clears the bits of `v` above `bits`.
pub fn mask_limbs(v: &mut [u64], bits: u32) {
    let top = bits - 64 * (bits.div_ceil(64) - 1);
    if let Some(last) = v.last_mut() {
        if top < 64 {
            *last &= (1u64 << top) - 1;
        }
    }
}

impl WideConsts {
    /// Collects the constants of widths 65 to 128 in textual IR `text`.
    pub fn parse(text: &str) -> WideConsts {
        let mut t = WideConsts::default();
        let mut func = String::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("define ") {
                func = rest
                    .split_once('@')
                    .map(|(_, r)| r.split('(').next().unwrap_or(""))
                    .unwrap_or("")
                    .trim_matches('"')
                    .to_string();
                continue;
            }
            if line.starts_with('}') {
                func.clear();
                continue;
            }
            let trimmed = line.trim_start();
            let dest = match trimmed.split_once(" = ") {
                Some((d, _)) if d.starts_with('%') || d.starts_with('@') => d[1..].trim_matches('"').to_string(),
                _ => String::new(),
            };
            let site = Site { func: func.clone(), dest };
            for (bits, v) in literals(trimmed) {
                let e = t.by_low.entry((bits, v[0])).or_default();
                if !e.iter().any(|(s, x)| *s == site && *x == v) {
                    e.push((site.clone(), v));
                }
            }
        }
        t
    }

    /// The value of the `bits`-bit constant whose low 64 bits are `low`,
    /// appearing in function `func` ("" for a global's initializer) on the
    /// line defining `dest`.
    pub fn resolve(&self, bits: u32, low: u64, func: &str, dest: Option<&str>) -> Result<Limbs, String> {
        let Some(all) = self.by_low.get(&(bits, low)) else {
            return Err(format!("a {bits}-bit constant whose value the textual IR does not show"));
        };
        if let Some(v) = distinct(all.iter().map(|(_, v)| v)) {
            return Ok(v.clone());
        }
        if let Some(d) = dest {
            if let Some(v) = distinct(all.iter().filter(|(s, _)| s.func == func && s.dest == d).map(|(_, v)| v)) {
                return Ok(v.clone());
            }
        }
        Err(format!("a {bits}-bit constant that cannot be told apart from another with the same low 64 bits"))
    }
}

/// The one value `it` yields (perhaps several times), if it yields one.
fn distinct<'a>(mut it: impl Iterator<Item = &'a Limbs>) -> Option<&'a Limbs> {
    let first = it.next()?;
    it.all(|v| v == first).then_some(first)
}

/// The integer literals wider than 64 bits on one line: `iN <decimal>`,
/// the operands sharing that type, and the incoming values of a `phi iN`
/// (`[ <decimal>, %bb ]`).
fn literals(line: &str) -> Vec<(u32, Limbs)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // `i` + digits, not inside an identifier.
        if b[i] == b'i'
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric()
                    || b[i - 1] == b'_'
                    || b[i - 1] == b'.'
                    || b[i - 1] == b'%'
                    || b[i - 1] == b'@'))
        {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == b' ' {
                if let Ok(bits) = line[i + 1..j].parse::<u32>() {
                    if (65..=crate::layout::MAX_WIDE_BITS).contains(&bits) {
                        operands_after_type(&line[j + 1..], bits, &mut out);
                    }
                }
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The literals among the operands that follow a type `iN ` on a line:
/// `and i120 %7, 2097151` names the type once for both operands, `phi`
/// once for all its incoming values (`[ -5, %a ], [ %9, %b ]`). The list
/// ends at the first operand that names a type of its own (`i72 %y`,
/// `!dbg !5`, `label %l`).
fn operands_after_type(rest: &str, bits: u32, out: &mut Vec<(u32, Limbs)>) {
    for part in rest.split(',') {
        let p = part.trim();
        let p = p.strip_prefix('[').map_or(p, str::trim_start);
        let p = p.trim_end_matches([']', ')', ' ']);
        if p.starts_with('%') && !p.contains(' ') {
            continue; // a value name, or a phi's block after its value
        }
        if matches!(p, "undef" | "poison" | "zeroinitializer") {
            continue;
        }
        match limbs_of_decimal(p, bits) {
            Some(v) => out.push((bits, v)),
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_literals_are_read_whole() {
        let text = "@g = global i128 -1, align 16\ndefine i32 @f(i72 %x) {\n  %1 = and i72 %x, -18446744073709551616\n  %2 = or i72 %1, 0\n  %3 = phi i120 [ -2097152, %a ], [ %9, %b ]\n  ret i32 0\n}\n";
        let t = WideConsts::parse(text);
        assert_eq!(t.resolve(128, u64::MAX, "", Some("g")), Ok(vec![u64::MAX, u64::MAX]));
        assert_eq!(t.resolve(72, 0, "f", Some("1")), Ok(vec![0, 0xff]));
        assert_eq!(t.resolve(72, 0, "f", Some("2")), Ok(vec![0, 0]));
        assert!(t.resolve(72, 0, "f", None).is_err());
        assert_eq!(
            t.resolve(120, (-2097152i64) as u64, "f", Some("3")),
            Ok(vec![(-2097152i64) as u64, (1u64 << 56) - 1])
        );
        assert!(t.resolve(100, 5, "f", Some("1")).is_err());
    }

    #[test]
    fn decimals_of_any_width_become_limbs() {
        assert_eq!(limbs_of_decimal("340282366920938463463374607431768211457", 136), Some(vec![1, 0, 1]));
        assert_eq!(limbs_of_decimal("-1", 152), Some(vec![u64::MAX, u64::MAX, (1 << 24) - 1]));
        assert_eq!(limbs_of_decimal("18446744073709551616", 65), Some(vec![0, 1]));
        assert_eq!(limbs_of_decimal("%5", 72), None);
    }
}
