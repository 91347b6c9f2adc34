//! Splices of kept tests' environments: an argument, standard input or a
//! file of one kept test put into another, or two arguments of one test
//! swapped.
//!
//! Why: a command-line tool parses each of its operands with the same
//! code, and gives the result a meaning by position. Once a construct is
//! covered in one position (`tr`'s `[=a=]` as its first set), the parser's
//! branches that build it are covered goals, so the concolic search defers
//! the flips that would build it again in another position, where the
//! program does something else with it (`tr`'s second set: squeezing by an
//! equivalence class, the "may not appear in string2" checks, `[c*]`
//! repeats that fill the second set). A byte-level fuzzer gets there by
//! splicing two inputs (AFL's splice stage); for an input made of
//! arguments, the unit to splice is the argument. Like the words of
//! [`crate::words`], a splice is one more mutation of a kept test, kept
//! only when it covers something new.
//!
//! What runs per mutation: both vectors' environment prefixes are decoded
//! (as the native harness reads them), one part moves, and the result is
//! encoded again with the base's own values after the prefix. Parts come
//! from kept tests, so they are within the environment's bounds.

use crate::search::Rng;
use crate::words::{edit_env, put_argument};
use walkdown_ir::env::Environment;
use walkdown_ir::testvec::InputValue;

/// `base` with one part of `donor`'s environment (an argument into any
/// slot, standard input, a file's contents), or with two of its own
/// arguments swapped.
pub fn splice(env: &Environment, rng: &mut Rng, base: &[InputValue], donor: &[InputValue]) -> Vec<InputValue> {
    let (given, _) = env.decode_lenient(donor);
    edit_env(env, base, |inputs| match rng.below(4) {
        0 if inputs.args.len() >= 2 => {
            let n = inputs.args.len() as u64;
            let i = rng.below(n);
            let j = (i + 1 + rng.below(n - 1)) % n;
            inputs.args.swap(i as usize, j as usize);
        }
        1 if env.stdin.is_some() => inputs.stdin = given.stdin,
        2 if !given.files.is_empty() => {
            let k = rng.below(given.files.len() as u64) as usize;
            let (name, bytes) = &given.files[k];
            if let Some(f) = inputs.files.iter_mut().find(|(n, _)| n == name) {
                f.1 = bytes.clone();
            }
        }
        _ => {
            if let (Some(bound), false) = (env.args, given.args.is_empty()) {
                let arg = given.args[rng.below(given.args.len() as u64) as usize].clone();
                put_argument(bound, rng, &mut inputs.args, arg);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::env::ArgBound;

    fn env() -> Environment {
        Environment { args: Some(ArgBound { count: 3, len: 6 }), stdin: Some(8), files: Vec::new() }
    }

    fn vector(args: &[&str], stdin: &str) -> Vec<InputValue> {
        crate::words::test_vector(&env(), args, stdin)
    }

    #[test]
    fn a_donor_argument_reaches_every_position() {
        let env = env();
        let base = vector(&["-s", "abc"], "x\n");
        let donor = vector(&["[=a=]"], "yy\n");
        let mut rng = Rng::new(11);
        let (mut second, mut third, mut stdin, mut swapped) = (0, 0, 0, 0);
        for _ in 0..400 {
            let mut out = splice(&env, &mut rng, &base, &donor);
            out.push(InputValue::Int(7));
            let (inputs, rest) = env.decode(&out).expect("a splice stays within the bounds");
            assert_eq!(rest, [InputValue::Int(7)], "the program's own values follow the prefix");
            second += usize::from(inputs.args.get(1).is_some_and(|a| a == b"[=a=]"));
            third += usize::from(inputs.args.get(2).is_some_and(|a| a == b"[=a=]"));
            stdin += usize::from(inputs.stdin == b"yy\n");
            swapped += usize::from(inputs.args == [b"abc".to_vec(), b"-s".to_vec()]);
        }
        assert!(second > 10 && third > 10, "as second ({second}) and as a new third ({third}) argument");
        assert!(stdin > 10 && swapped > 10, "standard input moved ({stdin}), arguments swapped ({swapped})");
    }

    #[test]
    fn a_full_argument_list_gets_no_argument_past_its_count() {
        let env = env();
        let base = vector(&["a", "b", "c"], "");
        let donor = vector(&["d"], "");
        let mut rng = Rng::new(5);
        for _ in 0..100 {
            let (inputs, _) = env.decode(&splice(&env, &mut rng, &base, &donor)).unwrap();
            assert_eq!(inputs.args.len(), 3, "{:?}", inputs.args);
        }
    }
}
