//! Uniformity analysis: how far each value and each instruction's control flow is
//! guaranteed to be the same across lanes and waves, and the barrier check built
//! on it.
//!
//! The analysis is an abstract interpretation over the structured program. Its
//! state gives every register a [`Uniformity`] level and the instruction that gave
//! it that level (for notes). Values join with `max`:
//!
//! - immediates and kernel scalars are workgroup-uniform, special values have
//!   their own level, loads are per lane;
//! - an ALU, compare or select result is the join of its operands;
//! - a vector or mask write under control flow of level `L` is joined with `L`
//!   (lanes or waves that did not run it keep their old value); a scalar write is
//!   joined with `Wave` when the control flow is not workgroup-uniform (some
//!   waves may skip it);
//! - an `if m` construct has the level of `m` where it is read; a `loop` has the
//!   join of its `endloop` mask and of each of its `break`/`continue` masks,
//!   together with the `if`s between the loop and that exit.
//!
//! The state flows along the program: `else` restarts from the state at the `if`,
//! `endif` joins both arms, a loop's head joins its entry with its back edges and
//! its exit joins `endloop` with its breaks. A loop body is walked again until
//! its head state and its exit level stop rising; levels only rise, so this ends
//! after a few walks. The control level of an instruction is the join of the
//! levels of every construct around it.

use super::error::{NoteKind, ValidationError, ValidationErrorKind as Kind};
use crate::ir::{MReg, Operand, ParamKind, Program, Reg, SReg, Uniformity, VReg};
use crate::isa::{Field, Inst, MemRef, ResultLevel, Role, Unit};
use crate::limits::{MAX_MREGS, MAX_SREGS, MAX_VREGS};

/// No instruction: a register's initial value.
const NONE: u32 = u32::MAX;

/// The uniformity of every instruction's control flow and written value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniformityInfo {
    /// For each instruction, how uniform the set of lanes reaching it is: the join
    /// of the levels of the constructs around it. A barrier needs `Workgroup`.
    pub control: Vec<Uniformity>,
    /// For each instruction that writes a register, how uniform the written value
    /// is (joined over every way the instruction is reached); `None` for the others.
    pub values: Vec<Option<Uniformity>>,
}

/// Runs the uniformity analysis on `program`.
///
/// Returns `None` when the program's `if`/`loop` constructs do not nest (see
/// [`link`](crate::link)), since the analysis follows that nesting.
pub fn uniformity(program: &Program) -> Option<UniformityInfo> {
    let mut linked = program.insts.to_vec();
    if let Err(errors) = super::link(&mut linked) {
        if !errors.iter().all(|e| e.kind == Kind::MisplacedEnd) {
            return None;
        }
    }
    let analysis = Analysis::run(program, &linked);
    let values = linked
        .iter()
        .zip(&analysis.values)
        .map(|(inst, &v)| inst.fields().written().next().map(|_| v))
        .collect();
    Some(UniformityInfo {
        control: analysis.control,
        values,
    })
}

/// A register's level and the instruction that gave it (`NONE` for the initial value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    level: Uniformity,
    why: u32,
}

impl Level {
    const INITIAL: Level = Level {
        level: Uniformity::Workgroup,
        why: NONE,
    };
}

/// The level of every register at one point of the program; vector registers
/// first, then scalar, then mask.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State(Vec<Level>);

impl State {
    /// Joins `other` into `self`; true when some level rose.
    fn join(&mut self, other: &State) -> bool {
        let mut rose = false;
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            if theirs.level > mine.level {
                *mine = *theirs;
                rose = true;
            }
        }
        rose
    }

    fn get(&self, slot: Option<usize>) -> Level {
        slot.and_then(|s| self.0.get(s).copied())
            .unwrap_or(Level::INITIAL)
    }

    fn set(&mut self, slot: Option<usize>, level: Level) {
        if let Some(r) = slot.and_then(|s| self.0.get_mut(s)) {
            *r = level;
        }
    }
}

fn join_into(dst: &mut Option<State>, src: &State) {
    match dst {
        Some(d) => {
            d.join(src);
        }
        None => *dst = Some(src.clone()),
    }
}

