use simt::simt_kernel;

simt_kernel! {
    kernel k(src: &[u32], out: &mut [u32]) {
        vreg i, v;
        v_mov        i, global_id.x
        global_load  v, src[i][0]
        global_store out[i], v
    }
}

fn main() {}
