//! The paper's condition inference, on walkdown's IR: the program is
//! abstracted to a Boolean program over assumption ids (every other value
//! and every branch condition becomes non-deterministic; `assumed P as a`
//! becomes `a := a && *`; an assertion verified under premise `A` becomes
//! `assert A`, and one verified without condition disappears), and three
//! backward predicate transformers are computed over it at every block
//! entry and after every `assumed` site:
//!
//! - `wp`: every execution from here on meets only assertions whose premise
//!   holds (its negation is the *may-unverified* condition);
//! - `must_assert`: every execution from here on meets an assertion;
//! - `must_all`: every assertion every execution meets has a false premise
//!   (with `must_assert`, the *must-unverified* condition).
//!
//! Assumption ids are global (a whole-program analysis), true at the start
//! of `main`. A condition is a set of assumption states: with `n` ids
//! (at most [`MAX_IDS`]) a state is an `n`-bit number and a set is a 64-bit
//! mask over the `2^n` states. Calls use per-function summaries (for each
//! entry state: the states at return, and whether an assertion can break
//! the property on the way), computed to a fixpoint, so recursion is
//! handled; a function's conditions hold for the intersection of the
//! conditions its callers need after the call, so they are sound in every
//! calling context. Loops are greatest fixpoints (partial correctness: a
//! non-terminating execution breaks no premise).

use crate::collect::Annotations;
use std::collections::HashMap;
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::Goals;
use walkdown_ir::{Builtin, Callee, InstKind, Program, Terminator};

/// Assumption ids the inference handles at most (`2^6` states fit a mask).
pub const MAX_IDS: usize = 6;

/// A set of assumption states.
pub type States = u64;

/// What happens in the abstract program, in order, in one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `a := a && *` (an `assumed` site), before instruction `pos`.
    Assumed { id: u32, pos: usize },
    /// An assertion whose premise holds in the states `premise` (not every
    /// state: fully verified ones are left out), at instruction `pos`.
    Assert { premise: States, pos: usize },
    /// A call of a defined function.
    Call { callee: usize, pos: usize },
    /// The program ends here (`exit`, `abort`).
    Stop { pos: usize },
}

/// One block of the abstract program.
#[derive(Clone, Debug, Default)]
pub struct ABlock {
    /// Its events.
    pub events: Vec<Event>,
    /// Its successors (by block index).
    pub succs: Vec<usize>,
    /// It returns.
    pub returns: bool,
}

/// The Boolean program.
#[derive(Clone, Debug)]
pub struct Abstract {
    /// Assumption ids.
    pub ids: usize,
    /// Every state.
    pub all: States,
    /// Per function (by `FuncId` index): its blocks, or none when external.
    pub funcs: Vec<Option<Vec<ABlock>>>,
    /// `main`.
    pub entry: usize,
}

/// Why the inference does not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoInference {
    /// More assumption ids than [`MAX_IDS`].
    TooManyIds(usize),
    /// The program has no `main`.
    NoMain,
}

