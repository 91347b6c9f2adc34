//! The environment a program runs in, as inputs: its command-line
//! arguments, its standard input and named files.
//!
//! Why: a real program reads its options from `argv` and its data from
//! standard input or files, not from `__VERIFIER_nondet_*` calls. When the
//! frontend gives a program an environment, it links in a start function
//! (`__walkdown_start`, the program's entry; see `walkdown-frontend`'s
//! `env.rs`) that draws every byte of the environment from the inputs, in
//! a fixed order, before it calls `main(argc, argv)`; the C library's
//! input functions (`getchar`, `fgets`, `fread`, `scanf`, `read`, `fopen`,
//! ...) then read those bytes. The bounds are fixed per run: at most
//! `count` arguments of at most `len` bytes each, at most `stdin` bytes of
//! standard input, at most `len` bytes per named file.
//!
//! The order the start function draws in, which [`Environment::decode`]
//! and [`Environment::encode`] follow (an engine's test vector begins with
//! this prefix; the program's own `nondet` calls come after it):
//!
//! 1. with arguments: the number of arguments after `argv[0]` (an
//!    `unsigned int`, assumed at most `count`), then `count × len` bytes,
//!    argument after argument; an argument ends at its first NUL byte;
//! 2. with standard input: its length (an `unsigned int`, assumed at most
//!    `stdin`), then `stdin` bytes;
//! 3. for each named file in order: its length, then `len` bytes.
//!
//! Bytes past an argument's end or a stream's length are drawn but unused,
//! so that every value has a fixed position whatever the lengths.

use crate::testvec::InputValue;
use std::fmt;

/// The name of the start function the environment's runtime defines.
pub const START_FUNCTION: &str = "__walkdown_start";

/// How large the environment may be: the bounds every proof over it holds
/// within.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// Command-line arguments, when `main` takes them.
    pub args: Option<ArgBound>,
    /// The most bytes of standard input, when the program reads it.
    pub stdin: Option<u32>,
    /// Named files the program may open for reading, with their most bytes.
    pub files: Vec<FileBound>,
}

/// At most `count` arguments (after `argv[0]`) of at most `len` bytes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgBound {
    /// The most arguments.
    pub count: u32,
    /// The most bytes of one argument (without its NUL).
    pub len: u32,
}

/// A named file of at most `len` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileBound {
    /// The name the program opens it by (relative to its working directory).
    pub name: String,
    /// The most bytes.
    pub len: u32,
}

/// One environment: what a test gives the program besides its `nondet`
/// values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvInputs {
    /// The arguments after `argv[0]`.
    pub args: Vec<Vec<u8>>,
    /// Standard input.
    pub stdin: Vec<u8>,
    /// The named files' contents, in the environment's order.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Why an environment does not fit an [`Environment`]'s bounds (the
/// fields: what was given, and the bound).
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum EnvMismatch {
    /// More arguments than the bound, or arguments where `main` takes none.
    TooManyArgs { given: usize, most: u32 },
    /// An argument longer than the bound, or with a NUL byte inside.
    BadArg { index: usize, len: usize, most: u32 },
    /// More standard input than the bound (or any where none is read).
    StdinTooLong { given: usize, most: u32 },
    /// A file the environment does not name, or longer than its bound.
    BadFile { name: String, len: usize, most: Option<u32> },
}

impl fmt::Display for EnvMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvMismatch::TooManyArgs { given, most } => write!(f, "{given} arguments, at most {most} allowed"),
            EnvMismatch::BadArg { index, len, most } => {
                write!(f, "argument {} has {len} bytes (at most {most}, no NUL inside)", index + 1)
            }
            EnvMismatch::StdinTooLong { given, most } => {
                write!(f, "{given} bytes of standard input, at most {most} allowed")
            }
            EnvMismatch::BadFile { name, len, most: Some(most) } => {
                write!(f, "file `{name}` has {len} bytes, at most {most} allowed")
            }
            EnvMismatch::BadFile { name, .. } => write!(f, "file `{name}` is not one of the environment's files"),
        }
    }
}

impl Environment {
    /// Whether the environment gives the program nothing.
    pub fn is_empty(&self) -> bool {
        self.args.is_none() && self.stdin.is_none() && self.files.is_empty()
    }

    /// How many input values the start function draws.
    pub fn prefix_len(&self) -> usize {
        let args = self.args.map_or(0, |a| 1 + a.count as usize * a.len as usize);
        let stdin = self.stdin.map_or(0, |n| 1 + n as usize);
        args + stdin + self.files.iter().map(|f| 1 + f.len as usize).sum::<usize>()
    }

