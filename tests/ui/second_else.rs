use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg m;
        v_cmp_lt_u32 m, lane_id, 4
        if m
            global_store out[lane_id], 1
        else
            global_store out[lane_id], 2
        else
            global_store out[lane_id], 3
        endif
    }
}

fn main() {}
