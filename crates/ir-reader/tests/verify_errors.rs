//! The IR verifier, exercised through textual IR: each case is a program
//! that parses (and round-trips) but is ill-formed, with a substring of the
//! error the verifier must report.

mod common;

use common::{assert_same_text, reprint};
use walkdown_ir_reader::{parse_and_verify, ReadError};

/// `(what the case shows, program text, expected substring of the error)`.
const CASES: &[(&str, &str, &str)] = &[
    (
        "operand type mismatch",
        "define @f(i32) -> i32 {\nb0(v0: i32):\n  v1 = add i32 v0, i64 1\n  ret v1\n}\n",
        "right operand has type i64, expected i32",
    ),
    (
        "use not dominated by its definition (other branch)",
        "define @f(i1) -> i32 {\nb0(v0: i1):\n  br v0, b1, b2\nb1:\n  v1 = add i32 i32 1, i32 2\n  ret v1\nb2:\n  ret v1\n}\n",
        "v1 is used where its definition does not dominate",
    ),
    (
        "use before definition in one block",
        "define @f() -> i32 {\nb0:\n  v0 = add i32 v1, i32 1\n  v1 = add i32 i32 2, i32 3\n  ret v0\n}\n",
        "v1 is used where its definition does not dominate",
    ),
    (
        "too many block arguments",
        "define @f() {\nb0:\n  jump b1(i32 1)\nb1:\n  ret\n}\n",
        "b1 takes 0 arguments, got 1",
    ),
    (
        "too few block arguments",
        "define @f() {\nb0:\n  jump b1\nb1(v0: i32, v1: i32):\n  ret\n}\n",
        "b1 takes 2 arguments, got 0",
    ),
    (
        "block argument of the wrong type",
        "define @f() {\nb0:\n  jump b1(i64 1)\nb1(v0: i32):\n  ret\n}\n",
        "block argument has type i64, expected i32",
    ),
    (
        "return of the wrong type",
        "define @f() -> i32 {\nb0:\n  ret i64 0\n}\n",
        "returns Some(I64) from a function returning Some(I32)",
    ),
    (
        "value returned from a void function",
        "define @f() {\nb0:\n  ret i32 0\n}\n",
        "from a function returning None",
    ),
    (
        "call with too few arguments",
        "declare @g(i32, ptr) -> i32\n\ndefine @f() {\nb0:\n  v0 = call i32 @g(i32 1)\n  ret\n}\n",
        "@g takes 2 arguments, got 1",
    ),
    (
        "call with too many arguments",
        "declare @g(i32) -> i32\n\ndefine @f() {\nb0:\n  v0 = call i32 @g(i32 1, i32 2)\n  ret\n}\n",
        "@g takes 1 arguments, got 2",
    ),
    (
        "variadic call below the fixed arguments",
        "declare @g(ptr, ...) -> i32\n\ndefine @f() {\nb0:\n  v0 = call i32 @g()\n  ret\n}\n",
        "@g takes 1 arguments, got 0",
    ),
    (
        "call argument of the wrong type",
        "declare @g(ptr)\n\ndefine @f() {\nb0:\n  call void @g(i64 0)\n  ret\n}\n",
        "call argument has type i64, expected ptr",
    ),
    (
        "call expecting the wrong return type",
        "declare @g() -> i32\n\ndefine @f() {\nb0:\n  v0 = call i64 @g()\n  ret\n}\n",
        "@g returns Some(I32), the call expects Some(I64)",
    ),
    (
        "branch on a non-boolean",
        "define @f(i32) {\nb0(v0: i32):\n  br v0, b1, b1\nb1:\n  ret\n}\n",
        "branch condition has type i32, expected i1",
    ),
    (
        "switch on a float",
        "define @f(f32) {\nb0(v0: f32):\n  switch f32 v0, b1 []\nb1:\n  ret\n}\n",
        "switch on non-integer type f32",
    ),
    (
        "jump back to the entry block",
        "define @f() {\nb0:\n  jump b0\n}\n",
        "jump to the entry block",
    ),
    (
        "entry parameters against the signature",
        "define @f(i32) {\nb0(v0: i64):\n  ret\n}\n",
        "entry parameters [I64] differ from the signature [I32]",
    ),
    (
        "illegal cast",
        "define @f(i32) {\nb0(v0: i32):\n  v1 = zext i32 v0 to i8\n  ret\n}\n",
        "illegal cast zext from i32 to i8",
    ),
    (
        "bitcast between integers",
        "define @f(i32) {\nb0(v0: i32):\n  v1 = bitcast i32 v0 to i32\n  ret\n}\n",
        "illegal cast bitcast from i32 to i32",
    ),
    (
        "integer operation on a pointer",
        "define @f(ptr) {\nb0(v0: ptr):\n  v1 = add ptr v0, v0\n  ret\n}\n",
        "add on type ptr",
    ),
    (
        "float negation of an integer",
        "define @f(i32) {\nb0(v0: i32):\n  v1 = fneg i32 v0\n  ret\n}\n",
        "fneg on type i32",
    ),
    (
        "float predicate on integers",
        "define @f(i32) {\nb0(v0: i32):\n  v1 = cmp foeq i32 v0, v0\n  ret\n}\n",
        "comparison foeq on type i32",
    ),
    (
        "store through a non-pointer",
        "define @f(i32) {\nb0(v0: i32):\n  store i32 v0, v0\n  ret\n}\n",
        "store address has type i32, expected ptr",
    ),
    (
        "alloca alignment not a power of two",
        "define @f() {\nb0:\n  v0 = alloca i64 8, align 3\n  ret\n}\n",
        "alignment 3 is not a power of two",
    ),
    (
        "alloca size narrower than a pointer",
        "define @f() {\nb0:\n  v0 = alloca i32 8, align 8\n  ret\n}\n",
        "alloca size has type i32, expected i64",
    ),
    (
        "ptradd offset of the 64-bit width under ILP32",
        "datamodel ILP32\n\ndefine @f(ptr) {\nb0(v0: ptr):\n  v1 = ptradd v0, i64 4\n  ret\n}\n",
        "ptradd offset has type i64, expected i32",
    ),
    (
        "assume of a non-boolean",
        "define @f(i8) {\nb0(v0: i8):\n  assume v0\n  ret\n}\n",
        "assume condition has type i8, expected i1",
    ),
    (
        "indirect call through an integer",
        "define @f(i64) {\nb0(v0: i64):\n  call void *v0()\n  ret\n}\n",
        "callee has type i64, expected ptr",
    ),
    (
        "defined function without blocks",
        "define @f() {\n}\n",
        "a defined function has no blocks",
    ),
    (
        "relocation past the end of its global",
        "global @g size 8 align 8 relocs 4: @g +0\n",
        "bad relocation at offset 4",
    ),
    (
        "relocation whose end overflows",
        "global @g size 8 align 8 relocs 18446744073709551615: @g +0\n",
        "bad relocation at offset 18446744073709551615",
    ),
    (
        "initializer longer than its global",
        "global @g size 1 align 1 = \"ab\"\n",
        "initializer longer than the object",
    ),
];

