//! The harness of a unit: C code appended to the program that builds the
//! entry function's arguments from `__VERIFIER_nondet_*` inputs and calls
//! it from a new `main` (the program's own `main` becomes an unused
//! `static` function, which clang does not emit).
//!
//! How each argument is built (the [`crate::shape`] decoder walks the same
//! way over a test's values, so the two must change together):
//! - an integer, enum or float: one input of its type;
//! - a pointer to a struct `S`: a *lazy slot*, decided on first read
//!   (Symbolic PathFinder's lazy initialization). The slot holds a
//!   placeholder, the address of its own byte of `__wd_marks`; the unit
//!   pipeline ([`crate::lazy`]) passes every pointer the code under test
//!   loads (and every use of a pointer parameter) through [`RESOLVE`], which
//!   turns a placeholder into a decision: one `int` choice, 0 is null, 1 a
//!   fresh `S` (while fewer than `max_objects` objects exist and the
//!   pointer is less than `max_depth` pointers deep; else null) whose
//!   scalar fields are inputs at once and whose pointer fields are lazy
//!   slots in turn, `2 + k` the `k`-th `S` made so far (aliasing, cycles
//!   included), anything else null. A pointer the code never reads costs
//!   no input and no branch. Each decision prints `\x1eK\x1f` (slot `K`),
//!   which walkdown's interpreter captures: the decoder replays the
//!   decisions in that order;
//! - a pointer to another type `T` (an array): a lazy slot too, decided by
//!   one `int` length choice: 1 to `max_array` is an array of that many
//!   `T`s, each built in turn, anything else null. A `char` array gets a
//!   terminating zero past its elements (a string);
//! - a struct by value or an array field: its members in order;
//! - `void *`, function pointers in structs, pointers to types the harness
//!   cannot build: null, with no input.
//!
//! The entry's parameters follow its contract ([`crate::contract`]): a
//! root slot of a parameter that must not be NULL is never decided null
//! (choice 0, or no room left, makes a fresh object; an out-of-range
//! length makes one element); a buffer with a length parameter is built at
//! once from a length choice of 0 to `max_array` (the length is passed by
//! value; an `int *` length gets an object holding it; a buffer sharing a
//! length with an earlier one takes its value; a `const char` buffer gets
//! a terminating zero, a writable one does not); a struct with an
//! initializer is a zeroed object the initializer fills (no inputs); a
//! function pointer is a stub whose return value is one input; each
//! `requires` clause is a function `__wd_pre_K` of the parameters, whose
//! result is assumed. In report mode every such promise may be broken by a
//! choice (and lengths are free inputs), and the harness prints
//! `\x1dK\x1f` for each clause `K` a run breaks.
//!
//! Compiled natively without the pipeline's calls, the harness would follow
//! placeholders: native runs use `unit_tests.c`, which builds each test's
//! decided shape directly.
//!
//! This module is the model (the plan of the parameters, the slots, the
//! skeleton of the text); [`crate::builders`] writes the builders' C.

use crate::contract::{self, ClauseKind, Contract, ContractMode, ContractOptions, Init, Length, Sources};
use crate::decls::{CType, Decls, FuncSig, IntKind};
use crate::UnitError;
use std::fmt::Write as _;

/// Bounds of the heap shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// At most this many struct objects in all.
    pub max_objects: u32,
    /// Struct objects at most this many pointers away from an argument.
    pub max_depth: u32,
    /// Arrays behind pointers have 1 to this many elements.
    pub max_array: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { max_objects: 4, max_depth: 3, max_array: 4 }
    }
}

/// How one parameter is built.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamPlan {
    /// Built from its type (see the module doc).
    Value,
    /// A buffer of that many elements, built at once.
    Buffer(Length),
    /// The length of the buffer parameter with the given index (the first
    /// of those sharing it).
    LengthOf(usize),
    /// A struct made by the library's initializer.
    Init(Init),
    /// A function pointer: a stub.
    Stub,
}

/// A function made a unit: its declarations, the plan of its arguments,
/// the bounds.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The file's declarations.
    pub decls: Decls,
    /// The entry function.
    pub entry: FuncSig,
    /// How each parameter is built.
    pub plan: Vec<ParamPlan>,
    /// The entry's contract.
    pub contract: Contract,
    /// The file-scope variables the entry (or a function it calls) names:
    /// inputs too, built before the parameters, in declaration order.
    pub globals: Vec<(String, CType)>,
    /// The bounds.
    pub settings: Settings,
}

