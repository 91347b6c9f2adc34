//! `docs/options.md` is generated from the command line's clap definitions
//! (`walkdown help-markdown`); this test fails when the committed page
//! differs from what the binary prints. `WALKDOWN_BLESS=1` rewrites it.

use std::path::Path;
use std::process::Command;

#[test]
fn options_reference_matches_the_command_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_walkdown")).arg("help-markdown").output().expect("run walkdown");
    assert!(out.status.success(), "walkdown help-markdown failed: {}", String::from_utf8_lossy(&out.stderr));
    let generated = String::from_utf8(out.stdout).expect("UTF-8 output");
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/options.md");
    if std::env::var_os("WALKDOWN_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&page, &generated).expect("write docs/options.md");
        eprintln!("options_doc: wrote {}", page.display());
        return;
    }
    let committed = std::fs::read_to_string(&page).unwrap_or_default();
    if committed != generated {
        let first = committed.lines().zip(generated.lines()).position(|(a, b)| a != b);
        let line = first.unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "docs/options.md is out of date with the command line (first difference at line {}):\n  \
             committed: {:?}\n  generated: {:?}\n\
             Regenerate it with:\n  WALKDOWN_BLESS=1 cargo test --release -p walkdown --test options_doc",
            line + 1,
            committed.lines().nth(line).unwrap_or("<end of file>"),
            generated.lines().nth(line).unwrap_or("<end of file>"),
        );
    }
}