impl Abstract {
    /// The Boolean program of `program` under `annotations`; `targets` says
    /// which error goals are assertions (the property's checks).
    pub fn build(
        program: &Program,
        goals: &Goals,
        annotations: &Annotations,
        targets: &dyn Fn(walkdown_ir::goals::GoalId) -> bool,
    ) -> Result<Abstract, NoInference> {
        let ids = annotations.assumptions.len();
        if ids > MAX_IDS {
            return Err(NoInference::TooManyIds(ids));
        }
        let entry = program.entry().ok_or(NoInference::NoMain)?.index();
        let states = 1u32 << ids;
        let all: States = if states == 64 { u64::MAX } else { (1u64 << states) - 1 };
        let set_of = |p: &crate::Premise| (0..states).filter(|&s| p.holds(s)).fold(0u64, |m, s| m | 1 << s);
        let mut site_ids: HashMap<_, Vec<(u32, bool)>> = HashMap::new();
        for (k, a) in annotations.assumptions.iter().enumerate() {
            for s in &a.sites {
                site_ids.entry((s.func, s.inst)).or_default().push((k as u32, s.cond.before()));
            }
        }
        // An annotated assertion is one event at its `assert_verified` call;
        // the checks it annotates add none of their own.
        let mut at_call = HashMap::new();
        let mut annotated = std::collections::HashSet::new();
        for va in &annotations.assertions {
            let relevant: Vec<_> = va.goals.iter().copied().filter(|&g| targets(g)).collect();
            if relevant.is_empty() {
                continue;
            }
            annotated.extend(relevant.iter().copied());
            // Several sources may have joined more premises into its goals.
            let premise = relevant.iter().map(|g| set_of(&annotations.checks[g].premise)).fold(all, |m, p| m & p);
            at_call.insert((va.func, va.inst), premise);
        }
        let mut funcs = vec![None; program.funcs.len()];
        for (fid, f) in program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            if crate::collect::is_error_function(&f.name) {
                // Entering it is the error; the call site stands for it.
                funcs[fid.index()] = Some(vec![ABlock { returns: true, ..ABlock::default() }; body.blocks.len()]);
                continue;
            }
            let mut blocks = vec![ABlock::default(); body.blocks.len()];
            for (b, data) in body.blocks.iter() {
                let ab = &mut blocks[b.index()];
                for (pos, &inst) in data.insts.iter().enumerate() {
                    let sites = site_ids.get(&(fid, inst)).map_or(&[][..], |v| v.as_slice());
                    for &(id, _) in sites.iter().filter(|s| s.1) {
                        ab.events.push(Event::Assumed { id, pos });
                    }
                    if let Some(&premise) = at_call.get(&(fid, inst)) {
                        if premise != all {
                            ab.events.push(Event::Assert { premise, pos });
                        }
                    } else if let Some(g) = goals.error_site(fid, inst) {
                        if targets(g) && !annotated.contains(&g) {
                            let premise = annotations.checks.get(&g).map_or(0, |s| set_of(&s.premise));
                            if premise != all {
                                ab.events.push(Event::Assert { premise, pos });
                            }
                        }
                    }
                    if let InstKind::Call { callee: Callee::Direct(t), .. } = &body.insts[inst].kind {
                        let callee = &program.funcs[*t];
                        if let (true, Some(cb)) =
                            (crate::collect::is_error_function(&callee.name), callee.body.as_ref())
                        {
                            // A defined reach_error: its goals, entered here.
                            let mut premise = all;
                            let mut any = false;
                            for (_, cd) in cb.blocks.iter() {
                                for &ci in &cd.insts {
                                    if let Some(g) =
                                        goals.error_site(*t, ci).filter(|&g| targets(g) && !annotated.contains(&g))
                                    {
                                        any = true;
                                        premise &= annotations.checks.get(&g).map_or(0, |s| set_of(&s.premise));
                                    }
                                }
                            }
                            if any && premise != all {
                                ab.events.push(Event::Assert { premise, pos });
                            }
                            ab.events.push(Event::Stop { pos });
                        } else if callee.body.is_some() {
                            ab.events.push(Event::Call { callee: t.index(), pos });
                        } else if matches!(callee.builtin, Some(Builtin::Exit | Builtin::Abort)) {
                            ab.events.push(Event::Stop { pos });
                        }
                    }
                    for &(id, _) in sites.iter().filter(|s| !s.1) {
                        ab.events.push(Event::Assumed { id, pos: pos + 1 });
                    }
                }
                ab.returns = matches!(data.term, Terminator::Return(_));
                ab.succs = data.term.successors().map(|c| c.block.index()).collect();
            }
            funcs[fid.index()] = Some(blocks);
        }
        Ok(Abstract { ids, all, funcs, entry })
    }

    fn states(&self) -> u32 {
        1 << self.ids
    }

    /// `a := a && *` forward.
    fn assumed_fwd(&self, x: States, id: u32) -> States {
        let mut out = x;
        for s in 0..self.states() {
            if x >> s & 1 == 1 {
                out |= 1 << (s & !(1 << id));
            }
        }
        out
    }

    /// `a := a && *` backward: the states whose every successor is in `r`.
    fn assumed_bwd(&self, r: States, id: u32) -> States {
        let mut out = 0;
        for s in 0..self.states() {
            if r >> s & 1 == 1 && r >> (s & !(1 << id)) & 1 == 1 {
                out |= 1 << s;
            }
        }
        out
    }
}