/// The harness function the code under test calls after loading a pointer
/// (see the module doc).
pub const RESOLVE: &str = "__wd_resolve";

/// The prefix of the precondition functions (`__wd_pre_K` for clause `K`),
/// which the unit pipeline instruments as it does the entry.
pub const PRECONDITION: &str = "__wd_pre_";

/// Most lazy slots a harness keeps, whatever the bounds.
const MAX_SLOTS: u64 = 4096;

/// The name the program's own `main` gets in a unit.
pub const PROGRAM_MAIN: &str = "__walkdown_program_main";

impl Unit {
    /// Makes `entry` of `decls` a unit with the contract inferred from the
    /// file alone.
    pub fn new(decls: Decls, entry: &str, settings: Settings) -> Result<Unit, UnitError> {
        Unit::with_contract(decls, entry, settings, &ContractOptions::default(), &[])
    }

    /// Makes `entry` of `decls` a unit whose contract the options and the
    /// file's ACSL contracts (`acsl`) give, and inference completes.
    pub fn with_contract(
        decls: Decls,
        entry: &str,
        settings: Settings,
        options: &ContractOptions,
        acsl: &[crate::acsl::AcslContract],
    ) -> Result<Unit, UnitError> {
        if entry == "main" {
            return Err(UnitError::Unsupported {
                construct: "`main` as the entry of a unit (run gen without --entry)".into(),
                file: decls.file.clone(),
                line: 0,
            });
        }
        let sig = decls.func(entry)?.clone();
        let contract = contract::infer(&Sources { decls: &decls, acsl }, &sig, options)?;
        let plan = plan_of(&decls, &sig, &contract);
        let mut reached = vec![sig.name.clone()];
        let mut named = Vec::new();
        let mut k = 0;
        while k < reached.len() {
            if let Some((funcs, vars)) = decls.refs.get(&reached[k]) {
                for f in funcs {
                    if !reached.contains(f) && decls.funcs.iter().any(|d| d.name == *f) {
                        reached.push(f.clone());
                    }
                }
                named.extend(vars.iter().cloned());
            }
            k += 1;
        }
        // Inputs the function reads itself would interleave with the
        // harness's, and the shape of a test could not be read back.
        if let Some(f) = reached.iter().find(|f| {
            decls.refs.get(*f).is_some_and(|(called, _)| called.iter().any(|c| c.starts_with("__VERIFIER_nondet_")))
        }) {
            return Err(UnitError::Unsupported {
                construct: format!(
                    "`{f}` reads inputs itself (__VERIFIER_nondet_*); unit mode builds every input of the entry"
                ),
                file: decls.file.clone(),
                line: decls.funcs.iter().find(|d| d.name == *f).map_or(0, |d| d.line),
            });
        }
        let globals = decls.globals.iter().filter(|(n, _)| named.contains(n)).cloned().collect();
        let unit = Unit { decls, entry: sig, plan, contract, globals, settings };
        // Refuse what the harness cannot build before writing any of it.
        unit.check_buildable()?;
        Ok(unit)
    }

    /// Whether the harness keeps the contract (rather than reporting the
    /// clauses its runs break).
    pub fn assumes(&self) -> bool {
        self.contract.mode == ContractMode::Assume
    }

    fn check_buildable(&self) -> Result<(), UnitError> {
        let mut seen = Vec::new();
        for (i, (_, ty)) in self.entry.params.iter().enumerate() {
            match &self.plan[i] {
                ParamPlan::LengthOf(_) | ParamPlan::Stub => {}
                ParamPlan::Init(_) if self.assumes() => {}
                ParamPlan::Buffer(_) => self.check_type(&buffer_elem(ty), &mut seen)?,
                ParamPlan::Init(_) | ParamPlan::Value => self.check_type(ty, &mut seen)?,
            }
        }
        for (_, ty) in &self.globals {
            self.check_type(ty, &mut seen)?;
        }
        Ok(())
    }

