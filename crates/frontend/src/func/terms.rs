//! Lowering terminators: branches, switches and returns, with the source
//! decisions that clang folded into block arguments kept as branches of
//! their own.

use super::*;

impl<'a, 'm> FuncLowerer<'a, 'm> {
    pub(super) fn lower_term(&mut self, t: &'m LT) -> Res<()> {
        let term = match t {
            LT::Ret(r) => match (&r.return_operand, self.ret_ptr) {
                (None, _) => Terminator::Return(None),
                (Some(o), Some(ptr)) => {
                    let leaves = self.agg_operand(o)?;
                    self.store_agg(&leaves, ptr)?;
                    Terminator::Return(None)
                }
                (Some(o), None) if is_f80(&self.type_of_op(o)) => Terminator::Return(Some(self.f80_return(o)?)),
                (Some(o), None) => Terminator::Return(Some(self.operand(o)?)),
            },
            LT::Br(b) => {
                let call = self.block_call(&b.dest)?;
                match self.decision_arg(b, &call) {
                    Some((cond, positions, ty, cond_loc)) => {
                        if !self.loc.is_known() {
                            self.loc = self.operator_loc().unwrap_or(cond_loc);
                        }
                        let side = |taken: bool| {
                            let mut args = call.args.clone();
                            for &k in &positions {
                                args[k] = Operand::Const(Const { ty, bits: u64::from(taken) });
                            }
                            BlockCall { block: call.block, args }
                        };
                        Terminator::Branch { cond, if_true: side(true), if_false: side(false) }
                    }
                    None => Terminator::Jump(call),
                }
            }
            LT::CondBr(b) => {
                let cond = self.operand(&b.condition)?;
                let if_true = self.block_call(&b.true_dest)?;
                let if_false = self.block_call(&b.false_dest)?;
                Terminator::Branch { cond, if_true, if_false }
            }
            LT::Switch(s) => {
                let ty = self.scalar(&self.type_of_op(&s.operand))?;
                let value = self.operand(&s.operand)?;
                let mut cases = Vec::with_capacity(s.dests.len());
                for (k, dest) in &s.dests {
                    let Constant::Int { value: kv, bits } = k.as_ref() else {
                        return Err(self.unsupported("a switch case that is not an integer"));
                    };
                    cases.push((truncate(*kv, *bits), self.block_call(dest)?));
                }
                let default = self.block_call(&s.default_dest)?;
                Terminator::Switch { ty, value, cases, default }
            }
            LT::Unreachable(_) => Terminator::Unreachable,
            other => return Err(self.unsupported(format!("terminator `{other}`"))),
        };
        self.body.set_term(self.cur, term, self.loc);
        Ok(())
    }

    /// The decision a jump passes on, if any: the `i1` condition, the
    /// positions of the arguments that hold it (or its `zext`), their
    /// type, and the location of the instruction computing it.
    ///
    /// clang computes the last operand of a short-circuit chain used as a
    /// value (`f(x == 0 && y == 0)`, `i < n && k > 2` before the loop's
    /// branch on the whole chain) without a branch of its own: the block
    /// evaluating it jumps to the join, passing the `i1` to a `phi`. gcc
    /// branches on that operand, and gcov, like Test-Comp, counts its two
    /// outcomes. So such a jump becomes a branch on the operand to the same
    /// block, passing the constant true or false: the same executions, and
    /// two edge goals every engine already handles.
    ///
    /// A decision is a non-constant `i1` computed by an instruction of the
    /// current block (a comparison, `!b` as `xor b, true`, a `_Bool` as
    /// `trunc`, a call returning `_Bool`): in C, `i1` values only arise as
    /// operands of `&&`, `||` and `!`, which gcc evaluates by branching. An
    /// `i1` that is a block parameter (the value of an inner chain, as in
    /// `a && (b || c)`) carries no decision of this block: the inner chain
    /// has its own branches.
    ///
    /// gcc also folds `a ? b > 2 : 0` into `a && b > 2` (and `a ? 1 : c`
    /// into `a || c`, with `!a` for the other two constants) when the arm
    /// is a truth value, and branches on the arm; clang passes the arm as
    /// `zext i1` (possibly cast on to the `?:`'s type) to a `phi` whose
    /// other value is that constant. Such
    /// an argument is a decision too, replaced by 1 or 0 of its type (see
    /// [`Self::folded_conditional`]). With two non-constant arms (`a ? b > 2 : c < 0`) gcc branches on `a`
    /// only, and so does walkdown.
    pub(super) fn decision_arg(
        &self,
        jump: &li_term::Br,
        call: &BlockCall,
    ) -> Option<(Operand, Vec<usize>, Type, Loc)> {
        // The instruction of the current block defining `o`, if any.
        let local_inst = |o: Operand| -> Option<&walkdown_ir::InstData> {
            let Operand::Value(v) = o else { return None };
            let walkdown_ir::ValueDef::Inst(inst) = self.body.values[v].def else { return None };
            self.body.blocks[self.cur].insts.contains(&inst).then(|| &self.body.insts[inst])
        };
        let is_decision = |o: Operand| self.operand_type(&o) == Type::I1 && local_inst(o).is_some();
        for (k, &a) in call.args.iter().enumerate() {
            let (cond, ty) = if is_decision(a) {
                (a, Type::I1)
            } else {
                // `zext` of the `i1`, then integer casts that keep 0 and 1
                // (`long r = a ? b > 2 : 0L` sign-extends the `int`).
                let Some(ty) = local_inst(a).and_then(|d| d.kind.result_type()) else { continue };
                let mut o = a;
                let arg = loop {
                    match local_inst(o).map(|d| &d.kind) {
                        Some(&InstKind::Cast { op: CastOp::ZExt, from: Type::I1, arg, .. }) => break Some(arg),
                        Some(&InstKind::Cast {
                            op: CastOp::ZExt | CastOp::SExt | CastOp::Trunc, from, arg, ..
                        }) if from.is_int() && from != Type::I1 => o = arg,
                        _ => break None,
                    }
                };
                match arg {
                    Some(arg) if is_decision(arg) && self.folded_conditional(jump, k).is_some() => (arg, ty),
                    _ => continue,
                }
            };
            let positions = (0..call.args.len()).filter(|&j| call.args[j] == a).collect();
            let loc = local_inst(cond).map_or(Loc::UNKNOWN, |d| d.loc);
            return Some((cond, positions, ty, loc));
        }
        None
    }

