//! Workgroup reduction over LDS: a tree of halving strides with a barrier per step.

use super::{GROUPS, GROUP_SIZE, N};
use crate::registry::{Case, KernelSpec, Workload};
use crate::rng::SplitMix64;

simt::simt_kernel! {
    /// Work-items in `active` add the word `stride` above word `index` of
    /// `sums` into it, with `add`.
    fn add_pair(sums: lds, index: vreg, stride: sreg, x: vreg, active: mreg, add: mnemonic) {
        vreg y, partner;
        if active
            v_add_u32 partner, index, stride
            lds_load  x, sums[index]
            lds_load  y, sums[partner]
            add       x, x, y
            lds_store sums[index], x
        endif
    }

    /// The sequential tree over `sums`, each work-item's word stored and the
    /// workgroup past a barrier: at stride = half the workgroup size, then
    /// halving, work-items below the stride add the word `stride` above
    /// their own into it. The sum ends in `sums[0]`.
    ///
    /// The stride loop is uniform (a scalar counter), so its barrier is legal;
    /// the `if` inside it is divergent once the stride drops below the wave width.
    fn halving_tree(sums: lds, x: vreg, add: mnemonic) {
        sreg stride;
        mreg active, more;
        s_shr_u32 stride, group_size.x, 1
        loop
            v_cmp_lt_u32 active, local_id.x, stride
            call add_pair(sums, local_id.x, stride, x, active, add)
            barrier
            s_shr_u32    stride, stride, 1
            s_cmp_ne_u32 more, stride, 0
        endloop more
    }

    /// Work-item 0 stores the workgroup's sum, `sums[0]`, to `partial[group_id.x]`.
    fn store_sum(sums: lds, partial: buffer, x: vreg) {
        mreg first;
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            lds_load     x, sums[0]
            global_store partial[group_id.x], x
        endif
    }

    /// Each work-item stores its element of `input` (0 at or past `n`) into
    /// its word of `sums`; then the workgroup waits for all of them.
    fn load_guarded(input: buffer, n: sreg, sums: lds, x: vreg) {
        mreg inside;
        v_mov        x, 0
        v_cmp_lt_u32 inside, global_id.x, n
        if inside
            global_load x, input[global_id.x]
        endif
        lds_store sums[local_id.x], x
        barrier
    }

    /// One partial sum per workgroup: `partial[g]` is the sum of the workgroup's
    /// elements of `input` (elements at or past `n` count as 0), added as a tree.
    /// Every work-item stores its element into LDS; then, for stride = half the
    /// workgroup size down to 1, work-items below the stride add their partner's
    /// word into their own; work-item 0 finally reads the sum back and stores it.
    /// The workgroup size must be a power of two no larger than 256.
    pub kernel reduce_i32(input: &[i32], partial: &mut [i32], n: u32) {
        lds sums: [i32; 256];
        vreg x;
        call load_guarded(input, n, sums, x)
        call halving_tree(sums, x, v_add_i32)
        call store_sum(sums, partial, x)
    }

    /// `reduce_i32` on `f32`: the same tree, so the same order of additions.
    pub kernel reduce_f32(input: &[f32], partial: &mut [f32], n: u32) {
        lds sums: [f32; 256];
        vreg x;
        call load_guarded(input, n, sums, x)
        call halving_tree(sums, x, v_add_f32)
        call store_sum(sums, partial, x)
    }

    /// The interleaved tree over `sums`, each work-item's word stored and the
    /// workgroup past a barrier: at step `s` = 1, 2, 4, ... (`span` = `2 s`)
    /// each work-item computes `t = spread(local_id.x, span)`, and where
    /// `test(t, bound)` holds adds the word `s` above word `index` into it.
    /// The sum ends in `sums[0]`.
    fn interleaved_tree(sums: lds, x: vreg, t: vreg, spread: mnemonic, test: mnemonic, bound: sreg, index: vreg) {
        sreg stride, span;
        mreg active, more;
        s_mov stride, 1
        loop
            s_shl  span, stride, 1
            spread t, local_id.x, span
            test   active, t, bound
            call add_pair(sums, index, stride, x, active, v_add_i32)
            barrier
            s_mov        stride, span
            s_cmp_lt_u32 more, stride, group_size.x
        endloop more
    }

    /// Each work-item stores its element of `input` (exactly one per
    /// work-item) into its word of `sums`; then the workgroup waits.
    fn load_all(input: buffer, sums: lds, x: vreg) {
        global_load x, input[global_id.x]
        lds_store   sums[local_id.x], x
        barrier
    }

    /// `partial[g]` = the sum of workgroup `g`'s inputs (exactly one per
    /// work-item). At step `s` = 1, 2, 4, ... work-items whose local id is a
    /// multiple of `2 s` add the word `s` above.
    pub kernel interleaved_modulo(input: &[i32], partial: &mut [i32]) {
        lds sums: [i32; 256];
        vreg x, rest;
        call load_all(input, sums, x)
        call interleaved_tree(sums, x, rest, v_rem_u32, v_cmp_eq_u32, 0, local_id.x)
        call store_sum(sums, partial, x)
    }

    /// The interleaved tree with contiguous work-items: at step `s`, work-item `t`
    /// adds word `2 s t + s` into word `2 s t` while `2 s t` is in range.
    pub kernel interleaved_strided(input: &[i32], partial: &mut [i32]) {
        lds sums: [i32; 256];
        vreg x, index;
        call load_all(input, sums, x)
        call interleaved_tree(sums, x, index, v_mul_u32, v_cmp_lt_u32, group_size.x, index)
        call store_sum(sums, partial, x)
    }

    /// The sequential tree on exactly one input per work-item: `reduce_i32`
    /// without the bounds test.
    pub kernel sequential(input: &[i32], partial: &mut [i32]) {
        lds sums: [i32; 256];
        vreg x;
        call load_all(input, sums, x)
        call halving_tree(sums, x, v_add_i32)
        call store_sum(sums, partial, x)
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
