//! A deliberately bad LDS pattern: every lane of a phase in bank 0.

use super::{GROUPS, GROUP_SIZE, N};
use crate::registry::{Case, KernelSpec, Workload};
use crate::rng::SplitMix64;

simt::simt_kernel! {
    /// Each work-item stores `global_id * scale + offset` to LDS word `lane * 32`
    /// of its own wave's region (`wave_id * wave_width * 32` words in), reads it
    /// back, and stores it to `out[global_id]`. Words 32 apart share a bank, so the
    /// 32 lanes of a phase ask bank 0 for 32 different words: 31 conflict cycles per
    /// phase. No two waves touch the same word. Workgroups of at most 256.
    pub kernel lds_conflict_heavy_i32(out: &mut [i32], scale: i32, offset: i32) {
        lds scratch: [i32; 8192];
        vreg word, value;
        sreg region;
        s_mul_u32 region, wave_id, wave_width
        s_shl     region, region, 5
        v_shl     word, lane_id, 5
        v_add_u32 word, word, region
        v_mad_i32 value, global_id.x, scale, offset
        lds_store scratch[word], value
        lds_load  value, scratch[word]
        global_store out[global_id.x], value
    }
}

/// The scalar oracle.
pub mod oracle {
    /// `i * scale + offset` (wrapping) for `i < n`.
    pub fn lds_conflict_heavy_i32(n: usize, scale: i32, offset: i32) -> Vec<i32> {
        (0..n)
            .map(|i| (i as i32).wrapping_mul(scale).wrapping_add(offset))
            .collect()
    }
}

struct Affine {
    scale: i32,
    offset: i32,
}

fn prepare(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let scale = rng.i32_in(-1000, 1000);
    let offset = rng.i32_in(-1_000_000, 1_000_000);
    let expected = oracle::lds_conflict_heavy_i32(N, scale, offset);
    Case::boxed(
        Affine { scale, offset },
        vec![0; N],
        expected,
        |config, p, out| lds_conflict_heavy_i32::launch(config, out, p.scale, p.offset),
    )
}

pub(crate) const LDS_CONFLICT_HEAVY_I32: KernelSpec = KernelSpec {
    name: "lds_conflict_heavy_i32",
    summary: "4096 LDS round trips, every lane of a phase in bank 0",
    program: &lds_conflict_heavy_i32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare,
};
