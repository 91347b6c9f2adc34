//! Seeded property tests of the readers of test files: random and mutated
//! Test-Comp testcase and metadata XML, one-value-a-line files, value
//! lists and literals. No input may make a reader panic or hang; what a
//! reader accepts must survive writing and reading again unchanged.
//!
//! The generator is a fixed xorshift, so a failure names its seed and
//! reproduces; `WALKDOWN_FUZZ_ROUNDS` raises the number of inputs for a
//! longer local run.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;
use walkdown_formats::metadata::parse_metadata;
use walkdown_formats::testcase::{format_testcase, parse_testcase};
use walkdown_formats::{format_value, parse_value, parse_value_list, TestCase};

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
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const TESTCASE: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE testcase PUBLIC "+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN" "https://sosy-lab.org/test-format/testcase-1.1.dtd">
<testcase coversError="true">
  <input variable="x" type="int">-17</input>
  <input type="unsigned char">0xff</input>
  <input>'a'</input>
  <input type="double">1.5e-3</input>
  <input>true</input>
</testcase>
"#;

const METADATA: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE test-metadata PUBLIC "+//IDN sosy-lab.org//DTD test-format test-metadata 1.1//EN" "https://sosy-lab.org/test-format/test-metadata-1.1.dtd">
<test-metadata>
  <sourcecodelang>C</sourcecodelang>
  <producer>walkdown 0.1.0</producer>
  <specification>COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )</specification>
  <programfile>task.c</programfile>
  <programhash>0123456789abcdef</programhash>
  <entryfunction>main</entryfunction>
  <architecture>32bit</architecture>
  <creationtime>2024-01-01T00:00:00Z</creationtime>
</test-metadata>
"#;

/// Pieces that matter to an XML reader and to literals.
const PIECES: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "<?",
    "?>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<!DOCTYPE x [",
    "]>",
    "&amp;",
    "&lt;",
    "&#65;",
    "&#x10FFFF;",
    "&#0;",
    "&bogus;",
    "&",
    "\"",
    "'",
    "=",
    " ",
    "\n",
    "\t",
    "\r",
    "\0",
    "é",
    "😀",
    "<input>",
    "</input>",
    "<input type=\"int\">",
    "<testcase>",
    "</testcase>",
    "<test-metadata>",
    "</test-metadata>",
    "coversError=\"true\"",
    "0x",
    "0b",
    "-",
    "+",
    "1",
    "9",
    "e",
    ".",
    "inf",
    "nan",
    "u",
    "l",
    "ULL",
    "'\\n'",
    "'\\x41'",
    "'",
    "\\",
    "340282366920938463463374607431768211456",
    "-170141183460469231731687303715884105729",
    "18446744073709551616",
    "1e999",
    "0x1p-1074",
];

/// Literals in every form the value syntax has, and near-misses.
const LITERALS: &[&str] = &[
    "0",
    "-0",
    "+7",
    "0x7fffffff",
    "0X80000000",
    "0b1011",
    "-0b1",
    "'a'",
    "'\\n'",
    "'\\0'",
    "'\\x7f'",
    "'\\''",
    "true",
    "false",
    "TRUE",
    "1.5",
    "-0.0",
    "1e308",
    "1e309",
    "-inf",
    "nan",
    "0x1.8p1",
    "5u",
    "5UL",
    "5ull",
    "007",
    "1_000",
    "",
    " ",
    "--1",
    "0x",
    "0b2",
    "'ab'",
    "'",
    "1.2.3",
    "٣",
    "１",
    "340282366920938463463374607431768211455",
    "-170141183460469231731687303715884105728",
];

fn rounds() -> usize {
    std::env::var("WALKDOWN_FUZZ_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// One edit of `text` at a random char boundary: delete, duplicate or
/// swap a span, or insert a piece.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let mut at = || bounds[rng.below(bounds.len())];
    let (mut a, mut b) = (at(), at());
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    let c = at();
    match rng.below(5) {
        0 => format!("{}{}", &text[..a], &text[b..]),
        1 => format!("{}{}{}", &text[..b], &text[a..b], &text[b..]),
        2 => {
            let piece = rng.pick(PIECES);
            format!("{}{piece}{}", &text[..c], &text[c..])
        }
        3 => {
            // Put the span somewhere else (possibly inside itself).
            let span = &text[a..b];
            let rest = format!("{}{}", &text[..a], &text[b..]);
            let rest_bounds: Vec<usize> = rest.char_indices().map(|(i, _)| i).chain([rest.len()]).collect();
            let d = rest_bounds[rng.below(rest_bounds.len())];
            format!("{}{span}{}", &rest[..d], &rest[d..])
        }
        _ => {
            let piece = rng.pick(LITERALS);
            format!("{}{piece}{}", &text[..a], &text[b..])
        }
    }
}

/// A text of random pieces, literals and bytes.
fn random_text(rng: &mut Rng) -> String {
    let mut text = String::new();
    for _ in 0..rng.below(60) {
        match rng.below(4) {
            0 => text.push_str(rng.pick(LITERALS)),
            1 => text.push(char::from_u32(rng.below(0x3000) as u32).unwrap_or('?')),
            _ => text.push_str(rng.pick(PIECES)),
        }
    }
    text
}

/// Runs `work` on a thread and fails the test if it panics or does not end
/// within a generous limit (a hang is a failure too, not a stuck CI job).
fn within_limits(what: &str, work: impl FnOnce() -> Option<String> + Send + 'static) {
    let (done, wait) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = catch_unwind(AssertUnwindSafe(work));
        let _ = done.send(outcome);
    });
    match wait.recv_timeout(Duration::from_secs(120)) {
        Ok(Ok(None)) => {}
        Ok(Ok(Some(problem))) => panic!("{what}: {problem}"),
        Ok(Err(_)) => panic!("{what}: the test's own code panicked"),
        Err(_) => panic!("{what}: still running after 120 s: a reader hangs"),
    }
}