    /// Refuses a type the harness would have to build a value of and
    /// cannot (`seen`: the structs checked already).
    fn check_type(&self, ty: &CType, seen: &mut Vec<usize>) -> Result<(), UnitError> {
        let refuse = |construct: String, line: u32| UnitError::Unsupported {
            construct,
            file: self.decls.file.clone(),
            line: if line == 0 { self.entry.line } else { line },
        };
        match ty {
            CType::Opaque { what, line } => Err(refuse(what.clone(), *line)),
            CType::Void => Err(refuse("a `void` value".into(), 0)),
            CType::Ptr(inner) => match &**inner {
                CType::Void | CType::FuncPtr(_) | CType::Opaque { .. } => Ok(()),
                other => self.check_type(other, seen),
            },
            CType::Array(inner, _) => self.check_type(inner, seen),
            CType::Struct(i) if !seen.contains(i) => {
                seen.push(*i);
                for (_, f) in &self.decls.records[*i].fields {
                    self.check_type(f, seen)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The struct types the harness builds objects of (reachable from the
    /// parameters).
    pub fn struct_types(&self) -> Vec<usize> {
        let mut seen = Vec::new();
        let mut work: Vec<CType> = self.entry.params.iter().chain(&self.globals).map(|(_, t)| t.clone()).collect();
        while let Some(t) = work.pop() {
            match t {
                CType::Ptr(inner) | CType::Array(inner, _) => work.push(*inner),
                CType::Struct(i) if !seen.contains(&i) => {
                    seen.push(i);
                    work.extend(self.decls.records[i].fields.iter().map(|(_, f)| f.clone()));
                }
                _ => {}
            }
        }
        seen.sort_unstable();
        seen
    }

    /// How many lazy slots the harness keeps: every slot the arguments,
    /// the globals and `max_objects` objects of the widest type can hold
    /// (at least 16, at most 4096). A slot past it is null at once, in the
    /// harness and the decoder alike.
    pub fn slot_capacity(&self) -> usize {
        let roots: u64 = self
            .entry
            .params
            .iter()
            .chain(&self.globals)
            .map(|(_, t)| self.slots_in(t, 0))
            .fold(0, u64::saturating_add);
        let widest = self.struct_types().iter().map(|&i| self.slots_in(&CType::Struct(i), 0)).max().unwrap_or(0);
        let n = roots.saturating_add(widest.saturating_mul(u64::from(self.pool_size()))).saturating_add(1);
        n.clamp(16, MAX_SLOTS) as usize
    }

    /// Room for the objects of one struct type: `max_objects`, and one
    /// more per parameter (a parameter that must not be NULL gets an
    /// object past the bound).
    pub fn pool_size(&self) -> u32 {
        self.settings.max_objects.max(1) + self.entry.params.len() as u32
    }

    /// The element types of the arrays behind pointers the harness builds
    /// on first read, in a fixed order: a slot of type `records + k` (see
    /// [`Unit::slot_type`]) is an array of the `k`-th.
    pub fn array_types(&self) -> Vec<CType> {
        let mut found: Vec<CType> = Vec::new();
        let mut work: Vec<CType> = self.entry.params.iter().chain(&self.globals).map(|(_, t)| t.clone()).collect();
        let mut seen_structs = Vec::new();
        while let Some(t) = work.pop() {
            match t {
                CType::Ptr(inner) => match *inner {
                    CType::Void | CType::FuncPtr(_) | CType::Opaque { .. } => {}
                    CType::Struct(i) => work.push(CType::Struct(i)),
                    elem => {
                        if !found.contains(&elem) {
                            found.push(elem.clone());
                            work.push(elem);
                        }
                    }
                },
                CType::Array(inner, _) => work.push(*inner),
                CType::Struct(i) if !seen_structs.contains(&i) => {
                    seen_structs.push(i);
                    work.extend(self.decls.records[i].fields.iter().map(|(_, f)| f.clone()));
                }
                _ => {}
            }
        }
        found
    }

    /// The type number of a lazy slot of a pointer to `pointee`: the
    /// record's index for a struct, past the records for an array.
    pub fn slot_type(&self, pointee: &CType) -> Option<usize> {
        match pointee {
            CType::Struct(i) => Some(*i),
            CType::Void | CType::FuncPtr(_) | CType::Opaque { .. } => None,
            elem => self.array_types().iter().position(|t| t == elem).map(|k| self.decls.records.len() + k),
        }
    }

    /// The lazy slots one value of `ty` holds (arrays behind pointers at
    /// their longest).
    fn slots_in(&self, ty: &CType, depth: u32) -> u64 {
        if depth > 8 {
            return 0;
        }
        match ty {
            CType::Ptr(inner) => match &**inner {
                CType::Struct(_) => 1,
                CType::Void | CType::FuncPtr(_) | CType::Opaque { .. } => 0,
                elem => {
                    u64::from(self.settings.max_array).saturating_mul(self.slots_in(elem, depth + 1)).saturating_add(1)
                }
            },
            CType::Array(elem, n) => n.saturating_mul(self.slots_in(elem, depth + 1)),
            CType::Struct(i) => self.decls.records[*i]
                .fields
                .iter()
                .map(|(_, f)| self.slots_in(f, depth + 1))
                .fold(0, u64::saturating_add),
            _ => 0,
        }
    }

    /// The program text with its `main` renamed and the harness appended.
    pub fn program_text(&self, original: &str) -> String {
        let mut text = rename_main(original);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&self.harness_text());
        text
    }

    /// The harness (C declarations, builders and `main`).
    pub fn harness_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n/* ---- walkdown unit harness for {} (generated; inputs build the arguments) ---- */",
            self.entry.name
        );
        for k in NONDETS {
            let _ = writeln!(out, "extern {} __VERIFIER_nondet_{}(void);", k.0, k.1);
        }
        out.push_str("extern void __VERIFIER_assume(int);\n");
        if !self.assumes() {
            // A broken clause of the contract, for the report.
            out.push_str("static void __wd_broke(int k) {\n  __builtin_printf(\"\\x1d%d\\x1f\", k);\n}\n");
        }
        let _ = writeln!(out, "static int __wd_objects;");
        self.slots_text(&mut out);
        self.builders_text(&mut out);
        out.push_str(&self.stub_definitions());
        self.preconditions_text(&mut out);
        self.main_text(&mut out);
        out
    }

    /// The lazy slots, `__wd_lazy` and `__wd_resolve` (see the module doc).
    fn slots_text(&self, out: &mut String) {
        // Slot k's placeholder is &__wd_marks[k], so a copy of an unread
        // pointer still names its slot.
        let cap = self.slot_capacity();
        let _ = writeln!(
            out,
            "static char __wd_marks[{cap}];\nstatic void **__wd_slot_at[{cap}];\nstatic int __wd_slot_type[{cap}];\nstatic int __wd_slot_depth[{cap}];\nstatic int __wd_slot_clause[{cap}];\nstatic char __wd_slot_done[{cap}];\nstatic void *__wd_slot_value[{cap}];\nstatic int __wd_slots;"
        );
        // `clause` is 1 + the clause that the slot is not NULL, or 0.
        let _ = writeln!(
            out,
            "static void __wd_lazy(void **at, int type, int depth, int clause) {{\n  if (__wd_slots < {cap}) {{\n    int k = __wd_slots++;\n    __wd_slot_at[k] = at;\n    __wd_slot_type[k] = type;\n    __wd_slot_depth[k] = depth;\n    __wd_slot_clause[k] = clause;\n    *at = (void *)&__wd_marks[k];\n  }} else {{\n    *at = 0;\n  }}\n}}"
        );
    }

    /// `main`: the globals, the parameters, the preconditions, the call.
    fn main_text(&self, out: &mut String) {
        out.push_str("int main(void) {\n  int depth = 0;\n");
        let mut names = 0;
        for (name, ty) in &self.globals {
            self.fill(out, name, ty, 1, &mut names);
        }
        for (i, (_, ty)) in self.entry.params.iter().enumerate() {
            let init = if matches!(ty, CType::Struct(_) | CType::Array(..)) { "" } else { " = 0" };
            let _ = writeln!(out, "  {}{init};", self.decls.declare(ty, &format!("a{i}")));
        }
        for i in 0..self.entry.params.len() {
            self.build_param(out, i, &mut names);
        }
        let args: Vec<String> = (0..self.entry.params.len()).map(|i| format!("a{i}")).collect();
        let args = args.join(", ");
        for (k, c) in self.contract.clauses.iter().enumerate() {
            if let ClauseKind::Requires(_) = c.kind {
                if self.assumes() {
                    let _ = writeln!(out, "  __VERIFIER_assume({PRECONDITION}{k}({args}));");
                } else {
                    let _ = writeln!(out, "  if (!{PRECONDITION}{k}({args})) __wd_broke({k});");
                }
            }
        }
        let _ = writeln!(out, "  (void)depth;\n  {}({args});\n  return 0;\n}}", self.entry.name);
    }

    /// `__wd_pre_K`: each `requires` clause as a function of parameters
    /// named as the entry's.
    fn preconditions_text(&self, out: &mut String) {
        let params: Vec<String> = self.entry.params.iter().map(|(n, t)| self.decls.declare(t, n)).collect();
        let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
        for (k, c) in self.contract.clauses.iter().enumerate() {
            if let ClauseKind::Requires(e) = &c.kind {
                let _ = writeln!(out, "static int {PRECONDITION}{k}({params}) {{\n  return ({e});\n}}");
            }
        }
    }
}

impl Unit {
    /// Whether the buffer parameter `i` gets a terminating zero past its
    /// elements: a `const char *` (not `unsigned char`: bytes) with a
    /// length is a string the function
    /// reads (C strings are terminated, and an API may fall back on the
    /// terminator, as `b58tobin` does for a length of 0); a writable `char *`
    /// is an output buffer, whose last byte is its last.
    pub fn buffer_is_string(&self, i: usize) -> bool {
        matches!(buffer_elem(&self.entry.params[i].1), CType::Int(IntKind::Char | IntKind::SChar))
            && self.entry.reads_only.get(i).copied().unwrap_or(false)
    }
}

/// The element type of a buffer parameter of type `ty` (`void *` holds
/// bytes).
pub fn buffer_elem(ty: &CType) -> CType {
    match ty {
        CType::Ptr(inner) if **inner == CType::Void => CType::Int(IntKind::UChar),
        CType::Ptr(inner) => (**inner).clone(),
        other => other.clone(),
    }
}

/// How each parameter is built under `contract`.
fn plan_of(decls: &Decls, entry: &FuncSig, contract: &Contract) -> Vec<ParamPlan> {
    entry
        .params
        .iter()
        .enumerate()
        .map(|(i, (_, ty))| {
            if let Some(l) = contract.lengths[i] {
                ParamPlan::Buffer(l)
            } else if let Some(j) = contract.length_of[i] {
                ParamPlan::LengthOf(j)
            } else if let Some(init) = &contract.init[i] {
                ParamPlan::Init(init.clone())
            } else if matches!(ty, CType::FuncPtr(s) if decls.fn_types.contains_key(s)) {
                ParamPlan::Stub
            } else {
                ParamPlan::Value
            }
        })
        .collect()
}

/// Whether arrays of `ty` are strings.
pub fn is_char(ty: &CType) -> bool {
    matches!(ty, CType::Int(IntKind::Char | IntKind::SChar | IntKind::UChar))
}

/// The `__VERIFIER_nondet_*` functions the harness declares: C type, suffix.
const NONDETS: [(&str, &str); 13] = [
    ("_Bool", "bool"),
    ("char", "char"),
    ("unsigned char", "uchar"),
    ("short", "short"),
    ("unsigned short", "ushort"),
    ("int", "int"),
    ("unsigned int", "uint"),
    ("long", "long"),
    ("unsigned long", "ulong"),
    ("long long", "longlong"),
    ("unsigned long long", "ulonglong"),
    ("float", "float"),
    ("double", "double"),
];

/// The program's text with every use of the identifier `main` renamed to
/// [`PROGRAM_MAIN`], its declarations at file scope made `static` (so a
/// `main` nothing calls is not emitted). Comments, strings and character
/// literals are left alone; lines and columns before each use stay.
pub fn rename_main(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut i = 0;
    let mut depth = 0i32;
    let mut decl_start = 0usize; // where the current file-scope declaration began in `out`
    let mut copied = 0usize;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        if c == b'#' && text[..i].rsplit('\n').next().is_some_and(|l| l.trim().is_empty()) {
            // A preprocessor line (with its continuations) is left alone.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    out.push_str(&text[copied..=i]);
                    copied = i + 1;
                    decl_start = out.len();
                }
            }
            b';' if depth == 0 => {
                out.push_str(&text[copied..=i]);
                copied = i + 1;
                decl_start = out.len();
            }
            _ => {}
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if &text[start..i] == "main" {
                out.push_str(&text[copied..start]);
                let declared_static =
                    out[decl_start..].split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|w| w == "static");
                let next = text[i..].trim_start().chars().next();
                if depth == 0 && next == Some('(') && !declared_static {
                    out.push_str("static ");
                }
                out.push_str(PROGRAM_MAIN);
                copied = i;
            }
            continue;
        }
        i += 1;
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_is_renamed_outside_comments_and_strings() {
        let text = "/* main */ int x;\nint main(void) { char *s = \"main\"; return main2(); }\n";
        let renamed = rename_main(text);
        assert_eq!(
            renamed,
            "/* main */ int x;\nint static __walkdown_program_main(void) { char *s = \"main\"; return main2(); }\n"
        );
        assert_eq!(renamed.lines().count(), text.lines().count());
        let already = "static int main(void) { return main(); }";
        assert_eq!(
            rename_main(already),
            "static int __walkdown_program_main(void) { return __walkdown_program_main(); }"
        );
    }
}
