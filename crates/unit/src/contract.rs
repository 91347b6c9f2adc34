//! The API contract of a unit's entry: what a caller of the function
//! promises, so that the harness builds only the calls a user of the
//! library makes. Each promise is a [`Clause`]:
//!
//! - **not NULL**: a pointer parameter is non-NULL unless the function
//!   itself compares it with NULL; `__attribute__((nonnull))` and ACSL
//!   `\valid` make it non-NULL even then, and `--nullable` makes it
//!   nullable whatever the rest says. A `void *` or a pointer to a type
//!   the harness cannot build stays NULL and has no clause (it is passed
//!   on, not read);
//! - **length**: a pointer parameter points to as many elements as an
//!   integer parameter says (`js`/`len`), or as the integer another
//!   parameter points to (`bin`/`*binsz`), or a fixed number; found by use
//!   (the integer bounds the accesses through the pointer, in the function
//!   or in a callee it passes both to), by name (`tokens`/`num_tokens`,
//!   `s`/`n` next to each other), from ACSL, or given (`--length`);
//! - **made by**: a struct parameter is built by the library's own
//!   initializer (`jsmn_init`), found by type and name or given (`--init`);
//! - **requires**: a C expression over the parameters (`--requires`, or an
//!   ACSL `requires` clause in the source, see [`crate::acsl`]).
//!
//! In [`ContractMode::Assume`] (the default) the harness builds only
//! inputs that keep every clause (requires clauses are assumed). In
//! [`ContractMode::Report`] it may break the first three kinds too (a
//! choice input each) and assumes nothing; every clause a run breaks is
//! printed, and an error that needs a broken clause is reported as such.

use crate::acsl::{AcslClause, AcslContract};
use crate::decls::{CType, Decls, FuncSig, IntKind};
use crate::facts::LengthRef;
use crate::UnitError;
use std::collections::HashMap;

/// What the harness does with the contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContractMode {
    /// Build only inputs that keep it (assume the preconditions).
    #[default]
    Assume,
    /// Build inputs that may break it, and record the clauses each run
    /// breaks.
    Report,
}

/// The contract as the options of unit mode give it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContractOptions {
    /// `PTR=LEN` pairs (`js=len`, `bin=*binsz`, `dest=64`); `none` turns
    /// off finding lengths by use and name.
    pub lengths: Vec<String>,
    /// Initializers: `FUNC` or `PARAM=FUNC`; `none` turns off finding
    /// them by type.
    pub init: Vec<String>,
    /// Pointer parameters that may be NULL (`all` for every one).
    pub nullable: Vec<String>,
    /// Preconditions: C expressions over the parameters.
    pub requires: Vec<String>,
    /// What the harness does with the contract.
    pub mode: ContractMode,
}

/// How many elements a pointer parameter points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// As many as this integer parameter says.
    Param(usize),
    /// As many as the integer this parameter points to says.
    Deref(usize),
    /// This many (a zero-filled buffer: no inputs).
    Const(u64),
}

/// How a struct parameter is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// `void f(S *)` (or `int f(S *)`) on a zeroed object.
    InPlace(String),
    /// `S *f(void)`.
    Constructor(String),
}

impl Init {
    /// The function's name.
    pub fn name(&self) -> &str {
        match self {
            Init::InPlace(f) | Init::Constructor(f) => f,
        }
    }
}

/// What a clause promises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseKind {
    /// The parameter is not NULL.
    NonNull(usize),
    /// The pointer parameter has its [`Contract::lengths`] elements.
    Length(usize),
    /// The parameter is made by its [`Contract::init`].
    Made(usize),
    /// The C expression holds.
    Requires(String),
}

/// One promise of the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    /// What it promises.
    pub kind: ClauseKind,
    /// In words (`parser != NULL`, `js has len elements`).
    pub words: String,
    /// Where it comes from (`not compared with NULL by jsmn_parse`, `--requires`).
    pub why: String,
}

/// The contract of a unit's entry, per parameter and as clauses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contract {
    /// What the harness does with it.
    pub mode: ContractMode,
    /// Per parameter: whether NULL is a legal value of it.
    pub nullable: Vec<bool>,
    /// Per parameter: its length, for pointers.
    pub lengths: Vec<Option<Length>>,
    /// Per parameter: the pointer parameter it is the length of (the
    /// first one, when several share it).
    pub length_of: Vec<Option<usize>>,
    /// Per parameter: how a struct parameter is made.
    pub init: Vec<Option<Init>>,
    /// Every promise.
    pub clauses: Vec<Clause>,
    /// What was read and not used (ACSL clauses not understood).
    pub notes: Vec<String>,
}

