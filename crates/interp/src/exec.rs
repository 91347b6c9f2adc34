//! The execution loop over the executable form.
//!
//! One register file (`Vec<u64>`) serves the whole run: the frames of the
//! call stack, each at a base right after its caller's, each holding its
//! function's values and then its constants (copied in at the call, see
//! `call`). Calls push a small [`Frame`] record; block arguments are
//! copied straight into their registers, through a reusable scratch buffer
//! when the moves overlap (parallel-copy semantics). Nothing is allocated
//! per instruction once the register file and scratch buffers have grown
//! to the run's needs.

use crate::api::{ConsumedInput, ExecLimits, LineCount, Outcome, RunResult};
use crate::code::{FuncKind, Prepared, XInst, NONE};
use crate::eval::{eval_bin_bits, eval_cast, eval_cmp_bits, eval_ptradd, eval_select, eval_un_bits, mask, sext};
use crate::fastforward::{self, V};
use crate::memory::{MemFault, Memory, ObjectKind};
use walkdown_ir::entity::EntityRef;
use walkdown_ir::goals::GoalId;
use walkdown_ir::testvec::InputValue;
use walkdown_ir::{CheckKind, Inst, Loc, Type};

/// A caller's state, saved across a call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub(crate) ret_pc: u32,
    pub(crate) base: u32,
    pub(crate) frame: u32,
    pub(crate) dst: u32,
    pub(crate) ret_mask: u64,
    pub(crate) alloca_mark: u32,
}

/// What an instruction did to the control flow.
pub(crate) enum Flow {
    /// Go on with the next instruction.
    Next,
    /// Enter a function (caller's frame already pushed).
    Enter {
        /// Its entry.
        pc: usize,
        /// Its frame base.
        base: usize,
        /// Its frame size.
        frame: usize,
    },
    /// Go on at `pc` in the frame at `base` (a `longjmp`, whose caller
    /// frames are already popped).
    Resume {
        /// Where.
        pc: usize,
        /// Its frame base.
        base: usize,
        /// Its frame size.
        frame: usize,
    },
    /// The run ends.
    Stop(Outcome),
}

/// Where a `setjmp` call can be returned to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JmpPoint {
    /// Call frames of the callers of the activation that called `setjmp`.
    pub(crate) depth: usize,
    /// That activation's frame.
    pub(crate) base: usize,
    pub(crate) frame: usize,
    /// The `setjmp` call.
    pub(crate) pc: usize,
    pub(crate) dst: u32,
    pub(crate) ret_mask: u64,
}

/// The state of one run.
pub(crate) struct Machine<'p, 't> {
    pub(crate) p: &'p Prepared,
    pub(crate) mem: Memory,
    pub(crate) frames: Vec<Frame>,
    pub(crate) allocas: Vec<usize>,
    scratch: Vec<u64>,
    /// Byte scratch for the string and memory functions.
    pub(crate) bytes: Vec<u8>,
    covered: Vec<u64>,
    lines: Vec<u64>,
    inputs: &'t [InputValue],
    next_input: usize,
    consumed: Vec<ConsumedInput>,
    nondet_calls: u64,
    exhausted: bool,
    unknown: Vec<u32>,
    pub(crate) limits: ExecLimits,
    steps: u64,
    /// What the program printed to stdout, when the run keeps it.
    pub(crate) output: Option<Vec<u8>>,
    /// The `setjmp` calls made so far; a `jmp_buf` holds an index.
    pub(crate) jmp_points: Vec<JmpPoint>,
    /// Per fast-forward loop: arrivals to let pass before the next try,
    /// and failed tries in a row (empty until a marked edge is taken).
    ff_state: Vec<(u32, u8)>,
    /// The walk's value list, kept between tries.
    ff_scratch: Vec<(u32, V)>,
    /// Steps the jumps skipped.
    skipped_steps: u128,
    /// Jumps made.
    ff_jumps: u64,
    /// The first jumps made.
    ff_notes: Vec<crate::api::JumpNote>,
}

