//! Lowering a whole LLVM module: symbols, globals and their initial
//! contents, then each defined function.

use crate::error::FrontendError;
use crate::layout::Layout;
use llvm_ir::{DebugLoc, Module};
use std::collections::HashMap;
use walkdown_ir::{DataModel, FileId, FuncData, FuncId, GlobalData, GlobalId, Loc, Program, Type};

/// A module-level symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sym {
    /// A global variable.
    Global(GlobalId),
    /// A function.
    Func(FuncId),
}

/// State shared by the lowering of all functions of a module.
pub struct ModuleCx<'m> {
    pub module: &'m Module,
    pub layout: Layout<'m>,
    pub program: Program,
    pub syms: HashMap<String, Sym>,
    /// Functions whose signature cannot be expressed, with the reason; an
    /// error only if the program calls them.
    pub bad_signatures: HashMap<String, String>,
    /// The file of each debug file name, by directory (no allocation to
    /// look one up: this runs for every instruction).
    files: HashMap<String, HashMap<String, FileId>>,
    /// The program's files by their full names (`directory/file`): the
    /// units' first (file `k` is the `k`-th unit), headers as met.
    unit_files: HashMap<String, FileId>,
    main_file_basename: String,
    /// The true element counts of globals whose outermost type is an array
    /// of 2^32 elements or more (see [`huge_global_arrays`]).
    huge_arrays: HashMap<String, u64>,
    /// The debug facts of the module's text, when it was read from text.
    pub(crate) debug: Option<crate::debuginfo::DebugText>,
    /// The source loops found so far.
    pub(crate) sources: walkdown_ir::source::SourceInfo,
    /// The whole values of the integer constants wider than 64 bits.
    pub(crate) wide_consts: crate::wideconst::WideConsts,
    /// The values of the `long double` constants.
    pub(crate) f80_consts: crate::f80const::F80Consts,
}

/// Lowers `module`, compiled for data model `dm` from the file called
/// `source_name` (which becomes file 0 of the program).
pub fn lower_module(module: &Module, dm: DataModel, source_name: &str) -> Result<Program, FrontendError> {
    let files = [UnitFile { debug_name: String::new(), shown: source_name.to_string() }];
    lower_module_with_sources(module, dm, &files, HashMap::new(), None).map(|(p, _)| p)
}

/// A file of the program's own, as the debug information names it
/// (`directory/file`) and as locations name it.
pub(crate) struct UnitFile {
    /// The name in the debug information (empty: matched by its base name).
    pub debug_name: String,
    /// The name locations give it.
    pub shown: String,
}

/// [`lower_module`] of a module linked from the units `files` (file `k`
/// of the program is `files[k]`), with the element counts of huge global
/// arrays that the bitcode reader cut (see [`huge_global_arrays`]), also
/// reading the source loops from the debug facts of the module's text
/// (`ll_text`).
pub(crate) fn lower_module_with_sources(
    module: &Module,
    dm: DataModel,
    files: &[UnitFile],
    huge_arrays: HashMap<String, u64>,
    ll_text: Option<&str>,
) -> Result<(Program, walkdown_ir::source::SourceInfo), FrontendError> {
    let mut program = Program::new(dm);
    let mut unit_files = HashMap::new();
    for f in files {
        let id = program.files.push(f.shown.clone());
        if !f.debug_name.is_empty() {
            unit_files.insert(f.debug_name.clone(), id);
        }
    }
    // A lone file is also known by its base name (the name clang gave it).
    let main_file_basename = match files {
        [only] => std::path::Path::new(&only.shown).file_name().map(|s| s.to_string_lossy().into_owned()),
        _ => None,
    }
    .unwrap_or_default();
    let mut cx = ModuleCx {
        module,
        layout: Layout { dm, types: &module.types },
        program,
        syms: HashMap::new(),
        bad_signatures: HashMap::new(),
        files: HashMap::new(),
        unit_files,
        main_file_basename,
        huge_arrays,
        debug: ll_text.map(crate::debuginfo::parse),
        sources: Default::default(),
        wide_consts: ll_text.map(crate::wideconst::WideConsts::parse).unwrap_or_default(),
        f80_consts: ll_text.map(|t| crate::f80const::F80Consts::build(module, t)).unwrap_or_default(),
    };
    cx.declare_symbols()?;
    for gv in &module.global_vars {
        cx.lower_initializer(gv)?;
    }
    for f in &module.functions {
        crate::func::lower_function(&mut cx, f)?;
    }
    walkdown_ir::verify::verify_program(&cx.program).map_err(FrontendError::Verify)?;
    Ok((cx.program, cx.sources))
}

