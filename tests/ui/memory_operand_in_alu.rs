use simt::simt_kernel;

simt_kernel! {
    kernel k(data: &[u32], out: &mut [u32]) {
        vreg x;
        v_add_u32 x, data[global_id], 1
        global_store out[global_id], x
    }
}

fn main() {}
