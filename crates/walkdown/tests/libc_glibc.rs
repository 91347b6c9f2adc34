//! The C library walkdown runs as code (musl 1.2.3, see
//! `crates/frontend/src/libc.rs`) against glibc, natively: a program of
//! ours (`tests/libc_glibc/harness.c` and case tables generated here with
//! a fixed seed) is built with gcc against glibc, in both data models
//! (`-m64`, `-m32`), and prints one result line per case; those lines
//! become a table in a second program, which walkdown's interpreter runs
//! on musl's code (printf to stdout is a hand model without effect, so
//! the interpreted side compares instead of printing). On a
//! disagreement the test names the case: the function, its input, glibc's
//! result and the interpreter's (read back byte by byte through the exit
//! status).
//!
//! Covered, per data model: the 14 <ctype.h> functions over all 384
//! arguments -128..255, through glibc's macros (the raw mask from
//! `__ctype_b_loc`, `__ctype_tolower_loc`, `__ctype_toupper_loc`) and as
//! function calls; `strtol`, `strtoul`, `strtoll`, `strtoull` (bases 0, 2,
//! 8, 10, 16, 36 and random ones), `strtod` (value bits, `endptr` offset,
//! `errno`), `atoi`, `atol`, `atoll`, `atof` over edge and random strings
//! (`strtod`, `atof` and `sscanf`, see `FLOATSCAN`);
//! `sprintf` and `snprintf` (return value, truncation, `snprintf(NULL, 0)`)
//! over random formats of integers (flags, width, precision, `*`, every
//! length modifier), characters, strings and doubles (`%f %e %g %a` and
//! their upper-case forms); `sscanf` with integer, string, character,
//! scanset, float and `%n` conversions; `qsort` and `bsearch` on random int
//! arrays.
//!
//! Differences the two libraries' specifications allow are not generated,
//! and are listed here and in `docs/libc.md`:
//! - `ato*` of a value the type cannot hold (undefined; glibc saturates
//!   through `strtol`, musl wraps);
//! - `sscanf` integer conversions of out-of-range text (undefined);
//! - `errno` after a `strto*` call that converted nothing (POSIX: may be
//!   `EINVAL`, as musl sets it; glibc leaves it): not compared then;
//! - `tolower`/`toupper` called as functions with -128..-2 (undefined):
//!   glibc returns its table's entry, musl the argument (tolerated, see
//!   `known_difference`);
//! - `%p` (`(nil)` and `0x...` in glibc, `0` and `0x...` in musl) and
//!   `strerror`'s text (implementation-defined);
//! - `%a` of subnormal doubles (glibc prints `0x0.xxxp-1022`, musl
//!   normalizes to `0x1.xxxp-10yy`; both exact) and `%La` (glibc's leading
//!   digit for `long double` is the integer bit);
//! - `+` and space flags on unsigned conversions, `#` on `d`/`i`/`c`/`s`,
//!   `0` on `c`/`s` (undefined);
//! - the sign of a NaN's text is compared (both print `-nan` for a NaN with
//!   the sign bit), but a NaN's payload (`nan(...)`) is not printed by
//!   either;
//! - the index `bsearch` returns among equal elements and the order of
//!   equal elements after `qsort` (unspecified): the value found is
//!   compared, and sorted ints are indistinguishable.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::DataModel;
use walkdown_testsupport::Rng;

/// A C string literal of `bytes` (octal escapes, so no digit that follows
/// is taken into one).
fn lit(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' && b != b'?' || b == b' ' {
            s.push(b as char);
        } else {
            write!(s, "\\{b:03o}").unwrap();
        }
    }
    s.push('"');
    s
}

/// Whether the float-scanning functions (`strtod`, `atof`, `sscanf`'s
/// float conversions: musl's `__floatscan`) are compared. They are since
/// musl is compiled without floating-point contraction (`llvm.fmuladd` on
/// `long double`, which the frontend does not lower, is gone).
const FLOATSCAN: bool = true;

