//! The IR passes on small textual programs (`tests/passes/*.wir`): after
//! inlining, localizing and unwinding (k = 2) the program verifies, the
//! unwound `main` is acyclic, and its size and cut points are the ones
//! the file states (`; expect inlined blocks: N`, `; expect unwound
//! blocks: N`, `; expect cuts: N`). Then the passes add no executions: on
//! random inputs, a run of the transformed program either is cut (ends at
//! an `assume false`) having read a prefix of the original run's inputs,
//! or ends exactly as the original run, with the same inputs read.

use walkdown_bmc::inline::{inline_main, InlineSettings};
use walkdown_bmc::localize::localize;
use walkdown_bmc::unwind::{find_loops, unwind, UnwindSettings};
use walkdown_interp::{ExecLimits, Interpreter, Outcome, RunOptions};
use walkdown_ir::goals::Goals;
use walkdown_ir::verify::verify_program;

fn expectation(text: &str, key: &str) -> Option<usize> {
    text.lines().find_map(|l| l.strip_prefix(&format!("; expect {key}:")).map(|v| v.trim().parse().unwrap()))
}

#[test]
fn passes_verify_and_add_no_executions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let original = walkdown_ir_reader::parse_and_verify(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (mut p, prov) =
            inline_main(&original, &InlineSettings { recursion_bound: 2, ..Default::default() }).unwrap();
        verify_program(&p)
            .unwrap_or_else(|e| panic!("{name}: after inlining:\n{e}\n{}", walkdown_ir::write::program_to_string(&p)));
        let main = p.entry().unwrap();
        let inlined_blocks = p.funcs[main].body.as_ref().unwrap().blocks.len();
        let body = p.funcs[main].body.as_mut().unwrap();
        localize(body, "main").unwrap();
        verify_program(&p)
            .unwrap_or_else(|e| panic!("{name}: after localize:\n{e}\n{}", walkdown_ir::write::program_to_string(&p)));
        let body = p.funcs[main].body.as_ref().unwrap();
        let (unwound, uprov) =
            unwind(body, "main", main, &prov, &UnwindSettings { k: 2, ..Default::default() }).unwrap();
        p.funcs[main].body = Some(unwound);
        verify_program(&p)
            .unwrap_or_else(|e| panic!("{name}: after unwinding:\n{e}\n{}", walkdown_ir::write::program_to_string(&p)));
        let ub = p.funcs[main].body.as_ref().unwrap();
        let (loops, reducible) = find_loops(ub);
        assert!(reducible && loops.is_empty(), "{name}: the unwound body has loops");
        let printed = walkdown_ir::write::program_to_string(&p);
        assert_eq!(Some(inlined_blocks), expectation(&text, "inlined blocks"), "{name}: inlined blocks");
        assert_eq!(Some(ub.blocks.len()), expectation(&text, "unwound blocks"), "{name}: unwound blocks\n{printed}");
        assert_eq!(Some(uprov.cuts.len()), expectation(&text, "cuts"), "{name}: cuts\n{printed}");
        // Every cut block starts with `assume false`.
        for c in &uprov.cuts {
            let first = ub.blocks[c.block].insts[0];
            assert!(
                matches!(ub.insts[first].kind, walkdown_ir::InstKind::Assume { cond: walkdown_ir::Operand::Const(k) } if k.bits == 0)
            );
        }
        // No execution added or changed.
        let og = Goals::compute(&original);
        let tg = Goals::compute(&p);
        let oi = Interpreter::new(&original, &og).unwrap();
        let ti = Interpreter::new(&p, &tg).unwrap();
        let opts = RunOptions { limits: ExecLimits { max_steps: 100_000, ..Default::default() }, ..Default::default() };
        let (mut cut, mut same) = (0, 0);
        for tv in walkdown_testsupport::input_vectors(&name, 500) {
            let a = oi.run(&tv, &opts);
            let b = ti.run(&tv, &opts);
            if b.outcome == Outcome::AssumeFailed && a.outcome != Outcome::AssumeFailed {
                assert!(a.inputs.starts_with(&b.inputs), "{name}: cut run read other inputs on {tv:?}");
                cut += 1;
            } else {
                assert_eq!(a.outcome, b.outcome, "{name}: outcome differs on {tv:?}");
                assert_eq!(a.inputs, b.inputs, "{name}: inputs differ on {tv:?}");
                same += 1;
            }
        }
        assert!(
            cut > 0 && same > 0,
            "{name}: random inputs should both pass and exceed the bound ({cut} cut, {same} same)"
        );
    }
}
