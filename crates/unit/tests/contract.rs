//! The API contract of a unit (`walkdown_unit::contract`): what is
//! inferred from a small API (lengths by use and name, a shared length, an
//! in/out length, the initializer, the NULL rule, a stub), what the
//! options add, and the harness built under it compiling with gcc and
//! agreeing with the shape decoder, in assume mode and in report mode (the
//! clauses a run breaks, as the harness prints them).

use std::path::Path;
use std::process::Command;
use walkdown_ir::testvec::InputValue;
use walkdown_unit::contract::{ClauseKind, ContractMode, ContractOptions, Init, Length};
use walkdown_unit::harness::ParamPlan;
use walkdown_unit::{Decls, Settings, Shape, Unit};

const SOURCE: &str = r#"
typedef struct { int pos; int next; } P;
struct item { int v; struct item *nx; };
typedef int (*cb_t)(void *, int);
void p_init(P *p) { p->pos = 7; p->next = -1; }
int api(P *p, const char *s, unsigned len, char *out, unsigned long *outlen,
        const unsigned char *a, const unsigned char *b, unsigned n, cb_t cb,
        struct item *it, char *fixed) {
  unsigned i;
  int r = 0;
  for (i = 0; i < len; i++) r += s[i];
  for (i = 0; i < n; i++) r += a[i] == b[i];
  r += cb(0, r) + it->v + fixed[0] + p->pos;
  if (*outlen > 0) out[0] = 'x';
  return r;
}
int checks(const char *name, int *out) {
  if (!name) return 0;
  return out ? 1 : 2;
}
int main(void) { return 0; }
"#;

fn decls(dir: &Path) -> Decls {
    let path = dir.join("api.c");
    std::fs::write(&path, SOURCE).unwrap();
    Decls::read(&path, Path::new("clang-14"), false).unwrap()
}

fn options(mode: ContractMode) -> ContractOptions {
    ContractOptions {
        lengths: vec!["fixed=3".into()],
        requires: vec!["len < 4".into()],
        mode,
        ..ContractOptions::default()
    }
}

#[test]
fn inferred_and_given_clauses() {
    let dir = tempfile::tempdir().unwrap();
    let decls = decls(dir.path());
    let unit =
        Unit::with_contract(decls.clone(), "api", Settings::default(), &options(ContractMode::Assume), &[]).unwrap();
    let words = unit.contract.describe();
    for expected in [
        "fixed has 3 elements (--length)",
        "s has len elements (len bounds the accesses through it)",
        "a has n elements (n bounds the accesses through it)",
        "b has n elements (n bounds the accesses through it)",
        "out has *outlen elements (outlen is named after it)",
        "it != NULL (api does not compare it with NULL)",
        "cb != NULL (api does not compare it with NULL)",
        "p is initialized by p_init(p) (an initializer of its type; --init none to build it field by field)",
        "len < 4 (--requires)",
    ] {
        assert!(words.iter().any(|w| w == expected), "missing `{expected}` in {words:#?}");
    }
    use ParamPlan as P;
    assert_eq!(
        unit.plan,
        [
            P::Init(Init::InPlace("p_init".into())),
            P::Buffer(Length::Param(2)),
            P::LengthOf(1),
            P::Buffer(Length::Deref(4)),
            P::LengthOf(3),
            P::Buffer(Length::Param(7)),
            P::Buffer(Length::Param(7)),
            P::LengthOf(5),
            P::Stub,
            P::Value,
            P::Buffer(Length::Const(3)),
        ]
    );
    // The NULL rule: a pointer the function compares with NULL may be NULL.
    let checks = Unit::new(decls.clone(), "checks", Settings::default()).unwrap();
    assert_eq!(checks.contract.nullable, [true, true]);
    assert!(checks.contract.clauses.is_empty(), "{:?}", checks.contract.clauses);
    // `none` turns inference off; `all` makes every pointer nullable.
    let off = ContractOptions {
        lengths: vec!["none".into()],
        init: vec!["none".into()],
        nullable: vec!["all".into()],
        ..ContractOptions::default()
    };
    let bare = Unit::with_contract(decls.clone(), "api", Settings::default(), &off, &[]).unwrap();
    assert!(bare.contract.clauses.is_empty(), "{:?}", bare.contract.clauses);
    // Options naming what the function does not have are refused.
    let wrong = ContractOptions { lengths: vec!["nothing=len".into()], ..ContractOptions::default() };
    let e = Unit::with_contract(decls.clone(), "api", Settings::default(), &wrong, &[]).unwrap_err();
    assert!(e.to_string().contains("`api` has no parameter `nothing`"), "{e}");
    let wrong = ContractOptions { init: vec!["api".into()], ..ContractOptions::default() };
    assert!(Unit::with_contract(decls, "api", Settings::default(), &wrong, &[]).is_err());
}

