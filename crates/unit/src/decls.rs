//! The C declarations a unit needs: the entry function's signature and the
//! structs its parameters reach, read from clang's JSON AST
//! (`clang -Xclang -ast-dump=json -fsyntax-only`). The IR has lost the
//! struct names and field types by then, and a harness that builds heap
//! shapes must spell them in C.

use crate::UnitError;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// A C integer type (enums are `int`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntKind {
    /// `_Bool`.
    Bool,
    /// `char` (signed, as on x86).
    Char,
    /// `signed char`.
    SChar,
    /// `unsigned char`.
    UChar,
    /// `short`.
    Short,
    /// `unsigned short`.
    UShort,
    /// `int`.
    Int,
    /// `unsigned int`.
    UInt,
    /// `long`.
    Long,
    /// `unsigned long`.
    ULong,
    /// `long long`.
    LongLong,
    /// `unsigned long long`.
    ULongLong,
}

impl IntKind {
    /// How C spells it.
    pub fn c_name(self) -> &'static str {
        match self {
            IntKind::Bool => "_Bool",
            IntKind::Char => "char",
            IntKind::SChar => "signed char",
            IntKind::UChar => "unsigned char",
            IntKind::Short => "short",
            IntKind::UShort => "unsigned short",
            IntKind::Int => "int",
            IntKind::UInt => "unsigned int",
            IntKind::Long => "long",
            IntKind::ULong => "unsigned long",
            IntKind::LongLong => "long long",
            IntKind::ULongLong => "unsigned long long",
        }
    }
    /// The suffix of the `__VERIFIER_nondet_` function that reads it.
    pub fn nondet(self) -> &'static str {
        match self {
            IntKind::Bool => "bool",
            IntKind::Char | IntKind::SChar => "char",
            IntKind::UChar => "uchar",
            IntKind::Short => "short",
            IntKind::UShort => "ushort",
            IntKind::Int => "int",
            IntKind::UInt => "uint",
            IntKind::Long => "long",
            IntKind::ULong => "ulong",
            IntKind::LongLong => "longlong",
            IntKind::ULongLong => "ulonglong",
        }
    }
    /// Whether it is signed.
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntKind::Char | IntKind::SChar | IntKind::Short | IntKind::Int | IntKind::Long | IntKind::LongLong
        )
    }
}

/// A C type as the harness sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum CType {
    /// An integer type or an enum.
    Int(IntKind),
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `long double` (filled from a `double` input: see `harness.rs`).
    LongDouble,
    /// A pointer.
    Ptr(Box<CType>),
    /// A struct, by its index in [`Decls::records`].
    Struct(usize),
    /// An array of a known length (struct fields).
    Array(Box<CType>, u64),
    /// `void` (behind pointers).
    Void,
    /// A function pointer, spelled as clang spells its type (its return
    /// and parameter types are in [`Decls::fn_types`]).
    FuncPtr(String),
    /// A type the harness cannot build (a union, a bit-field, a struct
    /// without a definition in the file, an array without a length): refused
    /// only when a unit needs a value of it, and a pointer to it is null.
    Opaque {
        /// What it is, for the refusal.
        what: String,
        /// The line of the declaration that uses it.
        line: u32,
    },
}

/// The type of a function a function pointer points to.
#[derive(Clone, Debug, PartialEq)]
pub struct FnType {
    /// How C spells the return type.
    pub ret_text: String,
    /// The return type.
    pub ret: CType,
    /// How C spells each parameter's type (`...` for the variadic part).
    pub params: Vec<String>,
}

/// A struct definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// How C spells the type: `struct node`, or the typedef name of an
    /// anonymous struct.
    pub spelling: String,
    /// Fields in order.
    pub fields: Vec<(String, CType)>,
    /// The line of the definition.
    pub line: u32,
}

/// A function's signature.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncSig {
    /// Its name.
    pub name: String,
    /// Its return type (`Void` for none).
    pub ret: CType,
    /// Its parameters: name (or `argN`) and type.
    pub params: Vec<(String, CType)>,
    /// Per parameter: whether it points to `const` (an input the function
    /// only reads).
    pub reads_only: Vec<bool>,
    /// The line of the definition.
    pub line: u32,
}

