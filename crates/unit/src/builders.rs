//! The C text of the harness's builders (see [`crate::harness`] for what
//! they build): a struct's fields (`__wd_fill_R`), a lazy pointer's
//! decision (`__wd_ptr_R` for structs, `__wd_arr_K` for arrays,
//! `__wd_make`, `__wd_resolve`), each parameter in `main` as its plan and
//! the contract say, and the stubs of function pointer parameters (which
//! `unit_tests.c` defines too). [`crate::shape`] walks the same way over a
//! test's inputs: the two change together.

use crate::contract::{ClauseKind, Init, Length};
use crate::decls::CType;
use crate::harness::{buffer_elem, is_char, ParamPlan, Unit, RESOLVE};
use std::fmt::Write as _;

impl Unit {
    /// The struct and array builders, `__wd_make` and `__wd_resolve`.
    pub(crate) fn builders_text(&self, out: &mut String) {
        let s = self.settings;
        let assume = self.assumes();
        let types = self.struct_types();
        let pool = self.pool_size();
        for &i in &types {
            let sp = &self.decls.records[i].spelling;
            let _ = writeln!(out, "static {sp} *__wd_pool_{i}[{pool}];\nstatic int __wd_count_{i};");
            let _ = writeln!(out, "static {sp} *__wd_ptr_{i}(int depth, int clause);");
        }
        for &i in &types {
            let sp = &self.decls.records[i].spelling;
            let _ = writeln!(out, "static void __wd_fill_{i}({sp} *p, int depth) {{");
            let mut names = 0;
            for (f, ty) in &self.decls.records[i].fields {
                self.fill(out, &format!("p->{f}"), ty, 1, &mut names);
            }
            out.push_str("  (void)depth;\n}\n");
            // A slot that must not be NULL gets a fresh object when the
            // choice is neither an alias nor fresh, or past the bounds.
            let (fresh, room, broke) = if assume {
                ("c == 1 || clause", "(__wd_objects < {mo} && depth < {md}) || clause", "")
            } else {
                ("c == 1", "__wd_objects < {mo} && depth < {md}", "  if (clause) __wd_broke(clause - 1);\n")
            };
            let room = room.replace("{mo}", &s.max_objects.to_string()).replace("{md}", &s.max_depth.to_string());
            let _ = writeln!(
                out,
                "static {sp} *__wd_ptr_{i}(int depth, int clause) {{\n  int c = __VERIFIER_nondet_int();\n  if (c >= 2 && c - 2 < __wd_count_{i}) return __wd_pool_{i}[c - 2];\n  if ({fresh}) {{\n    if ({room}) {{\n      {sp} *p = ({sp} *)__builtin_calloc(1, sizeof({sp}));\n      if (__wd_count_{i} < {pool}) __wd_pool_{i}[__wd_count_{i}++] = p;\n      __wd_objects++;\n      __wd_fill_{i}(p, depth + 1);\n      return p;\n    }}\n  }}\n{broke}  return 0;\n}}"
            );
        }
        let arrays = self.array_types();
        let base = self.decls.records.len();
        for (k, elem) in arrays.iter().enumerate() {
            let _ = writeln!(out, "static void *__wd_arr_{k}(int depth, int clause) {{\n  void *r = 0;");
            let mut names = 0;
            self.lazy_array(out, "r", elem, &mut names);
            out.push_str("  (void)depth;\n  (void)clause;\n  return r;\n}\n");
        }
        out.push_str("static void *__wd_make(int type, int depth, int clause) {\n  switch (type) {\n");
        for &i in &types {
            let _ = writeln!(out, "  case {i}: return (void *)__wd_ptr_{i}(depth, clause);");
        }
        for k in 0..arrays.len() {
            let _ = writeln!(out, "  case {}: return __wd_arr_{k}(depth, clause);", base + k);
        }
        out.push_str("  }\n  return 0;\n}\n");
        // Called by the code under test after each load of a pointer (the
        // unit pipeline inserts the calls, see `crate::lazy`): an unread
        // slot's placeholder is decided here, on first read, and the
        // decision is printed (`\x1eK\x1f`) for the shape decoder.
        let cap = self.slot_capacity();
        let _ = writeln!(
            out,
            "__attribute__((used)) void *{RESOLVE}(void *v, void **at) {{\n  __UINTPTR_TYPE__ d = (__UINTPTR_TYPE__)v - (__UINTPTR_TYPE__)__wd_marks;\n  if (d >= {cap}) return v;\n  int k = (int)d;\n  if (!__wd_slot_done[k]) {{\n    __wd_slot_done[k] = 1;\n    __builtin_printf(\"\\x1e%d\\x1f\", k);\n    __wd_slot_value[k] = __wd_make(__wd_slot_type[k], __wd_slot_depth[k], __wd_slot_clause[k]);\n    if (*__wd_slot_at[k] == (void *)&__wd_marks[k]) *__wd_slot_at[k] = __wd_slot_value[k];\n  }}\n  if (at) *at = __wd_slot_value[k];\n  return __wd_slot_value[k];\n}}"
        );
    }

