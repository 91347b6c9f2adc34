//! The program's own words as mutations of its environment: arguments and
//! standard input made of the strings the program compares them with.
//!
//! Why: a command-line tool parses its arguments in the C library
//! (`getopt_long` walks the option string and the long options' names)
//! and compares its operands with `strcmp` against its keywords (`expr`'s
//! `match`, `substr`, ...). Those branches are library code without goals
//! of their own, and a path through them is a conjunction over several
//! argument bytes; the concolic search reaches them one flipped branch at
//! a time, behind every other candidate of a long run. The words are in
//! the program's constant data: an option string `"+as:z"` names `-a`,
//! `-s` and `-z`, a long option's name `"multiple"` is `--multiple` (and
//! any unambiguous prefix of it, which is what fits an argument of L
//! bytes). Fuzzers take the same words as a dictionary (AFL++'s
//! auto-dictionary); here they are one more mutation of a kept test, kept
//! only when the mutant covers something new, so a useless word costs a
//! replay.
//!
//! A program that parses numbers with the C library (`strtol`, `strtold`,
//! `atoi`, `sscanf`, ...) also gets numerals: the parsers' branches (sign,
//! digits, a decimal point, an exponent, `inf`) are library code, and an
//! operand such as `seq 1 10` or `cut -f 2` needs a whole argument that is
//! a number. The numerals are the shapes those parsers tell apart, not
//! values of any one program. A program that parses options with `getopt`
//! gets `--` and `-`, the two operands every such parser knows.
//!
//! What runs once: [`EnvWords::of`] reads the constant strings that the
//! program's own functions reference (directly, or through one table of
//! addresses such as `struct option longopts[]`) and derives the words.
//! What runs per mutation: [`EnvWords::mutate`] decodes the vector's
//! environment prefix (as the native harness reads it), puts a word in an
//! argument or at a place of standard input, and encodes it again; the
//! program's own inputs after the prefix are kept.

use crate::search::Rng;
use std::collections::BTreeSet;
use walkdown_ir::env::{ArgBound, EnvInputs, Environment};
use walkdown_ir::testvec::InputValue;
use walkdown_ir::{GlobalId, Operand, Program, RelocTarget};

/// At most this many words: the mutation picks one at random.
const MAX_WORDS: usize = 512;
/// Strings longer than this are text (messages), not words.
const MAX_STRING: usize = 64;

/// The words of a program with an environment (the environment itself
/// is the program's; [`EnvWords::mutate`] is given it).
pub struct EnvWords {
    words: Vec<Vec<u8>>,
}

impl EnvWords {
    /// The words of `program`; `None` when it has no environment or no
    /// word fits it.
    pub fn of(program: &Program) -> Option<EnvWords> {
        let env = program.environment.as_ref()?;
        let longest = env.args.map_or(0, |a| a.len as usize).max(env.stdin.unwrap_or(0) as usize);
        let mut words = BTreeSet::new();
        let numerals = if parses_numbers(program) { NUMERALS } else { &[] };
        let conventions = if parses_options(program) { OPTION_CONVENTIONS } else { &[] };
        let given = numerals.iter().chain(conventions).map(|n| n.as_bytes().to_vec());
        let strings = constant_strings(program);
        let tokens: Vec<Vec<u8>> = strings.iter().flat_map(|s| bracketed_tokens(s)).collect();
        let whole = strings.into_iter().filter(|s| is_word_like(s));
        for s in whole.chain(tokens).chain(given) {
            for w in words_of(&s) {
                if !w.is_empty() && w.len() <= longest {
                    words.insert(w);
                }
            }
        }
        let words: Vec<Vec<u8>> = words.into_iter().take(MAX_WORDS).collect();
        (!words.is_empty()).then_some(EnvWords { words })
    }

    /// `values` with one to three words put into its arguments or its
    /// standard input. Several at once because one behaviour often needs
    /// a combination: an option and its argument (`-f` `%g`), an option
    /// and an input line that exercises it (`-ba` and a line to number).
    pub fn mutate(&self, env: &Environment, rng: &mut Rng, values: &[InputValue]) -> Vec<InputValue> {
        edit_env(env, values, |inputs| {
            for _ in 0..=rng.below(3) {
                self.place(env, rng, inputs);
            }
        })
    }

    /// Puts one word into an argument or into standard input.
    fn place(&self, env: &Environment, rng: &mut Rng, inputs: &mut EnvInputs) {
        let word = &self.words[rng.below(self.words.len() as u64) as usize];
        let use_stdin = match (env.args, env.stdin) {
            (Some(_), Some(_)) => rng.below(2) == 0,
            (None, Some(_)) => true,
            _ => false,
        };
        if use_stdin {
            let most = env.stdin.unwrap_or(0) as usize;
            put_in_stdin(&mut inputs.stdin, word, most, rng);
        } else if let Some(a) = env.args {
            let arg: Vec<u8> = word.iter().copied().take(a.len as usize).take_while(|&b| b != 0).collect();
            put_argument(a, rng, &mut inputs.args, arg);
        }
    }
}

