//! Helpers of walkdown's integration tests (a dev-dependency of the crates
//! whose tests read the benchmark corpus): where `../shared` is, which
//! programs it holds with their data models, seeded input vectors, the
//! random runs of the engines' corpus soundness tests, and the filetest
//! harness of the engines ([`filetest`]).

use std::path::{Path, PathBuf};
use walkdown_ir::DataModel;

pub mod filetest;

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
///
/// Tests skip, with a message, what needs the corpus when this is `None`;
/// with `WALKDOWN_REQUIRE_SHARED=1` (set by CI) a missing corpus panics
/// instead, so a run without it cannot pass by skipping.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("WALKDOWN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if dir.join("bench").is_dir() {
        return Some(dir);
    }
    require_shared(&dir);
    None
}

/// Whether `WALKDOWN_REQUIRE_SHARED=1` asks tests to fail rather than skip
/// when the corpus is missing.
pub fn shared_required() -> bool {
    std::env::var_os("WALKDOWN_REQUIRE_SHARED").is_some_and(|v| v == "1")
}

/// Panics, naming `dir`, when the corpus is required (see [`shared_dir`]).
pub fn require_shared(dir: &Path) {
    if shared_required() {
        panic!(
            "WALKDOWN_REQUIRE_SHARED=1 but the benchmark corpus is missing: {} has no bench/ \
             (set WALKDOWN_SHARED to its path, or unset WALKDOWN_REQUIRE_SHARED to skip these tests)",
            dir.display()
        );
    }
}

