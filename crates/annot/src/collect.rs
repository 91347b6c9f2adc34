//! Reading verification annotations: from the source
//! (`__VERIFIER_assumed(cond, "id")`, `__VERIFIER_assert_verified(cond,
//! "premise")`) and from walkdown's own proofs, into one table: each
//! assumption with its sites, and a status for every error goal.

use crate::premise::Premise;
use crate::{AnnotError, AssumptionId};
use std::collections::{BTreeMap, HashSet};
use walkdown_ir::goals::{ErrorSite, GoalId, GoalKind, Goals};
use walkdown_ir::{Block, Builtin, Callee, FuncId, Inst, InstKind, Loc, Operand, Program, Terminator};

/// Where a verification result comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// `__VERIFIER_assert_verified` in the program.
    Source,
    /// walkdown's own analyses (a proof that the check cannot fail).
    SelfProof,
    /// Frama-C's EVA (no alarm at the check).
    Eva,
}

impl Source {
    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Source::Source => "source",
            Source::SelfProof => "self",
            Source::Eva => "eva",
        }
    }
}

/// An assumption: a property some analysis assumed without checking it.
#[derive(Clone, Debug)]
pub struct Assumption {
    /// Its identifier, as the source spells it.
    pub name: String,
    /// Where it is made: the `__VERIFIER_assumed` calls.
    pub sites: Vec<AssumedSite>,
}

/// One `__VERIFIER_assumed(cond, id)` call.
#[derive(Clone, Copy, Debug)]
pub struct AssumedSite {
    /// The function.
    pub func: FuncId,
    /// The call.
    pub inst: Inst,
    /// The assumed condition.
    pub cond: AssumedCond,
    /// Where it is.
    pub loc: Loc,
}

/// What an assumption site assumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssumedCond {
    /// That this integer is non-zero (`__VERIFIER_assumed`'s condition).
    Holds(Operand),
    /// That this signed operation (`add`, `sub` or `mul`) does not overflow
    /// (an analyzer's assumption at an arithmetic instruction).
    NoSignedOverflow {
        /// `Add`, `Sub` or `Mul`.
        op: walkdown_ir::BinOp,
        /// The operands' type.
        ty: walkdown_ir::Type,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
    },
    /// Nothing walkdown can state: an analyzer assumed a property here that
    /// walkdown cannot express (EVA's alarm on an uninitialized read, say),
    /// so reaching the site counts as breaking the assumption. Unlike the
    /// others, it takes effect *before* its instruction.
    Unstated,
}

impl AssumedCond {
    /// Whether the assumption is made before its instruction runs (rather
    /// than after it, where the operands of the instruction are known).
    pub fn before(&self) -> bool {
        matches!(self, AssumedCond::Unstated)
    }
}

/// One `__VERIFIER_assert_verified(cond, premise)` call, which stands for
/// the assertion the checks after it implement.
#[derive(Clone, Debug)]
pub struct VerifiedAssertion {
    /// The function.
    pub func: FuncId,
    /// The call.
    pub inst: Inst,
    /// The premise it was verified under.
    pub premise: Premise,
    /// The error goals it annotates (the `reach_error` or assertion checks
    /// it reaches first in its function).
    pub goals: Vec<GoalId>,
    /// Where it is.
    pub loc: Loc,
}

/// What is known of one error goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckStatus {
    /// Verified under this premise (`True`: verified; `False`: unverified).
    pub premise: Premise,
    /// The sources whose premises were joined (none: unverified).
    pub sources: Vec<Source>,
}

/// The annotations of a program.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    /// Assumptions by id.
    pub assumptions: Vec<Assumption>,
    /// The verified assertions of the source.
    pub assertions: Vec<VerifiedAssertion>,
    /// The status of every error goal.
    pub checks: BTreeMap<GoalId, CheckStatus>,
}

