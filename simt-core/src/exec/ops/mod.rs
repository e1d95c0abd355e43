//! The dispatch loop and its executor context.
//!
//! [`Exec`] is made once per workgroup: the launch's fixed parts, the
//! workgroup's registers, LDS and caches, the counters and the instrument.
//! A wave enters it ([`Exec::run`]) with its saved pc, exec mask and divergence
//! stack, runs until it parks at a barrier, ends, uses its turn or faults, and
//! leaves them saved again; nothing else is rebuilt per entry.
//!
//! The loop is one `match` over the decoded [`Op`]s with one line per op; the
//! handlers are grouped by category: `alu.rs` (vector, scalar and mask
//! arithmetic and compares), `lanes.rs` (lane exchange), `memory.rs` (global and
//! LDS loads, stores, wide accesses and atomics), `control.rs` (structured
//! control flow, barriers, `end`), `print.rs`.

mod alu;
mod control;
mod lanes;
mod memory;
mod pairs;
mod print;

use super::bind::{Geometry, Prepared, Slot};
use super::decode::{for_each_decoded_op, Op, Src};
use super::flow::SkipLog;
use super::instrument::Instrument;
use super::memory::{BankTable, CuCaches, Lds, MemScratch, Trap};
use super::native::{BlockRun, RunnerFor};
use super::wave::{Exit, Status, Uniforms, Wave};
use crate::error::FaultKind;
use crate::ir::Program;
use crate::stats::Counters;

/// Scratch arrays for operands and results, made once per launch.
pub(super) struct Scratch<const W: usize> {
    pub(super) a: [u32; W],
    pub(super) b: [u32; W],
    pub(super) c: [u32; W],
    pub(super) out: [u32; W],
    pub(super) sel: [u32; W],
    /// A memory index with its offset added.
    pub(super) idx: [u32; W],
    /// The elements of a wide access, one array per register.
    pub(super) wide: [[u32; W]; 4],
    pub(super) mem: MemScratch<W>,
}

impl<const W: usize> Scratch<W> {
    pub(super) fn new() -> Self {
        Scratch {
            a: [0; W],
            b: [0; W],
            c: [0; W],
            out: [0; W],
            sel: [0; W],
            idx: [0; W],
            wide: [[0; W]; 4],
            mem: MemScratch::new(),
        }
    }
}

/// One wave's registers: its vector, scalar and mask registers, with one
/// register of each class past the program's (the decoder sends writes to
/// registers past the counts, which validation rules out, there).
#[derive(Debug, Default)]
pub(super) struct Regs<'x> {
    pub(super) v: &'x mut [[u32; 64]],
    pub(super) s: &'x mut [u32],
    pub(super) m: &'x mut [u64],
}

impl<'x> Regs<'x> {
    /// Each wave's registers, from a workgroup's registers laid out wave by
    /// wave (`vstride` vector registers per wave, and so on), in the
    /// allocation of `into` (an empty vector of an earlier workgroup's, see
    /// [`Regs::relabel`]).
    pub(super) fn per_wave<'y>(
        v: &'x mut [[u32; 64]],
        s: &'x mut [u32],
        m: &'x mut [u64],
        strides: [usize; 3],
        into: Vec<Regs<'y>>,
    ) -> Vec<Regs<'x>> {
        let mut regs = Regs::relabel(into);
        regs.extend(
            v.chunks_exact_mut(strides[0])
                .zip(s.chunks_exact_mut(strides[1]))
                .zip(m.chunks_exact_mut(strides[2]))
                .map(|((v, s), m)| Regs { v, s, m }),
        );
        regs
    }

    /// `regs` emptied, as a vector for registers of another lifetime in the
    /// same allocation: the workgroups of a launch reuse one, instead of
    /// allocating one each. (Collecting an emptied vector's iterator into a
    /// vector of the same layout reuses its allocation; no element is made.)
    // `filter_map` (not `filter`): it changes the element type's lifetime.
    #[allow(clippy::unnecessary_filter_map)]
    pub(super) fn relabel<'y>(mut regs: Vec<Regs<'y>>) -> Vec<Regs<'x>> {
        regs.clear();
        regs.into_iter().filter_map(|_| None).collect()
    }
}

/// What a handler asks the loop to do next.
pub(super) enum Step {
    /// Go on at the (updated) pc.
    Go,
    /// Leave the wave.
    Leave(Exit),
}

/// A handler's outcome.
pub(super) type Flow = Result<Step, Box<Trap>>;

