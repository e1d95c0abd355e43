//! The abstract interpretation that gives every memory operand an affine form.
//!
//! It follows the program's structure as the uniformity analysis does: an `if`
//! walks both arms from the state at the `if` and joins them at `endif`; a loop
//! walks its body from its head until the head stops changing. Where two
//! different values meet, a uniform one (or one whose per-lane coefficients
//! agree) becomes a fresh symbol named after the joining instruction, and a
//! per-lane one becomes unknown. After a construct whose lanes diverge, a vector
//! register that changed inside it is unknown (lanes that skipped the write keep
//! their old value).

mod written;

use super::affine::{special, Affine, Lin, Sym, Val};
use crate::ir::{MReg, Operand, Program, Reg, Uniformity};
use crate::isa::{CmpOp, CmpType, Field, Fields, Inst, Role};
use crate::limits::{MAX_MREGS, MAX_SREGS, MAX_VREGS};
use crate::validate::UniformityInfo;
use serde::Serialize;
use written::{Writes, Written};

/// A comparison of two affine forms, as a `v_cmp`/`s_cmp` wrote it into a mask.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Cond {
    /// The comparison.
    pub op: CmpOp,
    /// How the operands are read.
    pub ty: CmpType,
    /// Left side.
    pub a: Affine,
    /// Right side.
    pub b: Affine,
}

/// One condition an `if` around an instruction puts on the lanes that reach it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Guard {
    /// The `if`.
    pub at: u32,
    /// The mask's comparison, when the mask came from one.
    pub cond: Option<Cond>,
    /// True in the then-arm, false in the else-arm.
    pub holds: bool,
    /// Whether every work-item of a workgroup takes the same arm (the
    /// uniformity analysis proves the mask workgroup-uniform).
    pub uniform: bool,
}

/// What the walk knows at a memory instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Site {
    /// The memory operand's index plus offset, in the operand's unit.
    pub index: Val,
    /// What a store writes, when every element it writes has this one form
    /// (unknown for loads and atomics).
    pub value: Val,
    /// The `if`s around the instruction, outermost first.
    pub guards: Vec<Guard>,
    /// The loops around the instruction, outermost first.
    pub loops: Vec<u32>,
    /// Whether a lane whose guards hold runs it on every iteration of its
    /// loops: no `break` or `continue` comes before it in their bodies.
    pub certain: bool,
}

/// The register state: vector registers, then scalar registers, then masks.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    regs: Vec<Val>,
    masks: Vec<Option<Cond>>,
}

#[derive(Default)]
struct LoopFrame {
    /// States at the `continue`s of this walk of the body.
    cont: Vec<State>,
    /// States at the `break`s.
    brk: Vec<State>,
}

pub(super) struct Walk<'a> {
    program: &'a Program,
    uniformity: &'a UniformityInfo,
    vregs: usize,
    sregs: usize,
    loops: Vec<LoopFrame>,
    guards: Vec<Guard>,
    open_loops: Vec<u32>,
    /// The site of each memory instruction, from the last walk over it.
    pub(super) sites: Vec<Option<Site>>,
    /// The form of each value written (the first register an instruction writes).
    pub(super) written: Vec<Val>,
    /// The comparison each `if`'s mask came from, from the last walk over it.
    pub(super) conds: Vec<Option<Cond>>,
    /// Instructions walked so far, against [`Walk::budget`].
    steps: usize,
    /// Instructions a walk may visit before loops stop iterating: nested
    /// loops are walked again on every walk of the loop around them, which
    /// deep nesting makes exponential.
    budget: usize,
}

/// How many times a loop body is walked before the values still changing at
/// its head are given up as unknown.
const MAX_WALKS: usize = 6;

/// Instructions walked per instruction of the program before loops are
/// given up (past 6 nested loops of 2 walks each, as a rule), plus a floor.
const WALKS_PER_INST: usize = 64;
const MIN_BUDGET: usize = 1 << 16;