    /// `Some(())` when argument `k` of `jump` (from the current block) is the arm
    /// of a `?:` whose other arm is the constant 0 or 1, which gcc folds
    /// into `&&` or `||`: the jump's target joins exactly two values, from
    /// the two sides of one conditional branch (the current block and the
    /// other incoming block each are that branch's block or have it as
    /// their only predecessor), the other one the constant; and the jump
    /// has the location of that branch, as clang locates the parts of a
    /// `?:` (an `if` assigning in both branches has other locations, and
    /// gcc folds no `if` statement).
    pub(super) fn folded_conditional(&self, jump: &li_term::Br, k: usize) -> Option<()> {
        let me = self.cur_name?;
        let (cond_block, entry) = self.entry_branch(me)?;
        (jump.debugloc.is_some() && entry.debugloc == jump.debugloc).then_some(())?;
        let phi = self.phis.get(&jump.dest)?.get(k)?;
        let [(a, a_from), (b, b_from)] = phi.incoming_values.as_slice() else { return None };
        let (other, other_from) = if a_from == me { (b, b_from) } else { (a, a_from) };
        let side_of_branch =
            other_from == cond_block || self.entry_branch(other_from).is_some_and(|(n, _)| n == cond_block);
        let zero_or_one =
            matches!(other, LOp::ConstantOperand(c) if matches!(c.as_ref(), Constant::Int { value: 0 | 1, .. }));
        (side_of_branch && zero_or_one).then_some(())
    }

    /// The location clang gives a short-circuit operator: that of the
    /// conditional branch leading into the current block (the right
    /// operand of `&&`, whose jump clang leaves without a location where
    /// it gives that of `||` to the jump of `||`'s right operand).
    pub(super) fn operator_loc(&mut self) -> Option<Loc> {
        let (_, entry) = self.entry_branch(self.cur_name?)?;
        let loc = self.cx.loc(&entry.debugloc);
        loc.is_known().then_some(loc)
    }

    /// The block `name` is entered from and its conditional branch, when
    /// that block is its only predecessor and ends in one.
    pub(super) fn entry_branch(&self, name: &Name) -> Option<(&'m Name, &'m li_term::CondBr)> {
        let f = self.f;
        let mut preds = f.basic_blocks.iter().filter(|bb| match &bb.term {
            LT::Br(b) => &b.dest == name,
            LT::CondBr(b) => &b.true_dest == name || &b.false_dest == name,
            LT::Switch(s) => &s.default_dest == name || s.dests.iter().any(|(_, d)| d == name),
            _ => false,
        });
        let (Some(pred), None) = (preds.next(), preds.next()) else { return None };
        match &pred.term {
            LT::CondBr(b) => Some((&pred.name, b)),
            _ => None,
        }
    }

    pub(super) fn block_call(&mut self, dest: &'m Name) -> Res<BlockCall> {
        let Some(&block) = self.blocks.get(dest) else {
            return Err(self.unsupported(format!("a branch to unknown block %{}", name_text(dest))));
        };
        let mut args = Vec::new();
        let pred = self.cur_name;
        if let Some(phis) = self.phis.get(dest).cloned() {
            for phi in phis {
                let incoming = phi.incoming_values.iter().find(|(_, b)| Some(b) == pred);
                match incoming {
                    Some((v, _)) => args.push(self.operand(v)?),
                    None => return Err(self.unsupported("a phi without a value for one of its predecessors")),
                }
            }
        }
        if let Some(phis) = self.wide_phis.get(dest).cloned() {
            for phi in phis {
                let incoming = phi.incoming_values.iter().find(|(_, b)| Some(b) == pred);
                let Some((v, _)) = incoming else {
                    return Err(self.unsupported("a phi without a value for one of its predecessors"));
                };
                // A constant incoming value is told apart by the phi's name.
                let saved = self.cur_dest.replace(&phi.dest);
                let w = self.wide_operand(v);
                self.cur_dest = saved;
                args.extend(w?.limbs);
            }
        }
        Ok(BlockCall { block, args })
    }
}
