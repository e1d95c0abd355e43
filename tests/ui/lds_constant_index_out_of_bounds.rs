use simt::simt_kernel;

simt_kernel! {
    pub kernel tile(out: &mut [u32]) {
        lds t: [u32; 64];
        vreg v;
        lds_store t[63], 1
        lds_load v, t[64]
        lds_load v, t[local_id + 64]
        lds_load v, t[-1]
        lds_load_x4 [v0, v1, v2, v3], t[62]
        global_store out[global_id], v
    }
}

fn main() {}