impl<'a> Walk<'a> {
    pub(super) fn run(program: &'a Program, uniformity: &'a UniformityInfo) -> Self {
        let vregs = usize::from(program.vregs.min(MAX_VREGS));
        let sregs = usize::from(program.sregs.min(MAX_SREGS));
        let mregs = usize::from(program.mregs.min(MAX_MREGS));
        let n = program.insts.len();
        let mut walk = Walk {
            program,
            uniformity,
            vregs,
            sregs,
            loops: Vec::new(),
            guards: Vec::new(),
            open_loops: Vec::new(),
            sites: vec![None; n],
            written: vec![Val::Unknown; n],
            conds: vec![None; n],
            steps: 0,
            budget: n.saturating_mul(WALKS_PER_INST).max(MIN_BUDGET),
        };
        // Registers start at zero.
        let state = State {
            regs: vec![Val::constant(0); vregs + sregs],
            masks: vec![None; mregs],
        };
        walk.block(0, n, state);
        walk
    }

    fn slot(&self, r: Reg) -> Option<usize> {
        match r {
            Reg::V(v) => (usize::from(v.0) < self.vregs).then_some(usize::from(v.0)),
            Reg::S(s) => (usize::from(s.0) < self.sregs).then_some(self.vregs + usize::from(s.0)),
            Reg::M(_) => None,
        }
    }

    fn is_vector_slot(&self, slot: usize) -> bool {
        slot < self.vregs
    }

    fn operand(&self, st: &State, op: Operand) -> Val {
        match op {
            Operand::V(r) => self.reg(st, Reg::V(r)),
            Operand::S(r) => self.reg(st, Reg::S(r)),
            Operand::Arg(p) => Val::Known(Affine::uniform(Lin::sym(Sym::Arg(p)))),
            Operand::Imm(v) => Val::constant(i64::from(v)),
            Operand::Special(s) => Val::Known(special(s)),
        }
    }

    fn reg(&self, st: &State, r: Reg) -> Val {
        self.slot(r)
            .and_then(|s| st.regs.get(s).cloned())
            .unwrap_or(Val::Unknown)
    }

    fn divergent(&self, construct: usize) -> bool {
        // The control level inside a construct is that of its first instruction
        // (a closer still belongs to its construct).
        self.uniformity.control.get(construct + 1).copied() == Some(Uniformity::Lane)
    }

    /// Joins two states where control flow meets at `at`.
    fn join(&self, a: &State, b: &State, at: usize, divergent: bool) -> State {
        let regs = a
            .regs
            .iter()
            .zip(&b.regs)
            .enumerate()
            .map(|(slot, (x, y))| {
                if divergent && self.is_vector_slot(slot) {
                    // Lanes that did not run a write keep what they held before,
                    // so only a value alike on both paths is known after.
                    return if x == y { x.clone() } else { Val::Unknown };
                }
                join_val(x, y, at, slot)
            })
            .collect();
        let masks = a
            .masks
            .iter()
            .zip(&b.masks)
            .map(|(x, y)| if x == y { x.clone() } else { None })
            .collect();
        State { regs, masks }
    }

    /// Walks `pc..end` from `st`, returning the state at `end`.
    fn block(&mut self, mut pc: usize, end: usize, mut st: State) -> State {
        let insts: &'a [Inst] = &self.program.insts;
        while pc < end {
            let Some(&inst) = insts.get(pc) else { break };
            self.steps += 1;
            match inst {
                Inst::If { mask, next } => {
                    let cond = self.mask(&st, mask);
                    if let Some(slot) = self.conds.get_mut(pc) {
                        slot.clone_from(&cond);
                    }
                    let next = next.get();
                    let (else_at, endif) = match insts.get(next) {
                        Some(Inst::Else { end }) => (Some(next), end.get()),
                        _ => (None, next),
                    };
                    let uniform =
                        self.uniformity.control.get(pc + 1).copied() == Some(Uniformity::Workgroup);
                    let guard = |holds| Guard {
                        at: pc as u32,
                        cond: cond.clone(),
                        holds,
                        uniform,
                    };
                    self.guards.push(guard(true));
                    let then = self.block(pc + 1, else_at.unwrap_or(endif), st.clone());
                    self.guards.pop();
                    let other = match else_at {
                        Some(e) => {
                            self.guards.push(guard(false));
                            let s = self.block(e + 1, endif, st.clone());
                            self.guards.pop();
                            s
                        }
                        None => st.clone(),
                    };
                    st = self.join(&then, &other, endif, self.divergent(pc));
                    pc = endif + 1;
                }
                Inst::Loop { end: endloop } => {
                    let endloop = endloop.get();
                    st = self.looped(pc, endloop, st);
                    pc = endloop + 1;
                }
                Inst::Break { .. } => {
                    if let Some(f) = self.loops.last_mut() {
                        f.brk.push(st.clone());
                    }
                    pc += 1;
                }
                Inst::Continue { .. } => {
                    if let Some(f) = self.loops.last_mut() {
                        f.cont.push(st.clone());
                    }
                    pc += 1;
                }
                _ => {
                    self.transfer(&mut st, pc, &inst);
                    pc += 1;
                }
            }
        }
        st
    }

