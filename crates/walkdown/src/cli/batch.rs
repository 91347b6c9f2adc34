//! `walkdown batch`: many tasks, cut into deterministic shards for an
//! existing batch engine (Slurm arrays, Kubernetes indexed Jobs, or one
//! machine after another); walkdown has no scheduler of its own.
//!
//! `batch LIST --shard I/N --out DIR` runs `walkdown gen` on the I-th of N
//! shards of the task list (task k, counting from 0 in list order, is in
//! shard k mod N + 1), each task into `DIR/tasks/NAME/` (its suite,
//! report.json, HTML report, SARIF) with its log beside it, and keeps
//! `DIR/shard-I-of-N.json` up to date. `batch --merge DIR...` reads the
//! shard summaries and prints one table (coverage, verdicts, errors, time
//! per task).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use walkdown_formats::batch::{
    read_shard_summary, sha256_hex, shard_file_name, write_shard_summary, ShardSummary, TaskFigures, TaskResult,
};

/// Arguments of `walkdown batch`.
#[derive(clap::Args, Debug)]
pub struct BatchArgs {
    /// The task list: one task a line (a `.yml` task definition or a `.c`/`.i` file, relative to the list's directory), `#` starts a comment.
    #[arg(required_unless_present = "merge")]
    list: Option<PathBuf>,
    /// Which shard to run, as I/N (1 ≤ I ≤ N).
    #[arg(long, default_value = "1/1")]
    shard: String,
    /// Output directory of this shard.
    #[arg(long, required_unless_present = "merge")]
    out: Option<PathBuf>,
    /// Budget of each task in seconds (gen --time).
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// Worker threads of each task (gen --jobs).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Seed of each task (gen --seed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Merge the shard summaries in these directories (or shard-*.json files) into one table instead of running.
    #[arg(long, num_args = 1.., conflicts_with_all = ["list", "out"])]
    merge: Vec<PathBuf>,
    /// With --merge: also write the merged table as JSON to this file.
    #[arg(long, requires = "merge")]
    json: Option<PathBuf>,
    /// More `gen` options for every task, after `--` (e.g. `-- --engine concolic`).
    #[arg(last = true)]
    gen_args: Vec<String>,
}

/// `I/N`.
fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let bad = || anyhow::anyhow!("--shard {text}: want I/N with 1 <= I <= N (e.g. 2/8)");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The tasks of a list, in order.
fn read_list(list: &Path) -> Result<(String, Vec<String>)> {
    let text =
        std::fs::read_to_string(list).with_context(|| format!("cannot read the task list {}", list.display()))?;
    let tasks = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect::<Vec<_>>();
    if tasks.is_empty() {
        bail!("{}: the task list names no task", list.display());
    }
    Ok((text, tasks))
}

/// A directory name for task `index` named `task`: its path with `/` as
/// `__`, unsafe characters as `_`, prefixed by its index so names stay unique.
fn task_dir_name(index: usize, task: &str) -> String {
    let stem = task.trim_start_matches("./").rsplit_once('.').map_or(task, |(s, _)| s);
    let safe: String = stem
        .replace('/', "__")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect();
    format!("{index:04}-{safe}")
}

/// The figures of a run's report.
fn figures(report: &walkdown_formats::report::Report) -> TaskFigures {
    let mut errors: Vec<String> = report
        .errors
        .iter()
        .map(|e| format!("{}@{}", e.kind, walkdown_formats::html::location_line(&e.location).map_or(0, |(_, l)| l)))
        .collect();
    errors.sort();
    errors.dedup();
    TaskFigures {
        property: report.property.clone(),
        data_model: report.data_model.clone(),
        goals: report.goals_total,
        covered: report.goals_covered,
        unreachable: report.goals_unreachable,
        infeasible: report.goals_infeasible,
        open: report.goals_open,
        tests: report.tests.len(),
        errors,
        stop_reason: report.stop_reason.clone(),
    }
}