/// Which transformer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transformer {
    /// Every premise met holds.
    Wp,
    /// Some assertion is met.
    MustAssert,
    /// Every premise met fails.
    MustAll,
}

impl Transformer {
    /// What must hold when the program ends.
    fn at_end(self, all: States) -> States {
        match self {
            Transformer::MustAssert => 0,
            _ => all,
        }
    }
    /// Backward over an assertion.
    fn assert_bwd(self, r: States, premise: States, all: States) -> States {
        match self {
            Transformer::Wp => r & premise,
            Transformer::MustAll => r & !premise & all,
            Transformer::MustAssert => all,
        }
    }
}

/// A function's summary for one transformer: per entry state, the states
/// at its return and whether some execution breaks the property in it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Summary {
    post: Vec<States>,
    breaks: Vec<bool>,
}

/// Conditions at the points of one function.
#[derive(Clone, Debug, Default)]
pub struct FuncConditions {
    /// At each block's entry.
    pub entry: Vec<States>,
    /// Right after each `assumed` site: `(block, pos, condition)`.
    pub after_assumed: Vec<(usize, usize, States)>,
    /// At the end of each block (before its terminator).
    pub end: Vec<States>,
}

/// One transformer's conditions everywhere.
#[derive(Clone, Debug)]
pub struct Conditions {
    /// Per function (by index; empty for external ones).
    pub funcs: Vec<FuncConditions>,
}

impl Abstract {
    fn summaries(&self, t: Transformer) -> Vec<Option<Summary>> {
        let n = self.states() as usize;
        let mut sums: Vec<Option<Summary>> = self
            .funcs
            .iter()
            .map(|f| f.as_ref().map(|_| Summary { post: vec![0; n], breaks: vec![false; n] }))
            .collect();
        loop {
            let mut changed = false;
            for f in 0..self.funcs.len() {
                let Some(blocks) = &self.funcs[f] else { continue };
                if blocks.is_empty() {
                    continue;
                }
                let mut new = Summary { post: vec![0; n], breaks: vec![false; n] };
                for s in 0..n {
                    let mut inb = vec![0 as States; blocks.len()];
                    inb[0] = 1 << s;
                    let mut work = vec![0usize];
                    while let Some(b) = work.pop() {
                        let mut x = inb[b];
                        for e in &blocks[b].events {
                            if x == 0 {
                                break;
                            }
                            match *e {
                                Event::Assumed { id, .. } => x = self.assumed_fwd(x, id),
                                Event::Assert { premise, .. } => match t {
                                    Transformer::Wp => new.breaks[s] |= x & !premise != 0,
                                    Transformer::MustAll => new.breaks[s] |= x & premise != 0,
                                    Transformer::MustAssert => x = 0,
                                },
                                Event::Call { callee, .. } => {
                                    let cs = sums[callee].as_ref().expect("defined");
                                    let mut y = 0;
                                    for q in 0..n {
                                        if x >> q & 1 == 1 {
                                            y |= cs.post[q];
                                            new.breaks[s] |= cs.breaks[q];
                                        }
                                    }
                                    x = y;
                                }
                                Event::Stop { .. } => {
                                    if t == Transformer::MustAssert {
                                        new.breaks[s] = true;
                                    }
                                    x = 0;
                                }
                            }
                        }
                        if blocks[b].returns {
                            new.post[s] |= x;
                        }
                        for &succ in &blocks[b].succs {
                            if inb[succ] | x != inb[succ] {
                                inb[succ] |= x;
                                work.push(succ);
                            }
                        }
                    }
                }
                if sums[f].as_ref() != Some(&new) {
                    sums[f] = Some(new);
                    changed = true;
                }
            }
            if !changed {
                return sums;
            }
        }
    }

