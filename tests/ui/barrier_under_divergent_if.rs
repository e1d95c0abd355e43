use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds tile: [u32; 64];
        mreg inside;
        v_cmp_lt_u32 inside, local_id, 16
        if inside
            lds_store tile[local_id], local_id
            barrier
        endif
        global_store out[global_id], 1
    }
}

fn main() {}