/// Runs the command.
pub fn batch(args: &BatchArgs) -> Result<i32> {
    if !args.merge.is_empty() {
        return merge(&args.merge, args.json.as_deref());
    }
    let (Some(list), Some(out)) = (&args.list, &args.out) else {
        bail!("give a task list and --out DIR, or --merge DIR...")
    };
    let (i, n) = parse_shard(&args.shard)?;
    if !(args.time > 0.0 && args.time.is_finite()) {
        bail!("--time must be a positive number of seconds");
    }
    let (text, tasks) = read_list(list)?;
    let base = list.parent().unwrap_or(Path::new(""));
    let exe = std::env::current_exe().context("cannot find the walkdown executable")?;
    let mut gen_args = vec![
        "--quiet".to_string(),
        "--time".into(),
        args.time.to_string(),
        "--jobs".into(),
        args.jobs.to_string(),
        "--seed".into(),
        args.seed.to_string(),
    ];
    gen_args.extend(args.gen_args.iter().cloned());
    let tasks_dir = out.join("tasks");
    std::fs::create_dir_all(&tasks_dir).with_context(|| format!("cannot create {}", tasks_dir.display()))?;
    let summary_path = out.join(shard_file_name(i, n));
    let mut summary = ShardSummary {
        shard: i,
        shards: n,
        list: list.display().to_string(),
        list_sha256: sha256_hex(text.as_bytes()),
        list_tasks: tasks.len(),
        gen_args: gen_args.clone(),
        status: "running".into(),
        tasks: Vec::new(),
    };
    write_shard_summary(&summary_path, &summary)?;
    let mine: Vec<(usize, &String)> = tasks.iter().enumerate().filter(|(k, _)| k % n + 1 == i).collect();
    eprintln!(
        "walkdown: batch shard {i}/{n}: {} of {} tasks, {} s each, into {}",
        mine.len(),
        tasks.len(),
        args.time,
        out.display()
    );
    // A task that overruns its budget this far is stopped (gen itself
    // stops at the budget; this guards against a hang).
    let guard = Duration::from_secs_f64(args.time * 2.0 + 60.0);
    for (index, task) in mine {
        let name = task_dir_name(index, task);
        let task_out = tasks_dir.join(&name);
        let log_path = tasks_dir.join(format!("{name}.log"));
        let log = std::fs::File::create(&log_path).with_context(|| format!("cannot create {}", log_path.display()))?;
        let started = Instant::now();
        let child = Command::new(&exe)
            .arg("gen")
            .args(&gen_args)
            .arg("--out")
            .arg(&task_out)
            .arg(base.join(task))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn();
        let (exit_code, failure) = match child {
            Err(e) => (None, format!("cannot start walkdown gen: {e}")),
            Ok(mut child) => {
                let status = loop {
                    if let Some(s) = child.try_wait()? {
                        break Some(s);
                    }
                    if started.elapsed() > guard {
                        let _ = child.kill();
                        let _ = child.wait();
                        break None;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                };
                match status {
                    None => (None, format!("stopped after {} s (more than twice the budget)", guard.as_secs())),
                    Some(s) if matches!(s.code(), Some(0 | 1)) => (s.code(), String::new()),
                    Some(s) => {
                        let said = std::fs::read_to_string(&log_path).unwrap_or_default();
                        let last =
                            said.lines().rev().find(|l| l.starts_with("walkdown: error:")).unwrap_or("").to_string();
                        (s.code(), if last.is_empty() { format!("gen ended with {s}") } else { last })
                    }
                }
            }
        };
        let wall_s = started.elapsed().as_secs_f64();
        let report = walkdown_formats::report::read_report(&task_out.join("report.json")).ok();
        let result = TaskResult {
            index,
            task: task.clone(),
            dir: format!("tasks/{name}"),
            exit_code,
            failure,
            wall_s,
            figures: report.as_ref().map(figures),
        };
        eprintln!("walkdown: batch: {task}: {}", row_words(&result));
        summary.tasks.push(result);
        write_shard_summary(&summary_path, &summary)?;
    }
    summary.status = "finished".into();
    write_shard_summary(&summary_path, &summary)?;
    println!("shard summary: {}", summary_path.display());
    Ok(if summary.tasks.iter().all(|t| t.figures.is_some() && matches!(t.exit_code, Some(0 | 1))) { 0 } else { 1 })
}

fn row_words(t: &TaskResult) -> String {
    match &t.figures {
        Some(f) => format!(
            "{} of {} goals covered, {} unreachable, {} infeasible, {} open; {} tests, {} errors ({:.1} s)",
            f.covered,
            f.goals,
            f.unreachable,
            f.infeasible,
            f.open,
            f.tests,
            f.errors.len(),
            t.wall_s
        ),
        None => format!("failed: {}", t.failure),
    }
}

/// The shard summaries in `paths` (directories holding `shard-*.json`, or the files).
fn summaries(paths: &[PathBuf]) -> Result<Vec<(PathBuf, ShardSummary)>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot read {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".json"))
                })
                .collect();
            if found.is_empty() {
                bail!("{}: no shard summary (shard-I-of-N.json) here", p.display());
            }
            found.sort();
            files.extend(found);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            bail!("{}: no such directory or file", p.display());
        }
    }
    files.into_iter().map(|f| Ok((f.clone(), read_shard_summary(&f)?))).collect()
}

