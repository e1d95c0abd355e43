use simt::simt_kernel;

simt_kernel! {
    kernel k(sums: &mut [u32], s: u32) {
        vreg v;
        global_load  v, sums[s + local_id.x]
        global_store sums[global_id.x], v
    }
}

fn main() {}