/// `show` stands for `api`: it prints what it was given, reading `it`
/// through `__wd_resolve` as the instrumented entry would.
const SHOW: &str = r#"
#include <stdio.h>
#include <stdlib.h>
void *__wd_resolve(void *v, void **at);
void __VERIFIER_assume(int c) { if (!c) { printf("assume failed\n"); exit(0); } }
static int show(P *p, const char *s, unsigned len, char *out, unsigned long *outlen,
                const unsigned char *a, const unsigned char *b, unsigned n, cb_t cb,
                struct item *it0, char *fixed) {
  struct item *it = (struct item *)__wd_resolve(it0, 0);
  printf("p=%d,%d len=%u s=%c%c out=%d%d%d/%lu a=%d,%d b=%d n=%u cb=%d it=%d fixed=%d%d%d\n", p->pos, p->next, len,
         s[0], s[1], out[0], out[1], out[2], *outlen, a[0], a[1], b[0], n, cb ? cb(0, 0) : -1, it ? it->v : -1,
         fixed[0], fixed[1], fixed[2]);
  return 0;
}
"#;

/// Runs the harness of `unit` natively on `values` (with `api` replaced by
/// `show`); returns what it printed.
fn run_native(dir: &Path, unit: &Unit, values: &[i128]) -> Vec<u8> {
    let mut stub = String::from("static long long __v[] = {");
    for v in values {
        stub.push_str(&format!("{v},"));
    }
    stub.push_str("};\nstatic int __k;\n");
    for (ty, s) in [("int", "int"), ("char", "char"), ("unsigned char", "uchar"), ("unsigned int", "uint")] {
        stub.push_str(&format!(
            "{ty} __VERIFIER_nondet_{s}(void) {{ return __k < (int)(sizeof __v / sizeof __v[0]) ? ({ty})__v[__k++] : 0; }}\n"
        ));
    }
    for (ty, s) in [("unsigned long", "ulong"), ("long", "long"), ("_Bool", "bool"), ("short", "short")] {
        stub.push_str(&format!("{ty} __VERIFIER_nondet_{s}(void) {{ return ({ty})__v[__k++]; }}\n"));
    }
    for (ty, s) in [("unsigned short", "ushort"), ("long long", "longlong"), ("unsigned long long", "ulonglong")] {
        stub.push_str(&format!("{ty} __VERIFIER_nondet_{s}(void) {{ return ({ty})__v[__k++]; }}\n"));
    }
    stub.push_str(
        "float __VERIFIER_nondet_float(void) { return 0; }\ndouble __VERIFIER_nondet_double(void) { return 0; }\n",
    );
    let harness = unit.harness_text().replace("  api(a0", "  show(a0");
    let program = format!("{}\n{stub}{SHOW}{harness}", walkdown_unit::harness::rename_main(SOURCE));
    let c = dir.join("h.c");
    std::fs::write(&c, program).unwrap();
    let exe = dir.join("h");
    let cc = Command::new("gcc").args(["-w", "-o"]).arg(&exe).arg(&c).output().unwrap();
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    Command::new(&exe).output().unwrap().stdout
}

