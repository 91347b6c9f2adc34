//! `witness.yml`: an SV-COMP correctness witness in the YAML witness format
//! 2.0 — one `invariant_set` entry whose content is `loop_invariant`s, each
//! a side-effect-free C expression over the program's variables at a loop
//! statement (located by its first keyword character). Also the printing of
//! [`Formula`]s as such C expressions.
//!
//! C expressions say exactly what the IR formulas say: every comparison
//! casts its operands to the fixed-width C type of its interpretation
//! (`(int)`, `(unsigned int)`, `(long long)`, …), and wrapping arithmetic is
//! done in unsigned types, so no expression has undefined behaviour and the
//! data model does not change its meaning.

use std::path::Path;

use serde::Serialize;
use walkdown_ir::formula::{Formula, Term};
use walkdown_ir::{BinOp, CastOp, CmpPred, DataModel, Operand, Value};

use crate::FormatError;

/// The verification task a witness is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessTask {
    /// The program file as the verifier was given it.
    pub input_file: String,
    /// Its SHA-256, lowercase hex.
    pub input_file_sha256: String,
    /// The data model the program was analysed in.
    pub data_model: DataModel,
    /// The producing tool's name and version.
    pub producer: (String, String),
    /// When the witness was made (ISO 8601, UTC).
    pub creation_time: String,
    /// The error function the property is about (`reach_error`, or
    /// `__VERIFIER_error` in older tasks).
    pub error_function: String,
}

/// One loop invariant of a witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInvariantEntry {
    /// Line of the loop's first keyword character.
    pub line: u32,
    /// Its column (1-based).
    pub column: u32,
    /// The function the loop is in.
    pub function: String,
    /// The invariant, a C expression.
    pub value: String,
}

#[derive(Serialize)]
struct Entry<'a> {
    entry_type: &'static str,
    metadata: Meta<'a>,
    content: Vec<Content<'a>>,
}

#[derive(Serialize)]
struct Meta<'a> {
    format_version: &'static str,
    uuid: String,
    creation_time: &'a str,
    producer: Producer<'a>,
    task: Task<'a>,
}

#[derive(Serialize)]
struct Producer<'a> {
    name: &'a str,
    version: &'a str,
}

#[derive(Serialize)]
struct Task<'a> {
    input_files: Vec<&'a str>,
    input_file_hashes: std::collections::BTreeMap<&'a str, &'a str>,
    specification: String,
    data_model: &'static str,
    language: &'static str,
}

#[derive(Serialize)]
struct Content<'a> {
    invariant: Invariant<'a>,
}

#[derive(Serialize)]
struct Invariant<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    location: Location<'a>,
    value: &'a str,
    format: &'static str,
}

#[derive(Serialize)]
struct Location<'a> {
    file_name: &'a str,
    line: u32,
    column: u32,
    function: &'a str,
}

/// The SV-COMP property the witness is for: `function` is never called.
pub fn unreach_call(function: &str) -> String {
    format!("G ! call({function}())")
}

/// The witness text.
pub fn correctness_witness(task: &WitnessTask, invariants: &[LoopInvariantEntry]) -> Result<String, FormatError> {
    let data_model = match task.data_model {
        DataModel::LP64 => "LP64",
        DataModel::ILP32 => "ILP32",
    };
    let content = invariants
        .iter()
        .map(|i| Content {
            invariant: Invariant {
                kind: "loop_invariant",
                location: Location {
                    file_name: &task.input_file,
                    line: i.line,
                    column: i.column,
                    function: &i.function,
                },
                value: &i.value,
                format: "c_expression",
            },
        })
        .collect();
    let mut hashes = std::collections::BTreeMap::new();
    hashes.insert(task.input_file.as_str(), task.input_file_sha256.as_str());
    let entry = Entry {
        entry_type: "invariant_set",
        metadata: Meta {
            format_version: "2.0",
            uuid: uuid_from(&[
                task.input_file_sha256.as_bytes(),
                task.creation_time.as_bytes(),
                format!("{invariants:?}").as_bytes(),
            ]),
            creation_time: &task.creation_time,
            producer: Producer { name: &task.producer.0, version: &task.producer.1 },
            task: Task {
                input_files: vec![&task.input_file],
                input_file_hashes: hashes,
                specification: unreach_call(&task.error_function),
                data_model,
                language: "C",
            },
        },
        content,
    };
    serde_yaml::to_string(&vec![entry]).map_err(|e| FormatError::Yaml(e.to_string()))
}

