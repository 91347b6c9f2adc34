//! The unit crate on its own: declarations read through clang (typedefs,
//! anonymous structs, arrays, enums), the plan of the arguments, the
//! harness compiling with gcc, and the shape decoder agreeing with the
//! harness's walk on given inputs (the harness run natively prints the
//! shape it built; the decoder must describe the same).

use std::path::Path;
use std::process::Command;
use walkdown_ir::testvec::InputValue;
use walkdown_unit::contract::Length;
use walkdown_unit::harness::ParamPlan;
use walkdown_unit::{CType, Decls, IntKind, Settings, Shape, Unit};

const SOURCE: &str = r#"
typedef struct { int a; unsigned char b[2]; } Pair;
typedef struct tree Tree;
struct tree { int key; Tree *left, *right; };
enum color { RED, BLUE };
int seen;
const int fixed = 4;
int walk(Tree *t, Pair *ps, int n, enum color c, const char *name) {
  int s = seen;
  while (t && s < 5) { s += t->key; t = t->left; }
  for (int i = 0; i < n; i++) s += ps[i].a + ps[i].b[1];
  if (name && name[0] == 'x') s++;
  return s + c + fixed;
}
int main(void) { return 0; }
"#;

fn write_source(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("walk.c");
    std::fs::write(&path, SOURCE).unwrap();
    path
}

#[test]
fn declarations_and_plan() {
    let dir = tempfile::tempdir().unwrap();
    let decls = Decls::read(&write_source(dir.path()), Path::new("clang-14"), false).unwrap();
    let unit = Unit::new(decls, "walk", Settings::default()).unwrap();
    let names: Vec<&str> = unit.entry.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["t", "ps", "n", "c", "name"]);
    let spelled: Vec<String> = unit.entry.params.iter().map(|(_, t)| unit.decls.spell(t)).collect();
    assert_eq!(spelled, ["struct tree *", "Pair *", "int", "int", "char *"]);
    assert_eq!(
        unit.plan,
        [
            ParamPlan::Value,
            ParamPlan::Buffer(Length::Param(2)),
            ParamPlan::LengthOf(1),
            ParamPlan::Value,
            ParamPlan::Value
        ]
    );
    // `seen` is read; `fixed` is const.
    assert_eq!(unit.globals, [("seen".to_string(), CType::Int(IntKind::Int))]);
    assert!(Unit::new(unit.decls.clone(), "nothing", Settings::default()).is_err());
    assert!(Unit::new(unit.decls.clone(), "main", Settings::default()).is_err());
}

#[test]
fn an_entry_reading_inputs_itself_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reads.c");
    std::fs::write(&path, "extern int __VERIFIER_nondet_int(void);\nstatic int get(void) { return __VERIFIER_nondet_int(); }\nint f(int x) { return x + get(); }\nint g(int x) { return x; }\n").unwrap();
    let decls = Decls::read(&path, Path::new("clang-14"), false).unwrap();
    let e = Unit::new(decls.clone(), "f", Settings::default()).unwrap_err();
    assert!(e.to_string().contains("`get` reads inputs itself"), "{e}");
    assert!(Unit::new(decls, "g", Settings::default()).is_ok());
}

#[test]
fn harness_compiles_and_decoder_agrees_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_source(dir.path());
    let decls = Decls::read(&source, Path::new("clang-14"), false).unwrap();
    let unit = Unit::new(decls, "walk", Settings { max_objects: 3, max_depth: 2, max_array: 3 }).unwrap();
    let text = unit.program_text(SOURCE);
    assert_eq!(text.lines().take(SOURCE.lines().count()).count(), SOURCE.lines().count());
    assert!(text.contains("int static __walkdown_program_main(void)"));
    // Inputs, in the order the harness reads them: seen; ps: 2 pairs; c;
    // then the lazy slots as `show` reads them: t fresh (key), t->left
    // fresh (key), t->right null, t->left->left fresh but at the depth
    // bound (null), t->left->right an alias of the first tree; name: 1 char.
    let values: Vec<i128> = vec![7, 2, 10, 20, 30, 11, 21, 31, 1, 1, 5, 1, 6, 0, 1, 2, 1, 120];
    let mut stub = String::from("static long long __v[] = {");
    for v in &values {
        stub.push_str(&format!("{v},"));
    }
    stub.push_str("};\nstatic int __k;\n");
    for (ty, s) in [
        ("int", "int"),
        ("char", "char"),
        ("unsigned char", "uchar"),
        ("_Bool", "bool"),
        ("unsigned int", "uint"),
        ("short", "short"),
        ("unsigned short", "ushort"),
        ("long", "long"),
        ("unsigned long", "ulong"),
        ("long long", "longlong"),
        ("unsigned long long", "ulonglong"),
        ("float", "float"),
        ("double", "double"),
    ] {
        stub.push_str(&format!("{ty} __VERIFIER_nondet_{s}(void) {{ return __k < (int)(sizeof __v / sizeof __v[0]) ? ({ty})__v[__k++] : 0; }}\n"));
    }
    let harness = unit.harness_text().replace("  walk(a0", "  show(a0");
    // `show` reads its pointers through `__wd_resolve` as the unit pipeline
    // makes the code under test do (see `walkdown_unit::lazy`).
    let show = r#"
