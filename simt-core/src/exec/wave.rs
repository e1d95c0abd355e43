//! The dispatch loop: runs one wave until it parks at a barrier, ends or faults.

use super::alu;
use super::bind::{Geometry, Prepared, Slot};
use super::flow::{self, Frame, SkipLog};
use super::lanes as lane_ops;
use super::marks::Marks;
use super::memory::atomic::{self, Update};
use super::memory::wide;
use super::memory::{
    self, BankTable, CuCaches, GlobalTarget, LdsTarget, LdsWords, MemScratch, Trap,
};
use super::sanitize::{Kind as Access, Lanes, Sanitizer};
use crate::error::FaultKind;
use crate::ir::{GlobalRef, LdsRef, Operand, Program, Special};
use crate::isa::{Inst, WaveOp};
use crate::stats::{Counters, Issue, Trace, WorstPhase, MAX_TRACE_ISSUES};

/// Where a wave stands between runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Runnable.
    Ready,
    /// Waiting at a barrier.
    Parked,
    /// Finished.
    Done,
}

/// A wave's state between runs.
#[derive(Debug)]
pub(super) struct Wave {
    /// The next instruction.
    pub(super) pc: usize,
    /// The exec mask.
    pub(super) exec: u64,
    /// The lanes the wave was launched with.
    pub(super) launch: u64,
    /// Where the wave stands.
    pub(super) status: Status,
    /// The divergence stack.
    pub(super) stack: Vec<Frame>,
}

/// Why a run stopped without a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    /// Parked at the barrier at `pc`.
    Parked(usize),
    /// Ended at the `end` at `pc`.
    Done(usize),
    /// Used its turn and waits for the next.
    Yielded,
}

/// The values of [`Special`] that are the same for the whole wave.
#[derive(Clone, Copy, Debug)]
pub(super) struct Uniforms {
    /// The workgroup's id.
    pub(super) group: [u32; 3],
    /// The workgroup size.
    pub(super) size: [u32; 3],
    /// Workgroups in the grid.
    pub(super) groups: [u32; 3],
    /// `group * size`, the global id of local id 0.
    pub(super) global_base: [u32; 3],
    /// The wave's index in its workgroup.
    pub(super) wave: u32,
    /// The wave width.
    pub(super) width: u32,
}

/// Everything one run of a wave reads and writes.
pub(super) struct WaveRun<'x, 'b> {
    /// The program (names for faults).
    pub(super) program: &'x Program,
    /// Facts checked at launch.
    pub(super) prepared: &'x Prepared,
    /// Bound buffers.
    pub(super) slots: &'x mut [Slot<'b>],
    /// Scalar arguments as bits, by parameter index.
    pub(super) scalars: &'x [u32],
    /// The memory model's geometry.
    pub(super) geo: Geometry,
    /// Wave-uniform special values.
    pub(super) uniforms: &'x Uniforms,
    /// Local ids per axis and lane.
    pub(super) local: &'x [[u32; 64]; 3],
    /// The wave's vector registers.
    pub(super) vr: &'x mut [[u32; 64]],
    /// The wave's scalar registers.
    pub(super) sr: &'x mut [u32],
    /// The wave's mask registers.
    pub(super) mr: &'x mut [u64],
    /// The wave's state.
    pub(super) wave: &'x mut Wave,
    /// The workgroup's LDS.
    pub(super) lds: &'x mut LdsWords,
    /// LDS word deduplication for the conflict counter.
    pub(super) table: BankTable<'x>,
    /// Counters per instruction.
    pub(super) counters: &'x mut [Counters],
    /// The costliest memory phase per instruction.
    pub(super) worsts: &'x mut [WorstPhase],
    /// Active-lane histogram.
    pub(super) hist: &'x mut [u64],
    /// Skipped-instruction log.
    pub(super) skips: SkipLog<'x>,
    /// Instructions the launch may still issue.
    pub(super) remaining: &'x mut u64,
    /// Instructions this run may issue before the wave yields to the next one.
    pub(super) quantum: u64,
    /// The caches of the workgroup's compute unit, if the model has them.
    pub(super) caches: Option<CuCaches<'x>>,
    /// The sanitizers' state, when they run.
    pub(super) san: Option<&'x mut Sanitizer>,
    /// The bytes of writable buffers read and written, on a parallel launch.
    pub(super) marks: Option<&'x mut Marks>,
    /// The wave's index in its workgroup.
    pub(super) wave_index: usize,
    /// Where to record each issue, when this wave's workgroup is traced.
    pub(super) trace: Option<&'x mut Trace>,
}

