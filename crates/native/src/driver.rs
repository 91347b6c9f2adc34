//! The standalone C driver of one test (`walkdown replay --emit-driver`):
//! walkdown's harness with the test's values compiled in, so that
//! `gcc -g PROGRAM.c DRIVER.c -lm` gives a program that runs that test
//! without walkdown, under gdb or any other tool.

use walkdown_ir::testvec::TestVector;
use walkdown_ir::DataModel;

use crate::compile::{machine_flag, REACH_ERROR_HOOK_FLAG};
use crate::harness::{input_file_text, HARNESS_SOURCE};

/// `text` as the body of a C string literal (printable ASCII kept, the
/// rest as octal escapes).
fn c_string_body(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for b in text.bytes() {
        match b {
            b'\n' => out.push_str("\\n\"\n  \""),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

/// The driver's C source for `vector`, to be linked with `program_name`
/// built for `data_model`; `driver_name` is the driver's own file name and
/// `origin` names the test, for the header comment.
pub fn standalone_driver(
    vector: &TestVector,
    program_name: &str,
    driver_name: &str,
    data_model: DataModel,
    origin: &str,
) -> String {
    let comment = |s: &str| s.replace("*/", "* /");
    let mut out = String::new();
    out.push_str(&format!(
        "/*\n * Standalone driver written by walkdown replay --emit-driver: runs\n * {} on the {} input values of {}.\n *\n\
 * Build and run (add {} to see entry into the\n * program's own reach_error; add --coverage for gcov):\n\
 *     gcc -g {} {} {} -lm -o replay && ./replay\n\
 * When the run ends, a report goes to standard error:\n\
 * nondet_calls, inputs_exhausted, assume_failed, reach_error, assert_fail, end.\n */\n",
        comment(program_name),
        vector.values.len(),
        comment(origin),
        REACH_ERROR_HOOK_FLAG,
        machine_flag(data_model),
        comment(program_name),
        comment(driver_name),
    ));
    out.push_str("#define WD_STANDALONE 1\nstatic const char wd_embedded_inputs[] =\n  \"");
    out.push_str(&c_string_body(&input_file_text(vector)));
    out.push_str("\";\n\n");
    out.push_str(HARNESS_SOURCE);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_one_string_with_a_line_each() {
        let text = standalone_driver(&TestVector::from_ints([1, -2]), "p*/.c", "d.c", DataModel::ILP32, "t.xml");
        assert!(text.contains("static const char wd_embedded_inputs[] =\n  \"1\\n\"\n  \"-2\\n\"\n  \"\";"), "{text}");
        assert!(text.contains("gcc -g -m32 p* /.c d.c -lm"));
        assert!(text.contains("#define WD_STANDALONE 1"));
        assert_eq!(c_string_body("a\"\\?\u{e9}"), "a\\\"\\\\\\?\\303\\251");
    }
}
