//! What a compiled unit defines and needs, read from its textual IR, and
//! which names a unit's source text mentions: what linking decides by,
//! before any module is linked.

use std::collections::BTreeSet;

/// The symbols of one unit's module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Symbols {
    /// Functions and variables it defines for other units (not `static`),
    /// which may be defined once in a program.
    pub strong: BTreeSet<String>,
    /// Those it defines weakly (`__attribute__((weak))`, `inline`
    /// variants), which another definition may override.
    pub weak: BTreeSet<String>,
    /// Its `static` functions.
    pub local_functions: BTreeSet<String>,
    /// Functions and variables it uses and does not define.
    pub undefined: BTreeSet<String>,
}

impl Symbols {
    /// Reads the `define`, `declare` and global lines of textual IR.
    pub fn of_module(text: &str) -> Symbols {
        let mut s = Symbols::default();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("define ") {
                let Some(name) = symbol_after_at(rest) else { continue };
                match linkage(rest) {
                    Kind::Local => s.local_functions.insert(name),
                    Kind::Weak => s.weak.insert(name),
                    Kind::Strong => s.strong.insert(name),
                    Kind::Declaration => false,
                };
            } else if let Some(rest) = line.strip_prefix("declare ") {
                if let Some(name) = symbol_after_at(rest) {
                    s.undefined.insert(name);
                }
            } else if let Some((name, decl)) = global_line(line) {
                match linkage(decl) {
                    Kind::Local => false,
                    Kind::Weak => s.weak.insert(name),
                    Kind::Strong => s.strong.insert(name),
                    Kind::Declaration => s.undefined.insert(name),
                };
            }
        }
        s.undefined.retain(|n| !n.starts_with("llvm."));
        s.strong.retain(|n| !n.starts_with("llvm."));
        s.weak.retain(|n| !n.starts_with("llvm."));
        s
    }

    /// Whether the unit defines `name` (strongly or weakly).
    pub fn defines(&self, name: &str) -> bool {
        self.strong.contains(name) || self.weak.contains(name)
    }

    /// Whether the unit defines the program's `main`.
    pub fn defines_main(&self) -> bool {
        self.defines("main")
    }
}

/// The linkage class of a definition or global line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Local,
    Weak,
    Strong,
    Declaration,
}

/// The linkage of the words of a `define` line or of a global's
/// declaration, up to the symbol or the `global`/`constant` keyword.
fn linkage(words: &str) -> Kind {
    for word in words.split_whitespace() {
        match word {
            "internal" | "private" => return Kind::Local,
            "external" | "extern_weak" => return Kind::Declaration,
            "weak" | "weak_odr" | "linkonce" | "linkonce_odr" | "common" | "available_externally" => return Kind::Weak,
            "global" | "constant" | "alias" => return Kind::Strong,
            w if w.starts_with('@') => return Kind::Strong,
            _ => {}
        }
    }
    Kind::Strong
}

/// `(name, the rest)` of a global's line `@name = <linkage> global ...`.
fn global_line(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_prefix('@')?;
    let (name, decl) = if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        (quoted[..end].to_string(), quoted[end + 1..].strip_prefix(" = ")?)
    } else {
        let (name, decl) = rest.split_once(" = ")?;
        (name.to_string(), decl)
    };
    Some((name, decl))
}

/// The symbol of a `define`/`declare` line: the `@name` before `(`.
fn symbol_after_at(line: &str) -> Option<String> {
    let at = line.find(" @").map(|i| i + 2).or_else(|| line.strip_prefix('@').map(|_| 1))?;
    let rest = &line[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return Some(quoted[..quoted.find('"')?].to_string());
    }
    let end = rest.find('(')?;
    Some(rest[..end].to_string())
}

/// The file names of `text`'s `#include "name"` lines (not `<name>`).
pub(crate) fn quoted_includes(text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim_start();
            let name = rest.strip_prefix('"')?;
            Some(name[..name.find('"')?].to_string())
        })
        .collect()
}

/// Every C identifier in `text` (outside string and character literals,
/// comments included: a false match costs only a compile).
pub(crate) fn identifiers(text: &[u8]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b == b'"' || b == b'\'' {
            // Skip the literal, honouring backslash escapes.
            i += 1;
            while i < text.len() && text[i] != b && text[i] != b'\n' {
                i += if text[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                i += 1;
            }
            out.insert(String::from_utf8_lossy(&text[start..i]).into_owned());
        } else if b.is_ascii_digit() {
            // A number's letters (`0x1f`, `10UL`) are no identifier.
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_' || text[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_declarations_and_globals_are_told_apart() {
        let text = "\
@counter = dso_local global i32 0, align 4
@limit = external global i32, align 4
@table = internal constant [2 x i32] [i32 1, i32 2], align 4
@hook = weak dso_local global i32 0, align 4
@\"odd name\" = dso_local global i8 0
define dso_local i32 @main() #0 !dbg !10 {
define internal i32 @helper(i32 noundef %0) #0 {
define weak dso_local void @maybe() {
declare i32 @shared(i32 noundef) #1
declare void @llvm.dbg.value(metadata, metadata, metadata) #2
";
        let s = Symbols::of_module(text);
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(s.strong, set(&["counter", "main", "odd name"]));
        assert_eq!(s.weak, set(&["hook", "maybe"]));
        assert_eq!(s.local_functions, set(&["helper"]));
        assert_eq!(s.undefined, set(&["limit", "shared"]));
        assert!(s.defines_main());
    }

    #[test]
    fn quoted_includes_are_read_and_system_headers_are_not() {
        let text = b"#include <config.h>\n#define X_INLINE _GL_EXTERN_INLINE\n#  include \"c-ctype.h\"\nint x; // #include \"no\"\n";
        assert_eq!(quoted_includes(text), vec!["c-ctype.h".to_string()]);
    }

    #[test]
    fn identifiers_skip_literals_and_numbers() {
        let ids = identifiers(b"int main(void) { return f(\"g(\", 'h', 0x1fUL) + _x9; } // main2\n");
        let want: BTreeSet<String> =
            ["int", "main", "void", "return", "f", "_x9", "main2"].iter().map(|s| s.to_string()).collect();
        assert_eq!(ids, want);
    }
}