#include <stdio.h>
void *__wd_resolve(void *v, void **at);
#define R(p) ((__typeof__(p))__wd_resolve((void *)(p), (void **)&(p)))
static void show(Tree *t0, Pair *ps, int n, int c, const char *name) {
  Tree *t = (Tree *)__wd_resolve(t0, 0);
  printf("seen=%d t=%d", seen, t != 0);
  if (t) {
    Tree *l = R(t->left), *r = R(t->right);
    printf(" key=%d left=%d right=%d", t->key, l != 0, r == t);
    if (l) {
      Tree *ll = R(l->left), *lr = R(l->right);
      printf(" lkey=%d lleft=%d lright=%d", l->key, ll != 0, lr == t);
    }
  }
  printf(" n=%d", n);
  for (int i = 0; i < n; i++) printf(" (%d %d %d)", ps[i].a, ps[i].b[0], ps[i].b[1]);
  name = (const char *)__wd_resolve((void *)name, 0);
  printf(" c=%d name=%s\n", c, name ? name : "NULL");
}
"#;
    let program = format!("{}\n{stub}{show}{harness}", walkdown_unit::harness::rename_main(SOURCE));
    let c = dir.path().join("h.c");
    std::fs::write(&c, program).unwrap();
    let exe = dir.path().join("h");
    let cc = Command::new("gcc").args(["-w", "-o"]).arg(&exe).arg(&c).output().unwrap();
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let raw = Command::new(&exe).output().unwrap().stdout;
    let decided = walkdown_unit::shape::decisions(&raw);
    // Slots: t 0, name 1, t's fields 2 and 3, t->left's 4 and 5.
    assert_eq!(decided, [0, 2, 3, 4, 5, 1], "the slots in the order `show` read them");
    let printed = strip_decisions(&String::from_utf8(raw.clone()).unwrap());
    assert_eq!(
        printed.trim(),
        "seen=7 t=1 key=5 left=1 right=0 lkey=6 lleft=0 lright=1 n=2 (10 20 30) (11 21 31) c=1 name=x"
    );
    let shape = Shape::decode(&unit, &values.iter().map(|&v| InputValue::Int(v)).collect::<Vec<_>>(), &decided);
    assert_eq!(
        shape.describe(&unit),
        "t = &o2, ps = &o1, n = 2, c = 1, name = &o4, seen = 7; o1 = Pair[2] {{a = 10, b = {20, 30}}, {a = 11, b = {21, 31}}}; \
         o2 = struct tree {key = 5, left = &o3, right = NULL}; o3 = struct tree {key = 6, left = NULL, right = &o2}; o4 = char[2] {120}"
    );
    // Decided only as far as the run read: t itself, nothing below it, and
    // not the string.
    let shallow = Shape::decode(&unit, &values.iter().map(|&v| InputValue::Int(v)).collect::<Vec<_>>(), &decided[..1]);
    let words = shallow.describe(&unit);
    assert!(
        words.contains("name = unread") && words.ends_with("o2 = struct tree {key = 5, left = unread, right = unread}"),
        "{words}"
    );
}

/// The text without the harness's decision marks (`\x1eK\x1f`).
fn strip_decisions(text: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for c in text.chars() {
        match c {
            '\x1e' => skipping = true,
            '\x1f' => skipping = false,
            _ if !skipping => out.push(c),
            _ => {}
        }
    }
    out
}