/// Where each register class starts in a [`State`]. Registers past the declared
/// counts (already reported) have no slot: they read as uniform and writes to
/// them are dropped, so one error does not cascade into others.
struct Layout {
    vregs: usize,
    sregs: usize,
    mregs: usize,
}

impl Layout {
    fn v(&self, r: VReg) -> Option<usize> {
        let i = usize::from(r.0);
        (i < self.vregs).then_some(i)
    }

    fn s(&self, r: SReg) -> Option<usize> {
        let i = usize::from(r.0);
        (i < self.sregs).then_some(self.vregs + i)
    }

    fn m(&self, r: MReg) -> Option<usize> {
        let i = usize::from(r.0);
        (i < self.mregs).then_some(self.vregs + self.sregs + i)
    }
}

/// Why a construct has its level.
#[derive(Clone, Copy, Debug)]
enum Cause {
    /// Nothing yet: the construct is workgroup-uniform.
    Uniform,
    /// The mask read at `exit` (the `if` itself, or a loop exit), defined at `def`.
    Mask { reg: MReg, def: u32 },
    /// The loop exit at `exit` sits inside this `if` (or nested construct).
    Inner(u32),
}

/// A construct's own level (not counting the constructs around it).
#[derive(Clone, Copy, Debug)]
struct Own {
    level: Uniformity,
    /// The instruction whose mask gives the level: the `if`, or a loop's
    /// `endloop`, `break` or `continue`.
    exit: u32,
    cause: Cause,
}

/// An open construct during a walk.
enum Frame {
    If {
        at: usize,
        /// Before `else`: the state at the `if`, where the else arm starts. After
        /// `else`: the state at the end of the then arm.
        other: State,
    },
    Loop {
        at: usize,
        /// Join of the states at the loop's `continue`s in this walk.
        cont: Option<State>,
        /// Join of the states at the loop's `break`s.
        brk: Option<State>,
        /// Whether the loop's level rose during this walk of its body.
        rose: bool,
    },
}

impl Frame {
    fn at(&self) -> usize {
        match *self {
            Frame::If { at, .. } | Frame::Loop { at, .. } => at,
        }
    }
}

pub(super) struct Analysis<'a> {
    insts: &'a [Inst],
    /// Per parameter, whether it is a read-only buffer.
    read_only: Vec<bool>,
    layout: Layout,
    /// Each construct's own level, indexed by its opening instruction.
    own: Vec<Own>,
    /// Each loop's head state, indexed by its `loop` instruction; kept across
    /// walks so that a loop nested in another converges once, not once per walk.
    heads: Vec<Option<State>>,
    /// The level of the value each instruction writes, joined over walks.
    values: Vec<Uniformity>,
    /// The control level of each instruction, from the final construct levels.
    control: Vec<Uniformity>,
    /// The innermost construct around each instruction (`NONE` at top level).
    parent: Vec<u32>,
}

impl<'a> Analysis<'a> {
    /// Analyses `insts`, the linked instructions of `program`, whose constructs
    /// must nest.
    pub(super) fn run(program: &Program, insts: &'a [Inst]) -> Self {
        let n = insts.len();
        let mut analysis = Analysis {
            insts,
            read_only: program
                .params
                .iter()
                .map(|p| {
                    matches!(
                        p.kind,
                        ParamKind::Buffer {
                            writable: false,
                            ..
                        }
                    )
                })
                .collect(),
            layout: Layout {
                vregs: usize::from(program.vregs.min(MAX_VREGS)),
                sregs: usize::from(program.sregs.min(MAX_SREGS)),
                mregs: usize::from(program.mregs.min(MAX_MREGS)),
            },
            own: vec![
                Own {
                    level: Uniformity::Workgroup,
                    exit: NONE,
                    cause: Cause::Uniform,
                };
                n
            ],
            heads: vec![None; n],
            values: vec![Uniformity::Workgroup; n],
            control: vec![Uniformity::Workgroup; n],
            parent: vec![NONE; n],
        };
        analysis.walk();
        analysis.finish();
        analysis
    }