/// The executor context of one workgroup.
pub struct Exec<'x, 'b, const W: usize, I: Instrument> {
    /// The program (names for faults).
    pub(super) program: &'x Program,
    pub(super) ops: &'x [Op],
    pub(super) prepared: &'x Prepared,
    /// Bound buffers.
    pub(super) slots: &'x mut [Slot<'b>],
    /// Scalar arguments as bits, by parameter index.
    pub(super) scalars: &'x [u32],
    pub(super) geo: Geometry,
    /// Wave-uniform special values (the wave index is set on entry).
    pub(super) u: Uniforms,
    /// Local ids per wave, axis and lane.
    pub(super) local: &'x [[[u32; 64]; 3]],
    /// Every wave's registers but the running wave's, which are in `cur`
    /// while it runs: a handler reaches them without an index or a bounds
    /// check.
    pub(super) regs: Vec<Regs<'x>>,
    pub(super) cur: Regs<'x>,
    /// The running wave's local ids.
    pub(super) ids: &'x [[u32; 64]; 3],
    pub(super) waves: &'x mut [Wave],
    pub(super) lds: &'x mut Lds,
    /// LDS word deduplication for the conflict counter.
    pub(super) table: BankTable<'x>,
    /// The caches of the workgroup's compute unit, if the model has them.
    pub(super) caches: Option<CuCaches<'x>>,
    pub(super) counters: &'x mut [Counters],
    /// The issue counts a native runner keeps per block, by the block's
    /// first instruction (see `native::BlockRun`).
    pub(super) runs: &'x mut [BlockRun],
    /// What `print`s logged.
    pub(super) prints: &'x mut crate::prints::PrintLog,
    /// Active-lane histogram.
    pub(super) hist: &'x mut [u64],
    pub(super) skips: SkipLog<'x>,
    pub(super) instr: &'x mut I,
    pub(super) s: &'x mut Scratch<W>,
    /// The running wave: its index, pc, exec mask and launch mask.
    pub(super) wave: usize,
    pub(super) pc: usize,
    pub(super) exec: u64,
    pub(super) launch: u64,
    /// Per-lane all-ones / zero words of exec, for branch-free blending.
    pub(super) lm: [u32; W],
    /// Active lanes, and whether exec differs from the launch mask.
    pub(super) active: usize,
    pub(super) divergent: u64,
    /// The exec mask `lm`, `active` and `divergent` were computed from.
    pub(super) seen: u64,
    /// Bit `r`: vector register `r` of the running wave holds `v + l` in every
    /// lane `l` (wrapping), so a memory index read from it takes the block
    /// path without a per-lane check. Set only by a write of every lane of a
    /// full wave; cleared by any other write, and on entry (a conservative
    /// start: registers are not tracked across turns).
    pub(super) stepped: u64,
}

/// A register's first `W` lanes.
#[inline(always)]
pub(super) fn lanes<const W: usize>(r: &[u32; 64]) -> &[u32; W] {
    const { assert!(W <= 64) };
    // SAFETY: `W <= 64` (checked at compile time), so the first `W` elements of a
    // `[u32; 64]` are a valid `[u32; W]` with the same alignment and lifetime.
    unsafe { &*(r.as_ptr() as *const [u32; W]) }
}

/// A register's first `W` lanes, mutably.
#[inline(always)]
pub(super) fn lanes_mut<const W: usize>(r: &mut [u32; 64]) -> &mut [u32; W] {
    const { assert!(W <= 64) };
    // SAFETY: as in `lanes`, and the borrow is unique.
    unsafe { &mut *(r.as_mut_ptr() as *mut [u32; W]) }
}

/// The parts of the context operands are read from, borrowed apart from the
/// vector registers so that a handler can write its destination meanwhile.
#[derive(Clone, Copy)]
pub(super) struct Reads<'r> {
    pub(super) sr: &'r [u32],
    pub(super) scalars: &'r [u32],
    pub(super) u: &'r Uniforms,
    pub(super) local: &'r [[u32; 64]; 3],
}

