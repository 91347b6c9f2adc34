//! The instrumentation changes nothing the interpreter sees: on every seed
//! and public task (when `../shared` is present) and on the project's own
//! annotated programs, the instrumented program (every configuration, with
//! the source's annotations and the static analysis's proofs) passes the IR
//! verifier and runs seeded random vectors to the same outcome, goals and
//! inputs consumed as the original. Also the premise syntax and the
//! conditions the inference finds on an annotated program of our own.

use std::path::{Path, PathBuf};
use walkdown_annot::{instrument, Annotations, Config, Premise, Source};
use walkdown_frontend::{compile_c, FrontendSettings};
use walkdown_interp::{ExecLimits, Interpreter, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::{DataModel, Program};

fn own_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../walkdown/tests/annotations");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

fn annotations_of(program: &Program, goals: &Goals) -> Annotations {
    let mut a = Annotations::unverified(goals);
    a.read_source(program, goals).expect("annotations read");
    let analysis = walkdown_absint::analyze(program);
    for (g, _) in analysis.safe_error_sites(goals) {
        a.verify(g, Premise::True, Source::SelfProof);
    }
    a
}

/// Runs `vectors` on both programs; the first difference, if any.
fn compare(name: &str, program: &Program, goals: &Goals, vectors: usize) -> Result<usize, String> {
    let a = annotations_of(program, goals);
    let targets = |g| walkdown_annot::collect::is_user_property(goals, g);
    let original = Interpreter::new(program, goals).map_err(|e| format!("{name}: {e}"))?;
    let options =
        RunOptions { limits: ExecLimits { max_steps: 200_000, ..ExecLimits::default() }, ..RunOptions::default() };
    let tests = walkdown_testsupport::input_vectors(name, vectors);
    let mut compared = 0;
    for config in Config::ALL {
        let (p, _) = match instrument(program, goals, &a, config, &targets) {
            Ok(x) => x,
            Err(e) => return Err(format!("{name}: {config:?}: {e:?}")),
        };
        walkdown_ir::verify::verify_program(&p)
            .map_err(|e| format!("{name}: {config:?}: the IR does not verify: {e}"))?;
        let instrumented = Interpreter::new(&p, goals).map_err(|e| format!("{name}: {e}"))?;
        for t in &tests {
            let x = original.run(t, &options);
            let y = instrumented.run(t, &options);
            if format!("{:?}", x.outcome) != format!("{:?}", y.outcome)
                || x.covered != y.covered
                || x.nondet_calls != y.nondet_calls
                || x.inputs_exhausted != y.inputs_exhausted
            {
                return Err(format!("{name}: {config:?}: {:?} vs {:?} on {:?}", x.outcome, y.outcome, t.values));
            }
            compared += 1;
        }
    }
    Ok(compared)
}

#[test]
fn own_annotated_programs_run_alike_instrumented() {
    for f in own_fixtures() {
        let program = compile_c(&f, &FrontendSettings::default()).expect("lowers");
        let goals = Goals::compute(&program);
        let n = compare(&f.display().to_string(), &program, &goals, 200).unwrap_or_else(|e| panic!("{e}"));
        assert!(n > 0);
    }
}

#[test]
fn corpus_programs_run_alike_instrumented() {
    let Some(corpus) = walkdown_testsupport::corpus("corpus_programs_run_alike_instrumented") else { return };
    let results = walkdown_testsupport::map_corpus(&corpus, |prog| {
        let settings = FrontendSettings { data_model: prog.data_model, ..Default::default() };
        let Ok(ir) = compile_c(&prog.path, &settings) else { return Ok(0) };
        let goals = Goals::compute(&ir);
        compare(&prog.name, &ir, &goals, 30)
    });
    let mut compared = 0;
    for r in results {
        match r {
            Ok(n) => compared += n,
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!("{compared} runs compared");
    assert!(compared > 0);
}

#[test]
fn premises_parse_and_combine() {
    let mut names: Vec<String> = Vec::new();
    let mut id = |n: &str| {
        if let Some(i) = names.iter().position(|x| x == n) {
            return walkdown_annot::AssumptionId(i as u32);
        }
        names.push(n.into());
        walkdown_annot::AssumptionId(names.len() as u32 - 1)
    };
    let p = Premise::parse("a && (b || !c)", &mut id).unwrap();
    // a=bit0, b=bit1, c=bit2.
    assert!(p.holds(0b011) && p.holds(0b001) && !p.holds(0b101) && !p.holds(0b110));
    assert_eq!(Premise::parse("true", &mut id).unwrap(), Premise::True);
    assert!(Premise::parse("a & b", &mut id).is_err());
    assert!(Premise::parse("(a", &mut id).is_err());
    assert!(Premise::parse("a b", &mut id).is_err());
    assert_eq!(Premise::True.or(Premise::False), Premise::True);
    assert_eq!(
        Premise::False.or(Premise::Id(walkdown_annot::AssumptionId(0))),
        Premise::Id(walkdown_annot::AssumptionId(0))
    );
}

/// More ids than the inference handles: the ones never negated merge into
/// one (the least mentioned), and a premise that holds of the merged ids
/// holds of the originals in every state; with too many negated ids
/// nothing merges.
#[test]
fn ids_beyond_the_limit_merge_only_where_sound() {
    use walkdown_annot::collect::{Assumption, CheckStatus};
    use walkdown_annot::AssumptionId;
    use walkdown_ir::entity::EntityRef;
    let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let with = |premises: &[&str]| {
        let mut a = Annotations::default();
        for n in names {
            a.assumptions.push(Assumption { name: n.into(), sites: Vec::new() });
        }
        for (k, text) in premises.iter().enumerate() {
            let p =
                Premise::parse(text, &mut |n: &str| AssumptionId(names.iter().position(|x| *x == n).unwrap() as u32))
                    .unwrap();
            a.checks
                .insert(walkdown_ir::goals::GoalId::new(k), CheckStatus { premise: p, sources: vec![Source::Source] });
        }
        a
    };
    let texts = ["a && b", "a || !c", "d && e && a", "f || g", "h && b"];
    let original = with(&texts);
    let merged = original.merged(6).expect("mergeable");
    assert_eq!(merged.assumptions.len(), 6);
    assert!(!merged.assumptions.last().unwrap().name.contains('c'), "c is negated: never merged");
    let index_of = |name: &str| merged.assumptions.iter().position(|a| a.name.split('+').any(|m| m == name)).unwrap();
    for state in 0u32..256 {
        // The merged state: a merged id holds when all its members hold.
        let mut m = 0u32;
        for (k, a) in merged.assumptions.iter().enumerate() {
            if a.name.split('+').all(|n| state >> names.iter().position(|x| *x == n).unwrap() & 1 == 1) {
                m |= 1 << k;
            }
        }
        for (g, c) in &merged.checks {
            if c.premise.holds(m) {
                assert!(original.checks[g].premise.holds(state), "{:?} in state {state:08b}", texts[g.index()]);
            }
        }
    }
    assert_eq!(index_of("a"), 0, "the most mentioned stays apart");
    let negated = with(&["!a", "!b", "!c", "!d", "!e", "!f && g && h"]);
    assert!(negated.merged(6).is_none());
}

/// `withdraw.c` (ours, in the style of the paper's example): the then
/// branch is pruned outright, the else branch after its assumption; MUST
/// asks to break the assumption first; PV stops only at the assertion.
#[test]
fn the_conditions_of_an_annotated_program() {
    let f = own_fixtures().into_iter().find(|p| p.ends_with("withdraw.c")).expect("withdraw.c");
    let program = compile_c(&f, &FrontendSettings { data_model: DataModel::LP64, ..Default::default() }).unwrap();
    let goals = Goals::compute(&program);
    let mut a = Annotations::unverified(&goals);
    a.read_source(&program, &goals).unwrap();
    assert_eq!(a.assumptions.len(), 1);
    assert_eq!(a.assertions.len(), 1);
    let statuses: Vec<String> = a.checks.keys().map(|g| a.premise_text(*g)).collect();
    assert!(statuses.contains(&"no_wrap".to_string()), "{statuses:?}");
    let targets = |g| walkdown_annot::collect::is_user_property(&goals, g);
    let count = |c| instrument(&program, &goals, &a, c, &targets).unwrap().1;
    let may = count(Config::May);
    assert!(may.prunes >= 2 && may.tryfirsts == 0 && may.assumed_sites == 1, "{may:?}");
    let must = count(Config::Must);
    assert!(must.prunes == 0 && must.tryfirsts >= 1, "{must:?}");
    let pv = count(Config::Pv);
    assert_eq!((pv.prunes, pv.tryfirsts), (1, 0));
    assert_eq!(count(Config::Uv), walkdown_annot::Instrumentation::default());
}