/// A register's first `W` lanes.
#[inline(always)]
fn lanes<const W: usize>(r: &[u32; 64]) -> &[u32; W] {
    const { assert!(W <= 64) };
    // SAFETY: `W <= 64` (checked at compile time), so the first `W` elements of a
    // `[u32; 64]` are a valid `[u32; W]` with the same alignment and lifetime.
    unsafe { &*(r.as_ptr() as *const [u32; W]) }
}

/// A register's first `W` lanes, mutably.
#[inline(always)]
fn lanes_mut<const W: usize>(r: &mut [u32; 64]) -> &mut [u32; W] {
    const { assert!(W <= 64) };
    // SAFETY: as in `lanes`, and the borrow is unique.
    unsafe { &mut *(r.as_mut_ptr() as *mut [u32; W]) }
}

/// The value of an operand that is the same in every lane, if it is one.
#[inline(always)]
fn uniform(op: Operand, sr: &[u32], scalars: &[u32], u: &Uniforms) -> Option<u32> {
    Some(match op {
        Operand::S(s) => sr.get(s.0 as usize).copied().unwrap_or(0),
        Operand::Arg(p) => scalars.get(p.0 as usize).copied().unwrap_or(0),
        Operand::Imm(v) => v,
        Operand::Special(sp) => match sp {
            Special::GroupId(a) => u.group[a.index()],
            Special::GroupSize(a) => u.size[a.index()],
            Special::NumGroups(a) => u.groups[a.index()],
            Special::WaveId => u.wave,
            Special::WaveWidth => u.width,
            Special::LaneId | Special::LocalId(_) | Special::GlobalId(_) => return None,
        },
        Operand::V(_) => return None,
    })
}

/// Scratch arrays for operands and results, made once per launch.
pub(super) struct Scratch<const W: usize> {
    a: [u32; W],
    b: [u32; W],
    c: [u32; W],
    out: [u32; W],
    sel: [u32; W],
    /// A memory index with its offset added.
    idx: [u32; W],
    /// The elements of a wide access, one array per register.
    wide: [[u32; W]; 4],
    mem: MemScratch<W>,
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

/// Reads operand `op` in every lane: a register or the local ids directly,
/// anything else through `tmp`.
#[inline(always)]
fn fetch<'r, const W: usize>(
    op: Operand,
    vr: &'r [[u32; 64]],
    sr: &[u32],
    scalars: &[u32],
    u: &Uniforms,
    local: &'r [[u32; 64]; 3],
    tmp: &'r mut [u32; W],
) -> &'r [u32; W] {
    match op {
        Operand::V(r) => match vr.get(r.0 as usize) {
            Some(reg) => lanes(reg),
            None => {
                *tmp = [0; W];
                tmp
            }
        },
        Operand::Special(Special::LaneId) => {
            for (l, t) in tmp.iter_mut().enumerate() {
                *t = l as u32;
            }
            tmp
        }
        Operand::Special(Special::LocalId(a)) => lanes(&local[a.index()]),
        Operand::Special(Special::GlobalId(a)) => {
            let base = u.global_base[a.index()];
            let ids: &[u32; W] = lanes(&local[a.index()]);
            for l in 0..W {
                tmp[l] = base.wrapping_add(ids[l]);
            }
            tmp
        }
        _ => {
            *tmp = [uniform(op, sr, scalars, u).unwrap_or(0); W];
            tmp
        }
    }
}

/// Register `d` (mutably) and the registers below and above it (shared), so that
/// an instruction can read its sources while it writes its destination.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn split_dst(
    vr: &mut [[u32; 64]],
    d: usize,
) -> Option<(&mut [u32; 64], &[[u32; 64]], &[[u32; 64]])> {
    if d >= vr.len() {
        return None;
    }
    let (lo, rest) = vr.split_at_mut(d);
    let (dreg, hi) = rest.split_first_mut()?;
    Some((dreg, lo, hi))
}

