use simt::simt_kernel;

simt_kernel! {
    kernel k(x: &[f32], y: &mut [f32]) {
        vreg v;
        global_load v, y[global_id]
        global_store x[global_id], v
    }
}

fn main() {}
