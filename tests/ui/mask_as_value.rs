use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        mreg small;
        v_cmp_lt_u32 small, lane_id, 4
        v_add_u32 x, small, 1
        global_store out[lane_id], x
    }
}

fn main() {}