impl Annotations {
    /// The same annotations over at most `max` assumption ids, or `None`
    /// when they cannot be merged that far. Ids that occur only without
    /// negation in every premise are merged into one, the least mentioned
    /// first: the merged ghost holds when all its members hold, so a
    /// premise that holds of the merged ids holds of the members (it only
    /// grows as they do). Verified executions are then pruned less, never
    /// wrongly.
    pub fn merged(&self, max: usize) -> Option<Annotations> {
        let n = self.assumptions.len();
        if n <= max {
            return Some(self.clone());
        }
        let premises = || self.checks.values().map(|c| &c.premise).chain(self.assertions.iter().map(|a| &a.premise));
        let mut negated = Vec::new();
        let mut mentions = vec![0usize; n];
        for p in premises() {
            p.negated_ids(&mut negated);
            let mut ids = Vec::new();
            p.ids(&mut ids);
            for id in ids {
                mentions[id.0 as usize] += 1;
            }
        }
        let mut positive: Vec<usize> = (0..n).filter(|i| !negated.contains(&AssumptionId(*i as u32))).collect();
        let separate = max.checked_sub(negated.len() + 1)?;
        if positive.len() <= separate {
            return None;
        }
        positive.sort_by_key(|&i| (std::cmp::Reverse(mentions[i]), i));
        let merged_ids: Vec<usize> = positive.split_off(separate);
        let mut new_index = vec![0u32; n];
        let mut out = Annotations { assumptions: Vec::new(), assertions: Vec::new(), checks: BTreeMap::new() };
        for (i, a) in self.assumptions.iter().enumerate() {
            if !merged_ids.contains(&i) {
                new_index[i] = out.assumptions.len() as u32;
                out.assumptions.push(a.clone());
            }
        }
        let group = out.assumptions.len() as u32;
        let mut names = Vec::new();
        let mut sites = Vec::new();
        for &i in &merged_ids {
            new_index[i] = group;
            names.push(self.assumptions[i].name.clone());
            sites.extend(self.assumptions[i].sites.iter().copied());
        }
        out.assumptions.push(Assumption { name: names.join("+"), sites });
        let map = |a: AssumptionId| AssumptionId(new_index[a.0 as usize]);
        out.assertions = self
            .assertions
            .iter()
            .map(|a| VerifiedAssertion { premise: a.premise.map_ids(&map), ..a.clone() })
            .collect();
        out.checks = self
            .checks
            .iter()
            .map(|(&g, c)| (g, CheckStatus { premise: c.premise.map_ids(&map), sources: c.sources.clone() }))
            .collect();
        Some(out)
    }

    /// Every error goal unverified, no assumption.
    pub fn unverified(goals: &Goals) -> Annotations {
        let mut a = Annotations::default();
        for (id, g) in goals.goals.iter() {
            if matches!(g.kind, GoalKind::Error { .. }) {
                a.checks.insert(id, CheckStatus { premise: Premise::False, sources: Vec::new() });
            }
        }
        a
    }

    /// Joins `premise` from `source` into the goal's status (disjunction).
    pub fn verify(&mut self, goal: GoalId, premise: Premise, source: Source) {
        let s = self.checks.entry(goal).or_insert(CheckStatus { premise: Premise::False, sources: Vec::new() });
        s.premise = std::mem::replace(&mut s.premise, Premise::False).or(premise);
        if !s.sources.contains(&source) {
            s.sources.push(source);
            s.sources.sort();
        }
    }

    /// The id of the assumption called `name`, made if new.
    pub fn intern(&mut self, name: &str) -> AssumptionId {
        if let Some(i) = self.assumptions.iter().position(|a| a.name == name) {
            return AssumptionId(i as u32);
        }
        self.assumptions.push(Assumption { name: name.into(), sites: Vec::new() });
        AssumptionId(self.assumptions.len() as u32 - 1)
    }

    /// The name of an assumption.
    pub fn name(&self, a: AssumptionId) -> String {
        self.assumptions.get(a.0 as usize).map_or_else(|| format!("#{}", a.0), |x| x.name.clone())
    }

    /// The premise of a goal as text.
    pub fn premise_text(&self, goal: GoalId) -> String {
        match self.checks.get(&goal) {
            Some(s) => s.premise.display(&|a| self.name(a)).to_string(),
            None => "false".into(),
        }
    }