    /// The environment a test vector's prefix describes, and the values
    /// after the prefix (the program's own). `None` when the vector is
    /// shorter than the prefix or a length is over its bound (the start
    /// function's assumption fails: no run has that vector).
    pub fn decode<'a>(&self, values: &'a [InputValue]) -> Option<(EnvInputs, &'a [InputValue])> {
        if values.len() < self.prefix_len() {
            return None;
        }
        self.decode_prefix(values, false).map(|inputs| (inputs, &values[self.prefix_len()..]))
    }

    /// The environment of any vector, as a native run gives it: missing
    /// values are 0 (as the harness reads them) and a length over its
    /// bound is the bound. Returns the program's own values too.
    pub fn decode_lenient(&self, values: &[InputValue]) -> (EnvInputs, Vec<InputValue>) {
        let mut padded = values.to_vec();
        if padded.len() < self.prefix_len() {
            padded.resize(self.prefix_len(), InputValue::Int(0));
        }
        let inputs = self.decode_prefix(&padded, true).expect("lenient decoding clamps every length");
        (inputs, padded.split_off(self.prefix_len()))
    }

    /// The environment of a prefix of at least [`Environment::prefix_len`]
    /// values; a length over its bound is `None`, or the bound when
    /// `clamp`.
    fn decode_prefix(&self, values: &[InputValue], clamp: bool) -> Option<EnvInputs> {
        let mut at = 0;
        let mut next = || {
            at += 1;
            values[at - 1]
        };
        let length = |v: InputValue, most: u32| {
            let n = v.to_int_bits(32, false);
            match n <= u64::from(most) {
                true => Some(n as usize),
                false => clamp.then_some(most as usize),
            }
        };
        let mut inputs = EnvInputs::default();
        if let Some(a) = self.args {
            let argc = length(next(), a.count)?;
            for i in 0..a.count as usize {
                let bytes: Vec<u8> = (0..a.len).map(|_| next().to_int_bits(8, false) as u8).collect();
                if i < argc {
                    inputs.args.push(bytes.into_iter().take_while(|&b| b != 0).collect());
                }
            }
        }
        let mut stream = |most: u32| -> Option<Vec<u8>> {
            let n = length(next(), most)?;
            let bytes: Vec<u8> = (0..most).map(|_| next().to_int_bits(8, false) as u8).collect();
            Some(bytes[..n].to_vec())
        };
        if let Some(most) = self.stdin {
            inputs.stdin = stream(most)?;
        }
        for f in &self.files {
            inputs.files.push((f.name.clone(), stream(f.len)?));
        }
        Some(inputs)
    }

    /// The test vector prefix that gives the program `inputs`.
    pub fn encode(&self, inputs: &EnvInputs) -> Result<Vec<InputValue>, EnvMismatch> {
        let mut out = Vec::with_capacity(self.prefix_len());
        let byte = |b: u8| InputValue::Int(i128::from(b as i8));
        match self.args {
            Some(a) => {
                if inputs.args.len() > a.count as usize {
                    return Err(EnvMismatch::TooManyArgs { given: inputs.args.len(), most: a.count });
                }
                out.push(InputValue::Int(inputs.args.len() as i128));
                for i in 0..a.count as usize {
                    let arg = inputs.args.get(i).map(Vec::as_slice).unwrap_or_default();
                    if arg.len() > a.len as usize || arg.contains(&0) {
                        return Err(EnvMismatch::BadArg { index: i, len: arg.len(), most: a.len });
                    }
                    out.extend((0..a.len as usize).map(|j| byte(arg.get(j).copied().unwrap_or(0))));
                }
            }
            None if !inputs.args.is_empty() => {
                return Err(EnvMismatch::TooManyArgs { given: inputs.args.len(), most: 0 })
            }
            None => {}
        }
        let stream = |out: &mut Vec<InputValue>, data: &[u8], most: u32| {
            out.push(InputValue::Int(data.len() as i128));
            out.extend((0..most as usize).map(|j| byte(data.get(j).copied().unwrap_or(0))));
        };
        match self.stdin {
            Some(most) if inputs.stdin.len() <= most as usize => stream(&mut out, &inputs.stdin, most),
            most if !inputs.stdin.is_empty() || most.is_some() => {
                return Err(EnvMismatch::StdinTooLong { given: inputs.stdin.len(), most: most.unwrap_or(0) })
            }
            _ => {}
        }
        for (name, data) in &inputs.files {
            if !self.files.iter().any(|f| &f.name == name) {
                return Err(EnvMismatch::BadFile { name: name.clone(), len: data.len(), most: None });
            }
        }
        for f in &self.files {
            let data = inputs.files.iter().find(|(n, _)| n == &f.name).map(|(_, d)| d.as_slice()).unwrap_or_default();
            if data.len() > f.len as usize {
                return Err(EnvMismatch::BadFile { name: f.name.clone(), len: data.len(), most: Some(f.len) });
            }
            stream(&mut out, data, f.len);
        }
        Ok(out)
    }

    /// The bounds in words, for reports: "at most 3 arguments of at most 8
    /// bytes, at most 32 bytes of standard input".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = self.args {
            parts.push(format!("at most {} arguments of at most {} bytes", a.count, a.len));
        }
        if let Some(n) = self.stdin {
            parts.push(format!("at most {n} bytes of standard input"));
        }
        for f in &self.files {
            parts.push(format!("file `{}` of at most {} bytes", f.name, f.len));
        }
        if parts.is_empty() {
            "no arguments, no input".into()
        } else {
            parts.join(", ")
        }
    }
}

