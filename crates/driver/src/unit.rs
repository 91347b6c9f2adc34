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
use walkdown_unit::{ContractMode, ContractOptions, Decls, Settings, Unit};

/// Options of unit mode (`--entry NAME`, its bounds and the API's
/// contract).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitOptions {
    /// The function under test.
    pub entry: String,
    /// At most this many struct objects per test.
    pub max_objects: u32,
    /// Struct objects at most this many pointers away from an argument.
    pub max_depth: u32,
    /// Arrays behind pointers have 1 to this many elements.
    pub max_array: u32,
    /// The contract's options (`--length`, `--init`, `--nullable`,
    /// `--requires`, `--contract`).
    pub contract: ContractOptions,
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
    /// What the contract's inference has to say (ACSL clauses it does not
    /// understand, pointers it cannot build).
    pub notes: Vec<String>,
    _scratch: tempfile::TempDir,
}

impl Prepared {
    /// The contract in words, for the user: a heading, then a line a clause.
    pub fn contract_lines(&self) -> Vec<String> {
        let u = &self.unit;
        let how = match u.contract.mode {
            ContractMode::Assume => "kept by every test; --contract report to test outside it",
            ContractMode::Report => "tests may break it; errors that need a broken clause are reported as such",
        };
        let mut lines = vec![format!("walkdown: the contract of {} ({how}):", u.entry.name)];
        if u.contract.clauses.is_empty() {
            lines.push("  (none)".into());
        }
        lines.extend(u.contract.describe().into_iter().map(|c| format!("  {c}")));
        lines
    }
}

/// Makes the unit of `args.entry` in `program`.
pub fn prepare(program: &Path, args: &UnitOptions, m32: bool) -> Result<Prepared> {
    let entry = args.entry.as_str();
    crate::load::check_input_file(program, &["c", "i"])?;
    if args.max_objects == 0 || args.max_depth == 0 || args.max_array == 0 {
        anyhow::bail!("--max-objects, --max-depth and --max-array must be at least 1");
    }
    let decls = Decls::read(program, Path::new("clang-14"), m32)?;
    let settings = Settings { max_objects: args.max_objects, max_depth: args.max_depth, max_array: args.max_array };
    let original = std::fs::read_to_string(program).with_context(|| format!("cannot read {}", program.display()))?;
    let acsl = walkdown_unit::acsl::contracts(&original);
    let unit = Unit::with_contract(decls, entry, settings, &args.contract, &acsl)?;
    let text = unit.program_text(&original);
    let scratch = tempfile::tempdir().context("cannot make a scratch directory")?;
    let scratch_file = scratch.path().join(harness_file_name(program));
    std::fs::write(&scratch_file, &text).with_context(|| format!("cannot write {}", scratch_file.display()))?;
    let notes = unit.contract.notes.iter().map(|n| format!("walkdown: note: {n}")).collect();
    Ok(Prepared { unit, original: program.to_path_buf(), text, scratch_file, notes, _scratch: scratch })
}

/// How a test's interpreter run ends, for the test file and the report
/// (locations name the original file: the harness program keeps its lines).
pub fn expected_outcome(program: &Program, prepared: &Prepared, test: &walkdown_campaign::KeptTest) -> String {
    match &test.error {
        Some(e) => format!("{} at {}:{}:{}", e.kind, prepared.original.display(), e.loc.line, e.loc.col),
        None => match test.outcome {
            walkdown_interp::Outcome::Exit(0) => "returns".into(),
            _ => crate::report::describe_outcome(program, &test.outcome),
        },
    }
}

/// The lazy slots a test's run decides, in order, and the clauses of the
/// contract it breaks: the interpreter replays it on the instrumented unit
/// program and the harness prints each decision and each broken clause
/// (see `walkdown_unit::harness`).
pub fn replay_marks(
    interp: &walkdown_interp::Interpreter,
    values: &[walkdown_ir::testvec::InputValue],
) -> (Vec<usize>, Vec<usize>) {
    let vector = walkdown_ir::testvec::TestVector { values: values.to_vec() };
    let (_, output) = interp.run_with_output(&vector, &walkdown_interp::RunOptions::default());
    (walkdown_unit::shape::decisions(&output), walkdown_unit::shape::broken_clauses(&output))
}

