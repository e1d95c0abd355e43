//! Native runners: the code `simt_kernel!` writes for each kernel, and the
//! little it calls here.
//!
//! A kernel written with the macro is fully known when its crate compiles,
//! so beside its IR the macro writes a function that runs one wave's turn as
//! straight-line Rust: for each basic block, one [`Turn::step`] per
//! instruction with the instruction's decoded [`Op`] as a constant (decoded
//! by [`decode_op`] during constant evaluation). `step` runs it with the
//! interpreter's own handlers (the register arithmetic, control flow and
//! one-element loads and stores inline, the rest through [`Exec::issue`]),
//! so the semantics are written once; with the op a constant, rustc and
//! LLVM fold the operand kinds away.
//!
//! The issue counts of the inline instructions (instructions, active lanes,
//! divergence, the active-lane histogram) are kept per block: a whole run of
//! a block adds to one [`BlockRun`] ([`Turn::ran`]), which the launch
//! spreads over the block's instructions when it ends; a block left part
//! way (a fault, a barrier) counts its instructions one by one
//! ([`Turn::cut`]). The instructions issued through [`Exec::issue`] count
//! themselves, as on the interpreter.
//!
//! A block runs natively only from its first instruction and only when the
//! turn has budget for all of it ([`Turn::take`]); anything else (a wave
//! resuming inside a block, a budget about to run out, a one-instruction
//! turn of the round-robin schedule) runs on the interpreter for the rest of
//! the turn ([`Turn::interpret`]), which keeps every count, fault and budget
//! exactly as the interpreter has them.
//!
//! Native runners run plain launches with the AVX2 + FMA build, on CPUs
//! that have it (with BMI1/2, LZCNT and POPCNT); launches with instruments
//! (sanitizers, traces, worst phases, marks) run on the interpreter.

use super::alu;
use super::instrument::Instrument;
use super::memory::Trap;
use super::ops::{Exec, Flow, Step};
use super::wave::Exit;

pub use super::decode::{decode_op, Op};
use super::decode::{for_each_decoded_op, Access};

thread_local! {
    /// Turns given to native runners on this thread (a runner may hand a
    /// turn straight to the interpreter): how the engines' tests know that
    /// the runners ran.
    static NATIVE_TURNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many wave turns were given to native runners on the calling thread.
pub fn native_turns() -> u64 {
    NATIVE_TURNS.get()
}

/// Whether this CPU runs native runners: it has the features they are built
/// for.
pub fn available() -> bool {
    super::fast_path_available()
}

/// A native runner for waves of `W` lanes: runs one turn.
///
/// # Safety
///
/// It is compiled for AVX2, FMA, BMI1/2, LZCNT and POPCNT: call it only on a
/// CPU that has them.
pub type Runner<const W: usize> = RunnerFor<W, ()>;

/// A native runner for waves of `W` lanes and the instrument `I`.
pub type RunnerFor<const W: usize, I> =
    for<'t, 'x, 'b> unsafe fn(Turn<'t, 'x, 'b, W, I>) -> TurnEnd;

/// A kernel's native runners, one per wave width.
#[derive(Debug)]
pub struct Runners {
    /// Waves of 32 lanes.
    pub w32: Runner<32>,
    /// Waves of 64 lanes.
    pub w64: Runner<64>,
}

/// One wave's turn as a native runner runs it.
pub struct Turn<'t, 'x, 'b, const W: usize, I: Instrument> {
    exec: &'t mut Exec<'x, 'b, W, I>,
    /// Instructions the turn may still issue.
    left: u64,
    /// The launch's budget past this turn.
    reserve: u64,
    remaining: &'t mut u64,
}

/// What a native runner counts of whole runs of a block: the issue counts
/// of its inline instructions ([`Op::kind`] not 0), added up per block and
/// spread over the block's instructions after the launch (see
/// `Worker::finish`). The wave's exec cannot change inside a block (only a
/// control instruction changes it, and one ends a block), so one active-lane
/// count serves every instruction of a run.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BlockRun {
    /// Whole runs of the block.
    pub(super) runs: u64,
    /// Active lanes, summed over the runs.
    pub(super) active: u64,
    /// Runs with lanes off (exec other than the launch mask).
    pub(super) divergent: u64,
}

/// How many of the inline instructions of the block `insts[start..start +
/// len]` count active lanes ([`Op::counts_lanes`]): what a whole run of it
/// adds to its active-lane count's bin of the histogram.
pub const fn block_lanes(
    insts: &[crate::isa::Inst],
    start: usize,
    len: usize,
    counts: [u16; 3],
) -> u64 {
    let mut n = 0;
    let mut k = start;
    while k < start + len {
        n += decode_op(&insts[k], counts).counts_lanes() as u64;
        k += 1;
    }
    n
}

