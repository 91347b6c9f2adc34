//! One translation unit to textual IR, as one C file has always been
//! compiled: a copy without preprocessor line markers (so locations are
//! physical lines), clang-14 at `-O0 -g`, opt-14's mem2reg. With a cache
//! directory the result is kept there and reused while the unit, its
//! flags and every header it includes are unchanged (as ccache's direct
//! mode decides, from clang's own list of the headers).

use super::symbols::Symbols;
use crate::error::FrontendError;
use crate::toolchain::{blank_line_markers, shorten_tool_output, FrontendSettings};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdown_ir::units::Unit;
use walkdown_ir::DataModel;

/// A unit compiled to textual IR.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    /// The module's textual IR.
    pub ll: PathBuf,
    /// What it defines and needs.
    pub symbols: Symbols,
    /// How the module's debug information names the unit's own file
    /// (`directory/file`), by which locations find the unit.
    pub debug_name: String,
}

/// The flags clang-14 compiles every unit with, before the settings' and
/// the unit's own (which come later and so win: a unit's `-std=c99`
/// replaces `-std=gnu11`).
fn base_flags(dm: DataModel) -> Vec<String> {
    let arch = match dm {
        DataModel::LP64 => "-m64",
        DataModel::ILP32 => "-m32",
    };
    [
        "-c",
        "-emit-llvm",
        "-g",
        "-O0",
        "-Xclang",
        "-disable-O0-optnone",
        "-w",
        "-std=gnu11",
        "-fno-builtin",
        "-ffp-contract=off",
        arch,
        // Bit-fields through storage units of legal widths where the
        // layout allows it: otherwise clang reads a run of bit-fields as
        // one integer of up to the run's size (`i96` for 96 bits of fields
        // in ILP32), wider than the IR's integers.
        "-Xclang",
        "-ffine-grained-bitfield-accesses",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Compiles `unit` (the `index`-th of the program) in `work_dir`, or takes
/// it from `cache`.
pub(crate) fn compile_unit(
    unit: &Unit,
    index: usize,
    settings: &FrontendSettings,
    work_dir: &Path,
    cache: Option<&Path>,
) -> Result<Compiled, FrontendError> {
    let copy = copy_unit(unit, &work_dir.join(format!("unit{index}")))?;
    // The debug information names the unit's directory by the unit and its
    // flags, not by the work directory: so a cached module names it the
    // same way in every run.
    let id = hash_hex(&[unit.path.as_os_str().as_encoded_bytes(), &unit.flags.concat().into_bytes()]);
    let debug_dir = format!("/walkdown/{id}");
    let args = clang_args(unit, settings, &debug_dir);
    let key = cache.map(|_| {
        let tools = format!("{}\0{}\0{}", settings.clang.display(), settings.opt.display(), copy.file_name);
        hash_hex(&[tools.as_bytes(), args.join("\0").as_bytes(), &copy.text])
    });
    let ll = match cache.zip(key.as_deref()) {
        Some((c, k)) => match lookup(c, k) {
            Some(ll) => ll,
            None => {
                let ll = compile_copy(unit, &copy, &args, settings, true)?;
                // A cache that cannot be written costs only the next run's time.
                let _ = store(c, k, &ll, &copy.dir.join("unit.d"), &copy.file_name);
                ll
            }
        },
        None => compile_copy(unit, &copy, &args, settings, false)?,
    };
    let ir = std::fs::read_to_string(&ll).map_err(|e| FrontendError::Io { path: ll.clone(), source: e })?;
    Ok(Compiled { ll, symbols: Symbols::of_module(&ir), debug_name: format!("{debug_dir}/{}", copy.file_name) })
}

/// A unit's copy, as clang compiles it.
struct Copy {
    /// The directory of its own it is in.
    dir: PathBuf,
    /// Its name there.
    file_name: String,
    /// Its text (the unit's without preprocessor line markers).
    text: Vec<u8>,
}

/// Checks `unit`'s file and copies it into `dir` without line markers.
fn copy_unit(unit: &Unit, dir: &Path) -> Result<Copy, FrontendError> {
    let source = unit.path.as_path();
    if !source.extension().is_some_and(|e| e == "c" || e == "i") {
        return Err(FrontendError::NotCSource { path: source.into() });
    }
    let text = std::fs::read(source).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => FrontendError::MissingUnit { path: source.into() },
        _ => FrontendError::Io { path: source.into(), source: e },
    })?;
    if let Some(offset) = text.iter().position(|&b| b == 0) {
        return Err(FrontendError::Binary { path: source.into(), offset });
    }
    // The copy clang compiles has a UTF-8 name: clang records it in the
    // debug info, and the llvm-ir crate panics on a file name there that is
    // not UTF-8. Each unit's copy has a directory of its own, so units of
    // the same name in different directories stay apart.
    let file_name = match source.file_name() {
        Some(name) => name.to_string_lossy().into_owned(),
        None => "input.c".into(),
    };
    std::fs::create_dir_all(dir).map_err(|e| FrontendError::Io { path: dir.into(), source: e })?;
    let text = blank_line_markers(&text);
    let path = dir.join(&file_name);
    std::fs::write(&path, &text).map_err(|e| FrontendError::Io { path: path.clone(), source: e })?;
    Ok(Copy { dir: dir.into(), file_name, text })
}

/// clang's flags for `unit`, whose copy's debug information names the
/// directory `debug_dir`.
fn clang_args(unit: &Unit, settings: &FrontendSettings, debug_dir: &str) -> Vec<String> {
    let mut args = base_flags(settings.data_model);
    args.extend(settings.extra_flags.iter().cloned());
    args.extend(unit.flags.iter().cloned());
    // Quoted includes are looked for beside the original file, where its
    // headers are, not only beside the copy.
    if let Some(parent) = std::fs::canonicalize(&unit.path).ok().and_then(|p| p.parent().map(Path::to_path_buf)) {
        args.push("-iquote".into());
        args.push(parent.display().to_string());
    }
    args.push(format!("-fdebug-compilation-dir={debug_dir}"));
    args
}

