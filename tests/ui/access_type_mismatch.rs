use simt::simt_kernel;

simt_kernel! {
    kernel k(data: &[u32], out: &mut [u32]) {
        vreg x;
        global_load_u8 x, data[global_id]
        global_store out[global_id], x
    }
}

fn main() {}
