//! Parse errors: each names the line and column of the offending token and
//! says what is wrong.

mod common;

use common::parse_error;

/// `(program text, line, column, expected substring of the message)`.
const CASES: &[(&str, u32, u32, &str)] = &[
    ("bogus\n", 1, 1, "expected `datamodel`, `file`, `global`, `declare` or `define`, found `bogus`"),
    ("}\n", 1, 1, "found `}`"),
    ("datamodel LP128\n", 1, 11, "unknown data model `LP128`"),
    ("global @g size 4 align 4\ndatamodel LP64\n", 2, 1, "`datamodel` must come once"),
    ("datamodel LP64\ndatamodel LP64\n", 2, 1, "`datamodel` must come once"),
    ("file main\n", 1, 6, "expected a quoted file name"),
    ("file \"a\\zz\"\n", 1, 8, "two hex digits"),
    ("file \"abc\n", 1, 6, "unterminated string"),
    ("file \"\\ff\"\n", 1, 6, "a file name must be valid UTF-8"),
    ("global @g size -4 align 4\n", 1, 16, "`-4` is not a valid size"),
    ("global @g size 4 align 4 = abc\n", 1, 28, "expected the initial bytes as a quoted string"),
    ("global @g size 4 align 4 relocs 0: @nowhere +0\n", 1, 36, "unknown symbol @nowhere"),
    ("global @g size 8 align 8 relocs 0: @g\n", 1, 38, "expected a signed addend"),
    ("global @g size 4 align 4 #\n", 1, 26, "unexpected character '#'"),
    ("global @g size 4 align 4\ndeclare @g()\n", 2, 9, "@g is already defined on line 1"),
    ("declare @f(i32, i33)\n", 1, 17, "expected a type"),
    ("declare @f(i32 ptr)\n", 1, 16, "expected `,` or `)`"),
    ("declare @f(..., i32)\n", 1, 15, "expected `)`"),
    ("declare @f() -> void\n", 1, 17, "expected a type"),
    ("declare @f() !1\n", 1, 16, "expected `:`"),
    ("declare @f() extra\n", 1, 14, "expected the end of the line"),
    ("@\n", 1, 1, "`@` must be followed by a name"),
    ("define @f() {\nb0:\n  ret\n", 3, 6, "the body of @f is not closed by `}`"),
    ("define @f() {\n  ret\n}\n", 2, 3, "expected a block label such as `b0:`"),
    (
        "define @f() {\nb0:\n  ret\n\ndefine @g() {\nb0:\n  ret\n}\n",
        5,
        1,
        "`define` inside the body of @f: is its closing `}` missing?",
    ),
    ("define @f() {\nb0:\n  v0 = nondet i32\n}\n", 4, 1, "block b0 has no terminator"),
    ("define @f() {\nb0:\n  v0 = nondet i32\nb1:\n  ret\n}\n", 4, 1, "block b0 has no terminator"),
    ("define @f() {\nb0:\n  ret\n  ret\n}\n", 4, 3, "already ended with its terminator"),
    ("define @f() {\nb1:\n  ret\n}\n", 2, 1, "expected block b0 (blocks are numbered in order from b0), found b1"),
    ("define @f() {\nb0:\n  jump b2\nb1:\n  ret\n}\n", 3, 8, "block b2 does not exist in @f"),
    ("define @f() {\nb0:\n  frobnicate i32 1\n  ret\n}\n", 3, 3, "unknown instruction `frobnicate` in @f"),
    ("define @f() {\nb0:\n  v0 = add i32 v9, i32 1\n  ret\n}\n", 3, 16, "v9 is never defined in @f"),
    (
        "define @f() {\nb0:\n  v0 = nondet i32\n  v2 = nondet i32\n  ret\n}\n",
        4,
        3,
        "value ids must be dense from v0: v1 is never defined in @f, yet v2 is",
    ),
    ("define @f() {\nb0(v0: i32):\n  v0 = nondet i32\n  ret\n}\n", 3, 3, "v0 is already defined on line 2"),
    ("define @f() {\nb0:\n  add i32 i32 1, i32 2\n  ret\n}\n", 3, 3, "`add` yields a value of type i32"),
    ("define @f() {\nb0:\n  v0 = store i32 i32 1, ptr null\n  ret\n}\n", 3, 3, "`store` here defines no value"),
    ("define @f() {\nb0:\n  v0 = call void @f()\n  ret\n}\n", 3, 3, "`call` here defines no value"),
    ("define @f() {\nb0:\n  v0 = ret\n}\n", 3, 3, "`ret` defines no value"),
    ("define @f() {\nb0:\n  v0 = add i8 i8 300, i8 1\n  ret\n}\n", 3, 18, "300 does not fit in 8 bits"),
    ("define @f() {\nb0:\n  v0 = add i8 i8 x, i8 1\n  ret\n}\n", 3, 18, "`x` is not an integer"),
    ("define @f() {\nb0:\n  v0 = fadd f32 f32 pi, f32 1.0\n  ret\n}\n", 3, 21, "`pi` is not a f32 literal"),
    ("define @f() {\nb0:\n  v0 = add i32 x1, i32 1\n  ret\n}\n", 3, 16, "expected an operand"),
    ("define @f() {\nb0:\n  v0 = cmp less i32 i32 1, i32 1\n  ret\n}\n", 3, 12, "unknown comparison predicate `less`"),
    ("define @f() {\nb0:\n  check fatal i1 1\n  ret\n}\n", 3, 9, "unknown check kind `fatal`"),
    (
        "global @g size 4 align 4\n\ndefine @f() {\nb0:\n  call void @g()\n  ret\n}\n",
        5,
        13,
        "@g is a global, not a function",
    ),
    ("define @f() {\nb0:\n  call @f()\n  ret\n}\n", 3, 8, "expected a return type or `void`"),
    ("define @f() {\nb0:\n  switch i8 i8 0, b1 [256: b1]\nb1:\n  ret\n}\n", 3, 23, "256 does not fit in 8 bits"),
    ("define @f() {\nb0:\n  switch i8 i8 0, b1 [1: b1 2: b1]\nb1:\n  ret\n}\n", 3, 29, "expected `,` or `]`"),
    ("define @f() {\nb0:\n  jump v1\n}\n", 3, 8, "expected a block such as `b1`, found `v1`"),
    ("define @f() {\nb0:\n  ret !3:x\n}\n", 3, 10, "expected column number"),
    ("define @f() {\nb0:\n  ret !99999999999:1\n}\n", 3, 8, "is not a valid line number"),
    ("define @f() {\nb0(v0 i32):\n  ret\n}\n", 2, 7, "expected `:`"),
    ("define @f() {\nb0\n  ret\n}\n", 2, 3, "expected `:`"),
    ("define @f() {\nb0:\n  ret\n} }\n", 4, 3, "expected the end of the line"),
];

#[test]
fn each_error_names_its_position() {
    let mut failures = Vec::new();
    for (text, line, col, expected) in CASES {
        let error = parse_error(text);
        if !error.message.contains(expected) || (error.line, error.col) != (*line, *col) {
            failures
                .push(format!("for {text:?}\n  expected line {line}, column {col}: …{expected}…\n  got      {error}"));
        }
        assert_eq!(error.to_string(), format!("line {}, column {}: {}", error.line, error.col, error.message));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