/// The declarations of one C file.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    /// The file, for messages.
    pub file: String,
    /// Every complete struct definition.
    pub records: Vec<Record>,
    /// Every defined function.
    pub funcs: Vec<FuncSig>,
    /// Functions declared and not defined.
    pub declared: Vec<String>,
    /// File-scope variables defined here, not `const`, of a type the
    /// harness can build, in order.
    pub globals: Vec<(String, CType)>,
    /// For each defined function: the functions and file-scope variables
    /// its body names.
    pub refs: HashMap<String, (Vec<String>, Vec<String>)>,
    /// The types behind the function pointer types met, by spelling.
    pub fn_types: HashMap<String, FnType>,
    /// Functions declared `__attribute__((nonnull))` (on any declaration):
    /// the parameters it names (0-based), or `None` for every pointer
    /// parameter.
    pub nonnull: HashMap<String, Option<Vec<usize>>>,
    /// What each defined function's body says about its parameters.
    pub facts: HashMap<String, crate::facts::FuncFacts>,
}

impl Decls {
    /// Runs clang on `file` and reads its declarations (`m32` for ILP32).
    pub fn read(file: &Path, clang: &Path, m32: bool) -> Result<Decls, UnitError> {
        let name = file.display().to_string();
        let out = Command::new(clang)
            .args(["-Xclang", "-ast-dump=json", "-fsyntax-only", "-w", "-std=gnu11"])
            .arg(if m32 { "-m32" } else { "-m64" })
            .arg(file)
            .output()
            .map_err(|e| UnitError::Clang { file: name.clone(), message: e.to_string() })?;
        if !out.status.success() {
            let text = String::from_utf8_lossy(&out.stderr);
            let message: String = text.chars().take(2000).collect();
            return Err(UnitError::Clang { file: name, message });
        }
        let json: Json = serde_json::from_slice(&out.stdout)
            .map_err(|e| UnitError::Clang { file: name.clone(), message: format!("unreadable AST: {e}") })?;
        let source = std::fs::read_to_string(file).unwrap_or_default();
        Decls::from_ast(&json, &name, &source)
    }