    /// Statements that build the value of `lvalue`, of type `ty`.
    pub(crate) fn fill(&self, out: &mut String, lvalue: &str, ty: &CType, indent: usize, names: &mut u32) {
        let pad = "  ".repeat(indent);
        match ty {
            CType::Int(k) => {
                let _ = writeln!(out, "{pad}{lvalue} = __VERIFIER_nondet_{}();", k.nondet());
            }
            CType::Float => {
                let _ = writeln!(out, "{pad}{lvalue} = __VERIFIER_nondet_float();");
            }
            CType::Double => {
                let _ = writeln!(out, "{pad}{lvalue} = __VERIFIER_nondet_double();");
            }
            // Test-Comp has no `long double` input: a `double` one, widened
            // (exactly), so the values a test gives are the doubles.
            CType::LongDouble => {
                let _ = writeln!(out, "{pad}{lvalue} = (long double)__VERIFIER_nondet_double();");
            }
            CType::Void | CType::FuncPtr(_) => {
                let _ = writeln!(out, "{pad}{lvalue} = 0;");
            }
            // Never built (`Unit::check_buildable` refuses a unit that
            // would); the builder of its struct must still compile.
            CType::Opaque { .. } => {}
            CType::Struct(i) => {
                let _ = writeln!(out, "{pad}__wd_fill_{i}(&{lvalue}, depth);");
            }
            CType::Array(elem, n) => {
                *names += 1;
                let v = format!("i{names}");
                let _ = writeln!(out, "{pad}for (int {v} = 0; {v} < {n}; {v}++) {{");
                self.fill(out, &format!("{lvalue}[{v}]"), elem, indent + 1, names);
                let _ = writeln!(out, "{pad}}}");
            }
            CType::Ptr(inner) => match self.slot_type(inner) {
                Some(t) => {
                    let _ = writeln!(out, "{pad}__wd_lazy((void **)&{lvalue}, {t}, depth, 0);");
                }
                None => {
                    let _ = writeln!(out, "{pad}{lvalue} = 0;");
                }
            },
        }
    }

    /// The body of `__wd_arr_K`: one length choice, 1 to `max_array`
    /// elements (a string gets a terminating zero), anything else null (or
    /// one element, for a slot that must not be NULL).
    fn lazy_array(&self, out: &mut String, lvalue: &str, elem: &CType, names: &mut u32) {
        *names += 1;
        let (c, a, v) = (format!("c{names}"), format!("p{names}"), format!("i{names}"));
        let spelled = self.decls.spell(elem);
        let extra = if is_char(elem) { " + 1" } else { "" };
        let ma = self.settings.max_array;
        let _ = writeln!(out, "  int {c} = __VERIFIER_nondet_int();");
        if self.assumes() {
            let _ = writeln!(out, "  if (clause && !({c} >= 1 && {c} <= {ma})) {c} = 1;");
        }
        let _ = writeln!(
            out,
            "  if ({c} >= 1 && {c} <= {ma}) {{\n    {spelled} *{a} = ({spelled} *)__builtin_calloc({c}{extra}, sizeof({spelled}));\n    for (int {v} = 0; {v} < {c}; {v}++) {{"
        );
        self.fill(out, &format!("{a}[{v}]"), elem, 3, names);
        let _ = writeln!(out, "    }}\n    {lvalue} = {a};\n  }}");
        if !self.assumes() {
            let _ = writeln!(out, "  else if (clause) __wd_broke(clause - 1);");
        }
    }

