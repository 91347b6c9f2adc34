//! Certification after the portfolio: when no test contradicts a proof,
//! the correctness witness (`witness.yml`, see [`crate::witness`]) from
//! the first prover that gives a certificate: the campaign's model
//! checker's complete graph, the Horn engine's solution, the abstract
//! interpretation's states (alone, then with the equalities the bounded
//! engine's induction step kept), the candidates of those that the
//! induction step keeps (Houdini), or a Horn-clause or model-checking run
//! of its own in what is left of the budget.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use walkdown_absint::RelAnalysis;
use walkdown_campaign::{Campaign, Snapshot};
use walkdown_cegar::{CegarEngine, CegarSettings, Certificate, HornEngine, HornEngineSettings};
use walkdown_formats::report::WitnessEntry;
use walkdown_ir::formula::{BlockInvariant, Formula, LinearEquality};
use walkdown_ir::goals::{GoalId, Goals};
use walkdown_ir::source::SourceInfo;
use walkdown_ir::verify::Dominators;
use walkdown_ir::{FuncId, Program};

use crate::plan::Plan;

/// What certification reads.
pub struct Certify<'a, 'p> {
    /// The plan.
    pub plan: &'a Plan,
    /// The program's file as the witness names it.
    pub program_file: &'a std::path::Path,
    /// Whether the program has more files than that one (a witness names
    /// one file, so none is written).
    pub several_files: bool,
    /// The program.
    pub program: &'p Program,
    /// Its goals.
    pub goals: &'p Goals,
    /// Its source loops and variables.
    pub sources: &'a SourceInfo,
    /// The campaign (its interpreter's addresses).
    pub campaign: &'a Campaign<'p>,
    /// The relational analysis, if it completed.
    pub relational: Option<&'a RelAnalysis<'p>>,
    /// The loop invariants the bounded engine's induction step proved
    /// inductive (its proofs hold under them and the analyses' states).
    pub induction_kept: &'a [LinearEquality],
    /// The model checker's settings.
    pub cegar_settings: &'a CegarSettings,
    /// Set by Ctrl-C: no model-checking run of its own then.
    pub interrupt: &'a AtomicBool,
}

impl Certify<'_, '_> {
    /// Writes the witness of `snap` if it can be made and checked; what
    /// happened, for the report (`None`: nothing to witness).
    pub fn witness(
        &self,
        snap: &Snapshot,
        cegar: Option<&mut CegarEngine>,
        horn: Option<&mut HornEngine>,
        explicit_states: Option<Certificate>,
    ) -> Option<WitnessEntry> {
        // The certificate's queries (the model checker's, after the run).
        let _label = walkdown_smt::dump::engine_scope("certify");
        let interp = self.campaign.interpreter();
        let gaddr = |g| interp.global_address(g).unwrap_or(0);
        let faddr = |f| interp.func_address(f).unwrap_or(0);
        let deadline = self.deadline(snap);
        // The interval analysis, run again to the witness's deadline, once
        // for both certificates that read it.
        let intervals = std::cell::OnceCell::new();
        let intervals = || {
            intervals.get_or_init(|| {
                let opts = walkdown_absint::FixpointOptions { deadline: Some(deadline), ..Default::default() };
                walkdown_absint::analyze_with(self.program, opts)
            })
        };
        let mut from_analysis =
            |targets: &[GoalId]| self.analysis_certificate(intervals(), targets, &gaddr, &faddr, &[]);
        let mut from_induction = |targets: &[GoalId]| {
            if self.induction_kept.is_empty() {
                return None;
            }
            self.analysis_certificate(intervals(), targets, &gaddr, &faddr, self.induction_kept)
        };
        let mut model_check = |targets: &[GoalId]| {
            // A model-checking run of its own in half the witness's time
            // left (the other half checks what it finds), at most a minute.
            let left = (deadline.saturating_duration_since(Instant::now()) / 2).min(Duration::from_secs(60));
            if left < Duration::from_millis(500) || self.interrupt.load(Ordering::Relaxed) {
                return None;
            }
            walkdown_cegar::certify(self.program, self.goals, &gaddr, &faddr, targets, self.cegar_settings, left)
                .ok()
                .flatten()
        };
        let mut horn_run = |targets: &[GoalId]| {
            // Spacer alone, in half of the witness's time left (the rest
            // checks what it finds, or goes to the model checker).
            let left = (deadline.saturating_duration_since(Instant::now()) / 2).min(Duration::from_secs(30));
            if left < Duration::from_millis(500) || self.interrupt.load(Ordering::Relaxed) {
                return None;
            }
            let settings = HornEngineSettings::default();
            walkdown_cegar::certify_horn(self.program, self.goals, &gaddr, &faddr, targets, &settings, left)
                .ok()
                .flatten()
        };
        let mut induction_check = |candidates: &[BlockInvariant], targets: &[GoalId]| {
            // The step case in half of the witness's time left (the tests
            // are replayed with what it keeps), at most 30 s.
            let left = (deadline.saturating_duration_since(Instant::now()) / 2).min(Duration::from_secs(30));
            if left < Duration::from_millis(500) || self.interrupt.load(Ordering::Relaxed) {
                return None;
            }
            let settings = walkdown_bmc::BmcSettings::default();
            let end = Instant::now() + left;
            walkdown_bmc::houdini::check_witness(self.program, self.goals, interp, &settings, candidates, targets, end)
                .ok()
        };
        let provers = crate::witness::Provers {
            campaign_graph: cegar.and_then(|e| e.certificate.as_mut()),
            campaign_horn: horn.and_then(|e| e.certificate.as_mut()),
            explicit_states: explicit_states.as_ref(),
            from_analysis: &mut from_analysis,
            from_induction: &mut from_induction,
            induction_check: &mut induction_check,
            equalities: self.induction_kept,
            horn_run: &mut horn_run,
            model_check: &mut model_check,
        };
        let (out, version) = (&self.plan.out, env!("CARGO_PKG_VERSION"));
        crate::witness::write_witness(
            out,
            self.program_file,
            self.several_files,
            self.program,
            self.sources,
            self.goals,
            snap,
            provers,
            version,
            deadline,
        )
    }