    /// Reads the declarations of a translation unit's JSON AST; `source`
    /// is the file's text (for the arguments of `nonnull` attributes,
    /// which the JSON leaves out).
    pub fn from_ast(ast: &Json, file: &str, source: &str) -> Result<Decls, UnitError> {
        let top: &[Json] = ast.get("inner").and_then(Json::as_array).map_or(&[], Vec::as_slice);
        let mut reader = Reader {
            records_by_id: HashMap::new(),
            structs_by_name: HashMap::new(),
            typedefs: HashMap::new(),
            fn_types: Default::default(),
        };
        // First the names: struct definitions (by tag and by node id) and
        // typedefs, so later types can refer to any of them.
        let mut record_nodes = Vec::new();
        let mut anonymous_typedef: HashMap<String, String> = HashMap::new();
        for node in top {
            match kind(node) {
                "RecordDecl" if node.get("completeDefinition").and_then(Json::as_bool) == Some(true) => {
                    let id = str_field(node, "id").to_string();
                    let index = record_nodes.len();
                    reader.records_by_id.insert(id, index);
                    if let Some(name) = node.get("name").and_then(Json::as_str) {
                        if str_field(node, "tagUsed") == "struct" {
                            reader.structs_by_name.insert(name.to_string(), index);
                        }
                    }
                    record_nodes.push(node);
                }
                "TypedefDecl" => {
                    let name = str_field(node, "name").to_string();
                    let ty = node.get("type").map(|t| str_field(t, "qualType").to_string()).unwrap_or_default();
                    let target = find_record_ref(node);
                    if let Some(id) = &target {
                        anonymous_typedef.entry(id.clone()).or_insert_with(|| name.clone());
                    }
                    reader.typedefs.insert(name, (ty, target));
                }
                _ => {}
            }
        }
        let mut decls = Decls { file: file.to_string(), ..Default::default() };
        for node in &record_nodes {
            let id = str_field(node, "id");
            let spelling = match node.get("name").and_then(Json::as_str) {
                Some(n) if str_field(node, "tagUsed") == "struct" => format!("struct {n}"),
                Some(n) => format!("{} {n}", str_field(node, "tagUsed")),
                None => anonymous_typedef.get(id).cloned().unwrap_or_else(|| "<anonymous>".into()),
            };
            decls.records.push(Record { spelling, fields: Vec::new(), line: line_of(node) });
        }
        for (index, node) in record_nodes.iter().enumerate() {
            if str_field(node, "tagUsed") != "struct" {
                continue; // unions are refused where a harness would build one
            }
            let mut fields = Vec::new();
            for f in node.get("inner").and_then(Json::as_array).map_or(&[][..], Vec::as_slice) {
                if kind(f) != "FieldDecl" {
                    continue;
                }
                let name = str_field(f, "name").to_string();
                let line = line_of(f).max(decls.records[index].line);
                // A struct the unit never builds may hold anything.
                let ty = if f.get("isBitfield").and_then(Json::as_bool) == Some(true) {
                    CType::Opaque { what: format!("bit-field `{name}`"), line }
                } else {
                    reader.parse(str_field(f.get("type").unwrap_or(&Json::Null), "qualType"), line)
                };
                fields.push((name, ty));
            }
            decls.records[index].fields = fields;
        }
        let mut global_ids: HashMap<String, String> = HashMap::new();
        for node in top {
            if kind(node) != "VarDecl" || str_field(node, "storageClass") == "extern" {
                continue;
            }
            let name = str_field(node, "name").to_string();
            let text = node.get("type").map(|t| str_field(t, "qualType")).unwrap_or("");
            let constant = text.starts_with("const ") || text.ends_with(" const") || text.ends_with("*const");
            global_ids.insert(str_field(node, "id").to_string(), name.clone());
            if constant || decls.globals.iter().any(|(n, _)| *n == name) {
                continue;
            }
            // Tables (arrays) keep their contents; scalars and pointers are inputs.
            if let ty @ (CType::Int(_) | CType::Float | CType::Double | CType::LongDouble | CType::Ptr(_)) =
                reader.parse(text, line_of(node))
            {
                decls.globals.push((name, ty));
            }
        }
        for node in top {
            if kind(node) != "FunctionDecl" {
                continue;
            }
            if let Some(attr) = node
                .get("inner")
                .and_then(Json::as_array)
                .and_then(|inner| inner.iter().find(|n| kind(n) == "NonNullAttr"))
            {
                let name = str_field(node, "name").to_string();
                decls.nonnull.insert(name, nonnull_args(attr, source));
            }
            if node.get("inner").is_none() {
                decls.declared.push(str_field(node, "name").to_string());
                continue;
            }
            let inner = node.get("inner").and_then(Json::as_array).map_or(&[][..], Vec::as_slice);
            if !inner.iter().any(|n| kind(n) == "CompoundStmt") {
                decls.declared.push(str_field(node, "name").to_string());
                continue; // a declaration with named parameters, no body
            }
            let name = str_field(node, "name").to_string();
            let mut called = Vec::new();
            let mut vars = Vec::new();
            collect_refs(node, &global_ids, &mut called, &mut vars);
            decls.refs.insert(name.clone(), (called, vars));
            let line = line_of(node);
            let fty = node.get("type").map(|t| str_field(t, "qualType")).unwrap_or("");
            let ret_text = fty.split_once('(').map_or("int", |(r, _)| r.trim());
            let ret = match reader.parse(ret_text, line) {
                CType::Opaque { .. } => CType::Void,
                ty => ty,
            };
            let mut params = Vec::new();
            let mut reads_only = Vec::new();
            for (i, p) in inner.iter().filter(|n| kind(n) == "ParmVarDecl").enumerate() {
                let pname = p.get("name").and_then(Json::as_str).map_or_else(|| format!("arg{i}"), str::to_string);
                let text = str_field(p.get("type").unwrap_or(&Json::Null), "qualType");
                params.push((pname, reader.parse(text, line)));
                let pointee = text.rfind('*').map_or("", |star| &text[..star]);
                reads_only.push(pointee.split_whitespace().any(|w| w == "const"));
            }
            let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
            decls.facts.insert(name.clone(), crate::facts::FuncFacts::read(node, &names));
            decls.funcs.push(FuncSig { name, ret, params, reads_only, line });
        }
        decls.fn_types = reader.fn_types.into_inner();
        Ok(decls)
    }

    /// The defined function called `name`.
    pub fn func(&self, name: &str) -> Result<&FuncSig, UnitError> {
        self.funcs
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| UnitError::NoSuchFunction { file: self.file.clone(), name: name.to_string() })
    }

    /// How C spells `ty` (without a declarator name; function pointers as
    /// clang spells them).
    pub fn spell(&self, ty: &CType) -> String {
        match ty {
            CType::Int(k) => k.c_name().to_string(),
            CType::Float => "float".into(),
            CType::Double => "double".into(),
            CType::LongDouble => "long double".into(),
            CType::Void => "void".into(),
            CType::Struct(i) => self.records[*i].spelling.clone(),
            CType::Ptr(inner) => format!("{} *", self.spell(inner)).replace("* *", "**"),
            CType::Array(inner, n) => format!("{}[{n}]", self.spell(inner)),
            CType::FuncPtr(s) => s.clone(),
            CType::Opaque { what, .. } => what.clone(),
        }
    }

    /// A declaration of `name` with type `ty` (`int x`, `int (*f)(void)`).
    pub fn declare(&self, ty: &CType, name: &str) -> String {
        match ty {
            CType::FuncPtr(s) => format!("__typeof__({s}) {name}"),
            _ => format!("{} {name}", self.spell(ty)).replace("* ", "*"),
        }
    }
}

