//! What a function's body says about its parameters, read from clang's
//! JSON AST, for the API contract of unit mode ([`crate::contract`]):
//!
//! - which pointer parameters it compares with NULL (`p == NULL`, `!p`,
//!   `if (p)`, `p ? … : …`, `p && …`): NULL is then an input the function
//!   expects;
//! - which integer parameter bounds the accesses through a pointer
//!   parameter: an expression used as an index of the pointer (`p[e]`,
//!   `p + e`) and compared with the integer (`e < n`, `e >= n - 1`, …),
//!   also through a local copy of either (`q = p`, `m = *np`: then the
//!   length is `*np`), or both passed to a C library function that takes a
//!   buffer and its length (`memcpy(p, q, n)`);
//! - which parameters it passes on to which function as they are, so a
//!   callee's bounds carry over to the caller ([`crate::contract`] does
//!   that over the whole file).
//!
//! The walk is syntactic and deliberately simple: it finds the idioms C
//! APIs use, and what it misses the options of unit mode can say.

use serde_json::Value as Json;
use std::collections::HashMap;

/// How a length reaches the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LengthRef {
    /// An integer parameter (by index).
    Param(usize),
    /// The integer a pointer parameter points to (an in/out length, such
    /// as libbase58's `size_t *binsz`).
    Deref(usize),
}

/// What one function's body says about its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuncFacts {
    /// Parameters (by index) the function compares with NULL.
    pub null_checked: Vec<usize>,
    /// A pointer parameter and the length that bounds the accesses
    /// through it, in the order found.
    pub bounds: Vec<(usize, LengthRef)>,
    /// Calls by name: for each argument, the parameter it passes as it is.
    pub calls: Vec<(String, Vec<Option<usize>>)>,
}

/// A local variable that copies a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alias {
    /// `T *q = p` (through casts).
    Of(usize),
    /// `size_t m = *np`.
    DerefOf(usize),
}

/// The walk's state over one body. Loops are numbered as met (0 is the
/// body itself): an access is bounded by a comparison in its own loop or
/// an enclosing one, not by one in a sibling loop that reuses the index.
struct Reader<'a> {
    params: &'a [&'a str],
    aliases: HashMap<String, Alias>,
    /// Each loop's enclosing loop.
    parents: Vec<usize>,
    /// The loop being walked.
    loop_id: usize,
    /// (loop, pointer parameter, index key) of every access through a pointer.
    indexed: Vec<(usize, usize, String)>,
    /// (loop, index key, length) of every comparison with a length.
    compared: Vec<(usize, String, LengthRef)>,
    facts: FuncFacts,
}

/// C library functions that take a buffer and its length: (name, buffer
/// arguments, length argument).
const BUFFER_FUNCTIONS: &[(&str, &[usize], usize)] = &[
    ("memcpy", &[0, 1], 2),
    ("memmove", &[0, 1], 2),
    ("memcmp", &[0, 1], 2),
    ("memset", &[0], 2),
    ("memchr", &[0], 2),
    ("strncpy", &[0], 2),
    ("strncmp", &[0, 1], 2),
    ("strncat", &[0], 2),
    ("strnlen", &[0], 1),
    ("snprintf", &[0], 1),
    ("vsnprintf", &[0], 1),
    ("fgets", &[0], 1),
    ("read", &[1], 2),
    ("write", &[1], 2),
];

impl FuncFacts {
    /// Reads the facts of a `FunctionDecl` node whose parameters are
    /// named `params`.
    pub fn read(node: &Json, params: &[&str]) -> FuncFacts {
        let mut r = Reader {
            params,
            aliases: HashMap::new(),
            parents: vec![0],
            loop_id: 0,
            indexed: Vec::new(),
            compared: Vec::new(),
            facts: FuncFacts::default(),
        };
        for child in children(node).iter().filter(|c| kind(c) == "CompoundStmt") {
            r.walk(child);
        }
        for (at, p, key) in &r.indexed {
            for (l, k, len) in &r.compared {
                let bounds = k == key && r.encloses(*l, *at);
                if bounds && !r.facts.bounds.iter().any(|(q, _)| q == p) && *len != LengthRef::Param(*p) {
                    r.facts.bounds.push((*p, *len));
                }
            }
        }
        r.facts.null_checked.sort_unstable();
        r.facts.null_checked.dedup();
        r.facts
    }
}

