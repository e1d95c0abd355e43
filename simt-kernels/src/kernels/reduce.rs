//! Workgroup reduction over LDS: a tree of halving strides with a barrier per step.

use super::{GROUPS, GROUP_SIZE, N};
use crate::registry::{Case, KernelSpec, Workload};
use crate::rng::SplitMix64;

simt::simt_kernel! {
    /// One partial sum per workgroup: `partial[g]` is the sum of the workgroup's
    /// elements of `input` (elements at or past `n` count as 0), added as a tree.
    /// Every work-item stores its element into LDS; then, for stride = half the
    /// workgroup size down to 1, work-items below the stride add their partner's
    /// word into their own; work-item 0 finally reads the sum back and stores it.
    ///
    /// The stride loop is uniform (a scalar counter), so its barrier is legal; the
    /// `if` inside it is divergent once the stride drops below the wave width.
    /// The workgroup size must be a power of two no larger than 256.
    pub kernel reduce_i32(input: &[i32], partial: &mut [i32], n: u32) {
        lds sums: [i32; 256];
        vreg x, y, partner;
        sreg stride;
        mreg inside, active, more, first;
        v_mov        x, 0
        v_cmp_lt_u32 inside, global_id.x, n
        if inside
            global_load x, input[global_id.x]
        endif
        lds_store sums[local_id.x], x
        barrier
        s_shr_u32 stride, group_size.x, 1
        loop
            v_cmp_lt_u32 active, local_id.x, stride
            if active
                v_add_u32 partner, local_id.x, stride
                lds_load  x, sums[local_id.x]
                lds_load  y, sums[partner]
                v_add_i32 x, x, y
                lds_store sums[local_id.x], x
            endif
            barrier
            s_shr_u32    stride, stride, 1
            s_cmp_ne_u32 more, stride, 0
        endloop more
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            lds_load     x, sums[0]
            global_store partial[group_id.x], x
        endif
    }

    /// `reduce_i32` on `f32`: the same tree, so the same order of additions.
    pub kernel reduce_f32(input: &[f32], partial: &mut [f32], n: u32) {
        lds sums: [f32; 256];
        vreg x, y, partner;
        sreg stride;
        mreg inside, active, more, first;
        v_mov        x, 0
        v_cmp_lt_u32 inside, global_id.x, n
        if inside
            global_load x, input[global_id.x]
        endif
        lds_store sums[local_id.x], x
        barrier
        s_shr_u32 stride, group_size.x, 1
        loop
            v_cmp_lt_u32 active, local_id.x, stride
            if active
                v_add_u32 partner, local_id.x, stride
                lds_load  x, sums[local_id.x]
                lds_load  y, sums[partner]
                v_add_f32 x, x, y
                lds_store sums[local_id.x], x
            endif
            barrier
            s_shr_u32    stride, stride, 1
            s_cmp_ne_u32 more, stride, 0
        endloop more
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            lds_load     x, sums[0]
            global_store partial[group_id.x], x
        endif
    }
}

/// The scalar oracles: they replay the kernel's tree, step by step.
pub mod oracle {
    use std::ops::Add;

    /// The tree reduction of one workgroup's values (a power-of-two count).
    pub fn tree<T: Copy + Default + Add<Output = T>>(values: &[T]) -> T {
        let mut s = values.to_vec();
        let mut stride = s.len() / 2;
        while stride > 0 {
            for t in 0..stride {
                s[t] = s[t] + s[t + stride];
            }
            stride /= 2;
        }
        s.first().copied().unwrap_or_default()
    }

    /// Partial sums of `input` in groups of `group` (wrapping).
    pub fn reduce_i32(input: &[i32], group: usize) -> Vec<i32> {
        input
            .chunks(group)
            .map(|c| {
                let w: Vec<Wrapping> = c.iter().map(|&x| Wrapping(x)).collect();
                tree(&w).0
            })
            .collect()
    }

    /// Partial sums of `input` in groups of `group`, in the tree's order.
    pub fn reduce_f32(input: &[f32], group: usize) -> Vec<f32> {
        input.chunks(group).map(tree).collect()
    }

    #[derive(Clone, Copy, Default)]
    struct Wrapping(i32);

    impl Add for Wrapping {
        type Output = Wrapping;
        fn add(self, rhs: Wrapping) -> Wrapping {
            Wrapping(self.0.wrapping_add(rhs.0))
        }
    }
}

fn prepare_i32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let input = rng.i32_vec(N, -1_000_000, 1_000_000);
    let expected = oracle::reduce_i32(&input, GROUP_SIZE as usize);
    Case::boxed(
        input,
        vec![0; GROUPS as usize],
        expected,
        |config, input, partial| reduce_i32::launch(config, input, partial, N as u32),
    )
}

fn prepare_f32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let input = rng.f32_vec(N, -1.0, 1.0);
    let expected = oracle::reduce_f32(&input, GROUP_SIZE as usize);
    Case::boxed(
        input,
        vec![0.0; GROUPS as usize],
        expected,
        |config, input, partial| reduce_f32::launch(config, input, partial, N as u32),
    )
}

pub(crate) const REDUCE_I32: KernelSpec = KernelSpec {
    name: "reduce_i32",
    summary: "sum of 4096 i32, one LDS tree and one partial sum per workgroup",
    program: &reduce_i32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_i32,
};

pub(crate) const REDUCE_F32: KernelSpec = KernelSpec {
    name: "reduce_f32",
    summary: "sum of 4096 f32, one LDS tree and one partial sum per workgroup",
    program: &reduce_f32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_f32,
};

#[cfg(test)]
mod tests {
    use super::oracle;

    #[test]
    fn the_tree_order_is_not_the_sequential_order() {
        // Why the oracle replays the tree: float addition is not associative.
        let v = [1.0e8f32, 1.0, -1.0e8, 1.0];
        assert_eq!(oracle::tree(&v), (1.0e8f32 + -1.0e8) + (1.0 + 1.0));
        assert_ne!(oracle::tree(&v), v.iter().sum::<f32>());
    }

    #[test]
    fn integer_partials_add_up() {
        let input: Vec<i32> = (0..512).collect();
        assert_eq!(oracle::reduce_i32(&input, 256), vec![32640, 98176]);
    }
}
