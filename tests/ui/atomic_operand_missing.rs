use simt::simt_kernel;

simt_kernel! {
    kernel k(dst: &mut [u32]) {
        vreg x;
        global_atomic_cmpswap x, dst[0], 0
    }
}

fn main() {}
