use simt::simt_kernel;

simt_kernel! {
    kernel k(flags: &[u32], out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg flag;
        mreg on;
        global_load  flag, flags[local_id.x]
        v_cmp_ne_u32 on, flag, 0
        if on
            lds_store tile[local_id.x], local_id.x
            barrier
        endif
        global_store out[global_id.x], flag
    }
}

fn main() {}
