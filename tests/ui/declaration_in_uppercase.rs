use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        Vreg z;
        v_mov        z, lane_id
        global_store out[lane_id], z
    }
}

fn main() {}
