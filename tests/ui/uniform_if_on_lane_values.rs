//! An `if` on a comparison of `local_id.x` splits a wave; one nested in
//! divergent control cannot be decided.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg low, first;
        v_cmp_lt_u32 low, local_id.x, 16
        #[uniform]
        if low
            global_store out[global_id.x], 1
        endif
        v_cmp_eq_u32 first, group_id.x, 0
        if low
            #[uniform]
            if first
                global_store out[global_id.x], 2
            endif
        endif
    }
}

fn main() {}
