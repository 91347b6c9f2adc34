//! `contrib/slurm/walkdown-batch.sbatch` on a running Slurm: a one-node
//! cluster (this machine, its cores and memory as `slurmd -C` reports
//! them) is configured in a temporary directory, `munged`, `slurmctld` and
//! `slurmd` run there in the foreground as children of the test, the
//! script is submitted as an array of two shards over five public tasks,
//! and the shards' merged table (`walkdown batch --merge`) must equal an
//! unsharded `walkdown batch` run task by task (same seed, `--jobs 1`,
//! tasks that end well within their budget, so the figures do not depend
//! on which machine or process ran them; `tests/batch.rs` checks the same
//! without Slurm).
//!
//! Why a real Slurm rather than a fake `SLURM_ARRAY_TASK_ID`: what breaks
//! on a cluster is what Slurm does around the script (where it opens the
//! log, which directory the job starts in, what environment it passes
//! on), and only Slurm shows that.
//!
//! The daemons are stopped whatever happens (`Cluster`'s `Drop`). The test
//! skips, with the reason, only where the daemons cannot start (Slurm or
//! munge not installed, a sandbox that forbids them) or where `../shared`
//! is absent; under `WALKDOWN_REQUIRE_SHARED=1`, which `scripts/test` sets
//! in CI, both are failures instead.

use serde_json::Value;
use std::fs;
use std::io::Read as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Public tasks of `../shared/bench/sv` that take a few seconds each and
/// end before their budget (those of `tests/batch.rs`).
const TASKS: [&str; 5] = [
    "loop-lit/jm2006.yml",
    "loop-simple/nested_1.yml",
    "ntdrivers-simplified/kbfiltr_simpl1.cil.yml",
    "recursive-simple/fibo_10-1.yml",
    "loops/for_bounded_loop1.yml",
];

/// Shards of the array job (the machine's cores run them side by side).
const SHARDS: usize = 2;

/// Budget of each task in seconds.
const BUDGET_S: &str = "20";

/// The programs the test runs: munge's and Slurm's daemons (indexed below
/// in this order), then Slurm's clients.
const PROGRAMS: [&str; 8] = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "scancel"];

/// A one-node Slurm in a temporary directory; dropping it cancels its jobs
/// and kills its daemons.
struct Cluster {
    /// The directory of the configuration, state, logs and munge's files.
    dir: tempfile::TempDir,
    /// The daemons, in the order they started (stopped in reverse).
    daemons: Vec<(&'static str, Child)>,
    /// Jobs submitted, cancelled on drop in case they still run.
    jobs: Vec<String>,
}

impl Cluster {
    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm client command (`sbatch`, `squeue`, ...) of this cluster.
    fn client(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.conf());
        c
    }

