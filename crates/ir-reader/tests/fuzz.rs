//! Structural fuzzing of the reader, complementing `robustness.rs` (which
//! edits characters, lines and single tokens of five programs): lines
//! spliced from one program into another, lines swapped, ids renumbered,
//! and lines made of the programs' own tokens in random order, over every
//! `.wir` program of the repository. Such texts get past the lexer far more
//! often and reach the parser's and the verifier's deeper checks. For each
//! input: no panic, no hang (each input is timed, the whole batch runs
//! under a watchdog), a verifier complaint names a line of the text, and a
//! text that parses prints to a fixed point.
//!
//! Seeded (xorshift), so a failure reproduces; `WALKDOWN_FUZZ_ROUNDS` sets
//! the number of inputs for a longer local run.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use walkdown_ir::write::program_to_string;
use walkdown_ir_reader::{parse_and_verify, parse_program, ReadError};

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

/// Every `.wir` program of the repository: this crate's, and the test
/// programs of the analyses (read from their directories; missing ones are
/// simply not used).
fn seeds() -> Vec<String> {
    let crates = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut texts = Vec::new();
    for dir in ["ir-reader/tests/programs", "absint/tests/wir", "bmc/tests/passes"] {
        let Ok(entries) = std::fs::read_dir(crates.join(dir)) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "wir")) {
            texts.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    assert!(texts.len() >= 5, "the reader's own programs are missing");
    texts
}

