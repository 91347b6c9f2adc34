//! Unit mode of `gen` (`--entry NAME`): the program with its `main`
//! renamed and the harness of `walkdown-unit` appended is what the engines
//! run; after the run each kept test becomes a C test function in
//! `DIR/unit_tests.c` and its input shape a line of `report.json`.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use walkdown_campaign::Snapshot;
use walkdown_formats::report::{Report, UnitEntry, UnitTestEntry};
use walkdown_ir::Program;
use walkdown_unit::tests_c::{unit_tests_c, UnitTest};
use walkdown_unit::{Decls, Settings, Unit};

/// Options of unit mode.
#[derive(clap::Args, Debug, Clone)]
pub struct UnitArgs {
    /// Unit mode: test this function directly; its parameters are inputs, pointers to structs are built by lazy initialization (null, a fresh object, or an alias of an earlier one).
    #[arg(long)]
    pub entry: Option<String>,
    /// Unit mode: at most this many struct objects per test.
    #[arg(long, default_value_t = Settings::default().max_objects)]
    pub max_objects: u32,
    /// Unit mode: struct objects at most this many pointers away from an argument.
    #[arg(long, default_value_t = Settings::default().max_depth)]
    pub max_depth: u32,
    /// Unit mode: arrays behind pointers have 1 to this many elements.
    #[arg(long, default_value_t = Settings::default().max_array)]
    pub max_array: u32,
}

/// The unit's file name in OUT (the program with the harness).
pub fn harness_file_name(program: &Path) -> String {
    let stem = program.file_stem().map_or_else(|| "program".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}-unit.c")
}

/// Refuses a native run of a unit program (`gen --entry`'s NAME-unit.c):
/// built natively it lacks the lazy slots' calls that walkdown inserts when
/// it loads it, so it would follow placeholders. Its tests run natively as
/// `unit_tests.c`.
pub fn refuse_native_unit_program(file: &Path) -> Result<()> {
    let text = std::fs::read(file).unwrap_or_default();
    let marker = format!("void *{}(void *v, void **at)", walkdown_unit::harness::RESOLVE);
    if text.windows(marker.len()).any(|w| w == marker.as_bytes()) {
        anyhow::bail!(
            "{} is a unit program (gen --entry): its pointers are decided on first read, which only walkdown's own runs do; run its tests natively with {} in the same directory (`gcc -g {} -o unit_tests && ./unit_tests [TEST]`, or `walkdown validate PROGRAM DIR/{}`)",
            file.display(),
            UNIT_TESTS_FILE,
            UNIT_TESTS_FILE,
            UNIT_TESTS_FILE
        );
    }
    Ok(())
}

/// The test file's name in OUT.
pub const UNIT_TESTS_FILE: &str = "unit_tests.c";

/// A unit ready to run: the harness program in a scratch directory (it is
/// copied into OUT once OUT is locked).
pub struct Prepared {
    /// The unit.
    pub unit: Unit,
    /// The original program.
    pub original: PathBuf,
    /// The harness program's text.
    pub text: String,
    /// Where it is compiled from.
    pub scratch_file: PathBuf,
    _scratch: tempfile::TempDir,
}

/// Makes the unit of `entry` in `program`.
pub fn prepare(program: &Path, args: &UnitArgs, entry: &str, m32: bool) -> Result<Prepared> {
    super::check_input_file(program, &["c", "i"])?;
    if args.max_objects == 0 || args.max_depth == 0 || args.max_array == 0 {
        anyhow::bail!("--max-objects, --max-depth and --max-array must be at least 1");
    }
    let decls = Decls::read(program, Path::new("clang-14"), m32)?;
    let settings = Settings { max_objects: args.max_objects, max_depth: args.max_depth, max_array: args.max_array };
    let unit = Unit::new(decls, entry, settings)?;
    let original = std::fs::read_to_string(program).with_context(|| format!("cannot read {}", program.display()))?;
    let text = unit.program_text(&original);
    let scratch = tempfile::tempdir().context("cannot make a scratch directory")?;
    let scratch_file = scratch.path().join(harness_file_name(program));
    std::fs::write(&scratch_file, &text).with_context(|| format!("cannot write {}", scratch_file.display()))?;
    Ok(Prepared { unit, original: program.to_path_buf(), text, scratch_file, _scratch: scratch })
}

