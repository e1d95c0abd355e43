use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        v_mov x, -1u32
        v_add_i32 x, x, 4000000000i32
        global_store out[lane_id], x
    }
}

fn main() {}
