use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        sreg t;
        v_mov x, lane_id
        s_add_u32 t, x, 1
        global_store out[lane_id], t
    }
}

fn main() {}
