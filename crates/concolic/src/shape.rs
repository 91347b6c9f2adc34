//! Edits of an environment's shape: where its lines and arguments end,
//! and repeated pieces.
//!
//! Why: a filter's decisions often rest on a length the control flow sets,
//! not on a byte value. `nl` tells its section delimiters apart by a
//! line's length (`\:\:\:` is a header, `\:\:` a body, `\:` a footer)
//! before it compares the bytes; a line is as long as the distance to the
//! first newline, which is a count of loop iterations. The concolic search
//! can make any one byte a newline, but that flip covers nothing new at
//! the byte's own branch (`c == '\n'` is covered), so it waits behind every
//! other candidate; and `\:\:` is the same two bytes twice, which the
//! program's words (see [`crate::words`]) hold only once. A byte-level
//! fuzzer gets both from its havoc stage (AFL's byte insertion, deletion
//! and cloning of chunks). Here they are one more mutation of a kept test,
//! kept only when the mutant covers something new; once the length is
//! right, the search solves the comparison of the bytes.
//!
//! What runs per mutation: the vector's environment prefix is decoded (as
//! the native harness reads it), one edit is made to standard input, one
//! file's contents or one argument, and the result is encoded again with
//! the base's own values after the prefix. An edit that would pass a bound
//! is cut to it.

use crate::search::Rng;
use crate::words::edit_env;
use walkdown_ir::env::Environment;
use walkdown_ir::testvec::InputValue;

/// The longest piece an edit clones or deletes: lines and keywords are
/// short, and a long clone mostly fills the bound.
const MOST_PIECE: u64 = 8;

/// `base` with one edit of the shape of its standard input, a file's
/// contents or an argument.
pub fn reshape(env: &Environment, rng: &mut Rng, base: &[InputValue]) -> Vec<InputValue> {
    edit_env(env, base, |inputs| {
        // The parts there are, each with its bound.
        let mut parts: Vec<(&mut Vec<u8>, usize)> = Vec::new();
        if let Some(most) = env.stdin {
            parts.push((&mut inputs.stdin, most as usize));
        }
        for (name, bytes) in inputs.files.iter_mut() {
            if let Some(b) = env.files.iter().find(|f| &f.name == name) {
                parts.push((bytes, b.len as usize));
            }
        }
        if let Some(bound) = env.args {
            for arg in inputs.args.iter_mut() {
                parts.push((arg, bound.len as usize));
            }
        }
        if parts.is_empty() {
            return;
        }
        let k = rng.below(parts.len() as u64) as usize;
        let (bytes, most) = parts.swap_remove(k);
        edit(bytes, most, rng);
    })
}

/// One edit of `bytes`, which may hold at most `most`.
fn edit(bytes: &mut Vec<u8>, most: usize, rng: &mut Rng) {
    let len = bytes.len() as u64;
    match rng.below(4) {
        // A line ends here: a newline inserted (or written, at the bound).
        0 => {
            let at = rng.below(len + 1) as usize;
            insert(bytes, at, b"\n", most);
        }
        // A piece repeated: a copy inserted at a random place, half the
        // time right after itself (`\:` becomes `\:\:`).
        1 if len > 0 => {
            let start = rng.below(len);
            let n = 1 + rng.below(MOST_PIECE.min(len - start));
            let piece = bytes[start as usize..(start + n) as usize].to_vec();
            let at = if rng.below(2) == 0 { (start + n) as usize } else { rng.below(len + 1) as usize };
            insert(bytes, at, &piece, most);
        }
        // A piece removed.
        2 if len > 0 => {
            let start = rng.below(len);
            let n = 1 + rng.below(MOST_PIECE.min(len - start));
            bytes.drain(start as usize..(start + n) as usize);
        }
        // Cut short: the part ends here (an argument becomes its prefix,
        // as a long option's unambiguous abbreviation).
        _ => bytes.truncate(rng.below(len + 1) as usize),
    }
}

/// Inserts `piece` at `at`, keeping at most `most` bytes (the bytes pushed
/// past the bound are dropped; at the bound, the piece is written over the
/// last bytes instead).
fn insert(bytes: &mut Vec<u8>, at: usize, piece: &[u8], most: usize) {
    if most == 0 {
        return;
    }
    let at = at.min(most.saturating_sub(piece.len())).min(bytes.len());
    let tail = bytes.split_off(at);
    bytes.extend_from_slice(piece);
    bytes.extend(tail);
    bytes.truncate(most);
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::env::ArgBound;

    fn env() -> Environment {
        Environment { args: Some(ArgBound { count: 2, len: 6 }), stdin: Some(8), files: Vec::new() }
    }

    fn vector(args: &[&str], stdin: &str) -> Vec<InputValue> {
        crate::words::test_vector(&env(), args, stdin)
    }

    /// From `\:x`, edits reach a footer line (`\:` then a newline) and a
    /// body line (`\:\:` then a newline) in two steps, as a search that
    /// keeps each new shape would; every result stays within the bounds.
    #[test]
    fn edits_make_the_delimiter_lines_of_nl() {
        let env = env();
        let mut rng = Rng::new(3);
        let mut seen = std::collections::HashSet::new();
        let mut frontier = vec![vector(&["-b"], "\\:x")];
        for _ in 0..3 {
            let mut next = Vec::new();
            for base in &frontier {
                for _ in 0..300 {
                    let mut out = reshape(&env, &mut rng, base);
                    out.push(InputValue::Int(7));
                    let (inputs, rest) = env.decode(&out).expect("an edit stays within the bounds");
                    assert_eq!(rest, [InputValue::Int(7)], "the program's own values follow the prefix");
                    out.pop();
                    if seen.insert(inputs.stdin.clone()) {
                        next.push(out);
                    }
                }
            }
            frontier = next;
        }
        let has_line =
            |line: &[u8]| seen.iter().any(|s| s.split(|&b| b == b'\n').any(|l| l == line) && s.contains(&b'\n'));
        assert!(has_line(b"\\:"), "a footer line");
        assert!(has_line(b"\\:\\:"), "a body line");
    }

    #[test]
    fn arguments_get_cut_to_their_prefixes() {
        let env = env();
        let mut rng = Rng::new(9);
        let base = vector(&["--body"], "");
        let prefixes: std::collections::HashSet<Vec<u8>> = (0..400)
            .filter_map(|_| {
                let out = reshape(&env, &mut rng, &base);
                env.decode(&out).and_then(|(inputs, _)| inputs.args.first().cloned())
            })
            .collect();
        for p in ["--bo", "--b", "--"] {
            assert!(prefixes.contains(p.as_bytes()), "{p} among {prefixes:?}");
        }
    }

    #[test]
    fn insertion_keeps_to_the_bound() {
        let mut bytes = b"abcdefgh".to_vec();
        insert(&mut bytes, 8, b"\n", 8);
        assert_eq!(bytes, b"abcdefg\n", "at the bound the newline replaces the last byte");
        let mut bytes = b"ab".to_vec();
        insert(&mut bytes, 1, b"xy", 3);
        assert_eq!(bytes, b"axy");
    }
}
