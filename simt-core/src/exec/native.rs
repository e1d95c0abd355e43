//! Native runners: the code `simt_kernel!` writes for each kernel, and the
//! little it calls here.
//!
//! A kernel written with the macro is fully known when its crate compiles,
//! so beside its IR the macro writes a function that runs one wave's turn as
//! straight-line Rust: for each basic block, one [`Turn::step`] per
//! instruction with the instruction's decoded [`Op`] as a constant (decoded
//! by [`decode_op`] during constant evaluation). `step` counts the op with
//! the interpreter's own `count_issue` and runs it with the interpreter's
//! own handlers (the register arithmetic and control flow inline, the rest through
//! [`Exec::issue`]), so the semantics and the counting are written once; with
//! the op a constant, rustc and LLVM fold the operand kinds away.
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
use super::ops::{Exec, Step};
use super::wave::Exit;

use super::decode::Access;
pub use super::decode::{decode_op, Op};

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

/// The kinds of [`Op`] a native runner issues inline, as [`Op::kind`]
/// numbers them: the register arithmetic and the structured control flow,
/// whose handlers are short, and the one-element loads and stores, whose
/// formula path is (see `Exec::block`).
mod kind {
    pub(super) const V_BINARY: u8 = 1;
    pub(super) const V_UNARY: u8 = 2;
    pub(super) const V_TERNARY: u8 = 3;
    pub(super) const V_CMP: u8 = 4;
    pub(super) const V_SELECT: u8 = 5;
    pub(super) const S_BINARY: u8 = 6;
    pub(super) const S_UNARY: u8 = 7;
    pub(super) const S_TERNARY: u8 = 8;
    pub(super) const S_CMP: u8 = 9;
    pub(super) const MASK_BINARY: u8 = 10;
    pub(super) const MASK_NOT: u8 = 11;
    pub(super) const IF: u8 = 12;
    pub(super) const ELSE: u8 = 13;
    pub(super) const END_IF: u8 = 14;
    pub(super) const LOOP: u8 = 15;
    pub(super) const END_LOOP: u8 = 16;
    pub(super) const BREAK: u8 = 17;
    pub(super) const CONTINUE: u8 = 18;
    pub(super) const GLOBAL_LOAD: u8 = 19;
    pub(super) const GLOBAL_STORE: u8 = 20;
    pub(super) const LDS_LOAD: u8 = 21;
    pub(super) const LDS_STORE: u8 = 22;
}

impl Op {
    /// Which handler a native runner issues this op with inline (a number
    /// of `kind`), or 0: through the shared dispatch.
    pub const fn kind(&self) -> u8 {
        match self {
            Op::VBinary(_) => kind::V_BINARY,
            Op::VUnary(_) => kind::V_UNARY,
            Op::VTernary(_) => kind::V_TERNARY,
            Op::VCmp(_) => kind::V_CMP,
            Op::VSelect(_) => kind::V_SELECT,
            Op::SBinary(_) => kind::S_BINARY,
            Op::SUnary(_) => kind::S_UNARY,
            Op::STernary(_) => kind::S_TERNARY,
            Op::SCmp(_) => kind::S_CMP,
            Op::MaskBinary(_) => kind::MASK_BINARY,
            Op::MaskNot(_) => kind::MASK_NOT,
            Op::If(_) => kind::IF,
            Op::Else(_) => kind::ELSE,
            Op::EndIf => kind::END_IF,
            Op::Loop(_) => kind::LOOP,
            Op::EndLoop(_) => kind::END_LOOP,
            Op::Break(_) => kind::BREAK,
            Op::Continue(_) => kind::CONTINUE,
            Op::GlobalLoad(_) => kind::GLOBAL_LOAD,
            Op::GlobalStore(_) => kind::GLOBAL_STORE,
            Op::LdsLoad(_) => kind::LDS_LOAD,
            Op::LdsStore(_) => kind::LDS_STORE,
            _ => 0,
        }
    }

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