const STRTO_NAMES: [&str; 9] = ["strtol", "strtoul", "strtoll", "strtoull", "strtod", "atoi", "atol", "atoll", "atof"];

/// The cases, as C tables, and a description of each for messages (the
/// ctype cases are described by their index).
struct Cases {
    c: String,
    what: Vec<String>,
}

fn integer_text(rng: &mut Rng) -> String {
    const EDGE: [&str; 34] = [
        "",
        " ",
        "+",
        "-",
        "0",
        "-0",
        "+0",
        "0x",
        "0X",
        "0x ",
        "0xg",
        "0x1g",
        "00",
        "08",
        "0b1",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "4294967295",
        "4294967296",
        "-4294967295",
        "-4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551615",
        "-18446744073709551616",
        "99999999999999999999999",
        "zz",
        "  \t\n\x0b\x0c\r-0x7fFFffFF",
    ];
    if rng.below(4) == 0 {
        return rng.pick(&EDGE).to_string();
    }
    let mut s = String::new();
    for _ in 0..rng.below(3) {
        s.push(rng.pick(&[' ', '\t', '\n', '\x0b', '\x0c', '\r']));
    }
    match rng.below(4) {
        0 => s.push('-'),
        1 => s.push('+'),
        _ => {}
    }
    match rng.below(5) {
        0 => s.push_str("0x"),
        1 => s.push_str("0X"),
        2 => s.push('0'),
        _ => {}
    }
    let digits: &[u8] = match rng.below(4) {
        0 => b"01",
        1 => b"0123456789",
        2 => b"0123456789abcdefABCDEF",
        _ => b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    };
    for _ in 0..rng.below(25) {
        s.push(rng.pick(digits) as char);
    }
    if rng.below(3) == 0 {
        s.push(rng.pick(&[' ', '.', 'g', '-', '_', 'x']));
    }
    s
}

fn float_text(rng: &mut Rng) -> String {
    const EDGE: [&str; 40] = [
        "",
        ".",
        "-",
        "+.",
        "1.",
        ".5",
        "-.5e",
        "1e",
        "1e+",
        "1e-5x",
        "0x",
        "0x.",
        "0x1p",
        "0x1.8p3",
        "-0X1.FFFFFFFFFFFFFP1023",
        "0x1p-1074",
        "0x1p-1075",
        "0x1.0000000000001p-1022",
        "inf",
        "-INF",
        "infinity",
        "INFINITYx",
        "infinit",
        "nan",
        "-NaN",
        "nan(123)",
        "nan(",
        "nan()x",
        "1e308",
        "1.8e308",
        "-1e400",
        "1e-400",
        "4.9e-324",
        "2.4e-324",
        "2.5e-324",
        "2.2250738585072011e-308",
        "9007199254740993",
        "0.1",
        "   -0",
        "1.7976931348623157e308",
    ];
    if rng.below(3) == 0 {
        return rng.pick(&EDGE).to_string();
    }
    let mut s = String::new();
    if rng.below(3) == 0 {
        s.push(' ');
    }
    match rng.below(3) {
        0 => s.push('-'),
        1 => s.push('+'),
        _ => {}
    }
    let hex = rng.below(5) == 0;
    let digits: &[u8] = if hex { b"0123456789abcdefABCDEF" } else { b"0123456789" };
    if hex {
        s.push_str("0x");
    }
    for _ in 0..rng.below(20) {
        s.push(rng.pick(digits) as char);
    }
    if rng.below(2) == 0 {
        s.push('.');
        for _ in 0..rng.below(20) {
            s.push(rng.pick(digits) as char);
        }
    }
    if rng.below(2) == 0 {
        s.push(if hex { 'p' } else { rng.pick(&['e', 'E']) });
        if rng.below(2) == 0 {
            s.push(rng.pick(&['-', '+']));
        }
        let top = if rng.below(3) == 0 { 400 } else { 30 };
        write!(s, "{}", rng.below(top)).unwrap();
    }
    if rng.below(4) == 0 {
        s.push(rng.pick(&['x', ' ', 'e', '.']));
    }
    s
}