    fn operand(&self, state: &State, op: Operand) -> Uniformity {
        match op {
            Operand::V(r) => state.get(self.layout.v(r)).level,
            Operand::S(r) => state.get(self.layout.s(r)).level,
            Operand::Arg(_) | Operand::Imm(_) => Uniformity::Workgroup,
            Operand::Special(s) => s.uniformity(),
        }
    }

    fn mask(&self, state: &State, m: MReg) -> Level {
        state.get(self.layout.m(m))
    }

    fn define(&mut self, state: &mut State, at: usize, slot: Option<usize>, level: Uniformity) {
        if let Some(v) = self.values.get_mut(at) {
            *v = (*v).max(level);
        }
        state.set(
            slot,
            Level {
                level,
                why: at as u32,
            },
        );
    }

    /// Raises construct `at`'s own level; true when it rose.
    fn raise(&mut self, at: usize, level: Uniformity, exit: usize, cause: Cause) -> bool {
        match self.own.get_mut(at) {
            Some(own) if level > own.level => {
                *own = Own {
                    level,
                    exit: exit as u32,
                    cause,
                };
                true
            }
            _ => false,
        }
    }

    fn control_of(&self, frames: &[Frame]) -> Uniformity {
        frames
            .iter()
            .filter_map(|f| self.own.get(f.at()))
            .map(|o| o.level)
            .max()
            .unwrap_or(Uniformity::Workgroup)
    }

    /// The levels of the registers a non-control instruction writes, from the
    /// table: its result's rule, the levels of everything it reads, and how its
    /// destination is written. A per-lane write (vector registers, masks written
    /// lane by lane) joins the control level, since lanes that did not run it
    /// keep their old values; a whole write (a scalar register, a scalar
    /// compare's mask) joins the control level up to `Wave`, since one value is
    /// written per wave but some waves may skip it.
    fn transfer(
        &mut self,
        state: &mut State,
        pc: usize,
        inst: &Inst,
        vector_ctl: Uniformity,
        scalar_ctl: Uniformity,
    ) {
        let fields = inst.fields();
        let opcode = inst.opcode();
        let level = match opcode.result() {
            ResultLevel::None => return,
            ResultLevel::Lane => self.load_level(state, inst),
            ResultLevel::Wave => Uniformity::Wave,
            ResultLevel::Join => {
                let values = fields.operands().map(|(op, _)| self.operand(state, op));
                let runs = fields.runs_read().map(|r| match r {
                    Reg::V(v) => self.operand(state, Operand::V(v)),
                    _ => Uniformity::Lane,
                });
                let masks = fields.as_slice().iter().filter_map(|f| match *f {
                    Field::Mask(m) => Some(self.mask(state, m).level),
                    _ => None,
                });
                values
                    .chain(runs)
                    .chain(masks)
                    .max()
                    .unwrap_or(Uniformity::Workgroup)
            }
        };
        for reg in fields.written() {
            let whole = match reg {
                Reg::S(_) => true,
                Reg::M(_) => opcode.unit() == Unit::Scalar,
                Reg::V(_) => false,
            };
            let (slot, level) = match reg {
                Reg::V(r) => (self.layout.v(r), level),
                Reg::S(r) => (self.layout.s(r), level),
                Reg::M(r) => (self.layout.m(r), level),
            };
            let level = if whole {
                level.max(scalar_ctl).min(Uniformity::Wave)
            } else {
                level.max(vector_ctl)
            };
            self.define(state, pc, slot, level);
        }
    }

    /// The level of what a per-lane instruction writes: a plain load's (not an
    /// atomic's, whose lanes update one after another) follows its address.
    fn load_level(&self, state: &State, inst: &Inst) -> Uniformity {
        let fields = inst.fields();
        let Some((role, mem)) = fields.memory() else {
            return Uniformity::Lane;
        };
        if !matches!(role, Role::GlobalLoad | Role::LdsLoad) {
            return Uniformity::Lane;
        }
        let address = self
            .operand(state, mem.index())
            .max(self.operand(state, mem.offset()));
        let read_only = match mem {
            MemRef::Global(g) => self
                .read_only
                .get(usize::from(g.buffer.0))
                .copied()
                .unwrap_or(false),
            MemRef::Lds(_) => false,
        };
        match address {
            Uniformity::Workgroup if read_only => Uniformity::Workgroup,
            Uniformity::Workgroup | Uniformity::Wave => Uniformity::Wave,
            Uniformity::Lane => Uniformity::Lane,
        }
    }

