//! Goals: the branch outcomes and error sites a test suite aims to cover.
//!
//! Goals are numbered by walking the program in order (functions, blocks,
//! instructions), so the same program always gets the same ids. Engines
//! refer to goals by [`GoalId`] and keep their verdicts in side tables.

use crate::entities::{Block, FuncId, Inst};
use crate::entity::PrimaryMap;
use crate::inst::{CheckKind, InstKind, Operand, Terminator};
use crate::loc::Loc;
use crate::program::{Body, Program, ValueDef};
use std::collections::HashMap;

crate::entity_id!(
    /// A goal of the program.
    GoalId, "g"
);

/// What must happen for a goal to be covered.
#[allow(missing_docs)] // each variant's doc describes its fields
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoalKind {
    /// The terminator of `block` goes to its successor number `succ`
    /// (branch: 0 = true, 1 = false; switch: cases in order, then default).
    Edge { func: FuncId, block: Block, succ: u32 },
    /// The instruction `inst` fails with an error of class `site`.
    Error { func: FuncId, inst: Inst, site: ErrorSite },
}

/// The class of errors an error site may raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorSite {
    /// A `check` of this kind fails.
    Check(CheckKind),
    /// A memory access faults (null, out of bounds, use after free).
    Memory,
    /// `free` is misused (double or invalid free).
    Free,
}

/// A goal and where it is in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// What covers it.
    pub kind: GoalKind,
    /// Its source location.
    pub loc: Loc,
    /// For an edge: a short description ("true", "false", "case 3", "default").
    pub label: EdgeLabel,
}

/// How an edge goal is described to users.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeLabel {
    /// Not an edge.
    None,
    /// A branch's true side.
    True,
    /// A branch's false side.
    False,
    /// A switch case with this value (sign-extended).
    Case(i64),
    /// A switch's default.
    Default,
}

/// All goals of a program, with lookups from edges and instructions.
#[derive(Clone, Debug, Default)]
pub struct Goals {
    /// Goals in id order.
    pub goals: PrimaryMap<GoalId, Goal>,
    edges: HashMap<(FuncId, Block), Vec<GoalId>>,
    insts: HashMap<(FuncId, Inst), GoalId>,
}

impl Goals {
    /// Numbers the goals of `program`.
    pub fn compute(program: &Program) -> Goals {
        Goals::compute_where(program, |_| true)
    }

    /// Numbers the goals of the functions of `program` that `keep` accepts
    /// (unit mode leaves out its harness's); walkdown's runtime functions
    /// never have goals.
    pub fn compute_where(program: &Program, keep: impl Fn(&crate::FuncData) -> bool) -> Goals {
        let mut g = Goals::default();
        for (fid, func) in program.funcs.iter() {
            let Some(body) = &func.body else { continue };
            if !keep(func) || is_foreign_code(func) {
                continue;
            }
            for (b, data) in body.blocks.iter() {
                for &inst in &data.insts {
                    if let Some(site) = error_site(program, body, inst) {
                        let loc = body.insts[inst].loc;
                        let id = g.goals.push(Goal {
                            kind: GoalKind::Error { func: fid, inst, site },
                            loc,
                            label: EdgeLabel::None,
                        });
                        g.insts.insert((fid, inst), id);
                    }
                }
                if !data.term_loc.is_known() {
                    continue;
                }
                let labels: Vec<EdgeLabel> = match &data.term {
                    Terminator::Branch { .. } => vec![EdgeLabel::True, EdgeLabel::False],
                    Terminator::Switch { ty, cases, .. } => {
                        let bits = ty.bits(program.data_model);
                        cases
                            .iter()
                            .map(|(k, _)| EdgeLabel::Case(sign_extend(*k, bits)))
                            .chain(std::iter::once(EdgeLabel::Default))
                            .collect()
                    }
                    _ => continue,
                };
                let ids = labels
                    .into_iter()
                    .enumerate()
                    .map(|(succ, label)| {
                        g.goals.push(Goal {
                            kind: GoalKind::Edge { func: fid, block: b, succ: succ as u32 },
                            loc: data.term_loc,
                            label,
                        })
                    })
                    .collect();
                g.edges.insert((fid, b), ids);
            }
        }
        g
    }

