//! The options reference (`docs/options.md`), rendered from clap's
//! definition of the command line, so the reference cannot drift from the
//! options the binary takes.
//!
//! `walkdown help-markdown` (a hidden command) prints it; the test
//! `crates/walkdown/tests/options_doc.rs` fails when the committed page
//! differs from it, and rewrites the page under `WALKDOWN_BLESS=1`.

use clap::{Arg, Command, CommandFactory};
use std::fmt::Write;

/// The Markdown reference of every visible command and its options.
pub fn markdown() -> String {
    let mut cmd = super::Cli::command();
    cmd.build();
    let mut out = String::new();
    out.push_str("# Command-line reference\n\n");
    out.push_str(
        "<!-- Generated from the clap definitions by `walkdown help-markdown`; do not edit.\n     \
         Regenerate: WALKDOWN_BLESS=1 cargo test --release -p walkdown --test options_doc -->\n\n",
    );
    if let Some(about) = cmd.get_about() {
        let _ = writeln!(out, "{about}\n");
    }
    out.push_str("Commands:\n\n");
    for sub in visible_subcommands(&cmd) {
        let about = sub.get_about().map(|a| first_line(&a.to_string())).unwrap_or_default();
        let _ = writeln!(out, "- [`{name}`](#walkdown-{name}): {about}", name = sub.get_name());
    }
    out.push('\n');
    let names: Vec<String> = visible_subcommands(&cmd).map(|s| s.get_name().to_string()).collect();
    for name in names {
        let sub = cmd.find_subcommand_mut(&name).expect("a listed subcommand");
        render_command(&mut out, "walkdown", sub);
    }
    out
}

fn visible_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

fn render_command(out: &mut String, parent: &str, cmd: &mut Command) {
    let path = format!("{parent} {}", cmd.get_name());
    let _ = writeln!(out, "## {path}\n");
    let about = cmd.get_long_about().or(cmd.get_about()).map(|a| a.to_string()).unwrap_or_default();
    if !about.trim().is_empty() {
        let _ = writeln!(out, "{}\n", about.trim_end());
    }
    let usage = cmd.render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "```text\n{usage}\n```\n");
    let args: Vec<&Arg> = cmd.get_arguments().filter(|a| !a.is_hide_set() && !is_builtin(a)).collect();
    let (positionals, options): (Vec<&Arg>, Vec<&Arg>) = args.into_iter().partition(|a| a.is_positional());
    if !positionals.is_empty() {
        out.push_str("Arguments:\n\n");
        for arg in positionals {
            render_arg(out, arg);
        }
        out.push('\n');
    }
    if !options.is_empty() {
        out.push_str("Options:\n\n");
        for arg in options {
            render_arg(out, arg);
        }
        out.push('\n');
    }
    let names: Vec<String> = visible_subcommands(cmd).map(|s| s.get_name().to_string()).collect();
    for name in names {
        let sub = cmd.find_subcommand_mut(&name).expect("a listed subcommand");
        render_command(out, &path, sub);
    }
}

fn is_builtin(arg: &Arg) -> bool {
    matches!(arg.get_id().as_str(), "help" | "version")
}

/// One bullet: the spelling, its default and values, then the help text
/// (every paragraph, indented under the bullet).
fn render_arg(out: &mut String, arg: &Arg) {
    let mut head = spelling(arg);
    if arg.is_positional() && !arg.is_required_set() {
        head = format!("[{head}]");
    }
    let mut notes = Vec::new();
    let defaults: Vec<String> = arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        notes.push(format!("default: `{}`", defaults.join(",")));
    }
    if let Some(d) = arg.get_value_delimiter() {
        notes.push(format!("a list separated by `{d}`"));
    }
    if arg.is_required_set() && !arg.is_positional() {
        notes.push("required".to_string());
    }
    let _ = write!(out, "- `{head}`");
    if !notes.is_empty() {
        let _ = write!(out, " ({})", notes.join("; "));
    }
    let help = arg.get_long_help().or(arg.get_help()).map(|h| h.to_string()).unwrap_or_default();
    let mut lines = help.trim_end().lines();
    match lines.next() {
        Some(first) if !first.trim().is_empty() => {
            let _ = writeln!(out, ": {}", first.trim_end());
        }
        _ => out.push('\n'),
    }
    for line in lines {
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {}", line.trim_end());
        }
    }
    if !arg.get_action().takes_values() {
        return;
    }
    for value in arg.get_possible_values().into_iter().filter(|v| !v.is_hide_set()) {
        match value.get_help() {
            Some(h) => {
                let _ = writeln!(out, "  - `{}`: {}", value.get_name(), h.to_string().trim_end());
            }
            None => {
                let _ = writeln!(out, "  - `{}`", value.get_name());
            }
        }
    }
}

/// `-q, --quiet`, `--time <TIME>`, `<FILE>`, `[ARGS]...`.
fn spelling(arg: &Arg) -> String {
    let value_names: Vec<String> = match arg.get_value_names() {
        Some(names) => names.iter().map(|n| n.to_string()).collect(),
        None => vec![arg.get_id().as_str().to_uppercase()],
    };
    let many = arg.get_num_args().is_some_and(|r| r.max_values() > 1 && r.max_values() != r.min_values());
    let values = value_names.iter().map(|n| format!("<{n}>")).collect::<Vec<_>>().join(" ");
    let values = if many { format!("{values}...") } else { values };
    if arg.is_positional() {
        return values;
    }
    let mut names = Vec::new();
    if let Some(s) = arg.get_short() {
        names.push(format!("-{s}"));
    }
    if let Some(l) = arg.get_long() {
        names.push(format!("--{l}"));
    }
    let names = names.join(", ");
    if arg.get_action().takes_values() {
        format!("{names} {values}")
    } else {
        names
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim_end().to_string()
}