/// `batch --merge`: one table of every shard's tasks, in list order.
fn merge(paths: &[PathBuf], json: Option<&Path>) -> Result<i32> {
    let all = summaries(paths)?;
    let (first_path, first) = &all[0];
    let mut seen = std::collections::BTreeMap::new();
    for (path, s) in &all {
        if s.list_sha256 != first.list_sha256 || s.shards != first.shards {
            bail!(
                "{} and {} are shards of different runs (task list {} in {} shards, and {} in {} shards)",
                first_path.display(),
                path.display(),
                first.list,
                first.shards,
                s.list,
                s.shards
            );
        }
        if let Some(other) = seen.insert(s.shard, path.clone()) {
            bail!("shard {}/{} appears twice: {} and {}", s.shard, s.shards, other.display(), path.display());
        }
    }
    let missing: Vec<String> =
        (1..=first.shards).filter(|k| !seen.contains_key(k)).map(|k| format!("{k}/{}", first.shards)).collect();
    let unfinished: Vec<String> = all
        .iter()
        .filter(|(_, s)| s.status != "finished")
        .map(|(p, s)| format!("{} ({})", p.display(), s.status))
        .collect();
    let mut rows: Vec<(usize, &TaskResult)> =
        all.iter().flat_map(|(_, s)| s.tasks.iter().map(move |t| (s.shard, t))).collect();
    rows.sort_by_key(|(_, t)| t.index);
    println!(
        "{:<44} {:>5} {:>4} {:>11} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8}",
        "task", "shard", "exit", "covered", "cov%", "unrch", "infeas", "open", "tests", "errors", "time s"
    );
    let mut percents = Vec::new();
    for (shard, t) in &rows {
        let exit = t.exit_code.map_or("-".to_string(), |c| c.to_string());
        match &t.figures {
            Some(f) => {
                let pct = if f.goals == 0 { 100.0 } else { 100.0 * f.covered as f64 / f.goals as f64 };
                percents.push(pct);
                println!(
                    "{:<44} {:>5} {:>4} {:>11} {:>6.1} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8.1}",
                    shorten(&t.task, 44),
                    shard,
                    exit,
                    format!("{}/{}", f.covered, f.goals),
                    pct,
                    f.unreachable,
                    f.infeasible,
                    f.open,
                    f.tests,
                    f.errors.len(),
                    t.wall_s
                );
            }
            None => println!("{:<44} {:>5} {:>4} failed: {}", shorten(&t.task, 44), shard, exit, t.failure),
        }
    }
    let mean = if percents.is_empty() { 0.0 } else { percents.iter().sum::<f64>() / percents.len() as f64 };
    println!(
        "{} of {} tasks in {} of {} shards; mean goal coverage {:.1}%",
        rows.len(),
        first.list_tasks,
        seen.len(),
        first.shards,
        mean
    );
    if !missing.is_empty() {
        eprintln!("walkdown: warning: shards missing: {}", missing.join(", "));
    }
    if !unfinished.is_empty() {
        eprintln!("walkdown: warning: shards not finished: {}", unfinished.join(", "));
    }
    if let Some(path) = json {
        let merged = ShardSummary {
            shard: 0,
            shards: first.shards,
            list: first.list.clone(),
            list_sha256: first.list_sha256.clone(),
            list_tasks: first.list_tasks,
            gen_args: first.gen_args.clone(),
            status: if missing.is_empty() && unfinished.is_empty() {
                "merged".into()
            } else {
                "merged (incomplete)".into()
            },
            tasks: rows.iter().map(|(_, t)| (*t).clone()).collect(),
        };
        write_shard_summary(path, &merged)?;
    }
    Ok(if missing.is_empty() && unfinished.is_empty() && rows.len() == first.list_tasks { 0 } else { 1 })
}

fn shorten(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        s.to_string()
    } else {
        format!("…{}", s.chars().skip(n - width + 1).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_and_names() {
        assert_eq!(parse_shard("2/8").unwrap(), (2, 8));
        for bad in ["0/2", "3/2", "1", "a/b", "1/0"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert_eq!(task_dir_name(3, "./loops/a b.yml"), "0003-loops__a_b");
        assert_eq!(task_dir_name(12, "x.c"), "0012-x");
    }
}
