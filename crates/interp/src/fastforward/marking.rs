//! Which loops may be fast-forwarded: loops whose iterations are a pure
//! cycle (no stores, calls or inputs on the way round, calls that never
//! return counting as leaving the loop), with head updates that may be
//! affine.

use super::*;

/// Whether `x` may be part of a loop that is fast-forwarded.
pub(super) fn pure(x: &XInst) -> bool {
    !matches!(
        x,
        XInst::Load { .. }
            | XInst::Store { .. }
            | XInst::Alloca { .. }
            | XInst::Call { .. }
            | XInst::Nondet { .. }
            | XInst::Ret { .. }
            | XInst::Unreachable
            | XInst::Trap { .. }
    )
}

/// Whether `kind` is a call that never returns (`reach_error`, `abort`,
/// `exit`, a failed `assert`, or a defined function without a `return`):
/// a block holding one leaves every loop around it (a loop whose body
/// reaches `reach_error` under a condition may still be fast-forwarded;
/// the jump ends before the iteration that calls it).
pub(super) fn never_returns(program: &walkdown_ir::Program, kind: &InstKind) -> bool {
    let InstKind::Call { callee: walkdown_ir::Callee::Direct(f), .. } = kind else {
        return false;
    };
    let Some(fd) = program.funcs.get(*f) else {
        return false;
    };
    match &fd.body {
        Some(b) => !b.blocks.iter().any(|(_, d)| matches!(d.term, walkdown_ir::Terminator::Return(_))),
        None => matches!(
            fd.name.as_str(),
            "reach_error"
                | "__VERIFIER_error"
                | "abort"
                | "exit"
                | "_Exit"
                | "_exit"
                | "__assert_fail"
                | "__assert"
                | "__assert_rtn"
                | "__assert_perror_fail"
        ),
    }
}

/// The edges a terminator takes.
pub(super) fn term_edges(x: &XInst, switches: &[crate::code::SwitchTable], cases: &[(u64, u32)]) -> Vec<u32> {
    match *x {
        XInst::Jump { edge } => vec![edge],
        XInst::Branch { t, f, .. } => vec![t, f],
        XInst::Switch { table } => {
            let Some(t) = switches.get(table as usize) else {
                return Vec::new();
            };
            let start = t.cases_start as usize;
            let mut v: Vec<u32> =
                cases.get(start..start + t.cases_len as usize).unwrap_or(&[]).iter().map(|&(_, e)| e).collect();
            v.push(t.default);
            v
        }
        _ => Vec::new(),
    }
}

