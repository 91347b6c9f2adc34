//! The source loops the frontend reads from the debug information: each
//! loop's head block, its keyword's line and column, and the C variables
//! in scope there with the IR value each holds on entry to the head.
//!
//! Needs clang-14 and opt-14 (installed by `scripts/setup`).

use std::path::PathBuf;

use walkdown_frontend::{compile_c_with_sources, FrontendSettings};
use walkdown_ir::source::{SourceInfo, SourceLoop};
use walkdown_ir::{Operand, Program, ValueDef};

fn lower(source: &str) -> (Program, SourceInfo) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path: PathBuf = dir.path().join("t.c");
    std::fs::write(&path, source).expect("write");
    compile_c_with_sources(&path, &FrontendSettings::default()).expect("lowers")
}

fn loops_of<'a>(p: &Program, s: &'a SourceInfo, func: &str) -> Vec<&'a SourceLoop> {
    let f = p.func_by_name(func).expect("function");
    let mut v: Vec<&SourceLoop> = s.loops.get(&f).map(|l| l.iter().collect()).unwrap_or_default();
    v.sort_by_key(|l| l.keyword.line);
    v
}

fn names(l: &SourceLoop) -> Vec<&str> {
    l.vars.iter().map(|v| v.name.as_str()).collect()
}

const PROGRAM: &str = r#"extern int __VERIFIER_nondet_int(void);
int sum(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    int t = i * 2;
    s += t;
  }
  int after = s;
  do {
    after--;
  } while (after > 10);
  return after;
}
int main() {
  int k = __VERIFIER_nondet_int();
  int fixed = 7;
  while (k > 0) { k -= fixed; }
  return sum(k);
}
"#;

#[test]
fn loops_have_their_keyword_and_the_variables_in_scope() {
    let (p, s) = lower(PROGRAM);
    let sum = loops_of(&p, &s, "sum");
    assert_eq!(sum.len(), 2, "{sum:?}");
    // `for` on line 4, column 3; `t` (declared in the body) and `after`
    // (declared later) are not in scope there.
    assert_eq!((sum[0].keyword.line, sum[0].keyword.col), (4, 3));
    assert_eq!(names(sum[0]), vec!["n", "s", "i"]);
    // `do` on line 9: `after` is in scope, `i` is not.
    assert_eq!((sum[1].keyword.line, sum[1].keyword.col), (9, 3));
    assert!(names(sum[1]).contains(&"after"), "{:?}", names(sum[1]));
    assert!(!names(sum[1]).contains(&"i"));
    let main = loops_of(&p, &s, "main");
    assert_eq!(main.len(), 1);
    assert_eq!((main[0].keyword.line, main[0].keyword.col), (17, 3));
    assert_eq!(names(main[0]), vec!["k", "fixed"]);
    // `fixed` is the constant 7 on every path; `k` a parameter of the head.
    let f = p.func_by_name("main").unwrap();
    let body = p.funcs[f].body.as_ref().unwrap();
    let k = &main[0].vars[0].value;
    let Operand::Value(v) = k else { panic!("k is a value: {k:?}") };
    assert!(matches!(body.values[*v].def, ValueDef::Param(b, _) if b == main[0].head));
    assert!(matches!(main[0].vars[1].value, Operand::Const(c) if c.bits == 7));
}

#[test]
fn programs_without_loops_have_none() {
    let (_, s) = lower("int main() { int x = 3; return x; }\n");
    assert!(s.loops.is_empty());
}