impl<'r> Reads<'r> {
    /// The value of `src` when it is the same in every lane.
    #[inline(always)]
    pub(super) fn uniform(&self, src: Src) -> Option<u32> {
        let u = self.u;
        Some(match src {
            Src::S(s) => self.sr.get(s as usize).copied().unwrap_or(0),
            Src::Arg(p) => self.scalars.get(p as usize).copied().unwrap_or(0),
            Src::Imm(v) => v,
            Src::GroupId(a) => u.group[a as usize % 3],
            Src::GroupSize(a) => u.size[a as usize % 3],
            Src::NumGroups(a) => u.groups[a as usize % 3],
            Src::WaveId => u.wave,
            Src::WaveWidth => u.width,
            Src::V(_) | Src::LaneId | Src::Local(_) | Src::Global(_) => return None,
        })
    }

    /// `src` in lane 0, a vector register read from `vr`.
    #[inline(always)]
    pub(super) fn first_lane(&self, src: Src, vr: &[[u32; 64]]) -> u32 {
        match src {
            Src::V(r) => vr.get(r as usize).map_or(0, |reg| reg[0]),
            Src::LaneId => 0,
            Src::Local(a) => self.local[a as usize % 3][0],
            Src::Global(a) => {
                let a = a as usize % 3;
                self.u.global_base[a].wrapping_add(self.local[a][0])
            }
            _ => self.uniform(src).unwrap_or(0),
        }
    }

    /// `src` in every lane, a vector register read from `vr`; anything but a
    /// register or the local ids goes through `tmp`.
    #[inline(always)]
    pub(super) fn fetch<'t, const W: usize>(
        &self,
        src: Src,
        vr: &'t [[u32; 64]],
        tmp: &'t mut [u32; W],
    ) -> &'t [u32; W]
    where
        'r: 't,
    {
        match src {
            Src::V(r) => match vr.get(r as usize) {
                Some(reg) => lanes(reg),
                None => {
                    *tmp = [0; W];
                    tmp
                }
            },
            Src::LaneId => {
                for (l, t) in tmp.iter_mut().enumerate() {
                    *t = l as u32;
                }
                tmp
            }
            Src::Local(a) => {
                let local: &'r [[u32; 64]; 3] = self.local;
                lanes(&local[a as usize % 3])
            }
            Src::Global(a) => {
                let base = self.u.global_base[a as usize % 3];
                let ids: &[u32; W] = lanes(&self.local[a as usize % 3]);
                for l in 0..W {
                    tmp[l] = base.wrapping_add(ids[l]);
                }
                tmp
            }
            _ => {
                *tmp = [self.uniform(src).unwrap_or(0); W];
                tmp
            }
        }
    }

    /// `src` for a scalar instruction: its uniform value, or (for a per-lane
    /// value, which validation rejects) the lowest active lane's.
    #[inline(always)]
    pub(super) fn scalar<const W: usize>(
        &self,
        src: Src,
        vr: &[[u32; 64]],
        exec: u64,
        tmp: &mut [u32; W],
    ) -> u32 {
        if let Some(v) = self.uniform(src) {
            return v;
        }
        let lane = (exec.trailing_zeros() as usize).min(W - 1);
        self.fetch(src, vr, tmp)[lane]
    }
}

/// The context split for a handler: see [`Exec::parts`].
pub(super) struct Parts<'p, const W: usize> {
    pub(super) vr: &'p mut [[u32; 64]],
    pub(super) rd: Reads<'p>,
    pub(super) s: &'p mut Scratch<W>,
    pub(super) lm: &'p [u32; W],
}

