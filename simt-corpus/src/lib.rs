//! Generated kernels compiled through `simt_kernel!`, each with its native
//! runner: the corpus on which `simt-front`'s tests prove that a kernel runs
//! the same natively, on the interpreter and on `simt-oracle`.
//!
//! `kernels.rs` is written by the generator of `simt-front`'s tests (its
//! module `corpus`), which fails when the file differs from what it
//! generates; `SIMT_CORPUS=overwrite cargo test -p simt-front --test front
//! corpus` writes it again.
//!
//! The kernels are compiled only with the feature `kernels` (`simt-front`'s
//! feature `corpus` turns it on); without it [`CORPUS`] is empty.

#[cfg(feature = "kernels")]
mod kernels;

#[cfg(feature = "kernels")]
pub use kernels::CORPUS;

/// The kernels, `c0` first: none without the feature `kernels`.
#[cfg(not(feature = "kernels"))]
pub static CORPUS: &[&simt::core::Kernel] = &[];
