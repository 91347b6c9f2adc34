//! What the program prints to standard output, when a run is asked to keep
//! it ([`Interpreter::run_with_output`](crate::Interpreter::run_with_output)).
//!
//! Only the functions that write to standard output without a stream
//! argument are followed: `printf`, `puts` and `putchar` (`fprintf` and
//! `fputs` name a stream the model does not track, so their text is not
//! attributed to stdout). `printf` formats the integer, character, string
//! and pointer conversions (`d i u x X o c s p %`, with flags, width,
//! precision and the `hh h l ll j z t` length modifiers) exactly as glibc
//! does; a floating-point conversion (`f e g a` and upper case) prints
//! `<%f?>`-style placeholders, so an output comparison fails loudly instead
//! of silently agreeing. The return values are not affected (the model of
//! the output functions returns 0 with or without capture), so capturing
//! never changes a run.

use crate::code::CallSite;
use crate::exec::Machine;
use walkdown_ir::DataModel;

/// Most bytes one `%s` may print (a guard against a missing terminator in a
/// huge object; the read itself is bounds-checked).
const MAX_STRING: u64 = 1 << 20;

impl Machine<'_, '_> {
    /// Appends what the output function `name` prints to the captured
    /// output, if the run captures it.
    pub(crate) fn capture_print(&mut self, name: &str, regs: &[u64], site: &CallSite, base: usize) {
        if self.output.is_none() {
            return;
        }
        let mut text = Vec::new();
        match name {
            "putchar" => {
                if let Some(c) = self.arg(regs, site, base, 0) {
                    text.push(c as u8);
                }
            }
            "puts" => {
                if let Some(s) = self.arg(regs, site, base, 0) {
                    if let Ok(b) = self.read_cstring(s, MAX_STRING) {
                        text.extend_from_slice(b);
                    }
                    text.push(b'\n');
                }
            }
            "printf" => {
                let Some(fmt) = self.arg(regs, site, base, 0) else { return };
                let Ok(fmt) = self.read_cstring(fmt, MAX_STRING).map(<[u8]>::to_vec) else { return };
                // Arguments past the last one read as 0, as a missing
                // argument has no defined value.
                let args: Vec<u64> =
                    (1..site.args_len as usize).filter_map(|i| self.arg(regs, site, base, i)).collect();
                let mut next = args.into_iter();
                let dm = self.p.dm;
                format_printf(&fmt, dm, &mut text, || next.next().unwrap_or(0), self);
            }
            _ => return,
        }
        if let Some(out) = &mut self.output {
            out.extend_from_slice(&text);
        }
    }
}

/// Formats `fmt` as glibc's `printf` does for the supported conversions,
/// taking argument bits from `next_arg` and strings from memory.
fn format_printf(
    fmt: &[u8],
    dm: DataModel,
    out: &mut Vec<u8>,
    mut next_arg: impl FnMut() -> u64,
    machine: &mut Machine<'_, '_>,
) {
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let mut spec = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            let w = next_arg() as u32 as i32;
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                spec.width = spec.width.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            if fmt.get(i) == Some(&b'*') {
                let v = next_arg() as u32 as i32;
                i += 1;
                spec.precision = (v >= 0).then_some(v as usize);
            } else {
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
                spec.precision = Some(p);
            }
        }
        // Length modifier: the width in bits of the integer argument.
        let long_bits = dm.pointer_bits();
        let mut bits = 32;
        let mut long_double = false;
        loop {
            match fmt.get(i) {
                Some(b'h') if fmt.get(i + 1) == Some(&b'h') => {
                    bits = 8;
                    i += 2;
                }
                Some(b'h') => {
                    bits = 16;
                    i += 1;
                }
                Some(b'l') if fmt.get(i + 1) == Some(&b'l') => {
                    bits = 64;
                    i += 2;
                }
                Some(b'l') => {
                    bits = long_bits;
                    i += 1;
                }
                Some(b'q' | b'L') => {
                    bits = 64;
                    long_double = fmt[i] == b'L';
                    i += 1;
                }
                Some(b'j') => {
                    bits = 64;
                    i += 1;
                }
                Some(b'z' | b't') => {
                    bits = long_bits;
                    i += 1;
                }
                _ => break,
            }
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = sext(next_arg(), bits);
                let digits = with_precision(v.unsigned_abs().to_string().into_bytes(), spec.precision);
                let sign: &[u8] = if v < 0 {
                    b"-"
                } else if spec.plus {
                    b"+"
                } else if spec.space {
                    b" "
                } else {
                    b""
                };
                pad_number(&spec, sign, &digits, out);
                continue;
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = zext(next_arg(), bits);
                let mut digits = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                }
                .into_bytes();
                digits = with_precision(digits, spec.precision);
                if conv == b'o' && spec.alt && digits.first() != Some(&b'0') {
                    digits.insert(0, b'0');
                }
                let prefix: &[u8] = match conv {
                    b'x' if spec.alt && v != 0 => b"0x",
                    b'X' if spec.alt && v != 0 => b"0X",
                    _ => b"",
                };
                pad_number(&spec, prefix, &digits, out);
                continue;
            }
            b'p' => {
                let v = zext(next_arg(), dm.pointer_bits());
                if v == 0 {
                    b"(nil)".to_vec()
                } else {
                    format!("0x{v:x}").into_bytes()
                }
            }
            b'c' => vec![next_arg() as u8],
            b's' => {
                let p = next_arg() & crate::eval::mask(dm.pointer_bits());
                let limit = spec.precision.map_or(MAX_STRING, |p| p as u64);
                if p == 0 {
                    b"(null)".to_vec()
                } else {
                    match machine.mem.tail(p) {
                        Ok(t) => {
                            let n = (limit as usize).min(t.len());
                            let end = t[..n].iter().position(|&b| b == 0).unwrap_or(n);
                            t[..end].to_vec()
                        }
                        Err(_) => b"<bad %s pointer>".to_vec(),
                    }
                }
            }
            other => {
                // Floating-point and rarer conversions are not formatted;
                // consume the argument so later ones stay aligned (a `long
                // double` is passed as two limbs: see the frontend's
                // `func/f80.rs`).
                next_arg();
                if long_double && matches!(other, b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A') {
                    next_arg();
                }
                format!("<%{}?>", other as char).into_bytes()
            }
        };
        pad(&spec, &body, out);
    }
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

fn sext(v: u64, bits: u32) -> i64 {
    crate::eval::sext(v, bits)
}

fn zext(v: u64, bits: u32) -> u64 {
    v & crate::eval::mask(bits)
}

/// Digits with at least `precision` of them (`%.0d` of 0 prints nothing).
fn with_precision(digits: Vec<u8>, precision: Option<usize>) -> Vec<u8> {
    match precision {
        Some(0) if digits == b"0" => Vec::new(),
        Some(p) if digits.len() < p => {
            let mut v = vec![b'0'; p - digits.len()];
            v.extend_from_slice(&digits);
            v
        }
        _ => digits,
    }
}

/// A number with its sign or prefix, padded to the width (zeros go between
/// the prefix and the digits, and only without a precision, as C says).
fn pad_number(spec: &Spec, prefix: &[u8], digits: &[u8], out: &mut Vec<u8>) {
    let len = prefix.len() + digits.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if spec.zero && spec.precision.is_none() {
        out.extend_from_slice(prefix);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
    }
}

fn pad(spec: &Spec, body: &[u8], out: &mut Vec<u8>) {
    let fill = spec.width.saturating_sub(body.len());
    if !spec.left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(body);
    if spec.left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
}
