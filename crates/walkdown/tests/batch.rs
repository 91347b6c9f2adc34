//! `walkdown batch`: shards 1/2 and 2/2 of a task list, run one after the
//! other and merged, give the same per-task figures as the unsharded run
//! (same seed, `--jobs 1`); each task's results are self-contained in its
//! directory; merging refuses shards of different lists and says when a
//! shard is missing. On fixtures of this repository, and on a few public
//! tasks of `../shared` (skipped with a message when absent).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn walkdown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_walkdown"))
}

fn batch(list: &Path, shard: &str, out: &Path) {
    let o = walkdown()
        .arg("batch")
        .arg(list)
        .args(["--shard", shard, "--time", "20", "--jobs", "1", "--seed", "7", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "batch {shard}: {}", String::from_utf8_lossy(&o.stderr));
}

/// `(task, exit code, figures)` of each task of a merged table.
fn merged(dirs: &[&Path], json: &Path) -> Vec<(String, Value, Value)> {
    let o = walkdown().args(["batch", "--merge"]).args(dirs).arg("--json").arg(json).output().unwrap();
    assert!(o.status.success(), "merge: {}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.starts_with("task ") && table.contains("mean goal coverage"), "{table}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["task"].as_str().unwrap().to_string(), t["exit_code"].clone(), t["figures"].clone()))
        .collect()
}

fn sharded_equals_unsharded(list: &Path, tmp: &Path, tasks: usize) {
    let (all, s1, s2) = (tmp.join("all"), tmp.join("s1"), tmp.join("s2"));
    batch(list, "1/1", &all);
    batch(list, "1/2", &s1);
    batch(list, "2/2", &s2);
    let whole = merged(&[&all], &tmp.join("all.json"));
    let parts = merged(&[&s1, &s2], &tmp.join("parts.json"));
    assert_eq!(whole.len(), tasks);
    for (w, p) in whole.iter().zip(&parts) {
        assert!(w.2.is_object(), "{} has figures", w.0);
        assert_eq!(w, p, "per-task figures differ");
    }
    // Round-robin: shard 1 has the tasks 0, 2, 4, ...
    let s: Value = serde_json::from_str(&std::fs::read_to_string(s1.join("shard-1-of-2.json")).unwrap()).unwrap();
    let indices: Vec<u64> = s["tasks"].as_array().unwrap().iter().map(|t| t["index"].as_u64().unwrap()).collect();
    assert!(indices.iter().all(|i| i % 2 == 0) && indices.len() == tasks.div_ceil(2), "{indices:?}");
    // Each task's results are self-contained in its directory.
    for t in s["tasks"].as_array().unwrap() {
        let dir = s1.join(t["dir"].as_str().unwrap());
        for f in ["report.json", "test-suite/metadata.xml", "report/index.html", "errors.sarif"] {
            assert!(dir.join(f).exists(), "{}/{f}", dir.display());
        }
    }
    // A missing shard is said; shards of another list do not merge.
    let o = walkdown().args(["batch", "--merge"]).arg(&s1).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shards missing: 2/2"));
    let o = walkdown().args(["batch", "--merge"]).arg(&s1).arg(&all).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shards of different runs"));
}

#[test]
fn fixture_shards_merge_to_the_unsharded_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let list = tmp.path().join("tasks.list");
    let files: Vec<PathBuf> = vec![
        root.join("../../examples/classify.c"),
        root.join("tests/replay/ends.c"),
        root.join("tests/sarif/two_errors.c"),
    ];
    let text: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    std::fs::write(&list, format!("# fixtures\n{text}\n")).unwrap();
    sharded_equals_unsharded(&list, tmp.path(), files.len());

    // Bad input.
    let o = walkdown()
        .arg("batch")
        .arg(&list)
        .args(["--shard", "3/2", "--out"])
        .arg(tmp.path().join("x"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("want I/N"));
    let empty = tmp.path().join("empty.list");
    std::fs::write(&empty, "# nothing\n\n").unwrap();
    let o = walkdown().arg("batch").arg(&empty).arg("--out").arg(tmp.path().join("y")).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("names no task"));
}

#[test]
fn public_task_shards_merge_to_the_unsharded_figures() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("batch: public tasks skipped: ../shared (WALKDOWN_SHARED) not found");
        return;
    };
    // Tasks that finish well within the budget, so the run is the same
    // whatever the machine's speed.
    let tasks = [
        "loop-lit/jm2006.yml",
        "loop-simple/nested_1.yml",
        "ntdrivers-simplified/kbfiltr_simpl1.cil.yml",
        "recursive-simple/fibo_10-1.yml",
        "loops/for_bounded_loop1.yml",
    ];
    let sv = shared.join("bench/sv");
    let present: Vec<&str> = tasks.iter().copied().filter(|t| sv.join(t).exists()).collect();
    if present.len() < tasks.len() {
        eprintln!("batch: public tasks skipped: not all of {tasks:?} are in {}", sv.display());
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("public.list");
    std::fs::write(&list, present.iter().map(|t| format!("{}\n", sv.join(t).display())).collect::<String>()).unwrap();
    sharded_equals_unsharded(&list, tmp.path(), present.len());
}