impl<'m> ModuleCx<'m> {
    /// The IR location of an LLVM debug location.
    pub fn loc(&mut self, dl: &Option<DebugLoc>) -> Loc {
        let Some(dl) = dl else { return Loc::UNKNOWN };
        if dl.line == 0 {
            return Loc::UNKNOWN;
        }
        let file = self.file_id(&dl.filename, dl.directory.as_deref());
        Loc { file, line: dl.line, col: dl.col.unwrap_or(0) }
    }

    /// The program's file of a debug location's `name` in `directory`:
    /// a unit's, or a header's (added as first met, named as clang names it).
    fn file_id(&mut self, name: &str, directory: Option<&str>) -> FileId {
        let dir = directory.unwrap_or("");
        if let Some(&f) = self.files.get(dir).and_then(|names| names.get(name)) {
            return f;
        }
        let full = match directory {
            Some(d) if !name.starts_with('/') => format!("{d}/{name}"),
            _ => name.to_string(),
        };
        let base = std::path::Path::new(name).file_name().map(|s| s.to_string_lossy().into_owned());
        let id = if let Some(&known) = self.unit_files.get(&full) {
            known
        } else if !self.main_file_basename.is_empty() && base.as_deref() == Some(self.main_file_basename.as_str()) {
            FileId::from_u32(0)
        } else {
            let id = self.program.files.push(name.to_string());
            self.unit_files.insert(full, id);
            id
        };
        self.files.entry(dir.to_string()).or_default().insert(name.to_string(), id);
        id
    }

    /// An unsupported-construct error at `loc`.
    pub fn unsupported(&self, construct: impl Into<String>, loc: Loc) -> FrontendError {
        FrontendError::Unsupported {
            construct: construct.into(),
            file: self.program.file_name(loc).to_string(),
            line: loc.line,
        }
    }

    fn declare_symbols(&mut self) -> Result<(), FrontendError> {
        let m = self.module;
        for gv in &m.global_vars {
            let loc = self.loc(&gv.debugloc);
            let name = name_text(&gv.name);
            let llvm_ir::Type::PointerType { pointee_type, .. } = gv.ty.as_ref() else {
                return Err(self.unsupported(format!("global @{name} of non-pointer type"), loc));
            };
            let mut size =
                self.layout.size_of(pointee_type).map_err(|e| self.unsupported(format!("global @{name}: {e}"), loc))?;
            if let (Some(&n), llvm_ir::Type::ArrayType { element_type, num_elements }) =
                (self.huge_arrays.get(&name), pointee_type.as_ref())
            {
                if n as usize as u64 != n || (n as u32) as usize != *num_elements {
                    return Err(self.unsupported(format!("global @{name}: an array of {n} elements"), loc));
                }
                let elem = self
                    .layout
                    .size_of(element_type)
                    .map_err(|e| self.unsupported(format!("global @{name}: {e}"), loc))?;
                size = n
                    .checked_mul(elem)
                    .ok_or_else(|| self.unsupported(format!("global @{name}: an array of {n} elements"), loc))?;
            }
            let abi = self
                .layout
                .align_of(pointee_type)
                .map_err(|e| self.unsupported(format!("global @{name}: {e}"), loc))?;
            let align = (gv.alignment as u64).max(abi).max(1) as u32;
            let id = self.program.globals.push(GlobalData {
                name: name.clone(),
                size,
                align,
                constant: gv.is_constant,
                init: Vec::new(),
                relocs: Vec::new(),
                loc,
            });
            self.syms.insert(name, Sym::Global(id));
        }
        for f in &m.functions {
            let loc = self.loc(&f.debugloc);
            let mut params = Vec::with_capacity(f.parameters.len());
            for p in &f.parameters {
                params.extend(
                    self.param_types(&p.ty)
                        .map_err(|e| self.unsupported(format!("parameter of @{}: {e}", f.name), loc))?,
                );
            }
            // A struct returned in registers (`{ i64, i64 }`, `{ double,
            // double }`, `<2 x float>`) is an aggregate value, which the IR
            // does not have: the function stores it through a pointer its
            // callers pass in front of the arguments (as the i386 ABI
            // returns every struct) and returns nothing.
            let ret = if crate::func::is_aggregate(&f.return_type) {
                params.insert(0, Type::Ptr);
                None
            } else {
                self.ret_type(&f.return_type)
                    .map_err(|e| self.unsupported(format!("return type of @{}: {e}", f.name), loc))?
            };
            // A variadic function the program defines gets its variable
            // arguments in memory its callers lay out as the ABI's
            // register save and overflow areas, through one more pointer
            // parameter (see `FuncLowerer::pack_varargs`).
            if f.is_var_arg {
                params.push(Type::Ptr);
            }
            let id = self.program.funcs.push(FuncData {
                name: f.name.clone(),
                params,
                ret,
                variadic: false,
                loc,
                body: None,
                builtin: None,
                library: false,
            });
            self.syms.insert(f.name.clone(), Sym::Func(id));
        }
        self.declare_aliases()?;
        for d in &m.func_declarations {
            if d.name.starts_with("llvm.") || self.syms.contains_key(&d.name) {
                continue;
            }
            let params: Result<Vec<Type>, String> = d.parameters.iter().map(|p| self.layout.scalar(&p.ty)).collect();
            let ret = if crate::layout::is_f80(&d.return_type) {
                Err("it returns a long double, and walkdown has no model of it".to_string())
            } else {
                self.ret_type(&d.return_type)
            };
            let (params, ret) = match (params, ret) {
                (Ok(p), Ok(r)) => (p, r),
                (Err(e), _) | (_, Err(e)) => {
                    self.bad_signatures.insert(d.name.clone(), e);
                    (Vec::new(), None)
                }
            };
            let id = self.program.funcs.push(FuncData::external(&d.name, params, ret, d.is_var_arg));
            self.syms.insert(d.name.clone(), Sym::Func(id));
        }
        Ok(())
    }

