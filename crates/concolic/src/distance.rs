//! Distances on the interprocedural control-flow graph from every block to
//! the nearest goal not yet covered, for the `cfg-distance` search order.
//!
//! A block is at distance 0 when one of its own goals (a branch outcome of
//! its terminator, an error site inside it) is open; otherwise it is one
//! more than the nearest of its successors and of the entries of the
//! functions it calls. Returning to callers is not followed: a goal after
//! the call is reached through the caller's own successors.

use std::collections::HashMap;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::{GoalId, GoalKind, Goals};
use walkdown_ir::{Block, Body, Callee, FuncId, InstKind, Program};

/// Distances, refreshed when coverage changes.
#[derive(Clone, Debug, Default)]
pub struct Distances {
    per_func: HashMap<FuncId, Vec<u32>>,
    open: Vec<bool>,
}

impl Distances {
    /// Distances for the goals not in `covered`.
    pub fn compute(program: &Program, goals: &Goals, covered: &[bool]) -> Distances {
        let open: Vec<bool> = (0..goals.len()).map(|i| !covered.get(i).copied().unwrap_or(false)).collect();
        let mut per_func: HashMap<FuncId, Vec<u32>> = HashMap::new();
        for (f, data) in program.funcs.iter() {
            if let Some(body) = &data.body {
                per_func.insert(f, vec![u32::MAX; body.blocks.len()]);
            }
        }
        for (id, g) in goals.goals.iter() {
            if !open[id.index()] {
                continue;
            }
            let (f, b) = match g.kind {
                GoalKind::Edge { func, block, .. } => (func, block),
                GoalKind::Error { func, inst, .. } => match block_of(program, func, inst) {
                    Some(b) => (func, b),
                    None => continue,
                },
            };
            if let Some(d) = per_func.get_mut(&f) {
                d[b.index()] = 0;
            }
        }
        // Relax until nothing changes; programs have few thousand blocks.
        loop {
            let mut changed = false;
            for (f, data) in program.funcs.iter() {
                let Some(body) = &data.body else { continue };
                for (b, block) in body.blocks.iter().rev() {
                    let mut best = per_func[&f][b.index()];
                    for s in block.term.successors() {
                        best = best.min(per_func[&f][s.block.index()].saturating_add(1));
                    }
                    for &i in &block.insts {
                        if let InstKind::Call { callee: Callee::Direct(g), .. } = body.insts[i].kind {
                            if let Some(d) = per_func.get(&g) {
                                best = best.min(d[Body::ENTRY.index()].saturating_add(1));
                            }
                        }
                    }
                    let slot = &mut per_func.get_mut(&f).expect("defined").as_mut_slice()[b.index()];
                    if best < *slot {
                        *slot = best;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Distances { per_func, open }
    }

    /// Distance of block `b` of `f` (`u32::MAX` when no open goal is
    /// reachable from it).
    pub fn block(&self, f: FuncId, b: Block) -> u32 {
        self.per_func.get(&f).and_then(|d| d.get(b.index()).copied()).unwrap_or(u32::MAX)
    }

    /// Whether goal `g` is still open.
    pub fn is_open(&self, g: GoalId) -> bool {
        self.open.get(g.index()).copied().unwrap_or(false)
    }
}

fn block_of(program: &Program, f: FuncId, inst: walkdown_ir::Inst) -> Option<Block> {
    let body = program.funcs[f].body.as_ref()?;
    body.blocks.iter().find(|(_, d)| d.insts.contains(&inst)).map(|(b, _)| b)
}