impl<'p, 't> Machine<'p, 't> {
    pub(crate) fn new(p: &'p Prepared, inputs: &'t [InputValue], limits: ExecLimits, lines: bool) -> Self {
        let mut mem = p.memory.clone();
        mem.set_max_live_bytes(limits.max_memory);
        Machine {
            p,
            mem,
            frames: Vec::new(),
            allocas: Vec::new(),
            scratch: Vec::new(),
            bytes: Vec::new(),
            covered: vec![0; p.goal_count.div_ceil(64)],
            lines: if lines { vec![0; p.lines.len()] } else { Vec::new() },
            inputs,
            next_input: 0,
            consumed: Vec::new(),
            nondet_calls: 0,
            exhausted: false,
            unknown: Vec::new(),
            limits,
            steps: 0,
            output: None,
            jmp_points: Vec::new(),
            ff_state: Vec::new(),
            ff_scratch: Vec::new(),
            skipped_steps: 0,
            ff_jumps: 0,
            ff_notes: Vec::new(),
        }
    }

    /// [`Machine::run`], also returning the captured output.
    pub(crate) fn run_keeping_output(self, record_lines: bool) -> (RunResult, Vec<u8>) {
        let mut out = Vec::new();
        let r = self.run_inner(record_lines, &mut out);
        (r, out)
    }

    /// Runs `main` to the end and collects the results.
    pub(crate) fn run(self, record_lines: bool) -> RunResult {
        self.run_inner(record_lines, &mut Vec::new())
    }

