//! Launch configuration and host arguments.

use crate::ir::{ElemType, ParamKind, ScalarType};
use crate::limits::DEFAULT_INSTRUCTION_BUDGET;
use crate::model::MemoryModel;
use crate::Element;
use serde::Serialize;

/// A 3-D size or id; unused dimensions are 1 (sizes) or 0 (ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Dim3 {
    /// Fastest-varying dimension.
    pub x: u32,
    /// Middle dimension.
    pub y: u32,
    /// Slowest-varying dimension.
    pub z: u32,
}

impl Dim3 {
    /// A size or id from its three dimensions.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// The number of points, `x * y * z` (saturating).
    pub const fn count(self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }

    /// The number of points, `x * y * z`, when it fits in a `u64`.
    pub const fn checked_count(self) -> Option<u64> {
        (self.x as u64 * self.y as u64).checked_mul(self.z as u64)
    }

    /// The dimensions as an array.
    pub const fn to_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}

impl From<[u32; 2]> for Dim3 {
    fn from([x, y]: [u32; 2]) -> Self {
        Dim3::new(x, y, 1)
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from([x, y, z]: [u32; 3]) -> Self {
        Dim3::new(x, y, z)
    }
}

/// How to launch a kernel: grid and workgroup shape, wave width, memory model and
/// instruction budget.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaunchConfig {
    /// Number of workgroups along each axis.
    pub grid: Dim3,
    /// Work-items per workgroup along each axis.
    pub workgroup: Dim3,
    /// Lanes per wave: 32 or 64.
    pub wave_width: u32,
    /// The geometry the memory counters use.
    pub model: MemoryModel,
    /// The most instructions the launch may issue, over all waves, before it faults.
    pub instruction_budget: u64,
    /// How the waves of a workgroup take turns.
    pub schedule: Schedule,
    /// Whether the sanitizers run: races, uninitialised reads (see
    /// [`Findings`](crate::Findings)). Off by default.
    pub sanitize: bool,
    /// How the race check orders the lanes of one wave ([`LaneOrder::Lockstep`]
    /// by default); it changes nothing else.
    pub lane_order: LaneOrder,
    /// The schedule check: when set, the launch runs a second time with the
    /// workgroups, and the waves of each workgroup between barriers, in this
    /// other order, and reports every output byte that differs as a
    /// [`FindingKind::ScheduleDependent`](crate::FindingKind::ScheduleDependent)
    /// finding. The buffers keep the results of the normal order.
    pub schedule_check: Option<Order>,
    /// The workgroup (numbered x fastest) whose issues the launch records in
    /// [`Stats::trace`](crate::Stats::trace); none by default, and recording
    /// costs nothing then.
    pub trace_workgroup: Option<u64>,
    /// Whether each memory instruction records its costliest phase in
    /// [`Stats::worst_phases`](crate::Stats::worst_phases), for the listing's
    /// hints and the report's pictures; off by default, and free then.
    pub worst_phases: bool,
    /// How many threads run the workgroups ([`Threads::Auto`] by default).
    /// Outputs and every statistic are the same for every thread count.
    pub threads: Threads,
    /// What runs the waves ([`Engine::Native`] by default). Outputs and every
    /// statistic are the same on both.
    pub engine: Engine,
    /// The part whose time the launch estimates ([`Stats::timing`](crate::Stats::timing)),
    /// if any; see [`LaunchConfig::timing`].
    pub timing: Option<crate::Part>,
}

/// What runs a launch's waves.
///
/// Outputs, every counter, findings and faults are the same on both; only
/// the speed differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Engine {
    /// The kernel's native runner, the code `simt_kernel!` wrote for it, where
    /// it has one and the launch can use it: a plain launch (no sanitizers,
    /// trace or worst phases) under [`Schedule::UntilBarrier`] on a CPU with
    /// AVX2, FMA, BMI1/2, LZCNT and POPCNT, where the kernel's crate was
    /// built with debug assertions off (release builds; see the book's
    /// `docs/src/performance/native-runners.md`). Anything else runs on the interpreter.
    #[default]
    Native,
    /// The interpreter, always: how kernels given as text run.
    Interpreter,
}