/// A source operand of an instruction writing register `d`, given the registers
/// below (`lo`) and above (`hi`) it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn source<'r, const W: usize>(
    op: Operand,
    d: usize,
    lo: &'r [[u32; 64]],
    hi: &'r [[u32; 64]],
    sr: &[u32],
    scalars: &[u32],
    u: &Uniforms,
    local: &'r [[u32; 64]; 3],
    tmp: &'r mut [u32; W],
) -> alu::Src<'r, W> {
    match op {
        Operand::V(r) => {
            let r = r.0 as usize;
            let reg = if r < d {
                lo.get(r)
            } else if r > d {
                hi.get(r - d - 1)
            } else {
                return alu::Src::Dst;
            };
            match reg {
                Some(reg) => alu::Src::Lanes(lanes(reg)),
                None => {
                    *tmp = [0; W];
                    alu::Src::Lanes(tmp)
                }
            }
        }
        _ => alu::Src::Lanes(fetch(op, &[], sr, scalars, u, local, tmp)),
    }
}

/// Reads operand `op` for a scalar instruction: a uniform value, or (for a per-lane
/// value, which validation rejects) the value of the lowest active lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn fetch_scalar<const W: usize>(
    op: Operand,
    vr: &[[u32; 64]],
    sr: &[u32],
    scalars: &[u32],
    u: &Uniforms,
    local: &[[u32; 64]; 3],
    exec: u64,
    tmp: &mut [u32; W],
) -> u32 {
    if let Some(v) = uniform(op, sr, scalars, u) {
        return v;
    }
    let lane = (exec.trailing_zeros() as usize).min(W - 1);
    fetch(op, vr, sr, scalars, u, local, tmp)[lane]
}

