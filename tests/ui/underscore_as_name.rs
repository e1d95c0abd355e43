use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x, _;
        v_mov x, lane_id
        global_store out[lane_id], x
    }
}

fn main() {}
