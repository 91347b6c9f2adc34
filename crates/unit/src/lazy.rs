//! Lazy initialization in the IR: the unit pipeline's transformation of
//! the lowered unit program (not of the interpreter: every engine then
//! runs the same code). After each load of a pointer in the code under
//! test, and before each use of a pointer parameter of the entry, it calls
//! the harness's [`RESOLVE`] with the pointer (and the address it was
//! loaded from), and the code goes on with what that returns (a parameter
//! stored to memory is stored as it is: its loads resolve it). A pointer
//! that is a lazy slot's placeholder is decided there, on the first read;
//! any other pointer comes back unchanged. The harness's own functions
//! (`main`, `__wd_*`) are left alone but for the preconditions
//! (`__wd_pre_*`, instrumented as the entry), and [`is_harness`] tells
//! them apart so that their branches and error sites are not goals of the
//! unit.

use crate::harness::{PRECONDITION, RESOLVE};
use crate::UnitError;
use std::collections::HashMap;
use walkdown_ir::{Body, Callee, Const, FuncId, Inst, InstKind, Loc, Operand, Program, Terminator, Type, Value};

/// Whether a function of the unit program is the harness's.
pub fn is_harness(name: &str) -> bool {
    name == "main" || name.starts_with("__wd_")
}

/// Whether a harness function is a precondition (`__wd_pre_K`): it reads
/// the entry's parameters as the entry does, so it is instrumented as the
/// entry is (its goals are not the unit's all the same).
pub fn is_precondition(name: &str) -> bool {
    name.starts_with(PRECONDITION)
}

/// The goals of `program`: of a unit program (one that defines
/// [`RESOLVE`]), those of the code under test only; the harness's choices
/// are explored but are not goals.
pub fn goals(program: &Program) -> walkdown_ir::goals::Goals {
    if program.func_by_name(RESOLVE).is_some_and(|f| program.funcs[f].body.is_some()) {
        walkdown_ir::goals::Goals::compute_where(program, |f| !is_harness(&f.name))
    } else {
        walkdown_ir::goals::Goals::compute(program)
    }
}

/// What [`instrument`] inserted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Instrumented {
    /// Calls after loads of pointers.
    pub loads: usize,
    /// Calls before uses of the entry's pointer parameters.
    pub param_uses: usize,
}

/// Instruments `program` if it is a unit program (it defines [`RESOLVE`]),
/// once: every way of loading a unit program (`gen`, `run`, `replay`, …)
/// then runs the same code. The entry is the function the harness's
/// `main` calls. `None` for any other program.
pub fn instrument_unit_program(program: &mut Program) -> Result<Option<Instrumented>, UnitError> {
    use walkdown_ir::InstKind as K;
    let Some(resolve) = program.func_by_name(RESOLVE).filter(|&f| program.funcs[f].body.is_some()) else {
        return Ok(None);
    };
    let Some(main) = program.func_by_name("main").filter(|&f| program.funcs[f].body.is_some()) else { return Ok(None) };
    let calls_resolve = |f: &walkdown_ir::FuncData| {
        f.body.as_ref().is_some_and(|b| {
            b.insts.values().any(|i| matches!(&i.kind, K::Call { callee: Callee::Direct(c), .. } if *c == resolve))
        })
    };
    if program.funcs.values().any(calls_resolve) {
        return Ok(None);
    }
    let body = program.funcs[main].body.as_ref().expect("checked above");
    let mut entry = None;
    for b in body.blocks.values() {
        for &i in &b.insts {
            if let K::Call { callee: Callee::Direct(f), .. } = &body.insts[i].kind {
                let callee = &program.funcs[*f];
                if callee.body.is_some() && !is_harness(&callee.name) {
                    entry = Some(callee.name.clone());
                }
            }
        }
    }
    match entry {
        Some(e) => instrument(program, &e).map(Some),
        None => Ok(None),
    }
}

/// Inserts the calls of [`RESOLVE`] into every defined function but the
/// harness's (see the module doc). `entry` is the unit's function.
pub fn instrument(program: &mut Program, entry: &str) -> Result<Instrumented, UnitError> {
    let missing = |what: &str| UnitError::Unsupported {
        construct: format!("a unit program without {what}"),
        file: program.files.values().next().cloned().unwrap_or_default(),
        line: 0,
    };
    let resolve =
        program.func_by_name(RESOLVE).filter(|&f| program.funcs[f].body.is_some()).ok_or_else(|| missing(RESOLVE))?;
    let entry =
        program.func_by_name(entry).filter(|&f| program.funcs[f].body.is_some()).ok_or_else(|| missing(entry))?;
    let mut total = Instrumented::default();
    let ids: Vec<FuncId> = program.funcs.keys().collect();
    for f in ids {
        let name = &program.funcs[f].name;
        let precondition = is_precondition(name);
        if is_harness(name) && !precondition {
            continue;
        }
        let Some(body) = program.funcs[f].body.as_mut() else { continue };
        let n = instrument_body(body, resolve, f == entry || precondition);
        total.loads += n.loads;
        total.param_uses += n.param_uses;
    }
    walkdown_ir::verify::verify_after("unit mode's lazy-slot instrumentation", program);
    Ok(total)
}

