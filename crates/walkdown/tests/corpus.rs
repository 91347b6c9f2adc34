//! Every seed program and public task lowers without error in both data
//! models, passes the verifier, and its textual IR round-trips.

mod support;

use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_ir::DataModel;

#[test]
fn corpus_lowers_verifies_and_round_trips() {
    let Some(corpus) = support::corpus("corpus_lowers_verifies_and_round_trips") else { return };
    let mut failures = Vec::new();
    let mut lowered = 0;
    for prog in &corpus {
        for dm in [DataModel::LP64, DataModel::ILP32] {
            let settings = FrontendSettings { data_model: dm, ..Default::default() };
            let program = match compile_c(&prog.path, &settings) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{} ({dm}): {e}", prog.name));
                    continue;
                }
            };
            lowered += 1;
            let text = walkdown_ir::write::program_to_string(&program);
            match walkdown_ir_reader::parse_program(&text) {
                Ok(reparsed) => {
                    if let Err(e) = walkdown_ir::verify::verify_program(&reparsed) {
                        failures.push(format!("{} ({dm}): reparsed IR fails the verifier: {e}", prog.name));
                    }
                    let again = walkdown_ir::write::program_to_string(&reparsed);
                    if again != text {
                        let line = text.lines().zip(again.lines()).position(|(a, b)| a != b).unwrap_or(0);
                        failures.push(format!(
                            "{} ({dm}): print(parse(print(p))) differs at line {}:\n  {}\n  {}",
                            prog.name,
                            line + 1,
                            text.lines().nth(line).unwrap_or(""),
                            again.lines().nth(line).unwrap_or("")
                        ));
                    }
                }
                Err(e) => failures.push(format!("{} ({dm}): the printed IR does not parse: {e}", prog.name)),
            }
        }
    }
    eprintln!("lowered {lowered} of {} (program, data model) pairs", corpus.len() * 2);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
