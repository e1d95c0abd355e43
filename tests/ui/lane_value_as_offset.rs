use simt::simt_kernel;

simt_kernel! {
    kernel k(src: &[u32], out: &mut [u32]) {
        vreg i, x, v;
        v_mov        i, global_id.x
        v_and        x, lane_id, 3
        global_load  v, src[i + x]
        global_store out[i], v
    }
}

fn main() {}
