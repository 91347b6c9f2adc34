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
//!   terminating zero past its elements (a string). A pointer parameter
//!   followed by an integer parameter with a length's name (`n`, `len`,
//!   `size`, `count`, …) is an array of either kind whose length that
//!   parameter receives (0 for null), built at once (the length is passed
//!   by value);
//! - a struct by value or an array field: its members in order;
//! - `void *` and function pointers: null, with no input.
//!
//! Compiled natively without the pipeline's calls, the harness would follow
//! placeholders: native runs use `unit_tests.c`, which builds each test's
//! decided shape directly.

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
    /// A pointer that is an array whose length parameter is the given one.
    ArrayWithLength(usize),
    /// The length of the array parameter with the given index.
    LengthOf(usize),
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
    /// The file-scope variables the entry (or a function it calls) names:
    /// inputs too, built before the parameters, in declaration order.
    pub globals: Vec<(String, CType)>,
    /// The bounds.
    pub settings: Settings,
}

/// The harness function the code under test calls after loading a pointer
/// (see the module doc).
pub const RESOLVE: &str = "__wd_resolve";

/// Most lazy slots a harness keeps, whatever the bounds.
const MAX_SLOTS: u64 = 4096;

/// The name the program's own `main` gets in a unit.
pub const PROGRAM_MAIN: &str = "__walkdown_program_main";

/// Whether a parameter name reads as an array length.
fn is_length_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "n" | "len" | "length" | "size" | "count" | "num" | "cnt" | "nelem" | "nelems" | "nitems" | "sz"
    ) || n.ends_with("_len")
        || n.ends_with("_size")
        || n.ends_with("_count")
        || n.ends_with("len") && n.len() <= 6
}

impl Unit {
    /// Makes `entry` of `decls` a unit.
    pub fn new(decls: Decls, entry: &str, settings: Settings) -> Result<Unit, UnitError> {
        if entry == "main" {
            return Err(UnitError::Unsupported {
                construct: "`main` as the entry of a unit (run gen without --entry)".into(),
                file: decls.file.clone(),
                line: 0,
            });
        }
        let sig = decls.func(entry)?.clone();
        let mut plan = vec![ParamPlan::Value; sig.params.len()];
        for i in 0..sig.params.len().saturating_sub(1) {
            let (_, ty) = &sig.params[i];
            let (next_name, next_ty) = &sig.params[i + 1];
            let array_like = matches!(ty, CType::Ptr(inner) if !matches!(**inner, CType::Void | CType::FuncPtr(_)));
            if array_like
                && matches!(next_ty, CType::Int(k) if *k != IntKind::Bool)
                && is_length_name(next_name)
                && plan[i] == ParamPlan::Value
            {
                plan[i] = ParamPlan::ArrayWithLength(i + 1);
                plan[i + 1] = ParamPlan::LengthOf(i);
            }
        }
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
        let unit = Unit { decls, entry: sig, plan, globals, settings };
        // Refuse what the harness cannot build before writing any of it.
        for (_, ty) in unit.entry.params.iter().chain(&unit.globals) {
            unit.check_buildable(ty, 0)?;
        }
        Ok(unit)
    }

