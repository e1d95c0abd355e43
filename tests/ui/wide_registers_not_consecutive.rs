use simt::simt_kernel;

simt_kernel! {
    pub kernel wide(x: &[f32], out: &mut [f32]) {
        vreg a, b, c, d;
        global_load_x4 [a, b, d, c], x[global_id]
        global_load_x2 [a, b, c], x[global_id]
        global_store_x2 out[global_id], a
    }
}

fn main() {}
