//! simt: GPU kernels written inline in Rust, run by a SIMT interpreter that counts
//! divergence, LDS bank conflicts and global memory coalescing.

pub use simt_core as core;
pub use simt_macros::simt_kernel;

#[doc(hidden)]
pub mod __private {
    pub use simt_core::*;
    pub use std::borrow::Cow;
}