    /// Reads the source's annotations into the table.
    pub fn read_source(&mut self, program: &Program, goals: &Goals) -> Result<(), AnnotError> {
        for (fid, f) in program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            for (b, data) in body.blocks.iter() {
                for (pos, &inst) in data.insts.iter().enumerate() {
                    let d = &body.insts[inst];
                    let InstKind::Call { callee: Callee::Direct(target), args, .. } = &d.kind else { continue };
                    let callee = &program.funcs[*target];
                    if callee.builtin != Some(Builtin::Annotation) {
                        continue;
                    }
                    let at = || program.describe_loc(d.loc);
                    let (Some(cond), Some(text)) = (args.first(), args.get(1)) else {
                        return Err(AnnotError::Malformed {
                            what: format!("{} without two arguments", callee.name),
                            at: at(),
                        });
                    };
                    let Some(text) = const_string(program, text) else {
                        return Err(AnnotError::Malformed {
                            what: format!("{}: the second argument is not a string literal", callee.name),
                            at: at(),
                        });
                    };
                    if callee.name == "__VERIFIER_assumed" {
                        let id = self.intern(text.trim());
                        self.assumptions[id.0 as usize].sites.push(AssumedSite {
                            func: fid,
                            inst,
                            cond: AssumedCond::Holds(*cond),
                            loc: d.loc,
                        });
                    } else {
                        let premise = Premise::parse(&text, &mut |n| self.intern(n))
                            .map_err(|e| AnnotError::Malformed { what: e.to_string(), at: at() })?;
                        let targets = checks_after(program, goals, fid, b, pos + 1);
                        if targets.is_empty() {
                            return Err(AnnotError::Malformed {
                                what: "__VERIFIER_assert_verified is followed by no reach_error or assertion check in its function".into(),
                                at: at(),
                            });
                        }
                        for &g in &targets {
                            self.verify(g, premise.clone(), Source::Source);
                        }
                        self.assertions.push(VerifiedAssertion {
                            func: fid,
                            inst,
                            premise,
                            goals: targets,
                            loc: d.loc,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// The string a constant pointer operand points to.
fn const_string(program: &Program, op: &Operand) -> Option<String> {
    let Operand::Global(g) = op else { return None };
    let bytes = &program.globals[*g].init;
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
}

/// Whether the goal is a check of a property the program asks about
/// (`reach_error`, `assert`).
pub fn is_user_property(goals: &Goals, g: GoalId) -> bool {
    matches!(goals.goals[g].kind, GoalKind::Error { site: ErrorSite::Check(k), .. } if k.is_user_property())
}

/// The `reach_error`/assertion goals of the assertion an
/// `assert_verified` at `(block, pos)` stands for: of the checks a path
/// from there meets first in `func` (the checks themselves, or those of a
/// defined `reach_error` it calls; a path stops at another
/// `assert_verified`), those on the nearest source line at or after the
/// call's. Without that, the path on which the assertion holds would lend
/// its premise to the next, unrelated check.
fn checks_after(program: &Program, goals: &Goals, func: FuncId, block: Block, pos: usize) -> Vec<GoalId> {
    let body = program.funcs[func].body.as_ref().expect("defined");
    let call_line = body.blocks[block].insts.get(pos.wrapping_sub(1)).map_or(0, |&i| body.insts[i].loc.line);
    let mut out: Vec<(GoalId, u32)> = Vec::new();
    let mut seen: HashSet<Block> = HashSet::new();
    let mut work = vec![(block, pos)];
    while let Some((b, start)) = work.pop() {
        let data = &body.blocks[b];
        let mut stopped = false;
        for &inst in &data.insts[start.min(data.insts.len())..] {
            let line = body.insts[inst].loc.line;
            if let Some(g) = goals.error_site(func, inst).filter(|&g| is_user_property(goals, g)) {
                out.push((g, line));
                stopped = true;
                break;
            }
            if let InstKind::Call { callee: Callee::Direct(t), .. } = &body.insts[inst].kind {
                let callee = &program.funcs[*t];
                if callee.builtin == Some(Builtin::Annotation) && callee.name == "__VERIFIER_assert_verified" {
                    stopped = true;
                    break;
                }
                if is_error_function(&callee.name) {
                    if let Some(cb) = &callee.body {
                        for (_, cd) in cb.blocks.iter() {
                            for &ci in &cd.insts {
                                if let Some(g) = goals.error_site(*t, ci).filter(|&g| is_user_property(goals, g)) {
                                    out.push((g, line));
                                }
                            }
                        }
                    }
                    stopped = true;
                    break;
                }
            }
        }
        if stopped {
            continue;
        }
        if let Terminator::Return(_) = data.term {
            continue;
        }
        for s in data.term.successors() {
            if seen.insert(s.block) {
                work.push((s.block, 0));
            }
        }
    }
    let nearest =
        out.iter().map(|&(_, l)| l).filter(|&l| l >= call_line).min().or_else(|| out.iter().map(|&(_, l)| l).min());
    let mut goals: Vec<GoalId> = out.into_iter().filter(|&(_, l)| Some(l) == nearest).map(|(g, _)| g).collect();
    goals.sort();
    goals.dedup();
    goals
}

/// Whether calling a function of this name is the error a task asks about.
pub fn is_error_function(name: &str) -> bool {
    name == "reach_error" || name == "__VERIFIER_error"
}
