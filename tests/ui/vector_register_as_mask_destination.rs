use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg small;
        v_cmp_lt_u32 small, lane_id, 4
        global_store out[lane_id], small
    }
}

fn main() {}
