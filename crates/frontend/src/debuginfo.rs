//! The debug information the `llvm-ir` crate does not keep, read from the
//! textual IR: which C variable each `llvm.dbg.value` describes, the
//! loops clang marks with `!llvm.loop` (and where their keyword is), and the
//! lexical scopes. [`source_loops`] turns them, with the lowered body, into
//! the [`SourceLoop`]s of a function: its loop heads and the C variables
//! that hold one IR value there on every path.

use std::collections::{BTreeMap, HashMap};

use walkdown_ir::entity::EntityRef;
use walkdown_ir::source::{SourceLoop, SourceVar};
use walkdown_ir::{Block, Body, Const, Loc, Operand, Type};

/// A `DILocalVariable`.
#[derive(Clone, Debug)]
struct DiVar {
    name: String,
    line: u32,
    scope: u32,
}

/// What a `llvm.dbg.value` says a variable holds from there on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DbgOperand {
    /// An SSA value, by its name in the text (without `%`).
    Local(String),
    /// An integer constant of this many bits.
    Int { bits: u32, value: i128 },
    /// Something else (undef, poison, a float, an address): unknown.
    Other,
}

/// One `llvm.dbg.value` call.
#[derive(Clone, Debug)]
pub(crate) struct DbgRecord {
    /// The variable (its metadata number).
    var: u32,
    /// Its new value.
    operand: DbgOperand,
}

/// A branch carrying `!llvm.loop`: a loop's latch.
#[derive(Clone, Debug)]
struct Latch {
    /// Index of the latch's block in the function's text.
    block: usize,
    /// The blocks it may jump to, by label.
    targets: Vec<String>,
    /// The loop's metadata tuple.
    loop_md: u32,
}

/// The debug facts of one function's text.
#[derive(Clone, Debug, Default)]
pub(crate) struct FuncText {
    /// Block labels in text order; the entry block's is "" (implicit).
    pub blocks: Vec<String>,
    /// Per block (text order): its `llvm.dbg.value` records, in order.
    records: Vec<Vec<DbgRecord>>,
    latches: Vec<Latch>,
}

/// The debug facts of a module's text.
#[derive(Clone, Debug, Default)]
pub(crate) struct DebugText {
    vars: HashMap<u32, DiVar>,
    /// `DILocation`s: line, column, scope.
    locations: HashMap<u32, (u32, u32, u32)>,
    /// Scope parents (`None` for a subprogram or file).
    scope_parent: HashMap<u32, Option<u32>>,
    /// Metadata tuples: their operands' numbers.
    tuples: HashMap<u32, Vec<u32>>,
    /// Per function name.
    pub funcs: HashMap<String, FuncText>,
}

