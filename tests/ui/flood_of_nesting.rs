// 94 nested `if`s, 30 more than the machine's nesting limit: 20 errors, and
// one line counting the rest.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg m;
        v_cmp_lt_u32 m, lane_id, 4
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m if m if m if m if m if m if m
        if m if m if m if m
        global_store out[lane_id], 1
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif endif endif endif endif endif endif
        endif endif endif endif
    }
}

fn main() {}
