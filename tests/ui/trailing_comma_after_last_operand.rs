use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        v_mov x, lane_id
        v_add_u32 x, x, 1,
        global_store out[lane_id], x
    }
}

fn main() {}