/// Writes the witness to `path` (atomically).
pub fn write_correctness_witness(
    path: &Path,
    task: &WitnessTask,
    invariants: &[LoopInvariantEntry],
) -> Result<(), FormatError> {
    let text = correctness_witness(task, invariants)?;
    crate::atomic::write_atomically(path, text.as_bytes())
}

/// A version-4-shaped UUID from a hash of `parts` (unique per witness
/// content and time; no random source needed).
fn uuid_from(parts: &[&[u8]]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    let mut b: [u8; 16] = h.finalize()[..16].try_into().expect("16 bytes");
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// The C types of a width: (signed, unsigned).
fn c_types(bits: u32) -> Option<(&'static str, &'static str)> {
    Some(match bits {
        8 => ("signed char", "unsigned char"),
        16 => ("short", "unsigned short"),
        32 => ("int", "unsigned int"),
        64 => ("long long", "unsigned long long"),
        _ => return None,
    })
}

fn width(ty: walkdown_ir::Type) -> Option<u32> {
    use walkdown_ir::Type;
    match ty {
        Type::I8 => Some(8),
        Type::I16 => Some(16),
        Type::I32 => Some(32),
        Type::I64 => Some(64),
        _ => None,
    }
}

/// `formula` as a C expression, naming values by `name_of`; `None` if it
/// reads a value without a name or a type C cannot state here.
pub fn c_expression(formula: &Formula, name_of: &dyn Fn(Value) -> Option<String>) -> Option<String> {
    match formula {
        Formula::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
        Formula::Cmp { pred, ty, lhs, rhs } => {
            let w = width(*ty)?;
            let signed =
                matches!(pred, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge | CmpPred::Eq | CmpPred::Ne);
            let op = match pred {
                CmpPred::Eq => "==",
                CmpPred::Ne => "!=",
                CmpPred::Ult | CmpPred::Slt => "<",
                CmpPred::Ule | CmpPred::Sle => "<=",
                CmpPred::Ugt | CmpPred::Sgt => ">",
                CmpPred::Uge | CmpPred::Sge => ">=",
                _ => return None,
            };
            let equality = matches!(pred, CmpPred::Eq | CmpPred::Ne);
            let l = leaf_or_cast(lhs, w, signed, equality, name_of)?;
            let r = leaf_or_cast(rhs, w, signed, equality, name_of)?;
            Some(format!("{l} {op} {r}"))
        }
        Formula::Not(f) => Some(format!("!({})", c_expression(f, name_of)?)),
        Formula::And(fs) | Formula::Or(fs) => {
            let sep = if matches!(formula, Formula::And(_)) { " && " } else { " || " };
            let parts: Option<Vec<String>> =
                fs.iter().map(|f| c_expression(f, name_of).map(|s| format!("({s})"))).collect();
            Some(parts?.join(sep))
        }
    }
}

/// A term printed as C: a variable's name (of its own C type, of the
/// term's width), or an expression of the term's unsigned C type.
struct Printed {
    text: String,
    /// A plain name or literal (no parentheses needed around it).
    atomic: bool,
    /// Of the term's unsigned C type (else a variable of unknown
    /// signedness).
    unsigned_typed: bool,
    /// Of the term's signed C type, holding its signed reading.
    signed_typed: bool,
}

impl Printed {
    fn wrapped(&self) -> String {
        if self.atomic {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }

    /// The value as an `ut` expression (`ut` is the term's unsigned type).
    fn as_unsigned(&self, ut: &str) -> String {
        if self.unsigned_typed {
            self.wrapped()
        } else {
            format!("({ut}){}", self.wrapped())
        }
    }
}

/// A term read as a `w`-bit signed or unsigned C value, for a comparison.
fn leaf_or_cast(
    t: &Term,
    w: u32,
    signed: bool,
    equality: bool,
    name_of: &dyn Fn(Value) -> Option<String>,
) -> Option<String> {
    let (st, ut) = c_types(w)?;
    if let Term::Operand(Operand::Const(c)) = t {
        return Some(literal(c.bits, w, signed));
    }
    let p = term(t, name_of)?;
    // Equality of two values of one width of at least `int` is equality of
    // their bits whatever their signedness (the usual conversions keep
    // the bits); narrower ones promote to `int` by value, so they keep an
    // explicit type.
    if equality && w >= 32 {
        return Some(p.wrapped());
    }
    if signed && p.signed_typed {
        return Some(p.wrapped());
    }
    Some(if signed { format!("({st}){}", p.wrapped()) } else { p.as_unsigned(ut) })
}

/// A C constant of `w` bits with these bits, signed or not.
fn literal(bits: u64, w: u32, signed: bool) -> String {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let u = bits & mask;
    let suffix_u = if w == 64 { "ULL" } else { "U" };
    if !signed {
        return format!("{u}{suffix_u}");
    }
    let s = if w >= 64 {
        u as i64
    } else if u >> (w - 1) & 1 == 1 {
        (u as i64) - (1i64 << w)
    } else {
        u as i64
    };
    let ll = if w == 64 { "LL" } else { "" };
    let min = if w >= 64 { i64::MIN } else { -(1i64 << (w - 1)) };
    if s == min {
        // `-2147483648` is the negation of a constant too large for int.
        format!("({}{ll} - 1{ll})", s + 1)
    } else {
        format!("{s}{ll}")
    }
}

/// A term as C whose value, converted to the term's unsigned type, has the
/// term's bits.
fn term(t: &Term, name_of: &dyn Fn(Value) -> Option<String>) -> Option<Printed> {
    match t {
        Term::Operand(Operand::Value(v)) => {
            Some(Printed { text: name_of(*v)?, atomic: true, unsigned_typed: false, signed_typed: false })
        }
        Term::Operand(Operand::Const(c)) => {
            let w = width(c.ty)?;
            let text = literal(c.bits, w, false);
            // Literals narrower than int are of type unsigned int.
            Some(Printed { text, atomic: true, unsigned_typed: w >= 32, signed_typed: false })
        }
        Term::Operand(_) => None,
        Term::Bin { op, ty, lhs, rhs } => {
            let w = width(*ty)?;
            let (_, ut) = c_types(w)?;
            // At least `unsigned int`, so narrow operands do not promote to
            // `int` and overflow.
            let wide = if w == 64 { "unsigned long long" } else { "unsigned int" };
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::And => "&",
                BinOp::Or => "|",
                BinOp::Xor => "^",
                _ => return None,
            };
            // The sum or difference of two values sign-extended from at most
            // half the width cannot wrap: it is written in the signed type,
            // as a reader would.
            let narrow_sext = |x: &Term| matches!(x, Term::Cast { op: CastOp::SExt, from, .. } if width(*from).is_some_and(|f| 2 * f <= w));
            if matches!(op, BinOp::Add | BinOp::Sub) && narrow_sext(lhs) && narrow_sext(rhs) {
                let (st, _) = c_types(w)?;
                let signed_operand = |x: &Term| -> Option<String> {
                    let Term::Cast { arg, from, .. } = x else { return None };
                    let (fs, _) = c_types(width(*from)?)?;
                    Some(format!("({st})({fs}){}", term(arg, name_of)?.wrapped()))
                };
                let text = format!("{} {sym} {}", signed_operand(lhs)?, signed_operand(rhs)?);
                return Some(Printed { text, atomic: false, unsigned_typed: false, signed_typed: true });
            }
            let operand = |x: &Term| -> Option<String> {
                let p = term(x, name_of)?;
                Some(if w >= 32 { p.as_unsigned(wide) } else { format!("({wide}){}", p.wrapped()) })
            };
            let (l, r) = (operand(lhs)?, operand(rhs)?);
            if w >= 32 {
                Some(Printed {
                    text: format!("{l} {sym} {r}"),
                    atomic: false,
                    unsigned_typed: true,
                    signed_typed: false,
                })
            } else {
                Some(Printed {
                    text: format!("({ut})({l} {sym} {r})"),
                    atomic: false,
                    unsigned_typed: true,
                    signed_typed: false,
                })
            }
        }
        Term::Cast { op, from, to, arg } => {
            let fw = width(*from)?;
            let (fs, fu) = c_types(fw)?;
            let inner = term(arg, name_of)?;
            let a = inner.wrapped();
            // A value converts to a type of its own width keeping its bits.
            let text = match op {
                CastOp::Trunc => format!("({}){a}", c_types(width(*to)?)?.1),
                CastOp::ZExt => format!("({fu}){a}"),
                CastOp::SExt if inner.atomic => format!("({fs}){a}"),
                CastOp::SExt => format!("({fs})({fu}){a}"),
                _ => return None,
            };
            // The result is of a type of the operand's width; the
            // comparison or operation around it converts it by value.
            Some(Printed {
                text,
                atomic: false,
                unsigned_typed: matches!(op, CastOp::Trunc) && width(*to)? >= 32,
                signed_typed: false,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::entity::EntityRef;
    use walkdown_ir::{Const, Type};

    fn var(k: usize) -> Term {
        Term::value(Value::new(k))
    }

    fn c32(v: i64) -> Term {
        Term::Operand(Operand::Const(Const { ty: Type::I32, bits: v as u64 & 0xffff_ffff }))
    }

    fn names(v: Value) -> Option<String> {
        ["i", "n", "s"].get(v.index()).map(|s| s.to_string())
    }

    #[test]
    fn comparisons_cast_to_their_interpretation() {
        let f = Formula::and(vec![
            Formula::Cmp { pred: CmpPred::Sle, ty: Type::I32, lhs: c32(0), rhs: var(0) },
            Formula::Cmp { pred: CmpPred::Ult, ty: Type::I32, lhs: var(0), rhs: var(1) },
            Formula::Cmp { pred: CmpPred::Eq, ty: Type::I32, lhs: var(2), rhs: c32(i32::MIN as i64) },
        ]);
        assert_eq!(
            c_expression(&f, &names).unwrap(),
            "(0 <= (int)i) && ((unsigned int)i < (unsigned int)n) && (s == (-2147483647 - 1))"
        );
    }

    #[test]
    fn arithmetic_wraps_in_unsigned_types() {
        let sum = Term::Bin { op: BinOp::Add, ty: Type::I32, lhs: Box::new(var(0)), rhs: Box::new(c32(1)) };
        let f = Formula::Cmp { pred: CmpPred::Slt, ty: Type::I32, lhs: sum, rhs: var(1) }.negate();
        assert_eq!(c_expression(&f, &names).unwrap(), "(int)((unsigned int)i + 1U) >= (int)n");
        let narrow = Term::Cast { op: CastOp::SExt, from: Type::I8, to: Type::I32, arg: Box::new(var(0)) };
        let g = Formula::Cmp { pred: CmpPred::Eq, ty: Type::I32, lhs: narrow, rhs: c32(-1) };
        assert_eq!(c_expression(&g, &names).unwrap(), "((signed char)i) == -1");
        let wide = |k| Term::Cast { op: CastOp::SExt, from: Type::I32, to: Type::I64, arg: Box::new(var(k)) };
        let diff = Term::Bin { op: BinOp::Sub, ty: Type::I64, lhs: Box::new(wide(0)), rhs: Box::new(wide(1)) };
        let lim = Term::Operand(Operand::Const(Const { ty: Type::I64, bits: 1 }));
        let o = Formula::Cmp { pred: CmpPred::Sle, ty: Type::I64, lhs: diff, rhs: lim };
        assert_eq!(c_expression(&o, &names).unwrap(), "((long long)(int)i - (long long)(int)n) <= 1LL");
        let byte = Term::Bin { op: BinOp::Add, ty: Type::I8, lhs: Box::new(var(0)), rhs: Box::new(var(1)) };
        let h = Formula::Cmp { pred: CmpPred::Ult, ty: Type::I8, lhs: byte, rhs: var(2) };
        assert_eq!(
            c_expression(&h, &names).unwrap(),
            "((unsigned char)((unsigned int)i + (unsigned int)n)) < (unsigned char)s"
        );
    }

    #[test]
    fn unnamed_values_are_refused() {
        let f = Formula::Cmp { pred: CmpPred::Eq, ty: Type::I32, lhs: var(7), rhs: c32(0) };
        assert_eq!(c_expression(&f, &names), None);
    }

    #[test]
    fn the_witness_is_a_yaml_list_with_one_invariant_set() {
        let task = WitnessTask {
            input_file: "loop.c".into(),
            input_file_sha256: "ab".repeat(32),
            data_model: DataModel::ILP32,
            producer: ("walkdown".into(), "0.1.0".into()),
            creation_time: "2026-11-25T06:00:00Z".into(),
            error_function: "reach_error".into(),
        };
        let inv =
            vec![LoopInvariantEntry { line: 6, column: 3, function: "main".into(), value: "(int)i <= (int)n".into() }];
        let text = correctness_witness(&task, &inv).unwrap();
        let back: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let entry = &back[0];
        assert_eq!(entry["entry_type"], "invariant_set");
        assert_eq!(entry["metadata"]["format_version"], "2.0");
        assert_eq!(entry["metadata"]["task"]["data_model"], "ILP32");
        assert_eq!(entry["metadata"]["task"]["specification"], "G ! call(reach_error())");
        let i = &entry["content"][0]["invariant"];
        assert_eq!(i["type"], "loop_invariant");
        assert_eq!(i["location"]["line"], 6);
        assert_eq!(i["location"]["column"], 3);
        assert_eq!(i["value"], "(int)i <= (int)n");
        assert_eq!(i["format"], "c_expression");
        let uuid = entry["metadata"]["uuid"].as_str().unwrap();
        assert_eq!(uuid.len(), 36);
        assert_eq!(&uuid[14..15], "4");
    }
}
