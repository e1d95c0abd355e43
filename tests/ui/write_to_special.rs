use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        v_add_u32 lane_id, lane_id, 1
        global_store out[lane_id], 1
    }
}

fn main() {}
