use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], n: u32) {
        s_add_u32 n, n, 1
        global_store out[lane_id], n
    }
}

fn main() {}
