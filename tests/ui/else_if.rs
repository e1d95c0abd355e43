// There is no `else if`: an `if` after `else` is nested in it and needs its own
// `endif`.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        mreg small, middle;
        v_cmp_lt_u32 small, lane_id, 8
        v_cmp_lt_u32 middle, lane_id, 16
        if small
            v_mov x, 1
        else if middle
            v_mov x, 2
        else
            v_mov x, 3
        endif
        global_store out[lane_id], x
    }
}

fn main() {}
