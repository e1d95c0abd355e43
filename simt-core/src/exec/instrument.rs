//! Instruments: what watches a launch besides the counters.
//!
//! The sanitizers, a parallel launch's marks, the worst-phase recording, the
//! issue trace and the timing model's recording (`timing::stream`) each
//! implement [`Instrument`]; the dispatch loop is generic over
//! it and calls it at every issue, memory access, barrier and workgroup
//! boundary. The plain launch runs with `()`, whose methods are empty, so its
//! compiled loop holds no instrument code and tests nothing at run time.

use super::marks::Marks;
use super::sanitize::Sanitizer;
use crate::facts::AccessKind;
use crate::ir::Program;
use crate::stats::{Counters, Issue, Stats, Trace, WorstPhase, MAX_TRACE_ISSUES};
use crate::timing::stream::Streams;

/// One memory instruction's lanes, as the instruments see them.
pub struct Access<'a> {
    /// Load, store or atomic.
    pub(crate) kind: AccessKind,
    /// The buffer parameter (global) or `None` (LDS).
    pub(crate) buffer: Option<usize>,
    /// The buffer's global address (0 for the LDS).
    pub(crate) base: u64,
    /// The active lanes.
    pub(crate) exec: u64,
    /// Byte offsets of each lane's first byte.
    pub(crate) offs: &'a [u32],
    /// Bytes per element.
    pub(crate) size: u32,
    /// Elements per lane.
    pub(crate) count: u32,
    /// The values stored, per element (stores only).
    pub(crate) values: &'a [&'a [u32]],
    /// What this access added to its instruction's counters: its phases,
    /// lines, sectors, cache hits and misses, DRAM sectors, conflict cycles
    /// and contention. Counted apart only for an instrument that reads it
    /// ([`Instrument::COSTS`]); zero for the others.
    pub(crate) cost: &'a Counters,
}

/// What a launch calls besides counting. Every method does nothing by default.
pub trait Instrument {
    /// Whether [`Instrument::memory`] reads each access's cost
    /// ([`Access::cost`]). When not, an access counts straight into its
    /// instruction's counters, with nothing to add up apart.
    const COSTS: bool = false;

    /// Whether [`Instrument::memory`] or [`Instrument::worst`] does anything.
    /// When not, an access whose lanes form one block (see `Exec::block`)
    /// takes the formula path, which fills no per-lane offsets to tell.
    const SEES_ACCESSES: bool = true;

    /// Workgroup `linear` (numbered x fastest), of id `group` and `waves`
    /// waves, starts.
    #[inline(always)]
    fn workgroup_begin(&mut self, linear: u64, group: [u32; 3], waves: usize) {
        let _ = (linear, group, waves);
    }

    /// Wave `wave` issues instruction `pc` under `exec`.
    #[inline(always)]
    fn issue(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        let _ = (program, pc, wave, exec);
    }

    /// Instruction `pc` of wave `wave` made the accesses `access` describes.
    #[inline(always)]
    fn memory(&mut self, program: &Program, pc: usize, wave: usize, access: &Access<'_>) {
        let _ = (program, pc, wave, access);
    }

    /// Wave `wave` passed a wave barrier with the lanes of `exec`.
    #[inline(always)]
    fn wave_barrier(&mut self, wave: usize, exec: u64) {
        let _ = (wave, exec);
    }

    /// Every wave of the workgroup passed a barrier.
    #[inline(always)]
    fn barrier(&mut self) {}

    /// Where memory instruction `pc` records its costliest phase, if anywhere.
    #[inline(always)]
    fn worst(&mut self, pc: usize) -> Option<&mut WorstPhase> {
        let _ = pc;
        None
    }
}

/// The plain launch: nothing watches.
impl Instrument for () {
    const SEES_ACCESSES: bool = false;
}

impl<T: Instrument + ?Sized> Instrument for &mut T {
    const COSTS: bool = T::COSTS;
    const SEES_ACCESSES: bool = T::SEES_ACCESSES;
    #[inline(always)]
    fn workgroup_begin(&mut self, linear: u64, group: [u32; 3], waves: usize) {
        (**self).workgroup_begin(linear, group, waves)
    }
    #[inline(always)]
    fn issue(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        (**self).issue(program, pc, wave, exec)
    }
    #[inline(always)]
    fn memory(&mut self, program: &Program, pc: usize, wave: usize, access: &Access<'_>) {
        (**self).memory(program, pc, wave, access)
    }
    #[inline(always)]
    fn wave_barrier(&mut self, wave: usize, exec: u64) {
        (**self).wave_barrier(wave, exec)
    }
    #[inline(always)]
    fn barrier(&mut self) {
        (**self).barrier()
    }
    #[inline(always)]
    fn worst(&mut self, pc: usize) -> Option<&mut WorstPhase> {
        (**self).worst(pc)
    }
}

impl<T: Instrument> Instrument for Option<T> {
    const COSTS: bool = T::COSTS;
    const SEES_ACCESSES: bool = T::SEES_ACCESSES;
    #[inline(always)]
    fn workgroup_begin(&mut self, linear: u64, group: [u32; 3], waves: usize) {
        if let Some(t) = self {
            t.workgroup_begin(linear, group, waves)
        }
    }
    #[inline(always)]
    fn issue(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        if let Some(t) = self {
            t.issue(program, pc, wave, exec)
        }
    }
    #[inline(always)]
    fn memory(&mut self, program: &Program, pc: usize, wave: usize, access: &Access<'_>) {
        if let Some(t) = self {
            t.memory(program, pc, wave, access)
        }
    }
    #[inline(always)]
    fn wave_barrier(&mut self, wave: usize, exec: u64) {
        if let Some(t) = self {
            t.wave_barrier(wave, exec)
        }
    }
    #[inline(always)]
    fn barrier(&mut self) {
        if let Some(t) = self {
            t.barrier()
        }
    }
    #[inline(always)]
    fn worst(&mut self, pc: usize) -> Option<&mut WorstPhase> {
        self.as_mut().and_then(|t| t.worst(pc))
    }
}

