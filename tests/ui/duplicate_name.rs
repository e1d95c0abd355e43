use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], n: u32) {
        vreg x, n;
        v_mov x, n
        global_store out[lane_id], x
    }
}

fn main() {}
