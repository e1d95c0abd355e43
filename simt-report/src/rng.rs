//! A tiny deterministic generator for kernel inputs.
//!
//! The same seed gives the same inputs on every platform and in every version of
//! this crate, which the determinism tests and the published figures rely on; so it
//! is written out here rather than taken from a crate whose streams may change.

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by a constant
/// and mixed by two multiply-xorshift rounds. Fast, and every seed is usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next 32 random bits (the high half of [`next_u64`](Self::next_u64)).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A uniform integer in `lo..=hi` (`lo <= hi`).
    pub fn i32_in(&mut self, lo: i32, hi: i32) -> i32 {
        let span = (i64::from(hi) - i64::from(lo) + 1) as u64;
        // Multiply-shift maps 64 random bits onto the span with a bias below 2^-32.
        let offset = ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as i64;
        (i64::from(lo) + offset) as i32
    }

    /// A uniform `f32` in `lo..hi`, on a grid of 2^24 steps, so every value is exact.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
        lo + unit * (hi - lo)
    }

    /// `len` integers in `lo..=hi`.
    pub fn i32_vec(&mut self, len: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..len).map(|_| self.i32_in(lo, hi)).collect()
    }

    /// `len` floats in `lo..hi`.
    pub fn f32_vec(&mut self, len: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..len).map(|_| self.f32_in(lo, hi)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_splitmix64_stream() {
        // The first outputs for seed 0 of the reference implementation (Vigna's splitmix64.c).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn ranges_are_respected_and_reach_both_ends() {
        let mut rng = SplitMix64::new(7);
        let v = rng.i32_vec(10_000, -3, 3);
        assert!(v.iter().all(|x| (-3..=3).contains(x)));
        assert!(v.contains(&-3) && v.contains(&3));
        let f = rng.f32_vec(10_000, -1.0, 1.0);
        assert!(f.iter().all(|x| (-1.0..1.0).contains(x)));
        let extreme = rng.i32_vec(1000, i32::MIN, i32::MAX);
        assert!(extreme.iter().any(|&x| x < 0) && extreme.iter().any(|&x| x > 0));
    }

    #[test]
    fn same_seed_same_stream_other_seed_other_stream() {
        let a: Vec<u64> = {
            let mut r = SplitMix64::new(42);
            (0..8).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = SplitMix64::new(42);
            (0..8).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = SplitMix64::new(43);
            (0..8).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