impl Op {
    /// The number of a vector arithmetic op's operation, which a native
    /// runner passes as a const generic to call the one out-of-line loop of
    /// that operation (see [`alu::by_number`]); 0 for other ops.
    pub const fn number(&self) -> u8 {
        match self {
            Op::VBinary(x) => x.op as u8,
            Op::VUnary(x) => x.op as u8,
            Op::VTernary(x) => x.op as u8,
            Op::VCmp(x) => alu::by_number::cmp_number(x.op, x.ty),
            _ => 0,
        }
    }
}

/// How a turn ended: what the wave's scheduler is told.
pub struct TurnEnd(pub(super) Result<Exit, (usize, Box<Trap>)>);

impl<'t, 'x, 'b, const W: usize, I: Instrument> Turn<'t, 'x, 'b, W, I> {
    /// The running wave's next instruction.
    #[inline(always)]
    pub fn pc(&self) -> usize {
        self.exec.pc
    }

    /// Takes `n` instructions from the turn's budget, if it has them.
    #[inline(always)]
    pub fn take(&mut self, n: u64) -> bool {
        let ok = self.left >= n;
        self.left -= n * u64::from(ok);
        ok
    }

    /// What a block's run is counted with: the running wave's active lanes
    /// and whether lanes are off, read when the block starts.
    #[inline(always)]
    pub fn mark(&self) -> (u64, u64) {
        (self.exec.active as u64, self.exec.divergent)
    }

    /// Counts a whole run of the block that starts at `start`, marked
    /// `mark`, whose inline instructions count active lanes `LANES` times
    /// ([`block_lanes`]). (Native runners run plain launches only, whose
    /// instrument hears nothing of an issue, so none misses one here.)
    #[inline(always)]
    pub fn ran<const LANES: u64>(&mut self, start: usize, mark: (u64, u64)) {
        let e = &mut *self.exec;
        if let Some(r) = e.runs.get_mut(start) {
            r.runs += 1;
            if LANES > 0 {
                r.active += mark.0;
                r.divergent += mark.1;
            }
        }
        if LANES > 0 {
            if let Some(h) = e.hist.get_mut(mark.0 as usize) {
                *h += LANES;
            }
        }
    }

    /// Counts the run of a block left at instruction `last` (a fault, a
    /// barrier, the end): its inline instructions from `start` to `last`,
    /// one by one, as the interpreter counts them.
    #[inline(never)]
    pub fn cut(&mut self, start: usize, last: usize, mark: (u64, u64)) {
        let e = &mut *self.exec;
        for pc in start..=last {
            let (Some(op), Some(c)) = (e.ops.get(pc), e.counters.get_mut(pc)) else {
                continue;
            };
            if op.kind() == 0 {
                continue;
            }
            c.instructions += 1;
            if op.counts_lanes() {
                c.active_lanes += mark.0;
                c.divergent_vector_instructions += mark.1;
                if let Some(h) = e.hist.get_mut(mark.0 as usize) {
                    *h += 1;
                }
            }
        }
    }

    /// Issues `op`, the instruction at `pc`, whose [`Op::kind`] is `KIND`
    /// and whose [`Op::number`] is `NUMBER`; `Some` when the turn ends
    /// there. The budget was taken for its block.
    ///
    /// The register arithmetic, the structured control flow and the
    /// formula path of one-element loads and stores are issued inline, their
    /// issue counted per block (see [`Turn::ran`]): `KIND` is a constant, so
    /// only its handler is compiled here, with `op`'s operands folded into
    /// it. The rest of memory, lane exchange, barriers and `end` go through
    /// one shared out-of-line copy of the dispatch
    /// ([`Exec::issue_outlined`]), which counts their issue: their cost is
    /// their lanes' addresses and counters, not the dispatch, and their long
    /// handlers inlined into every kernel would multiply the build's time.
    /// For the same reason a vector operation's lane loop is the out-of-line
    /// copy for its `NUMBER`.
    #[inline(always)]
    pub fn step<const KIND: u8, const NUMBER: u8>(
        &mut self,
        pc: usize,
        op: &'static Op,
    ) -> Option<TurnEnd> {
        self.exec.pc = pc;
        let flow = self.exec.issue_inline::<KIND, NUMBER>(op);
        match flow {
            Ok(Step::Go) => None,
            Ok(Step::Leave(exit)) => {
                *self.remaining = self.left + self.reserve;
                Some(TurnEnd(Ok(exit)))
            }
            Err(trap) => Some(TurnEnd(Err((self.exec.pc, trap)))),
        }
    }

