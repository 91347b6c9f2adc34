//! The values of `long double` (`x86_fp80`) constants.
//!
//! The llvm-ir crate reads an `x86_fp80` constant as `Float::X86_FP80`
//! without its value. The textual IR spells each one (`0xK4000C000…`,
//! sign and exponent in the first 4 hex digits, the 64-bit significand
//! with its explicit integer bit in the other 16). LLVM keeps one object
//! per distinct constant, and the llvm-ir crate one `ConstantRef` per
//! object, so a constant's address names its value throughout a module.
//! This table pairs, function by function and global by global, the
//! `x86_fp80` constants the module's operands hold (in the order the text
//! prints operands) with the literals of the text, and keeps the pairing
//! only where the counts agree and no address gets two values.

use llvm_ir::constant::Float;
use llvm_ir::instruction::Instruction as LI;
use llvm_ir::terminator::Terminator as LT;
use llvm_ir::{Constant, ConstantRef, Module, Operand};
use std::collections::HashMap;

/// An 80-bit value: the significand (with the explicit integer bit) and
/// the sign with the biased exponent (bit 15 and bits 0–14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F80 {
    pub significand: u64,
    pub sign_exponent: u16,
}

/// The `x86_fp80` constants of one module, by the address of their
/// `Constant`.
#[derive(Default, Debug)]
pub struct F80Consts {
    values: HashMap<usize, F80>,
    /// Constants the text gave two values (which cannot happen for a
    /// consistent pairing; refused rather than guessed).
    conflicts: Vec<usize>,
}

fn key(c: &ConstantRef) -> usize {
    let r: &Constant = c.as_ref();
    r as *const Constant as usize
}

impl F80Consts {
    /// Pairs the constants of `module` with the literals of its text.
    pub fn build(module: &Module, text: &str) -> F80Consts {
        let mut t = F80Consts::default();
        if !text.contains("0xK") {
            return t;
        }
        let (globals, functions) = literals_by_definition(text);
        let mut globals = globals.into_iter();
        for gv in &module.global_vars {
            let Some(init) = &gv.initializer else { continue };
            let mut found = Vec::new();
            collect_constant(init, &mut found);
            let Some(lits) = next_matching(&mut globals, &gv.name) else { break };
            t.pair(&found, &lits);
        }
        let mut functions = functions.into_iter();
        for f in &module.functions {
            let Some((name, lits)) = functions.next() else { break };
            if name != f.name {
                break;
            }
            let mut found = Vec::new();
            for bb in &f.basic_blocks {
                for ins in &bb.instrs {
                    for op in instruction_operands(ins) {
                        collect_operand(op, &mut found);
                    }
                }
                if let LT::Ret(r) = &bb.term {
                    if let Some(op) = &r.return_operand {
                        collect_operand(op, &mut found);
                    }
                }
            }
            t.pair(&found, &lits);
        }
        t
    }

    fn pair(&mut self, found: &[usize], lits: &[F80]) {
        if found.len() != lits.len() {
            return;
        }
        for (&k, &v) in found.iter().zip(lits) {
            match self.values.insert(k, v) {
                Some(old) if old != v => self.conflicts.push(k),
                _ => {}
            }
        }
    }

    /// The value of the `x86_fp80` constant `c`.
    pub fn resolve(&self, c: &ConstantRef) -> Result<F80, String> {
        let k = key(c);
        if self.conflicts.contains(&k) {
            return Err("a long double constant whose value the textual IR does not tell apart".into());
        }
        self.values
            .get(&k)
            .copied()
            .ok_or_else(|| "a long double constant whose value the textual IR does not show at that place".into())
    }
}

/// The global whose text comes next, if it is `name`'s (globals without
/// literals are skipped on both sides).
fn next_matching(globals: &mut std::vec::IntoIter<(String, Vec<F80>)>, name: &llvm_ir::Name) -> Option<Vec<F80>> {
    let want = crate::module::name_text(name);
    for (n, lits) in globals.by_ref() {
        if n == want {
            return Some(lits);
        }
    }
    None
}