    /// Issues `op`, the instruction at `pc`, whose [`Op::kind`] is `KIND`
    /// and whose [`Op::number`] is `NUMBER`; `Some` when the turn ends
    /// there. The budget was taken for its block.
    ///
    /// The register arithmetic and the structured control flow are issued
    /// inline: `KIND` is a constant, so only its handler is compiled here,
    /// with `op`'s operands folded into it. Memory, lane exchange, barriers
    /// and `end` go through one shared out-of-line copy of the dispatch
    /// ([`Exec::issue_outlined`]): a memory op's cost is its lanes'
    /// addresses and counters, not the dispatch, and its long handler
    /// inlined into every kernel would multiply the build's time. For the
    /// same reason a vector operation's lane loop is the out-of-line copy
    /// for its `NUMBER`.
    #[inline(always)]
    pub fn step<const KIND: u8, const NUMBER: u8>(
        &mut self,
        pc: usize,
        op: &'static Op,
    ) -> Option<TurnEnd> {
        self.exec.pc = pc;
        let e = &mut *self.exec;
        // Each arm: the op's payload (it is of this kind), counted, handled.
        macro_rules! inline {
            ($variant:ident, $handler:ident) => {{
                let Op::$variant(x) = *op else { unreachable!() };
                e.count_issue();
                e.$handler(x)
            }};
        }
        // Each arm: as `inline`, with the lane loop of operation `NUMBER`.
        // SAFETY (of each loop): a turn runs only on a CPU with the features
        // of the runner (see `Runner`), which are those of this build.
        macro_rules! by_number {
            ($variant:ident, $handler:ident, $each:ident, |$($a:ident),*|) => {{
                let Op::$variant(x) = *op else { unreachable!() };
                e.count_issue();
                e.$handler(x, |$($a),*| unsafe { alu::by_number::$each::<W, NUMBER>($($a),*) })
            }};
        }
        // Each arm: a one-element load or store, counted; its formula path
        // inline, with the op's operands folded into it, else the general
        // path out of line.
        // SAFETY (of the general path): as `issue_outlined`'s below.
        macro_rules! access {
            ($variant:ident, $store:expr, $lds:expr) => {{
                let Op::$variant(x) = *op else { unreachable!() };
                e.count_issue();
                e.vector_issue();
                if e.is_stepped(x.at.index) && e.block(x, $store, $lds) {
                    e.next()
                } else {
                    unsafe { e.access_outlined(x, $store, $lds) }
                }
            }};
        }
        let flow = match KIND {
            kind::V_BINARY => by_number!(VBinary, v_binary_by, binary, |d, s, l|),
            kind::V_UNARY => by_number!(VUnary, v_unary_by, unary, |d, s, l|),
            kind::V_TERNARY => by_number!(VTernary, v_ternary_by, ternary, |d, s, l|),
            kind::V_CMP => by_number!(VCmp, v_cmp_by, compare, |a, b|),
            kind::V_SELECT => inline!(VSelect, v_select),
            kind::S_BINARY => inline!(SBinary, s_binary),
            kind::S_UNARY => inline!(SUnary, s_unary),
            kind::S_TERNARY => inline!(STernary, s_ternary),
            kind::S_CMP => inline!(SCmp, s_cmp),
            kind::MASK_BINARY => inline!(MaskBinary, mask_binary),
            kind::MASK_NOT => inline!(MaskNot, mask_not),
            kind::IF => inline!(If, op_if),
            kind::ELSE => inline!(Else, op_else),
            kind::END_IF => {
                e.count_issue();
                e.op_endif()
            }
            kind::LOOP => inline!(Loop, op_loop),
            kind::END_LOOP => inline!(EndLoop, op_endloop),
            kind::BREAK => {
                let Op::Break(x) = *op else { unreachable!() };
                e.count_issue();
                e.op_exit(x, false)
            }
            kind::CONTINUE => {
                let Op::Continue(x) = *op else { unreachable!() };
                e.count_issue();
                e.op_exit(x, true)
            }
            kind::GLOBAL_LOAD => access!(GlobalLoad, false, false),
            kind::GLOBAL_STORE => access!(GlobalStore, true, false),
            kind::LDS_LOAD => access!(LdsLoad, false, true),
            kind::LDS_STORE => access!(LdsStore, true, true),
            // SAFETY: a turn runs only on a CPU with the features of the
            // runner (see `Runner`), which are those of this build.
            _ => unsafe { e.issue_outlined(op) },
        };
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
    /// ([`Exec::access_general`]) out of line, as [`Exec::issue_outlined`].
    ///
    /// # Safety
    ///
    /// The CPU has AVX2, FMA, BMI1/2, LZCNT and POPCNT.
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    unsafe fn access_outlined(&mut self, x: Access, store: bool, lds: bool) -> super::ops::Flow {
        self.access_general(x, store, lds)
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