    /// Runs the rest of the turn on the interpreter.
    #[inline(never)]
    pub fn interpret(self) -> TurnEnd {
        // SAFETY: a turn runs only on a CPU with the features of the runner
        // (see `Runner`), which are those of this build.
        unsafe { interpret_fast(self) }
    }
}

/// [`Turn::interpret`] in the build native runners are compiled for.
///
/// # Safety
///
/// The CPU has AVX2, FMA, BMI1/2, LZCNT and POPCNT.
#[cfg_attr(
    target_arch = "x86_64",
    target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
)]
unsafe fn interpret_fast<const W: usize, I: Instrument>(turn: Turn<'_, '_, '_, W, I>) -> TurnEnd {
    TurnEnd(turn.exec.interpret(turn.left, turn.reserve, turn.remaining))
}

impl<'t, 'x, 'b, const W: usize, I: Instrument> Turn<'t, 'x, 'b, W, I> {}

impl<'x, 'b, const W: usize, I: Instrument> Exec<'x, 'b, W, I> {
    /// [`Exec::issue`] out of line, in the build native runners are compiled
    /// for: one copy per crate and wave width, which every step of every
    /// native runner calls. Inlining the handlers into each step instead
    /// (each op a constant, to fold) made each step a copy of the whole
    /// dispatch before LLVM could prune it, and the release build of the
    /// reference kernels took over ten minutes.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2, FMA, BMI1/2, LZCNT and POPCNT.
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    unsafe fn issue_outlined(&mut self, op: &Op) -> super::ops::Flow {
        self.issue(op)
    }

    /// The general path of a one-element load or store
    /// ([`Exec::access_general`]) out of line, as [`Exec::issue_outlined`];
    /// one copy per space (`LDS`), each without the other's code.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2, FMA, BMI1/2, LZCNT and POPCNT.
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    unsafe fn access_outlined<const LDS: bool>(
        &mut self,
        x: Access,
        store: bool,
        stepped: bool,
    ) -> super::ops::Flow {
        self.access_general(x, store, LDS, stepped)
    }

    /// Runs the running wave's turn, `left` instructions at most, with the
    /// native runner `run`: what [`Exec::interpret`] does on the interpreter.
    ///
    /// # Safety
    ///
    /// As [`Runner`]: the CPU has the features it was compiled for.
    #[inline(always)]
    pub(super) unsafe fn native_turn(
        &mut self,
        run: RunnerFor<W, I>,
        left: u64,
        reserve: u64,
        remaining: &mut u64,
    ) -> Result<Exit, (usize, Box<Trap>)> {
        let turn = Turn {
            exec: &mut *self,
            left,
            reserve,
            remaining,
        };
        NATIVE_TURNS.set(NATIVE_TURNS.get() + 1);
        // SAFETY: the caller's.
        unsafe { run(turn) }.0
    }
}

/// An inline op's handler call, by how its row says it is issued:
/// - `inline(handler)`: the handler, with the op's payload;
/// - `unit(handler)`: the handler of an op without a payload;
/// - `exit(continuing)`: `break` (false) or `continue` (true);
/// - `by_number(handler, each, |args|)`: the handler, with the out-of-line
///   lane loop of operation `NUMBER` (see [`alu::by_number`]);
/// - `access(store, lds)`: a one-element load or store: its formula path
///   inline, with the op's operands folded into it, else the general path
///   out of line.
macro_rules! issue {
    ($e:ident, $op:ident, $variant:ident, inline($handler:ident)) => {{
        let Op::$variant(x) = *$op else { unreachable!() };
        $e.$handler(x)
    }};
    ($e:ident, $op:ident, $variant:ident, unit($handler:ident)) => {
        $e.$handler()
    };
    ($e:ident, $op:ident, $variant:ident, exit($continuing:literal)) => {{
        let Op::$variant(x) = *$op else { unreachable!() };
        $e.op_exit(x, $continuing)
    }};
    // SAFETY (of each loop): a turn runs only on a CPU with the features
    // of the runner (see `Runner`), which are those of this build.
    ($e:ident, $op:ident, $variant:ident, by_number($handler:ident, $each:ident, |$($a:ident),*|)) => {{
        let Op::$variant(x) = *$op else { unreachable!() };
        $e.$handler(x, |$($a),*| unsafe { alu::by_number::$each::<W, NUMBER>($($a),*) })
    }};
    // SAFETY (of the general path): as `issue_outlined`'s.
    ($e:ident, $op:ident, $variant:ident, access($store:literal, $lds:literal)) => {{
        let Op::$variant(x) = *$op else { unreachable!() };
        let stepped = $e.is_stepped(x.at.index);
        if stepped && $e.block(x, $store, $lds) {
            $e.next()
        } else {
            unsafe { $e.access_outlined::<$lds>(x, $store, stepped) }
        }
    }};
}