    /// The end of every daemon's log, for a failure message.
    fn logs(&self) -> String {
        let mut out = String::new();
        for name in ["munged.log", "slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"] {
            let text = fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            out += &format!("--- {name}\n{}\n", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        }
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs still running (the test failed while they ran) are
        // cancelled while slurmd can still signal their steps: their
        // processes are not the test's children and would outlive it.
        for job in &self.jobs {
            let _ = self.client("scancel").arg(job).stderr(Stdio::null()).status();
            wait_for(Duration::from_secs(10), || {
                let queued = output_of(self.client("squeue").args(["-h", "-j", job])).ok()?;
                queued.trim().is_empty().then_some(())
            });
        }
        for (_, child) in self.daemons.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Polls `ready` every 200 ms until it gives a value or `timeout` passes.
fn wait_for<T>(timeout: Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(v) = ready() {
            return Some(v);
        }
        if start.elapsed() > timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether `program` is on the PATH (or in /usr/sbin, where Debian puts
/// the daemons, off a non-root PATH).
fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// A free TCP port on the loopback (free when asked; the daemons bind it
/// a moment later, so two clusters on one machine do not collide).
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The output of `program args` when it succeeds.
fn output_of(cmd: &mut Command) -> Result<String, String> {
    let o = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !o.status.success() {
        return Err(format!("{cmd:?} failed ({}): {}", o.status, String::from_utf8_lossy(&o.stderr)));
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The user the daemons run as (and jobs run as): root in CI, else whoever
/// runs the test.
fn user_name() -> Result<String, String> {
    Ok(output_of(Command::new("id").arg("-un"))?.trim().to_string())
}

/// `slurm.conf` for one node described by `node` (`slurmd -C`'s line:
/// `NodeName=vm CPUs=2 ... RealMemory=24105`), everything under `dir`.
fn slurm_conf(dir: &Path, node: &str, user: &str, ports: (u16, u16)) -> String {
    let d = dir.display();
    let host = node.split_whitespace().next().and_then(|w| w.strip_prefix("NodeName=")).unwrap_or("localhost");
    // Plugins that need neither cgroups nor a database: processes are
    // tracked through /proc, tasks are not confined, nothing is accounted.
    format!(
        "ClusterName=walkdowntest\nSlurmctldHost={host}(127.0.0.1)\nSlurmctldPort={}\nSlurmdPort={}\n\
AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={d}/munge.socket\n\
SlurmUser={user}\nSlurmdUser={user}\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n\
AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nMpiDefault=none\nMailProg=/bin/true\n\
SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nSchedulerType=sched/builtin\n\
ReturnToService=2\nMinJobAge=600\n\
{node} NodeAddr=127.0.0.1 State=UNKNOWN\nPartitionName=walkdown Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
        ports.0, ports.1
    )
}

/// Starts `program args` in the foreground of the test, its output into
/// `DIR/NAME.out`.
fn spawn(cluster: &mut Cluster, name: &'static str, program: &Path, args: &[&str]) -> Result<(), String> {
    use std::os::unix::process::CommandExt as _;
    let out = fs::File::create(cluster.dir.path().join(format!("{name}.out"))).map_err(|e| e.to_string())?;
    let mut command = Command::new(program);
    // Should the test process be killed outright (no Drop), the daemons
    // die with it rather than outlive it.
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = command
        .args(args)
        .env("SLURM_CONF", cluster.conf())
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(|e| e.to_string())?)
        .stderr(out)
        .spawn()
        .map_err(|e| format!("cannot start {name}: {e}"))?;
    cluster.daemons.push((name, child));
    Ok(())
}

/// Fails when one of the daemons has already ended.
fn all_running(cluster: &mut Cluster) -> Result<(), String> {
    for (name, child) in &mut cluster.daemons {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("{name} ended at start ({status})"));
        }
    }
    Ok(())
}

/// A munge key of random bytes, readable by its owner alone (munged
/// refuses others).
fn write_munge_key(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut key = [0u8; 1024];
    fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut key)).map_err(|e| e.to_string())?;
    fs::write(path, key).map_err(|e| e.to_string())?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).map_err(|e| e.to_string())
}

/// The cluster with its node idle, or why it could not start.
fn start_cluster() -> Result<Cluster, String> {
    let mut paths = Vec::new();
    for p in PROGRAMS {
        paths.push(find_program(p).ok_or_else(|| {
            format!("{p} is not installed (Debian's slurm-wlm and munge; scripts/setup installs them)")
        })?);
    }
    let dir = tempfile::Builder::new().prefix("walkdown-slurm").tempdir().map_err(|e| e.to_string())?;
    let mut cluster = Cluster { dir, daemons: Vec::new(), jobs: Vec::new() };
    let d = cluster.dir.path().to_path_buf();
    for sub in ["state", "spool", "work"] {
        fs::create_dir(d.join(sub)).map_err(|e| e.to_string())?;
    }
    let node = output_of(Command::new(&paths[2]).arg("-C"))?.lines().next().unwrap_or_default().to_string();
    if !node.starts_with("NodeName=") {
        return Err(format!("slurmd -C does not describe this machine: {node}"));
    }
    let ports = (free_port().map_err(|e| e.to_string())?, free_port().map_err(|e| e.to_string())?);
    fs::write(cluster.conf(), slurm_conf(&d, &node, &user_name()?, ports)).map_err(|e| e.to_string())?;

    start_munged(&mut cluster, &paths[0])?;
    let conf = cluster.conf().display().to_string();
    spawn(&mut cluster, "slurmctld", &paths[1], &["-D", "-f", &conf])?;
    let host = node["NodeName=".len()..].split_whitespace().next().unwrap_or_default().to_string();
    spawn(&mut cluster, "slurmd", &paths[2], &["-D", "-f", &conf, "-N", &host])?;
    wait_until_idle(cluster)
}

/// Starts munged with the cluster's key, socket and files, and waits for
/// its socket.
fn start_munged(cluster: &mut Cluster, munged: &Path) -> Result<(), String> {
    let d = cluster.dir.path().to_path_buf();
    write_munge_key(&d.join("munge.key"))?;
    let munge_arg = |flag: &str, file: &str| format!("--{flag}={}", d.join(file).display());
    let args = [
        "--foreground".to_string(),
        "--force".into(),
        munge_arg("key-file", "munge.key"),
        munge_arg("socket", "munge.socket"),
        munge_arg("pid-file", "munged.pid"),
        munge_arg("log-file", "munged.log"),
        munge_arg("seed-file", "munged.seed"),
    ];
    spawn(cluster, "munged", munged, &args.iter().map(String::as_str).collect::<Vec<_>>())?;
    wait_for(Duration::from_secs(10), || d.join("munge.socket").exists().then_some(()))
        .ok_or_else(|| format!("munged did not create its socket\n{}", cluster.logs()))
}

/// The cluster once its node is idle, or why it did not get there.
fn wait_until_idle(mut cluster: Cluster) -> Result<Cluster, String> {
    let idle = wait_for(Duration::from_secs(60), || {
        all_running(&mut cluster).err().map(Err).or_else(|| {
            let state = output_of(cluster.client("sinfo").args(["-h", "-o", "%T"])).unwrap_or_default();
            (state.trim() == "idle").then_some(Ok(()))
        })
    });
    match idle {
        Some(Ok(())) => Ok(cluster),
        Some(Err(e)) => Err(format!("{e}\n{}", cluster.logs())),
        None => Err(format!("the node did not become idle within 60 s\n{}", cluster.logs())),
    }
}

/// `(task, exit code, figures)` of each task of a merged table (`--json`).
fn merged(dirs: &[PathBuf], json: &Path) -> Vec<(String, Value, Value)> {
    let o = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .args(["batch", "--merge"])
        .args(dirs)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    assert!(o.status.success(), "merge: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(v["status"], "merged", "every shard is there and finished");
    v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["task"].as_str().unwrap().to_string(), t["exit_code"].clone(), t["figures"].clone()))
        .collect()
}