impl Contract {
    /// The clause promising `kind`, if there is one.
    pub fn clause(&self, kind: &ClauseKind) -> Option<usize> {
        self.clauses.iter().position(|c| c.kind == *kind)
    }

    /// The clause that parameter `i` is not NULL.
    pub fn nonnull(&self, i: usize) -> Option<usize> {
        self.clause(&ClauseKind::NonNull(i))
    }

    /// Each clause in words, with where it comes from.
    pub fn describe(&self) -> Vec<String> {
        self.clauses.iter().map(|c| format!("{} ({})", c.words, c.why)).collect()
    }
}

/// Whether a parameter name reads as an array length.
pub fn is_length_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "n" | "len" | "length" | "size" | "count" | "num" | "cnt" | "nelem" | "nelems" | "nitems" | "sz"
    ) || n.ends_with("_len")
        || n.ends_with("_size")
        || n.ends_with("_count")
        || n.ends_with("len") && n.len() <= 6
}

/// Whether `len` names the length of `ptr`: it contains the pointer's
/// name and a length word (`num_tokens`, `b58sz`, `seplen`, `buf_size`).
fn names_length_of(len: &str, ptr: &str) -> bool {
    let (l, p) = (len.to_ascii_lowercase(), ptr.to_ascii_lowercase());
    if p.len() < 2 || !l.contains(&p) || l == p {
        return false;
    }
    let rest = l.replacen(&p, "", 1);
    let rest = rest.trim_matches('_');
    matches!(rest, "n" | "num" | "len" | "length" | "size" | "sz" | "szp" | "count" | "cnt" | "max" | "cap" | "nr")
}

/// What the inference reads besides the entry's declaration.
pub struct Sources<'a> {
    /// The file's declarations.
    pub decls: &'a Decls,
    /// The file's ACSL contracts.
    pub acsl: &'a [AcslContract],
}

/// The contract of `entry`.
pub fn infer(src: &Sources<'_>, entry: &FuncSig, options: &ContractOptions) -> Result<Contract, UnitError> {
    let n = entry.params.len();
    let mut c = Contract {
        mode: options.mode,
        nullable: vec![false; n],
        lengths: vec![None; n],
        length_of: vec![None; n],
        init: vec![None; n],
        clauses: Vec::new(),
        notes: Vec::new(),
    };
    let acsl: Vec<&AcslClause> =
        src.acsl.iter().filter(|a| a.function == entry.name).flat_map(|a| a.clauses.iter()).collect();
    lengths(src, entry, options, &acsl, &mut c)?;
    nullability(src, entry, options, &acsl, &mut c)?;
    initializers(src.decls, entry, options, &mut c)?;
    for e in &options.requires {
        c.clauses.push(Clause { kind: ClauseKind::Requires(e.clone()), words: e.clone(), why: "--requires".into() });
    }
    for a in &acsl {
        match a {
            AcslClause::Requires(e) => c.clauses.push(Clause {
                kind: ClauseKind::Requires(e.clone()),
                words: e.clone(),
                why: "ACSL requires".into(),
            }),
            AcslClause::NotUnderstood(e) => {
                c.notes.push(format!("ACSL clause `requires {e}` of {} not understood; ignored", entry.name))
            }
            _ => {}
        }
    }
    Ok(c)
}

fn bad(decls: &Decls, entry: &FuncSig, message: String) -> UnitError {
    UnitError::Contract { file: decls.file.clone(), line: entry.line, message }
}

fn param_index(decls: &Decls, entry: &FuncSig, name: &str, option: &str) -> Result<usize, UnitError> {
    entry
        .params
        .iter()
        .position(|(p, _)| p == name)
        .ok_or_else(|| bad(decls, entry, format!("{option}: `{}` has no parameter `{name}`", entry.name)))
}

/// Whether a parameter of type `ty` can point to elements the harness
/// builds (`void *` as bytes).
fn is_buffer(ty: &CType) -> bool {
    matches!(ty, CType::Ptr(inner) if !matches!(**inner, CType::FuncPtr(_) | CType::Opaque { .. }))
}

fn is_int(ty: &CType) -> bool {
    matches!(ty, CType::Int(k) if *k != IntKind::Bool)
}

fn is_int_ptr(ty: &CType) -> bool {
    matches!(ty, CType::Ptr(inner) if is_int(inner))
}

