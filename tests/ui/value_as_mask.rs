use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        v_and x, lane_id, 1
        if x
            global_store out[lane_id], x
        endif
    }
}

fn main() {}
