use simt::simt_kernel;

simt_kernel! {
    kernel k(x: &[f64], out: &mut [i64]) {
        vreg v;
        global_load v, x[global_id]
        global_store out[global_id], v
    }
}

fn main() {}