/// A decimal text whose value `ato*` of a `bits`-wide type can hold.
fn small_integer_text(rng: &mut Rng, bits: u32) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(3) {
        s.push(rng.pick(&[' ', '\t', '\n']));
    }
    let v = (rng.next_u64() as i64 as i128) >> (64 - bits + rng.below(u64::from(bits)) as u32);
    if v >= 0 && rng.below(3) == 0 {
        s.push('+');
    }
    write!(s, "{v}").unwrap();
    if rng.below(3) == 0 {
        s.push_str(rng.pick(&["x", " 5", ".5", "e3"]));
    }
    s
}

fn strto_cases(rng: &mut Rng, dm: DataModel, c: &mut String, what: &mut Vec<String>) {
    c.push_str("static const struct scase strto_cases[] = {\n");
    let long_bits = if dm == DataModel::LP64 { 64 } else { 32 };
    let mut add = |c: &mut String, f: usize, base: i32, s: &str| {
        writeln!(c, "{{{f}, {base}, {}}},", lit(s.as_bytes())).unwrap();
        what.push(if f < 4 {
            format!("{}({s:?}, &end, {base})", STRTO_NAMES[f])
        } else {
            format!("{}({s:?})", STRTO_NAMES[f])
        });
    };
    for f in 0..4 {
        for _ in 0..90 {
            let base = if rng.below(5) == 0 { rng.range(2, 36) as i32 } else { rng.pick(&[0, 2, 8, 10, 16, 36]) };
            let s = integer_text(rng);
            add(c, f, base, &s);
        }
    }
    for _ in 0..if FLOATSCAN { 200 } else { 0 } {
        let s = float_text(rng);
        add(c, 4, 0, &s);
    }
    for (f, bits) in [(5, 32), (6, long_bits), (7, 64)] {
        for _ in 0..25 {
            let s = small_integer_text(rng, bits);
            add(c, f, 0, &s);
        }
    }
    for _ in 0..if FLOATSCAN { 40 } else { 0 } {
        let s = float_text(rng);
        add(c, 8, 0, &s);
    }
    c.push_str("};\n");
}

const SPECIAL_DOUBLES: [f64; 20] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    0.1,
    2.5,
    0.125,
    9.5,
    1e15,
    123456789.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN_POSITIVE,
    1e-300,
    0.000123456,
    999.9996,
    9.999999999,
    1e21,
];

fn random_double(rng: &mut Rng, hex: bool) -> u64 {
    let d = match rng.below(5) {
        0 => rng.pick(&SPECIAL_DOUBLES),
        1 => {
            if rng.below(2) == 0 {
                return 0x7ff8_0000_0000_0000 | (rng.below(2) << 63);
            }
            f64::from_bits(rng.next_u64())
        }
        _ => (rng.next_u64() as i64 as f64 / 9.2e18) * 10f64.powi(rng.range(-12, 25) as i32),
    };
    // Subnormals print differently under %a (allowed; see above).
    if d.is_nan() || (hex && d != 0.0 && d.abs() < f64::MIN_POSITIVE) {
        return 0x3ff0_0000_0000_0000;
    }
    d.to_bits()
}

