//! The printer of the textual IR; `walkdown-ir-reader` parses it back.
//!
//! The form is line-oriented: a header (`datamodel`, `file`), globals,
//! declarations, then function definitions whose blocks list their
//! parameters with types. Every instruction and terminator carries its source
//! location as a `!line:col` suffix (`!file:line:col` outside file 0).

use crate::entities::Block;
use crate::inst::{BlockCall, Callee, Const, InstKind, Operand, Terminator};
use crate::loc::Loc;
use crate::program::{Body, FuncData, GlobalData, Program, RelocTarget};
use crate::types::Type;
use std::fmt::{self, Write};

/// The textual form of `program`.
pub fn program_to_string(program: &Program) -> String {
    let mut s = String::new();
    write_program(&mut s, program).expect("writing to a String cannot fail");
    s
}

/// Writes the textual form of `program`.
pub fn write_program(w: &mut dyn Write, p: &Program) -> fmt::Result {
    writeln!(w, "datamodel {}", p.data_model)?;
    if let Some(env) = &p.environment {
        writeln!(w, "environment {env}")?;
    }
    for (_, name) in p.files.iter() {
        writeln!(w, "file {}", quote(name.as_bytes()))?;
    }
    for (_, g) in p.globals.iter() {
        write_global(w, p, g)?;
    }
    for (_, f) in p.funcs.iter() {
        if f.body.is_none() {
            writeln!(w)?;
            write_signature(w, "declare", f)?;
            writeln!(w)?;
        }
    }
    for (_, f) in p.funcs.iter() {
        if let Some(body) = &f.body {
            writeln!(w)?;
            write_function(w, p, f, body)?;
        }
    }
    Ok(())
}

fn write_global(w: &mut dyn Write, p: &Program, g: &GlobalData) -> fmt::Result {
    write!(w, "global {} size {} align {}", symbol(&g.name), g.size, g.align)?;
    if g.constant {
        write!(w, " const")?;
    }
    if !g.init.is_empty() {
        write!(w, " = {}", quote(&g.init))?;
    }
    for (i, r) in g.relocs.iter().enumerate() {
        let target = match r.target {
            RelocTarget::Global(t) => &p.globals[t].name,
            RelocTarget::Func(t) => &p.funcs[t].name,
        };
        let sep = if i == 0 { " relocs " } else { ", " };
        write!(w, "{sep}{}: {} {:+}", r.offset, symbol(target), r.addend)?;
    }
    write_loc(w, g.loc)?;
    writeln!(w)
}

fn write_signature(w: &mut dyn Write, keyword: &str, f: &FuncData) -> fmt::Result {
    write!(w, "{keyword} {}(", symbol(&f.name))?;
    for (i, t) in f.params.iter().enumerate() {
        if i > 0 {
            write!(w, ", ")?;
        }
        write!(w, "{t}")?;
    }
    if f.variadic {
        write!(w, "{}...", if f.params.is_empty() { "" } else { ", " })?;
    }
    write!(w, ")")?;
    if let Some(r) = f.ret {
        write!(w, " -> {r}")?;
    }
    write_loc(w, f.loc)
}

/// Writes one function definition.
pub fn write_function(w: &mut dyn Write, p: &Program, f: &FuncData, body: &Body) -> fmt::Result {
    write_signature(w, "define", f)?;
    if f.library {
        write!(w, " library")?;
    }
    writeln!(w, " {{")?;
    for (b, data) in body.blocks.iter() {
        write!(w, "{b}")?;
        if !data.params.is_empty() {
            write!(w, "(")?;
            for (i, v) in data.params.iter().enumerate() {
                if i > 0 {
                    write!(w, ", ")?;
                }
                write!(w, "{v}: {}", body.values[*v].ty)?;
            }
            write!(w, ")")?;
        }
        writeln!(w, ":")?;
        for &inst in &data.insts {
            let d = &body.insts[inst];
            write!(w, "  ")?;
            if let Some(v) = d.result {
                write!(w, "{v} = ")?;
            }
            write_inst(w, p, &d.kind)?;
            write_loc(w, d.loc)?;
            writeln!(w)?;
        }
        write!(w, "  ")?;
        write_term(w, p, &data.term)?;
        write_loc(w, data.term_loc)?;
        writeln!(w)?;
    }
    writeln!(w, "}}")
}

