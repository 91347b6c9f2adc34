//! Inlining of every call of a defined function into `main`, with
//! recursion unwound the way loops are: a call that would nest a function
//! more than `recursion_bound` times inside itself becomes a cut point (an
//! `assume false` block), so no execution is added and the ones that
//! recurse deeper are cut, never invented.
//!
//! The block holding a call is split: the first half jumps to a copy of the
//! callee's entry with the arguments, every `ret` of the copy jumps to the
//! second half, whose parameter is the call's result. Blocks are copied in
//! reverse postorder, so every value is copied before its uses (the input
//! is in SSA form: definitions dominate uses); unreachable blocks are not
//! copied.
//!
//! An indirect call becomes a chain of address comparisons over the
//! functions whose address the program takes and whose signature fits,
//! each arm inlined; a pointer matching none stops the run, as it does in
//! the interpreter.

use crate::origin::{BlockOrigin, Cut, CutReason, Provenance};
use crate::EncodeError;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::verify::reverse_postorder;
use walkdown_ir::{Block, BlockCall, Body, Callee, Const, FuncId, InstKind, Operand, Program, Terminator, Value};

/// Settings of [`inline_main`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineSettings {
    /// How many activations of one function may be nested (1: no recursion).
    /// Default 2, the engine's default unwinding.
    pub recursion_bound: u32,
    /// Blocks the inlined `main` may have before inlining gives up.
    /// Default 100,000.
    pub max_blocks: usize,
}

impl Default for InlineSettings {
    fn default() -> Self {
        InlineSettings { recursion_bound: 2, max_blocks: 100_000 }
    }
}

/// Whether calling `name` is the `reach_error` error (as the interpreter
/// decides it, defined or not): such calls are never inlined.
pub fn is_reach_error(name: &str) -> bool {
    matches!(name, "reach_error" | "__VERIFIER_error")
}

/// Returns `program` with `main` replaced by `main` with every call of a
/// defined function inlined, and the provenance of the new `main`'s blocks
/// and instructions. Other functions are kept unchanged (nothing calls them
/// from the new `main`).
pub fn inline_main(program: &Program, settings: &InlineSettings) -> Result<(Program, Provenance), EncodeError> {
    let main = program.entry().ok_or(EncodeError::NoEntry)?;
    inline_function(program, main, settings, &[])
}

/// Like [`inline_main`] for any defined function `f`, keeping the direct
/// calls of the functions in `keep` (the bounded engine replaces them by
/// procedure summaries).
pub fn inline_function(
    program: &Program,
    f: FuncId,
    settings: &InlineSettings,
    keep: &[FuncId],
) -> Result<(Program, Provenance), EncodeError> {
    let mut inl = Inliner {
        program,
        settings,
        out: Body::default(),
        prov: Provenance::default(),
        stack: vec![f],
        call_sites: Vec::new(),
        taken: None,
        keep,
    };
    inl.copy_function(f, None)?;
    let mut p = program.clone();
    p.funcs[f].body = Some(inl.out);
    walkdown_ir::verify::verify_after("inlining", &p);
    Ok((p, inl.prov))
}

struct Inliner<'p> {
    program: &'p Program,
    settings: &'p InlineSettings,
    out: Body,
    prov: Provenance,
    /// The functions being copied, outermost first.
    stack: Vec<FuncId>,
    /// The original blocks of the calls being inlined, outermost first.
    call_sites: Vec<(FuncId, Block)>,
    /// Functions whose address is taken (computed on the first indirect call).
    taken: Option<Vec<FuncId>>,
    /// Functions whose direct calls stay calls.
    keep: &'p [FuncId],
}