fn resolve_call(body: &mut Body, resolve: FuncId, v: Operand, at: Operand, loc: Loc) -> (Inst, Value) {
    let inst = body
        .create_inst(InstKind::Call { callee: Callee::Direct(resolve), args: vec![v, at], ret: Some(Type::Ptr) }, loc);
    let result = body.insts[inst].result.expect("a call returning a pointer has a result");
    (inst, result)
}

fn instrument_body(body: &mut Body, resolve: FuncId, is_entry: bool) -> Instrumented {
    let mut n = Instrumented::default();
    let params: Vec<Value> = if is_entry {
        body.blocks[Body::ENTRY].params.iter().copied().filter(|&v| body.values[v].ty == Type::Ptr).collect()
    } else {
        Vec::new()
    };
    // Loaded pointer → the resolved one, for every later use.
    let mut resolved: HashMap<Value, Value> = HashMap::new();
    let blocks: Vec<_> = body.blocks.keys().collect();
    for b in &blocks {
        let old = std::mem::take(&mut body.blocks[*b].insts);
        let mut new = Vec::with_capacity(old.len() * 2);
        for inst in old {
            let loc = body.insts[inst].loc;
            // Each use of a pointer parameter gets its own call: the first
            // one run decides it, and a recursive call's argument (never a
            // placeholder) comes back as it is.
            if !params.is_empty() {
                let mut used = Vec::new();
                let mut note = |o: &Operand| {
                    if let Operand::Value(v) = o {
                        if params.contains(v) && !used.contains(v) {
                            used.push(*v);
                        }
                    }
                };
                match &body.insts[inst].kind {
                    // A placeholder stored to memory stays one: the loads
                    // that read it back resolve it (a struct passed by
                    // value arrives as parameters stored at once).
                    InstKind::Store { ptr, .. } => note(ptr),
                    kind => kind.for_each_operand(note),
                }
                for p in used {
                    let (call, r) = resolve_call(body, resolve, Operand::Value(p), Operand::Const(Const::null()), loc);
                    new.push(call);
                    n.param_uses += 1;
                    body.insts[inst].kind.for_each_operand_mut(|o| {
                        if *o == Operand::Value(p) {
                            *o = Operand::Value(r);
                        }
                    });
                }
            }
            new.push(inst);
            if let InstKind::Load { ty: Type::Ptr, ptr } = body.insts[inst].kind {
                if let Some(v) = body.insts[inst].result {
                    let (call, r) = resolve_call(body, resolve, Operand::Value(v), ptr, loc);
                    new.push(call);
                    resolved.insert(v, r);
                    n.loads += 1;
                }
            }
        }
        body.blocks[*b].insts = new;
        if !params.is_empty() {
            let loc = body.blocks[*b].term_loc;
            let mut term = body.blocks[*b].term.clone();
            let mut used = Vec::new();
            for_each_term_operand_mut(&mut term, |o| {
                if let Operand::Value(v) = o {
                    if params.contains(v) && !used.contains(v) {
                        used.push(*v);
                    }
                }
            });
            for p in used {
                let (call, r) = resolve_call(body, resolve, Operand::Value(p), Operand::Const(Const::null()), loc);
                body.blocks[*b].insts.push(call);
                n.param_uses += 1;
                for_each_term_operand_mut(&mut term, |o| {
                    if *o == Operand::Value(p) {
                        *o = Operand::Value(r);
                    }
                });
            }
            body.blocks[*b].term = term;
        }
    }
    if resolved.is_empty() {
        return n;
    }
    // Every use of a loaded pointer but its own resolve call reads the
    // resolved one (the load dominates its uses, and the call follows it
    // at once, so the call dominates them too).
    let calls: std::collections::HashSet<Value> = resolved.values().copied().collect();
    for b in &blocks {
        let insts = body.blocks[*b].insts.clone();
        for inst in insts {
            if body.insts[inst].result.is_some_and(|r| calls.contains(&r)) {
                continue;
            }
            body.insts[inst].kind.for_each_operand_mut(|o| {
                if let Operand::Value(v) = o {
                    if let Some(r) = resolved.get(v) {
                        *o = Operand::Value(*r);
                    }
                }
            });
        }
        for_each_term_operand_mut(&mut body.blocks[*b].term, |o| {
            if let Operand::Value(v) = o {
                if let Some(r) = resolved.get(v) {
                    *o = Operand::Value(*r);
                }
            }
        });
    }
    n
}