fn printf_cases(rng: &mut Rng, dm: DataModel, c: &mut String, what: &mut Vec<String>) {
    c.push_str("static const struct pcase printf_cases[] = {\n");
    const STRINGS: [&str; 7] =
        ["", "a", "hello", "with space", "tab\there", "0123456789abcdefghijklmnopqrstuvwxyz", "é\u{1}x"];
    for _ in 0..1200 {
        let conv = rng.pick(&['d', 'i', 'u', 'o', 'x', 'X', 'c', 's', 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A', '%']);
        let flags_allowed = match conv {
            'd' | 'i' => "-+ 0",
            'u' => "-0",
            'o' | 'x' | 'X' => "-0#",
            'c' | 's' => "-",
            '%' => "",
            _ => "-+ #0",
        };
        let mut fmt = String::new();
        if rng.below(3) == 0 {
            fmt.push_str(rng.pick(&["x=", "[", "%% ", "ab "]));
        }
        fmt.push('%');
        if conv != '%' {
            for f in flags_allowed.chars() {
                if rng.below(4) == 0 {
                    fmt.push(f);
                }
            }
        }
        let (mut star, mut sw, mut sp) = (0, 0, 0);
        if conv != '%' {
            match rng.below(6) {
                0 | 1 => write!(fmt, "{}", rng.range(1, 30)).unwrap(),
                2 => {
                    fmt.push('*');
                    star |= 1;
                    sw = rng.range(-25, 25) as i32;
                }
                _ => {}
            }
            if conv != 'c' {
                match rng.below(6) {
                    0 | 1 => write!(fmt, ".{}", rng.range(0, if conv == 's' { 12 } else { 25 })).unwrap(),
                    2 => fmt.push('.'),
                    3 => {
                        fmt.push_str(".*");
                        star |= 2;
                        sp = rng.range(-3, 20) as i32;
                    }
                    _ => {}
                }
            }
        }
        let signed = matches!(conv, 'd' | 'i');
        let (len, kind) = match conv {
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let (len, s, u) = rng.pick(&[
                    ("", "K_INT", "K_UINT"),
                    ("hh", "K_INT", "K_UINT"),
                    ("h", "K_INT", "K_UINT"),
                    ("l", "K_LONG", "K_ULONG"),
                    ("ll", "K_LLONG", "K_ULLONG"),
                    ("z", "K_SIZE", "K_SIZE"),
                    ("j", "K_INTMAX", "K_UINTMAX"),
                    ("t", "K_PTRDIFF", "K_PTRDIFF"),
                ]);
                (len, if signed { s } else { u })
            }
            'c' => ("", "K_INT"),
            's' => ("", "K_STR"),
            '%' => ("", "K_NONE"),
            _ => (if rng.below(5) == 0 { "l" } else { "" }, "K_DOUBLE"),
        };
        fmt.push_str(len);
        fmt.push(conv);
        if rng.below(3) == 0 {
            fmt.push_str(rng.pick(&["!", " end", "%%"]));
        }
        let v: u64 = match kind {
            "K_DOUBLE" => random_double(rng, matches!(conv, 'a' | 'A')),
            _ if conv == 'c' => rng.range(1, 255) as u64,
            _ => match rng.below(4) {
                0 => rng.pick(&[
                    0,
                    1,
                    u64::MAX,
                    0x7fff_ffff,
                    0x8000_0000,
                    0xffff_ffff,
                    0x7fff_ffff_ffff_ffff,
                    1 << 63,
                    255,
                    128,
                    32767,
                    65535,
                ]),
                1 => rng.below(1000),
                2 => rng.next_u64() >> rng.below(64),
                _ => rng.next_u64(),
            },
        };
        let s = rng.pick(&STRINGS);
        let (n, nullbuf) = match rng.below(6) {
            0 => (-1, 0),
            1 => (0, 1),
            2 => (rng.range(0, 12) as i32, 0),
            _ => (2000, 0),
        };
        let arg = if kind == "K_DOUBLE" {
            format!("{:e}", f64::from_bits(v))
        } else if kind == "K_STR" {
            format!("{s:?}")
        } else {
            format!("{v:#x}")
        };
        let call = if n < 0 {
            "sprintf(buf, ".to_string()
        } else if nullbuf == 1 {
            "snprintf(NULL, 0, ".to_string()
        } else {
            format!("snprintf(buf, {n}, ")
        };
        let stars = match star {
            1 => format!("{sw}, "),
            2 => format!("{sp}, "),
            3 => format!("{sw}, {sp}, "),
            _ => String::new(),
        };
        what.push(format!("{call}{fmt:?}, {stars}({kind}) {arg})"));
        writeln!(
            c,
            "{{{}, {kind}, {star}, {sw}, {sp}, {n}, {nullbuf}, {v:#x}ULL, {}}},",
            lit(fmt.as_bytes()),
            lit(s.as_bytes())
        )
        .unwrap();
    }
    let _ = dm;
    c.push_str("};\n");
}

fn sscanf_cases(rng: &mut Rng, dm: DataModel, c: &mut String, what: &mut Vec<String>) {
    c.push_str("static const struct sscase sscanf_cases[] = {\n");
    if !FLOATSCAN {
        // An empty table is not C: one case the native side fills in.
        c.push_str("{\"\", \"\", S_SKIP, S_SKIP},\n");
        what.push("(placeholder)".into());
    }
    let long_bits = if dm == DataModel::LP64 { 64 } else { 32 };
    for _ in 0..if FLOATSCAN { 400 } else { 0 } {
        let mut fmt = String::new();
        let mut input = String::new();
        let mut kinds = Vec::new();
        let count = rng.range(1, 2);
        for i in 0..count {
            if i > 0 {
                let sep = rng.pick(&[" ", ",", "", " x"]);
                fmt.push_str(sep);
                input.push_str(match sep {
                    " " => rng.pick(&[" ", "  ", "\t", ""]),
                    s => {
                        if rng.below(8) == 0 {
                            ";"
                        } else {
                            s
                        }
                    }
                });
            }
            // (conversion, slot kind, value bits for integer tokens)
            let (conv, kind, bits) = rng.pick(&[
                ("%d", "S_INT", 32),
                ("%i", "S_INT", 32),
                ("%3d", "S_INT", 32),
                ("%u", "S_UINT", 32),
                ("%x", "S_UINT", 32),
                ("%o", "S_UINT", 32),
                ("%ld", "S_LONG", long_bits),
                ("%lx", "S_ULONG", long_bits),
                ("%lld", "S_LLONG", 64),
                ("%lli", "S_LLONG", 64),
                ("%hhd", "S_SCHAR", 8),
                ("%hd", "S_SHORT", 16),
                ("%*d", "S_SKIP", 32),
                ("%s", "S_STR", 0),
                ("%5s", "S_STR", 0),
                ("%c", "S_CHARS", 0),
                ("%3c", "S_CHARS", 0),
                ("%[a-z]", "S_STR", 0),
                ("%[^,]", "S_STR", 0),
                ("%f", "S_FLOAT", 1),
                ("%e", "S_FLOAT", 1),
                ("%lf", "S_DOUBLE", 1),
                ("%lg", "S_DOUBLE", 1),
                ("%la", "S_DOUBLE", 1),
                ("%n", "S_N", 0),
            ]);
            if !FLOATSCAN && bits == 1 {
                continue;
            }
            fmt.push_str(conv);
            kinds.push(kind);
            let token = if rng.below(8) == 0 {
                rng.pick(&["", "abc", "-", "+x", ",", " "]).to_string()
            } else if bits > 1 {
                // In range for the type: out-of-range text is undefined.
                let unsigned = matches!(kind, "S_UINT" | "S_ULONG");
                let v = if unsigned {
                    (rng.next_u64() >> (64 - bits)) as i128 >> rng.below(u64::from(bits))
                } else {
                    (rng.next_u64() as i64 as i128) >> (64 - bits + rng.below(u64::from(bits)) as u32)
                };
                let ws = rng.pick(&["", " ", "\n "]);
                match conv {
                    "%x" | "%lx" => format!("{ws}{}{v:x}", rng.pick(&["", "0x", "0X"])),
                    "%o" => format!("{ws}{v:o}"),
                    "%i" | "%lli" if rng.below(2) == 0 => {
                        format!("{ws}{}0x{:x}", if v < 0 { "-" } else { "" }, v.unsigned_abs())
                    }
                    _ => format!("{ws}{v}{}", rng.pick(&["", "", "x", "9"])),
                }
            } else if bits == 1 {
                float_text(rng)
            } else {
                let words = ["hello", "ab", "a,b", "Hello World", "xyz", "  lead", "longerwordthanfive"];
                rng.pick(&words).to_string()
            };
            input.push_str(&token);
        }
        if input.len() > 60 {
            input.truncate(60);
        }
        if kinds.is_empty() {
            continue;
        }
        let k1 = kinds.get(1).copied().unwrap_or("S_SKIP");
        writeln!(c, "{{{}, {}, {}, {k1}}},", lit(input.as_bytes()), lit(fmt.as_bytes()), kinds[0]).unwrap();
        what.push(format!("sscanf({input:?}, {fmt:?}, ...)"));
    }
    c.push_str("};\n");
}

fn qsort_cases(rng: &mut Rng, c: &mut String, what: &mut Vec<String>) {
    let mut table = String::from("static const struct qcase qsort_cases[] = {\n");
    for i in 0..60 {
        let n = rng.below(64) as usize;
        let range = rng.pick(&[4, 100, 1 << 31]);
        let draw = |rng: &mut Rng| -> i64 {
            if range == 1 << 31 {
                i64::from(rng.next_u64() as i32)
            } else {
                rng.range(-range, range) as i64
            }
        };
        let a: Vec<i64> = (0..n).map(|_| draw(rng)).collect();
        let mut keys: Vec<i64> = (0..8).map(|_| draw(rng)).collect();
        if n > 0 {
            keys.extend((0..4).map(|_| a[rng.below(n as u64) as usize]));
        }
        let list = |v: &[i64]| v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(", ");
        writeln!(c, "static const int qa{i}[] = {{{} 0}};", list(&a).to_string() + if n > 0 { "," } else { "" })
            .unwrap();
        writeln!(c, "static const int qk{i}[] = {{{}}};", list(&keys)).unwrap();
        writeln!(table, "{{{n}, qa{i}, {}, qk{i}}},", keys.len()).unwrap();
        what.push(format!("qsort/bsearch of [{}] for keys [{}]", list(&a), list(&keys)));
    }
    c.push_str(&table);
    c.push_str("};\n");
}

fn cases(dm: DataModel) -> Cases {
    let mut rng = Rng::new(0x11bc_0025 + dm.pointer_bits() as u64);
    let mut what = Vec::new();
    for c in -128..256 {
        what.push(format!("ctype macros (glibc's tables) of {c}"));
    }
    for c in -128..256 {
        what.push(format!("ctype functions of {c}"));
    }
    let mut c = String::new();
    strto_cases(&mut rng, dm, &mut c, &mut what);
    printf_cases(&mut rng, dm, &mut c, &mut what);
    sscanf_cases(&mut rng, dm, &mut c, &mut what);
    qsort_cases(&mut rng, &mut c, &mut what);
    Cases { c, what }
}

const HARNESS: &str = include_str!("libc_glibc/harness.c");

fn tables_then_harness(tables: &str, expected: Option<&[String]>) -> String {
    // The tables use the harness's types: declare them by splitting the
    // harness at its first case function.
    let split = HARNESS.find("/* The cases' tables go here. */").expect("harness marker");
    let mut s = String::from(if FLOATSCAN { "" } else { "#define NO_FLOATSCAN 1\n" });
    s.push_str(&HARNESS[..split]);
    s.push_str(tables);
    if let Some(lines) = expected {
        s.push_str("static const char *const expected[] = {\n");
        for l in lines {
            s.push_str(&lit(l.as_bytes()));
            s.push_str(",\n");
        }
        s.push_str("};\n");
    }
    s.push_str(&HARNESS[split..]);
    s
}

/// glibc's result lines.
fn native(dir: &Path, dm: DataModel, tables: &str) -> Vec<String> {
    let src = dir.join("glibc.c");
    std::fs::write(&src, tables_then_harness(tables, None)).unwrap();
    let exe = dir.join("glibc");
    let m = if dm == DataModel::LP64 { "-m64" } else { "-m32" };
    let st = Command::new("gcc")
        .args([m, "-std=gnu11", "-O0", "-w", "-DPRINT", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("gcc runs");
    assert!(st.success(), "gcc {m} fails on {}", src.display());
    let o = Command::new(&exe).output().expect("runs");
    assert!(o.status.success(), "native run fails: {:?}", o.status);
    String::from_utf8(o.stdout).expect("ASCII").lines().map(str::to_string).collect()
}

fn check(dm: DataModel) {
    let dir = tempfile::tempdir().unwrap();
    let Cases { c: tables, what } = cases(dm);
    let expected = native(dir.path(), dm, &tables);
    assert_eq!(expected.len(), what.len(), "one line per case");
    let src = dir.path().join("musl.c");
    std::fs::write(&src, tables_then_harness(&tables, Some(&expected))).unwrap();
    let ir = compile_c(&src, &FrontendSettings { data_model: dm, ..Default::default() }).expect("lowers");
    let goals = Goals::compute(&ir);
    let interp = Interpreter::new(&ir, &goals).expect("prepares");
    let opts =
        RunOptions { limits: ExecLimits { max_steps: 20_000_000_000, ..Default::default() }, ..Default::default() };
    let status = |k: i64, j: i64| -> i32 {
        let v = TestVector { values: vec![InputValue::Int(k.into()), InputValue::Int(j.into())] };
        match interp.run(&v, &opts).outcome {
            Outcome::Exit(c) => c,
            other => panic!("{dm}: interpreter on case {k}: {other:?}"),
        }
    };
    let bad = status(-1, -1);
    if bad == 0 {
        eprintln!("{dm}: {} cases agree with glibc", what.len());
        return;
    }
    let differing: Vec<usize> = (0..what.len()).filter(|&k| status(k as i64, -1) != 0).collect();
    let musl_text = |k: usize| {
        let mut mine = Vec::new();
        for j in 0.. {
            let b = status(k as i64, j);
            if b == 0 || j > 2000 {
                break;
            }
            mine.push(b as u8);
        }
        String::from_utf8_lossy(&mine).into_owned()
    };
    let (known, new): (Vec<usize>, Vec<usize>) = differing
        .iter()
        .partition(|&&k| known_difference(k) || allowed_difference(&what[k], &expected[k], &musl_text(k)).is_some());
    let mut report = format!(
        "{dm}: {} of {} cases differ from glibc, {} of them known (see known_difference):\n",
        differing.len(),
        what.len(),
        known.len()
    );
    for &k in new.iter().chain(known.iter().take(2)).take(25) {
        let mine = musl_text(k);
        let tag = if new.contains(&k) { "" } else { " (known)" };
        writeln!(report, "case {k}{tag}: {}\n  glibc: {}\n  musl:  {mine}", what[k], expected[k]).unwrap();
    }
    let mut by_function = std::collections::BTreeMap::<&str, usize>::new();
    for &k in &new {
        *by_function.entry(what[k].split(['(', '"', ' ']).next().unwrap_or("")).or_default() += 1;
    }
    writeln!(report, "new disagreements by function: {by_function:?}").unwrap();
    eprintln!("{report}");
    assert!(new.is_empty(), "{report}");
}

/// Allowed (undefined): the functions `tolower`/`toupper` of -128..-2
/// (not `EOF`, not an `unsigned char`): glibc returns its table's entry
/// (c + 256), musl returns c. Cases 384..511 are those arguments.
fn known_difference(k: usize) -> bool {
    (384..511).contains(&k)
}

/// Why a floating-point scan may differ between glibc and musl, if it may:
/// - `strtod`/`atof` of a NaN: the payload of `nan(n-chars)` is
///   implementation-defined, and musl gives `-nan` a positive sign;
/// - `strtod` of a subnormal or underflowing value: whether `errno` becomes
///   `ERANGE` is implementation-defined (glibc sets it, musl does not);
/// - `sscanf` of a NaN with a parenthesis (`nan(123)`): glibc stops before
///   the parenthesis, musl takes the whole `nan(n-chars)`;
/// - `sscanf` of a hex float without exponent digits (`0x1p`): glibc
///   converts the prefix `0x1`, which pushes back two characters where C
///   allows one; musl reports the matching failure C asks for;
/// - `sscanf` of a float followed by an exponent marker without digits
///   (`1e`, `1e+;`, `0x1p,`) or of `0x.`: glibc converts the prefix, which
///   pushes back more than the one character C allows; musl reports the
///   matching failure C asks for;
/// - `sscanf` of integer text out of the conversion's range (undefined:
///   glibc saturates, musl wraps);
/// - `sscanf` with `%Nc` and fewer than N characters: glibc stores them and
///   counts the conversion, musl (as C says) reports an input failure.
///
/// Whether `input` has a number followed by an exponent marker that no
/// exponent digits follow, or a `0x.` that no hex digit follows.
fn dangling_float_prefix(input: &str) -> bool {
    let b = input.as_bytes();
    (1..b.len()).any(|i| {
        let marker = matches!(b[i], b'e' | b'E' | b'p' | b'P') && (b[i - 1].is_ascii_hexdigit() || b[i - 1] == b'.');
        let mut j = i + 1;
        if j < b.len() && matches!(b[j], b'+' | b'-') {
            j += 1;
        }
        let dangling_exp = marker && !(j < b.len() && b[j].is_ascii_digit());
        let dangling_hex = b[i] == b'.'
            && i >= 2
            && b[i - 2..i].eq_ignore_ascii_case(b"0x")
            && !(i + 1 < b.len() && b[i + 1].is_ascii_hexdigit());
        dangling_exp || dangling_hex
    })
}

fn allowed_difference(what: &str, glibc: &str, musl: &str) -> Option<&'static str> {
    let bits = |line: &str| {
        line.split_whitespace().next().and_then(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok())
    };
    let nan = |b: u64| b & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && b & 0x000f_ffff_ffff_ffff != 0;
    let without_errno = |line: &str| line.split(" errno=").next().unwrap_or("").to_string();
    if what.starts_with("strtod(") || what.starts_with("atof(") {
        let (g, m) = (bits(glibc)?, bits(musl)?);
        if nan(g) && nan(m) {
            return Some("a NaN's payload and sign");
        }
        if g & 0x7ff0_0000_0000_0000 == 0 && without_errno(glibc) == without_errno(musl) {
            return Some("ERANGE on underflow");
        }
        return None;
    }
    if what.starts_with("sscanf(") {
        let input = what.split('"').nth(1).unwrap_or("");
        let format = what.split('"').nth(3).unwrap_or("");
        let short_chars = format.contains("c") && format.chars().any(|c| c.is_ascii_digit());
        if input.to_ascii_lowercase().contains("nan(") {
            return Some("a NaN's parenthesis");
        }
        if dangling_float_prefix(input) {
            return Some("a float prefix that is no matching sequence");
        }
        let long_digits = input.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() > 9);
        let integer_conversion = ["d", "i", "u", "x", "o"].iter().any(|c| format.contains(c));
        if long_digits && integer_conversion {
            return Some("an integer out of its type's range");
        }
        if short_chars {
            return Some("a short %Nc");
        }
    }
    None
}

#[test]
fn musl_agrees_with_glibc_lp64() {
    check(DataModel::LP64);
}

#[test]
fn musl_agrees_with_glibc_ilp32() {
    check(DataModel::ILP32);
}
