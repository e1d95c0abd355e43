use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg i;
        mreg more;
        v_mov i, 0
        loop
            barrier
            v_add_u32 i, i, 1
            v_cmp_lt_u32 more, i, lane_id
        endloop more
        global_store out[global_id], i
    }
}

fn main() {}
