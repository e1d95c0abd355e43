//! A wave's state between runs: what it saves when it parks at a barrier or
//! uses its turn, and the values the whole wave shares.

use super::flow::Frame;

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
