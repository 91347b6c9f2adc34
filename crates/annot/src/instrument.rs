//! The instrumentation of the paper on walkdown's IR: each assumption id
//! becomes a ghost global byte (1 at the start; `assumed(c, a)` stores
//! `a & (c != 0)` into it), and the conditions of [`crate::infer`] become
//! calls of `__walkdown_prune(cond)` (may-unverified: where it is false,
//! every later execution is verified, and the concolic tracer stops the
//! run) and `__walkdown_tryfirst(cond)` (must-unverified: the search tries
//! inputs that make it true first). A condition is a set of assumption
//! states, computed in the IR as a 64-bit mask shifted right by the state
//! number the ghost bytes spell.
//!
//! The instrumented program has the original's blocks, goals and
//! instruction ids (instructions are only added), so a vector means the
//! same thing on both; it is for the concolic tracer only: the campaign
//! replays and judges tests on the original.

use crate::collect::{Annotations, AssumedCond};
use crate::infer::{Abstract, Conditions, Event, NoInference, States, Transformer};
use std::collections::BTreeMap;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::program::{FuncData, GlobalData};
use walkdown_ir::{
    BinOp, Block, CastOp, CmpPred, Const, FuncId, GlobalId, Inst, InstKind, Loc, Operand, Program, Type, Value,
};
use walkdown_ir::{Body, Builtin, Callee};

/// Which of the paper's configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Config {
    /// No annotations: plain dynamic symbolic execution.
    Uv,
    /// Partial verification results used only at the assertions, as the
    /// paper's `assume(premise ⇒ cond)`: a run that meets an annotated
    /// assertion whose premise holds and whose condition fails stops there
    /// (the authors' earlier work).
    Pv,
    /// May-unverified conditions (prune).
    May,
    /// Must-unverified conditions (try first).
    Must,
    /// Both: try first, then prune.
    MayMust,
}

impl Config {
    /// Every configuration, in the paper's order.
    pub const ALL: [Config; 5] = [Config::Uv, Config::Pv, Config::May, Config::Must, Config::MayMust];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Config::Uv => "uv",
            Config::Pv => "pv",
            Config::May => "may",
            Config::Must => "must",
            Config::MayMust => "may+must",
        }
    }

    /// The configuration called `s`.
    pub fn from_name(s: &str) -> Option<Config> {
        Config::ALL.into_iter().find(|c| c.name() == s)
    }

    fn prunes(self) -> bool {
        matches!(self, Config::May | Config::MayMust)
    }
    fn tries_first(self) -> bool {
        matches!(self, Config::Must | Config::MayMust)
    }
}

/// What the instrumentation put in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instrumentation {
    /// `prune` calls.
    pub prunes: usize,
    /// `tryfirst` calls.
    pub tryfirsts: usize,
    /// Ghost updates at `assumed` sites.
    pub assumed_sites: usize,
    /// With more assumption ids than the inference handles, the ids merged
    /// into one (their names joined by `+`).
    pub merged: Option<String>,
}

