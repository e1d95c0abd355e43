// After 20 errors of one kind, one line counts the rest.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        v_mov x, lane_id
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        v_add_u32 x, x, 0.5
        global_store out[lane_id], x
    }
}

fn main() {}