    /// Aliases (the C library's `weak_alias(strchrnul, __strchrnul)`):
    /// another name of a function or global the module defines, so the
    /// alias's symbol is that function's or global's. An alias of anything
    /// else (an offset into a global) is refused.
    fn declare_aliases(&mut self) -> Result<(), FrontendError> {
        for a in &self.module.global_aliases {
            let name = name_text(&a.name);
            let target = match a.aliasee.as_ref() {
                llvm_ir::Constant::GlobalReference { name, .. } => Some(name_text(name)),
                llvm_ir::Constant::BitCast(c) => match c.operand.as_ref() {
                    llvm_ir::Constant::GlobalReference { name, .. } => Some(name_text(name)),
                    _ => None,
                },
                _ => None,
            };
            match target.and_then(|t| self.syms.get(&t).cloned()) {
                Some(sym) => {
                    self.syms.insert(name, sym);
                }
                None => return Err(self.unsupported(format!("global alias @{name} of an expression"), Loc::UNKNOWN)),
            }
        }
        Ok(())
    }

    /// The IR parameters an LLVM parameter of type `ty` becomes: one of
    /// its type, or the two limbs of a `long double` (see `func/f80.rs`).
    pub fn param_types(&self, ty: &llvm_ir::TypeRef) -> Result<Vec<Type>, String> {
        if crate::layout::is_f80(ty) {
            Ok(vec![Type::I64, Type::I64])
        } else {
            self.layout.scalar(ty).map(|t| vec![t])
        }
    }

    /// The IR return type (`None` for void); a `long double` returns its
    /// significand, its sign and exponent in [`Self::f80_exponent_global`].
    pub fn ret_type(&self, ty: &llvm_ir::TypeRef) -> Result<Option<Type>, String> {
        match ty.as_ref() {
            llvm_ir::Type::VoidType => Ok(None),
            t if crate::layout::is_f80(t) => Ok(Some(Type::I64)),
            t => self.layout.scalar(t).map(Some),
        }
    }

    /// The global through which a function returning a `long double`
    /// (the program's, or the runtime's) hands its caller the sign and
    /// exponent, beside the significand it returns. The caller reads it
    /// right after the call, before anything else can call again. A
    /// global rather than a slot of the caller's: an access to a global at
    /// offset 0 is in bounds by construction, so it is no error goal.
    pub fn f80_exponent_global(&mut self) -> GlobalId {
        const NAME: &str = "__walkdown_f80_exponent";
        if let Some(Sym::Global(g)) = self.syms.get(NAME) {
            return *g;
        }
        let g = self.program.globals.push(GlobalData {
            name: NAME.into(),
            size: 8,
            align: 8,
            constant: false,
            init: Vec::new(),
            relocs: Vec::new(),
            loc: Loc::UNKNOWN,
        });
        self.syms.insert(NAME.into(), Sym::Global(g));
        g
    }