/// How a test's interpreter run ends, for the test file and the report
/// (locations name the original file: the harness program keeps its lines).
pub fn expected_outcome(program: &Program, prepared: &Prepared, test: &walkdown_campaign::KeptTest) -> String {
    match &test.error {
        Some(e) => format!("{} at {}:{}:{}", e.kind, prepared.original.display(), e.loc.line, e.loc.col),
        None => match test.outcome {
            walkdown_interp::Outcome::Exit(0) => "returns".into(),
            _ => super::run::describe_outcome(program, &test.outcome),
        },
    }
}

/// The lazy slots a test's run decides, in order: the interpreter replays
/// it on the instrumented unit program and the harness prints each
/// decision (see `walkdown_unit::harness`).
pub fn decided_slots(interp: &walkdown_interp::Interpreter, values: &[walkdown_ir::testvec::InputValue]) -> Vec<usize> {
    let vector = walkdown_ir::testvec::TestVector { values: values.to_vec() };
    let (_, output) = interp.run_with_output(&vector, &walkdown_interp::RunOptions::default());
    walkdown_unit::shape::decisions(&output)
}

/// Writes `OUT/unit_tests.c` and adds the unit to the report.
pub fn finish(prepared: &Prepared, out: &Path, snap: &Snapshot, program: &Program, goals: &walkdown_ir::goals::Goals, report: &mut Report) -> Result<()> {
    let include = std::fs::canonicalize(&prepared.original).unwrap_or_else(|_| prepared.original.clone());
    let interp = walkdown_interp::Interpreter::new(program, goals).context("cannot prepare the unit program for its replays")?;
    let mut tests = Vec::new();
    let mut entries = Vec::new();
    // Tests kept for a goal of the harness alone (an out-of-range choice
    // read as null) may build a shape an earlier test built, with the same
    // outcome: the test file has each (shape, outcome) once.
    let mut seen: std::collections::HashMap<(String, String), String> = std::collections::HashMap::new();
    for t in &snap.tests {
        let name = format!("test_{:05}", t.index);
        let expected = expected_outcome(program, prepared, t);
        let decided = decided_slots(&interp, &t.vector.values);
        let shape = walkdown_unit::Shape::decode(&prepared.unit, &t.vector.values, &decided).describe(&prepared.unit);
        let function = match seen.get(&(shape.clone(), expected.clone())) {
            Some(first) => first.clone(),
            None => {
                seen.insert((shape.clone(), expected.clone()), name.clone());
                tests.push(UnitTest { name: name.clone(), values: t.vector.values.clone(), decided, expected: expected.clone() });
                name
            }
        };
        entries.push(UnitTestEntry { file: super::gen::test_file_name(t.index), function, shape, outcome: expected });
    }
    let text = unit_tests_c(&prepared.unit, &include.display().to_string(), &tests, 10);
    let path = out.join(UNIT_TESTS_FILE);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    let s = prepared.unit.settings;
    report.unit = Some(UnitEntry {
        entry: prepared.unit.entry.name.clone(),
        program: prepared.original.display().to_string(),
        harness_program: out.join(harness_file_name(&prepared.original)).display().to_string(),
        unit_tests: path.display().to_string(),
        max_objects: s.max_objects,
        max_depth: s.max_depth,
        max_array: s.max_array,
        functions: reached_functions(program, &prepared.unit.entry.name),
        tests: entries,
    });
    Ok(())
}

/// Whether `f` is a function of the harness, of walkdown's runtime or of
/// the C library rather than of the code under test.
fn not_the_units(f: &walkdown_ir::FuncData) -> bool {
    walkdown_unit::lazy::is_harness(&f.name) || walkdown_ir::goals::is_foreign_code(f)
}