    /// Statements in `main` that build parameter `i` into `a{i}`.
    pub(crate) fn build_param(&self, out: &mut String, i: usize, names: &mut u32) {
        let ty = &self.entry.params[i].1;
        let cl = self.contract.nonnull(i).map_or(0, |k| k + 1);
        match &self.plan[i] {
            ParamPlan::LengthOf(_) => {}
            ParamPlan::Value => match ty {
                CType::Ptr(inner) if self.slot_type(inner).is_some() => {
                    let t = self.slot_type(inner).expect("checked");
                    let _ = writeln!(out, "  __wd_lazy((void **)&a{i}, {t}, 0, {cl});");
                }
                _ => self.fill(out, &format!("a{i}"), ty, 1, names),
            },
            ParamPlan::Buffer(length) => self.buffer_param(out, i, *length, names),
            ParamPlan::Init(init) => self.init_param(out, i, init, names),
            ParamPlan::Stub => {
                let choice = self.contract.nullable[i] || !self.assumes();
                *names += 1;
                let c = format!("c{names}");
                let mut made = String::new();
                if let Some(k) = self.stub_return(i).and_then(|r| r.nondet()) {
                    let _ = write!(made, "__wd_stub_ret_{i} = __VERIFIER_nondet_{k}(); ");
                }
                let _ = write!(made, "a{i} = __wd_stub_{i};");
                if choice {
                    let broke = if cl > 0 { format!(" __wd_broke({});", cl - 1) } else { String::new() };
                    let _ = writeln!(
                        out,
                        "  {{\n    int {c} = __VERIFIER_nondet_int();\n    if ({c} == 0) {{ a{i} = 0;{broke} }} else {{ {made} }}\n  }}"
                    );
                } else {
                    let _ = writeln!(out, "  {made}");
                }
            }
        }
    }

