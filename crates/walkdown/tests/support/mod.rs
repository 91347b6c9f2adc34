//! Shared helpers of walkdown's integration tests: where `../shared` is and
//! which programs it holds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use walkdown_ir::DataModel;

/// A program of the corpus with the data model its task file names.
#[derive(Clone, Debug)]
pub struct CorpusProgram {
    /// Path of the `.c` / `.i` file.
    pub path: PathBuf,
    /// ILP32 when the task's `.yml` says so, LP64 otherwise.
    pub data_model: DataModel,
    /// Short name for reports (`loops/count_up_down-1.c`).
    pub name: String,
}

/// The `shared` directory beside the checkout (or `$WALKDOWN_SHARED`), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("WALKDOWN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("bench").is_dir().then_some(dir)
}

/// Seeds and public tasks, or `None` (with a message) when `../shared` is absent.
pub fn corpus(test: &str) -> Option<Vec<CorpusProgram>> {
    let Some(shared) = shared_dir() else {
        eprintln!("{test}: skipped: ../shared (the benchmark corpus) is not present");
        return None;
    };
    let mut out = Vec::new();
    let seeds = shared.join("bench/seeds");
    let mut seed_files: Vec<PathBuf> = std::fs::read_dir(&seeds)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    seed_files.sort();
    for p in seed_files {
        if p.extension().is_some_and(|e| e == "c") {
            let name = format!("seeds/{}", p.file_name().unwrap().to_string_lossy());
            out.push(CorpusProgram { path: p, data_model: DataModel::LP64, name });
        }
    }
    let sv = shared.join("bench/sv");
    let mut ymls = Vec::new();
    collect_ymls(&sv, &mut ymls);
    ymls.sort();
    for yml in ymls {
        let text = std::fs::read_to_string(&yml).unwrap_or_default();
        let Some(input) = text.lines().find_map(|l| l.trim().strip_prefix("input_files:")) else { continue };
        let input = input.trim().trim_matches('\'').trim_matches('"');
        let path = yml.parent().unwrap().join(input);
        if !path.is_file() {
            continue;
        }
        let data_model = if text.contains("data_model: ILP32") { DataModel::ILP32 } else { DataModel::LP64 };
        let name = path.strip_prefix(&sv).unwrap_or(&path).to_string_lossy().into_owned();
        out.push(CorpusProgram { path, data_model, name });
    }
    Some(out)
}

fn collect_ymls(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_ymls(&p, out);
        } else if p.extension().is_some_and(|x| x == "yml") {
            out.push(p);
        }
    }
}