    /// The transformer's condition at every point, sound in every calling
    /// context.
    pub fn conditions(&self, t: Transformer) -> Conditions {
        let sums = self.summaries(t);
        let all = self.all;
        let nstates = self.states() as usize;
        let call_bwd = |callee: usize, r: States| -> States {
            let cs = sums[callee].as_ref().expect("defined");
            (0..nstates).filter(|&q| !cs.breaks[q] && cs.post[q] & !r == 0).fold(0, |m, q| m | 1 << q)
        };
        // What each function's callers need when it returns.
        let mut need: Vec<States> = vec![all; self.funcs.len()];
        need[self.entry] = t.at_end(all);
        let mut out: Vec<FuncConditions> = vec![FuncConditions::default(); self.funcs.len()];
        loop {
            let mut next_need: Vec<States> = vec![all; self.funcs.len()];
            next_need[self.entry] = t.at_end(all);
            for (f, blocks) in self.funcs.iter().enumerate() {
                let Some(blocks) = blocks else { continue };
                let mut entry = vec![all; blocks.len()];
                let mut end = vec![all; blocks.len()];
                // Greatest fixpoint: start from every state, shrink.
                loop {
                    let mut changed = false;
                    for b in (0..blocks.len()).rev() {
                        let mut r = if blocks[b].returns { need[f] } else { all };
                        for &s in &blocks[b].succs {
                            r &= entry[s];
                        }
                        end[b] = r;
                        for e in blocks[b].events.iter().rev() {
                            r = match *e {
                                Event::Assumed { id, .. } => self.assumed_bwd(r, id),
                                Event::Assert { premise, .. } => t.assert_bwd(r, premise, all),
                                Event::Call { callee, .. } => call_bwd(callee, r),
                                Event::Stop { .. } => t.at_end(all),
                            };
                        }
                        if r != entry[b] {
                            entry[b] = r;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                // Conditions after assumed sites and what callees need.
                let mut after_assumed = Vec::new();
                for (b, ab) in blocks.iter().enumerate() {
                    let mut r = end[b];
                    for e in ab.events.iter().rev() {
                        match *e {
                            Event::Assumed { id, pos } => {
                                after_assumed.push((b, pos, r));
                                r = self.assumed_bwd(r, id);
                            }
                            Event::Assert { premise, .. } => r = t.assert_bwd(r, premise, all),
                            Event::Call { callee, .. } => {
                                next_need[callee] &= r;
                                r = call_bwd(callee, r);
                            }
                            Event::Stop { .. } => r = t.at_end(all),
                        }
                    }
                }
                after_assumed.sort_by_key(|&(b, p, _)| (b, p));
                out[f] = FuncConditions { entry, after_assumed, end };
            }
            let merged: Vec<States> = next_need.iter().zip(&need).map(|(a, b)| a & b).collect();
            if merged == need {
                return Conditions { funcs: out };
            }
            need = merged;
        }
    }

    /// The assumption states that can occur at each block entry and after
    /// each `assumed` site (from `main`'s entry, where every id holds).
    pub fn reachable(&self) -> Conditions {
        let sums = self.summaries(Transformer::Wp);
        let nstates = self.states() as usize;
        let mut at_entry: Vec<States> = vec![0; self.funcs.len()];
        at_entry[self.entry] = 1 << (self.states() - 1);
        let mut out: Vec<FuncConditions> = vec![FuncConditions::default(); self.funcs.len()];
        loop {
            let mut next_entry = at_entry.clone();
            for (f, blocks) in self.funcs.iter().enumerate() {
                let Some(blocks) = blocks else { continue };
                if blocks.is_empty() {
                    continue;
                }
                let mut inb = vec![0 as States; blocks.len()];
                let mut endb = vec![0 as States; blocks.len()];
                inb[0] = at_entry[f];
                let mut after_assumed = Vec::new();
                let mut work = vec![0usize];
                while let Some(b) = work.pop() {
                    let mut x = inb[b];
                    for e in &blocks[b].events {
                        match *e {
                            Event::Assumed { id, pos } => {
                                x = self.assumed_fwd(x, id);
                                after_assumed.push((b, pos, x));
                            }
                            Event::Assert { .. } => {}
                            Event::Call { callee, .. } => {
                                next_entry[callee] |= x;
                                let cs = sums[callee].as_ref().expect("defined");
                                x = (0..nstates).filter(|&q| x >> q & 1 == 1).fold(0, |m, q| m | cs.post[q]);
                            }
                            Event::Stop { .. } => x = 0,
                        }
                    }
                    endb[b] = x;
                    for &s in &blocks[b].succs {
                        if inb[s] | x != inb[s] {
                            inb[s] |= x;
                            work.push(s);
                        }
                    }
                }
                // Keep the widest set seen at each assumed site.
                after_assumed.sort_by_key(|&(b, p, _)| (b, p));
                let mut merged: Vec<(usize, usize, States)> = Vec::new();
                for (b, p, x) in after_assumed {
                    match merged.last_mut() {
                        Some(last) if last.0 == b && last.1 == p => last.2 |= x,
                        _ => merged.push((b, p, x)),
                    }
                }
                out[f] = FuncConditions { entry: inb, after_assumed: merged, end: endb };
            }
            if next_entry == at_entry {
                return Conditions { funcs: out };
            }
            at_entry = next_entry;
        }
    }

    /// Whether some assertion can still be met after each block's entry
    /// and after each of its events (`ahead[f][b]`: at entry; the caller's
    /// continuation counts).
    pub fn assertions_ahead(&self) -> Vec<Vec<bool>> {
        let nf = self.funcs.len();
        // Whether a call of the function may meet an assertion before it
        // returns.
        let mut inside = vec![false; nf];
        loop {
            let mut changed = false;
            for (f, blocks) in self.funcs.iter().enumerate() {
                let Some(blocks) = blocks else { continue };
                let v = blocks.iter().any(|b| {
                    b.events.iter().any(|e| match *e {
                        Event::Assert { .. } => true,
                        Event::Call { callee, .. } => inside[callee],
                        _ => false,
                    })
                });
                if v && !inside[f] {
                    inside[f] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut after_return = vec![false; nf];
        loop {
            let mut ahead: Vec<Vec<bool>> = Vec::with_capacity(nf);
            let mut next_after = vec![false; nf];
            for (f, blocks) in self.funcs.iter().enumerate() {
                let Some(blocks) = blocks else {
                    ahead.push(Vec::new());
                    continue;
                };
                let mut at = vec![false; blocks.len()];
                loop {
                    let mut changed = false;
                    for b in (0..blocks.len()).rev() {
                        let mut v = (blocks[b].returns && after_return[f]) || blocks[b].succs.iter().any(|&s| at[s]);
                        for e in blocks[b].events.iter().rev() {
                            match *e {
                                Event::Assert { .. } => v = true,
                                Event::Call { callee, .. } => {
                                    next_after[callee] |= v;
                                    v |= inside[callee];
                                }
                                Event::Stop { .. } => v = false,
                                Event::Assumed { .. } => {}
                            }
                        }
                        if v && !at[b] {
                            at[b] = true;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                ahead.push(at);
            }
            let merged: Vec<bool> = next_after.iter().zip(&after_return).map(|(a, b)| *a || *b).collect();
            if merged == after_return {
                return ahead;
            }
            after_return = merged;
        }
    }
}