/// Runs the wave of `run` until it parks, ends or faults; a fault comes with the
/// index of the faulting instruction.
///
/// This is the interpreter's one `match`; it is `#[inline(always)]` so that each
/// caller (with or without AVX2 and FMA enabled) gets its own compiled copy.
/// `DETAIL` (the worst phases and the trace) is a constant so that the copies
/// without it hold no recording code at all.
#[inline(always)]
pub(super) fn run<const W: usize, const DETAIL: bool>(
    run: WaveRun<'_, '_>,
    s: &mut Scratch<W>,
) -> Result<Exit, (usize, Box<Trap>)> {
    let WaveRun {
        program,
        prepared,
        slots,
        scalars,
        geo,
        uniforms: u,
        local,
        vr,
        sr,
        mr,
        wave,
        lds,
        mut table,
        counters,
        worsts,
        hist,
        mut skips,
        remaining,
        quantum,
        mut caches,
        mut san,
        mut marks,
        wave_index,
        mut trace,
    } = run;
    let insts: &[Inst] = &program.insts;
    let last = insts.len().saturating_sub(1);
    let launch = wave.launch;
    let stack = &mut wave.stack;
    let mut pc = wave.pc;
    // The run may issue `left` instructions; `reserve` is the rest of the
    // launch's budget, for later turns.
    let mut left = (*remaining).min(quantum);
    let reserve = *remaining - left;
    let mut exec = wave.exec;
    // Per-lane all-ones / zero words of exec, for branch-free blending.
    let mut lm = [0u32; W];
    alu::expand(exec, &mut lm);
    let mut active = exec.count_ones() as usize;
    let mut divergent = (exec != launch) as u64;
    // The exec mask `lm`, `active` and `divergent` were computed from.
    let mut seen = exec;
    let mreg = |mr: &[u64], m: crate::ir::MReg| mr.get(m.0 as usize).copied().unwrap_or(0);

    macro_rules! trap {
        ($kind:expr) => {
            return Err((
                pc,
                Box::new(Trap {
                    kind: $kind,
                    lane: None,
                    address: None,
                }),
            ))
        };
    }
    // `vector_instructions` is filled in after the launch: a vector instruction
    // is always issued with a non-empty exec, so it equals `instructions` there.
    macro_rules! vector_issue {
        ($c:ident) => {{
            $c.divergent_vector_instructions += divergent;
            $c.active_lanes += active as u64;
            if let Some(h) = hist.get_mut(active) {
                *h += 1;
            }
        }};
    }
    macro_rules! exec_changed {
        () => {{
            // Control flow mostly leaves exec as it was (a uniform loop or `if`).
            if exec != seen {
                seen = exec;
                alu::expand(exec, &mut lm);
                active = exec.count_ones() as usize;
                divergent = (exec != launch) as u64;
            }
        }};
    }
    macro_rules! fetch {
        ($op:expr, $tmp:ident) => {
            fetch::<W>($op, vr, sr, scalars, u, local, &mut s.$tmp)
        };
    }
    // Where a memory instruction records its costliest phase, if anywhere.
    macro_rules! worst {
        () => {
            if DETAIL {
                worsts.get_mut(pc)
            } else {
                None
            }
        };
    }
    // A memory operand's index with its wave-uniform offset added.
    macro_rules! index {
        ($r:expr) => {{
            let idx = fetch::<W>($r.index, vr, sr, scalars, u, local, &mut s.a);
            match $r.offset {
                Operand::Imm(0) => idx,
                off => {
                    let k = uniform(off, sr, scalars, u).unwrap_or(0);
                    for l in 0..W {
                        s.idx[l] = idx[l].wrapping_add(k);
                    }
                    &s.idx
                }
            }
        }};
    }
    // The bound buffer of a global operand, or the end of the wave when there
    // is none (validation makes that unreachable).
    macro_rules! global_target {
        ($r:expr) => {{
            let r: GlobalRef = $r;
            let p = r.buffer.0 as usize;
            let (Some(slot), Some(param)) = (slots.get_mut(p), program.params.get(p)) else {
                return Ok(Exit::Done(pc));
            };
            if let Some(c) = caches.as_mut() {
                c.at(pc);
            }
            GlobalTarget {
                slot,
                name: &param.name,
                addressing: r.addressing,
            }
        }};
    }
    macro_rules! lds_target {
        ($r:expr) => {{
            let r: LdsRef = $r;
            let i = r.lds.0 as usize;
            let (Some(&area), Some(decl)) = (prepared.lds.get(i), program.lds.get(i)) else {
                return Ok(Exit::Done(pc));
            };
            LdsTarget {
                area,
                name: &decl.name,
                addressing: r.addressing,
            }
        }};
    }
    // Tells the sanitizers and a parallel launch's marks about a memory
    // access whose lanes' offsets are in `s.mem.offs`: `buffer` is the
    // parameter index (global) or `None` (LDS).
    macro_rules! observe {
        ($kind:expr, $buffer:expr, $base:expr, $size:expr, $count:expr, $values:expr) => {
            if let (Some(m), Some(b)) = (marks.as_deref_mut(), $buffer) {
                let store = matches!($kind, Access::Store);
                m.record(
                    b,
                    store,
                    exec & memory::full::<W>(),
                    &s.mem.offs,
                    $size * $count,
                );
            }
            if let Some(z) = san.as_deref_mut() {
                let lanes = Lanes {
                    exec: exec & memory::full::<W>(),
                    offs: &s.mem.offs,
                    size: $size,
                    count: $count,
                    values: $values,
                };
                z.memory(program, pc, wave_index, $kind, $buffer, $base, &lanes);
            }
        };
    }
    // The global address of buffer parameter `p`.
    macro_rules! base_of {
        ($r:expr) => {
            slots.get($r.buffer.0 as usize).map_or(0, |s| s.base())
        };
    }
    // An atomic on `$mem` whose value is in `s.b` (and compared value in
    // `s.c`); `$dst`, if given, gets the old values.
    macro_rules! atomic {
        (global, $update:expr, $dst:expr, $mem:expr, $cnt:ident) => {{
            let idx = index!($mem);
            let target = global_target!($mem);
            let ops = atomic::Operands {
                idx,
                src: &s.b,
                cmp: &s.c,
            };
            // Global atomics are not marked: a launch with any runs on one
            // thread (their old values depend on the order of workgroups).
            debug_assert!(marks.is_none());
            let (geo, c, worst, caches) = (&geo, &mut *$cnt, worst!(), caches.as_mut());
            atomic::global::<W>(
                $update, target, ops, &lm, exec, &mut s.out, geo, c, worst, caches, &mut s.mem,
            )
            .map_err(|t| (pc, t))?;
            observe!(
                Access::Atomic,
                Some($mem.buffer.0 as usize),
                base_of!($mem),
                4,
                1,
                &[]
            );
            if let Some(d) = $dst {
                write_v!(d);
            }
            pc += 1;
        }};
        (lds, $update:expr, $dst:expr, $mem:expr, $cnt:ident) => {{
            let idx = index!($mem);
            let target = lds_target!($mem);
            let ops = atomic::Operands {
                idx,
                src: &s.b,
                cmp: &s.c,
            };
            let (geo, c, worst) = (&geo, &mut *$cnt, worst!());
            atomic::lds::<W>(
                $update, target, ops, &lm, exec, &mut s.out, lds, &mut table, geo, c, worst,
                &mut s.mem,
            )
            .map_err(|t| (pc, t))?;
            observe!(Access::Atomic, None, 0, 4, 1, &[]);
            if let Some(d) = $dst {
                write_v!(d);
            }
            pc += 1;
        }};
    }
    // Blends `s.wide[k]` into registers `first + k`, `k < n`.
    macro_rules! write_run {
        ($first:expr, $n:expr) => {
            for k in 0..$n {
                if let Some(d) = vr.get_mut($first.0 as usize + k) {
                    alu::blend(lanes_mut::<W>(d), &s.wide[k], &lm);
                }
            }
        };
    }
    macro_rules! write_v {
        ($dst:expr) => {
            if let Some(d) = vr.get_mut($dst.0 as usize) {
                alu::blend(lanes_mut::<W>(d), &s.out, &lm);
            }
        };
    }

    loop {
        let Some(inst) = insts.get(pc) else {
            // Linking guarantees an `end` last; running off the end ends the wave.
            wave.status = Status::Done;
            *remaining = left + reserve;
            return Ok(Exit::Done(last));
        };
        if left == 0 {
            if reserve > 0 {
                wave.pc = pc;
                wave.exec = exec;
                *remaining = reserve;
                return Ok(Exit::Yielded);
            }
            *remaining = 0;
            trap!(FaultKind::BudgetExceeded { budget: 0 });
        }
        left -= 1;
        let Some(cnt) = counters.get_mut(pc) else {
            *remaining = left + reserve;
            return Ok(Exit::Done(pc));
        };
        // Counted per instruction, not once per straight run between control
        // instructions: kernels run two to five instructions between them, and
        // per-run bookkeeping (a difference array spread after the launch)
        // executed more machine instructions than it saved on all but long ALU
        // runs.
        cnt.instructions += 1;
        if let Some(z) = san.as_deref_mut() {
            z.registers(program, pc, wave_index, exec);
        }
        if DETAIL {
            if let Some(t) = trace.as_deref_mut() {
                if t.issues.len() < MAX_TRACE_ISSUES {
                    t.issues.push(Issue {
                        wave: wave_index as u32,
                        pc: pc as u32,
                        exec,
                    });
                } else {
                    t.truncated = true;
                }
            }
        }
        match *inst {
            Inst::VBinary { op, dst, a, b } => {
                vector_issue!(cnt);
                let d = dst.0 as usize;
                if let Some((dreg, lo, hi)) = split_dst(vr, d) {
                    let a = source(a, d, lo, hi, sr, scalars, u, local, &mut s.a);
                    let b = source(b, d, lo, hi, sr, scalars, u, local, &mut s.b);
                    alu::binary_into(op, lanes_mut::<W>(dreg), [a, b], &lm);
                }
                pc += 1;
            }
            Inst::VUnary { op, dst, a } => {
                vector_issue!(cnt);
                let d = dst.0 as usize;
                if let Some((dreg, lo, hi)) = split_dst(vr, d) {
                    let a = source(a, d, lo, hi, sr, scalars, u, local, &mut s.a);
                    alu::unary_into(op, lanes_mut::<W>(dreg), a, &lm);
                }
                pc += 1;
            }
            Inst::VTernary { op, dst, a, b, c } => {
                vector_issue!(cnt);
                let d = dst.0 as usize;
                if let Some((dreg, lo, hi)) = split_dst(vr, d) {
                    let a = source(a, d, lo, hi, sr, scalars, u, local, &mut s.a);
                    let b = source(b, d, lo, hi, sr, scalars, u, local, &mut s.b);
                    let c = source(c, d, lo, hi, sr, scalars, u, local, &mut s.c);
                    alu::ternary_into(op, lanes_mut::<W>(dreg), [a, b, c], &lm);
                }
                pc += 1;
            }
            Inst::VCmp { op, ty, dst, a, b } => {
                vector_issue!(cnt);
                let a = fetch!(a, a);
                let bits = match uniform(b, sr, scalars, u) {
                    Some(y) => alu::vcmp(op, ty, a, alu::CmpRhs::Uniform(y)),
                    None => alu::vcmp(op, ty, a, alu::CmpRhs::Lanes(fetch!(b, b))),
                };
                if let Some(d) = mr.get_mut(dst.0 as usize) {
                    *d = (*d & !exec) | (bits & exec);
                }
                pc += 1;
            }
            Inst::VSelect {
                dst,
                mask,
                on_true,
                on_false,
            } => {
                vector_issue!(cnt);
                alu::expand(mreg(mr, mask), &mut s.sel);
                let d = dst.0 as usize;
                if let Some((dreg, lo, hi)) = split_dst(vr, d) {
                    let t = source(on_true, d, lo, hi, sr, scalars, u, local, &mut s.a);
                    let e = source(on_false, d, lo, hi, sr, scalars, u, local, &mut s.b);
                    alu::select_into(lanes_mut::<W>(dreg), t, e, &s.sel, &lm);
                }
                pc += 1;
            }
            Inst::VShuffle { op, dst, src, lane } => {
                vector_issue!(cnt);
                s.b = *fetch!(src, b);
                let lane = fetch!(lane, c);
                lane_ops::shuffle::<W>(op, &s.b, lane, exec, &mut s.out);
                write_v!(dst);
                pc += 1;
            }
            Inst::VReadFirstLane { dst, src } => {
                vector_issue!(cnt);
                let v = fetch!(src, a);
                let first = (exec.trailing_zeros() as usize).min(W - 1);
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = if exec == 0 { 0 } else { v[first] };
                }
                pc += 1;
            }
            Inst::VReadLane { dst, src, lane } => {
                vector_issue!(cnt);
                let l = fetch_scalar::<W>(lane, vr, sr, scalars, u, local, exec, &mut s.c) as usize;
                let v = fetch!(src, a);
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = v[l & (W - 1)];
                }
                pc += 1;
            }
            Inst::STernary { op, dst, a, b, c } => {
                let a = fetch_scalar::<W>(a, vr, sr, scalars, u, local, exec, &mut s.a);
                let b = fetch_scalar::<W>(b, vr, sr, scalars, u, local, exec, &mut s.b);
                let c = fetch_scalar::<W>(c, vr, sr, scalars, u, local, exec, &mut s.c);
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = alu::tern(op, a, b, c);
                }
                pc += 1;
            }
            Inst::SWave { op, dst, mask } => {
                let m = mreg(mr, mask) & exec;
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = match op {
                        WaveOp::BallotLo => m as u32,
                        WaveOp::BallotHi => (m >> 32) as u32,
                        WaveOp::Count => m.count_ones(),
                    };
                }
                pc += 1;
            }
            Inst::SActiveLanes { dst } => {
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = exec.count_ones();
                }
                pc += 1;
            }
            Inst::SBinary { op, dst, a, b } => {
                let a = fetch_scalar::<W>(a, vr, sr, scalars, u, local, exec, &mut s.a);
                let b = fetch_scalar::<W>(b, vr, sr, scalars, u, local, exec, &mut s.b);
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = alu::bin(op, a, b);
                }
                pc += 1;
            }
            Inst::SUnary { op, dst, a } => {
                let a = fetch_scalar::<W>(a, vr, sr, scalars, u, local, exec, &mut s.a);
                if let Some(d) = sr.get_mut(dst.0 as usize) {
                    *d = alu::un(op, a);
                }
                pc += 1;
            }
            Inst::SCmp { op, ty, dst, a, b } => {
                let a = fetch_scalar::<W>(a, vr, sr, scalars, u, local, exec, &mut s.a);
                let b = fetch_scalar::<W>(b, vr, sr, scalars, u, local, exec, &mut s.b);
                if let Some(d) = mr.get_mut(dst.0 as usize) {
                    *d = 0u64.wrapping_sub(alu::cmp(op, ty, a, b) as u64);
                }
                pc += 1;
            }
            Inst::MaskBinary { op, dst, a, b } => {
                let (a, b) = (mreg(mr, a), mreg(mr, b));
                if let Some(d) = mr.get_mut(dst.0 as usize) {
                    *d = match op {
                        crate::isa::MaskOp::And => a & b,
                        crate::isa::MaskOp::Or => a | b,
                        crate::isa::MaskOp::AndN => a & !b,
                        crate::isa::MaskOp::Xor => a ^ b,
                    };
                }
                pc += 1;
            }
            Inst::MaskNot { dst, a } => {
                let a = mreg(mr, a);
                if let Some(d) = mr.get_mut(dst.0 as usize) {
                    *d = !a;
                }
                pc += 1;
            }
            Inst::GlobalLoad { ty, dst, src } => {
                vector_issue!(cnt);
                let base = base_of!(src);
                let idx = index!(src);
                let target = global_target!(src);
                memory::global::<W>(
                    false,
                    ty,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.out,
                    &geo,
                    cnt,
                    worst!(),
                    caches.as_mut(),
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(
                    Access::Load,
                    Some(src.buffer.0 as usize),
                    base,
                    ty.size(),
                    1,
                    &[]
                );
                write_v!(dst);
                pc += 1;
            }
            Inst::GlobalStore { ty, dst, src } => {
                vector_issue!(cnt);
                let base = base_of!(dst);
                s.out = *fetch!(src, b);
                let idx = index!(dst);
                let target = global_target!(dst);
                memory::global::<W>(
                    true,
                    ty,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.out,
                    &geo,
                    cnt,
                    worst!(),
                    caches.as_mut(),
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(
                    Access::Store,
                    Some(dst.buffer.0 as usize),
                    base,
                    ty.size(),
                    1,
                    &[&s.out[..]]
                );
                pc += 1;
            }
            Inst::LdsLoad { ty, dst, src } => {
                vector_issue!(cnt);
                let idx = index!(src);
                let target = lds_target!(src);
                memory::lds::<W>(
                    false,
                    ty,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.out,
                    lds,
                    &mut table,
                    &geo,
                    cnt,
                    worst!(),
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(Access::Load, None, 0, ty.size(), 1, &[]);
                write_v!(dst);
                pc += 1;
            }
            Inst::LdsStore { ty, dst, src } => {
                vector_issue!(cnt);
                s.out = *fetch!(src, b);
                let idx = index!(dst);
                let target = lds_target!(dst);
                memory::lds::<W>(
                    true,
                    ty,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.out,
                    lds,
                    &mut table,
                    &geo,
                    cnt,
                    worst!(),
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(Access::Store, None, 0, ty.size(), 1, &[&s.out[..]]);
                pc += 1;
            }
            Inst::GlobalLoadWide { width, dst, src } => {
                vector_issue!(cnt);
                let base = base_of!(src);
                let n = width.count() as usize;
                let idx = index!(src);
                let target = global_target!(src);
                wide::global::<W>(
                    false,
                    n,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.wide,
                    &geo,
                    cnt,
                    caches.as_mut(),
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(
                    Access::Load,
                    Some(src.buffer.0 as usize),
                    base,
                    4,
                    n as u32,
                    &[]
                );
                write_run!(dst, n);
                pc += 1;
            }
            Inst::GlobalStoreWide { width, dst, src } => {
                vector_issue!(cnt);
                let base = base_of!(dst);
                let n = width.count() as usize;
                for k in 0..n {
                    s.wide[k] = vr
                        .get(src.0 as usize + k)
                        .map_or([0; W], |r| *lanes::<W>(r));
                }
                let idx = index!(dst);
                let target = global_target!(dst);
                wide::global::<W>(
                    true,
                    n,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.wide,
                    &geo,
                    cnt,
                    caches.as_mut(),
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(
                    Access::Store,
                    Some(dst.buffer.0 as usize),
                    base,
                    4,
                    n as u32,
                    &[
                        &s.wide[0][..],
                        &s.wide[1][..],
                        &s.wide[2][..],
                        &s.wide[3][..]
                    ]
                );
                pc += 1;
            }
            Inst::LdsLoadWide { width, dst, src } => {
                vector_issue!(cnt);
                let n = width.count() as usize;
                let idx = index!(src);
                let target = lds_target!(src);
                wide::lds::<W>(
                    false,
                    n,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.wide,
                    lds,
                    &geo,
                    cnt,
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(Access::Load, None, 0, 4, n as u32, &[]);
                write_run!(dst, n);
                pc += 1;
            }
            Inst::LdsStoreWide { width, dst, src } => {
                vector_issue!(cnt);
                let n = width.count() as usize;
                for k in 0..n {
                    s.wide[k] = vr
                        .get(src.0 as usize + k)
                        .map_or([0; W], |r| *lanes::<W>(r));
                }
                let idx = index!(dst);
                let target = lds_target!(dst);
                wide::lds::<W>(
                    true,
                    n,
                    target,
                    idx,
                    &lm,
                    exec,
                    &mut s.wide,
                    lds,
                    &geo,
                    cnt,
                    &mut s.mem,
                )
                .map_err(|t| (pc, t))?;
                observe!(
                    Access::Store,
                    None,
                    0,
                    4,
                    n as u32,
                    &[
                        &s.wide[0][..],
                        &s.wide[1][..],
                        &s.wide[2][..],
                        &s.wide[3][..]
                    ]
                );
                pc += 1;
            }
            Inst::GlobalAtomic { op, dst, mem, src } => {
                vector_issue!(cnt);
                s.b = *fetch!(src, b);
                atomic!(global, Update::Rmw(op), dst, mem, cnt);
            }
            Inst::GlobalCmpSwap { dst, mem, cmp, src } => {
                vector_issue!(cnt);
                s.b = *fetch!(src, b);
                s.c = *fetch!(cmp, c);
                atomic!(global, Update::CmpSwap, dst, mem, cnt);
            }
            Inst::LdsAtomic { op, dst, mem, src } => {
                vector_issue!(cnt);
                s.b = *fetch!(src, b);
                atomic!(lds, Update::Rmw(op), dst, mem, cnt);
            }
            Inst::LdsCmpSwap { dst, mem, cmp, src } => {
                vector_issue!(cnt);
                s.b = *fetch!(src, b);
                s.c = *fetch!(cmp, c);
                atomic!(lds, Update::CmpSwap, dst, mem, cnt);
            }
            Inst::If { mask, next } => {
                pc = flow::op_if(stack, &mut exec, mreg(mr, mask), pc, next.0, &mut skips);
                exec_changed!();
            }
            Inst::Else { end } => {
                pc = flow::op_else(stack, &mut exec, pc, end.0, &mut skips);
                exec_changed!();
            }
            Inst::EndIf => {
                pc = flow::op_endif(stack, &mut exec, pc, last, &mut skips);
                exec_changed!();
            }
            Inst::Loop { end } => {
                pc = flow::op_loop(stack, exec, pc, end.0);
            }
            Inst::EndLoop { mask, start } => {
                let m = mreg(mr, mask);
                pc = flow::op_endloop(stack, &mut exec, m, pc, start.0, last, &mut skips);
                exec_changed!();
            }
            Inst::Break { mask, .. } => {
                let m = mreg(mr, mask);
                pc = flow::op_exit(stack, &mut exec, m, false, pc, last, &mut skips);
                exec_changed!();
            }
            Inst::Continue { mask, .. } => {
                let m = mreg(mr, mask);
                pc = flow::op_exit(stack, &mut exec, m, true, pc, last, &mut skips);
                exec_changed!();
            }
            Inst::Barrier => {
                cnt.barriers += 1;
                if exec != launch {
                    trap!(FaultKind::BarrierPartialMask { exec, launch });
                }
                wave.pc = pc + 1;
                wave.exec = exec;
                wave.status = Status::Parked;
                *remaining = left + reserve;
                return Ok(Exit::Parked(pc));
            }
            Inst::WaveBarrier => {
                // Lanes run in lockstep here: only the sanitizers' independent
                // lanes see it.
                if let Some(z) = san.as_deref_mut() {
                    z.wave_barrier(wave_index, exec & memory::full::<W>());
                }
                pc += 1;
            }
            Inst::End => {
                wave.pc = pc;
                wave.exec = exec;
                wave.status = Status::Done;
                *remaining = left + reserve;
                return Ok(Exit::Done(pc));
            }
        }
    }
}
