use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        v_mov x, 4294967296
        v_add_i32 x, x, -2147483649
        global_store out[lane_id], x
    }
}

fn main() {}
