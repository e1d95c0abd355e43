//! The machine's fixed limits, checked by the validator and at launch.

/// Vector registers per lane (`v0..v255`).
pub const MAX_VREGS: u16 = 256;
/// Scalar registers per wave (`s0..s127`).
pub const MAX_SREGS: u16 = 128;
/// Mask registers per wave (`m0..m31`).
pub const MAX_MREGS: u16 = 32;
/// LDS bytes per workgroup: the most any part allows (an H100 or H200
/// block's 227 KiB of shared memory); a timed launch refuses a kernel whose
/// LDS its part does not allow.
pub const MAX_LDS_BYTES: u32 = 227 * 1024;
/// Kernel parameters.
pub const MAX_PARAMS: u16 = 64;
/// Work-items per workgroup.
pub const MAX_WORKGROUP_SIZE: u32 = 1024;
/// Nesting depth of `if` and `loop` constructs.
pub const MAX_NESTING: u32 = 64;
/// The instruction budget of a launch unless the launch sets its own: far above
/// every shipped kernel, low enough that a runaway loop stops within seconds.
pub const DEFAULT_INSTRUCTION_BUDGET: u64 = 1 << 28;
/// The `print` lines a launch keeps: the first ones in print order (see
/// `simt_core::Prints`); the rest are counted, not kept.
pub const MAX_PRINT_LINES: usize = 1024;