/// The input values of a test with these arguments and this standard
/// input under `env` (for the environment mutations' unit tests).
#[cfg(test)]
pub(crate) fn test_vector(env: &Environment, args: &[&str], stdin: &str) -> Vec<InputValue> {
    let inputs = EnvInputs {
        args: args.iter().map(|a| a.as_bytes().to_vec()).collect(),
        stdin: stdin.as_bytes().to_vec(),
        files: Vec::new(),
    };
    env.encode(&inputs).expect("within the bounds")
}

/// `values` with its environment prefix (decoded as the native harness
/// reads it) changed by `edit`, and the program's own values after it
/// kept; `values` unchanged when the edit leaves the environment's bounds.
pub(crate) fn edit_env(env: &Environment, values: &[InputValue], edit: impl FnOnce(&mut EnvInputs)) -> Vec<InputValue> {
    let (mut inputs, rest) = env.decode_lenient(values);
    edit(&mut inputs);
    match env.encode(&inputs) {
        Ok(mut out) => {
            out.extend_from_slice(&rest);
            out
        }
        Err(_) => values.to_vec(),
    }
}

/// Puts `arg` in place of one of `args` or after the last, within the
/// argument count of `bound`.
pub(crate) fn put_argument(bound: ArgBound, rng: &mut Rng, args: &mut Vec<Vec<u8>>, arg: Vec<u8>) {
    let slot = rng.below(args.len() as u64 + 1).min(u64::from(bound.count.saturating_sub(1))) as usize;
    if slot < args.len() {
        args[slot] = arg;
    } else if bound.count > 0 {
        args.push(arg);
    }
}

/// Writes `word` into standard input of at most `most` bytes: half the
/// time over the bytes at a random place, half the time as a whole line
/// (at the start of a line, a newline after it), because line-oriented
/// filters compare whole lines with their keywords (`nl`'s section
/// delimiters, a `uniq` of equal lines).
fn put_in_stdin(stdin: &mut Vec<u8>, word: &[u8], most: usize, rng: &mut Rng) {
    let as_line = rng.below(2) == 0;
    let at = if as_line {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(stdin.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1))
            .collect();
        starts[rng.below(starts.len() as u64) as usize]
    } else {
        rng.below(stdin.len() as u64 + 1) as usize
    };
    let mut bytes = word.to_vec();
    if as_line {
        bytes.push(b'\n');
    }
    let end = (at + bytes.len()).min(most);
    if at >= end {
        return;
    }
    if stdin.len() < end {
        stdin.resize(end, 0);
    }
    stdin[at..end].copy_from_slice(&bytes[..end - at]);
}

/// The C library's number parsers: a program that has one of them reads
/// numbers from text.
const NUMBER_PARSERS: &[&str] = &[
    "strtol",
    "strtoul",
    "strtoll",
    "strtoull",
    "strtoimax",
    "strtoumax",
    "strtof",
    "strtod",
    "strtold",
    "atoi",
    "atol",
    "atoll",
    "atof",
    "sscanf",
    "scanf",
    "fscanf",
    "vsscanf",
    "vfscanf",
];

/// The numerals such a program gets as words: each shape the parsers tell
/// apart (zero, one digit, several, a sign, a fraction, an exponent, hex,
/// infinity and NaN), with small values, as an operand or a count has them.
const NUMERALS: &[&str] = &[
    "0", "1", "2", "3", "9", "10", "-1", "+1", "-0", "0.5", "1.5", ".5", "1.", "-2.5", "1e2", "1e-2", "0x1f", "010",
    "inf", "-inf", "nan",
];

/// The operands every `getopt` parser gives a meaning: `--` ends the
/// options (what follows is an operand even if it starts with `-`), `-`
/// names standard input or output.
const OPTION_CONVENTIONS: &[&str] = &["--", "-"];

/// Whether the program parses options with `getopt` or one of its
/// variants (gnulib renames them `rpl_getopt_long` and so on).
fn parses_options(program: &Program) -> bool {
    program.funcs.iter().any(|(_, f)| f.name.contains("getopt"))
}

/// Whether the program calls one of the C library's number parsers.
fn parses_numbers(program: &Program) -> bool {
    program.funcs.iter().any(|(_, f)| NUMBER_PARSERS.contains(&f.name.as_str()))
}