/// Pairs pointers with their lengths: the options, ACSL, then use, then
/// names.
fn lengths(
    src: &Sources<'_>,
    entry: &FuncSig,
    options: &ContractOptions,
    acsl: &[&AcslClause],
    c: &mut Contract,
) -> Result<(), UnitError> {
    let decls = src.decls;
    let mut given: Vec<(String, String, &str)> = Vec::new();
    for l in options.lengths.iter().filter(|l| *l != "none") {
        let (p, n) =
            l.split_once('=').ok_or_else(|| bad(decls, entry, format!("--length {l}: expected POINTER=LENGTH")))?;
        given.push((p.trim().to_string(), n.trim().to_string(), "--length"));
    }
    for a in acsl {
        if let AcslClause::ValidRange(p, n) = a {
            given.push((p.clone(), n.clone(), "ACSL \\valid"));
        }
    }
    for (p, n, why) in given {
        let i = param_index(decls, entry, &p, why)?;
        if !is_buffer(&entry.params[i].1) {
            return Err(bad(decls, entry, format!("{why}: `{p}` is not a pointer to elements unit mode can build")));
        }
        let length = if let Ok(k) = n.parse::<u64>() {
            Length::Const(k)
        } else if let Some(d) = n.strip_prefix('*') {
            let j = param_index(decls, entry, d.trim(), why)?;
            if !is_int_ptr(&entry.params[j].1) {
                return Err(bad(decls, entry, format!("{why}: `{d}` is not a pointer to an integer")));
            }
            Length::Deref(j)
        } else {
            let j = param_index(decls, entry, &n, why)?;
            if !is_int(&entry.params[j].1) {
                return Err(bad(decls, entry, format!("{why}: `{n}` is not an integer parameter")));
            }
            Length::Param(j)
        };
        pair(c, entry, i, length, why.to_string());
    }
    if options.lengths.iter().any(|l| l == "none") {
        return Ok(());
    }
    let by_use = bounds_closure(decls);
    for &(p, len) in by_use.get(&entry.name).map_or(&[][..], Vec::as_slice) {
        let length = match len {
            LengthRef::Param(j) if is_int(&entry.params[j].1) => Length::Param(j),
            LengthRef::Deref(j) if is_int_ptr(&entry.params[j].1) => Length::Deref(j),
            _ => continue,
        };
        if is_buffer(&entry.params[p].1) {
            let why = format!("{} bounds the accesses through it", length_words(entry, length));
            pair(c, entry, p, length, why);
        }
    }
    by_name(entry, c);
    Ok(())
}

/// Pairs by name: a length named after its pointer, a length-named
/// integer right after a pointer, or the only length-named integer with
/// the only pointer left.
fn by_name(entry: &FuncSig, c: &mut Contract) {
    let params = &entry.params;
    for i in 0..params.len() {
        for j in 0..params.len() {
            let (p, n) = (&params[i].0, &params[j].0);
            if !is_buffer(&params[i].1) || !names_length_of(n, p) {
                continue;
            }
            if is_int(&params[j].1) {
                pair(c, entry, i, Length::Param(j), format!("{n} is named after it"));
            } else if is_int_ptr(&params[j].1) {
                pair(c, entry, i, Length::Deref(j), format!("{n} is named after it"));
            }
        }
    }
    for i in 0..params.len().saturating_sub(1) {
        if is_buffer(&params[i].1) && is_int(&params[i + 1].1) && is_length_name(&params[i + 1].0) {
            let why = format!("{} follows it and is named like a length", params[i + 1].0);
            pair(c, entry, i, Length::Param(i + 1), why);
        }
    }
    let free_ptrs: Vec<usize> = (0..params.len())
        .filter(|&i| is_buffer(&params[i].1) && c.lengths[i].is_none() && c.length_of[i].is_none())
        .filter(|&i| !matches!(&params[i].1, CType::Ptr(inner) if matches!(**inner, CType::Struct(_))))
        .collect();
    let free_lens: Vec<usize> = (0..params.len())
        .filter(|&j| is_int(&params[j].1) && c.length_of[j].is_none() && is_length_name(&params[j].0))
        .collect();
    if let ([i], [j]) = (free_ptrs.as_slice(), free_lens.as_slice()) {
        let why = format!("{} is the only length-named parameter", params[*j].0);
        pair(c, entry, *i, Length::Param(*j), why);
    }
}

fn length_words(entry: &FuncSig, length: Length) -> String {
    match length {
        Length::Param(j) => entry.params[j].0.clone(),
        Length::Deref(j) => format!("*{}", entry.params[j].0),
        Length::Const(k) => k.to_string(),
    }
}