struct Reader {
    records_by_id: HashMap<String, usize>,
    structs_by_name: HashMap<String, usize>,
    /// Typedef name → its type's text and, when it names a struct
    /// directly, that struct's node id.
    typedefs: HashMap<String, (String, Option<String>)>,
    /// The function types behind the function pointer types parsed.
    fn_types: std::cell::RefCell<HashMap<String, FnType>>,
}

impl Reader {
    fn opaque(what: String, line: u32) -> CType {
        CType::Opaque { what, line }
    }

    /// Parses clang's spelling of a type (`struct node *`, `Tree *`,
    /// `unsigned char[3]`, `int (*)(int)`); what the harness cannot build
    /// is [`CType::Opaque`].
    fn parse(&self, text: &str, line: u32) -> CType {
        self.parse_depth(text, line, 0)
    }

    fn parse_depth(&self, text: &str, line: u32, depth: u32) -> CType {
        if depth > 32 {
            return Self::opaque(format!("type `{text}` (typedefs nest too deep)"), line);
        }
        let text = text.trim();
        if text.contains("(*") || text.contains("(^") {
            self.function_pointer(text, line, depth);
            return CType::FuncPtr(text.to_string());
        }
        if let Some(open) = text.rfind('[') {
            if text.ends_with(']') {
                let Ok(n) = text[open + 1..text.len() - 1].trim().parse::<u64>() else {
                    return Self::opaque(format!("array type `{text}` without a constant length"), line);
                };
                let elem = self.parse_depth(&text[..open], line, depth);
                return CType::Array(Box::new(elem), n);
            }
        }
        if let Some(base) = text.strip_suffix('*') {
            let base = base.trim_end();
            // `int *const`: the qualifier binds to the pointer.
            let base = base.strip_suffix("const").or_else(|| base.strip_suffix("restrict")).unwrap_or(base);
            return CType::Ptr(Box::new(self.parse_depth(base, line, depth)));
        }
        let words: Vec<&str> = text
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "__restrict" | "signed" | "int"))
            .collect();
        let signed_given = text.split_whitespace().any(|w| w == "signed");
        let had_int = text.split_whitespace().any(|w| w == "int");
        let kind = match words.as_slice() {
            [] if had_int || signed_given => Some(IntKind::Int),
            ["_Bool"] => Some(IntKind::Bool),
            ["char"] if signed_given => Some(IntKind::SChar),
            ["char"] => Some(IntKind::Char),
            ["unsigned", "char"] => Some(IntKind::UChar),
            ["short"] => Some(IntKind::Short),
            ["unsigned", "short"] => Some(IntKind::UShort),
            ["unsigned"] => Some(IntKind::UInt),
            ["long"] => Some(IntKind::Long),
            ["unsigned", "long"] => Some(IntKind::ULong),
            ["long", "long"] => Some(IntKind::LongLong),
            ["unsigned", "long", "long"] => Some(IntKind::ULongLong),
            _ => None,
        };
        if let Some(k) = kind {
            return CType::Int(k);
        }
        match words.as_slice() {
            ["float"] => CType::Float,
            ["double"] => CType::Double,
            ["void"] => CType::Void,
            ["enum", ..] => CType::Int(IntKind::Int),
            ["struct", name] => match self.structs_by_name.get(*name) {
                Some(&i) => CType::Struct(i),
                None => Self::opaque(format!("`struct {name}` without a definition in the file"), line),
            },
            ["union", ..] => Self::opaque(format!("union type `{text}`"), line),
            ["long", "double"] => CType::LongDouble,
            [name] => match self.typedefs.get(*name) {
                Some((_, Some(id))) if self.records_by_id.contains_key(id) => CType::Struct(self.records_by_id[id]),
                Some((_, Some(_))) => match self.typedefs[*name].0.strip_prefix("struct ") {
                    // A typedef of a struct declared before its definition.
                    Some(tag) if self.structs_by_name.contains_key(tag.trim()) => {
                        CType::Struct(self.structs_by_name[tag.trim()])
                    }
                    _ => Self::opaque(format!("type `{name}`"), line),
                },
                Some((underlying, None)) => self.parse_depth(underlying, line, depth + 1),
                None => Self::opaque(format!("type `{text}`"), line),
            },
            _ => Self::opaque(format!("type `{text}`"), line),
        }
    }

    /// Records the function type behind the function pointer type `text`
    /// (`int (*)(void *, const char *)`), for the stubs of unit mode.
    fn function_pointer(&self, text: &str, line: u32, depth: u32) {
        if self.fn_types.borrow().contains_key(text) {
            return;
        }
        let Some(star) = text.find("(*") else { return };
        let ret_text = text[..star].trim().to_string();
        let rest = &text[star + 2..];
        // The parameter list: the parenthesized group after `(*...)`.
        let Some(close) = matching_paren(rest, 0) else { return };
        let after = rest[close + 1..].trim_start();
        let Some(params_end) = after.strip_prefix('(').and_then(|p| matching_paren(p, 0)) else { return };
        let list = &after[1..=params_end];
        let mut params: Vec<String> = split_top_level(list).into_iter().map(str::to_string).collect();
        if params.len() == 1 && (params[0] == "void" || params[0].is_empty()) {
            params.clear();
        }
        let ret = self.parse_depth(&ret_text, line, depth + 1);
        self.fn_types.borrow_mut().insert(text.to_string(), FnType { ret_text, ret, params });
    }
}

