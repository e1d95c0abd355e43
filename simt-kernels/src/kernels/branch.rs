//! A data-dependent branch: neighbouring lanes disagree, so both sides run.

use super::{GROUPS, GROUP_SIZE, N};
use crate::registry::{Case, KernelSpec, Workload};
use crate::rng::SplitMix64;

simt::simt_kernel! {
    /// One Collatz step per element: odd values become `3n + 1`, even values halve.
    /// With random inputs every wave holds both parities, so each wave issues both
    /// sides of the `if`, each under a partial mask.
    pub kernel divergent_collatz_i32(values: &[i32], out: &mut [i32], n: u32) {
        vreg i, x, parity;
        mreg inside, odd;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  x, values[i]
            v_and        parity, x, 1
            v_cmp_ne_u32 odd, parity, 0
            if odd
                v_mad_i32 x, x, 3, 1
            else
                v_shr_i32 x, x, 1
            endif
            global_store out[i], x
        endif
    }
}

/// The scalar oracle.
pub mod oracle {
    /// One Collatz step per element (wrapping, arithmetic shift for halving).
    pub fn divergent_collatz_i32(values: &[i32]) -> Vec<i32> {
        values
            .iter()
            .map(|&x| {
                if x & 1 != 0 {
                    x.wrapping_mul(3).wrapping_add(1)
                } else {
                    x >> 1
                }
            })
            .collect()
    }
}

fn prepare(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    // Positive values small enough that 3n + 1 never wraps.
    let values = rng.i32_vec(N, 1, 1_000_000);
    let expected = oracle::divergent_collatz_i32(&values);
    Case::boxed(values, vec![0; N], expected, |config, values, out| {
        divergent_collatz_i32::launch(config, values, out, N as u32)
    })
}

pub(crate) const DIVERGENT_COLLATZ_I32: KernelSpec = KernelSpec {
    name: "divergent_collatz_i32",
    summary: "one Collatz step on 4096 i32: odd lanes 3n+1, even lanes halve",
    program: &divergent_collatz_i32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare,
};
