//! What the frontend does not lower is refused with an
//! `Unsupported { construct, line }` that names the construct and its
//! source line, in both data models: `long double` where walkdown has no
//! model of what it computes (a function of another library, a complex
//! `long double`), integers wider than 256 bits (a run of
//! bit-fields longer than 256 bits in a packed struct), an array of 2^32
//! elements or more that is not a global's outermost type, and an indirect
//! call of a variadic function in a program that defines variadic
//! functions (the callee might be an external one, which takes its
//! arguments differently).
//!
//! Needs clang-14 and opt-14 (installed by `scripts/setup`).

use std::path::PathBuf;
use walkdown_frontend::{compile_c, FrontendError, FrontendSettings};
use walkdown_ir::DataModel;

/// The construct and line of the refusal of `source`, in data model `dm`.
fn refusal(source: &str, dm: DataModel) -> (String, u32) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path: PathBuf = dir.path().join("t.c");
    std::fs::write(&path, source).expect("write the program");
    match compile_c(&path, &FrontendSettings { data_model: dm, ..FrontendSettings::default() }) {
        Err(FrontendError::Unsupported { construct, line, .. }) => (construct, line),
        Err(e) => panic!("expected a refusal, got {e}"),
        Ok(_) => panic!("expected a refusal, the program lowered"),
    }
}

#[test]
fn long_double_uses_without_a_model_are_refused_at_their_line() {
    // A function of another library (neither a body, nor a model, nor the
    // C library's code, which now gives `powl`), taking and returning
    // `long double`: the call is refused (its result would not be what
    // the native build computes).
    let src = "long double scale_ld(long double, long double);\nint main(void) {\n  long double x = 2;\n  x = scale_ld(x, 3);\n  return (int)x;\n}\n";
    for dm in [DataModel::LP64, DataModel::ILP32] {
        let (what, line) = refusal(src, dm);
        assert!(what.contains("@scale_ld") && what.contains("long double"), "{dm}: {what}");
        assert_eq!(line, 4, "{dm}");
    }
    // A complex `long double` is an aggregate of two of them.
    let src = "int main(void) {\n  _Complex long double z = 1;\n  z = z * z;\n  return (int)__real__ z;\n}\n";
    let (what, line) = refusal(src, DataModel::LP64);
    assert!(what.contains("long double"), "{what}");
    assert!((2..=4).contains(&line), "line {line}");
}

#[test]
fn integers_wider_than_256_bits_are_refused_at_their_line() {
    // Fields of 60, 60, 60, 60 and 20 bits make one 264-bit storage unit;
    // runs of up to 256 bits are lowered (tests/real_c/wide_runs.c in
    // walkdown).
    let src = "#pragma pack(push, 1)\nstruct P { char c; long long a : 60; long long b : 60; long long d : 60; long long e : 60; long long f : 20; };\n#pragma pack(pop)\nstruct P p;\nint main(void) {\n  p.a = 5;\n  return p.a;\n}\n";
    for dm in [DataModel::LP64, DataModel::ILP32] {
        let (what, line) = refusal(src, dm);
        assert!(what.contains("264-bit integers") && what.contains("wider than 256 bits"), "{dm}: {what}");
        assert_eq!(line, 6, "{dm}");
    }
}

#[test]
fn nested_arrays_of_2_to_the_32_elements_are_refused() {
    let src =
        "struct S { char c[(1L << 32) + 16]; };\nstatic struct S s;\nint main(void) { s.c[7] = 2; return s.c[7]; }\n";
    let (what, _) = refusal(src, DataModel::LP64);
    assert!(what.contains("2^32 elements"), "{what}");
}

#[test]
fn indirect_variadic_calls_are_refused_when_the_program_defines_variadic_functions() {
    let src = "#include <stdarg.h>\nstatic int first(int n, ...) { va_list ap; va_start(ap, n); int v = va_arg(ap, int); va_end(ap); return v; }\nint main(void) {\n  int (*volatile f)(int, ...) = first;\n  return f(1, 5);\n}\n";
    let (what, line) = refusal(src, DataModel::LP64);
    assert!(what.contains("indirect call of a variadic function"), "{what}");
    assert_eq!(line, 5);
}