impl Reader<'_> {
    /// Whether loop `outer` is loop `inner` or encloses it.
    fn encloses(&self, outer: usize, mut inner: usize) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            if inner == 0 {
                return false;
            }
            inner = self.parents[inner];
        }
    }

    fn walk(&mut self, node: &Json) {
        let enclosing = self.loop_id;
        if matches!(kind(node), "ForStmt" | "WhileStmt" | "DoStmt") {
            self.parents.push(enclosing);
            self.loop_id = self.parents.len() - 1;
        }
        self.visit(node);
        for child in children(node) {
            self.walk(child);
        }
        self.loop_id = enclosing;
    }

    fn visit(&mut self, node: &Json) {
        match kind(node) {
            "VarDecl" => self.var_decl(node),
            "ArraySubscriptExpr" => {
                let c = children(node);
                if let (Some(base), Some(index)) = (c.first(), c.get(1)) {
                    self.access(base, index);
                }
            }
            "BinaryOperator" => self.binary(node),
            "UnaryOperator" if str_field(node, "opcode") == "!" => {
                if let Some(p) = children(node).first().and_then(|o| self.param_ref(o)) {
                    self.facts.null_checked.push(p);
                }
            }
            // Conditions that test a pointer for NULL by its truth value.
            "IfStmt" | "WhileStmt" | "ConditionalOperator" => {
                if let Some(p) = children(node).first().and_then(|c| self.param_ref(c)) {
                    self.facts.null_checked.push(p);
                }
            }
            "DoStmt" => {
                if let Some(p) = children(node).get(1).and_then(|c| self.param_ref(c)) {
                    self.facts.null_checked.push(p);
                }
            }
            "ForStmt" => {
                // init, condition variable, condition, increment, body
                if let Some(p) = children(node).get(2).and_then(|c| self.param_ref(c)) {
                    self.facts.null_checked.push(p);
                }
            }
            "CallExpr" => self.call(node),
            _ => {}
        }
    }

    fn var_decl(&mut self, node: &Json) {
        let name = str_field(node, "name").to_string();
        let Some(init) = children(node).first() else { return };
        let init = strip(init);
        if let Some(p) = self.param_of(init) {
            self.aliases.insert(name, Alias::Of(p));
        } else if kind(init) == "UnaryOperator" && str_field(init, "opcode") == "*" {
            if let Some(p) = children(init).first().and_then(|o| self.param_of(strip(o))) {
                self.aliases.insert(name, Alias::DerefOf(p));
            }
        }
    }

    fn binary(&mut self, node: &Json) {
        let c = children(node);
        let (Some(lhs), Some(rhs)) = (c.first(), c.get(1)) else { return };
        match str_field(node, "opcode") {
            "<" | "<=" | ">" | ">=" | "!=" => {
                for (len_side, other) in [(lhs, rhs), (rhs, lhs)] {
                    if let (Some(len), Some(key)) = (self.length(len_side), key(other)) {
                        self.compared.push((self.loop_id, key, len));
                    }
                }
                self.null_compare(lhs, rhs);
            }
            "==" => self.null_compare(lhs, rhs),
            "+" | "-" => {
                if let Some(p) = self.param_ref(lhs).filter(|_| str_field(node, "opcode") == "+") {
                    if let Some(k) = key(rhs) {
                        self.indexed.push((self.loop_id, p, k));
                    }
                }
            }
            "&&" | "||" => {
                for side in [lhs, rhs] {
                    if let Some(p) = self.param_ref(side) {
                        self.facts.null_checked.push(p);
                    }
                }
            }
            _ => {}
        }
    }

    fn null_compare(&mut self, lhs: &Json, rhs: &Json) {
        for (a, b) in [(lhs, rhs), (rhs, lhs)] {
            if let Some(p) = self.param_ref(a) {
                if is_null_constant(b) {
                    self.facts.null_checked.push(p);
                }
            }
        }
    }

    fn access(&mut self, base: &Json, index: &Json) {
        if let (Some(p), Some(k)) = (self.param_ref(base), key(index)) {
            self.indexed.push((self.loop_id, p, k));
        }
    }

    fn call(&mut self, node: &Json) {
        let c = children(node);
        let Some(callee) = c.first().map(strip) else { return };
        if kind(callee) != "DeclRefExpr" {
            return;
        }
        let name = callee.get("referencedDecl").map(|r| str_field(r, "name")).unwrap_or("").to_string();
        let args: Vec<Option<usize>> = c[1..].iter().map(|a| self.param_of(strip(a))).collect();
        if let Some((_, buffers, len)) = BUFFER_FUNCTIONS.iter().find(|(n, _, _)| *n == name) {
            if let Some(len) = c.get(len + 1).and_then(|a| self.length(a)) {
                for b in buffers.iter() {
                    if let Some(Some(p)) = args.get(*b) {
                        if !self.facts.bounds.iter().any(|(q, _)| q == p) {
                            self.facts.bounds.push((*p, len));
                        }
                    }
                }
            }
        }
        self.facts.calls.push((name, args));
    }

    /// The parameter (or the parameter a local copies) `node` names.
    fn param_of(&self, node: &Json) -> Option<usize> {
        if kind(node) != "DeclRefExpr" {
            return None;
        }
        let r = node.get("referencedDecl")?;
        let name = str_field(r, "name");
        match kind(r) {
            "ParmVarDecl" => self.params.iter().position(|p| *p == name),
            "VarDecl" => match self.aliases.get(name) {
                Some(Alias::Of(p)) => Some(*p),
                _ => None,
            },
            _ => None,
        }
    }

    /// The parameter `node` is (through casts and parentheses). Whether
    /// it is a pointer the contract decides: a typedef may hide it.
    fn param_ref(&self, node: &Json) -> Option<usize> {
        self.param_of(strip(node))
    }

    /// The length `node` reads: a parameter, `*p` of a parameter, a local
    /// copy of either, or the left operand of `n - 1`, `n + k`.
    fn length(&self, node: &Json) -> Option<LengthRef> {
        let node = strip(node);
        match kind(node) {
            "BinaryOperator" if matches!(str_field(node, "opcode"), "+" | "-") => {
                children(node).first().and_then(|l| self.length(l))
            }
            "UnaryOperator" if str_field(node, "opcode") == "*" => {
                children(node).first().and_then(|o| self.param_of(strip(o))).map(LengthRef::Deref)
            }
            "DeclRefExpr" => {
                let r = node.get("referencedDecl")?;
                let name = str_field(r, "name");
                match (kind(r), self.aliases.get(name)) {
                    ("ParmVarDecl", _) => self.params.iter().position(|p| *p == name).map(LengthRef::Param),
                    ("VarDecl", Some(Alias::DerefOf(p))) => Some(LengthRef::Deref(*p)),
                    ("VarDecl", Some(Alias::Of(p))) => Some(LengthRef::Param(*p)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// A canonical text of an index expression (`i`, `parser->pos`, `*k`),
/// through casts, parentheses and `++`/`--`; `None` for anything else.
fn key(node: &Json) -> Option<String> {
    let node = strip(node);
    match kind(node) {
        "DeclRefExpr" => node.get("referencedDecl").map(|r| str_field(r, "name").to_string()),
        "MemberExpr" => {
            let base = children(node).first().and_then(key)?;
            Some(format!("{base}.{}", str_field(node, "name")))
        }
        "UnaryOperator" => match str_field(node, "opcode") {
            "++" | "--" => children(node).first().and_then(key),
            "*" => children(node).first().and_then(key).map(|k| format!("*{k}")),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `node` is a null pointer constant (`0`, `NULL`, `(void *)0`).
fn is_null_constant(node: &Json) -> bool {
    let node = strip(node);
    match kind(node) {
        "IntegerLiteral" => str_field(node, "value") == "0",
        "GNUNullExpr" | "CXXNullPtrLiteralExpr" => true,
        _ => false,
    }
}

/// `node` without the casts and parentheses around it.
fn strip(node: &Json) -> &Json {
    match kind(node) {
        "ImplicitCastExpr" | "CStyleCastExpr" | "ParenExpr" => children(node).first().map_or(node, |c| strip(c)),
        _ => node,
    }
}

fn children(node: &Json) -> &[Json] {
    node.get("inner").and_then(Json::as_array).map_or(&[], Vec::as_slice)
}

fn kind(node: &Json) -> &str {
    str_field(node, "kind")
}

fn str_field<'a>(node: &'a Json, key: &str) -> &'a str {
    node.get(key).and_then(Json::as_str).unwrap_or("")
}