    /// The witness uses what is left of the budget (a run that settled
    /// every goal early has most of it), and at least a quarter of it up
    /// to 5 s past it, so a run that used its whole budget can still check
    /// invariants it has.
    fn deadline(&self, snap: &Snapshot) -> Instant {
        let budget = self.plan.budget;
        let left = budget.saturating_sub(snap.elapsed);
        Instant::now() + left.max((budget / 4).min(Duration::from_secs(5)))
    }

    /// A certificate from the interval analysis `intervals` and the
    /// relational one, with the equalities `kept` at their loop heads (the
    /// induction step's, which it proved inductive under those analyses'
    /// states).
    fn analysis_certificate(
        &self,
        intervals: &walkdown_absint::Analysis<'_>,
        targets: &[GoalId],
        gaddr: &dyn Fn(walkdown_ir::GlobalId) -> u64,
        faddr: &dyn Fn(walkdown_ir::FuncId) -> u64,
        kept: &[LinearEquality],
    ) -> Option<Certificate> {
        if !intervals.complete {
            return None;
        }
        let dm = self.program.data_model;
        // An equality over a head's values holds wherever the head
        // dominates: those values are the last visit's, unchanged since.
        let dominators: HashMap<FuncId, Dominators> = kept
            .iter()
            .filter_map(|e| Some((e.func, Dominators::compute(self.program.funcs.get(e.func)?.body.as_ref()?))))
            .collect();
        let formula_of = |f, b| {
            // With equalities of its own, without the relational
            // analysis' (its unwrapped 64-bit sums next to the same
            // equalities in wrapping arithmetic left Z3 without an answer
            // on hhk2008's step).
            let relational = if kept.is_empty() { self.relational } else { None };
            let analysis = walkdown_absint::entry_formula(intervals, relational, f, b)?;
            let dominated = |e: &&LinearEquality| e.func == f && dominators[&f].dominates(e.block, b);
            let equalities = kept.iter().filter(dominated).map(|e| e.formula(dm, &|v| v));
            Some(Formula::and(std::iter::once(analysis).chain(equalities).collect()))
        };
        walkdown_cegar::certificate_from_formulas(
            self.program,
            self.goals,
            gaddr,
            faddr,
            self.cegar_settings,
            &formula_of,
            targets.to_vec(),
        )
        .ok()
    }
}
