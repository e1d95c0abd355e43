//! The workgroup's LDS, with the blocks of it that the running workgroup wrote.
//!
//! The LDS is zeroed at the start of every workgroup. Most workgroups write a
//! small part of the largest LDS a program may declare, often far apart
//! (strided tiles): zeroing only the blocks written since the last zeroing
//! costs a few stores per block where zeroing the program's whole LDS cost a
//! pass over every word, per workgroup.

use super::{each_lane, word_index, Shape, LDS_WORDS};

/// Words per block: one 64-byte cache line.
const BLOCK_WORDS: usize = 16;

/// Blocks in the LDS.
const BLOCKS: usize = LDS_WORDS / BLOCK_WORDS;

/// The LDS words and which blocks were written since they were last zeroed.
pub(crate) struct Lds {
    pub(crate) words: [u32; LDS_WORDS],
    /// Bit `b % 64` of `dirty[b / 64]`: block `b` may hold a non-zero word.
    dirty: [u64; BLOCKS.div_ceil(64)],
    /// Whether any block was marked since the last zeroing: a workgroup
    /// that writes no LDS (most kernels declare none) zeroes nothing,
    /// without a pass over the marks.
    marked: bool,
    /// Whether the CPU has AVX2 and the launch runs the AVX2 build (see
    /// `fast_path_available`), so that scattered loads use its gathers.
    pub(crate) avx2: bool,
}

impl Lds {
    /// A zeroed LDS.
    pub(crate) fn new() -> Box<Self> {
        Box::new(Lds {
            words: [0; LDS_WORDS],
            dirty: [0; BLOCKS.div_ceil(64)],
            marked: false,
            avx2: false,
        })
    }

    /// Marks the block of word `word`.
    #[inline(always)]
    fn mark(&mut self, word: usize) {
        let b = (word / BLOCK_WORDS) % BLOCKS;
        self.dirty[b / 64] |= 1 << (b % 64);
        self.marked = true;
    }

    /// Marks the words that the lanes of `exec` write at byte offsets `offs`
    /// (one word each); `shape` is the offsets' shape over every lane.
    #[inline(always)]
    pub(crate) fn written<const W: usize>(&mut self, exec: u64, offs: &[u32; W], shape: Shape) {
        if exec == 0 {
            return;
        }
        let (first, last) = (word_index(offs[0]), word_index(offs[W - 1]));
        match shape {
            Shape::Uniform => self.mark(first),
            Shape::Contiguous if first <= last => self.written_block(first, last),
            _ => each_lane(exec, |l| self.mark(word_index(offs[l]))),
        }
    }

    /// Marks the words `first..=last`.
    #[inline(always)]
    pub(crate) fn written_block(&mut self, first: usize, last: usize) {
        for b in first / BLOCK_WORDS..=last / BLOCK_WORDS {
            self.mark(b * BLOCK_WORDS);
        }
    }

    /// Marks the words `first + idx[l]` that the lanes of `exec` write,
    /// whose lowest and highest indices are `lo` and `hi`: the blocks from
    /// the lowest to the highest when they are no more than the lanes, else
    /// each lane's (a wide stride).
    #[inline(always)]
    pub(crate) fn written_at<const W: usize>(
        &mut self,
        first: usize,
        exec: u64,
        idx: &[u32; W],
        (lo, hi): (u32, u32),
    ) {
        if ((hi - lo) as usize) / BLOCK_WORDS < W {
            self.written_block(first + lo as usize, first + hi as usize);
        } else {
            each_lane(exec, |l| self.mark(first + idx[l] as usize));
        }
    }

    /// `out[l]` = the word holding byte offset `offs[l]`, for every lane.
    #[inline(always)]
    pub(crate) fn gather_words<const W: usize>(&self, offs: &[u32; W], out: &mut [u32; W]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only when the CPU reported AVX2.
            unsafe { super::simd::gather_words(&self.words, offs, out) };
            return;
        }
        for l in 0..W {
            out[l] = self.words[word_index(offs[l])];
        }
    }

    /// Zeroes every word written since the last call.
    pub(crate) fn zero(&mut self) {
        if !std::mem::take(&mut self.marked) {
            return;
        }
        for (i, bits) in self.dirty.iter_mut().enumerate() {
            let mut rest = std::mem::take(bits);
            while rest != 0 {
                let b = i * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if let Some(block) = self.words.get_mut(b * BLOCK_WORDS..(b + 1) * BLOCK_WORDS) {
                    block.fill(0);
                }
            }
        }
    }
}

impl std::fmt::Debug for Lds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lds({} words)", LDS_WORDS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lane `l`'s byte offset.
    type Placement = fn(usize) -> u32;

    /// Every word written in any shape is zero again after `zero`, and words
    /// never written stay zero throughout.
    #[test]
    fn zeroing_clears_every_written_word() {
        let mut lds = Lds::new();
        let mut offs = [0u32; 32];
        // A block of 32 words from byte 4 * 1000, a broadcast, scattered lanes
        // at a stride of 33 words, and sub-word bytes.
        let cases: [(Shape, Placement); 4] = [
            (Shape::Contiguous, |l| 4 * (1000 + l as u32)),
            (Shape::Uniform, |_| 4 * 5000),
            (Shape::Scattered, |l| 4 * 33 * l as u32),
            (Shape::Scattered, |l| 7 * l as u32 + 40_001),
        ];
        for (shape, at) in cases {
            for (l, o) in offs.iter_mut().enumerate() {
                *o = at(l);
            }
            let exec = u32::MAX as u64;
            lds.written::<32>(exec, &offs, shape);
            for &o in &offs {
                lds.words[word_index(o)] = 0xdead_beef;
            }
            lds.zero();
            assert!(lds.words.iter().all(|&w| w == 0), "{shape:?}");
        }
    }

    /// The AVX2 gather reads the word each offset names, as the plain loop
    /// does, wherever the offsets point (high bits are masked off).
    #[test]
    fn gathers_read_the_words_the_offsets_name() {
        let mut lds = Lds::new();
        for (i, w) in lds.words.iter_mut().enumerate() {
            *w = (i as u32).wrapping_mul(2_654_435_761);
        }
        let offs: [u32; 64] = std::array::from_fn(|l| (l as u32 * 4099 * 4) ^ 0xffff_0003);
        let expected: [u32; 64] = std::array::from_fn(|l| lds.words[word_index(offs[l])]);
        let mut plain = [0; 64];
        lds.gather_words(&offs, &mut plain);
        assert_eq!(plain, expected);
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            lds.avx2 = true;
            let mut fast = [0; 64];
            lds.gather_words(&offs, &mut fast);
            assert_eq!(fast, expected);
        }
    }
}