    /// Runs the abstract interpretation to its fixpoint.
    fn walk(&mut self) {
        let insts = self.insts;
        let total = self.layout.vregs + self.layout.sregs + self.layout.mregs;
        let mut state = State(vec![Level::INITIAL; total]);
        let mut frames: Vec<Frame> = Vec::new();
        let mut ctl = Uniformity::Workgroup;
        let mut pc = 0;
        while let Some(&inst) = insts.get(pc) {
            // The level a vector or mask write takes from the control flow, and the
            // one a scalar write takes (a scalar is one value per wave).
            let vector_ctl = ctl;
            let scalar_ctl = ctl.min(Uniformity::Wave);
            match inst {
                Inst::If { mask, .. } => {
                    let m = self.mask(&state, mask);
                    self.raise(
                        pc,
                        m.level,
                        pc,
                        Cause::Mask {
                            reg: mask,
                            def: m.why,
                        },
                    );
                    frames.push(Frame::If {
                        at: pc,
                        other: state.clone(),
                    });
                    ctl = self.control_of(&frames);
                }
                Inst::Else { .. } => {
                    if let Some(Frame::If { other, .. }) = frames.last_mut() {
                        std::mem::swap(&mut state, other);
                    }
                }
                Inst::EndIf => {
                    if let Some(Frame::If { .. }) = frames.last() {
                        if let Some(Frame::If { other, .. }) = frames.pop() {
                            state.join(&other);
                        }
                        ctl = self.control_of(&frames);
                    }
                }
                Inst::Loop { .. } => {
                    if let Some(head) = self.heads.get_mut(pc) {
                        join_into(head, &state);
                        if let Some(h) = head {
                            state.clone_from(h);
                        }
                    }
                    frames.push(Frame::Loop {
                        at: pc,
                        cont: None,
                        brk: None,
                        rose: false,
                    });
                    ctl = self.control_of(&frames);
                }
                Inst::Break { mask, .. } | Inst::Continue { mask, .. } => {
                    let is_break = matches!(inst, Inst::Break { .. });
                    if let Some(k) = frames.iter().rposition(|f| matches!(f, Frame::Loop { .. })) {
                        // The lanes that leave are those in the mask among those that
                        // reach the exit, so the constructs between the loop and the
                        // exit count too; the innermost one explains a tie.
                        let m = self.mask(&state, mask);
                        let (mut level, mut cause) = (
                            m.level,
                            Cause::Mask {
                                reg: mask,
                                def: m.why,
                            },
                        );
                        for f in frames[k + 1..].iter().rev() {
                            if let Some(o) = self.own.get(f.at()) {
                                if o.level > level {
                                    level = o.level;
                                    cause = Cause::Inner(f.at() as u32);
                                }
                            }
                        }
                        let at = frames[k].at();
                        let rose = self.raise(at, level, pc, cause);
                        if let Frame::Loop {
                            cont, brk, rose: r, ..
                        } = &mut frames[k]
                        {
                            *r |= rose;
                            join_into(if is_break { brk } else { cont }, &state);
                        }
                        if rose {
                            ctl = self.control_of(&frames);
                        }
                    }
                }
                Inst::EndLoop { mask, .. } => {
                    if let Some(Frame::Loop { at, cont, rose, .. }) = frames.last_mut() {
                        let at = *at;
                        if let Some(c) = cont.take() {
                            state.join(&c);
                        }
                        let m = state.get(self.layout.m(mask));
                        // Borrowing: `raise` needs `self`, the frame lives in `frames`.
                        let mut again = *rose;
                        *rose = false;
                        if let Some(own) = self.own.get_mut(at) {
                            if m.level > own.level {
                                *own = Own {
                                    level: m.level,
                                    exit: pc as u32,
                                    cause: Cause::Mask {
                                        reg: mask,
                                        def: m.why,
                                    },
                                };
                                again = true;
                            }
                        }
                        if let Some(Some(head)) = self.heads.get_mut(at) {
                            again |= head.join(&state);
                            if again {
                                state.clone_from(head);
                            }
                        }
                        if again {
                            ctl = self.control_of(&frames);
                            pc = at + 1;
                            continue;
                        }
                        if let Some(Frame::Loop { brk: Some(b), .. }) = frames.pop() {
                            state.join(&b);
                        }
                        ctl = self.control_of(&frames);
                    }
                }
                _ => self.transfer(&mut state, pc, &inst, vector_ctl, scalar_ctl),
            }
            pc += 1;
        }
    }