/// The literals of each global definition and of each function body, in
/// text order.
#[allow(clippy::type_complexity)]
fn literals_by_definition(text: &str) -> (Vec<(String, Vec<F80>)>, Vec<(String, Vec<F80>)>) {
    let mut globals = Vec::new();
    let mut functions: Vec<(String, Vec<F80>)> = Vec::new();
    let mut in_function = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            let name = rest.split_once('@').map(|(_, r)| r.split('(').next().unwrap_or("")).unwrap_or("");
            functions.push((name.trim_matches('"').to_string(), literals(line)));
            in_function = true;
            continue;
        }
        if in_function {
            if line.starts_with('}') {
                in_function = false;
            } else if line.contains("@llvm.dbg.") {
                // Debug intrinsics take constants as metadata, which the
                // llvm-ir crate does not read as operands.
            } else if let Some((_, lits)) = functions.last_mut() {
                lits.extend(literals(line));
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('@') {
            if let Some((name, _)) = rest.split_once(" = ") {
                globals.push((name.trim_matches('"').to_string(), literals(line)));
            }
        }
    }
    (globals, functions)
}

/// The `0xK` literals of one line, in order.
fn literals(line: &str) -> Vec<F80> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("0xK") {
        let hex = &rest[i + 3..];
        let digits = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits == 20 {
            if let (Ok(se), Ok(m)) = (u16::from_str_radix(&hex[..4], 16), u64::from_str_radix(&hex[4..20], 16)) {
                out.push(F80 { significand: m, sign_exponent: se });
            }
        }
        rest = &hex[digits..];
    }
    out
}

/// The operands of an instruction in the order the text prints them, for
/// the instructions that can hold a `long double` constant.
fn instruction_operands(ins: &LI) -> Vec<&Operand> {
    match ins {
        LI::FAdd(i) => vec![&i.operand0, &i.operand1],
        LI::FSub(i) => vec![&i.operand0, &i.operand1],
        LI::FMul(i) => vec![&i.operand0, &i.operand1],
        LI::FDiv(i) => vec![&i.operand0, &i.operand1],
        LI::FRem(i) => vec![&i.operand0, &i.operand1],
        LI::FNeg(i) => vec![&i.operand],
        LI::FCmp(i) => vec![&i.operand0, &i.operand1],
        LI::FPTrunc(i) => vec![&i.operand],
        LI::FPExt(i) => vec![&i.operand],
        LI::FPToUI(i) => vec![&i.operand],
        LI::FPToSI(i) => vec![&i.operand],
        LI::BitCast(i) => vec![&i.operand],
        LI::Freeze(i) => vec![&i.operand],
        LI::Select(i) => vec![&i.condition, &i.true_value, &i.false_value],
        LI::Store(i) => vec![&i.value, &i.address],
        LI::Load(i) => vec![&i.address],
        LI::Phi(i) => i.incoming_values.iter().map(|(v, _)| v).collect(),
        LI::Call(c) => c.arguments.iter().map(|(a, _)| a).collect(),
        LI::InsertValue(i) => vec![&i.aggregate, &i.element],
        LI::ExtractValue(i) => vec![&i.aggregate],
        LI::InsertElement(i) => vec![&i.vector, &i.element, &i.index],
        LI::ExtractElement(i) => vec![&i.vector, &i.index],
        LI::GetElementPtr(i) => std::iter::once(&i.address).chain(&i.indices).collect(),
        _ => Vec::new(),
    }
}

fn collect_operand(op: &Operand, out: &mut Vec<usize>) {
    if let Operand::ConstantOperand(c) = op {
        collect_constant(c, out);
    }
}

/// The `x86_fp80` constants inside `c`, in print order.
fn collect_constant(c: &ConstantRef, out: &mut Vec<usize>) {
    match c.as_ref() {
        Constant::Float(Float::X86_FP80) => out.push(key(c)),
        Constant::Struct { values, .. } => values.iter().for_each(|v| collect_constant(v, out)),
        Constant::Array { elements, .. } | Constant::Vector(elements) => {
            elements.iter().for_each(|v| collect_constant(v, out))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_split_into_exponent_and_significand() {
        let l = literals("  %2 = fmul x86_fp80 %0, 0xK40008000000000000000, !dbg !5 ; 0xK12");
        assert_eq!(l, vec![F80 { significand: 0x8000_0000_0000_0000, sign_exponent: 0x4000 }]);
        let l = literals(
            "@arr = global [2 x x86_fp80] [x86_fp80 0xK3FFF8000000000000000, x86_fp80 0xKFFFFC000000000000001]",
        );
        assert_eq!(l.len(), 2);
        assert_eq!(l[1], F80 { significand: 0xC000_0000_0000_0001, sign_exponent: 0xFFFF });
    }
}
