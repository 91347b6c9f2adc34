//! `walkdown report DIR`: the HTML report of a `gen` run rebuilt from its
//! `report.json` (the writer is `walkdown_driver::report`).

use walkdown_driver::report::{write_html_report, HTML_FILE};

/// Arguments of `walkdown report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The output directory of a `walkdown gen` run (with report.json and test-suite/).
    dir: std::path::PathBuf,
    /// The program's source, when it is no longer where report.json says.
    #[arg(long)]
    source: Option<std::path::PathBuf>,
    /// Where to write the page (default: DIR/report/index.html).
    #[arg(long)]
    output: Option<std::path::PathBuf>,
}

/// `walkdown report DIR`: rebuilds DIR's HTML report from its report.json.
pub fn report_command(args: &ReportArgs) -> anyhow::Result<i32> {
    use anyhow::Context;
    if !args.dir.is_dir() {
        anyhow::bail!("{}: not a directory (give the --out directory of a walkdown gen run)", args.dir.display());
    }
    let json = args.dir.join("report.json");
    if !json.exists() {
        anyhow::bail!("{}: no report.json here (not the output directory of walkdown gen)", args.dir.display());
    }
    let report = walkdown_formats::report::read_report(&json)?;
    let out = args.output.clone().unwrap_or_else(|| args.dir.join(HTML_FILE));
    write_html_report(&out, &report, &args.dir.join("test-suite"), args.source.as_deref(), &mut |w| {
        super::output::errln(format_args!("{w}"))
    })
    .with_context(|| format!("cannot write {}", out.display()))?;
    super::output::outln(format_args!("report: {}", out.display()));
    Ok(0)
}
