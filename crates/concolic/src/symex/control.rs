//! Control flow in a traced run: terminators (branch points with their
//! alternatives), the monitor's view of each successor, block jumps, and
//! the interpreter's loop fast-forwarding followed symbolically.

use super::*;

impl Run<'_, '_> {
    /// Whether the monitor shows successor `succ` of the branch at `site`
    /// leads to no open goal from where the run is.
    pub(super) fn monitor_useless(&self, site: (FuncId, Block), succ: u32) -> bool {
        match &self.t.monitor {
            Some(m) => !m.useful(&self.monitor_at, site, succ),
            None => false,
        }
    }

    /// The monitor's distance from successor `succ` of the branch at
    /// `site` to an open goal's edge.
    pub(super) fn monitor_distance(&self, site: (FuncId, Block), succ: u32) -> Option<u32> {
        self.t.monitor.as_ref().and_then(|m| m.distance(&self.monitor_at, site, succ))
    }

    /// Steps the monitor over the run's decision at `site`.
    pub(super) fn monitor_step(&mut self, site: (FuncId, Block), succ: u32) {
        if let Some(m) = &self.t.monitor {
            let at = std::mem::replace(&mut self.monitor_at, MonitorPosition::Anywhere);
            self.monitor_at = m.step(at, site, succ);
        }
    }

    /// Moves to `call`'s block with its arguments.
    pub(super) fn jump(&mut self, call: &BlockCall) {
        let (func, from) = (self.frame().func, self.frame().block);
        let vals: Vec<(u64, Option<ExprId>)> = call.args.iter().map(|a| self.operand(a)).collect();
        let body = self.frame().body;
        let params = &body.blocks[call.block].params;
        for (p, (v, s)) in params.iter().zip(vals) {
            self.set(*p, v, s);
        }
        let f = self.frame_mut();
        f.block = call.block;
        f.pos = 0;
        if let Some(&li) = self.t.ff_heads.get(&(func, call.block)) {
            self.fast_forward(func, from, call.block, li);
        }
    }

    /// At the head of fast-forward loop `li`, entered from `from`: jumps
    /// over the iterations the interpreter would jump over, when every
    /// value the loop reads is concrete (the skipped iterations then add
    /// nothing to the path condition); otherwise the loop runs as it is.
    pub(super) fn fast_forward(&mut self, func: FuncId, from: Block, head: Block, li: usize) {
        let p = self.t.prepared;
        let Some(l) = p.ff.loops.get(li) else { return };
        // Only back edges: the interpreter, too, first runs an iteration.
        match self.t.ff_starts.get(&(func, from)) {
            Some(pc) if l.blocks.binary_search(pc).is_ok() => {}
            _ => return,
        }
        let wait = self.ff_wait.entry(li).or_insert((0, 0));
        if wait.0 > 0 {
            wait.0 -= 1;
            return;
        }
        let jumped = self.try_fast_forward(func, head, li);
        if jumped {
            // The monitor counts decisions; the iterations jumped over
            // decided branches it did not see.
            self.monitor_at = MonitorPosition::Anywhere;
        }
        let wait = self.ff_wait.entry(li).or_insert((0, 0));
        if jumped {
            wait.1 = 0;
        } else {
            wait.1 = (wait.1 + 1).min(10);
            wait.0 = (1u32 << wait.1) - 1;
        }
    }

    pub(super) fn try_fast_forward(&mut self, func: FuncId, head: Block, li: usize) -> bool {
        let p = self.t.prepared;
        let f = self.frame();
        if self
            .t
            .ff_used
            .get(li)
            .is_none_or(|used| used.iter().any(|v| f.shadow.get(v.index()).is_none_or(|s| s.is_some())))
        {
            return false;
        }
        let FuncKind::Defined { frame, consts_start, consts_len, .. } = &p.funcs[func.index()].kind else {
            return false;
        };
        // The interpreter's frame layout: values, a sink, constants.
        let (cs, cl) = (*consts_start as usize, *consts_len as usize);
        let mut regs = vec![0u64; *frame as usize];
        let n = f.vals.len();
        let (Some(consts), true) = (p.consts.get(cs..cs + cl), n + cl <= regs.len()) else {
            return false;
        };
        regs[..n].copy_from_slice(&f.vals);
        let cb = regs.len() - cl;
        regs[cb..].copy_from_slice(consts);
        let Some(jump) = walkdown_interp::fastforward::plan(p, li, &regs, 0, &mut Vec::new()) else {
            return false;
        };
        let params = &f.body.blocks[head].params;
        let after: Vec<(Value, u64)> =
            params.iter().enumerate().map(|(i, &v)| (v, jump.value_after(i, f.vals[v.index()]))).collect();
        for (v, bits) in after {
            self.set(v, bits, None);
        }
        for &g in jump.goals() {
            self.cover(Some(GoalId::new(g as usize)));
        }
        true
    }