/// The constant strings the program's own functions reference, directly
/// or through a constant table of addresses (each NUL-terminated piece).
fn constant_strings(program: &Program) -> Vec<Vec<u8>> {
    let mut globals: BTreeSet<GlobalId> = BTreeSet::new();
    for (_, f) in program.funcs.iter() {
        let Some(body) = &f.body else { continue };
        if f.library || walkdown_ir::goals::is_runtime_function(&f.name) {
            continue;
        }
        for (_, data) in body.blocks.iter() {
            for &inst in &data.insts {
                body.insts[inst].kind.for_each_operand(|o| {
                    if let Operand::Global(g) = o {
                        globals.insert(*g);
                    }
                });
            }
        }
    }
    let tables: Vec<GlobalId> = globals.iter().copied().collect();
    for g in tables {
        for r in &program.globals[g].relocs {
            if let RelocTarget::Global(t) = r.target {
                globals.insert(t);
            }
        }
    }
    let mut out = Vec::new();
    for g in globals {
        let data = &program.globals[g];
        if !data.constant || !data.relocs.is_empty() {
            continue;
        }
        out.extend(data.init.split(|&b| b == 0).filter(|s| !s.is_empty()).map(<[u8]>::to_vec));
    }
    out
}

/// Whether a constant string is short, printable text on one line: a word
/// as it is; longer text is a message.
fn is_word_like(s: &[u8]) -> bool {
    s.len() <= MAX_STRING && s.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
}

/// The bracketed tokens of a text (`[=CHAR=]`, `[::]`, `[c*]`), quotes
/// and trailing punctuation stripped: how usage texts and error messages
/// spell the syntax a program reads (`tr`'s `--help` lists `[=CHAR=]`
/// and `[CHAR*REPEAT]`, its messages `'[==]'`), which no single constant
/// string of the program holds.
fn bracketed_tokens(text: &[u8]) -> Vec<Vec<u8>> {
    let quotes: &[u8] = b"'\"`";
    text.split(|b| b.is_ascii_whitespace())
        .map(|t| {
            let t = t.trim_ascii();
            let t = t.strip_suffix(b",").or_else(|| t.strip_suffix(b".")).or_else(|| t.strip_suffix(b";")).unwrap_or(t);
            let start = t.iter().position(|b| !quotes.contains(b)).unwrap_or(t.len());
            let end = t.iter().rposition(|b| !quotes.contains(b)).map_or(start, |e| e + 1);
            &t[start..end.max(start)]
        })
        .filter(|t| t.len() >= 3 && t[0] == b'[' && t[t.len() - 1] == b']' && t.iter().all(u8::is_ascii_graphic))
        .map(<[u8]>::to_vec)
        .collect()
}

/// The words a constant string `s` stands for: itself; `-c` for each
/// option letter when it reads as a `getopt` option string; `--s` when it
/// reads as a long option's name.
fn words_of(s: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![s.to_vec()];
    if is_option_string(s) {
        for &c in s.iter().filter(|c| c.is_ascii_alphanumeric()) {
            out.push(vec![b'-', c]);
        }
    }
    if is_long_option_name(s) {
        let mut w = b"--".to_vec();
        w.extend_from_slice(s);
        out.push(w);
    }
    out
}

/// `getopt`'s option strings: letters and digits, each followed by at most
/// two colons, after an optional `+`, `-` or `:`. A string of letters
/// alone reads as one too (`getopt(argc, argv, "ab")`), and as a name: a
/// word that is no option costs one replay.
fn is_option_string(s: &[u8]) -> bool {
    let body = match s.first() {
        Some(b'+' | b'-' | b':') => &s[1..],
        _ => s,
    };
    !body.is_empty()
        && body[0].is_ascii_alphanumeric()
        && body.iter().all(|c| c.is_ascii_alphanumeric() || *c == b':')
        && !body.windows(3).any(|w| w == b":::")
}

