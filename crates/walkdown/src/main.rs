//! The `walkdown` command: test generation for C programs.
//!
//! Exit codes: 0 success; 1 the command ran but found a problem it reports
//! (e.g. `run` reached an error); 2 bad usage or input (unreadable file,
//! unsupported construct, malformed test).

mod cli;

fn main() {
    std::process::exit(cli::main());
}