/// Reads the debug facts of `text`, a module's textual IR.
pub(crate) fn parse(text: &str) -> DebugText {
    let mut d = DebugText::default();
    let mut cur: Option<(String, FuncText)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            if let Some(name) = function_name(rest) {
                let f = FuncText { blocks: vec![String::new()], records: vec![Vec::new()], latches: Vec::new() };
                cur = Some((name, f));
            }
            continue;
        }
        if let Some((name, f)) = cur.as_mut() {
            if line.starts_with('}') {
                let (name, f) = (std::mem::take(name), std::mem::take(f));
                d.funcs.insert(name, f);
                cur = None;
                continue;
            }
            if let Some(label) = block_label(line) {
                f.blocks.push(label);
                f.records.push(Vec::new());
                continue;
            }
            let body = line.trim_start();
            if let Some(args) = body.strip_prefix("call void @llvm.dbg.value(") {
                if let Some(r) = dbg_value(args) {
                    f.records.last_mut().expect("a block").push(r);
                }
            } else if body.starts_with("br ") {
                if let Some(md) = field_ref(body, "!llvm.loop !") {
                    let targets = body
                        .split("label %")
                        .skip(1)
                        .map(|t| unquote(t.split([',', ' ']).next().unwrap_or("")))
                        .collect();
                    f.latches.push(Latch { block: f.blocks.len() - 1, targets, loop_md: md });
                }
            }
            continue;
        }
        if let Some((num, def)) = metadata_def(line) {
            let def = def.strip_prefix("distinct ").unwrap_or(def);
            if def.starts_with("!DILocalVariable(") {
                let name = string_field(def, "name: \"").unwrap_or_default();
                let line_no = number_field(def, "line: ").unwrap_or(0);
                let scope = field_ref(def, "scope: !").unwrap_or(0);
                d.vars.insert(num, DiVar { name, line: line_no, scope });
            } else if def.starts_with("!DILocation(") {
                let l = number_field(def, "line: ").unwrap_or(0);
                let c = number_field(def, "column: ").unwrap_or(0);
                let s = field_ref(def, "scope: !").unwrap_or(0);
                d.locations.insert(num, (l, c, s));
            } else if def.starts_with("!DILexicalBlock") {
                d.scope_parent.insert(num, field_ref(def, "scope: !"));
            } else if def.starts_with("!DISubprogram(") {
                d.scope_parent.insert(num, None);
            } else if let Some(inner) = def.strip_prefix("!{").and_then(|s| s.strip_suffix('}')) {
                let refs = inner.split(',').filter_map(|t| t.trim().strip_prefix('!')?.parse().ok()).collect();
                d.tuples.insert(num, refs);
            }
        }
    }
    d
}

fn function_name(rest: &str) -> Option<String> {
    let at = rest.find(" @")? + 2;
    let tail = &rest[at..];
    if let Some(q) = tail.strip_prefix('"') {
        return Some(q[..q.find('"')?].to_string());
    }
    Some(tail[..tail.find('(')?].to_string())
}

fn block_label(line: &str) -> Option<String> {
    if line.starts_with(' ') || line.starts_with(';') || line.is_empty() {
        return None;
    }
    let end = line.find(':')?;
    let label = &line[..end];
    let ok = !label.is_empty()
        && (label.starts_with('"') || label.chars().all(|c| c.is_ascii_alphanumeric() || "._$-".contains(c)));
    ok.then(|| unquote(label))
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').to_string()
}

fn metadata_def(line: &str) -> Option<(u32, &str)> {
    let rest = line.strip_prefix('!')?;
    let eq = rest.find(" = ")?;
    let num = rest[..eq].parse().ok()?;
    Some((num, &rest[eq + 3..]))
}