/// Seeds and public tasks, or `None` (with a message) when `../shared` is absent.
pub fn corpus(test: &str) -> Option<Vec<CorpusProgram>> {
    let Some(shared) = shared_dir() else {
        eprintln!("{test}: skipped: ../shared (the benchmark corpus) is not present");
        return None;
    };
    let mut out = Vec::new();
    let seeds = shared.join("bench/seeds");
    let mut seed_files: Vec<PathBuf> =
        std::fs::read_dir(&seeds).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
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

// ---------------------------------------------------------------------------
// Seeded input vectors (shared by tests/differential.rs and benches/).
// ---------------------------------------------------------------------------

use walkdown_ir::testvec::{InputValue, TestVector};

/// SplitMix64: a small deterministic generator (no external crate), good
/// enough to spread test inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A generator seeded from a name (FNV-1a of its bytes), so each
    /// program gets its own, stable stream.
    pub fn from_name(name: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        Rng(h)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i128, hi: i128) -> i128 {
        lo + i128::from(self.below((hi - lo + 1) as u64))
    }

    /// One element of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Boundary values of the C integer types: 0, ±1, and the limits of
/// (un)signed char, short, int and long long (and one past some of them).
pub const BOUNDARY_INTS: &[i128] = &[
    0,
    1,
    -1,
    2,
    -2,
    i8::MAX as i128,
    i8::MIN as i128,
    u8::MAX as i128,
    256,
    i16::MAX as i128,
    i16::MIN as i128,
    u16::MAX as i128,
    i32::MAX as i128,
    i32::MIN as i128,
    u32::MAX as i128,
    1 << 32,
    i64::MAX as i128,
    i64::MIN as i128,
    u64::MAX as i128,
];

/// Floating-point values read by `float`/`double` inputs, and by integer
/// inputs, which convert them like a cast (truncation toward zero; beyond
/// the type's range the result is the harness's, see `InputValue`).
pub const BOUNDARY_FLOATS: &[f64] = &[
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.0,
    -1.5,
    2.75,
    0.1,
    100.25,
    -1000.125,
    3e9,
    -3e9,
    1e10,
    -1e10,
    9.3e18,
    -9.3e18,
    1e19,
    -1e19,
    1.2345678901234568e18,
    1e20,
    -1e20,
    1.7e38,
    -1.7e38,
    4e38,
    1e300,
    -1e300,
    f64::MAX,
    f64::MIN_POSITIVE,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// One input value: mostly small integers (which keep loops short and
/// satisfy typical assumptions), with boundary values, bytes, random 32-
/// and 64-bit numbers and some floating-point values mixed in.
pub fn random_value(rng: &mut Rng) -> InputValue {
    let roll = rng.below(100);
    InputValue::Int(match roll {
        0..=29 => rng.range(-8, 16),
        30..=49 => rng.pick(BOUNDARY_INTS),
        50..=64 => rng.range(0, 255),
        65..=74 => rng.range(-1000, 1000),
        75..=86 => i128::from(rng.next_u64() as u32 as i32),
        87..=94 => i128::from(rng.next_u64() as i64),
        _ => {
            return InputValue::Float(if rng.below(2) == 0 {
                rng.pick(BOUNDARY_FLOATS)
            } else {
                (rng.range(-4000, 4000) as f64) / 8.0
            })
        }
    })
}

/// `count` test vectors for the program called `name`, the same on every
/// call: an empty vector, constant vectors (0, 1, -1), all the boundary
/// values, short vectors (so that running out of inputs is exercised), a
/// vector of floating-point values, and random vectors of 64 to 4096
/// values.
pub fn input_vectors(name: &str, count: usize) -> Vec<TestVector> {
    let mut rng = Rng::from_name(name);
    (0..count).map(|i| input_vector(&mut rng, i)).collect()
}

/// Random vectors a soundness test runs per program at most.
const SOUNDNESS_VECTORS: usize = 10_000;

/// The time a soundness test runs random vectors per program: 1.5 s, or
/// `WALKDOWN_SOUNDNESS_BUDGET_S` seconds for a full run.
fn soundness_budget() -> std::time::Duration {
    std::env::var("WALKDOWN_SOUNDNESS_BUDGET_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(std::time::Duration::from_millis(1500), std::time::Duration::from_secs_f64)
}

/// The check of an engine's unreachability claims on program `name`: its
/// seeded [`input_vectors`] run in `interp` (1,000,000 steps each, within
/// the soundness budget, so slow programs run fewer). Returns the goals of
/// `claimed` some run covers, in the order first covered, and how many
/// vectors ran.
pub fn random_runs_covering(
    interp: &walkdown_interp::Interpreter,
    name: &str,
    claimed: &std::collections::BTreeSet<walkdown_ir::goals::GoalId>,
) -> (Vec<walkdown_ir::goals::GoalId>, usize) {
    let (mut covered, mut runs) = (Vec::new(), 0);
    if claimed.is_empty() {
        return (covered, runs);
    }
    let limits = walkdown_interp::ExecLimits { max_steps: 1_000_000, ..Default::default() };
    let opts = walkdown_interp::RunOptions { limits, ..Default::default() };
    let (start, budget) = (std::time::Instant::now(), soundness_budget());
    for tv in input_vectors(name, SOUNDNESS_VECTORS) {
        if start.elapsed() > budget {
            break;
        }
        runs += 1;
        for g in interp.run(&tv, &opts).covered {
            if claimed.contains(&g) && !covered.contains(&g) {
                covered.push(g);
            }
        }
    }
    (covered, runs)
}

fn input_vector(rng: &mut Rng, index: usize) -> TestVector {
    let ints = |values: Vec<i128>| TestVector::from_ints(values);
    match index {
        0 => TestVector::default(),
        1 => ints(vec![0; 256]),
        2 => ints(vec![1; 256]),
        3 => ints(vec![-1; 256]),
        4 => ints((0..512).map(|i| BOUNDARY_INTS[i % BOUNDARY_INTS.len()]).collect()),
        5 => {
            let n = rng.range(1, 3) as usize;
            TestVector { values: (0..n).map(|_| random_value(rng)).collect() }
        }
        6 => {
            let n = rng.range(4, 12) as usize;
            ints((0..n).map(|_| rng.range(-2, 10)).collect())
        }
        7 => TestVector {
            values: (0..256)
                .map(|i| {
                    InputValue::Float(if i % 2 == 0 {
                        BOUNDARY_FLOATS[(i / 2) % BOUNDARY_FLOATS.len()]
                    } else {
                        (rng.range(-100_000, 100_000) as f64) / 64.0
                    })
                })
                .collect(),
        },
        8 => ints((0..256).map(|_| rng.pick(BOUNDARY_INTS)).collect()),
        _ => {
            let n = [64, 256, 1024, 4096][index % 4];
            TestVector { values: (0..n).map(|_| random_value(rng)).collect() }
        }
    }
}

/// Threads [`map_corpus`] uses: the available cores, at most four.
pub fn corpus_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4)
}

/// `check` applied to every program of `corpus` on [`corpus_workers`]
/// threads, in corpus order (the corpus-wide tests each spend seconds per
/// program).
pub fn map_corpus<R: Send>(corpus: &[CorpusProgram], check: impl Fn(&CorpusProgram) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = corpus_workers();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..corpus.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(program) = corpus.get(i) else { break };
                let r = check(program);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("a corpus worker died"))
        .collect()
}