/// The defined functions `entry` may call, itself first (every defined
/// function once an indirect call is among them).
pub fn reached_functions(program: &Program, entry: &str) -> Vec<String> {
    use walkdown_ir::inst::{Callee, InstKind};
    let Some(start) = program.func_by_name(entry) else { return Vec::new() };
    let mut seen = vec![start];
    let mut work = vec![start];
    while let Some(f) = work.pop() {
        let Some(body) = &program.funcs[f].body else { continue };
        for (_, inst) in body.insts.iter() {
            match &inst.kind {
                // The harness's functions (the lazy slots' calls) and
                // walkdown's runtime are not the unit's.
                InstKind::Call { callee: Callee::Direct(g), .. }
                    if program.funcs[*g].body.is_some() && !seen.contains(g) && !not_the_units(&program.funcs[*g]) =>
                {
                    seen.push(*g);
                    work.push(*g);
                }
                InstKind::Call { callee: Callee::Indirect(_), .. } => {
                    for (g, data) in program.funcs.iter() {
                        let ours = !not_the_units(data);
                        if data.body.is_some() && ours && !seen.contains(&g) {
                            seen.push(g);
                            work.push(g);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    seen.into_iter().map(|f| program.funcs[f].name.clone()).collect()
}

/// Branch coverage of one function, from gcov.
pub struct FunctionCoverage {
    /// Its name.
    pub name: String,
    /// Branch outcomes gcc emitted in it.
    pub branches: u64,
    /// Those taken.
    pub covered: u64,
    /// Whether a test entered it.
    pub entered: bool,
}

/// What a native run of `unit_tests.c` shows.
pub struct UnitValidation {
    /// Each test's line (`test_00003: signal 8 (SIGFPE)   [walkdown: …]`).
    pub lines: Vec<String>,
    /// gcov's coverage of the program file.
    pub coverage: walkdown_native::GcovCoverage,
    /// Per function of the program.
    pub functions: Vec<FunctionCoverage>,
}

/// Compiles `unit_tests` with gcc `--coverage`, runs every test (each in a
/// child of its own; a test that crashes keeps its coverage) and reads
/// gcov's coverage of `program`, the file the tests include.
pub fn validate_unit_tests(program: &Path, unit_tests: &Path, m32: bool) -> Result<UnitValidation> {
    let dir = tempfile::tempdir().context("cannot make a scratch directory")?;
    let source = dir.path().join("unit_tests.c");
    std::fs::copy(unit_tests, &source).with_context(|| format!("cannot read {}", unit_tests.display()))?;
    let arch = if m32 { "-m32" } else { "-m64" };
    let gcc = |args: &[&str]| -> Result<()> {
        let o = std::process::Command::new("gcc").args(args).current_dir(dir.path()).output().context("cannot run gcc")?;
        if !o.status.success() {
            anyhow::bail!("gcc {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).chars().take(2000).collect::<String>());
        }
        Ok(())
    };
    gcc(&["--coverage", "-g", "-O0", "-w", arch, "-c", "unit_tests.c", "-o", "unit_tests.o"])?;
    // The tests call libgcov's dump through a weak reference, which does
    // not pull it from the archive by itself.
    gcc(&["--coverage", arch, "-Wl,-u,__gcov_dump", "unit_tests.o", "-o", "unit_tests"])?;
    let ran = std::process::Command::new(dir.path().join("unit_tests"))
        .current_dir(dir.path())
        .output()
        .context("cannot run the unit tests")?;
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let lines = stdout.lines().filter(|l| l.contains("[walkdown: ")).map(str::to_string).collect();
    let gcov = std::process::Command::new("gcov")
        .args(["--json-format", "--stdout", "-b", "-c", "-o"])
        .arg(dir.path())
        .arg("unit_tests.gcda")
        .current_dir(dir.path())
        .output()
        .context("cannot run gcov")?;
    let name = program.file_name().unwrap_or_default();
    let coverage = walkdown_native::gcov::aggregate_gcov_json(&String::from_utf8_lossy(&gcov.stdout), name)
        .with_context(|| format!("no coverage of {}", program.display()))?;
    let functions = coverage
        .functions
        .iter()
        .map(|f| {
            let counts = coverage.branch_counts.range(f.start_line..=f.end_line).flat_map(|(_, c)| c.iter());
            let (mut branches, mut covered) = (0, 0);
            for &c in counts {
                branches += 1;
                covered += u64::from(c > 0);
            }
            FunctionCoverage { name: f.name.clone(), branches, covered, entered: f.execution_count > 0 }
        })
        .collect();
    Ok(UnitValidation { lines, coverage, functions })
}