impl<'x, 'b, const W: usize, I: Instrument> Exec<'x, 'b, W, I> {
    /// Splits the context into the running wave's vector registers, the
    /// operand sources, the scratch arrays and the per-lane exec words.
    #[inline(always)]
    pub(super) fn parts(&mut self) -> Parts<'_, W> {
        Parts {
            vr: &mut *self.cur.v,
            rd: Reads {
                sr: &*self.cur.s,
                scalars: self.scalars,
                u: &self.u,
                local: self.ids,
            },
            s: &mut *self.s,
            lm: &self.lm,
        }
    }

    /// The running wave's mask register `m`.
    #[inline(always)]
    pub(super) fn mreg(&self, m: u16) -> u64 {
        self.cur.m.get(m as usize).copied().unwrap_or(0)
    }

    /// The running wave's mask register `m`, to write.
    #[inline(always)]
    pub(super) fn mreg_mut(&mut self, m: u16) -> Option<&mut u64> {
        self.cur.m.get_mut(m as usize)
    }

    /// The running wave's scalar register `s`, to write.
    #[inline(always)]
    pub(super) fn sreg_mut(&mut self, s: u16) -> Option<&mut u32> {
        self.cur.s.get_mut(s as usize)
    }

    /// The counters of the issuing instruction.
    #[inline(always)]
    pub(super) fn counters(&mut self) -> &mut Counters {
        // `Exec::run` checked `pc` against the ops, which the counters match.
        &mut self.counters[self.pc]
    }

    /// Counts the issue of a vector instruction. `vector_instructions` is
    /// filled in after the launch: a vector instruction is always issued with
    /// a non-empty exec, so it equals `instructions` there.
    #[inline(always)]
    pub(super) fn vector_issue(&mut self) {
        let (divergent, active) = (self.divergent, self.active);
        let c = &mut self.counters[self.pc];
        c.divergent_vector_instructions += divergent;
        c.active_lanes += active as u64;
        if let Some(h) = self.hist.get_mut(active) {
            *h += 1;
        }
    }

    /// Whether `src` holds `v + l` in every lane `l` of the running wave: the
    /// lane id; the local and global id along x when a row of the workgroup
    /// holds whole waves (work-items are numbered x fastest, so a wave's lanes
    /// are consecutive x ids of one row); a register marked in `stepped`.
    #[inline(always)]
    pub(super) fn is_stepped(&self, src: Src) -> bool {
        match src {
            Src::LaneId => true,
            Src::Local(0) | Src::Global(0) => (self.u.size[0] as usize).is_multiple_of(W),
            Src::V(r) => r < 64 && (self.stepped >> r) & 1 != 0,
            _ => false,
        }
    }

    /// Records whether vector register `d`, just written, steps by one from
    /// lane to lane; `yes` only when every lane of the wave was written.
    #[inline(always)]
    pub(super) fn set_stepped(&mut self, d: u16, yes: bool) {
        if d < 64 {
            let bit = 1u64 << d;
            self.stepped = (self.stepped & !bit) | (bit * u64::from(yes));
        }
    }

    /// Records that vector register `d` was written some other way. (Past
    /// register 63 the shift wraps and clears another register's mark, which
    /// only loses a shortcut.)
    #[inline(always)]
    pub(super) fn unstep(&mut self, d: u16) {
        self.stepped &= !(1u64 << (d & 63));
    }

    /// Whether every lane of the wave is active (a full wave, all lanes in exec).
    #[inline(always)]
    pub(super) fn all_lanes(&self) -> bool {
        self.exec == super::memory::full::<W>()
    }

    /// Goes on with the next instruction.
    #[inline(always)]
    pub(super) fn next(&mut self) -> Flow {
        self.pc += 1;
        Ok(Step::Go)
    }

    /// Recomputes what depends on exec after control flow changed it (it
    /// mostly leaves exec as it was: a uniform loop or `if`).
    #[inline(always)]
    pub(super) fn exec_changed(&mut self) {
        if self.exec != self.seen {
            self.seen = self.exec;
            super::alu::expand(self.exec, &mut self.lm);
            self.active = self.exec.count_ones() as usize;
            self.divergent = (self.exec != self.launch) as u64;
        }
    }

    /// Leaves the wave with its pc and exec saved.
    #[inline(always)]
    fn park(&mut self, status: Option<Status>) {
        let wave = &mut self.waves[self.wave];
        wave.pc = self.pc;
        wave.exec = self.exec;
        if let Some(s) = status {
            wave.status = s;
        }
    }

    /// A fault of the running instruction with no lane or address.
    pub(super) fn trap(kind: FaultKind) -> Box<Trap> {
        Box::new(Trap {
            kind,
            lane: None,
            address: None,
        })
    }

    /// Runs wave `w` until it parks, ends, uses up `quantum` issues or faults;
    /// a fault comes with the index of the faulting instruction. `remaining`
    /// is the launch's instruction budget.
    #[inline(always)]
    pub(super) fn run(
        &mut self,
        w: usize,
        remaining: &mut u64,
        quantum: u64,
    ) -> Result<Exit, (usize, Box<Trap>)> {
        // (`run_native` repeats these lines: sharing them through a closure
        // cost the interpreter 23% to 76% more machine instructions per launch.)
        self.cur = std::mem::take(&mut self.regs[w]);
        self.ids = &self.local[w];
        let (left, reserve) = self.enter(w, *remaining, quantum);
        let exit = self.interpret(left, reserve, remaining);
        self.regs[w] = std::mem::take(&mut self.cur);
        exit
    }

    /// [`run`](Self::run) with the kernel's native runner `run`.
    ///
    /// # Safety
    ///
    /// The CPU has the features the runner was built for.
    #[inline(always)]
    pub(super) unsafe fn run_native(
        &mut self,
        run: RunnerFor<W, I>,
        w: usize,
        remaining: &mut u64,
        quantum: u64,
    ) -> Result<Exit, (usize, Box<Trap>)> {
        self.cur = std::mem::take(&mut self.regs[w]);
        self.ids = &self.local[w];
        let (left, reserve) = self.enter(w, *remaining, quantum);
        // SAFETY: the caller's.
        let exit = unsafe { self.native_turn(run, left, reserve, remaining) };
        self.regs[w] = std::mem::take(&mut self.cur);
        exit
    }

    /// Makes wave `w` the running wave, from where it stopped, and returns
    /// how many instructions its turn may issue (`left`) and the rest of the
    /// launch's budget, kept for later turns (`reserve`).
    #[inline(always)]
    pub(super) fn enter(&mut self, w: usize, remaining: u64, quantum: u64) -> (u64, u64) {
        let wave = &self.waves[w];
        self.wave = w;
        self.u.wave = w as u32;
        self.pc = wave.pc;
        self.exec = wave.exec;
        self.stepped = 0;
        // What depends on exec is kept from the last wave that ran: waves
        // mostly reach a barrier or the end of their turn with the same exec
        // (a full wave's), and then nothing need be recomputed.
        if wave.launch != self.launch {
            self.launch = wave.launch;
            self.seen = !self.exec;
        }
        self.exec_changed();
        let left = remaining.min(quantum);
        (left, remaining - left)
    }

    /// Runs the running wave from its pc until it parks, ends, has issued
    /// `left` instructions or faults: the dispatch loop. `remaining` gets the
    /// launch's budget left when the wave stops without a fault.
    #[inline(always)]
    pub(super) fn interpret(
        &mut self,
        mut left: u64,
        reserve: u64,
        remaining: &mut u64,
    ) -> Result<Exit, (usize, Box<Trap>)> {
        let ops = self.ops;
        loop {
            let Some(op) = ops.get(self.pc) else {
                // Linking guarantees an `end` last; running off the end ends the wave.
                self.waves[self.wave].status = Status::Done;
                *remaining = left + reserve;
                return Ok(Exit::Done(ops.len().saturating_sub(1)));
            };
            if left == 0 {
                if reserve > 0 {
                    self.park(None);
                    *remaining = reserve;
                    return Ok(Exit::Yielded);
                }
                *remaining = 0;
                return Err((self.pc, Self::trap(FaultKind::BudgetExceeded { budget: 0 })));
            }
            left -= 1;
            match self.issue(op) {
                Ok(Step::Go) => {}
                Ok(Step::Leave(exit)) => {
                    *remaining = left + reserve;
                    return Ok(exit);
                }
                Err(trap) => return Err((self.pc, trap)),
            }
        }
    }

    /// Issues `op`, the instruction at the pc: counts it, tells the
    /// instrument and runs its handler. The interpreter and the native
    /// runners both issue every instruction through here.
    #[inline(always)]
    pub(super) fn issue(&mut self, op: &Op) -> Flow {
        self.count_issue();
        self.dispatch(op)
    }

    /// Counts the issue of the instruction at the pc and tells the instrument.
    #[inline(always)]
    pub(in crate::exec) fn count_issue(&mut self) {
        // Counted per instruction, not once per straight run between
        // control instructions: kernels run two to five instructions
        // between them, and per-run bookkeeping (a difference array spread
        // after the launch) executed more machine instructions than it
        // saved on all but long ALU runs. A native runner, whose blocks
        // are known when it is compiled, counts per block (`Turn::ran`).
        self.counters[self.pc].instructions += 1;
        self.instr
            .issue(self.program, self.pc, self.wave, self.exec);
    }

    /// Runs `op`'s handler: the one `match` from ops to handlers.
    #[inline(always)]
    pub(super) fn dispatch(&mut self, op: &Op) -> Flow {
        macro_rules! dispatch {
            ($(
                $(#[doc = $doc:literal])*
                $variant:ident $(($x:ident : $payload:ty))? => $handler:ident($($arg:expr),*)
                $(native $native:tt)?,
            )*) => {
                match *op {$(
                    Op::$variant $(($x))? => self.$handler($($arg),*),
                )*}
            };
        }
        for_each_decoded_op!(dispatch)
    }
}