/// Names as long options have them: lower-case letters, digits and
/// inner dashes, at least two bytes.
fn is_long_option_name(s: &[u8]) -> bool {
    s.len() >= 2
        && s[0].is_ascii_lowercase()
        && s.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && s.last() != Some(&b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        words_of(s.as_bytes()).into_iter().map(|w| String::from_utf8(w).unwrap()).collect()
    }

    #[test]
    fn option_strings_and_long_names_give_their_options() {
        assert_eq!(words("+as:z"), ["+as:z", "-a", "-s", "-z"]);
        // Letters alone may be an option string or a name: both readings.
        let multiple = words("multiple");
        assert!(multiple.contains(&"--multiple".to_string()) && multiple.contains(&"-m".to_string()));
        assert_eq!(words("n::"), ["n::", "-n"]);
        assert_eq!(words("missing operand"), ["missing operand"]);
        assert_eq!(words("%s: %s"), ["%s: %s"]);
    }

    /// The words of a filter whose body is `body`, compiled by the frontend.
    fn program_words(name: &str, body: &str) -> Vec<String> {
        let dir = std::env::temp_dir().join(format!("walkdown-words-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.c"));
        let src = format!("#include <stdlib.h>\n#include <string.h>\nint main(int argc, char **argv) {{ {body} }}\n");
        std::fs::write(&path, src).unwrap();
        let settings = walkdown_frontend::FrontendSettings::default();
        let program = walkdown_frontend::compile_c(&path, &settings).expect("the filter lowers");
        std::fs::remove_dir_all(&dir).ok();
        let words = EnvWords::of(&program).map_or(Vec::new(), |w| w.words);
        words.into_iter().map(|w| String::from_utf8(w).unwrap()).collect()
    }

    #[test]
    fn bracketed_tokens_come_out_of_usage_text_and_messages() {
        let usage = b"  [:alnum:]       all letters and digits\n  [=CHAR=]        all characters equivalent to CHAR\n  [CHAR*REPEAT]   REPEAT copies of CHAR,";
        let got: Vec<String> =
            bracketed_tokens(usage).iter().map(|t| String::from_utf8_lossy(t).into_owned()).collect();
        assert_eq!(got, ["[:alnum:]", "[=CHAR=]", "[CHAR*REPEAT]"]);
        let message = b"missing equivalence class character '[==]'";
        assert_eq!(bracketed_tokens(message), [b"[==]".to_vec()]);
        assert!(bracketed_tokens(b"Usage: %s [] x").is_empty(), "too short to be syntax");
    }

    #[test]
    fn a_program_that_parses_numbers_gets_numerals() {
        let parses =
            program_words("parses", "return argc > 1 && strtol(argv[1], 0, 10) == 7 ? 1 : strcmp(argv[0], \"go\");");
        for n in ["1", "-1", "1.5", "1e2", "inf"] {
            assert!(parses.contains(&n.to_string()), "{n} in {parses:?}");
        }
        assert!(parses.contains(&"go".to_string()), "its own words stay: {parses:?}");
        // Without a parser a numeral is one more useless replay.
        let plain = program_words("plain", "return argc > 1 && strcmp(argv[1], \"go\") == 0;");
        assert!(plain.contains(&"go".to_string()), "{plain:?}");
        assert!(!plain.iter().any(|w| NUMERALS.contains(&w.as_str())), "no numeral: {plain:?}");
    }

    #[test]
    fn a_word_lands_in_an_argument_within_the_bounds() {
        let env = Environment { args: Some(ArgBound { count: 2, len: 4 }), stdin: None, files: Vec::new() };
        let w = EnvWords { words: vec![b"--multiple".to_vec()] };
        let mut rng = Rng::new(7);
        let base = env.encode(&Default::default()).unwrap();
        for _ in 0..20 {
            let out = w.mutate(&env, &mut rng, &base);
            let (inputs, rest) = env.decode(&out).expect("the mutant stays within the bounds");
            assert!(rest.is_empty());
            assert!(!inputs.args.is_empty() && inputs.args.len() <= 2, "{:?}", inputs.args);
            assert!(inputs.args.iter().all(|a| a == b"--mu"), "a word is cut to the argument's length");
        }
    }

    #[test]
    fn a_word_in_standard_input_is_sometimes_a_whole_line() {
        let mut rng = Rng::new(3);
        let (mut lines, mut inside) = (0, 0);
        for _ in 0..200 {
            let mut stdin = b"ab\ncd\n".to_vec();
            put_in_stdin(&mut stdin, b"\\:", 16, &mut rng);
            assert!(stdin.len() <= 16);
            let text = String::from_utf8_lossy(&stdin).to_string();
            assert!(text.contains("\\:"), "{text:?}");
            if text.split('\n').any(|l| l == "\\:") {
                lines += 1;
            } else {
                inside += 1;
            }
        }
        assert!(lines > 50 && inside > 20, "both placements: {lines} lines, {inside} inside");
        // A full input keeps its bound; a word at its end is cut.
        let mut full = vec![b'x'; 4];
        for _ in 0..20 {
            put_in_stdin(&mut full, b"word", 4, &mut rng);
            assert_eq!(full.len(), 4);
        }
    }

    #[test]
    fn an_option_parser_gets_the_end_of_options_marker() {
        let getopt = program_words(
            "getopt",
            "extern int getopt(int, char *const *, const char *); return getopt(argc, argv, \"ab\") == 'a';",
        );
        assert!(getopt.contains(&"--".to_string()) && getopt.contains(&"-a".to_string()), "{getopt:?}");
        let plain = program_words("nogetopt", "return argc > 1 && strcmp(argv[1], \"go\") == 0;");
        assert!(!plain.contains(&"--".to_string()), "{plain:?}");
    }
}
