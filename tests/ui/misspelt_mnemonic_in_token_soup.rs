use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg z;
        v_ad_u32 z = z + 1;
        global_store out[lane_id], z
    }
}

fn main() {}