/// Writes an instruction without its result and location.
pub fn write_inst(w: &mut dyn Write, p: &Program, kind: &InstKind) -> fmt::Result {
    let o = |op: &Operand| OperandDisplay(p, *op);
    match kind {
        InstKind::Bin { op, ty, lhs, rhs } => write!(w, "{op} {ty} {}, {}", o(lhs), o(rhs)),
        InstKind::Un { op, ty, arg } => write!(w, "{op} {ty} {}", o(arg)),
        InstKind::Cmp { pred, ty, lhs, rhs } => write!(w, "cmp {pred} {ty} {}, {}", o(lhs), o(rhs)),
        InstKind::Cast { op, from, to, arg } => write!(w, "{op} {from} {} to {to}", o(arg)),
        InstKind::Select { ty, cond, if_true, if_false } => {
            write!(w, "select {ty} {}, {}, {}", o(cond), o(if_true), o(if_false))
        }
        InstKind::Load { ty, ptr } => write!(w, "load {ty} {}", o(ptr)),
        InstKind::Store { ty, ptr, value } => write!(w, "store {ty} {}, {}", o(value), o(ptr)),
        InstKind::Alloca { size, align } => write!(w, "alloca {}, align {align}", o(size)),
        InstKind::PtrAdd { base, offset } => write!(w, "ptradd {}, {}", o(base), o(offset)),
        InstKind::Call { callee, args, ret } => {
            write!(w, "call {} ", ret.map_or("void", Type::name))?;
            match callee {
                Callee::Direct(f) => write!(w, "{}", symbol(&p.funcs[*f].name))?,
                Callee::Indirect(op) => write!(w, "*{}", o(op))?,
            }
            write!(w, "(")?;
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    write!(w, ", ")?;
                }
                write!(w, "{}", o(a))?;
            }
            write!(w, ")")
        }
        InstKind::Nondet { ty, signed } => {
            write!(w, "nondet {}{ty}", if *signed { "" } else { "unsigned " })
        }
        InstKind::Assume { cond } => write!(w, "assume {}", o(cond)),
        InstKind::Check { kind, cond } => write!(w, "check {kind} {}", o(cond)),
    }
}

fn write_term(w: &mut dyn Write, p: &Program, t: &Terminator) -> fmt::Result {
    let o = |op: &Operand| OperandDisplay(p, *op);
    match t {
        Terminator::Jump(d) => write!(w, "jump {}", CallDisplay(p, d)),
        Terminator::Branch { cond, if_true, if_false } => {
            write!(w, "br {}, {}, {}", o(cond), CallDisplay(p, if_true), CallDisplay(p, if_false))
        }
        Terminator::Switch { ty, value, cases, default } => {
            write!(w, "switch {ty} {}, {} [", o(value), CallDisplay(p, default))?;
            for (i, (k, d)) in cases.iter().enumerate() {
                let k = Const { ty: *ty, bits: *k };
                write!(w, "{}{}: {}", if i == 0 { "" } else { ", " }, int_text(k, p), CallDisplay(p, d))?;
            }
            write!(w, "]")
        }
        Terminator::Return(None) => write!(w, "ret"),
        Terminator::Return(Some(v)) => write!(w, "ret {}", o(v)),
        Terminator::Unreachable => write!(w, "unreachable"),
    }
}

fn write_loc(w: &mut dyn Write, loc: Loc) -> fmt::Result {
    if !loc.is_known() && loc.col == 0 {
        return Ok(());
    }
    if loc.file.as_u32() == 0 {
        write!(w, " !{}:{}", loc.line, loc.col)
    } else {
        write!(w, " !{}:{}:{}", loc.file.as_u32(), loc.line, loc.col)
    }
}

/// Displays an operand in textual-IR syntax.
pub struct OperandDisplay<'a>(pub &'a Program, pub Operand);

impl fmt::Display for OperandDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Operand::Value(v) => write!(f, "{v}"),
            Operand::Global(g) => f.write_str(&symbol(&self.0.globals[g].name)),
            Operand::Func(g) => f.write_str(&symbol(&self.0.funcs[g].name)),
            Operand::Const(c) => write!(f, "{} {}", c.ty, const_text(c, self.0)),
        }
    }
}

struct CallDisplay<'a>(&'a Program, &'a BlockCall);

impl fmt::Display for CallDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_block_call(f, self.0, self.1.block, &self.1.args)
    }
}

fn write_block_call(f: &mut fmt::Formatter<'_>, p: &Program, b: Block, args: &[Operand]) -> fmt::Result {
    write!(f, "{b}")?;
    if !args.is_empty() {
        write!(f, "(")?;
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{}", OperandDisplay(p, *a))?;
        }
        write!(f, ")")?;
    }
    Ok(())
}

/// The literal of a constant (without its type).
fn const_text(c: Const, p: &Program) -> String {
    match c.ty {
        Type::Ptr if c.bits == 0 => "null".to_string(),
        Type::Ptr => format!("{:#x}", c.bits),
        Type::F64 => {
            let v = f64::from_bits(c.bits);
            if v.is_nan() {
                format!("{:#x}", c.bits)
            } else {
                format!("{v:?}")
            }
        }
        Type::F32 => {
            let v = f32::from_bits(c.bits as u32);
            if v.is_nan() {
                format!("{:#x}", c.bits)
            } else {
                format!("{v:?}")
            }
        }
        _ => int_text(c, p),
    }
}

/// An integer constant as a signed decimal.
fn int_text(c: Const, p: &Program) -> String {
    let bits = c.ty.bits(p.data_model);
    let v = if bits >= 64 { c.bits as i64 } else { ((c.bits << (64 - bits)) as i64) >> (64 - bits) };
    if c.ty == Type::I1 {
        c.bits.to_string()
    } else {
        v.to_string()
    }
}

/// `@name`, quoted when it holds characters outside `[A-Za-z0-9_.$]`.
pub fn symbol(name: &str) -> String {
    let plain = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
        && !name.as_bytes()[0].is_ascii_digit();
    if plain {
        format!("@{name}")
    } else {
        format!("@{}", quote(name.as_bytes()))
    }
}

/// A double-quoted string; bytes outside printable ASCII, `"` and `\` are
/// written as `\hh`.
pub fn quote(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\{b:02x}");
        }
    }
    s.push('"');
    s
}
