//! A program of several translation units, compiled and linked into one
//! module before the C library is linked and the module lowered.
//!
//! Each unit is compiled on its own ([`compile`]), as one C file always
//! was. Which units the program is made of is decided from what each
//! defines and needs ([`symbols`]), before anything is linked:
//!
//! - units named on the command line are linked whole, as `cc a.c b.c`
//!   links them; exactly one may define `main`, unless `--target` picks
//!   one, and then units that define another `main` are left out;
//! - units of a project's build database are a static library around the
//!   entry unit (the one `--target` names, or the one unit that defines
//!   `main`): the entry is linked whole, another unit only when it defines
//!   something the program needs, and of it only what is needed
//!   (`llvm-link-14 --only-needed`). A unit is compiled only when its text
//!   names a symbol the program still needs (or, to find the entry,
//!   names `main`), so a tool of a project with hundreds of units
//!   compiles the units it uses and those that merely mention their
//!   names. Names the C library or walkdown's models define (`printf`,
//!   `__VERIFIER_nondet_int`) are not looked for in the units: the
//!   library's function or the model is the one used (see `libc.rs`).
//!
//! Two units that both define a function or variable that is not `static`
//! are an error naming both, as the native linker's would be; `static`
//! functions of the same name stay distinct (llvm-link renames the later
//! ones, and the lowered program names each after its file, see
//! [`readable_static_names`]).

mod compile;
mod symbols;

use crate::error::FrontendError;
use crate::toolchain::FrontendSettings;
use compile::{compile_unit, Compiled};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_ir::units::{Linkage, Sources, Unit};
use walkdown_ir::Program;

/// The program's units linked into one module.
#[derive(Clone, Debug)]
pub(crate) struct LinkedUnits {
    /// The linked module's textual IR.
    pub ll: PathBuf,
    /// The units used, in the order of the program's file table: file
    /// `k` is unit `k` (the first given, or the entry of a build database,
    /// first).
    pub units: Vec<Unit>,
    /// How the module's debug information names each used unit's file.
    pub debug_names: Vec<String>,
    /// Each used unit's `static` functions, by their names in C.
    pub local_functions: Vec<BTreeSet<String>>,
}

/// Compiles the units of `sources` in `work_dir` (taking what `cache`
/// holds) and links those the program uses into one module.
pub(crate) fn link_units(
    sources: &Sources,
    settings: &FrontendSettings,
    work_dir: &Path,
    cache: Option<&Path>,
) -> Result<LinkedUnits, FrontendError> {
    if sources.units.is_empty() {
        return Err(FrontendError::NoUnits);
    }
    let mut units = Units { sources, settings, work_dir, cache, compiled: BTreeMap::new(), names: BTreeMap::new() };
    let choice = choose(&mut units)?;
    let compiled = |k: usize| units.compiled[&k].clone();
    check_duplicates(sources, &choice.whole, &compiled)?;
    check_duplicates(sources, &choice.needed, &compiled)?;
    let whole: Vec<PathBuf> = choice.whole.iter().map(|&k| compiled(k).ll).collect();
    let mut ll = link(&whole, None, settings, work_dir, "program.ll", sources)?;
    if !choice.needed.is_empty() {
        let needed: Vec<PathBuf> = choice.needed.iter().map(|&k| compiled(k).ll).collect();
        let library = link(&needed, None, settings, work_dir, "needed.ll", sources)?;
        ll = link(&[ll], Some(&library), settings, work_dir, "units.ll", sources)?;
    }
    let used: Vec<usize> = choice.whole.iter().chain(&choice.needed).copied().collect();
    Ok(LinkedUnits {
        ll,
        units: used.iter().map(|&k| sources.units[k].clone()).collect(),
        debug_names: used.iter().map(|&k| compiled(k).debug_name).collect(),
        local_functions: used.iter().map(|&k| compiled(k).symbols.local_functions).collect(),
    })
}

/// Which units are linked: `whole` (the first the program's file 0) and
/// `needed` (from a build database, linked only as needed), by index.
struct Choice {
    whole: Vec<usize>,
    needed: Vec<usize>,
}

/// The units of one program, compiled when first asked for.
struct Units<'a> {
    sources: &'a Sources,
    settings: &'a FrontendSettings,
    work_dir: &'a Path,
    cache: Option<&'a Path>,
    compiled: BTreeMap<usize, Compiled>,
    /// The identifiers of each unit's text read so far.
    names: BTreeMap<usize, BTreeSet<String>>,
}