/// How many threads a launch runs its workgroups on.
///
/// Whatever the count, a launch's outputs and statistics are those of one
/// thread running the workgroups in order: each worker runs its own workgroups
/// in order on private copies of the writable buffers, recording which bytes
/// it read and wrote; the copies are merged by the bytes each worker wrote, the
/// statistics are summed (DRAM first touches are decided in workgroup order),
/// and when two workers touched one byte and at least one wrote it (a race
/// between workgroups), or a worker faulted, the launch runs again on one
/// thread from the original inputs. A launch with the sanitizers, the schedule
/// check, a trace or the worst phases, or with global atomics (whose returned
/// values depend on the order of workgroups), runs on one thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Threads {
    /// As many workers as rayon's global pool has threads (the machine's cores
    /// by default) when the launch is large enough to gain from them, judged
    /// from the instructions its first workgroup issued; one otherwise.
    #[default]
    Auto,
    /// Exactly this many workers (1: the calling thread alone). Workers are
    /// rayon tasks: more workers than cores is allowed and gives the same
    /// results.
    Count(usize),
}

/// An order to run workgroups and waves in, for the schedule check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Order {
    /// Workgroups and waves in their normal order (x fastest; wave 0 first).
    Normal,
    /// Both reversed.
    Reversed,
    /// Both shuffled from a seed: a permutation of the indices that the same
    /// seed gives on every machine.
    Shuffled(u64),
}

impl Order {
    /// The index that runs `i`-th of `0..n` in this order (`i < n`).
    ///
    /// Computed per index, so that a launch streams its workgroups however
    /// many there are: the shuffle is a keyed Feistel permutation of the
    /// smallest power-of-4 range that holds `n`, walked until it lands below
    /// `n` (fewer than four steps on average); a bijection of that range
    /// restricted this way is a bijection of `0..n`.
    pub fn at(self, i: u64, n: u64) -> u64 {
        match self {
            Order::Normal => i,
            Order::Reversed => n.saturating_sub(1).saturating_sub(i),
            Order::Shuffled(_) if n <= 1 => 0,
            Order::Shuffled(seed) => {
                let bits = u64::BITS - (n - 1).leading_zeros();
                let half = bits.div_ceil(2);
                // Past the range the walk need not end: hold it in.
                let mut x = i.min(n - 1);
                loop {
                    x = feistel(seed, half, x);
                    if x < n {
                        return x;
                    }
                }
            }
        }
    }

    /// The indices `0..n` in this order, for small `n` (a workgroup's waves).
    pub fn of(self, n: usize) -> Vec<usize> {
        (0..n as u64)
            .map(|i| self.at(i, n as u64) as usize)
            .collect()
    }
}

/// Rounds of [`feistel`]: four make a keyed permutation that looks random
/// (Luby-Rackoff); two more cost little.
const FEISTEL_ROUNDS: u64 = 6;