    /// Computes each instruction's enclosing construct and control level from the
    /// final construct levels.
    fn finish(&mut self) {
        let mut open: Vec<usize> = Vec::new();
        // The control level inside each open construct, parallel to `open`.
        let mut inside: Vec<Uniformity> = Vec::new();
        for (i, inst) in self.insts.iter().enumerate() {
            // A closer still belongs to its construct (`endloop` reads its mask
            // inside the loop), so it is recorded before the construct is popped.
            self.parent[i] = open.last().map_or(NONE, |&p| p as u32);
            self.control[i] = inside.last().copied().unwrap_or(Uniformity::Workgroup);
            match inst {
                Inst::If { .. } | Inst::Loop { .. } => {
                    let own = self.own.get(i).map_or(Uniformity::Workgroup, |o| o.level);
                    inside.push(self.control[i].max(own));
                    open.push(i);
                }
                Inst::EndIf | Inst::EndLoop { .. } => {
                    open.pop();
                    inside.pop();
                }
                _ => {}
            }
        }
    }

    /// A `BarrierUnderDivergentControl` error for each barrier whose control flow
    /// is not workgroup-uniform, with notes at the construct responsible and at the
    /// definition of its mask.
    pub(super) fn barrier_errors(&self, errors: &mut Vec<ValidationError>) {
        for (i, inst) in self.insts.iter().enumerate() {
            if !matches!(inst, Inst::Barrier) {
                continue;
            }
            let level = self
                .control
                .get(i)
                .copied()
                .unwrap_or(Uniformity::Workgroup);
            if level == Uniformity::Workgroup {
                continue;
            }
            let mut error = ValidationError::at(i, Kind::BarrierUnderDivergentControl { level });
            // The innermost construct whose own level is the barrier's.
            let mut c = self.parent.get(i).copied().unwrap_or(NONE);
            while let Some(own) = self.own.get(c as usize) {
                if own.level == level {
                    error = self.explain(c as usize, error, self.insts.len());
                    break;
                }
                c = self.parent.get(c as usize).copied().unwrap_or(NONE);
            }
            errors.push(error);
        }
    }

    /// Adds notes saying why construct `c` is not workgroup-uniform.
    fn explain(&self, c: usize, mut error: ValidationError, budget: usize) -> ValidationError {
        let Some(own) = self.own.get(c) else {
            return error;
        };
        let level = own.level;
        match self.insts.get(c) {
            Some(Inst::If { .. }) => error = error.note(c, NoteKind::NonUniformIf { level }),
            Some(Inst::Loop { .. }) => {
                error = error.note(c, NoteKind::NonUniformLoop { level });
                let exit = own.exit as usize;
                let what = match self.insts.get(exit) {
                    Some(&Inst::EndLoop { mask, .. }) => Some(NoteKind::LoopCondition { mask }),
                    Some(&Inst::Break { mask, .. }) => Some(NoteKind::LeavesLoop { mask }),
                    Some(&Inst::Continue { mask, .. }) => Some(NoteKind::SkipsIteration { mask }),
                    _ => None,
                };
                if let Some(what) = what {
                    error = error.note(exit, what);
                }
            }
            _ => return error,
        }
        match own.cause {
            Cause::Mask { reg, def } if def != NONE => {
                error.note(def as usize, NoteKind::MaskValue { mask: reg, level })
            }
            Cause::Inner(inner) if budget > 0 => self.explain(inner as usize, error, budget - 1),
            _ => error,
        }
    }
}