/// The text without the harness's marks (`\x1eK\x1f`, `\x1dK\x1f`).
fn strip_marks(raw: &[u8]) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for c in String::from_utf8_lossy(raw).chars() {
        match c {
            '\x1e' | '\x1d' => skipping = true,
            '\x1f' => skipping = false,
            _ if !skipping => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn harness_and_decoder_agree_under_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let unit = Unit::with_contract(decls(dir.path()), "api", Settings::default(), &options(ContractMode::Assume), &[])
        .unwrap();
    // s: 2 chars; out: 3 chars; a: 2 bytes; b: n of them (no choice); the
    // stub returns 42; fixed: zeros; then `it`, read by `show`: choice 0,
    // which the contract turns into a fresh item (v = 5).
    let values: Vec<i128> = vec![2, 104, 105, 3, 1, 2, 3, 2, 7, 8, 9, 10, 42, 0, 5];
    let raw = run_native(dir.path(), &unit, &values);
    assert_eq!(strip_marks(&raw).trim(), "p=7,-1 len=2 s=hi out=123/3 a=7,8 b=9 n=2 cb=42 it=5 fixed=000");
    let decided = walkdown_unit::shape::decisions(&raw);
    let inputs: Vec<InputValue> = values.iter().map(|&v| InputValue::Int(v)).collect();
    let shape = Shape::decode(&unit, &inputs, &decided);
    assert_eq!(
        shape.describe(&unit),
        "p = &o1, s = &o2, len = 2, out = &o3, outlen = &o4, a = &o5, b = &o6, n = 2, cb = a stub returning 42, \
         it = &o8, fixed = &o7; o1 = P made by p_init; o2 = char[3] {104, 105}; o3 = char[3] {1, 2, 3}; \
         o4 = unsigned long[1] {3}; o5 = unsigned char[2] {7, 8}; o6 = unsigned char[2] {9, 10}; \
         o7 = char[3] of zeros; o8 = struct item {v = 5, nx = unread}"
    );
    assert!(walkdown_unit::shape::broken_clauses(&raw).is_empty());
    // The precondition is assumed: a length of 4 never reaches the call.
    let values: Vec<i128> = vec![4, 97, 98, 99, 100];
    let raw = run_native(dir.path(), &unit, &values);
    assert!(strip_marks(&raw).contains("assume failed"), "{}", strip_marks(&raw));
}

#[test]
fn report_mode_prints_the_clauses_a_run_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let unit = Unit::with_contract(decls(dir.path()), "api", Settings::default(), &options(ContractMode::Report), &[])
        .unwrap();
    // p: choice 0 (its initializer); s: 2 chars, len 5 (too long); out: 3
    // chars, *outlen 3; a: 2 bytes, n 2; b: its own choice, 1 byte (too
    // short for n); cb: choice 1, a stub returning 42; len < 4 fails; then
    // `it`: choice 0, NULL.
    let values: Vec<i128> = vec![0, 2, 104, 105, 5, 3, 1, 2, 3, 3, 2, 7, 8, 2, 1, 9, 1, 42, 0];
    let raw = run_native(dir.path(), &unit, &values);
    assert_eq!(strip_marks(&raw).trim(), "p=7,-1 len=5 s=hi out=123/3 a=7,8 b=9 n=2 cb=42 it=-1 fixed=000");
    let broken: Vec<&str> = walkdown_unit::shape::broken_clauses(&raw)
        .into_iter()
        .map(|k| unit.contract.clauses[k].words.as_str())
        .collect();
    assert_eq!(broken, ["s has len elements", "b has n elements", "len < 4", "it != NULL"]);
    assert!(matches!(unit.contract.clauses[unit.contract.nonnull(9).unwrap()].kind, ClauseKind::NonNull(9)));
    let decided = walkdown_unit::shape::decisions(&raw);
    let inputs: Vec<InputValue> = values.iter().map(|&v| InputValue::Int(v)).collect();
    let words = Shape::decode(&unit, &inputs, &decided).describe(&unit);
    assert!(
        words.starts_with("p = &o1, s = &o2, len = 5, out = &o3, outlen = &o4, a = &o5, b = &o6, n = 2, cb = a stub returning 42, it = NULL"),
        "{words}"
    );
    assert!(words.contains("o6 = unsigned char[1] {9}"), "{words}");
}