/// Reads `text` with every reader; whatever a reader accepts must come back
/// unchanged from writing it and reading it again.
fn check_text(text: &str) -> Option<String> {
    let origin = Path::new("fuzz.xml");
    let show = || format!("{text:?}");
    if let Ok(case) = parse_testcase(text, origin) {
        match parse_testcase(&format_testcase(&case), origin) {
            Ok(again) if same_case(&again, &case) => {}
            Ok(again) => return Some(format!("{} reads as {case:?} but rereads as {again:?}", show())),
            Err(e) => return Some(format!("{} reads, but its rewrite does not: {e}", show())),
        }
    }
    let _ = parse_metadata(text, origin);
    let _ = walkdown_formats::parse_lines(text, origin);
    if let Ok(list) = parse_value_list(text) {
        for v in list.values {
            if parse_value(&format_value(v)).ok() != Some(v) && !is_nan(v) {
                return Some(format!("value {v:?} from {} does not reread", show()));
            }
        }
    }
    None
}

fn is_nan(v: walkdown_ir::testvec::InputValue) -> bool {
    matches!(v, walkdown_ir::testvec::InputValue::Float(f) if f.is_nan())
}

/// Equal values (NaN equal to NaN, as its bits are what a test means) and
/// annotations.
fn same_case(a: &TestCase, b: &TestCase) -> bool {
    use walkdown_ir::testvec::InputValue::*;
    a.covers_error == b.covers_error
        && a.annotations == b.annotations
        && a.vector.values.len() == b.vector.values.len()
        && a.vector.values.iter().zip(&b.vector.values).all(|(x, y)| match (x, y) {
            (Float(p), Float(q)) => p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
            _ => x == y,
        })
}

fn run_batch(name: &str, seed: u64, make: fn(&mut Rng) -> String) {
    let n = rounds();
    within_limits(name, move || {
        let mut rng = Rng(seed);
        for i in 0..n {
            let text = make(&mut rng);
            match catch_unwind(AssertUnwindSafe(|| check_text(&text))) {
                Ok(None) => {}
                Ok(Some(problem)) => return Some(format!("input {i} (seed {seed:#x}): {problem}")),
                Err(_) => return Some(format!("input {i} (seed {seed:#x}) makes a reader panic: {text:?}")),
            }
        }
        None
    });
}

#[test]
fn mutated_testcases_never_panic_or_hang() {
    run_batch("mutated testcase", 0x7e57_ca5e_0001, |rng| {
        let mut text = TESTCASE.to_string();
        for _ in 0..1 + rng.below(4) {
            text = mutate(rng, &text);
        }
        text
    });
}

#[test]
fn mutated_metadata_never_panics_or_hangs() {
    run_batch("mutated metadata", 0x7e57_ca5e_0002, |rng| {
        let mut text = METADATA.to_string();
        for _ in 0..1 + rng.below(4) {
            text = mutate(rng, &text);
        }
        text
    });
}

#[test]
fn random_texts_never_panic_or_hang() {
    run_batch("random text", 0x7e57_ca5e_0003, random_text);
}

#[test]
fn generated_testcases_read_back_exactly() {
    // Well-formed test cases with random literals: each reads (or is refused
    // with an error), and what reads survives a rewrite.
    run_batch("generated testcase", 0x7e57_ca5e_0004, |rng| {
        let mut text = String::from("<testcase>\n");
        for _ in 0..rng.below(8) {
            text.push_str(&format!("<input>{}</input>\n", rng.pick(LITERALS)));
        }
        text.push_str("</testcase>\n");
        text
    });
}

#[test]
fn deep_and_long_inputs_end() {
    let inputs = [
        "<a>".repeat(100_000),
        format!("<testcase>{}</testcase>", "<input>1</input>".repeat(100_000)),
        format!("<testcase><input>{}</input></testcase>", "9".repeat(1_000_000)),
        format!("<testcase><input>'{}'</input></testcase>", "\\".repeat(100_000)),
        "<!--".repeat(100_000),
        "&".repeat(1_000_000),
    ];
    within_limits("deep and long inputs", move || {
        inputs.iter().enumerate().find_map(|(i, t)| match catch_unwind(AssertUnwindSafe(|| check_text(t))) {
            Ok(problem) => problem,
            Err(_) => Some(format!("long input {i} makes a reader panic")),
        })
    });
}