    /// Whether the module defines a variadic function called `name`.
    pub fn defines_variadic(&self, name: &str) -> bool {
        self.module.functions.iter().any(|f| f.name == name && f.is_var_arg)
    }

    /// Whether the module defines any variadic function.
    pub fn defines_any_variadic(&self) -> bool {
        self.module.functions.iter().any(|f| f.is_var_arg)
    }

    /// Whether the module defines a function called `name`.
    pub fn defines(&self, name: &str) -> bool {
        self.module.functions.iter().any(|f| f.name == name)
    }

    fn lower_initializer(&mut self, gv: &llvm_ir::module::GlobalVariable) -> Result<(), FrontendError> {
        let name = name_text(&gv.name);
        let Some(Sym::Global(id)) = self.syms.get(&name).copied() else { return Ok(()) };
        let Some(init) = &gv.initializer else { return Ok(()) };
        let loc = self.program.globals[id].loc;
        let size = self.program.globals[id].size;
        let mut buf = crate::consts::InitBuf { bytes: Vec::new(), size };
        let mut relocs = Vec::new();
        let llvm_ir::Type::PointerType { pointee_type, .. } = gv.ty.as_ref() else { return Ok(()) };
        crate::consts::write_initializer(self, init, pointee_type, &mut buf, 0, &mut relocs)
            .map_err(|e| self.unsupported(format!("initializer of @{name}: {e}"), loc))?;
        let mut bytes = buf.bytes;
        while bytes.last() == Some(&0) {
            bytes.pop();
        }
        let g = &mut self.program.globals[id];
        g.init = bytes;
        g.relocs = relocs;
        Ok(())
    }
}

/// The element counts of the globals of textual IR `text` whose outermost
/// type is an array of 2^32 elements or more, by name.
///
/// The `llvm-ir` crate reads array lengths through LLVM's C API, whose
/// `LLVMGetArrayLength` returns 32 bits: `static char big[(1L << 32) + 16]`
/// would read as 16 bytes, and every in-bounds access past them would be
/// out of bounds. The textual IR has the true count. An array of that size
/// anywhere else (nested in another type, on the stack) cannot be
/// recovered: that is an error naming it. (Instructions that only name the
/// type, such as the `getelementptr` of an element of the global, need no
/// count: C indexes an array with a first index of 0.)
pub fn huge_global_arrays(text: &str) -> Result<HashMap<String, u64>, String> {
    const LIMIT: u64 = 1 << 32;
    let mut found = HashMap::new();
    for line in text.lines() {
        let mut counts = Vec::new();
        let mut rest = line;
        while let Some(i) = rest.find('[') {
            rest = &rest[i + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && rest[digits..].starts_with(" x ") {
                if let Ok(n) = rest[..digits].parse::<u64>() {
                    if n >= LIMIT {
                        counts.push(n);
                    }
                }
            }
        }
        if counts.is_empty() {
            continue;
        }
        // Instructions name the type again (`getelementptr [N x i8], ...
        // @big, i64 0, i64 k`); what matters is where a type is defined:
        // globals, named types and stack slots.
        let t = line.trim_start();
        let defines = t.starts_with('@') || (t.starts_with('%') && t.contains(" = type ")) || t.contains(" = alloca ");
        if !defines {
            continue;
        }
        // `@name = <linkage and flags> global|constant [N x T] ...`: only
        // the first array of the declaration, its outermost type.
        let outermost = line.strip_prefix('@').and_then(|l| {
            let (name, decl) = l.split_once(" = ")?;
            let at = [" global [", " constant ["].iter().filter_map(|k| decl.find(k).map(|i| i + k.len())).min()?;
            let digits = decl[at..].bytes().take_while(u8::is_ascii_digit).count();
            let n = decl[at..at + digits].parse::<u64>().ok()?;
            Some((name.trim_matches('"').to_string(), n))
        });
        match outermost {
            Some((name, n)) if counts.first() == Some(&n) && counts.len() == 1 => {
                found.insert(name, n);
            }
            _ => {
                let short: String = line.trim().chars().take(100).collect();
                return Err(format!(
                    "an array of 2^32 elements or more inside another type or on the stack (`{short}`)"
                ));
            }
        }
    }
    Ok(found)
}

/// The text of an LLVM name (`%3` → "3").
pub fn name_text(n: &llvm_ir::Name) -> String {
    match n {
        llvm_ir::Name::Name(s) => s.to_string(),
        llvm_ir::Name::Number(k) => k.to_string(),
    }
}
