//! An `if` on a comparison of `local_id.x` splits a wave (lanes 0 and 16);
//! one nested in divergent control, or on loaded data, cannot be decided.
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

    kernel loaded(flags: &[u32], out: &mut [u32]) {
        vreg f;
        mreg on;
        global_load f, flags[global_id.x]
        v_cmp_ne_u32 on, f, 0
        #[uniform]
        if on
            global_store out[global_id.x], f
        endif
    }
}

fn main() {}
