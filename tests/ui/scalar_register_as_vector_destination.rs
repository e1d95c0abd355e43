use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        sreg total;
        v_add_u32 total, lane_id, 1
        global_store out[lane_id], total
    }
}

fn main() {}
