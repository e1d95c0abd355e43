use simt::simt_kernel;

simt_kernel! {
    pub kernel oops(out: &mut [u32]) {
        vreg v;
        global_store v0[global_id], 7
        global_store lane_id[0], 7
        global_load v, lane_id[0]
        lds_load v1, s0[0]
        global_load v0, m3[local_id]
        global_store wave_width.bytes[0], 1
        global_store out[global_id], v
    }
}

fn main() {}