impl Units<'_> {
    fn compile(&mut self, k: usize) -> Result<&Compiled, FrontendError> {
        if !self.compiled.contains_key(&k) {
            let c = compile_unit(&self.sources.units[k], k, self.settings, self.work_dir, self.cache)?;
            self.compiled.insert(k, c);
        }
        Ok(&self.compiled[&k])
    }

    fn defines_main(&mut self, k: usize) -> Result<bool, FrontendError> {
        Ok(self.compile(k)?.symbols.defines_main())
    }

    /// Whether unit `k`'s text, or a header it includes with quotes from
    /// beside itself, names `name`. The headers count because a unit may
    /// be nothing but a header's inline functions made external (gnulib's
    /// `c-ctype.c` is `#define C_CTYPE_INLINE _GL_EXTERN_INLINE` and
    /// `#include "c-ctype.h"`): its own text never names `c_tolower`.
    fn mentions(&mut self, k: usize, name: &str) -> Result<bool, FrontendError> {
        if !self.names.contains_key(&k) {
            let path = &self.sources.units[k].path;
            let text = std::fs::read(path).map_err(|e| FrontendError::Io { path: path.clone(), source: e })?;
            let mut names = symbols::identifiers(&text);
            let mut seen = BTreeSet::new();
            local_header_names(path, &text, HEADER_DEPTH, &mut seen, &mut names);
            self.names.insert(k, names);
        }
        Ok(self.names[&k].contains(name))
    }

    fn paths(&self, ks: &[usize]) -> Vec<PathBuf> {
        ks.iter().map(|&k| self.sources.units[k].path.clone()).collect()
    }
}

/// How deep [`Units::mentions`] follows quoted includes: deep enough for
/// a unit that includes a `.c` file that includes its header (gnulib's
/// `xstrtold.c`), shallow enough that a project's header web is not read
/// for every unit.
const HEADER_DEPTH: u32 = 3;

