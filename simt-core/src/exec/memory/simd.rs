//! AVX2 gathers for the scattered loads, eight lanes at a time: the compiler
//! does not turn the plain loops' indexed loads into gathers. Used only by
//! the AVX2 build of the interpreter (see `fast_path_available`), on a CPU
//! that reported AVX2.

use super::LDS_WORDS;
use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_min_epu32,
    _mm256_set1_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
};

/// [`Lds::gather_words`](super::Lds::gather_words): the word holding each
/// LDS byte offset.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn gather_words<const W: usize>(
    words: &[u32; LDS_WORDS],
    offs: &[u32; W],
    out: &mut [u32; W],
) {
    const { assert!(LDS_WORDS <= i32::MAX as usize) };
    let mask = _mm256_set1_epi32((LDS_WORDS - 1) as i32);
    for (o, d) in offs.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        // SAFETY: `o` and `d` hold eight `u32`s each; every index is masked
        // below `LDS_WORDS`, the length of `words` (and positive as an `i32`).
        unsafe {
            let v = _mm256_loadu_si256(o.as_ptr() as *const __m256i);
            let idx = _mm256_and_si256(_mm256_srli_epi32::<2>(v), mask);
            let g = _mm256_i32gather_epi32::<4>(words.as_ptr() as *const i32, idx);
            _mm256_storeu_si256(d.as_mut_ptr() as *mut __m256i, g);
        }
    }
}

/// The native-endian 32-bit word at each byte offset of `data`, an offset
/// past the last word reading the last word (as the plain loop clamps it):
/// the caller checked `4 <= data.len() <= i32::MAX`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn gather_bytes<const W: usize>(
    data: &[u8],
    offs: &[u32; W],
    out: &mut [u32; W],
) {
    let top = _mm256_set1_epi32((data.len() - 4) as i32);
    for (o, d) in offs.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        // SAFETY: `o` and `d` hold eight `u32`s each; every index is clamped
        // to `data.len() - 4`, so each read of four bytes is inside `data`, and
        // it is positive as an `i32` (`data.len() <= i32::MAX`).
        unsafe {
            let v = _mm256_loadu_si256(o.as_ptr() as *const __m256i);
            let idx = _mm256_min_epu32(v, top);
            let g = _mm256_i32gather_epi32::<1>(data.as_ptr() as *const i32, idx);
            _mm256_storeu_si256(d.as_mut_ptr() as *mut __m256i, g);
        }
    }
}

/// The native-endian 32-bit element at each element index of `data`, an
/// index past the last element reading the last element: the caller
/// checked `4 <= data.len() <= i32::MAX`, and that the CPU has AVX2.
/// Without a target feature of its own, so that it inlines into the
/// caller's loop: it is called from the AVX2 builds only (see
/// `fast_path_available`), whose intrinsics inline there.
#[inline(always)]
pub(super) unsafe fn gather_elements<const W: usize>(
    data: &[u8],
    idx: &[u32; W],
    out: &mut [u32; W],
) {
    const { assert!(W.is_multiple_of(8)) };
    // SAFETY (of each intrinsic): the caller's: the CPU has AVX2.
    let top = unsafe { _mm256_set1_epi32((data.len() / 4 - 1) as i32) };
    // Eight lanes at a time by index: a loop of plain offsets inlines
    // where an iterator adapter's set-up may not.
    for k in 0..W / 8 {
        // SAFETY: lanes `8 k..8 k + 8` are within both arrays (`W` is a
        // multiple of 8); every index is clamped to the last whole element,
        // so each read of four bytes at four times it is inside `data`,
        // and it is positive as an `i32`.
        unsafe {
            let v = _mm256_loadu_si256(idx.as_ptr().add(k * 8) as *const __m256i);
            let at = _mm256_min_epu32(v, top);
            let g = _mm256_i32gather_epi32::<4>(data.as_ptr() as *const i32, at);
            _mm256_storeu_si256(out.as_mut_ptr().add(k * 8) as *mut __m256i, g);
        }
    }
}
