//! `--args`, `--stdin`, `--file`, `--no-env`: the environment a program
//! gets as inputs (see `walkdown_frontend::env`), shared by the commands
//! that lower a program and run it.

use anyhow::{bail, Context, Result};
use walkdown_driver::EnvRequest;
use walkdown_ir::env::{ArgBound, FileBound};

/// The environment options.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct EnvArgs {
    /// Command-line arguments as inputs when `main` takes them: at most N
    /// arguments of at most L bytes each (`--args 0` gives none). Default
    /// 3:8 for a program that does not call `__VERIFIER_nondet_*`.
    #[arg(long = "args", value_name = "N:L")]
    args: Option<String>,
    /// Standard input as inputs: at most LEN bytes (0 gives none). Default
    /// 32 for a program that reads standard input and does not call
    /// `__VERIFIER_nondet_*`.
    #[arg(long = "stdin", value_name = "LEN")]
    stdin: Option<u32>,
    /// A file the program may open for reading, with at most LEN bytes of
    /// input as its contents (repeatable). NAME is relative to the
    /// program's working directory.
    #[arg(long = "file", value_name = "NAME:LEN")]
    files: Vec<String>,
    /// No environment: `argc` is 1 and standard input is at end of file, as
    /// for a Test-Comp task.
    #[arg(long, conflicts_with_all = ["args", "stdin", "files"])]
    no_env: bool,
}

impl EnvArgs {
    /// The request these options make.
    pub fn request(&self) -> Result<EnvRequest> {
        let args = match &self.args {
            None => None,
            Some(text) if text.trim() == "0" => Some(ArgBound { count: 0, len: 0 }),
            Some(text) => {
                let (n, l) = text.split_once(':').with_context(|| format!("--args {text}: expected N:L, e.g. 3:8"))?;
                let count = n.trim().parse().with_context(|| format!("--args {text}: N is not a number"))?;
                let len = l.trim().parse().with_context(|| format!("--args {text}: L is not a number"))?;
                if count > 16 || len > 256 {
                    bail!("--args {text}: at most 16 arguments of at most 256 bytes");
                }
                Some(ArgBound { count, len })
            }
        };
        if self.stdin.is_some_and(|n| n > 4096) {
            bail!("--stdin: at most 4096 bytes");
        }
        let mut files = Vec::new();
        for text in &self.files {
            let (name, len) =
                text.rsplit_once(':').with_context(|| format!("--file {text}: expected NAME:LEN, e.g. in.txt:16"))?;
            let len: u32 = len.trim().parse().with_context(|| format!("--file {text}: LEN is not a number"))?;
            if name.is_empty() || name.contains('/') || name.contains('\0') {
                bail!("--file {text}: NAME must be a plain file name (no directory)");
            }
            if len > 4096 {
                bail!("--file {text}: at most 4096 bytes");
            }
            files.push(FileBound { name: name.to_string(), len });
        }
        if files.len() > 8 {
            bail!("--file: at most 8 files");
        }
        Ok(EnvRequest { off: self.no_env, args, stdin: self.stdin, files })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_become_a_request_and_bad_ones_name_themselves() {
        let a = EnvArgs { args: Some("2:4".into()), stdin: Some(8), files: vec!["in.txt:3".into()], no_env: false };
        let r = a.request().unwrap();
        assert_eq!(r.args, Some(ArgBound { count: 2, len: 4 }));
        assert_eq!(r.files, vec![FileBound { name: "in.txt".into(), len: 3 }]);
        let bad = EnvArgs { args: Some("3".into()), ..Default::default() };
        assert!(bad.request().unwrap_err().to_string().contains("--args 3"));
        let dir = EnvArgs { files: vec!["a/b:3".into()], ..Default::default() };
        assert!(dir.request().is_err());
    }
}