    /// A buffer with its length (see the module doc of [`crate::harness`]).
    fn buffer_param(&self, out: &mut String, i: usize, length: Length, names: &mut u32) {
        let elem = buffer_elem(&self.entry.params[i].1);
        let spelled = self.decls.spell(&elem);
        let (j, deref) = match length {
            Length::Const(k) => {
                let _ = writeln!(out, "  a{i} = ({spelled} *)__builtin_calloc({k}, sizeof({spelled}));");
                return;
            }
            Length::Param(j) => (j, false),
            Length::Deref(j) => (j, true),
        };
        *names += 1;
        let (c, a, v) = (format!("c{names}"), format!("p{names}"), format!("i{names}"));
        let owner = self.contract.length_of[j] == Some(i);
        let value = if deref { format!("*a{j}") } else { format!("a{j}") };
        let report = !self.assumes();
        let nonnull = self.contract.nonnull(i);
        let ma = self.settings.max_array;
        out.push_str("  {\n");
        if owner || report {
            let out_of_range = if nonnull.is_some() && !report { 0 } else { -1 };
            let _ = writeln!(
                out,
                "    int {c} = __VERIFIER_nondet_int();\n    if (!({c} >= 0 && {c} <= {ma})) {c} = {out_of_range};"
            );
        } else {
            // The first buffer of this length has set it already.
            let _ = writeln!(out, "    int {c} = (int){value};");
        }
        let extra = if self.buffer_is_string(i) { " + 1" } else { "" };
        let _ = writeln!(
            out,
            "    if ({c} >= 0) {{\n      {spelled} *{a} = ({spelled} *)__builtin_calloc({c}{extra}, sizeof({spelled}));\n      for (int {v} = 0; {v} < {c}; {v}++) {{"
        );
        self.fill(out, &format!("{a}[{v}]"), &elem, 4, names);
        let broke = match (report, nonnull) {
            (true, Some(k)) => format!(" __wd_broke({k});"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "      }}\n      a{i} = {a};\n    }} else {{\n      a{i} = 0;\n      {c} = 0;{broke}\n    }}"
        );
        if owner {
            let len_ty = match &self.entry.params[j].1 {
                CType::Ptr(inner) => (**inner).clone(),
                other => other.clone(),
            };
            let lt = self.decls.spell(&len_ty);
            let n = if report {
                let CType::Int(k) = len_ty else { unreachable!("a length is an integer") };
                format!("__VERIFIER_nondet_{}()", k.nondet())
            } else {
                format!("({lt}){c}")
            };
            if deref {
                let _ = writeln!(
                    out,
                    "    {{\n      {lt} *q = ({lt} *)__builtin_calloc(1, sizeof({lt}));\n      *q = {n};\n      a{j} = q;\n    }}"
                );
            } else {
                let _ = writeln!(out, "    a{j} = {n};");
            }
        }
        if report {
            if let Some(k) = self.contract.clause(&ClauseKind::Length(i)) {
                let _ = writeln!(out, "    if ((long long){value} < 0 || (long long){value} > {c}) __wd_broke({k});");
            }
        }
        out.push_str("  }\n");
    }

    /// A struct made by its initializer (in report mode, or built field by
    /// field, breaking that clause).
    fn init_param(&self, out: &mut String, i: usize, init: &Init, names: &mut u32) {
        let CType::Ptr(inner) = &self.entry.params[i].1 else { unreachable!("an initialized parameter is a pointer") };
        let sp = self.decls.spell(inner);
        let made = match init {
            Init::InPlace(f) => format!("{{ {sp} *p = ({sp} *)__builtin_calloc(1, sizeof({sp})); {f}(p); a{i} = p; }}"),
            Init::Constructor(f) => format!("a{i} = {f}();"),
        };
        *names += 1;
        let c = format!("c{names}");
        if self.assumes() && !self.contract.nullable[i] {
            let _ = writeln!(out, "  {made}");
        } else if self.assumes() {
            let _ = writeln!(
                out,
                "  {{\n    int {c} = __VERIFIER_nondet_int();\n    if ({c} == 0) a{i} = 0; else {made}\n  }}"
            );
        } else {
            let t = self.slot_type(inner).expect("a struct has a slot type");
            let cl = self.contract.nonnull(i).map_or(0, |k| k + 1);
            let k = self.contract.clause(&ClauseKind::Made(i)).expect("an initializer has its clause");
            let _ = writeln!(
                out,
                "  {{\n    int {c} = __VERIFIER_nondet_int();\n    if ({c} == 0) {made} else {{ __wd_broke({k}); __wd_lazy((void **)&a{i}, {t}, 0, {cl}); }}\n  }}"
            );
        }
    }

    /// The return type of the stub of parameter `i`, if it returns a
    /// scalar (its value is an input).
    pub fn stub_return(&self, i: usize) -> Option<&CType> {
        let CType::FuncPtr(s) = &self.entry.params[i].1 else { return None };
        let f = self.decls.fn_types.get(s)?;
        matches!(f.ret, CType::Int(_) | CType::Float | CType::Double | CType::LongDouble).then_some(&f.ret)
    }

    /// The stubs of the function pointer parameters: `__wd_stub_I`
    /// returns `__wd_stub_ret_I` (a scalar; NULL for a pointer, zeros for
    /// anything else) and ignores its arguments.
    pub fn stub_definitions(&self) -> String {
        let mut out = String::new();
        for (i, (_, ty)) in self.entry.params.iter().enumerate() {
            let (ParamPlan::Stub, CType::FuncPtr(s)) = (&self.plan[i], ty) else { continue };
            let Some(f) = self.decls.fn_types.get(s) else { continue };
            let params: Vec<String> = f
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| match p.as_str() {
                    "..." => p.clone(),
                    _ if p.contains("(*") => p.replacen("(*", &format!("(*s{k}"), 1),
                    _ => format!("{p} s{k}"),
                })
                .collect();
            let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
            let ret = &f.ret_text;
            let body = match &f.ret {
                CType::Void => String::new(),
                CType::Int(_) | CType::Float | CType::Double | CType::LongDouble => {
                    let _ = writeln!(out, "static {ret} __wd_stub_ret_{i};");
                    format!(" return __wd_stub_ret_{i}; ")
                }
                CType::Ptr(_) | CType::FuncPtr(_) => " return 0; ".to_string(),
                _ => format!(" static {ret} z; return z; "),
            };
            let _ = writeln!(out, "static {ret} __wd_stub_{i}({params}) {{{body}}}");
        }
        out
    }
}

impl CType {
    /// The suffix of the `__VERIFIER_nondet_` function that reads a value
    /// of this scalar type (a `long double` reads a `double`).
    pub fn nondet(&self) -> Option<&'static str> {
        match self {
            CType::Int(k) => Some(k.nondet()),
            CType::Float => Some("float"),
            CType::Double | CType::LongDouble => Some("double"),
            _ => None,
        }
    }
}