fn field_ref(s: &str, key: &str) -> Option<u32> {
    let at = s.find(key)? + key.len();
    let digits: String = s[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

fn number_field(s: &str, key: &str) -> Option<u32> {
    // `line: ` must not match inside `scopeLine: `.
    let mut from = 0;
    while let Some(pos) = s[from..].find(key) {
        let at = from + pos;
        let before = s[..at].chars().last();
        if before.is_none_or(|c| c == '(' || c == ' ') {
            let digits: String = s[at + key.len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
            return digits.parse().ok();
        }
        from = at + key.len();
    }
    None
}

fn string_field(s: &str, key: &str) -> Option<String> {
    let at = s.find(key)? + key.len();
    let end = s[at..].find('"')?;
    Some(s[at..at + end].to_string())
}

/// `metadata i32 %x, metadata !16, metadata !DIExpression())`.
fn dbg_value(args: &str) -> Option<DbgRecord> {
    let first = args.strip_prefix("metadata ")?;
    let comma = first.find(", metadata !")?;
    let (operand_text, rest) = (&first[..comma], &first[comma + ", metadata !".len()..]);
    let var: u32 = rest.chars().take_while(|c| c.is_ascii_digit()).collect::<String>().parse().ok()?;
    // A location expression (a piece, a dereference) does not say the
    // variable *is* the operand.
    let plain = rest.contains("metadata !DIExpression())");
    let operand = match (plain, operand_text.split_once(' ')) {
        (true, Some((ty, v))) => {
            if let Some(local) = v.strip_prefix('%') {
                DbgOperand::Local(unquote(local))
            } else if let (Some(bits), Ok(value)) =
                (ty.strip_prefix('i').and_then(|b| b.parse().ok()), v.parse::<i128>())
            {
                DbgOperand::Int { bits, value }
            } else {
                DbgOperand::Other
            }
        }
        _ => DbgOperand::Other,
    };
    Some(DbgRecord { var, operand })
}

impl DebugText {
    /// Whether scope `inner` is `outer` or nested in it.
    fn within(&self, mut inner: u32, outer: u32) -> bool {
        for _ in 0..1000 {
            if inner == outer {
                return true;
            }
            match self.scope_parent.get(&inner) {
                Some(Some(p)) => inner = *p,
                _ => return false,
            }
        }
        false
    }
}

/// How the lowering named a function's blocks and values.
pub(crate) struct NameMaps {
    /// Block label ("" for the entry) → IR block.
    pub blocks: HashMap<String, Block>,
    /// SSA name → IR operand.
    pub values: HashMap<String, Operand>,
}

/// The source loops of one lowered function, from its text's debug facts.
pub(crate) fn source_loops(
    d: &DebugText,
    f: &FuncText,
    body: &Body,
    names: &NameMaps,
    file_line: impl Fn(Loc) -> Loc,
) -> Vec<SourceLoop> {
    if f.latches.is_empty() {
        return Vec::new();
    }
    let resolve = |op: &DbgOperand| -> Option<Operand> {
        match op {
            DbgOperand::Local(n) => names.values.get(n).copied(),
            DbgOperand::Int { bits, value } => {
                let ty = Type::int(*bits)?;
                let mask = if *bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                Some(Operand::Const(Const { ty, bits: (*value as u64) & mask }))
            }
            DbgOperand::Other => None,
        }
    };
    // Records per IR block (the first piece of a split LLVM block).
    let n = body.blocks.len();
    let mut records: Vec<Vec<(u32, Option<Operand>)>> = vec![Vec::new(); n];
    for (k, label) in f.blocks.iter().enumerate() {
        let Some(&b) = names.blocks.get(label) else { continue };
        records[b.index()].extend(f.records[k].iter().map(|r| (r.var, resolve(&r.operand))));
    }
    // What each variable holds at block ends, on every path: a forward
    // must-analysis (absent = unknown), to a fixpoint in reverse postorder.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, data) in body.blocks.iter() {
        for c in data.term.successors() {
            preds[c.block.index()].push(b.index());
        }
    }
    let rpo = walkdown_ir::verify::reverse_postorder(body);
    let mut out_state: Vec<Option<BTreeMap<u32, Operand>>> = vec![None; n];
    let meet = |states: &[Option<BTreeMap<u32, Operand>>], ps: &[usize]| -> BTreeMap<u32, Operand> {
        let mut acc: Option<BTreeMap<u32, Operand>> = None;
        for &p in ps {
            let Some(s) = &states[p] else { continue };
            acc = Some(match acc {
                None => s.clone(),
                Some(a) => a.into_iter().filter(|(k, v)| s.get(k) == Some(v)).collect(),
            });
        }
        acc.unwrap_or_default()
    };
    for _round in 0..50 {
        let mut changed = false;
        for &b in &rpo {
            let i = b.index();
            let mut s = meet(&out_state, &preds[i]);
            for (var, op) in &records[i] {
                match op {
                    Some(o) => s.insert(*var, *o),
                    None => s.remove(var),
                };
            }
            if out_state[i].as_ref() != Some(&s) {
                out_state[i] = Some(s);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut loops: Vec<SourceLoop> = Vec::new();
    for latch in &f.latches {
        // The head is the target the latch jumps back to (it comes first).
        let head_label =
            latch.targets.iter().find(|t| f.blocks.iter().position(|b| b == *t).is_some_and(|k| k <= latch.block));
        let Some(&head) = head_label.and_then(|l| names.blocks.get(l)) else { continue };
        if loops.iter().any(|l| l.head == head) {
            continue;
        }
        // The loop statement: the tuple's first location.
        let Some((kline, kcol, kscope)) =
            d.tuples.get(&latch.loop_md).and_then(|t| t.iter().skip(1).find_map(|r| d.locations.get(r).copied()))
        else {
            continue;
        };
        let mut state = meet(&out_state, &preds[head.index()]);
        let params = &body.blocks[head].params;
        for (var, op) in &records[head.index()] {
            if let Some(Operand::Value(v)) = op {
                if params.contains(v) {
                    state.insert(*var, Operand::Value(*v));
                }
            }
        }
        let mut vars: Vec<(u32, SourceVar)> = state
            .into_iter()
            .filter_map(|(var, value)| {
                let dv = d.vars.get(&var)?;
                let visible = dv.line <= kline && d.within(kscope, dv.scope) && !dv.name.is_empty();
                visible.then(|| (dv.line, SourceVar { name: dv.name.clone(), value }))
            })
            .collect();
        vars.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
        // Two variables of one name (shadowing): the inner one is meant,
        // and telling which is which in C is not possible; drop both.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (_, v) in &vars {
            *seen.entry(v.name.clone()).or_default() += 1;
        }
        let vars = vars.into_iter().map(|(_, v)| v).filter(|v| seen[&v.name] == 1).collect();
        let keyword = file_line(Loc { line: kline, col: kcol, ..Loc::UNKNOWN });
        loops.push(SourceLoop { head, keyword, vars });
    }
    loops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_variables_locations_and_latches() {
        let text = r#"define dso_local i32 @main() #0 !dbg !10 {
  %1 = call i32 (...) @__VERIFIER_nondet_int(), !dbg !15
  call void @llvm.dbg.value(metadata i32 %1, metadata !16, metadata !DIExpression()), !dbg !17
  call void @llvm.dbg.value(metadata i32 0, metadata !18, metadata !DIExpression()), !dbg !17
  br label %2, !dbg !20

2:                                                ; preds = %6, %0
  %.0 = phi i32 [ 0, %0 ], [ %5, %6 ], !dbg !17
  call void @llvm.dbg.value(metadata i32 %.0, metadata !18, metadata !DIExpression()), !dbg !17
  br label %6

6:
  %5 = add nsw i32 %.0, 2, !dbg !26
  br label %2, !dbg !30, !llvm.loop !31
}
!10 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 3, type: !11, scopeLine: 3, unit: !0)
!16 = !DILocalVariable(name: "n", scope: !10, file: !1, line: 4, type: !13)
!18 = !DILocalVariable(name: "s", scope: !10, file: !1, line: 5, type: !13)
!21 = distinct !DILexicalBlock(scope: !10, file: !1, line: 6, column: 3)
!25 = !DILocation(line: 6, column: 3, scope: !21)
!31 = distinct !{!31, !25, !32, !33}
"#;
        let d = parse(text);
        let f = &d.funcs["main"];
        assert_eq!(f.blocks, vec!["", "2", "6"]);
        assert_eq!(f.records[0].len(), 2);
        assert_eq!(f.records[0][1].operand, DbgOperand::Int { bits: 32, value: 0 });
        assert_eq!(f.records[1][0].operand, DbgOperand::Local(".0".into()));
        assert_eq!(f.latches.len(), 1);
        assert_eq!(f.latches[0].targets, vec!["2".to_string()]);
        assert_eq!(f.latches[0].loop_md, 31);
        assert_eq!(d.vars[&16].name, "n");
        assert_eq!(d.vars[&18].line, 5);
        assert_eq!(d.locations[&25], (6, 3, 21));
        assert!(d.within(21, 10));
        assert!(!d.within(10, 21));
        assert_eq!(d.tuples[&31], vec![31, 25, 32, 33]);
    }
}