/// The program instrumented for `config`, or why not; `targets` says which
/// error goals are the property's assertions.
pub fn instrument(
    program: &Program,
    goals: &Goals,
    annotations: &Annotations,
    config: Config,
    targets: &dyn Fn(GoalId) -> bool,
) -> Result<(Program, Instrumentation), NoInference> {
    let mut report = Instrumentation::default();
    let merged;
    let annotations = if annotations.assumptions.len() > crate::MAX_IDS {
        merged = annotations.merged(crate::MAX_IDS).ok_or(NoInference::TooManyIds(annotations.assumptions.len()))?;
        report.merged = merged.assumptions.last().map(|a| a.name.clone());
        &merged
    } else {
        annotations
    };
    let abs = Abstract::build(program, goals, annotations, targets)?;
    let mut out = program.clone();
    if config == Config::Uv {
        return Ok((out, report));
    }
    let all = abs.all;
    let ghosts: Vec<GlobalId> = annotations
        .assumptions
        .iter()
        .map(|a| {
            out.globals.push(GlobalData {
                name: format!("__walkdown_assumption.{}", a.name),
                size: 1,
                align: 1,
                constant: false,
                init: vec![1],
                relocs: Vec::new(),
                loc: Loc::UNKNOWN,
            })
        })
        .collect();
    let prune = declare(&mut out, "__walkdown_prune");
    let tryfirst = declare(&mut out, "__walkdown_tryfirst");
    // Insertions per function: (block, position) -> what to put before the
    // instruction at that position, in order.
    let mut plan: BTreeMap<(FuncId, Block, usize), Vec<Put>> = BTreeMap::new();
    for (k, a) in annotations.assumptions.iter().enumerate() {
        for s in &a.sites {
            let body = program.funcs[s.func].body.as_ref().expect("defined");
            let (b, pos) = position(body, s.inst);
            let at = if s.cond.before() { pos } else { pos + 1 };
            plan.entry((s.func, b, at)).or_default().push(Put::Assumed { ghost: ghosts[k], cond: s.cond });
            report.assumed_sites += 1;
        }
    }
    let reach = abs.reachable();
    let ahead = abs.assertions_ahead();
    let may = config.prunes().then(|| abs.conditions(Transformer::Wp));
    let must =
        config.tries_first().then(|| (abs.conditions(Transformer::MustAssert), abs.conditions(Transformer::MustAll)));
    for (fid, f) in program.funcs.iter() {
        if f.body.is_none() {
            continue;
        }
        let fi = fid.index();
        let Some(blocks) = &abs.funcs[fi] else { continue };
        if config == Config::Pv {
            for (b, ab) in blocks.iter().enumerate() {
                for e in &ab.events {
                    if let Event::Assert { premise, pos } = *e {
                        if premise != 0 {
                            // The paper's `assume(premise ⇒ cond)`: a run goes on
                            // where the premise fails or the asserted
                            // condition holds (a reach_error call asserts false).
                            let body = f.body.as_ref().expect("defined");
                            let inst = body.blocks[Block::new(b)].insts[pos];
                            let cond = match &body.insts[inst].kind {
                                InstKind::Call { callee: Callee::Direct(t), args, .. }
                                    if program.funcs[*t].builtin == Some(Builtin::Annotation) =>
                                {
                                    args.first().copied()
                                }
                                InstKind::Check { cond, .. } => Some(*cond),
                                // A call of the error function asserts false.
                                InstKind::Call { .. } => None,
                                // A memory access or `free` asserts its own
                                // validity, which no value here states: the
                                // run goes on (and fails there if invalid).
                                _ => continue,
                            };
                            plan.entry((fid, Block::new(b), pos))
                                .or_default()
                                .push(Put::Prune { set: !premise & all, unless: cond });
                            report.prunes += 1;
                        }
                    }
                }
            }
            continue;
        }
        // Points: block entries, and right after assumed sites.
        let mut points: Vec<(usize, usize, bool)> = (0..blocks.len()).map(|b| (b, 0, true)).collect();
        for &(b, pos, _) in &reach.funcs[fi].after_assumed {
            points.push((b, pos, false));
        }
        let preds = predecessors(blocks);
        for (b, pos, is_entry) in points {
            let r = if is_entry { reach.funcs[fi].entry[b] } else { lookup(&reach.funcs[fi].after_assumed, b, pos) };
            if r == 0 {
                continue; // never reached in the abstract program
            }
            // The condition here and where the run came from, each within
            // the states that can occur.
            let here_and_before = |c: &Conditions| -> (States, Option<States>) {
                let fc = &c.funcs[fi];
                if is_entry {
                    let before = if preds[b].is_empty() {
                        None
                    } else {
                        let ends: Vec<States> = preds[b].iter().map(|&p| fc.end[p]).collect();
                        ends.iter().all(|&e| e == fc.entry[b]).then_some(fc.entry[b])
                    };
                    (fc.entry[b], before)
                } else {
                    (lookup(&fc.after_assumed, b, pos), None)
                }
            };
            let may_here = may.as_ref().map(|c| {
                let (wp, before) = here_and_before(c);
                (!wp & all & r, before.map(|w| !w & all & r))
            });
            let must_here = must.as_ref().map(|(ma, ml)| {
                let (a, ba) = here_and_before(ma);
                let (l, bl) = here_and_before(ml);
                (a & l & r, ba.zip(bl).map(|(x, y)| x & y & r))
            });
            let mut puts = Vec::new();
            if let Some((m, before)) = must_here {
                let trivial = m == 0 || m == r;
                let same_as_may = may_here.is_some_and(|(p, _)| p == m);
                if !trivial && before != Some(m) && !same_as_may {
                    puts.push(Put::TryFirst(m));
                    report.tryfirsts += 1;
                }
            }
            if let Some((m, before)) = may_here {
                let has_ahead = ahead[fi].get(b).copied().unwrap_or(false);
                if m != r && before != Some(m) && has_ahead {
                    puts.push(Put::Prune { set: m, unless: None });
                    report.prunes += 1;
                }
            }
            if !puts.is_empty() {
                plan.entry((fid, Block::new(b), pos)).or_default().extend(puts);
            }
        }
    }
    for ((fid, b, pos), puts) in plan.into_iter().rev() {
        let body = out.funcs[fid].body.as_mut().expect("defined");
        let mut new: Vec<Inst> = Vec::new();
        for put in puts {
            emit(body, &mut new, put, &ghosts, prune, tryfirst, program.data_model);
        }
        let insts = &mut body.blocks[b].insts;
        let at = pos.min(insts.len());
        insts.splice(at..at, new);
    }
    walkdown_ir::verify::verify_after("the annotation pass", &out);
    Ok((out, report))
}