/// Finds the side-effect-free natural loops of one function (laid out from
/// `starts`, its blocks' first program counters) and marks their back
/// edges.
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyze_function(
    program: &walkdown_ir::Program,
    body: &Body,
    starts: &[u32],
    code: &[XInst],
    edges: &mut [Edge],
    switches: &[crate::code::SwitchTable],
    cases: &[(u64, u32)],
    dm: DataModel,
    out: &mut FastForward,
) {
    let n = starts.len();
    let block_of = |pc: u32| starts.binary_search(&pc).ok();
    // Successor blocks by edge, from the executable form (what runs).
    let mut succ: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    let mut pure_block = vec![true; n];
    for (b, data) in body.blocks.iter().enumerate().map(|(i, (_, d))| (i, d)) {
        let s = starts[b] as usize;
        let end = s + data.insts.len();
        let Some(insts) = code.get(s..=end) else {
            return;
        };
        pure_block[b] = insts.iter().all(pure);
        if data.insts.iter().any(|&i| body.insts.get(i).is_some_and(|d| never_returns(program, &d.kind))) {
            // The run ends here: for the loops, an exit.
            continue;
        }
        for e in term_edges(&insts[insts.len() - 1], switches, cases) {
            if let Some(t) = edges.get(e as usize).and_then(|ed| block_of(ed.pc)) {
                succ[b].push((e, t));
            }
        }
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &(_, t) in ss {
            pred[t].push(b);
        }
    }
    // Back edges of a depth-first search from the entry (iterative: a
    // function may have thousands of blocks).
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the stack, 2 done
    let mut back: Vec<(usize, usize)> = Vec::new();
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    if n > 0 {
        state[0] = 1;
    }
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if let Some(&(_, t)) = succ[b].get(*i) {
            *i += 1;
            match state[t] {
                0 => {
                    state[t] = 1;
                    stack.push((t, 0));
                }
                1 => back.push((b, t)),
                _ => {}
            }
        } else {
            state[b] = 2;
            stack.pop();
        }
    }
    // One loop per head: the union of the natural loops of its back edges.
    let mut heads: Vec<usize> = back.iter().map(|&(_, h)| h).collect();
    heads.sort_unstable();
    heads.dedup();
    for h in heads {
        let mut inloop = vec![false; n];
        inloop[h] = true;
        let mut work: Vec<usize> = back.iter().filter(|&&(_, t)| t == h).map(|&(u, _)| u).collect();
        while let Some(b) = work.pop() {
            if !inloop[b] {
                inloop[b] = true;
                work.extend(pred[b].iter().copied());
            }
        }
        if (0..n).any(|b| inloop[b] && !pure_block[b]) || !updates_may_be_affine(body, &inloop, h) {
            continue;
        }
        let Some((_, hdata)) = body.blocks.iter().nth(h) else {
            continue;
        };
        let params = hdata
            .params
            .iter()
            .map(|&v| {
                let ty = body.values.get(v).map_or(Type::F64, |d| d.ty);
                let bits = if ty.is_int_or_ptr() { ty.bits(dm) as u8 } else { 0 };
                (v.index() as u32, bits)
            })
            .collect();
        let idx = out.loops.len() as u32;
        let mut blocks: Vec<u32> = (0..n).filter(|&b| inloop[b]).map(|b| starts[b]).collect();
        blocks.sort_unstable();
        let at = out.heads.partition_point(|&(pc, _)| pc < starts[h]);
        out.heads.insert(at, (starts[h], idx));
        out.loops.push(FfLoop { head: starts[h], params, blocks });
        for (b, ss) in succ.iter().enumerate() {
            if !inloop[b] {
                continue;
            }
            for &(e, t) in ss {
                if t == h {
                    if let Some(ed) = edges.get_mut(e as usize) {
                        ed.ff = idx;
                    }
                }
            }
        }
    }
}