fn rounds() -> usize {
    std::env::var("WALKDOWN_FUZZ_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(4000)
}

/// One structural mutation of `text`, drawing material from `seeds`.
fn mutate(rng: &mut Rng, text: &str, seeds: &[String], vocabulary: &[&str]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len();
    match rng.below(8) {
        6 | 7 => {
            // Another type or value on one line: well-formed text, but
            // operands that disagree (what the verifier is for).
            const SWAPS: &[&str] = &["i1", "i8", "i32", "i64", "ptr", "f64", "v0", "v1", "v2", "b0", "b1", "b2"];
            let i = rng.below(n);
            let from = SWAPS[rng.below(SWAPS.len())];
            let to = SWAPS[rng.below(SWAPS.len())];
            if from.as_bytes()[0] == to.as_bytes()[0]
                || (from.starts_with(['i', 'p', 'f']) && to.starts_with(['i', 'p', 'f']))
            {
                lines[i] = replace_word_once(&lines[i], from, to);
            }
        }
        0 => {
            // Splice a run of lines from another program.
            let other: Vec<&str> = seeds[rng.below(seeds.len())].lines().collect();
            let start = rng.below(other.len());
            let len = 1 + rng.below(8);
            let at = rng.below(n + 1);
            let run: Vec<String> = other.iter().skip(start).take(len).map(|l| l.to_string()).collect();
            lines.splice(at..at, run);
        }
        1 => {
            let (a, b) = (rng.below(n), rng.below(n));
            lines.swap(a, b);
        }
        2 => {
            // Renumber one id everywhere on one line: a value or block
            // defined twice, used undefined, or out of order.
            let i = rng.below(n);
            let kind = if rng.below(2) == 0 { 'v' } else { 'b' };
            let from = format!("{kind}{}", rng.below(6));
            let to = format!("{kind}{}", rng.below(8));
            lines[i] = lines[i].replace(&from, &to);
        }
        3 => {
            // A line of the programs' own tokens in random order.
            let len = 1 + rng.below(10);
            let line: Vec<&str> = (0..len).map(|_| vocabulary[rng.below(vocabulary.len())]).collect();
            let at = rng.below(n + 1);
            lines.insert(at, format!("  {}", line.join(" ")));
        }
        4 => {
            // Drop a run of lines (a block's label, a function's `}`).
            let start = rng.below(n);
            let len = (1 + rng.below(4)).min(n - start);
            lines.drain(start..start + len);
        }
        _ => {
            // Duplicate a line (a second terminator, a second definition).
            let i = rng.below(n);
            let line = lines[i].clone();
            lines.insert(rng.below(n + 1), line);
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// `line` with its first whole-word `from` replaced by `to`.
fn replace_word_once(line: &str, from: &str, to: &str) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut at = 0;
    while let Some(found) = line[at..].find(from) {
        let start = at + found;
        let end = start + from.len();
        let before = line[..start].chars().next_back().is_some_and(is_word);
        let after = line[end..].chars().next().is_some_and(is_word);
        if !before && !after {
            return format!("{}{to}{}", &line[..start], &line[end..]);
        }
        at = end;
    }
    line.to_string()
}

/// What is wrong with how the reader treats `text`, if anything.
fn check(text: &str) -> Option<String> {
    let line_count = text.lines().count() as u32;
    match parse_and_verify(text) {
        Err(ReadError::Verify(errors)) => {
            for (line, e) in &errors.errors {
                if let Some(line) = line {
                    if *line == 0 || *line > line_count {
                        return Some(format!("verifier error `{e}` names line {line} of a {line_count}-line text"));
                    }
                }
            }
        }
        Err(ReadError::Parse(e)) if e.line == 0 || e.line > line_count.max(1) + 1 => {
            return Some(format!("parse error `{e}` names a line outside the text"));
        }
        _ => {}
    }
    let Ok(program) = parse_program(text) else { return None };
    let printed = program_to_string(&program);
    match parse_program(&printed) {
        Ok(again) if program_to_string(&again) == printed => None,
        Ok(_) => Some(format!("not a fixed point:\n{printed}")),
        Err(e) => Some(format!("printed text does not parse: {e}\n{printed}")),
    }
}

#[test]
fn structural_mutations_never_panic_hang_or_misplace_errors() {
    let seeds = seeds();
    let n = rounds();
    let (done, wait) = mpsc::channel();
    std::thread::spawn(move || {
        let words: Vec<String> = seeds.iter().flat_map(|s| s.split_whitespace().map(str::to_string)).collect();
        let mut vocabulary: Vec<&str> = words.iter().map(String::as_str).collect();
        vocabulary.sort_unstable();
        vocabulary.dedup();
        let mut rng = Rng(0xf00d_5eed_0000_0014);
        let mut slowest = (Duration::ZERO, String::new());
        // Inputs refused by the parser, refused by the verifier, accepted.
        let mut kinds = [0usize; 3];
        for i in 0..n {
            let mut text = seeds[rng.below(seeds.len())].clone();
            for _ in 0..1 + rng.below(2) {
                text = mutate(&mut rng, &text, &seeds, &vocabulary);
            }
            kinds[match parse_and_verify(&text) {
                Err(ReadError::Parse(_)) => 0,
                Err(ReadError::Verify(_)) => 1,
                Ok(_) => 2,
            }] += 1;
            let start = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| check(&text)));
            let took = start.elapsed();
            if took > slowest.0 {
                slowest = (took, text.clone());
            }
            let problem = match outcome {
                Ok(problem) => problem,
                Err(_) => Some("panic".into()),
            };
            if let Some(problem) = problem {
                let _ = done.send(Err(format!("input {i}: {problem}\n--- input ---\n{text}")));
                return;
            }
        }
        let _ = done.send(Ok((slowest, kinds)));
    });
    match wait.recv_timeout(Duration::from_secs(300)) {
        Ok(Ok(((slowest, text), kinds))) => {
            eprintln!(
                "{n} inputs: {} refused by the parser, {} by the verifier, {} accepted",
                kinds[0], kinds[1], kinds[2]
            );
            // The mutations are meant to reach past the lexer and parser.
            assert!(kinds[1] * 50 >= n && kinds[2] * 20 >= n, "too few inputs reach the verifier: {kinds:?}");
            // A reader linear in its input takes microseconds on these
            // texts; a second means something quadratic or worse.
            assert!(slowest < Duration::from_secs(1), "an input took {slowest:?}:\n{text}");
        }
        Ok(Err(problem)) => panic!("{problem}"),
        Err(_) => panic!("the reader still runs after 300 s: it hangs on some input"),
    }
}
