//! Run-time errors: bad launches and faults.

use crate::ir::SourceLoc;
use crate::launch::LaneOrder;
use crate::ValidationErrors;
use thiserror::Error;

/// Everything [`launch`](crate::launch) can return instead of statistics.
#[derive(Debug, Error)]
pub enum Error {
    /// The launch was refused before any instruction ran.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The program did not pass validation.
    #[error(transparent)]
    Invalid(#[from] ValidationErrors),
    /// A wave faulted while running.
    #[error(transparent)]
    Fault(#[from] Box<Fault>),
}

/// A launch refused before it started.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("bad launch of `{kernel}`: {kind}")]
pub struct LaunchError {
    /// The kernel's name.
    pub kernel: String,
    /// What is wrong.
    pub kind: LaunchErrorKind,
}

/// What is wrong with a launch.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum LaunchErrorKind {
    /// The wave width is not 32 or 64.
    #[error("wave width must be 32 or 64, not {0}")]
    WaveWidth(u32),
    /// A grid or workgroup dimension is zero.
    #[error("{what} has a zero dimension: {x}x{y}x{z}")]
    ZeroSize {
        /// `grid` or `workgroup`.
        what: &'static str,
        /// Size along x.
        x: u32,
        /// Size along y.
        y: u32,
        /// Size along z.
        z: u32,
    },
    /// The workgroup has more work-items than the machine allows.
    #[error("workgroup of {size} work-items exceeds the limit of {limit}")]
    WorkgroupTooLarge {
        /// Work-items requested.
        size: u64,
        /// The limit.
        limit: u32,
    },
    /// A global id along some axis would not fit in 32 bits.
    #[error("grid of {groups} workgroups of {size} along {axis} exceeds 32-bit global ids")]
    GridTooLarge {
        /// The axis (`x`, `y` or `z`).
        axis: char,
        /// Workgroups along it.
        groups: u32,
        /// Workgroup size along it.
        size: u32,
    },
    /// The grid has more workgroups than a launch numbers (`2^64 - 1`, the
    /// most a `u64` such as [`Stats::workgroups`](crate::Stats::workgroups)
    /// or [`LaunchConfig::trace_workgroup`](crate::LaunchConfig::trace_workgroup)
    /// holds). Every workgroup issues at least one instruction, so such a
    /// launch could never finish within an instruction budget anyway.
    #[error(
        "grid of {x}x{y}x{z} workgroups has more than 2^64 - 1 workgroups, the most a launch \
         can run; launch fewer workgroups (for example, split the grid along z over several launches)"
    )]
    TooManyWorkgroups {
        /// Workgroups along x.
        x: u32,
        /// Workgroups along y.
        y: u32,
        /// Workgroups along z.
        z: u32,
    },
    /// The memory model's geometry is invalid.
    #[error("memory model `{name}`: {reason}")]
    Model {
        /// The model's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The part of a timed launch is invalid, or the launch's memory model is
    /// not the part's.
    #[error("part `{name}`: {reason}")]
    Part {
        /// The part's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The kernel declares its workgroup shape (`#[workgroup_size(..)]`) and
    /// the launch asks for another: the kernel's facts were proved for the
    /// declared one only.
    #[error(
        "the kernel declares #[workgroup_size({}, {}, {})] but the launch has workgroups of {}x{}x{}; launch with the declared shape or change the attribute",
        declared[0], declared[1], declared[2], launched[0], launched[1], launched[2]
    )]
    WorkgroupShape {
        /// The shape the kernel declares.
        declared: [u32; 3],
        /// The launch's workgroup shape.
        launched: [u32; 3],
    },
    /// The kernel states `#[race_free]`, which the build proved under an
    /// assumption about the launch that this launch breaks.
    #[error(
        "the kernel states #[race_free], proved {assumption}; this launch has a grid of {}x{}x{} workgroups of {}x{}x{}{}",
        grid[0], grid[1], grid[2], shape[0], shape[1], shape[2],
        match lanes { LaneOrder::Lockstep => "", LaneOrder::Independent => " with independent lanes" }
    )]
    RaceFreeAssumption {
        /// What the proof assumed ("for one-dimensional grids").
        assumption: String,
        /// The launch's grid.
        grid: [u32; 3],
        /// The launch's workgroup shape.
        shape: [u32; 3],
        /// The launch's lane order.
        lanes: LaneOrder,
    },
    /// The number of arguments differs from the number of parameters.
    #[error("expected {expected} arguments, got {got}")]
    ArgCount {
        /// Parameters declared.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
    /// An argument does not match its parameter.
    #[error("argument {index} (`{name}`) must be {expected}, got {got}")]
    ArgType {
        /// 0-based position.
        index: usize,
        /// The parameter's name.
        name: String,
        /// The declared type (`&[f32]`, `&mut [u32]`, `u32`, ...).
        expected: String,
        /// The argument's type.
        got: String,
    },
    /// An argument given by name ([`Args`](crate::Args)) names no parameter.
    #[error("no parameter is named `{name}`; the kernel's parameters are {}", params.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "))]
    UnknownArg {
        /// The name given.
        name: String,
        /// The kernel's parameters, in order.
        params: Vec<String>,
    },
    /// Two arguments given by name name one parameter.
    #[error("argument {index} (`{name}`) is given twice")]
    ArgTwice {
        /// 0-based position of the parameter.
        index: usize,
        /// The parameter's name.
        name: String,
    },
    /// A parameter has no argument among those given by name.
    #[error("argument {index} (`{name}`) is missing")]
    ArgMissing {
        /// 0-based position of the parameter.
        index: usize,
        /// The parameter's name.
        name: String,
    },
    /// A buffer's length is not a multiple of its element size, or buffers do not fit
    /// in the 32-bit global address space.
    #[error("argument {index} (`{name}`): {reason}")]
    Buffer {
        /// 0-based position.
        index: usize,
        /// The parameter's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

/// A fault: where it happened and what went wrong.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("{kind} in kernel `{kernel}` at {}, {}", self.place(), self.work_item())]
pub struct Fault {
    /// The kernel's name.
    pub kernel: String,
    /// The source file of the kernel.
    pub file: String,
    /// Index of the faulting instruction.
    pub inst: u32,
    /// Its source location.
    pub loc: SourceLoc,
    /// The workgroup's id.
    pub workgroup: [u32; 3],
    /// The wave's index within its workgroup.
    pub wave: u32,
    /// The first faulting lane, where one lane is at fault.
    pub lane: Option<u32>,
    /// The faulting byte address (global) or byte offset (LDS), where there is one.
    pub address: Option<u64>,
    /// What went wrong.
    pub kind: FaultKind,
}

impl Fault {
    /// Where in the source it faulted: `file:line:column`, or, for a program
    /// built without source locations, the instruction's index.
    pub fn place(&self) -> String {
        if self.loc.line == 0 {
            format!("instruction {} of {}", self.inst, self.file)
        } else {
            format!("{}:{}:{}", self.file, self.loc.line, self.loc.column)
        }
    }

    /// Who faulted: `workgroup (x, y, z), wave w, lane l, address a`.
    pub fn work_item(&self) -> String {
        let [x, y, z] = self.workgroup;
        format!(
            "workgroup ({x}, {y}, {z}), wave {}{}{}",
            self.wave,
            self.lane.map(|l| format!(", lane {l}")).unwrap_or_default(),
            self.address
                .map(|a| format!(", address {a:#x}"))
                .unwrap_or_default()
        )
    }
}

/// What went wrong in a [`Fault`].
#[derive(Clone, Debug, PartialEq, Error)]
pub enum FaultKind {
    /// A global access outside its buffer.
    #[error("out-of-bounds {access} of {size} bytes at index {index} (byte offset {offset}) of buffer `{buffer}` ({len} bytes)")]
    GlobalOutOfBounds {
        /// `load`, `store` or `atomic`.
        access: &'static str,
        /// The buffer parameter's name.
        buffer: String,
        /// The index as the kernel computed it (with its offset), in elements or
        /// bytes as the operand addresses; an index of 2^31 and above reads as
        /// negative.
        index: i64,
        /// Byte offset within the buffer.
        offset: i64,
        /// Access size in bytes.
        size: u32,
        /// The buffer's length in bytes.
        len: u64,
    },
    /// A global access not aligned to its size.
    #[error("misaligned {access} of {size} bytes at offset {offset} of buffer `{buffer}`")]
    GlobalMisaligned {
        /// `load`, `store` or `atomic`.
        access: &'static str,
        /// The buffer parameter's name.
        buffer: String,
        /// Byte offset within the buffer.
        offset: i64,
        /// Access size in bytes.
        size: u32,
    },
    /// An LDS access outside its array.
    #[error(
        "out-of-bounds LDS {access} of {size} bytes at index {index} (byte offset {offset}) of `{array}` ({len} bytes)"
    )]
    LdsOutOfBounds {
        /// `load`, `store` or `atomic`.
        access: &'static str,
        /// The LDS array's name.
        array: String,
        /// The index as the kernel computed it (with its offset), in elements or
        /// bytes as the operand addresses; an index of 2^31 and above reads as
        /// negative.
        index: i64,
        /// Byte offset within the array.
        offset: i64,
        /// Access size in bytes.
        size: u32,
        /// The array's length in bytes.
        len: u64,
    },
    /// An LDS access not aligned to its size.
    #[error("misaligned LDS {access} of {size} bytes at offset {offset} of `{array}`")]
    LdsMisaligned {
        /// `load`, `store` or `atomic`.
        access: &'static str,
        /// The LDS array's name.
        array: String,
        /// Byte offset within the array.
        offset: i64,
        /// Access size in bytes.
        size: u32,
    },
    /// A barrier reached while some of the wave's lanes were inactive.
    #[error("barrier reached with a partial exec mask {exec:#x} (launch mask {launch:#x})")]
    BarrierPartialMask {
        /// The exec mask at the barrier.
        exec: u64,
        /// The wave's launch mask.
        launch: u64,
    },
    /// A barrier that can never release: a wave ended while other waves of its
    /// workgroup wait at a barrier, or a wave reached a barrier after another wave
    /// of its workgroup had ended. The fault names the wave that ended or parked last.
    #[error("barrier can never release: {waiting} wave(s) wait at it while another wave of the workgroup has ended")]
    BarrierStranded {
        /// How many waves wait at the barrier.
        waiting: u32,
    },
    /// The launch issued more instructions than its budget.
    #[error("instruction budget of {budget} exceeded (a runaway loop?)")]
    BudgetExceeded {
        /// The budget.
        budget: u64,
    },
}