    fn run_inner(mut self, record_lines: bool, out: &mut Vec<u8>) -> RunResult {
        let outcome = self.start(record_lines);
        if let Some(o) = self.output.take() {
            *out = o;
        }
        let p = self.p;
        let mut covered = Vec::new();
        for (w, &bits) in self.covered.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let i = b.trailing_zeros() as usize;
                covered.push(GoalId::new(w * 64 + i));
                b &= b - 1;
            }
        }
        let line_counts = if record_lines {
            p.lines.iter().zip(&self.lines).map(|(&(file, line), &count)| LineCount { file, line, count }).collect()
        } else {
            Vec::new()
        };
        RunResult {
            outcome,
            covered,
            line_counts,
            inputs: self.consumed,
            nondet_calls: self.nondet_calls,
            inputs_exhausted: self.exhausted,
            steps: self.steps,
            skipped_steps: self.skipped_steps,
            fast_forwards: self.ff_jumps,
            jumps: std::mem::take(&mut self.ff_notes),
            unknown_externals: self.unknown.iter().map(|&f| p.funcs[f as usize].name.clone()).collect(),
        }
    }

    fn start(&mut self, record_lines: bool) -> Outcome {
        let p = self.p;
        let main = &p.funcs[p.entry as usize];
        let FuncKind::Defined { entry, frame, params, consts_start, consts_len } = &main.kind else {
            return Outcome::Unsupported { what: "`main` has no body".into(), loc: Loc::UNKNOWN };
        };
        let base = 0;
        let mut regs = vec![0; base + *frame as usize];
        let (cs, cl) = (*consts_start as usize, *consts_len as usize);
        let cbase = base + *frame as usize - cl;
        regs[cbase..cbase + cl].copy_from_slice(&p.consts[cs..cs + cl]);
        for (&r, &v) in params.iter().zip(&p.main_args) {
            regs[base + r as usize] = v;
        }
        if self.limits.max_call_depth == 0 {
            return Outcome::DepthLimit;
        }
        if record_lines {
            self.exec::<true>(&mut regs, *entry as usize, base, *frame as usize)
        } else {
            self.exec::<false>(&mut regs, *entry as usize, base, *frame as usize)
        }
    }

    /// Marks goal `g` covered.
    #[inline(always)]
    pub(crate) fn cover(&mut self, g: u32) {
        if g != NONE {
            if let Some(w) = self.covered.get_mut(g as usize / 64) {
                *w |= 1u64 << (g % 64);
            }
        }
    }

    /// The error outcome of the instruction at `pc`, covering its error-site
    /// goal.
    pub(crate) fn error(&mut self, pc: usize, kind: CheckKind) -> Outcome {
        let m = self.p.meta[pc];
        self.cover(m.goal);
        Outcome::Error {
            kind,
            func: m.func,
            inst: m.inst.unwrap_or(Inst::from_u32(u32::MAX)),
            loc: m.loc,
            goal: (m.goal != NONE).then(|| GoalId::new(m.goal as usize)),
        }
    }

    pub(crate) fn fault(&mut self, pc: usize, f: MemFault) -> Outcome {
        self.error(pc, f.kind)
    }

    pub(crate) fn unsupported(&self, pc: usize, what: String) -> Outcome {
        Outcome::Unsupported { what, loc: self.p.meta[pc].loc }
    }

    /// The next input as a value of type `ty` (0 once the vector is
    /// exhausted).
    pub(crate) fn nondet(&mut self, ty: Type, signed: bool) -> u64 {
        self.nondet_calls += 1;
        let bits = match self.inputs.get(self.next_input) {
            Some(&v) => {
                self.next_input += 1;
                input_bits(v, ty, signed, self.p.dm)
            }
            None => {
                self.exhausted = true;
                0
            }
        };
        self.consumed.push(ConsumedInput { ty, signed, bits });
        bits
    }

    /// Counts an execution of line slot `slot` (when lines are recorded).
    pub(crate) fn count_line(&mut self, slot: u32) {
        if let Some(c) = self.lines.get_mut(slot as usize) {
            *c += 1;
        }
    }

    /// Records a call of an external function without model.
    pub(crate) fn note_unknown(&mut self, func: u32) {
        if !self.unknown.contains(&func) {
            self.unknown.push(func);
        }
    }

    /// Takes edge `e`: covers its goal, copies the block arguments.
    #[inline(always)]
    fn take(&mut self, r: &mut [u64], e: u32, base: usize) -> usize {
        let edge = self.p.edges[e as usize];
        self.cover(edge.goal);
        if edge.moves_len != 0 {
            let moves = &self.p.moves[edge.moves_start as usize..(edge.moves_start + edge.moves_len) as usize];
            if edge.parallel {
                self.scratch.clear();
                for &(_, src) in moves {
                    self.scratch.push(r[src.slot(base)]);
                }
                for (&(dst, _), &v) in moves.iter().zip(&self.scratch) {
                    r[base + dst as usize] = v;
                }
            } else {
                for &(dst, src) in moves {
                    r[base + dst as usize] = r[src.slot(base)];
                }
            }
        }
        if edge.ff != NONE {
            self.fast_forward(r, base, edge.ff);
        }
        edge.pc as usize
    }

    /// At the head of fast-forward loop `li` (a marked back edge was just
    /// taken): jumps over the iterations that take this one's path, when
    /// the loop's state allows it; see [`crate::fastforward`].
    #[inline(never)]
    fn fast_forward(&mut self, r: &mut [u64], base: usize, li: u32) {
        let p = self.p;
        if !p.ff.enabled {
            return;
        }
        let li = li as usize;
        if self.ff_state.len() != p.ff.loops.len() {
            self.ff_state = vec![(0, 0); p.ff.loops.len()];
        }
        let Some(st) = self.ff_state.get_mut(li) else {
            return;
        };
        if st.0 > 0 {
            st.0 -= 1;
            return;
        }
        let jumped = self.ff_jump(r, base, li);
        let st = &mut self.ff_state[li];
        if jumped {
            st.1 = 0;
        } else {
            // Back off: a loop that does not qualify now is retried after
            // 1, 3, 7, ... up to 1023 arrivals.
            st.1 = (st.1 + 1).min(10);
            st.0 = (1u32 << st.1) - 1;
        }
    }

    fn ff_jump(&mut self, r: &mut [u64], base: usize, li: usize) -> bool {
        let p = self.p;
        let Some(l) = p.ff.loops.get(li) else {
            return false;
        };
        let mut scratch = std::mem::take(&mut self.ff_scratch);
        let plan = fastforward::plan(p, li, r, base, &mut scratch);
        self.ff_scratch = scratch;
        let Some(jump) = plan else {
            return false;
        };
        let note = self.ff_notes.len() < crate::api::MAX_JUMP_NOTES;
        let before: Vec<u64> =
            if note { l.params.iter().map(|&(reg, _)| r[base + reg as usize]).collect() } else { Vec::new() };
        for (i, &(reg, _)) in l.params.iter().enumerate() {
            let slot = base + reg as usize;
            r[slot] = jump.value_after(i, r[slot]);
        }
        if note {
            self.ff_notes.push(crate::api::JumpNote {
                loc: p.meta[l.head as usize].loc,
                before,
                after: l.params.iter().map(|&(reg, _)| r[base + reg as usize]).collect(),
                iterations: jump.iterations,
            });
        }
        for &g in jump.goals() {
            self.cover(g);
        }
        if !self.lines.is_empty() {
            for (pc, n) in jump.runs() {
                let s = p.line_slot[pc as usize];
                if let Some(c) = self.lines.get_mut(s as usize) {
                    // Jumps saturate a count at LINE_COUNT_SATURATED, so
                    // the plain run's increments after it cannot wrap.
                    let n = u64::try_from(n).unwrap_or(u64::MAX);
                    *c = c.saturating_add(n).min((*c).max(crate::LINE_COUNT_SATURATED));
                }
            }
        }
        self.skipped_steps = self.skipped_steps.saturating_add(jump.skipped_steps());
        self.ff_jumps += 1;
        true
    }

    /// The main loop. The inner loop works on a slice of the register file
    /// (so its pointer and length stay in machine registers); it breaks out
    /// only for calls, which may grow the file.
    fn exec<const LINES: bool>(
        &mut self,
        regs: &mut Vec<u64>,
        mut pc: usize,
        mut base: usize,
        mut frame: usize,
    ) -> Outcome {
        let p = self.p;
        let code = &p.code[..];
        let dm = p.dm;
        let max_steps = self.limits.max_steps;
        let deadline = self.limits.deadline;
        let mut steps = self.steps;
        // With a deadline, the step counter stops every `DEADLINE_CHECK`
        // steps to look at the clock: the hot loop keeps its one
        // comparison per step.
        let mut limit =
            if deadline.is_some() { max_steps.min(steps.saturating_add(DEADLINE_CHECK)) } else { max_steps };
        macro_rules! stop {
            ($o:expr) => {{
                let o = $o;
                self.steps = steps;
                return o;
            }};
        }
        loop {
            let r: &mut [u64] = &mut regs[..];
            macro_rules! rd {
                ($o:expr) => {
                    r[$o.slot(base)]
                };
            }
            macro_rules! wr {
                ($d:expr, $v:expr) => {
                    let v = $v;
                    r[base + $d as usize] = v;
                };
            }
            // A comparison fused with the branch after it: the branch is a
            // step of its own, at the next program counter.
            macro_rules! cmp_br {
                ($c:expr, $dst:expr, $t:expr, $f:expr) => {{
                    let c: bool = $c;
                    wr!($dst, u64::from(c));
                    if steps >= limit {
                        match next_limit(steps, max_steps, deadline) {
                            Ok(l) => limit = l,
                            Err(o) => stop!(o),
                        }
                    }
                    steps += 1;
                    pc += 1;
                    if LINES {
                        let s = p.line_slot[pc];
                        if s != NONE {
                            self.lines[s as usize] += 1;
                        }
                    }
                    pc = self.take(r, if c { $t } else { $f }, base);
                }};
            }
            let site = loop {
                if steps >= limit {
                    match next_limit(steps, max_steps, deadline) {
                        Ok(l) => limit = l,
                        Err(o) => stop!(o),
                    }
                }
                steps += 1;
                if LINES {
                    let s = p.line_slot[pc];
                    if s != NONE {
                        self.lines[s as usize] += 1;
                    }
                }
                match code[pc] {
                    XInst::Add { sh, dst, a, b } => {
                        wr!(dst, rd!(a).wrapping_add(rd!(b)) & (u64::MAX >> sh));
                        pc += 1;
                    }
                    XInst::Sub { sh, dst, a, b } => {
                        wr!(dst, rd!(a).wrapping_sub(rd!(b)) & (u64::MAX >> sh));
                        pc += 1;
                    }
                    XInst::Mul { sh, dst, a, b } => {
                        wr!(dst, rd!(a).wrapping_mul(rd!(b)) & (u64::MAX >> sh));
                        pc += 1;
                    }
                    XInst::And { dst, a, b } => {
                        wr!(dst, rd!(a) & rd!(b));
                        pc += 1;
                    }
                    XInst::Or { dst, a, b } => {
                        wr!(dst, rd!(a) | rd!(b));
                        pc += 1;
                    }
                    XInst::Xor { dst, a, b } => {
                        wr!(dst, rd!(a) ^ rd!(b));
                        pc += 1;
                    }
                    XInst::Shl { sh, dst, a, b } => {
                        let n = rd!(b) & u64::from(63 - sh);
                        wr!(dst, (rd!(a) << n) & (u64::MAX >> sh));
                        pc += 1;
                    }
                    XInst::LShr { sh, dst, a, b } => {
                        let n = rd!(b) & u64::from(63 - sh);
                        wr!(dst, rd!(a) >> n);
                        pc += 1;
                    }
                    XInst::AShr { sh, dst, a, b } => {
                        let n = rd!(b) & u64::from(63 - sh);
                        let x = ((rd!(a) << sh) as i64) >> sh;
                        wr!(dst, ((x >> n) as u64) & (u64::MAX >> sh));
                        pc += 1;
                    }
                    XInst::Bin { op, bits, dst, a, b } => {
                        wr!(dst, eval_bin_bits(op, u32::from(bits), rd!(a), rd!(b)));
                        pc += 1;
                    }
                    XInst::Eq { dst, a, b } => {
                        wr!(dst, u64::from(rd!(a) == rd!(b)));
                        pc += 1;
                    }
                    XInst::Ne { dst, a, b } => {
                        wr!(dst, u64::from(rd!(a) != rd!(b)));
                        pc += 1;
                    }
                    XInst::Ult { dst, a, b } => {
                        wr!(dst, u64::from(rd!(a) < rd!(b)));
                        pc += 1;
                    }
                    XInst::Ule { dst, a, b } => {
                        wr!(dst, u64::from(rd!(a) <= rd!(b)));
                        pc += 1;
                    }
                    XInst::Slt { sh, dst, a, b } => {
                        let (x, y) = (rd!(a) << sh, rd!(b) << sh);
                        wr!(dst, u64::from((x as i64) < (y as i64)));
                        pc += 1;
                    }
                    XInst::Sle { sh, dst, a, b } => {
                        let (x, y) = (rd!(a) << sh, rd!(b) << sh);
                        wr!(dst, u64::from((x as i64) <= (y as i64)));
                        pc += 1;
                    }
                    XInst::BrEq { dst, a, b, t, f } => cmp_br!(rd!(a) == rd!(b), dst, t, f),
                    XInst::BrNe { dst, a, b, t, f } => cmp_br!(rd!(a) != rd!(b), dst, t, f),
                    XInst::BrUlt { dst, a, b, t, f } => cmp_br!(rd!(a) < rd!(b), dst, t, f),
                    XInst::BrUle { dst, a, b, t, f } => cmp_br!(rd!(a) <= rd!(b), dst, t, f),
                    XInst::BrSlt { sh, dst, a, b, t, f } => {
                        cmp_br!(((rd!(a) << sh) as i64) < ((rd!(b) << sh) as i64), dst, t, f)
                    }
                    XInst::BrSle { sh, dst, a, b, t, f } => {
                        cmp_br!(((rd!(a) << sh) as i64) <= ((rd!(b) << sh) as i64), dst, t, f)
                    }
                    XInst::Cmp { pred, bits, dst, a, b } => {
                        wr!(dst, u64::from(eval_cmp_bits(pred, u32::from(bits), rd!(a), rd!(b))));
                        pc += 1;
                    }
                    XInst::Load { ty, size, dst, ptr } => match self.mem.load(rd!(ptr), u64::from(size)) {
                        Ok(v) => {
                            wr!(dst, if ty == Type::I1 { v & 1 } else { v });
                            pc += 1;
                        }
                        Err(f) => stop!(self.fault(pc, f)),
                    },
                    XInst::Store { size, ptr, val } => match self.mem.store(rd!(ptr), u64::from(size), rd!(val)) {
                        Ok(()) => pc += 1,
                        Err(f) => stop!(self.fault(pc, f)),
                    },
                    XInst::Branch { c, t, f } => {
                        let e = if rd!(c) & 1 != 0 { t } else { f };
                        pc = self.take(r, e, base);
                    }
                    XInst::Jump { edge } => pc = self.take(r, edge, base),
                    XInst::PtrAdd { dst, base: b, off } => {
                        wr!(dst, eval_ptradd(rd!(b), rd!(off), dm));
                        pc += 1;
                    }
                    XInst::Cast { op, from, to, dst, a } => {
                        wr!(dst, eval_cast(op, from, to, rd!(a), dm));
                        pc += 1;
                    }
                    XInst::Select { dst, c, t, f } => {
                        wr!(dst, eval_select(rd!(c), rd!(t), rd!(f)));
                        pc += 1;
                    }
                    XInst::Un { op, bits, dst, a } => {
                        wr!(dst, eval_un_bits(op, u32::from(bits), rd!(a)));
                        pc += 1;
                    }
                    XInst::Switch { table } => {
                        let t = p.switches[table as usize];
                        let v = rd!(t.val) & mask(t.ty.bits(dm));
                        let cases = &p.cases[t.cases_start as usize..(t.cases_start + t.cases_len) as usize];
                        let e = match cases.binary_search_by_key(&v, |&(k, _)| k) {
                            Ok(i) => cases[i].1,
                            Err(_) => t.default,
                        };
                        pc = self.take(r, e, base);
                    }
                    XInst::Call { site } => break site,
                    XInst::Ret { val } => {
                        let v = match val {
                            Some(o) => rd!(o),
                            None => 0,
                        };
                        let Some(f) = self.frames.pop() else {
                            let main = &p.funcs[p.entry as usize];
                            let code = match main.ret {
                                Some(ty) => sext(v, ty.bits(dm)) as i32,
                                None => 0,
                            };
                            stop!(Outcome::Exit(code));
                        };
                        while self.allocas.len() > f.alloca_mark as usize {
                            if let Some(i) = self.allocas.pop() {
                                self.mem.release(i);
                            }
                        }
                        base = f.base as usize;
                        frame = f.frame as usize;
                        if f.dst != NONE {
                            r[base + f.dst as usize] = v & f.ret_mask;
                        }
                        pc = f.ret_pc as usize;
                    }
                    XInst::Alloca { dst, size, align } => {
                        let n = rd!(size);
                        match self.mem.alloc(n, u64::from(align), ObjectKind::Stack, false) {
                            Ok((idx, addr)) => {
                                self.allocas.push(idx);
                                wr!(dst, addr);
                                pc += 1;
                            }
                            Err(e) => {
                                stop!(self.unsupported(pc, format!("stack allocation of {n} bytes failed: {e:?}")))
                            }
                        }
                    }
                    XInst::Nondet { ty, signed, dst } => {
                        wr!(dst, self.nondet(ty, signed));
                        pc += 1;
                    }
                    XInst::Assume { c } => {
                        if rd!(c) & 1 == 0 {
                            stop!(Outcome::AssumeFailed);
                        }
                        pc += 1;
                    }
                    XInst::Check { kind, c } => {
                        if rd!(c) & 1 == 0 {
                            stop!(self.error(pc, kind));
                        }
                        pc += 1;
                    }
                    XInst::Unreachable => {
                        stop!(self.unsupported(pc, "reached `unreachable`".into()))
                    }
                    XInst::Trap { msg } => {
                        let m = p.messages.get(msg as usize).cloned().unwrap_or_default();
                        stop!(self.unsupported(pc, m))
                    }
                }
            };
            let site = p.calls[site as usize];
            match self.call(regs, &site, pc, base, frame) {
                Flow::Next => pc += 1,
                Flow::Enter { pc: entry, base: b, frame: f } | Flow::Resume { pc: entry, base: b, frame: f } => {
                    pc = entry;
                    base = b;
                    frame = f;
                }
                Flow::Stop(o) => stop!(o),
            }
        }
    }
}

/// Steps between two looks at the clock of a run with a deadline (about
/// 10 ms of execution).
const DEADLINE_CHECK: u64 = 1 << 20;

/// At `steps` steps, the step counter's next stop, or how the run ends
/// (the step limit, or the deadline passed).
#[cold]
fn next_limit(steps: u64, max_steps: u64, deadline: Option<std::time::Instant>) -> Result<u64, Outcome> {
    if steps >= max_steps {
        return Err(Outcome::StepLimit);
    }
    match deadline {
        Some(d) if std::time::Instant::now() >= d => Err(Outcome::TimeLimit),
        Some(_) => Ok(max_steps.min(steps.saturating_add(DEADLINE_CHECK))),
        None => Ok(max_steps),
    }
}

/// An input value converted to the register bits of type `ty`.
pub fn input_bits(v: InputValue, ty: Type, signed: bool, dm: walkdown_ir::DataModel) -> u64 {
    match ty {
        Type::I1 => u64::from(v.to_bool()),
        Type::F32 => u64::from(v.to_f32().to_bits()),
        Type::F64 => v.to_f64().to_bits(),
        _ => v.to_int_bits(ty.bits(dm), signed),
    }
}