    /// The goal of successor `succ` of `block`'s terminator, if it is one.
    #[inline]
    pub fn edge(&self, func: FuncId, block: Block, succ: u32) -> Option<GoalId> {
        self.edges.get(&(func, block)).and_then(|v| v.get(succ as usize)).copied()
    }

    /// The error-site goal of `inst`, if it is one.
    #[inline]
    pub fn error_site(&self, func: FuncId, inst: Inst) -> Option<GoalId> {
        self.insts.get(&(func, inst)).copied()
    }

    /// The number of goals.
    pub fn len(&self) -> usize {
        self.goals.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    /// A one-line description: kind and label.
    pub fn describe(&self, id: GoalId) -> String {
        let g = &self.goals[id];
        match (g.kind, g.label) {
            (GoalKind::Edge { .. }, EdgeLabel::True) => "branch true".into(),
            (GoalKind::Edge { .. }, EdgeLabel::False) => "branch false".into(),
            (GoalKind::Edge { .. }, EdgeLabel::Case(k)) => format!("case {k}"),
            (GoalKind::Edge { .. }, _) => "case default".into(),
            (GoalKind::Error { site: ErrorSite::Check(k), .. }, _) => format!("error {k}"),
            (GoalKind::Error { site: ErrorSite::Memory, .. }, _) => "error memory".into(),
            (GoalKind::Error { site: ErrorSite::Free, .. }, _) => "error free".into(),
        }
    }
}

/// Whether `name` is a function of walkdown's own runtime, which the
/// frontend links into a program (the soft-float `long double`
/// operations): its code is not the program's, so it has no goals.
pub fn is_runtime_function(name: &str) -> bool {
    name.starts_with("__walkdown_f80_")
}

/// Whether `f`'s code is not the program's: walkdown's runtime or the C
/// library the frontend linked in. Such code has no goals; the analyses
/// run it but claim nothing about it.
pub fn is_foreign_code(f: &crate::FuncData) -> bool {
    f.library || is_runtime_function(&f.name)
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// The class of errors `inst` may raise, if it is an error site.
fn error_site(program: &Program, body: &Body, inst: Inst) -> Option<ErrorSite> {
    match &body.insts[inst].kind {
        InstKind::Check { kind, cond } => {
            // A check whose condition is the constant true can never fail.
            match cond {
                Operand::Const(c) if c.bits != 0 => None,
                _ => Some(ErrorSite::Check(*kind)),
            }
        }
        InstKind::Load { ty, ptr } | InstKind::Store { ty, ptr, .. } => {
            let width = ty.store_size(program.data_model);
            (!statically_in_bounds(program, body, ptr, width)).then_some(ErrorSite::Memory)
        }
        InstKind::Call { callee: crate::Callee::Direct(f), .. } => {
            use crate::program::Builtin::*;
            match program.funcs[*f].builtin? {
                Free | Realloc => Some(ErrorSite::Free),
                Memset | Memcpy | Memmove | Memcmp | Strlen | Strcmp | Strncmp | Strcpy | Strncpy | Strchr | Strcat
                | Strncat | Strrchr | Strstr | Strnlen | Memchr => Some(ErrorSite::Memory),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether an access of `width` bytes at `ptr` is known to stay inside its
/// object: `ptr` is a global or a constant-size stack slot at offset 0.
fn statically_in_bounds(program: &Program, body: &Body, ptr: &Operand, width: u64) -> bool {
    match ptr {
        Operand::Global(g) => program.globals[*g].size >= width,
        Operand::Value(v) => match body.values[*v].def {
            ValueDef::Inst(i) => match &body.insts[i].kind {
                InstKind::Alloca { size: Operand::Const(c), .. } => c.bits >= width,
                _ => false,
            },
            ValueDef::Param(..) => false,
        },
        _ => false,
    }
}