#[test]
fn verifier_reports_each_ill_formed_program() {
    for (what, body, expected) in CASES {
        let text = if body.starts_with("datamodel") { body.to_string() } else { format!("datamodel LP64\n{body}") };
        let canonical = reprint(&text);
        match parse_and_verify(&text) {
            Err(ReadError::Verify(errors)) => {
                let message = errors.to_string();
                assert!(
                    message.contains(expected),
                    "{what}: expected an error containing {expected:?}, got:\n{message}"
                );
            }
            Err(ReadError::Parse(e)) => panic!("{what}: does not parse: {e}"),
            Ok(_) => panic!("{what}: the verifier accepts it"),
        }
        // Ill-formed programs still print and parse back to the same text.
        assert_same_text(&reprint(&canonical), &canonical);
    }
}

/// Each case becomes well formed after one fix, so the test above tests the
/// intended error rather than an accident of the program around it.
#[test]
fn fixed_programs_verify() {
    let fixed = [
        "define @f(i32) -> i32 {\nb0(v0: i32):\n  v1 = add i32 v0, i32 1\n  ret v1\n}\n",
        "define @f(i1) -> i32 {\nb0(v0: i1):\n  br v0, b1, b2\nb1:\n  v1 = add i32 i32 1, i32 2\n  ret v1\nb2:\n  ret i32 0\n}\n",
        "define @f() {\nb0:\n  jump b1(i32 1)\nb1(v0: i32):\n  ret\n}\n",
        "declare @g(i32, ptr) -> i32\n\ndefine @f() {\nb0:\n  v0 = call i32 @g(i32 1, ptr null)\n  ret\n}\n",
        "declare @g(ptr, ...) -> i32\n\ndefine @f() {\nb0:\n  v0 = call i32 @g(ptr null, i8 1, f64 2.0)\n  ret\n}\n",
        "global @g size 12 align 8 relocs 4: @g +0\n",
    ];
    for body in fixed {
        let text = format!("datamodel LP64\n{body}");
        if let Err(e) = parse_and_verify(&text) {
            panic!("{e}\n{text}");
        }
    }
}

