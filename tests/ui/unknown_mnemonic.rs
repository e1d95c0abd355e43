use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [f32]) {
        vreg x;
        v_cvt_f32_u32 x, lane_id
        v_add_f23 x, x, 1.0
        global_store out[lane_id], x
    }
}

fn main() {}