enum Put {
    Assumed {
        ghost: GlobalId,
        cond: AssumedCond,
    },
    /// Go on only where the ghost state is in `set` or `unless` is non-zero.
    Prune {
        set: States,
        unless: Option<Operand>,
    },
    TryFirst(States),
}

fn lookup(v: &[(usize, usize, States)], b: usize, pos: usize) -> States {
    v.iter().find(|&&(x, p, _)| x == b && p == pos).map_or(0, |&(_, _, s)| s)
}

fn predecessors(blocks: &[crate::infer::ABlock]) -> Vec<Vec<usize>> {
    let mut p = vec![Vec::new(); blocks.len()];
    for (b, ab) in blocks.iter().enumerate() {
        for &s in &ab.succs {
            p[s].push(b);
        }
    }
    p
}

fn position(body: &Body, inst: Inst) -> (Block, usize) {
    for (b, d) in body.blocks.iter() {
        if let Some(pos) = d.insts.iter().position(|&i| i == inst) {
            return (b, pos);
        }
    }
    unreachable!("an annotation site is in its function")
}

fn declare(p: &mut Program, name: &str) -> FuncId {
    match p.func_by_name(name) {
        Some(f) => f,
        None => p.funcs.push(FuncData::external(name, vec![Type::I1], None, false)),
    }
}

