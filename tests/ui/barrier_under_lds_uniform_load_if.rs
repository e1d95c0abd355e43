use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg flag;
        mreg on;
        lds_store    tile[local_id.x], local_id.x
        barrier
        lds_load     flag, tile[0]
        v_cmp_ne_u32 on, flag, 0
        if on
            barrier
        endif
        global_store out[global_id.x], flag
    }
}

fn main() {}