/// Submits the script as an array of `SHARDS` over `list`; the job's id.
fn submit(cluster: &mut Cluster, work: &Path, list: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contrib/slurm/walkdown-batch.sbatch");
    let bin = Path::new(env!("CARGO_BIN_EXE_walkdown")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    // The script asks for 8 GB a task, as a real cluster should give; this
    // node may have less to spare, and the command line wins over #SBATCH.
    let o = cluster
        .client("sbatch")
        .args(["--parsable", &format!("--array=1-{SHARDS}"), "--mem=1G", "--chdir"])
        .arg(work)
        .arg(&script)
        .arg(list)
        .arg(BUDGET_S)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(o.status.success(), "sbatch: {}", String::from_utf8_lossy(&o.stderr));
    let id = String::from_utf8_lossy(&o.stdout).trim().split(';').next().unwrap().to_string();
    assert!(id.parse::<u64>().is_ok(), "sbatch --parsable gave {id:?}");
    cluster.jobs.push(id.clone());
    id
}

/// Waits until no task of array job `id` is queued or running; then each
/// task must have completed with exit code 0.
fn wait_for_job(cluster: &Cluster, id: &str) {
    let timeout = Duration::from_secs(600);
    let done = wait_for(timeout, || {
        let queued = output_of(cluster.client("squeue").args(["-h", "-j", id, "-o", "%i %T"])).ok()?;
        queued.trim().is_empty().then_some(())
    });
    assert!(done.is_some(), "job {id} still queued or running after {timeout:?}\n{}", cluster.logs());
    let jobs = output_of(cluster.client("scontrol").args(["show", "job", "-o", id])).unwrap();
    let states: Vec<String> = jobs
        .lines()
        .map(|l| {
            let field = |k: &str| l.split_whitespace().find_map(|w| w.strip_prefix(k)).unwrap_or("?").to_string();
            format!("{} {} {}", field("ArrayTaskId="), field("JobState="), field("ExitCode="))
        })
        .collect();
    assert_eq!(states.len(), SHARDS, "one task per shard: {jobs}");
    for s in &states {
        assert!(s.ends_with(" COMPLETED 0:0"), "array task not completed: {s}\n{}", cluster.logs());
    }
}

#[test]
fn sbatch_array_shards_merge_to_the_unsharded_table() {
    let Some(shared) = walkdown_testsupport::shared_dir() else {
        eprintln!("slurm: skipped: ../shared (WALKDOWN_SHARED), which holds the public tasks, not found");
        return;
    };
    let sv = shared.join("bench/sv");
    let missing: Vec<&str> = TASKS.iter().copied().filter(|t| !sv.join(t).exists()).collect();
    if !missing.is_empty() {
        walkdown_testsupport::require_shared(&shared);
        eprintln!("slurm: skipped: {missing:?} not in {}", sv.display());
        return;
    }
    let started = Instant::now();
    let mut cluster = match start_cluster() {
        Ok(c) => c,
        Err(why) if !walkdown_testsupport::shared_required() => {
            eprintln!("slurm: skipped: the one-node Slurm cannot start here: {why}");
            return;
        }
        Err(why) => panic!("the one-node Slurm cannot start (WALKDOWN_REQUIRE_SHARED=1 forbids skipping): {why}"),
    };
    eprintln!("slurm: cluster up in {:.1} s", started.elapsed().as_secs_f64());
    let work = cluster.dir.path().join("work");
    let list = work.join("tasks.list");
    fs::write(&list, TASKS.iter().map(|t| format!("{}\n", sv.join(t).display())).collect::<String>()).unwrap();

    // The array job, with relative paths, as a user would submit it.
    let id = submit(&mut cluster, &work, Path::new("tasks.list"));
    wait_for_job(&cluster, &id);
    eprintln!("slurm: array job {id} done at {:.1} s", started.elapsed().as_secs_f64());
    let shards: Vec<PathBuf> = (1..=SHARDS).map(|i| work.join(format!("results/shard-{i}"))).collect();
    for (i, dir) in shards.iter().enumerate() {
        let log = fs::read_to_string(work.join(format!("walkdown-{id}_{}.log", i + 1))).unwrap_or_default();
        assert!(
            log.contains(&format!("batch shard {}/{SHARDS}", i + 1)),
            "the job's log in the submit directory: {log}"
        );
        assert!(dir.join(format!("shard-{}-of-{SHARDS}.json", i + 1)).is_file(), "{} has its summary", dir.display());
    }
    let sharded = merged(&shards, &work.join("merged.json"));

    // The same tasks unsharded, outside Slurm.
    let all = work.join("all");
    let o = Command::new(env!("CARGO_BIN_EXE_walkdown"))
        .arg("batch")
        .arg(&list)
        .args(["--shard", "1/1", "--time", BUDGET_S, "--jobs", "1", "--seed", "1", "--out"])
        .arg(&all)
        .output()
        .unwrap();
    assert!(o.status.success(), "unsharded batch: {}", String::from_utf8_lossy(&o.stderr));
    let whole = merged(&[all], &work.join("all.json"));
    assert_eq!(whole.len(), TASKS.len());
    assert_eq!(sharded.len(), TASKS.len());
    for (w, s) in whole.iter().zip(&sharded) {
        assert!(w.2.is_object(), "{} has figures", w.0);
        assert_eq!(w.0, s.0, "tasks in list order");
        assert_eq!(w, s, "the Slurm shards' figures of {} differ from the unsharded run's", w.0);
    }
    eprintln!("slurm: done in {:.1} s", started.elapsed().as_secs_f64());
}