/// The textual form the IR printer writes after `environment` (and the
/// command-line options take): `args 3:8 stdin 32 file "in.txt":16`.
impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(a) = self.args {
            write!(f, "args {}:{}", a.count, a.len)?;
            sep = " ";
        }
        if let Some(n) = self.stdin {
            write!(f, "{sep}stdin {n}")?;
            sep = " ";
        }
        for file in &self.files {
            write!(f, "{sep}file {}:{}", crate::write::quote(file.name.as_bytes()), file.len)?;
            sep = " ";
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment {
            args: Some(ArgBound { count: 2, len: 3 }),
            stdin: Some(4),
            files: vec![FileBound { name: "in.txt".into(), len: 2 }],
        }
    }

    #[test]
    fn encode_and_decode_are_inverse_and_the_program_values_follow() {
        let e = env();
        let inputs = EnvInputs {
            args: vec![b"-w".to_vec(), vec![0xff]],
            stdin: b"ab\n".to_vec(),
            files: vec![("in.txt".into(), b"x".to_vec())],
        };
        let mut v = e.encode(&inputs).unwrap();
        assert_eq!(v.len(), e.prefix_len());
        assert_eq!(e.prefix_len(), 1 + 6 + 1 + 4 + 1 + 2);
        v.push(InputValue::Int(42));
        let (back, rest) = e.decode(&v).unwrap();
        assert_eq!(back, inputs);
        assert_eq!(rest, &[InputValue::Int(42)]);
    }

    #[test]
    fn an_argument_ends_at_its_first_nul_and_lengths_over_the_bound_decode_to_nothing() {
        let e = Environment { args: Some(ArgBound { count: 1, len: 3 }), stdin: None, files: vec![] };
        let v: Vec<InputValue> = [1, 'a' as i128, 0, 'b' as i128].map(InputValue::Int).to_vec();
        assert_eq!(e.decode(&v).unwrap().0.args, vec![b"a".to_vec()]);
        let over: Vec<InputValue> = [2, 0, 0, 0].map(InputValue::Int).to_vec();
        assert!(e.decode(&over).is_none());
        assert!(e.decode(&v[..2]).is_none());
        let (clamped, rest) = e.decode_lenient(&over[..1]);
        assert_eq!((clamped.args.len(), rest.len()), (1, 0));
    }

    #[test]
    fn inputs_over_the_bounds_are_refused_with_the_reason() {
        let e = env();
        let long = EnvInputs { stdin: b"12345".to_vec(), ..Default::default() };
        assert_eq!(e.encode(&long), Err(EnvMismatch::StdinTooLong { given: 5, most: 4 }));
        let nul = EnvInputs { args: vec![b"a\0".to_vec()], ..Default::default() };
        assert!(matches!(e.encode(&nul), Err(EnvMismatch::BadArg { index: 0, .. })));
        let other = EnvInputs { files: vec![("out".into(), vec![])], ..Default::default() };
        assert!(e.encode(&other).unwrap_err().to_string().contains("`out`"));
    }

    #[test]
    fn the_text_form_and_the_words() {
        assert_eq!(env().to_string(), "args 2:3 stdin 4 file \"in.txt\":2");
        assert!(env().describe().starts_with("at most 2 arguments of at most 3 bytes, at most 4 bytes"));
    }
}
