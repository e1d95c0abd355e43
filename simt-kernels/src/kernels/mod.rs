//! The kernels, one file per family. Each file holds the kernels (written with
//! [`simt_kernel!`](simt::simt_kernel)), their scalar oracles in a module `oracle`,
//! and their registry entries.
//!
//! Every kernel becomes a module of the same name with its `PROGRAM` and a typed
//! `launch` function; they are re-exported here, so `kernels::saxpy_f32::launch`
//! launches saxpy.

pub mod branch;
pub mod elementwise;
pub mod lds;
pub mod matmul;
pub mod reduce;

pub use branch::divergent_collatz_i32;
pub use elementwise::{copy_coalesced_f32, copy_strided_f32, saxpy_f32, vecadd_f32, vecadd_i32};
pub use lds::lds_conflict_heavy_i32;
pub use matmul::{matmul_naive_f32, matmul_tiled_f32};
pub use reduce::{reduce_f32, reduce_i32};

/// Elements of the 1-D kernels.
pub const N: usize = 4096;
/// Work-items per workgroup, for every kernel.
pub const GROUP_SIZE: u32 = 256;
/// Workgroups of the 1-D kernels (`N / GROUP_SIZE`).
pub const GROUPS: u32 = (N as u32) / GROUP_SIZE;
/// Rows (and columns) of the square matrices of the matmul kernels.
pub const MATRIX: usize = 64;
/// Side of the tiles of `matmul_tiled_f32`; the matrices' side must be a multiple of it.
pub const TILE: usize = 16;
/// Element stride of `copy_strided_f32`: 16 words, one per 64-byte line.
pub const COPY_STRIDE: usize = 16;