/// clang-14 and opt-14's mem2reg on the copy (listing the headers it
/// includes in `unit.d` when `list_headers`); the module's textual IR.
fn compile_copy(
    unit: &Unit,
    copy: &Copy,
    args: &[String],
    settings: &FrontendSettings,
    list_headers: bool,
) -> Result<PathBuf, FrontendError> {
    let mut clang = Command::new(&settings.clang);
    clang.current_dir(&copy.dir).args(args);
    if list_headers {
        clang.args(["-MD", "-MF", "unit.d"]);
    }
    clang.arg(&copy.file_name).args(["-o", "raw.bc"]);
    run_clang(clang, settings, &unit.path, &copy.file_name)?;
    let ll = copy.dir.join("unit.ll");
    let mut opt = Command::new(&settings.opt);
    opt.current_dir(&copy.dir).args(["-passes=mem2reg", "-S", "raw.bc", "-o"]).arg(&ll);
    crate::toolchain::run(opt, &settings.opt, &unit.path)?;
    Ok(ll)
}

/// Runs clang on a unit; its messages name the copy (`other.c:3:5:
/// error: ...`), and are rewritten to name the unit as given.
fn run_clang(
    mut cmd: Command,
    settings: &FrontendSettings,
    source: &Path,
    file_name: &str,
) -> Result<(), FrontendError> {
    let tool = settings.clang.display().to_string();
    let out = cmd.output().map_err(|e| FrontendError::ToolMissing { tool: tool.clone(), source: e })?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let shown = source.display().to_string();
    let renamed: String = said
        .split_inclusive('\n')
        .map(|line| match line.strip_prefix(&format!("{file_name}:")) {
            Some(rest) => format!("{shown}:{rest}"),
            None => line.replace(&format!("from {file_name}:"), &format!("from {shown}:")),
        })
        .collect();
    Err(FrontendError::Compile { tool, file: source.into(), stderr: shorten_tool_output(renamed.as_bytes()) })
}

/// 128 bits of hash of `parts` (two SipHash runs of the standard
/// library's fixed key), as hexadecimal: names in the cache, where a
/// collision would reuse the wrong module.
fn hash_hex(parts: &[&[u8]]) -> String {
    let mut out = String::new();
    for seed in [0u8, 1] {
        let mut h = std::hash::DefaultHasher::new();
        seed.hash(&mut h);
        for p in parts {
            p.hash(&mut h);
        }
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// The cached module of `key`, if every header it was compiled from is
/// still as it was.
fn lookup(cache: &Path, key: &str) -> Option<PathBuf> {
    let ll = cache.join(format!("{key}.ll"));
    let deps = std::fs::read_to_string(cache.join(format!("{key}.deps"))).ok()?;
    for line in deps.lines() {
        let (hash, path) = line.split_once('\t')?;
        let now = std::fs::read(path).ok()?;
        if hash_hex(&[&now]) != hash {
            return None;
        }
    }
    ll.is_file().then_some(ll)
}

/// Keeps the module `ll` under `key`, with the headers clang listed in
/// `deps` (a make rule) and their hashes. Written under temporary names
/// and renamed, the module first: a run that reads the cache meanwhile
/// sees a whole entry or none.
fn store(cache: &Path, key: &str, ll: &Path, deps: &Path, file_name: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(cache)?;
    let rule = std::fs::read_to_string(deps)?;
    let mut listed = String::new();
    for header in make_rule_inputs(&rule).into_iter().filter(|h| h != file_name && Path::new(h).is_absolute()) {
        let bytes = std::fs::read(&header)?;
        listed.push_str(&format!("{}\t{header}\n", hash_hex(&[&bytes])));
    }
    let pid = std::process::id();
    let tmp_ll = cache.join(format!("{key}.ll.{pid}.tmp"));
    std::fs::copy(ll, &tmp_ll)?;
    std::fs::rename(&tmp_ll, cache.join(format!("{key}.ll")))?;
    let tmp_deps = cache.join(format!("{key}.deps.{pid}.tmp"));
    std::fs::write(&tmp_deps, listed)?;
    std::fs::rename(&tmp_deps, cache.join(format!("{key}.deps")))
}

/// The inputs of a make rule as clang's `-MD` writes it (`raw.bc: a.c
/// /usr/include/stdio.h \` with `\ ` for a space in a name).
fn make_rule_inputs(rule: &str) -> Vec<String> {
    let body = rule.split_once(": ").map_or(rule, |(_, b)| b);
    let mut inputs = Vec::new();
    let mut word = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                word.push(' ');
                chars.next();
            }
            '\\' if matches!(chars.peek(), Some('\n') | Some('\r')) => {}
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    inputs.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        inputs.push(word);
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_rules_are_split_into_their_inputs() {
        let rule = "raw.bc: a.c /usr/include/stdio.h \\\n  /home/me/my\\ dir/x.h\n";
        assert_eq!(make_rule_inputs(rule), ["a.c", "/usr/include/stdio.h", "/home/me/my dir/x.h"]);
    }

    #[test]
    fn hashes_are_stable_and_tell_parts_apart() {
        assert_eq!(hash_hex(&[b"ab", b"c"]), hash_hex(&[b"ab", b"c"]));
        assert_ne!(hash_hex(&[b"ab", b"c"]), hash_hex(&[b"a", b"bc"]));
        assert_eq!(hash_hex(&[b"x"]).len(), 32);
    }
}
