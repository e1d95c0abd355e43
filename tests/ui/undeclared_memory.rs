// An array that was never declared is told how LDS arrays and buffers are
// declared, not how registers are.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg i, x;
        v_mov i, local_id.x
        lds_load x, tile[i]
        global_load x, input[i]
        global_store out[i], x
    }
}

fn main() {}
