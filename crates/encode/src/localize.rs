//! Makes every block self-contained: a value used in a block other than the
//! one defining it becomes a parameter of each block it is live into, and
//! every jump passes it. Then a block can be copied (by unwinding) without
//! knowing which copy of a dominating block defined its values, and the
//! passive form of the program is exactly the block parameters with one
//! equality per edge.
//!
//! Block and instruction ids are unchanged, so the provenance of the body
//! still holds.

use crate::EncodeError;
use std::collections::BTreeSet;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::verify::reverse_postorder;
use walkdown_ir::{Block, Body, Operand, Terminator, Value};

/// Rewrites `body` so no value is used outside its defining block except
/// through block parameters. Returns each new parameter with the value it
/// carries.
pub fn localize(body: &mut Body, func_name: &str) -> Result<Vec<(Value, Value)>, EncodeError> {
    let n = body.blocks.len();
    // Which block defines each value (one pass instead of a search per use).
    let mut def_of: Vec<Option<Block>> = vec![None; body.values.len()];
    for (b, d) in body.blocks.iter() {
        for &p in &d.params {
            def_of[p.index()] = Some(b);
        }
        for &i in &d.insts {
            if let Some(r) = body.insts[i].result {
                def_of[r.index()] = Some(b);
            }
        }
    }
    // Values a block uses but does not define.
    let mut uses: Vec<BTreeSet<Value>> = vec![BTreeSet::new(); n];
    for (b, d) in body.blocks.iter() {
        let mut add = |op: &Operand| {
            if let Operand::Value(v) = op {
                if def_of[v.index()] != Some(b) {
                    uses[b.index()].insert(*v);
                }
            }
        };
        for &i in &d.insts {
            body.insts[i].kind.for_each_operand(&mut add);
        }
        match &d.term {
            Terminator::Branch { cond, .. } => add(cond),
            Terminator::Switch { value, .. } => add(value),
            Terminator::Return(Some(v)) => add(v),
            _ => {}
        }
        for c in d.term.successors() {
            c.args.iter().for_each(&mut add);
        }
    }
    // Live-in sets, backward to a fixpoint (postorder visits successors first).
    let mut order = reverse_postorder(body);
    order.reverse();
    let mut live: Vec<BTreeSet<Value>> = uses.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let mut add: Vec<Value> = Vec::new();
            for c in body.blocks[b].term.successors() {
                for &v in &live[c.block.index()] {
                    if def_of[v.index()] != Some(b) && !live[b.index()].contains(&v) {
                        add.push(v);
                    }
                }
            }
            if !add.is_empty() {
                changed = true;
                live[b.index()].extend(add);
            }
        }
    }
    if !live[Body::ENTRY.index()].is_empty() {
        return Err(EncodeError::unsupported(
            "a value used before its definition",
            func_name,
            body.blocks[Body::ENTRY].term_loc,
        ));
    }
    // New parameters, then each block's uses renamed to them.
    let mut maps: Vec<Vec<(Value, Value)>> = vec![Vec::new(); n];
    for (i, set) in live.iter().enumerate() {
        let b = Block::new(i);
        for &v in set {
            let ty = body.values[v].ty;
            let p = body.add_param(b, ty);
            maps[i].push((v, p));
        }
    }
    for (i, map) in maps.iter().enumerate() {
        let b = Block::new(i);
        let rename = |op: &mut Operand| {
            if let Operand::Value(v) = op {
                if let Ok(k) = map.binary_search_by_key(v, |&(old, _)| old) {
                    *op = Operand::Value(map[k].1);
                }
            }
        };
        let insts = body.blocks[b].insts.clone();
        for inst in insts {
            body.insts[inst].kind.for_each_operand_mut(rename);
        }
        let mut term = std::mem::replace(&mut body.blocks[b].term, Terminator::Unreachable);
        match &mut term {
            Terminator::Branch { cond, .. } => rename(cond),
            Terminator::Switch { value, .. } => rename(value),
            Terminator::Return(Some(v)) => rename(v),
            _ => {}
        }
        for c in term.successors_mut() {
            c.args.iter_mut().for_each(rename);
            for &v in &live[c.block.index()] {
                let mut op = Operand::Value(v);
                rename(&mut op);
                c.args.push(op);
            }
        }
        body.blocks[b].term = term;
    }
    Ok(maps.into_iter().flat_map(|m| m.into_iter().map(|(old, new)| (new, old))).collect())
}