    /// Executes a terminator; true when the program ended.
    pub(super) fn exec_term(&mut self, term: &Terminator) -> Result<bool, Stop> {
        let func = self.frame().func;
        let block = self.frame().block;
        match term {
            Terminator::Jump(call) => self.jump(call),
            Terminator::Branch { cond, if_true, if_false } => {
                let (c, sc) = self.operand(cond);
                let taken = c & 1 != 0;
                let (taken_succ, other_succ) = if taken { (0, 1) } else { (1, 0) };
                let other_useless = self.monitor_useless((func, block), other_succ);
                let other_distance = self.monitor_distance((func, block), other_succ);
                self.monitor_step((func, block), taken_succ);
                let goal = |succ: u32| self.t.goals.edge(func, block, succ);
                let (g_taken, g_other) = if taken { (goal(0), goal(1)) } else { (goal(1), goal(0)) };
                self.cover(g_taken);
                let exit = if self.t.trip_exits.is_empty() {
                    None
                } else {
                    self.t.trip_exits.get(&(func, block, if taken { 0 } else { 1 })).copied()
                };
                let trip = match exit {
                    Some(k) => {
                        let loops = Rc::clone(&self.t.trip_loops);
                        self.trip_exit(&loops[k], cond, taken)
                    }
                    None => None,
                };
                if let Some(trip) = trip {
                    // The exit constraint in the trip count replaces the
                    // branch's own (which would pin the count to this
                    // run's), and is kept past the site's visit cap: it is
                    // what later branches on the head's values rest on.
                    let mut alts = Vec::new();
                    if let Some(e) = sc {
                        let b = self.sym.bv1_to_bool(e);
                        let stay = if taken { self.sym.not(b) } else { b };
                        let other = if taken { if_false.block } else { if_true.block };
                        alts.push(Alternative {
                            cond: stay,
                            goal: g_other,
                            kind: AltKind::Branch,
                            target: Some((func, other)),
                            useless: other_useless,
                            distance: other_distance,
                        });
                    }
                    if self.may_record((func, block)) && !alts.is_empty() {
                        let prefix = self.trace.path.len();
                        self.trace.points.push(BranchPoint { prefix, alternatives: alts, site: (func, block) });
                    }
                    self.push_constraint(trip.constraint);
                    // Rebound before the jump, whose arguments may pass
                    // the head's values on.
                    for (v, e) in trip.rebind {
                        let bits = self.frame().vals[v.index()];
                        self.set(v, bits, Some(e));
                    }
                    self.jump(if taken { if_true } else { if_false });
                    return Ok(false);
                }
                if let Some(e) = sc {
                    let b = self.sym.bv1_to_bool(e);
                    let nb = self.sym.not(b);
                    let (t, alt) = if taken { (b, nb) } else { (nb, b) };
                    let other = if taken { if_false.block } else { if_true.block };
                    let a = Alternative {
                        cond: alt,
                        goal: g_other,
                        kind: AltKind::Branch,
                        target: Some((func, other)),
                        useless: other_useless,
                        distance: other_distance,
                    };
                    let mut alts = vec![a];
                    if self.limits.accelerate {
                        self.note_counter((func, block), t);
                        let visits = self.visits.get(&(func, block)).copied().unwrap_or(0);
                        if visits + 1 == self.limits.max_visits_per_site {
                            let stay = if taken { if_true.block } else { if_false.block };
                            alts.extend(self.acceleration((func, block), t, (func, stay)));
                        }
                    }
                    self.branch_point((func, block), alts, t);
                }
                self.jump(if taken { if_true } else { if_false });
            }
            Terminator::Switch { ty, value, cases, default } => {
                let (v, sv) = self.operand(value);
                let w = self.width(*ty);
                let v = walkdown_interp::eval::truncate(v, w);
                let chosen = cases.iter().position(|(k, _)| walkdown_interp::eval::truncate(*k, w) == v);
                let succ = chosen.unwrap_or(cases.len()) as u32;
                self.cover(self.t.goals.edge(func, block, succ));
                let useless: Vec<bool> =
                    (0..=cases.len() as u32).map(|k| self.monitor_useless((func, block), k)).collect();
                let distance: Vec<Option<u32>> =
                    (0..=cases.len() as u32).map(|k| self.monitor_distance((func, block), k)).collect();
                self.monitor_step((func, block), succ);
                if let Some(e) = sv {
                    let mut eqs = Vec::with_capacity(cases.len());
                    for (k, _) in cases {
                        let kc = self.sym.bv(*k, w);
                        eqs.push(self.sym.eq(e, kc));
                    }
                    let mut none = self.sym.bool(true);
                    for &q in &eqs {
                        let nq = self.sym.not(q);
                        none = self.sym.and(none, nq);
                    }
                    let mut alts = Vec::new();
                    for (i, &q) in eqs.iter().enumerate() {
                        if Some(i) != chosen {
                            let goal = self.t.goals.edge(func, block, i as u32);
                            alts.push(Alternative {
                                cond: q,
                                goal,
                                kind: AltKind::Branch,
                                target: Some((func, cases[i].1.block)),
                                useless: useless[i],
                                distance: distance[i],
                            });
                        }
                    }
                    if chosen.is_some() {
                        let goal = self.t.goals.edge(func, block, cases.len() as u32);
                        alts.push(Alternative {
                            cond: none,
                            goal,
                            kind: AltKind::Branch,
                            target: Some((func, default.block)),
                            useless: useless[cases.len()],
                            distance: distance[cases.len()],
                        });
                    }
                    let taken = match chosen {
                        Some(i) => eqs[i],
                        None => none,
                    };
                    self.branch_point((func, block), alts, taken);
                }
                let call = match chosen {
                    Some(i) => &cases[i].1,
                    None => default,
                };
                self.jump(call);
            }
            Terminator::Return(val) => {
                let rv = val.as_ref().map(|v| self.operand(v));
                let frame = self.frames.pop().expect("a frame is active");
                for idx in frame.stack_objects.iter().rev() {
                    if let Some(o) = self.mem.object(*idx) {
                        let (base, size) = (o.base, o.size);
                        self.clear_shadow(base, size);
                    }
                    self.mem.release(*idx);
                }
                if self.frames.is_empty() {
                    return Ok(true);
                }
                if let (Some(r), Some((v, s))) = (frame.ret_to, rv) {
                    self.set(r, v, s);
                }
            }
            Terminator::Unreachable => return Err(unsupported("`unreachable` reached".into())),
        }
        Ok(false)
    }
}