/// A bijection of `0..4^half` keyed by `seed` (`1 <= half <= 32`): a balanced
/// Feistel network on the two `half`-bit halves of `x`.
fn feistel(seed: u64, half: u32, x: u64) -> u64 {
    let mask = (1u64 << half) - 1;
    let (mut left, mut right) = (x >> half, x & mask);
    for round in 0..FEISTEL_ROUNDS {
        let key = splitmix64(seed.wrapping_add(round.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        let f = splitmix64(right ^ key) & mask;
        (left, right) = (right, left ^ f);
    }
    (left << half) | right
}

/// SplitMix64's output function: a well-mixed 64-bit hash of `z`.
fn splitmix64(z: u64) -> u64 {
    let z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How the race check orders the lanes of one wave. The interpreter runs them
/// in lockstep either way; this decides only which accesses the sanitizers
/// take to be ordered (and which `#[race_free]` proofs a launch may rely on).
pub use simt_lang::facts::LaneOrder;

/// How the waves of a workgroup take turns between barriers.
///
/// Race-free kernels give identical outputs and identical counters under both,
/// except the L1 figures: the order of accesses decides what is resident.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Schedule {
    /// Each wave runs until it parks at a barrier or ends, then the next.
    #[default]
    UntilBarrier,
    /// The waves issue one instruction each in turn, as a GPU's scheduler
    /// interleaves them.
    RoundRobin,
}

impl LaunchConfig {
    /// A wave32 launch of `grid` workgroups of `workgroup` work-items under the
    /// reference memory model.
    pub fn new(grid: impl Into<Dim3>, workgroup: impl Into<Dim3>) -> Self {
        LaunchConfig {
            grid: grid.into(),
            workgroup: workgroup.into(),
            wave_width: 32,
            model: MemoryModel::reference(),
            instruction_budget: DEFAULT_INSTRUCTION_BUDGET,
            schedule: Schedule::UntilBarrier,
            sanitize: false,
            lane_order: LaneOrder::Lockstep,
            schedule_check: None,
            trace_workgroup: None,
            worst_phases: false,
            threads: Threads::Auto,
            engine: Engine::Native,
            timing: None,
        }
    }

    /// Chooses what runs the waves; see [`Engine`].
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        self
    }

    /// Runs the workgroups on exactly `n` workers (at least 1); see [`Threads`].
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = Threads::Count(n.max(1));
        self
    }

    /// Sets the wave width (32 or 64).
    pub fn wave_width(mut self, width: u32) -> Self {
        self.wave_width = width;
        self
    }

    /// Sets the memory model.
    pub fn model(mut self, model: MemoryModel) -> Self {
        self.model = model;
        self
    }

    /// Sets how the waves of a workgroup take turns.
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// Turns the sanitizers on or off.
    pub fn sanitize(mut self, on: bool) -> Self {
        self.sanitize = on;
        self
    }

    /// Turns the sanitizers on with the lanes of a wave ordered as `order`
    /// says: [`LaneOrder::Independent`] also reports the races between lanes
    /// of one wave that lockstep hides.
    pub fn sanitize_lanes(mut self, order: LaneOrder) -> Self {
        self.sanitize = true;
        self.lane_order = order;
        self
    }

    /// Turns the schedule check on (`Some(order)`) or off.
    pub fn schedule_check(mut self, order: Option<Order>) -> Self {
        self.schedule_check = order;
        self
    }

    /// Records the costliest phase of each memory instruction
    /// ([`Stats::worst_phases`](crate::Stats::worst_phases)): what
    /// [`Stats::listing`](crate::Stats::listing) needs to explain a bank
    /// conflict or a scattered access by its stride. Such a launch runs the
    /// interpreter's plain build, a little slower; its counters are the same.
    pub fn record_worst_phases(mut self) -> Self {
        self.worst_phases = true;
        self
    }

    /// Records every issue of workgroup `index` (numbered x fastest, then y,
    /// then z): each wave's program counter and exec mask, in issue order. Such
    /// a launch runs the interpreter's plain build, a little slower; its
    /// counters are the same.
    pub fn trace_workgroup(mut self, index: u64) -> Self {
        self.trace_workgroup = Some(index);
        self
    }

    /// Estimates the launch's time on `part` ([`Stats::timing`](crate::Stats::timing)):
    /// cycles, the limiter, each resource's share of its peak, the achieved
    /// occupancy and where the waves waited, per instruction. Sets the
    /// memory model to the part's, since the counters decide which level
    /// serves each access; a launch whose model differs is refused. Such a
    /// launch runs on one thread of the interpreter, records each wave's
    /// issues, and replays them on the part after the run.
    pub fn timing(mut self, part: crate::Part) -> Self {
        self.model = part.memory.clone();
        self.timing = Some(part);
        self
    }

    /// Sets the instruction budget.
    pub fn instruction_budget(mut self, budget: u64) -> Self {
        self.instruction_budget = budget;
        self
    }
}

/// One host argument of a launch, matched against the kernel's parameter of the same
/// position.
#[derive(Debug)]
pub enum Arg<'a> {
    /// A read-only buffer (`&[T]`).
    Buffer {
        /// The element type.
        elem: ElemType,
        /// The buffer's bytes.
        bytes: &'a [u8],
    },
    /// A writable buffer (`&mut [T]`); the launch writes its results here.
    BufferMut {
        /// The element type.
        elem: ElemType,
        /// The buffer's bytes.
        bytes: &'a mut [u8],
    },
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// An `f32` scalar.
    F32(f32),
}

impl<'a> Arg<'a> {
    /// A read-only buffer argument.
    pub fn buffer<T: Element>(data: &'a [T]) -> Self {
        Arg::Buffer {
            elem: T::TYPE,
            bytes: bytemuck::cast_slice(data),
        }
    }

