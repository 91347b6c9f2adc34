//! No input makes the reader (or the verifier behind `parse_and_verify`)
//! panic: valid programs cut short at every character, and thousands of
//! random character-, line- and token-level mutations of them. Whatever
//! parses must also print to a fixed point: printing, parsing and printing
//! again gives the same text.

use std::panic::{catch_unwind, AssertUnwindSafe};
use walkdown_ir::write::program_to_string;
use walkdown_ir_reader::{parse_and_verify, parse_program};

const SEEDS: &[&str] = &[
    include_str!("programs/integers.wir"),
    include_str!("programs/floats.wir"),
    include_str!("programs/control.wir"),
    include_str!("programs/memory.wir"),
    include_str!("programs/ilp32.wir"),
];

/// Characters that matter to the lexer and parser, to insert or substitute.
const INTERESTING: &[char] = &[
    '@',
    '"',
    '\\',
    '(',
    ')',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '!',
    ';',
    '-',
    '+',
    '.',
    '=',
    '*',
    '>',
    '0',
    '1',
    '9',
    'v',
    'b',
    'x',
    'e',
    'f',
    ' ',
    '\n',
    '\t',
    '\r',
    '\u{e9}',
    '\u{1F600}',
    '\0',
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Parses `text` every way the crate offers; returns a description of what
/// went wrong (a panic, or a printed text that is not a fixed point).
fn check(text: &str) -> Option<String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let _ = parse_and_verify(text);
        let Ok(program) = parse_program(text) else { return None };
        let printed = program_to_string(&program);
        match parse_program(&printed) {
            Ok(again) if program_to_string(&again) == printed => None,
            Ok(again) => {
                Some(format!("not a fixed point:\n{printed}\n--- reprinted ---\n{}", program_to_string(&again)))
            }
            Err(e) => Some(format!("printed text does not parse: {e}\n{printed}")),
        }
    }));
    match outcome {
        Ok(problem) => problem,
        Err(_) => Some("panic".to_string()),
    }
}

fn assert_all_fine(texts: impl Iterator<Item = String>) {
    for text in texts {
        if let Some(problem) = check(&text) {
            panic!("{problem}\n--- input ---\n{text}");
        }
    }
}

#[test]
fn every_truncation_is_handled() {
    for seed in SEEDS {
        assert_all_fine(seed.char_indices().map(|(i, _)| seed[..i].to_string()));
    }
}

/// Literals that stress widths and signs, to put where a number stood.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "-128",
    "65536",
    "2147483648",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "4294967295",
    "1e308",
    "-inf",
    "0x7ff8000000000001",
    "0xffffffff",
    "-0.0",
];

const TYPE_NAMES: &[&str] = &["i1", "i8", "i16", "i32", "i64", "ptr", "f32", "f64"];

/// Byte ranges of the whole words (`[A-Za-z0-9_.]` runs) of `text` that
/// `select` accepts.
fn word_ranges(text: &str, select: impl Fn(&str) -> bool) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if is_word(bytes[i]) {
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            if select(&text[start..i]) {
                ranges.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    ranges
}

/// Replaces one word that `select` accepts with one of `replacements`.
fn replace_word(rng: &mut Rng, text: &str, select: impl Fn(&str) -> bool, replacements: &[&str]) -> String {
    let ranges = word_ranges(text, select);
    if ranges.is_empty() {
        return text.to_string();
    }
    let (start, end) = ranges[rng.below(ranges.len())];
    format!("{}{}{}", &text[..start], replacements[rng.below(replacements.len())], &text[end..])
}

fn mutate(rng: &mut Rng, seed: &str) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    let mut lines: Vec<String> = seed.lines().map(str::to_string).collect();
    let words: Vec<&str> = seed.split_whitespace().collect();
    match rng.below(9) {
        7 => return replace_word(rng, seed, |w| TYPE_NAMES.contains(&w), TYPE_NAMES),
        8 => return replace_word(rng, seed, |w| w.as_bytes()[0].is_ascii_digit(), NUMBERS),
        0 => {
            let at = rng.below(chars.len());
            chars.remove(at);
        }
        1 => {
            let at = rng.below(chars.len() + 1);
            chars.insert(at, INTERESTING[rng.below(INTERESTING.len())]);
        }
        2 => {
            let at = rng.below(chars.len());
            chars[at] = INTERESTING[rng.below(INTERESTING.len())];
        }
        3 => {
            let at = rng.below(lines.len());
            let line = lines[at].clone();
            lines.insert(rng.below(lines.len() + 1), line);
            return lines.join("\n");
        }
        4 => {
            let at = rng.below(lines.len());
            lines.remove(at);
            return lines.join("\n");
        }
        5 => {
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(a, b);
            return lines.join("\n");
        }
        _ => {
            // Replace one whitespace-separated word with another from the text.
            let target = words[rng.below(words.len())];
            let replacement = words[rng.below(words.len())];
            return seed.replacen(target, replacement, 1);
        }
    }
    chars.into_iter().collect()
}

#[test]
fn random_mutations_are_handled() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for seed in SEEDS {
        let texts: Vec<String> = (0..800)
            .map(|_| {
                // Up to three mutations on top of each other.
                let rounds = 1 + rng.below(3);
                let mut text = seed.to_string();
                for _ in 0..rounds {
                    text = mutate(&mut rng, &text);
                }
                text
            })
            .collect();
        assert_all_fine(texts.into_iter());
    }
}

#[test]
fn hostile_inputs_are_handled() {
    let long_line = "v".repeat(100_000);
    let deep = "(".repeat(10_000);
    let inputs = [
        "",
        "\n\n\n",
        ";",
        "\"",
        "@",
        "@\"",
        "@\"\\",
        "@\"\\f",
        "!",
        "-",
        "->",
        "..",
        "datamodel",
        "global",
        "global @g size 18446744073709551615 align 4294967295 = \"\" relocs 18446744073709551615: @g -9223372036854775808",
        "global @g size 99999999999999999999999 align 1",
        "define @f(",
        "define @f() {",
        "define @f() {\nb0:",
        "define @f() {\nb4294967295:\n  ret\n}",
        "define @f() {\nb0:\n  jump b4294967295\n}",
        "define @f() {\nb0(v4294967295: i32):\n  ret\n}",
        "define @f() {\nb0(v4294967294: i32):\n  ret\n}",
        "define @f() {\nb0:\n  v99999999999999999999 = nondet i32\n  ret\n}",
        "define @f() {\nb0:\n  switch i64 i64 0, b0 [18446744073709551615: b0, -9223372036854775808: b0]\n}",
        "define @f() {\nb0:\n  ret !4294967295:4294967295:4294967295\n}",
        "define @f() {\nb0:\n  ret !4294967296:1\n}",
        "define @f() {\nb0:\n  v0 = alloca i64 0, align 0\n  ret\n}",
        "define @f() {\nb0:\n  v0 = alloca i64 0, align 4294967295\n  ret\n}",
        "define @f() -> i32 {\nb0:\n  v0 = call i32 @f(\n}",
        "define @f() {\nb0:\n  call void *v0()\n  ret\n}",
        "define @f() {\nb0:\n  v0 = fadd f64 f64 1e999999, f64 -0x\n  ret\n}",
        long_line.as_str(),
        deep.as_str(),
    ];
    assert_all_fine(inputs.iter().map(|s| s.to_string()));
}