    /// Walks the loop at `at` (its `endloop` at `endloop`) until its head is
    /// stable; returns the state after it.
    fn looped(&mut self, at: usize, endloop: usize, entry: State) -> State {
        let divergent = self.divergent(at);
        let mut head = entry.clone();
        self.open_loops.push(at as u32);
        let mut walks = 0;
        let (last, frame) = loop {
            let settled = self.steps >= self.budget;
            if settled {
                // Out of budget: one last walk from a head where everything
                // the body writes is unknown, which holds at every iteration.
                self.forget_written(at + 1, endloop, &mut head);
            }
            self.loops.push(LoopFrame {
                cont: Vec::new(),
                brk: Vec::new(),
            });
            let end = self.block(at + 1, endloop, head.clone());
            let frame = self.loops.pop().unwrap_or(LoopFrame {
                cont: Vec::new(),
                brk: Vec::new(),
            });
            // Lanes that `continue` skip the rest of the body: in a loop
            // whose lanes diverge, a vector register the rest writes differs
            // between them and the lanes that ran it.
            let mut back = end.clone();
            for c in &frame.cont {
                back = self.join(&back, c, at, divergent);
            }
            if settled {
                break (end, frame);
            }
            let mut next = self.join(&entry, &back, at, false);
            walks += 1;
            if walks >= MAX_WALKS && next != head {
                // Still moving: whatever differs is given up.
                for (n, h) in next.regs.iter_mut().zip(&head.regs) {
                    if n != h {
                        *n = Val::Unknown;
                    }
                }
                for (n, h) in next.masks.iter_mut().zip(&head.masks) {
                    if n != h {
                        *n = None;
                    }
                }
            }
            if next == head {
                break (end, frame);
            }
            head = next;
        };
        self.open_loops.pop();
        let mut exit = last;
        for b in &frame.brk {
            exit = self.join(&exit, b, endloop, false);
        }
        if divergent {
            // Lanes leave at different iterations: what the loop changes differs
            // between them afterwards.
            for (slot, v) in exit.regs.iter_mut().enumerate() {
                if self.is_vector_slot(slot) && Some(&*v) != entry.regs.get(slot) {
                    *v = Val::Unknown;
                }
            }
        }
        exit
    }

    /// Makes unknown, in `st`, every register and mask an instruction of
    /// `from..to` writes.
    fn forget_written(&self, from: usize, to: usize, st: &mut State) {
        let insts: &[Inst] = &self.program.insts;
        for inst in insts.get(from..to).unwrap_or_default() {
            for r in inst.fields().written() {
                match r {
                    Reg::M(m) => {
                        if let Some(slot) = st.masks.get_mut(usize::from(m.0)) {
                            *slot = None;
                        }
                    }
                    _ => {
                        if let Some(slot) = self.slot(r).and_then(|s| st.regs.get_mut(s)) {
                            *slot = Val::Unknown;
                        }
                    }
                }
            }
        }
    }

    fn mask(&self, st: &State, m: MReg) -> Option<Cond> {
        st.masks.get(usize::from(m.0)).cloned().flatten()
    }

    fn set(&mut self, st: &mut State, pc: usize, r: Reg, v: Val) {
        if let Some(s) = self.slot(r) {
            if let Some(w) = self.written.get_mut(pc) {
                *w = v.clone();
            }
            st.regs[s] = v;
        }
    }

    /// An opaque result: a fresh symbol when every lane gets one value, else unknown.
    fn opaque(&self, pc: usize, r: Reg, uniform: bool) -> Val {
        match (uniform, self.slot(r)) {
            (true, Some(slot)) => Val::Known(Affine::uniform(Lin::sym(Sym::Value {
                inst: pc as u32,
                slot: slot as u16,
            }))),
            _ => Val::Unknown,
        }
    }

    /// What instruction `inst` at `pc` writes, its values as the domain
    /// follows them.
    fn written(&self, st: &State, pc: usize, inst: &Inst) -> Written {
        // The name a uniform result the domain cannot express gets.
        let named = inst
            .fields()
            .written()
            .next()
            .and_then(|r| self.slot(r))
            .map(|slot| Sym::Value {
                inst: pc as u32,
                slot: slot as u16,
            });
        inst.visit(&mut Writes {
            walk: self,
            st,
            named,
        })
    }