/// Pairs pointer `i` with `length` unless it has one already. Several
/// pointers may share a length (`memcmp(a, b, n)`); the first of them
/// (in parameter order) gives the length parameter its value.
fn pair(c: &mut Contract, entry: &FuncSig, i: usize, length: Length, why: String) {
    if c.lengths[i].is_some() || c.length_of[i].is_some() {
        return;
    }
    if let Length::Param(j) | Length::Deref(j) = length {
        if j == i || c.lengths[j].is_some() {
            return;
        }
        c.length_of[j] = Some(c.length_of[j].map_or(i, |k| k.min(i)));
    }
    c.lengths[i] = Some(length);
    let words = format!("{} has {} elements", entry.params[i].0, length_words(entry, length));
    c.clauses.push(Clause { kind: ClauseKind::Length(i), words, why });
}

/// Each function's bounds, with those of the callees it passes a pointer
/// and its length to (to a fixpoint over the file).
fn bounds_closure(decls: &Decls) -> HashMap<String, Vec<(usize, LengthRef)>> {
    let mut bounds: HashMap<String, Vec<(usize, LengthRef)>> =
        decls.facts.iter().map(|(f, facts)| (f.clone(), facts.bounds.clone())).collect();
    for _ in 0..8 {
        let mut changed = false;
        for (f, facts) in &decls.facts {
            for (callee, args) in &facts.calls {
                let Some(theirs) = bounds.get(callee).cloned() else { continue };
                for (q, len) in theirs {
                    let Some(Some(p)) = args.get(q) else { continue };
                    let mapped = match len {
                        LengthRef::Param(m) => args.get(m).copied().flatten().map(LengthRef::Param),
                        LengthRef::Deref(m) => args.get(m).copied().flatten().map(LengthRef::Deref),
                    };
                    let Some(mapped) = mapped else { continue };
                    let mine = bounds.entry(f.clone()).or_default();
                    if !mine.iter().any(|(x, _)| x == p) {
                        mine.push((*p, mapped));
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    bounds
}

/// Which pointer parameters may be NULL, and the clauses of those that
/// may not.
fn nullability(
    src: &Sources<'_>,
    entry: &FuncSig,
    options: &ContractOptions,
    acsl: &[&AcslClause],
    c: &mut Contract,
) -> Result<(), UnitError> {
    let decls = src.decls;
    let all = options.nullable.iter().any(|n| n == "all");
    let mut listed = vec![false; entry.params.len()];
    for n in options.nullable.iter().filter(|n| *n != "all") {
        listed[param_index(decls, entry, n, "--nullable")?] = true;
    }
    let checked = decls.facts.get(&entry.name).map_or(&[][..], |f| f.null_checked.as_slice());
    let attribute = decls.nonnull.get(&entry.name);
    for (i, (name, ty)) in entry.params.iter().enumerate() {
        let pointer = matches!(ty, CType::Ptr(_) | CType::FuncPtr(_));
        // Passed on unread (a `void *` without a length, a pointer to a
        // type the harness cannot build): NULL, without a clause.
        let opaque = matches!(ty, CType::Ptr(inner) if matches!(**inner, CType::Void | CType::Opaque { .. }))
            && c.lengths[i].is_none();
        if let (true, CType::Ptr(inner)) = (opaque, ty) {
            if let CType::Opaque { what, .. } = &**inner {
                c.notes.push(format!("{name} points to {what}, which unit mode cannot build: it is NULL"));
            }
        }
        if !pointer || opaque {
            c.nullable[i] = true;
            continue;
        }
        let valid = acsl.iter().any(|a| matches!(a, AcslClause::Valid(p) | AcslClause::ValidRange(p, _) if p == name));
        let declared = attribute.is_some_and(|a| a.as_ref().is_none_or(|list| list.contains(&i)));
        // The options win over annotations, which win over inference.
        let why = if all || listed[i] {
            c.nullable[i] = true;
            continue;
        } else if valid {
            "ACSL \\valid".to_string()
        } else if declared {
            "declared nonnull".to_string()
        } else if checked.contains(&i) {
            c.nullable[i] = true;
            continue;
        } else {
            format!("{} does not compare it with NULL", entry.name)
        };
        c.clauses.push(Clause { kind: ClauseKind::NonNull(i), words: format!("{name} != NULL"), why });
    }
    Ok(())
}

/// Tokens of a function name (`jsmn_init` → `jsmn`, `init`;
/// `parserCreate` → `parser`, `create`).
fn name_tokens(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if ch == '_' || ch.is_ascii_digit() {
            out.push(std::mem::take(&mut cur));
            prev_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && prev_lower {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_ascii_lowercase();
        cur.push(ch.to_ascii_lowercase());
    }
    out.push(cur);
    out.retain(|t| !t.is_empty());
    out
}

/// How `f` makes a `struct r` (a `S *` parameter of type `ty`), if it is
/// an initializer of it: `void|int f(S *)` or `S *f(void)`.
fn initializer_form(f: &FuncSig, ty: &CType) -> Option<Init> {
    if f.params.len() == 1 && f.params[0].1 == *ty && matches!(f.ret, CType::Void | CType::Int(_)) {
        return Some(Init::InPlace(f.name.clone()));
    }
    (f.params.is_empty() && f.ret == *ty).then(|| Init::Constructor(f.name.clone()))
}

/// The initializers of struct parameters: given, or found by type.
fn initializers(decls: &Decls, entry: &FuncSig, options: &ContractOptions, c: &mut Contract) -> Result<(), UnitError> {
    let is_struct: Vec<bool> = (0..entry.params.len())
        .map(|i| {
            matches!(&entry.params[i].1, CType::Ptr(inner) if matches!(**inner, CType::Struct(_)))
                && c.lengths[i].is_none()
        })
        .collect();
    let struct_param = |i: usize| is_struct[i];
    for spec in options.init.iter().filter(|s| *s != "none") {
        let (param, func) = match spec.split_once('=') {
            Some((p, f)) => (Some(p.trim()), f.trim()),
            None => (None, spec.trim()),
        };
        let f = decls
            .func(func)
            .map_err(|_| bad(decls, entry, format!("--init {spec}: no function `{func}` is defined")))?;
        let targets: Vec<usize> = match param {
            Some(p) => vec![param_index(decls, entry, p, "--init")?],
            None => (0..entry.params.len()).filter(|&i| struct_param(i)).collect(),
        };
        let mut used = false;
        for i in targets {
            if let Some(init) = initializer_form(f, &entry.params[i].1).filter(|_| struct_param(i)) {
                set_init(c, entry, i, init, "--init".into());
                used = true;
            }
        }
        if !used {
            return Err(bad(
                decls,
                entry,
                format!("--init {spec}: `{func}` neither initializes a struct parameter of `{}` in place (`void {func}(S *)`) nor makes one (`S *{func}(void)`)", entry.name),
            ));
        }
    }
    if options.init.iter().any(|s| s == "none") {
        return Ok(());
    }
    const WORDS: &[&str] = &["init", "initialize", "initialise", "new", "create", "setup", "reset", "make", "alloc"];
    let open: Vec<usize> = (0..entry.params.len()).filter(|&i| struct_param(i) && c.init[i].is_none()).collect();
    for i in open {
        let mut found: Vec<(u8, Init)> = decls
            .funcs
            .iter()
            .filter(|f| f.name != entry.name && f.name != "main")
            .filter_map(|f| {
                let tokens = name_tokens(&f.name);
                let rank = if tokens.iter().any(|t| t.starts_with("init")) {
                    0
                } else if tokens.iter().any(|t| WORDS.contains(&t.as_str())) {
                    1
                } else {
                    return None;
                };
                initializer_form(f, &entry.params[i].1).map(|init| (rank, init))
            })
            .collect();
        found.sort_by_key(|(rank, _)| *rank);
        if let Some((_, init)) = found.into_iter().next() {
            let why = "an initializer of its type; --init none to build it field by field".to_string();
            set_init(c, entry, i, init, why);
        }
    }
    Ok(())
}

fn set_init(c: &mut Contract, entry: &FuncSig, i: usize, init: Init, why: String) {
    let words = match &init {
        Init::InPlace(f) => format!("{} is initialized by {f}({})", entry.params[i].0, entry.params[i].0),
        Init::Constructor(f) => format!("{} is made by {f}()", entry.params[i].0),
    };
    c.init[i] = Some(init);
    c.clauses.retain(|cl| cl.kind != ClauseKind::Made(i));
    c.clauses.push(Clause { kind: ClauseKind::Made(i), words, why });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_names_and_initializer_names() {
        assert!(is_length_name("n") && is_length_name("len") && is_length_name("buf_size"));
        assert!(!is_length_name("key") && !is_length_name("value"));
        assert!(names_length_of("num_tokens", "tokens") && names_length_of("b58sz", "b58"));
        assert!(names_length_of("binszp", "bin") && names_length_of("seplen", "sep"));
        assert!(!names_length_of("token_kind", "token") && !names_length_of("s", "s"));
        assert_eq!(name_tokens("jsmn_init"), ["jsmn", "init"]);
        assert_eq!(name_tokens("parserCreate2"), ["parser", "create"]);
    }
}