impl Inliner<'_> {
    fn new_block(&mut self) -> Result<Block, EncodeError> {
        if self.out.blocks.len() >= self.settings.max_blocks {
            return Err(EncodeError::TooLarge { what: "blocks after inlining", limit: self.settings.max_blocks });
        }
        let b = self.out.add_block();
        if !self.call_sites.is_empty() {
            self.prov.call_sites.set(b, self.call_sites.clone());
        }
        Ok(b)
    }

    /// Ends `cur` with a jump into a copy of `g` whose returns go to `cont`,
    /// or into a cut point when `g` is nested `recursion_bound` times.
    #[allow(clippy::too_many_arguments)]
    fn enter(
        &mut self,
        cur: Block,
        g: FuncId,
        args: Vec<Operand>,
        cont: Block,
        ret: Option<walkdown_ir::Type>,
        caller: &str,
        loc: walkdown_ir::Loc,
    ) -> Result<(), EncodeError> {
        let gdata = &self.program.funcs[g];
        // Extra arguments (an old-style or variadic call) are ignored, as the
        // interpreter ignores them.
        let mut args = args;
        if args.len() > gdata.params.len() {
            args.truncate(gdata.params.len());
        }
        if gdata.params.len() != args.len() {
            return Err(EncodeError::unsupported(
                format!("call of @{} with {} arguments for {} parameters", gdata.name, args.len(), gdata.params.len()),
                caller,
                loc,
            ));
        }
        if ret.is_some() && gdata.ret.is_none() {
            return Err(EncodeError::unsupported(format!("use of the result of void @{}", gdata.name), caller, loc));
        }
        let depth = self.stack.iter().filter(|&&s| s == g).count() as u32;
        if depth >= self.settings.recursion_bound {
            let cut = self.new_block()?;
            self.prov.blocks.set(cut, None);
            let (ai, _) = self.out.append(cut, InstKind::Assume { cond: Operand::Const(Const::bool(false)) }, loc);
            self.prov.insts.set(ai, None);
            // The jump after `assume false` never runs; it keeps the second
            // half reachable so its values stay dominated by their
            // definitions.
            let args = ret.map(|ty| Operand::Const(Const { ty, bits: 0 })).into_iter().collect();
            self.out.set_term(cut, Terminator::Jump(BlockCall { block: cont, args }), loc);
            self.out.set_term(cur, Terminator::Jump(BlockCall::new(cut)), loc);
            self.prov.cuts.push(Cut { block: cut, reason: CutReason::Recursion { func: g } });
        } else {
            self.stack.push(g);
            let site = self.prov.blocks.get(cur).map(|o| (o.func, o.block));
            if let Some(site) = site {
                self.call_sites.push(site);
            }
            let entry = self.copy_function(g, Some(cont))?;
            if site.is_some() {
                self.call_sites.pop();
            }
            self.stack.pop();
            self.out.set_term(cur, Terminator::Jump(BlockCall { block: entry, args }), loc);
        }
        Ok(())
    }

    /// Functions whose address the program takes (in code or in global
    /// initializers): the possible targets of an indirect call.
    fn address_taken(&mut self) -> Vec<FuncId> {
        if let Some(t) = &self.taken {
            return t.clone();
        }
        let mut set = std::collections::BTreeSet::new();
        for (_, fd) in self.program.funcs.iter() {
            let Some(body) = &fd.body else { continue };
            for (_, i) in body.insts.iter() {
                i.kind.for_each_operand(|o| {
                    // A direct callee is not an operand; any other
                    // mention of a function is its address.
                    if let Operand::Func(g) = o {
                        set.insert(*g);
                    }
                });
            }
            for (_, d) in body.blocks.iter() {
                for c in d.term.successors() {
                    for a in &c.args {
                        if let Operand::Func(g) = a {
                            set.insert(*g);
                        }
                    }
                }
            }
        }
        for (_, g) in self.program.globals.iter() {
            for r in &g.relocs {
                if let walkdown_ir::RelocTarget::Func(f) = r.target {
                    set.insert(f);
                }
            }
        }
        let v: Vec<FuncId> = set.into_iter().collect();
        self.taken = Some(v.clone());
        v
    }

    /// Copies the body of `f`; its returns jump to `ret_to` (or stay returns
    /// for `main`). Returns the copy of the entry block.
    fn copy_function(&mut self, f: FuncId, ret_to: Option<Block>) -> Result<Block, EncodeError> {
        let program = self.program;
        let func = &program.funcs[f];
        let body = func.body.as_ref().expect("only defined functions are copied");
        let rpo = reverse_postorder(body);
        let mut bmap: Vec<Option<Block>> = vec![None; body.blocks.len()];
        let mut vmap: Vec<Option<Value>> = vec![None; body.values.len()];
        for &b in &rpo {
            let nb = self.new_block()?;
            bmap[b.index()] = Some(nb);
            for &p in &body.blocks[b].params {
                let np = self.out.add_param(nb, body.values[p].ty);
                vmap[p.index()] = Some(np);
                self.prov.values.set(np, Some((f, p)));
            }
        }
        let map_op = |vmap: &[Option<Value>], op: &Operand| -> Operand {
            match op {
                Operand::Value(v) => Operand::Value(vmap[v.index()].expect("definitions are copied before uses")),
                other => *other,
            }
        };
        for &b in &rpo {
            let data = &body.blocks[b];
            let mut cur = bmap[b.index()].unwrap();
            self.prov.blocks.set(cur, Some(BlockOrigin { func: f, block: b, terminator: false, start: true }));
            for &inst in &data.insts {
                let idata = &body.insts[inst];
                if let InstKind::Call { callee, args, ret } = &idata.kind {
                    let defined =
                        |g: FuncId| program.funcs[g].body.is_some() && !is_reach_error(&program.funcs[g].name);
                    let inlined = match callee {
                        Callee::Direct(g) => defined(*g) && !self.keep.contains(g),
                        Callee::Indirect(_) => true,
                    };
                    if inlined {
                        // The second half of the block, reached when the
                        // callee returns; its parameter is the result.
                        let cont = self.new_block()?;
                        self.prov
                            .blocks
                            .set(cont, Some(BlockOrigin { func: f, block: b, terminator: false, start: false }));
                        if let (Some(r), Some(ty)) = (idata.result, *ret) {
                            let np = self.out.add_param(cont, ty);
                            vmap[r.index()] = Some(np);
                            self.prov.values.set(np, Some((f, r)));
                        }
                        let margs: Vec<Operand> = args.iter().map(|a| map_op(&vmap, a)).collect();
                        match callee {
                            Callee::Direct(g) => self.enter(cur, *g, margs, cont, *ret, &func.name, idata.loc)?,
                            Callee::Indirect(ptr) => {
                                // A chain of address comparisons over the
                                // functions whose address is taken and whose
                                // signature fits; none matching stops the run
                                // (the interpreter cannot call it either).
                                let pm = map_op(&vmap, ptr);
                                let types: Vec<walkdown_ir::Type> =
                                    margs.iter().map(|a| self.out.operand_type(a)).collect();
                                let mut at = cur;
                                for t in self.address_taken() {
                                    let td = &program.funcs[t];
                                    if td.params != types || td.ret != *ret || td.variadic || is_reach_error(&td.name) {
                                        continue;
                                    }
                                    let (ci, cv) = self.out.append(
                                        at,
                                        InstKind::Cmp {
                                            pred: walkdown_ir::CmpPred::Eq,
                                            ty: walkdown_ir::Type::Ptr,
                                            lhs: pm,
                                            rhs: Operand::Func(t),
                                        },
                                        idata.loc,
                                    );
                                    self.prov.insts.set(ci, None);
                                    let (call_b, next) = (self.new_block()?, self.new_block()?);
                                    for nb in [call_b, next] {
                                        self.prov.blocks.set(
                                            nb,
                                            Some(BlockOrigin { func: f, block: b, terminator: false, start: false }),
                                        );
                                    }
                                    self.out.set_term(
                                        at,
                                        Terminator::Branch {
                                            cond: Operand::Value(cv.unwrap()),
                                            if_true: BlockCall::new(call_b),
                                            if_false: BlockCall::new(next),
                                        },
                                        idata.loc,
                                    );
                                    if defined(t) {
                                        self.enter(call_b, t, margs.clone(), cont, *ret, &func.name, idata.loc)?;
                                    } else {
                                        let (ni, r) = self.out.append(
                                            call_b,
                                            InstKind::Call {
                                                callee: Callee::Direct(t),
                                                args: margs.clone(),
                                                ret: *ret,
                                            },
                                            idata.loc,
                                        );
                                        self.prov.insts.set(ni, Some((f, inst)));
                                        let args = r.map(Operand::Value).into_iter().collect();
                                        self.out.set_term(
                                            call_b,
                                            Terminator::Jump(BlockCall { block: cont, args }),
                                            idata.loc,
                                        );
                                    }
                                    at = next;
                                }
                                let (ai, _) = self.out.append(
                                    at,
                                    InstKind::Assume { cond: Operand::Const(Const::bool(false)) },
                                    idata.loc,
                                );
                                self.prov.insts.set(ai, None);
                                let args = ret.map(|ty| Operand::Const(Const { ty, bits: 0 })).into_iter().collect();
                                self.out.set_term(at, Terminator::Jump(BlockCall { block: cont, args }), idata.loc);
                            }
                        }
                        cur = cont;
                        continue;
                    }
                }
                let mut kind = idata.kind.clone();
                kind.for_each_operand_mut(|op| *op = map_op(&vmap, op));
                let ni = self.out.create_inst(kind, idata.loc);
                self.out.blocks[cur].insts.push(ni);
                if let (Some(old), Some(new)) = (idata.result, self.out.insts[ni].result) {
                    vmap[old.index()] = Some(new);
                    self.prov.values.set(new, Some((f, old)));
                }
                self.prov.insts.set(ni, Some((f, inst)));
            }
            let map_call = |vmap: &[Option<Value>], c: &BlockCall| BlockCall {
                block: bmap[c.block.index()].expect("successors of reachable blocks are reachable"),
                args: c.args.iter().map(|a| map_op(vmap, a)).collect(),
            };
            let term = match &data.term {
                Terminator::Jump(c) => Terminator::Jump(map_call(&vmap, c)),
                Terminator::Branch { cond, if_true, if_false } => Terminator::Branch {
                    cond: map_op(&vmap, cond),
                    if_true: map_call(&vmap, if_true),
                    if_false: map_call(&vmap, if_false),
                },
                Terminator::Switch { ty, value, cases, default } => Terminator::Switch {
                    ty: *ty,
                    value: map_op(&vmap, value),
                    cases: cases.iter().map(|(k, c)| (*k, map_call(&vmap, c))).collect(),
                    default: map_call(&vmap, default),
                },
                Terminator::Return(op) => match ret_to {
                    None => Terminator::Return(op.as_ref().map(|o| map_op(&vmap, o))),
                    Some(cont) => {
                        let args = if self.out.blocks[cont].params.is_empty() {
                            Vec::new()
                        } else {
                            op.iter().map(|o| map_op(&vmap, o)).collect()
                        };
                        Terminator::Jump(BlockCall { block: cont, args })
                    }
                },
                Terminator::Unreachable => Terminator::Unreachable,
            };
            self.out.set_term(cur, term, data.term_loc);
            let start = Some(cur) == bmap[b.index()];
            self.prov.blocks.set(cur, Some(BlockOrigin { func: f, block: b, terminator: true, start }));
        }
        Ok(bmap[Body::ENTRY.index()].expect("the entry is reachable"))
    }
}
