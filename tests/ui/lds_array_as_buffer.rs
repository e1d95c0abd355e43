use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg x;
        global_load x, tile[local_id]
        global_store out[global_id], x
    }
}

fn main() {}
