use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg m;
        v_cmp_lt_u32 m, lane_id, 4
        // 65 nested `if`s: one more than the machine's nesting limit.
        if m if m if m if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m if m if m if m
        global_store out[lane_id], 1
        endif endif endif endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif endif endif endif
    }
}

fn main() {}
