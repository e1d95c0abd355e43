use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg skip;
        v_cmp_ge_u32 skip, lane_id, 4
        continue skip
        global_store out[lane_id], 1
    }
}

fn main() {}