fn emit(
    body: &mut Body,
    new: &mut Vec<Inst>,
    put: Put,
    ghosts: &[GlobalId],
    prune: FuncId,
    tryfirst: FuncId,
    dm: walkdown_ir::DataModel,
) {
    let mut push = |body: &mut Body, kind: InstKind| -> Option<Value> {
        let i = body.create_inst(kind, Loc::UNKNOWN);
        new.push(i);
        body.insts[i].result
    };
    match put {
        Put::Assumed { ghost, cond } => {
            let held = push(body, InstKind::Load { ty: Type::I8, ptr: Operand::Global(ghost) }).expect("load");
            let holds = match cond {
                AssumedCond::Holds(cond) => {
                    let ty = body_operand_type(body, &cond);
                    if ty == Type::I1 {
                        cond
                    } else {
                        let zero = Operand::Const(Const { ty, bits: 0 });
                        Operand::Value(
                            push(body, InstKind::Cmp { pred: CmpPred::Ne, ty, lhs: cond, rhs: zero }).expect("cmp"),
                        )
                    }
                }
                AssumedCond::NoSignedOverflow { op, ty, lhs, rhs } => {
                    let check = match op {
                        BinOp::Sub => BinOp::SSubO,
                        BinOp::Mul => BinOp::SMulO,
                        _ => BinOp::SAddO,
                    };
                    let o = push(body, InstKind::Bin { op: check, ty, lhs, rhs }).expect("overflow predicate");
                    let t = Operand::Const(Const::bool(true));
                    Operand::Value(
                        push(body, InstKind::Bin { op: BinOp::Xor, ty: Type::I1, lhs: Operand::Value(o), rhs: t })
                            .expect("xor"),
                    )
                }
                AssumedCond::Unstated => Operand::Const(Const::bool(false)),
            };
            let byte = push(body, InstKind::Cast { op: CastOp::ZExt, from: Type::I1, to: Type::I8, arg: holds })
                .expect("zext");
            let both = push(
                body,
                InstKind::Bin { op: BinOp::And, ty: Type::I8, lhs: Operand::Value(held), rhs: Operand::Value(byte) },
            )
            .expect("and");
            push(body, InstKind::Store { ty: Type::I8, ptr: Operand::Global(ghost), value: Operand::Value(both) });
        }
        Put::Prune { set, .. } | Put::TryFirst(set) => {
            let (target, unless) = match put {
                Put::Prune { unless, .. } => (prune, unless),
                _ => (tryfirst, None),
            };
            // state = sum of ghost_i << i; cond = (set >> state) & 1.
            let mut state: Operand = Operand::Const(Const::int(Type::I64, 0, dm));
            for (i, &g) in ghosts.iter().enumerate() {
                let v = push(body, InstKind::Load { ty: Type::I8, ptr: Operand::Global(g) }).expect("load");
                let w = push(
                    body,
                    InstKind::Cast { op: CastOp::ZExt, from: Type::I8, to: Type::I64, arg: Operand::Value(v) },
                )
                .expect("zext");
                let shifted = if i == 0 {
                    w
                } else {
                    push(
                        body,
                        InstKind::Bin {
                            op: BinOp::Shl,
                            ty: Type::I64,
                            lhs: Operand::Value(w),
                            rhs: Operand::Const(Const::int(Type::I64, i as i64, dm)),
                        },
                    )
                    .expect("shl")
                };
                state = Operand::Value(
                    push(
                        body,
                        InstKind::Bin { op: BinOp::Or, ty: Type::I64, lhs: state, rhs: Operand::Value(shifted) },
                    )
                    .expect("or"),
                );
            }
            let mask = Operand::Const(Const { ty: Type::I64, bits: set });
            let sh = push(body, InstKind::Bin { op: BinOp::LShr, ty: Type::I64, lhs: mask, rhs: state }).expect("lshr");
            let mut bit = push(
                body,
                InstKind::Cast { op: CastOp::Trunc, from: Type::I64, to: Type::I1, arg: Operand::Value(sh) },
            )
            .expect("trunc");
            if let Some(cond) = unless {
                let ty = body_operand_type(body, &cond);
                let holds = if ty == Type::I1 {
                    cond
                } else {
                    let zero = Operand::Const(Const { ty, bits: 0 });
                    Operand::Value(
                        push(body, InstKind::Cmp { pred: CmpPred::Ne, ty, lhs: cond, rhs: zero }).expect("cmp"),
                    )
                };
                bit = push(body, InstKind::Bin { op: BinOp::Or, ty: Type::I1, lhs: Operand::Value(bit), rhs: holds })
                    .expect("or");
            }
            push(body, InstKind::Call { callee: Callee::Direct(target), args: vec![Operand::Value(bit)], ret: None });
        }
    }
}

fn body_operand_type(body: &Body, op: &Operand) -> Type {
    match op {
        Operand::Value(v) => body.values[*v].ty,
        Operand::Const(c) => c.ty,
        Operand::Global(_) | Operand::Func(_) => Type::Ptr,
    }
}
