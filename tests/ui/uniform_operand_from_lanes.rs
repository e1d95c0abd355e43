use simt::simt_kernel;

simt_kernel! {
    pub kernel readlane(x: &[u32], out: &mut [u32]) {
        sreg t;
        vreg v;
        global_load v, x[global_id]
        v_readlane t, v, lane_id
        global_load v, x[global_id + v]
        global_store out[group_id], t
    }
}

fn main() {}
