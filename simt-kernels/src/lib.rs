//! The reference kernels of simt.