/// Whatever watches a watched launch: the sanitizers, the recording, a
/// parallel launch's marks, each if present. One type for all of them, so that
/// the loop is compiled once for every watched launch (per wave width and CPU
/// build) and still calls each instrument directly.
#[derive(Default)]
pub(super) struct Watch<'a> {
    pub(super) sanitizer: Option<&'a mut Sanitizer>,
    pub(super) recorder: Option<Recorder>,
    pub(super) marks: Option<&'a mut Marks>,
    pub(super) streams: Option<Streams>,
}

impl Instrument for Watch<'_> {
    /// The timing model's recording reads costs.
    const COSTS: bool = <Option<Streams> as Instrument>::COSTS;
    #[inline(always)]
    fn workgroup_begin(&mut self, linear: u64, group: [u32; 3], waves: usize) {
        self.sanitizer.workgroup_begin(linear, group, waves);
        self.recorder.workgroup_begin(linear, group, waves);
        self.streams.workgroup_begin(linear, group, waves);
    }
    #[inline(always)]
    fn issue(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        self.sanitizer.issue(program, pc, wave, exec);
        self.recorder.issue(program, pc, wave, exec);
        self.streams.issue(program, pc, wave, exec);
    }
    #[inline(always)]
    fn memory(&mut self, program: &Program, pc: usize, wave: usize, access: &Access<'_>) {
        self.sanitizer.memory(program, pc, wave, access);
        self.marks.memory(program, pc, wave, access);
        self.streams.memory(program, pc, wave, access);
    }
    #[inline(always)]
    fn wave_barrier(&mut self, wave: usize, exec: u64) {
        self.sanitizer.wave_barrier(wave, exec);
    }
    #[inline(always)]
    fn barrier(&mut self) {
        self.sanitizer.barrier();
    }
    #[inline(always)]
    fn worst(&mut self, pc: usize) -> Option<&mut WorstPhase> {
        self.recorder.worst(pc)
    }
}

/// The sanitizers: registers checked at each issue, every access shadowed.
impl Instrument for Sanitizer {
    fn workgroup_begin(&mut self, linear: u64, group: [u32; 3], _waves: usize) {
        self.workgroup(linear as u32, group);
    }
    fn issue(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        self.registers(program, pc, wave, exec);
    }
    fn memory(&mut self, program: &Program, pc: usize, wave: usize, a: &Access<'_>) {
        Sanitizer::memory(self, program, pc, wave, a);
    }
    fn wave_barrier(&mut self, wave: usize, exec: u64) {
        Sanitizer::wave_barrier(self, wave, exec);
    }
    fn barrier(&mut self) {
        Sanitizer::barrier(self);
    }
}

/// A parallel launch's marks: the bytes of writable buffers each worker read
/// and wrote (global atomics never run in parallel, see `Plan::threads`).
impl Instrument for Marks {
    #[inline(always)]
    fn memory(&mut self, _program: &Program, _pc: usize, _wave: usize, a: &Access<'_>) {
        if let Some(b) = a.buffer {
            let store = matches!(a.kind, AccessKind::Store);
            self.record(b, store, a.exec, a.offs, a.size * a.count);
        }
    }
}

/// The recording for a launch to look at: each memory instruction's costliest
/// phase and one workgroup's issues.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    /// Per instruction (empty when worst phases are not asked for).
    pub(super) worsts: Vec<WorstPhase>,
    /// The workgroup whose issues are recorded.
    pub(super) traced: Option<u64>,
    /// Its trace, once it has started.
    pub(super) trace: Option<Trace>,
    /// Whether the running workgroup is the traced one.
    tracing: bool,
}

impl Recorder {
    /// A recorder for a launch of `insts` instructions.
    pub(super) fn new(worst_phases: bool, traced: Option<u64>, insts: usize) -> Self {
        Recorder {
            worsts: if worst_phases {
                vec![WorstPhase::default(); insts]
            } else {
                Vec::new()
            },
            traced,
            trace: None,
            tracing: false,
        }
    }

    /// Hands what was recorded to `stats`.
    pub(super) fn finish(self, stats: &mut Stats) {
        if !self.worsts.is_empty() {
            stats.worst_phases = self.worsts;
        }
        if self.trace.is_some() {
            stats.trace = self.trace;
        }
    }
}

impl Instrument for Recorder {
    fn workgroup_begin(&mut self, linear: u64, group: [u32; 3], waves: usize) {
        self.tracing = self.traced == Some(linear);
        if self.tracing {
            self.trace = Some(Trace {
                workgroup: group,
                waves: waves as u32,
                ..Trace::default()
            });
        }
    }
    fn issue(&mut self, _program: &Program, pc: usize, wave: usize, exec: u64) {
        if !self.tracing {
            return;
        }
        if let Some(t) = self.trace.as_mut() {
            if t.issues.len() < MAX_TRACE_ISSUES {
                t.issues.push(Issue {
                    wave: wave as u32,
                    pc: pc as u32,
                    exec,
                });
            } else {
                t.truncated = true;
            }
        }
    }
    fn worst(&mut self, pc: usize) -> Option<&mut WorstPhase> {
        self.worsts.get_mut(pc)
    }
}