#[test]
fn read_error_display_names_the_kind() {
    let parse = parse_and_verify("datamodel LP64\nbogus\n").expect_err("bad");
    assert!(matches!(parse, ReadError::Parse(_)));
    assert!(parse.to_string().starts_with("line 2, column 1: "), "{parse}");
    let verify = parse_and_verify("define @f() {\n}\n").expect_err("bad");
    assert!(verify.to_string().starts_with("the program does not verify:\nline 1: @f: "), "{verify}");
}

/// The verifier knows C locations (`!5:3`); a complaint about a `.wir` file
/// must name the line of the `.wir` text, where the fix goes.
#[test]
fn verifier_errors_name_the_line_of_the_text() {
    let text = "datamodel LP64\nfile \"a.c\"\n\ndefine @f(i32) -> i32 !3:1 {\nb0(v0: i32):\n  v1 = add i32 v0, i32 1 !5:3\n  v2 = add i32 v1, i64 1 !5:3\n  jump b1 !6:3\nb1:\n  v3 = add i32 v1, i32 2 !9:3\n  v4 = add i32 v3, i64 2 !9:3\n  ret v4 !9:3\n}\n";
    let Err(ReadError::Verify(errors)) = parse_and_verify(text) else { panic!("the verifier accepts it") };
    let lines: Vec<Option<u32>> = errors.errors.iter().map(|(line, _)| *line).collect();
    // The first instruction carrying `!5:3` in b0 is line 6, the error is
    // on line 7: a location shared by several instructions resolves to the
    // first, never to the C line 5 or to another block.
    assert_eq!(lines, vec![Some(6), Some(10)], "{errors}");
    let message = ReadError::Verify(errors).to_string();
    assert!(message.contains("line 6: @f b0 (line 5): right operand has type i64"), "{message}");
    // A function-level error names the `define` line.
    let Err(ReadError::Verify(errors)) = parse_and_verify("datamodel LP64\n\n\ndefine @g() {\n}\n") else { panic!() };
    assert_eq!(errors.errors[0].0, Some(4));
    // A global's error names the `global` line.
    let Err(ReadError::Verify(errors)) =
        parse_and_verify("datamodel LP64\n\nglobal @g size 2 align 1 = \"\\01\\02\\03\"\n")
    else {
        panic!()
    };
    assert_eq!(errors.errors[0].0, Some(3), "{}", errors);
}