/// Adds to `names` the identifiers of the headers `text` (the file at
/// `path`) includes as `#include "name"` and that exist beside it, and of
/// theirs, `depth` levels down; `seen` stops cycles and repeats. A header
/// that is not beside its includer (found through `-I`) is not read: this
/// is a filter before compiling, and a miss costs a definition only when
/// a unit's whole content comes from such a header.
fn local_header_names(
    path: &Path,
    text: &[u8],
    depth: u32,
    seen: &mut BTreeSet<PathBuf>,
    names: &mut BTreeSet<String>,
) {
    if depth == 0 {
        return;
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    for header in symbols::quoted_includes(text) {
        let file = dir.join(&header);
        if !seen.insert(file.clone()) {
            continue;
        }
        let Ok(included) = std::fs::read(&file) else { continue };
        names.extend(symbols::identifiers(&included));
        local_header_names(&file, &included, depth - 1, seen, names);
    }
}

/// Decides which units the program is made of (see the module doc).
fn choose(u: &mut Units<'_>) -> Result<Choice, FrontendError> {
    let n = u.sources.units.len();
    for unit in &u.sources.units {
        if !unit.path.exists() {
            return Err(FrontendError::MissingUnit { path: unit.path.clone() });
        }
    }
    if n == 1 && u.sources.target.is_none() {
        // One file is lowered as it always was, `main` or not (a file
        // without one still has goals to list).
        u.compile(0)?;
        return Ok(Choice { whole: vec![0], needed: Vec::new() });
    }
    let entry = match &u.sources.target {
        Some(target) => {
            let k = find_target(u.sources, target)?;
            if !u.defines_main(k)? {
                return Err(FrontendError::Target {
                    target: target.clone(),
                    problem: format!("{} does not define main", u.sources.units[k].path.display()),
                });
            }
            k
        }
        None => the_main_unit(u)?,
    };
    match u.sources.others {
        Linkage::Whole => {
            let mut whole = Vec::new();
            for k in 0..n {
                if k == entry || !u.defines_main(k)? {
                    whole.push(k);
                }
            }
            Ok(Choice { whole, needed: Vec::new() })
        }
        Linkage::AsNeeded => {
            let mut needed = needed_units(u, entry)?;
            needed.sort_unstable();
            Ok(Choice { whole: vec![entry], needed })
        }
    }
}

/// The one unit that defines `main`, looked for among all units (linked
/// whole) or among those whose text names `main` (a build database).
fn the_main_unit(u: &mut Units<'_>) -> Result<usize, FrontendError> {
    let mut mains = Vec::new();
    for k in 0..u.sources.units.len() {
        let candidate = u.sources.others == Linkage::Whole || u.mentions(k, "main")?;
        if candidate && u.defines_main(k)? {
            mains.push(k);
        }
    }
    match mains[..] {
        [k] => Ok(k),
        [] => Err(FrontendError::NoMain { units: u.paths(&(0..u.sources.units.len()).collect::<Vec<_>>()) }),
        _ => Err(FrontendError::SeveralMains { units: u.paths(&mains) }),
    }
}

/// The units (other than `entry`) that define what the program needs,
/// transitively: for each needed name, the first unit in the list that
/// names it in its text, defines it and does not define another `main`.
fn needed_units(u: &mut Units<'_>, entry: usize) -> Result<Vec<usize>, FrontendError> {
    let library: BTreeSet<&str> = crate::libc::library_functions(u.settings.data_model).collect();
    let first = u.compile(entry)?.symbols.clone();
    let mut defined: BTreeSet<String> = first.strong.union(&first.weak).cloned().collect();
    let mut queue: VecDeque<String> = first.undefined.iter().cloned().collect();
    let mut seen: BTreeSet<String> = first.undefined.clone();
    let mut chosen = Vec::new();
    while let Some(name) = queue.pop_front() {
        // What the C library or walkdown's models define (the test's
        // inputs, `__VERIFIER_nondet_int`) is not looked for.
        if defined.contains(&name)
            || library.contains(name.as_str())
            || walkdown_ir::Builtin::from_name(&name).is_some()
            || name.starts_with("__VERIFIER_")
        {
            continue;
        }
        let Some(k) = provider(u, &name, entry, &chosen)? else { continue };
        chosen.push(k);
        let s = u.compile(k)?.symbols.clone();
        defined.extend(s.strong.iter().chain(&s.weak).cloned());
        for next in s.undefined {
            if seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    Ok(chosen)
}

/// The unit that provides `name` to the program, if any.
fn provider(u: &mut Units<'_>, name: &str, entry: usize, chosen: &[usize]) -> Result<Option<usize>, FrontendError> {
    for k in 0..u.sources.units.len() {
        if k == entry || chosen.contains(&k) || !u.mentions(k, name)? {
            continue;
        }
        let s = &u.compile(k)?.symbols;
        if s.defines(name) && !s.defines_main() {
            return Ok(Some(k));
        }
    }
    Ok(None)
}

/// The unit `target` names: the same file, or else the one unit whose
/// path ends in it.
fn find_target(sources: &Sources, target: &Path) -> Result<usize, FrontendError> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let wanted = canonical(target);
    let same: Vec<usize> = (0..sources.units.len())
        .filter(|&k| {
            let path = &sources.units[k].path;
            path == target || (wanted.is_some() && canonical(path) == wanted)
        })
        .collect();
    if let Some(&k) = same.first() {
        return Ok(k);
    }
    let ending: Vec<usize> = (0..sources.units.len()).filter(|&k| sources.units[k].path.ends_with(target)).collect();
    match ending[..] {
        [k] => Ok(k),
        [] => Err(FrontendError::Target { target: target.into(), problem: "names no unit of the program".into() }),
        _ => Err(FrontendError::Target {
            target: target.into(),
            problem: format!(
                "names several units ({}); give more of the path",
                ending.iter().map(|&k| sources.units[k].path.display().to_string()).collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}

/// Refuses two of `ks` that define the same symbol strongly.
fn check_duplicates(
    sources: &Sources,
    ks: &[usize],
    compiled: &dyn Fn(usize) -> Compiled,
) -> Result<(), FrontendError> {
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for &k in ks {
        for name in compiled(k).symbols.strong {
            if let Some(&first) = owner.get(&name) {
                return Err(FrontendError::DuplicateDefinition {
                    symbol: name,
                    first: sources.units[first].path.clone(),
                    second: sources.units[k].path.clone(),
                });
            }
            owner.insert(name, k);
        }
    }
    Ok(())
}

/// `llvm-link-14 -S` of `modules` (then `--only-needed` of `library`)
/// into `work_dir/name`; one module without a library is itself.
fn link(
    modules: &[PathBuf],
    library: Option<&Path>,
    settings: &FrontendSettings,
    work_dir: &Path,
    name: &str,
    sources: &Sources,
) -> Result<PathBuf, FrontendError> {
    if let ([one], None) = (modules, library) {
        return Ok(one.clone());
    }
    let out = work_dir.join(name);
    let mut cmd = Command::new(&settings.llvm_link);
    cmd.arg("-S").args(modules);
    if let Some(library) = library {
        cmd.arg("--only-needed").arg(library);
    }
    cmd.arg("-o").arg(&out);
    let first = sources.units.first().map_or_else(PathBuf::new, |u| u.path.clone());
    crate::toolchain::run(cmd, &settings.llvm_link, &first)?;
    Ok(out)
}

/// Names each `static` function that shares its C name with another
/// function of the program after its file (`helper@other.c`), so that
/// goals and reports say which one they mean; llvm-link has kept the
/// first one's name and given the others a number (`helper.3`).
pub(crate) fn readable_static_names(program: &mut Program, local_functions: &[BTreeSet<String>]) {
    let c_name = |name: &str| -> String {
        match name.rsplit_once('.') {
            Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base.to_string(),
            _ => name.to_string(),
        }
    };
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for (_, f) in program.funcs.iter() {
        if f.body.is_some() && !walkdown_ir::goals::is_foreign_code(f) {
            *count.entry(c_name(&f.name)).or_default() += 1;
        }
    }
    let mut renames = Vec::new();
    for (id, f) in program.funcs.iter() {
        if f.body.is_none() || walkdown_ir::goals::is_foreign_code(f) {
            continue;
        }
        let base = c_name(&f.name);
        let file = f.loc.file.as_u32() as usize;
        let is_static = local_functions.get(file).is_some_and(|locals| locals.contains(&base));
        if is_static && count[&base] > 1 {
            renames.push((id, format!("{base}@{}", program.files[f.loc.file])));
        }
    }
    for (id, name) in renames {
        program.funcs[id].name = name;
    }
}