    fn check_buildable(&self, ty: &CType, depth: u32) -> Result<(), UnitError> {
        if depth > 8 {
            return Ok(());
        }
        match ty {
            CType::Void => Err(UnitError::Unsupported {
                construct: "a `void` value".into(),
                file: self.decls.file.clone(),
                line: self.entry.line,
            }),
            CType::Ptr(inner) => match &**inner {
                CType::Void | CType::FuncPtr(_) | CType::Struct(_) => Ok(()),
                other => self.check_buildable(other, depth + 1),
            },
            CType::Array(inner, _) => self.check_buildable(inner, depth + 1),
            CType::Struct(i) => {
                for (_, f) in &self.decls.records[*i].fields {
                    self.check_buildable(f, depth + 1)?;
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
        let n = roots.saturating_add(widest.saturating_mul(u64::from(self.settings.max_objects))).saturating_add(1);
        n.clamp(16, MAX_SLOTS) as usize
    }

    /// The element types of the arrays behind pointers the harness builds
    /// on first read, in a fixed order: a slot of type `records + k` (see
    /// [`Unit::slot_type`]) is an array of the `k`-th. (An array parameter
    /// paired with a length parameter is built at once: the length is
    /// passed by value.)
    pub fn array_types(&self) -> Vec<CType> {
        let mut found: Vec<CType> = Vec::new();
        let mut work: Vec<CType> = self.entry.params.iter().chain(&self.globals).map(|(_, t)| t.clone()).collect();
        let mut seen_structs = Vec::new();
        while let Some(t) = work.pop() {
            match t {
                CType::Ptr(inner) => match *inner {
                    CType::Void | CType::FuncPtr(_) => {}
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
            CType::Void | CType::FuncPtr(_) => None,
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
                CType::Void | CType::FuncPtr(_) => 0,
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
        let s = self.settings;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n/* ---- walkdown unit harness for {} (generated; inputs build the arguments) ---- */",
            self.entry.name
        );
        for k in NONDETS {
            let _ = writeln!(out, "extern {} __VERIFIER_nondet_{}(void);", k.0, k.1);
        }
        let _ = writeln!(out, "static int __wd_objects;");
        // The lazy slots (see the module doc): slot k's placeholder is
        // &__wd_marks[k], so a copy of an unread pointer still names its slot.
        let cap = self.slot_capacity();
        let _ = writeln!(
            out,
            "static char __wd_marks[{cap}];\nstatic void **__wd_slot_at[{cap}];\nstatic int __wd_slot_type[{cap}];\nstatic int __wd_slot_depth[{cap}];\nstatic char __wd_slot_done[{cap}];\nstatic void *__wd_slot_value[{cap}];\nstatic int __wd_slots;"
        );
        let _ = writeln!(
            out,
            "static void __wd_lazy(void **at, int type, int depth) {{\n  if (__wd_slots < {cap}) {{\n    int k = __wd_slots++;\n    __wd_slot_at[k] = at;\n    __wd_slot_type[k] = type;\n    __wd_slot_depth[k] = depth;\n    *at = (void *)&__wd_marks[k];\n  }} else {{\n    *at = 0;\n  }}\n}}"
        );
        let types = self.struct_types();
        for &i in &types {
            let sp = &self.decls.records[i].spelling;
            let _ = writeln!(out, "static {sp} *__wd_pool_{i}[{}];\nstatic int __wd_count_{i};", s.max_objects.max(1));
            let _ = writeln!(out, "static {sp} *__wd_ptr_{i}(int depth);");
        }
        for &i in &types {
            let sp = &self.decls.records[i].spelling;
            let _ = writeln!(out, "static void __wd_fill_{i}({sp} *p, int depth) {{");
            let mut names = 0;
            for (f, ty) in &self.decls.records[i].fields {
                self.fill(&mut out, &format!("p->{f}"), ty, 1, &mut names);
            }
            out.push_str("  (void)depth;\n}\n");
            let _ = writeln!(
                out,
                "static {sp} *__wd_ptr_{i}(int depth) {{\n  int c = __VERIFIER_nondet_int();\n  if (c == 0) return 0;\n  if (c == 1) {{\n    if (__wd_objects < {mo} && depth < {md}) {{\n      {sp} *p = ({sp} *)__builtin_calloc(1, sizeof({sp}));\n      __wd_pool_{i}[__wd_count_{i}++] = p;\n      __wd_objects++;\n      __wd_fill_{i}(p, depth + 1);\n      return p;\n    }}\n    return 0;\n  }}\n  if (c >= 2 && c - 2 < __wd_count_{i}) return __wd_pool_{i}[c - 2];\n  return 0;\n}}",
                mo = s.max_objects,
                md = s.max_depth,
            );
        }
        let arrays = self.array_types();
        let base = self.decls.records.len();
        for (k, elem) in arrays.iter().enumerate() {
            let _ = writeln!(out, "static void *__wd_arr_{k}(int depth) {{\n  void *r = 0;");
            let mut names = 0;
            self.array(&mut out, "r", elem, None, 1, &mut names);
            out.push_str("  (void)depth;\n  return r;\n}\n");
        }
        out.push_str("static void *__wd_make(int type, int depth) {\n  switch (type) {\n");
        for &i in &types {
            let _ = writeln!(out, "  case {i}: return (void *)__wd_ptr_{i}(depth);");
        }
        for k in 0..arrays.len() {
            let _ = writeln!(out, "  case {}: return __wd_arr_{k}(depth);", base + k);
        }
        out.push_str("  }\n  return 0;\n}\n");
        // Called by the code under test after each load of a pointer (the
        // unit pipeline inserts the calls, see `crate::lazy`): an unread
        // slot's placeholder is decided here, on first read, and the
        // decision is printed (`\x1eK\x1f`) for the shape decoder.
        let _ = writeln!(
            out,
            "__attribute__((used)) void *{RESOLVE}(void *v, void **at) {{\n  __UINTPTR_TYPE__ d = (__UINTPTR_TYPE__)v - (__UINTPTR_TYPE__)__wd_marks;\n  if (d >= {cap}) return v;\n  int k = (int)d;\n  if (!__wd_slot_done[k]) {{\n    __wd_slot_done[k] = 1;\n    __builtin_printf(\"\\x1e%d\\x1f\", k);\n    __wd_slot_value[k] = __wd_make(__wd_slot_type[k], __wd_slot_depth[k]);\n    if (*__wd_slot_at[k] == (void *)&__wd_marks[k]) *__wd_slot_at[k] = __wd_slot_value[k];\n  }}\n  if (at) *at = __wd_slot_value[k];\n  return __wd_slot_value[k];\n}}"
        );
        out.push_str("int main(void) {\n  int depth = 0;\n");
        let mut names = 0;
        for (name, ty) in &self.globals {
            self.fill(&mut out, name, ty, 1, &mut names);
        }
        for (i, (_, ty)) in self.entry.params.iter().enumerate() {
            match (&self.plan[i], ty) {
                (ParamPlan::LengthOf(_), _) => {}
                (ParamPlan::ArrayWithLength(len), CType::Ptr(elem)) => {
                    let _ = writeln!(
                        out,
                        "  {} a{i};\n  {} a{len};",
                        self.decls.spell(ty),
                        self.decls.spell(&self.entry.params[*len].1)
                    );
                    self.array(&mut out, &format!("a{i}"), elem, Some(&format!("a{len}")), 1, &mut names);
                }
                (_, CType::FuncPtr(spelled)) => {
                    let _ = writeln!(out, "  {spelled} a{i} = 0;");
                }
                _ => {
                    let _ = writeln!(out, "  {} a{i};", self.decls.spell(ty));
                    self.fill(&mut out, &format!("a{i}"), ty, 1, &mut names);
                }
            }
        }
        let args: Vec<String> = (0..self.entry.params.len()).map(|i| format!("a{i}")).collect();
        let _ = writeln!(out, "  (void)depth;\n  {}({});\n  return 0;\n}}", self.entry.name, args.join(", "));
        out
    }

    /// Statements that build the value of `lvalue`, of type `ty`.
    fn fill(&self, out: &mut String, lvalue: &str, ty: &CType, indent: usize, names: &mut u32) {
        let pad = "  ".repeat(indent);
        match ty {
            CType::Int(k) => {
                let _ = writeln!(out, "{pad}{lvalue} = __VERIFIER_nondet_{}();", k.nondet());
            }
            CType::Float => {
                let _ = writeln!(out, "{pad}{lvalue} = __VERIFIER_nondet_float();");
            }
            CType::Double => {
                let _ = writeln!(out, "{pad}{lvalue} = __VERIFIER_nondet_double();");
            }
            // Test-Comp has no `long double` input: a `double` one, widened
            // (exactly), so the values a test gives are the doubles.
            CType::LongDouble => {
                let _ = writeln!(out, "{pad}{lvalue} = (long double)__VERIFIER_nondet_double();");
            }
            CType::Void | CType::FuncPtr(_) => {
                let _ = writeln!(out, "{pad}{lvalue} = 0;");
            }
            CType::Struct(i) => {
                let _ = writeln!(out, "{pad}__wd_fill_{i}(&{lvalue}, depth);");
            }
            CType::Array(elem, n) => {
                *names += 1;
                let v = format!("i{names}");
                let _ = writeln!(out, "{pad}for (int {v} = 0; {v} < {n}; {v}++) {{");
                self.fill(out, &format!("{lvalue}[{v}]"), elem, indent + 1, names);
                let _ = writeln!(out, "{pad}}}");
            }
            CType::Ptr(inner) => match &**inner {
                CType::Struct(i) => {
                    let _ = writeln!(out, "{pad}__wd_lazy((void **)&{lvalue}, {i}, depth);");
                }
                CType::Void | CType::FuncPtr(_) => {
                    let _ = writeln!(out, "{pad}{lvalue} = 0;");
                }
                elem => {
                    let t = self.slot_type(elem).expect("array_types lists every array behind a pointer");
                    let _ = writeln!(out, "{pad}__wd_lazy((void **)&{lvalue}, {t}, depth);");
                }
            },
        }
    }

    /// Statements that build an array behind the pointer `lvalue`, storing
    /// its length in `length` when given.
    fn array(
        &self,
        out: &mut String,
        lvalue: &str,
        elem: &CType,
        length: Option<&str>,
        indent: usize,
        names: &mut u32,
    ) {
        let pad = "  ".repeat(indent);
        *names += 1;
        let c = format!("c{names}");
        let a = format!("p{names}");
        let v = format!("i{names}");
        let spelled = self.decls.spell(elem);
        let string = is_char(elem) && length.is_none();
        let _ = writeln!(out, "{pad}{{\n{pad}  int {c} = __VERIFIER_nondet_int();");
        let _ = writeln!(out, "{pad}  if ({c} >= 1 && {c} <= {}) {{", self.settings.max_array);
        let _ = writeln!(
            out,
            "{pad}    {spelled} *{a} = ({spelled} *)__builtin_calloc({c}{}, sizeof({spelled}));",
            if string { " + 1" } else { "" }
        );
        let _ = writeln!(out, "{pad}    for (int {v} = 0; {v} < {c}; {v}++) {{");
        let mut body = String::new();
        match elem {
            CType::Struct(i) => {
                let _ = writeln!(body, "{pad}      __wd_fill_{i}(&{a}[{v}], depth);");
            }
            _ => self.fill(&mut body, &format!("{a}[{v}]"), elem, indent + 3, names),
        }
        out.push_str(&body);
        let _ = writeln!(out, "{pad}    }}\n{pad}    {lvalue} = {a};");
        if let Some(len) = length {
            let _ = writeln!(out, "{pad}    {len} = {c};");
        }
        let _ = writeln!(out, "{pad}  }} else {{\n{pad}    {lvalue} = 0;");
        if let Some(len) = length {
            let _ = writeln!(out, "{pad}    {len} = 0;");
        }
        let _ = writeln!(out, "{pad}  }}\n{pad}}}");
    }
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

    #[test]
    fn length_names() {
        assert!(is_length_name("n") && is_length_name("len") && is_length_name("buf_size"));
        assert!(!is_length_name("key") && !is_length_name("value"));
    }
}