    fn transfer(&mut self, st: &mut State, pc: usize, inst: &Inst) {
        let fields = inst.fields();
        let result = self.written(st, pc, inst);
        match result {
            Written::Value(dst, v) => {
                // A result the domain cannot express, computed from uniform
                // values, is itself uniform: name it.
                let v = match v {
                    Val::Unknown => {
                        let uniform = fields.operands().all(|(o, _)| {
                            self.operand(st, o).affine().is_some_and(Affine::is_uniform)
                        });
                        self.opaque(pc, dst, uniform || matches!(dst, Reg::S(_)))
                    }
                    v => v,
                };
                self.set(st, pc, dst, v);
            }
            Written::Mask(dst, cond) => {
                if let Some(m) = st.masks.get_mut(usize::from(dst.0)) {
                    *m = cond;
                }
            }
            Written::Opaque => {
                for r in fields.written().collect::<Vec<_>>() {
                    let v = self.opaque(pc, r, matches!(r, Reg::S(_)));
                    self.set(st, pc, r, v);
                }
            }
            Written::Words => {
                // Uniform when everything it reads is.
                let uniform = fields
                    .operands()
                    .all(|(o, _)| self.operand(st, o).affine().is_some_and(Affine::is_uniform))
                    && fields
                        .read()
                        .all(|r| self.reg(st, r).affine().is_some_and(Affine::is_uniform));
                for r in fields.written().collect::<Vec<_>>() {
                    let v = self.opaque(pc, r, uniform);
                    self.set(st, pc, r, v);
                }
            }
            Written::Memory => self.memory(st, pc, inst),
            Written::Nothing => {}
        }
    }

    /// A memory instruction: its site, and what a load or atomic writes.
    fn memory(&mut self, st: &mut State, pc: usize, inst: &Inst) {
        let fields = inst.fields();
        let Some((role, mem)) = fields.memory() else {
            return;
        };
        let index = self.operand(st, mem.index());
        let offset = self.operand(st, mem.offset());
        let index = match (index, offset) {
            (Val::Known(i), Val::Known(o)) => Val::Known(i.add(&o)),
            _ => Val::Unknown,
        };
        let uniform = index.affine().is_some_and(Affine::is_uniform);
        let value = if matches!(role, Role::GlobalStore | Role::LdsStore) {
            self.stored(st, &fields)
        } else {
            Val::Unknown
        };
        self.sites[pc] = Some(Site {
            index,
            value,
            guards: self.guards.clone(),
            loops: self.open_loops.clone(),
            certain: self
                .loops
                .iter()
                .all(|f| f.brk.is_empty() && f.cont.is_empty()),
        });
        // A load from one address for every lane gives every lane one value;
        // an atomic does not: each lane gets what the lanes before it left.
        let atomic = matches!(role, Role::GlobalAtomic | Role::LdsAtomic);
        for r in fields.written().collect::<Vec<_>>() {
            let v = self.opaque(pc, r, uniform && !atomic);
            self.set(st, pc, r, v);
        }
    }

    /// The one form of every element a store writes, or unknown.
    fn stored(&self, st: &State, fields: &Fields) -> Val {
        let run = fields.run_length();
        let mut values = fields.as_slice().iter().flat_map(|f| match *f {
            Field::Src(o) => vec![self.operand(st, o)],
            Field::VSrcRun(r) => Reg::V(r).run(run).map(|r| self.reg(st, r)).collect(),
            _ => Vec::new(),
        });
        let Some(first) = values.next() else {
            return Val::Unknown;
        };
        if values.all(|v| v == first) {
            first
        } else {
            Val::Unknown
        }
    }
}

/// The join of two values meeting at `at` in register slot `slot`.
fn join_val(x: &Val, y: &Val, at: usize, slot: usize) -> Val {
    if x == y {
        return x.clone();
    }
    match (x, y) {
        (Val::Known(a), Val::Known(b)) if a.per_lane == b.per_lane => Val::Known(Affine {
            per_lane: a.per_lane.clone(),
            uni: Lin::sym(Sym::Value {
                inst: at as u32,
                slot: slot as u16,
            }),
        }),
        _ => Val::Unknown,
    }
}
