use simt::simt_kernel;

simt_kernel! {
    pub kernel atomics(counts: &[u32], sums: &mut [f32]) {
        vreg old;
        global_atomic_add_u32 old, counts[0], 1
        global_atomic_cmpswap old, sums[0], 0.0
    }
}

fn main() {}