/// Whether a row's op counts its active lanes.
macro_rules! counts_lanes {
    () => {
        false
    };
    (lanes) => {
        true
    };
}

/// Generates, from the rows of [`for_each_decoded_op!`] that a native runner
/// inlines, the kind numbers ([`Op::kind`]), [`Op::counts_lanes`] and the
/// inline dispatch ([`Exec::issue_inline`]): one row per op, so no list
/// repeats another. The register arithmetic and the structured control
/// flow, whose handlers are short, and the one-element loads and stores,
/// whose formula path is short too (see `Exec::block`), are inlined.
macro_rules! inline_ops {
    ($($variant:ident $([$lanes:ident])? => $how:ident $args:tt,)*) => {
        /// The kinds of [`Op`] a native runner issues inline, numbered from 1
        /// as [`Op::kind`] gives them (0: through the shared dispatch).
        #[repr(u8)]
        enum Kind {
            Shared,
            $($variant,)*
        }

        /// The numbers of `Kind`, as constants a `match` can name.
        #[allow(non_upper_case_globals)]
        mod kind {
            $(pub(super) const $variant: u8 = super::Kind::$variant as u8;)*
        }

        impl Op {
            /// Which handler a native runner issues this op with inline (a
            /// number of `Kind`), or 0: through the shared dispatch.
            pub const fn kind(&self) -> u8 {
                match self {
                    $(Op::$variant { .. } => Kind::$variant as u8,)*
                    _ => Kind::Shared as u8,
                }
            }

            /// Whether a native runner issues this op inline and it counts
            /// its active lanes (a vector instruction): its issue is counted
            /// per block.
            pub const fn counts_lanes(&self) -> bool {
                match self {
                    $(Op::$variant { .. } => counts_lanes!($($lanes)?),)*
                    _ => false,
                }
            }
        }

        impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
            /// Issues `op`, whose [`Op::kind`] is `KIND` and whose
            /// [`Op::number`] is `NUMBER`: `KIND` is a constant, so only its
            /// handler is compiled here, with `op`'s operands folded into
            /// it; an op of no inline kind goes through one shared
            /// out-of-line copy of the dispatch ([`Exec::issue_outlined`]).
            #[inline(always)]
            fn issue_inline<const KIND: u8, const NUMBER: u8>(&mut self, op: &Op) -> Flow {
                match KIND {
                    $(kind::$variant => issue!(self, op, $variant, $how $args),)*
                    // SAFETY: a turn runs only on a CPU with the features of
                    // the runner (see `Runner`), which are those of this build.
                    _ => unsafe { self.issue_outlined(op) },
                }
            }
        }
    };
}

/// Picks the rows of [`for_each_decoded_op!`] that say how a native runner
/// issues their op inline, and hands them to [`inline_ops!`]. (`define_op!`
/// and the dispatch in `ops` match the same row grammar.)
macro_rules! inlined_rows {
    (@kept [$($kept:tt)*]) => {
        inline_ops! { $($kept)* }
    };
    (
        @kept [$($kept:tt)*]
        $(#[doc = $doc:literal])*
        $variant:ident $(($x:ident : $payload:ty))? => $handler:ident($($arg:expr),*)
        native([$($lanes:ident)?] $how:ident $args:tt),
        $($rest:tt)*
    ) => {
        inlined_rows! { @kept [$($kept)* $variant $([$lanes])? => $how $args,] $($rest)* }
    };
    (
        @kept [$($kept:tt)*]
        $(#[doc = $doc:literal])*
        $variant:ident $(($x:ident : $payload:ty))? => $handler:ident($($arg:expr),*),
        $($rest:tt)*
    ) => {
        inlined_rows! { @kept [$($kept)*] $($rest)* }
    };
    (@kept $kept:tt $($bad:tt)+) => {
        compile_error!(concat!("a decoded-op row not understood: ", stringify!($($bad)+)));
    };
    ($($rows:tt)*) => {
        inlined_rows! { @kept [] $($rows)* }
    };
}

for_each_decoded_op!(inlined_rows);