/// Whether some back edge of the loop headed by block `h` may carry each
/// head value's next value as a fixed step from it: no head value's next
/// value is computed by an operation that is not affine (`&`, `%`, a
/// shift by a varying amount, a product of two varying values) from
/// values that vary in the loop, and none adds another varying head value
/// to itself (an accumulator `sum += i` grows quadratically). Loops that
/// fail this never jump; rejecting them here spares every run the tries.
/// Must-facts: a join whose incoming values are all non-affine is.
pub(super) fn updates_may_be_affine(body: &Body, inloop: &[bool], h: usize) -> bool {
    let blocks: Vec<(usize, &walkdown_ir::BlockData)> =
        body.blocks.iter().enumerate().filter(|(i, _)| inloop[*i]).map(|(i, (_, d))| (i, d)).collect();
    let Some((_, head)) = body.blocks.iter().nth(h) else {
        return false;
    };
    if head.params.len() > 64 {
        return true;
    }
    // Which head values each value depends on (bit i: head parameter i),
    // and which values are surely not affine in the iteration count.
    let mut opaque: HashSet<Value> = HashSet::new();
    let block_index: HashMap<walkdown_ir::Block, usize> =
        body.blocks.iter().enumerate().map(|(i, (b, _))| (b, i)).collect();
    // Head values every back edge passes on unchanged do not vary.
    let back_calls: Vec<&walkdown_ir::BlockCall> = blocks
        .iter()
        .flat_map(|&(_, data)| data.term.successors())
        .filter(|c| block_index.get(&c.block) == Some(&h))
        .collect();
    let mut deps: HashMap<Value, u64> = head
        .params
        .iter()
        .enumerate()
        .filter(|&(i, &p)| back_calls.iter().any(|c| c.args.get(i).is_some_and(|a| *a != Operand::Value(p))))
        .map(|(i, &p)| (p, 1u64 << i))
        .collect();
    let dep = |deps: &HashMap<Value, u64>, o: &Operand| match o {
        Operand::Value(v) => deps.get(v).copied().unwrap_or(0),
        _ => 0,
    };
    let is_opaque = |opaque: &HashSet<Value>, o: &Operand| matches!(o, Operand::Value(v) if opaque.contains(v));
    for _round in 0..=blocks.len() + 1 {
        let mut changed = false;
        // Joins: the incoming in-loop arguments of each non-head block.
        let mut incoming: HashMap<Value, (u64, bool)> = HashMap::new();
        for &(_, data) in &blocks {
            for call in data.term.successors() {
                let Some(&t) = block_index.get(&call.block) else { continue };
                if t == h || !inloop[t] {
                    continue;
                }
                let Some((_, td)) = body.blocks.iter().nth(t) else { continue };
                for (&p, a) in td.params.iter().zip(&call.args) {
                    let e = incoming.entry(p).or_insert((0, true));
                    e.0 |= dep(&deps, a);
                    e.1 &= is_opaque(&opaque, a);
                }
            }
        }
        for (p, (d, o)) in incoming {
            if deps.get(&p).copied().unwrap_or(0) | d != deps.get(&p).copied().unwrap_or(0) {
                *deps.entry(p).or_insert(0) |= d;
                changed = true;
            }
            if o && opaque.insert(p) {
                changed = true;
            }
        }
        for &(_, data) in &blocks {
            for &inst in &data.insts {
                let Some(d) = body.insts.get(inst) else { continue };
                let Some(r) = d.result else { continue };
                let mut all = 0u64;
                let mut any_opaque = false;
                d.kind.for_each_operand(|o| {
                    all |= dep(&deps, o);
                    any_opaque |= is_opaque(&opaque, o);
                });
                let (rd, ro) = match &d.kind {
                    InstKind::Bin { op, ty, lhs, rhs } => {
                        let non_affine = all != 0
                            && (!ty.is_int_or_ptr()
                                || match op {
                                    BinOp::Add | BinOp::Sub => false,
                                    BinOp::Mul => dep(&deps, lhs) != 0 && dep(&deps, rhs) != 0,
                                    BinOp::Shl => dep(&deps, rhs) != 0,
                                    _ => true,
                                });
                        (all, non_affine || any_opaque)
                    }
                    InstKind::Un { .. } => (all, all != 0 || any_opaque),
                    InstKind::Cast { from, to, .. } => {
                        (all, any_opaque || (all != 0 && !(from.is_int_or_ptr() && to.is_int_or_ptr())))
                    }
                    // A comparison's outcome is fixed between two jumps.
                    InstKind::Cmp { .. } => (0, false),
                    InstKind::Select { if_true, if_false, .. } => (
                        dep(&deps, if_true) | dep(&deps, if_false),
                        is_opaque(&opaque, if_true) && is_opaque(&opaque, if_false),
                    ),
                    _ => (all, any_opaque),
                };
                let old = deps.get(&r).copied().unwrap_or(0);
                if old | rd != old {
                    deps.insert(r, old | rd);
                    changed = true;
                }
                if ro && opaque.insert(r) {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Some back edge whose every argument may be a fixed step.
    blocks.iter().any(|&(_, data)| {
        data.term.successors().any(|call| {
            block_index.get(&call.block) == Some(&h)
                && head.params.iter().zip(&call.args).enumerate().all(|(i, (&p, a))| {
                    if *a == Operand::Value(p) {
                        return true;
                    }
                    let d = dep(&deps, a);
                    !is_opaque(&opaque, a) && (d & (1u64 << i) == 0 || d & !(1u64 << i) == 0)
                })
        })
    })
}