/// Calls `f` on every operand of a terminator (its condition or value and
/// the arguments of its destinations), mutably.
fn for_each_term_operand_mut(term: &mut Terminator, mut f: impl FnMut(&mut Operand)) {
    match term {
        Terminator::Branch { cond, .. } => f(cond),
        Terminator::Switch { value, .. } => f(value),
        Terminator::Return(Some(v)) => f(v),
        Terminator::Return(None) | Terminator::Jump(_) | Terminator::Unreachable => {}
    }
    for dest in term.successors_mut() {
        dest.args.iter_mut().for_each(&mut f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkdown_ir::{BlockCall, DataModel, FuncData, InstKind};

    /// A function of one pointer parameter `p` that loads `*p` (a pointer),
    /// loads through it, and passes the loaded pointer to a block.
    fn program() -> Program {
        let mut p = Program::new(DataModel::LP64);
        let mut rb = Body::default();
        let b = rb.add_block();
        let v = rb.add_param(b, Type::Ptr);
        rb.add_param(b, Type::Ptr);
        rb.set_term(b, Terminator::Return(Some(Operand::Value(v))), Loc::UNKNOWN);
        p.funcs.push(FuncData {
            body: Some(rb),
            ..FuncData::external(RESOLVE, vec![Type::Ptr, Type::Ptr], Some(Type::Ptr), false)
        });
        let mut body = Body::default();
        let b0 = body.add_block();
        let param = body.add_param(b0, Type::Ptr);
        let (_, loaded) = body.append(b0, InstKind::Load { ty: Type::Ptr, ptr: Operand::Value(param) }, Loc::UNKNOWN);
        let loaded = loaded.unwrap();
        let (_, key) = body.append(b0, InstKind::Load { ty: Type::I32, ptr: Operand::Value(loaded) }, Loc::UNKNOWN);
        let b1 = body.add_block();
        let arg = body.add_param(b1, Type::Ptr);
        body.set_term(b1, Terminator::Return(Some(Operand::Value(arg))), Loc::UNKNOWN);
        body.set_term(b0, Terminator::Jump(BlockCall { block: b1, args: vec![Operand::Value(loaded)] }), Loc::UNKNOWN);
        let _ = key;
        p.funcs.push(FuncData { body: Some(body), ..FuncData::external("f", vec![Type::Ptr], Some(Type::Ptr), false) });
        let mut main = Body::default();
        let m = main.add_block();
        let f = p.func_by_name("f").unwrap();
        main.append(
            m,
            InstKind::Call {
                callee: Callee::Direct(f),
                args: vec![Operand::Const(Const::null())],
                ret: Some(Type::Ptr),
            },
            Loc::UNKNOWN,
        );
        main.set_term(m, Terminator::Return(None), Loc::UNKNOWN);
        p.funcs.push(FuncData { body: Some(main), ..FuncData::external("main", vec![], None, false) });
        p
    }

    #[test]
    fn loads_and_parameter_uses_go_through_resolve_once() {
        let mut p = program();
        let n = instrument_unit_program(&mut p).unwrap().expect("a unit program");
        assert_eq!(n, Instrumented { loads: 1, param_uses: 1 });
        walkdown_ir::verify::verify_program(&p).unwrap();
        let f = p.func_by_name("f").unwrap();
        let body = p.funcs[f].body.as_ref().unwrap();
        let kinds: Vec<&InstKind> = body.blocks[Body::ENTRY].insts.iter().map(|&i| &body.insts[i].kind).collect();
        // resolve(p, null); load *resolved; resolve(loaded, resolved p); load through it.
        assert!(matches!(kinds[0], InstKind::Call { args, .. } if args[1] == Operand::Const(Const::null())));
        assert!(matches!(kinds[1], InstKind::Load { ty: Type::Ptr, .. }));
        assert!(matches!(kinds[2], InstKind::Call { .. }));
        let resolved = body.insts[body.blocks[Body::ENTRY].insts[2]].result.unwrap();
        assert!(matches!(kinds[3], InstKind::Load { ty: Type::I32, ptr } if *ptr == Operand::Value(resolved)));
        let Terminator::Jump(to) = &body.blocks[Body::ENTRY].term else { panic!() };
        assert_eq!(to.args, [Operand::Value(resolved)], "the block argument is the resolved pointer");
        // Once only, and the harness is left alone.
        assert_eq!(instrument_unit_program(&mut p).unwrap(), None);
        let main = p.func_by_name("main").unwrap();
        assert_eq!(p.funcs[main].body.as_ref().unwrap().insts.len(), 1);
        // Goals: none in the harness (`main` and `__wd_*`).
        let goals = goals(&p);
        assert!(goals.goals.values().all(|g| match g.kind {
            walkdown_ir::goals::GoalKind::Edge { func, .. } | walkdown_ir::goals::GoalKind::Error { func, .. } =>
                !is_harness(&p.funcs[func].name),
        }));
    }
}