/// The index in `text` of the `)` that closes an open parenthesis before
/// `from` (`text` starts inside it).
fn matching_paren(text: &str, from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices().skip(from) {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `text` split at its commas outside parentheses, each part trimmed.
pub fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts
}

/// The parameters a `NonNullAttr` names, read from the source (clang's
/// JSON leaves its arguments out): `nonnull(1, 3)` gives `[0, 2]`; a bare
/// `nonnull`, or one spelled where the text cannot be read (a macro), is
/// `None`: every pointer parameter.
fn nonnull_args(attr: &Json, source: &str) -> Option<Vec<usize>> {
    let begin = attr.get("range")?.get("begin")?;
    let offset = begin.get("offset")?.as_u64()? as usize;
    let text = source.get(offset..)?;
    let rest = text.strip_prefix("nonnull").or_else(|| text.strip_prefix("__nonnull__"))?.trim_start();
    let args = rest.strip_prefix('(')?;
    let args = &args[..args.find(')')?];
    args.split(',').map(|a| a.trim().parse::<usize>().ok().and_then(|n| n.checked_sub(1))).collect()
}

fn kind(node: &Json) -> &str {
    str_field(node, "kind")
}

fn str_field<'a>(node: &'a Json, key: &str) -> &'a str {
    node.get(key).and_then(Json::as_str).unwrap_or("")
}

fn line_of(node: &Json) -> u32 {
    let loc = node.get("loc");
    loc.and_then(|l| l.get("line"))
        .or_else(|| loc.and_then(|l| l.get("expansionLoc")).and_then(|l| l.get("line")))
        .and_then(Json::as_u64)
        .unwrap_or(0) as u32
}

/// The node id of the struct a typedef names directly, if it does.
fn find_record_ref(node: &Json) -> Option<String> {
    for inner in node.get("inner").and_then(Json::as_array).map_or(&[][..], Vec::as_slice) {
        if kind(inner) == "RecordType" {
            return inner.get("decl").and_then(|d| d.get("id")).and_then(Json::as_str).map(str::to_string);
        }
        if kind(inner) == "ElaboratedType" {
            return find_record_ref(inner);
        }
    }
    None
}

/// The functions and file-scope variables (of `globals`, by node id) a
/// function's body names.
fn collect_refs(node: &Json, globals: &HashMap<String, String>, funcs: &mut Vec<String>, vars: &mut Vec<String>) {
    if kind(node) == "DeclRefExpr" {
        if let Some(r) = node.get("referencedDecl") {
            let name = str_field(r, "name").to_string();
            match kind(r) {
                "FunctionDecl" if !funcs.contains(&name) => funcs.push(name),
                "VarDecl" => {
                    if let Some(g) = globals.get(str_field(r, "id")) {
                        if !vars.contains(g) {
                            vars.push(g.clone());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for inner in node.get("inner").and_then(Json::as_array).map_or(&[][..], Vec::as_slice) {
        collect_refs(inner, globals, funcs, vars);
    }
}
