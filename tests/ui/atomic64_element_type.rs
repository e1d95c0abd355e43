use simt::simt_kernel;

simt_kernel! {
    pub kernel atomics(counts: &mut [u64], sums: &mut [f64], words: &mut [u32]) {
        vreg a0, a1, b0, b1;
        global_atomic_add_f64 [a0, a1], counts[0], [b0, b1]
        global_atomic_add_u64 [a0, a1], sums[0], [b0, b1]
        global_atomic_xchg_b64 [a0, a1], words[0], [b0, b1]
        global_atomic_cmpswap_b64 [a0, a1], sums[1], [b0, b1], [a0, a1]
    }
}

fn main() {}
