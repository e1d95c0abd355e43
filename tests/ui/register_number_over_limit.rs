use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        v_mov v256, lane_id
        s_mov s127, 1
        v_cmp_eq_u32 m32, lane_id, 0
        global_store out[lane_id], 1
    }
}

fn main() {}