/// Writes `OUT/unit_tests.c` and adds the unit to the report.
pub fn finish(
    prepared: &Prepared,
    out: &Path,
    snap: &Snapshot,
    program: &Program,
    goals: &walkdown_ir::goals::Goals,
    report: &mut Report,
) -> Result<()> {
    let include = std::fs::canonicalize(&prepared.original).unwrap_or_else(|_| prepared.original.clone());
    let interp =
        walkdown_interp::Interpreter::new(program, goals).context("cannot prepare the unit program for its replays")?;
    let mut tests = Vec::new();
    let mut entries = Vec::new();
    // Tests kept for a goal of the harness alone (an out-of-range choice
    // read as null) may build a shape an earlier test built, with the same
    // outcome: the test file has each (shape, outcome) once.
    let mut seen: std::collections::HashMap<(String, String), String> = std::collections::HashMap::new();
    // With preconditions assumed, a run whose inputs break one ends in
    // the harness before the call (it was kept for the goals of library
    // functions the precondition calls): no test of the entry.
    let preconditions = prepared.unit.assumes()
        && prepared
            .unit
            .contract
            .clauses
            .iter()
            .any(|c| matches!(c.kind, walkdown_unit::contract::ClauseKind::Requires(_)));
    for t in &snap.tests {
        let name = format!("test_{:05}", t.index);
        let expected = expected_outcome(program, prepared, t);
        let not_called = preconditions && t.outcome == walkdown_interp::Outcome::AssumeFailed;
        let (decided, broken) = replay_marks(&interp, &t.vector.values);
        let broken: Vec<String> =
            broken.iter().filter_map(|&k| prepared.unit.contract.clauses.get(k)).map(|c| c.words.clone()).collect();
        let shape = walkdown_unit::Shape::decode(&prepared.unit, &t.vector.values, &decided).describe(&prepared.unit);
        let function = match seen.get(&(shape.clone(), expected.clone())) {
            _ if not_called => String::new(),
            Some(first) => first.clone(),
            None => {
                seen.insert((shape.clone(), expected.clone()), name.clone());
                tests.push(UnitTest {
                    name: name.clone(),
                    values: t.vector.values.clone(),
                    decided,
                    expected: expected.clone(),
                });
                name
            }
        };
        entries.push(UnitTestEntry {
            file: crate::report::test_file_name(t.index),
            function,
            shape,
            outcome: expected,
            broken,
        });
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
        contract_mode: match prepared.unit.contract.mode {
            ContractMode::Assume => "assume".into(),
            ContractMode::Report => "report".into(),
        },
        contract: prepared.unit.contract.describe(),
        tests: entries,
    });
    Ok(())
}

/// Whether `name` is a function of the harness or of walkdown's runtime
/// rather than of the code under test.
fn not_the_units(f: &walkdown_ir::FuncData) -> bool {
    walkdown_unit::lazy::is_harness(&f.name) || walkdown_ir::goals::is_foreign_code(f)
}

/// The defined functions `entry` may call, itself first; an indirect call
/// may reach every function of the unit whose address is taken.
pub fn reached_functions(program: &Program, entry: &str) -> Vec<String> {
    use walkdown_ir::inst::{Callee, InstKind};
    let Some(start) = program.func_by_name(entry) else {
        return Vec::new();
    };
    let taken = address_taken(program);
    let mut seen = vec![start];
    let mut work = vec![start];
    while let Some(f) = work.pop() {
        let Some(body) = &program.funcs[f].body else {
            continue;
        };
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
                    for &g in &taken {
                        if !seen.contains(&g) {
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

/// The defined functions of the unit whose address the unit's code or a
/// global's initial contents take (the harness's stubs are not the
/// unit's).
fn address_taken(program: &Program) -> Vec<walkdown_ir::FuncId> {
    use walkdown_ir::{Operand, RelocTarget};
    let mut taken = Vec::new();
    let mut note = |o: &Operand| {
        if let Operand::Func(g) = o {
            if !taken.contains(g) {
                taken.push(*g);
            }
        }
    };
    for f in program.funcs.values().filter(|f| !not_the_units(f)) {
        let Some(body) = &f.body else { continue };
        for (_, inst) in body.insts.iter() {
            inst.kind.for_each_operand(&mut note);
        }
        for b in body.blocks.values() {
            match &b.term {
                walkdown_ir::Terminator::Branch { cond: o, .. }
                | walkdown_ir::Terminator::Switch { value: o, .. }
                | walkdown_ir::Terminator::Return(Some(o)) => note(o),
                _ => {}
            }
            b.term.successors().flat_map(|d| d.args.iter()).for_each(&mut note);
        }
    }
    for g in program.globals.values() {
        for r in &g.relocs {
            if let RelocTarget::Func(f) = r.target {
                note(&Operand::Func(f));
            }
        }
    }
    taken.retain(|&g| program.funcs[g].body.is_some() && !not_the_units(&program.funcs[g]));
    taken
}