    /// A writable buffer argument.
    pub fn buffer_mut<T: Element>(data: &'a mut [T]) -> Self {
        Arg::BufferMut {
            elem: T::TYPE,
            bytes: bytemuck::cast_slice_mut(data),
        }
    }

    /// The kind of parameter the argument fits.
    pub fn kind(&self) -> ParamKind {
        match *self {
            Arg::Buffer { elem, .. } => ParamKind::Buffer {
                elem,
                writable: false,
            },
            Arg::BufferMut { elem, .. } => ParamKind::Buffer {
                elem,
                writable: true,
            },
            Arg::U32(_) => ParamKind::Scalar(ScalarType::U32),
            Arg::I32(_) => ParamKind::Scalar(ScalarType::I32),
            Arg::F32(_) => ParamKind::Scalar(ScalarType::F32),
        }
    }

    /// How the argument is described in errors (`&[f32]`, `&mut [u32]`, `u32`, ...).
    pub fn describe(&self) -> String {
        self.kind().rust_type()
    }
}

/// An argument that owns its buffer: what a program that makes a launch's
/// arguments at run time (the `simt` command, the Python package) keeps, and
/// lends to the launch as an [`Arg`].
///
/// ```
/// use simt_core::{ElemType, LaunchConfig, OwnedArg};
///
/// let kernel = simt_front::compile(
///     "kernel scale(x: &mut [f32], a: f32) {
///         vreg v;
///         global_load  v, x[global_id]
///         v_mul_f32    v, v, a
///         global_store x[global_id], v
///     }",
/// )
/// .unwrap();
/// let mut args = vec![
///     OwnedArg::Buffer {
///         elem: ElemType::F32,
///         writable: true,
///         bytes: 1.5f32.to_le_bytes().repeat(64),
///     },
///     OwnedArg::F32(2.0),
/// ];
/// let config = LaunchConfig::new(2, 32);
/// simt_core::launch(&kernel, &config, &mut OwnedArg::lend(&mut args)).unwrap();
/// let OwnedArg::Buffer { bytes, .. } = &args[0] else {
///     unreachable!()
/// };
/// assert_eq!(bytes[252..], 3.0f32.to_le_bytes());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum OwnedArg {
    /// A buffer's elements, as bytes (little-endian).
    Buffer {
        /// The element type.
        elem: ElemType,
        /// Whether the kernel may write it (`&mut`).
        writable: bool,
        /// The elements.
        bytes: Vec<u8>,
    },
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// An `f32` scalar.
    F32(f32),
}

impl OwnedArg {
    /// The argument, borrowed: a writable buffer lends its bytes mutably.
    pub fn arg(&mut self) -> Arg<'_> {
        match self {
            OwnedArg::Buffer {
                elem,
                writable: false,
                bytes,
            } => Arg::Buffer { elem: *elem, bytes },
            OwnedArg::Buffer {
                elem,
                writable: true,
                bytes,
            } => Arg::BufferMut { elem: *elem, bytes },
            OwnedArg::U32(v) => Arg::U32(*v),
            OwnedArg::I32(v) => Arg::I32(*v),
            OwnedArg::F32(v) => Arg::F32(*v),
        }
    }

    /// A launch's arguments, borrowed from `args`.
    pub fn lend(args: &mut [OwnedArg]) -> Vec<Arg<'_>> {
        args.iter_mut().map(OwnedArg::arg).collect()
    }
}

impl From<u32> for Arg<'_> {
    fn from(v: u32) -> Self {
        Arg::U32(v)
    }
}

impl From<i32> for Arg<'_> {
    fn from(v: i32) -> Self {
        Arg::I32(v)
    }
}

impl From<f32> for Arg<'_> {
    fn from(v: f32) -> Self {
        Arg::F32(v)
    }
}

impl<'a, T: Element> From<&'a [T]> for Arg<'a> {
    fn from(v: &'a [T]) -> Self {
        Arg::buffer(v)
    }
}

impl<'a, T: Element> From<&'a mut [T]> for Arg<'a> {
    fn from(v: &'a mut [T]) -> Self {
        Arg::buffer_mut(v)
    }
}
