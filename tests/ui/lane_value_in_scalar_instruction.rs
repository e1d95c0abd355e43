use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        sreg t;
        s_mov t, global_id.x
        global_store out[lane_id], t
    }
}

fn main() {}
