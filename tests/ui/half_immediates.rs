// Half-precision immediates: a literal that rounds to infinity, and an
// integer that is no value of the format.
use simt::simt_kernel;

simt_kernel! {
    kernel k(h: &mut [f16], b: &mut [bf16]) {
        vreg x;
        v_add_f16 x, x, 70000.0
        v_mul_f16 x, x, 4097
        v_fma_bf16 x, x, x, 257
        global_store_f16 h[lane_id], 1e6
        global_store_bf16 b[lane_id], 1e38
        v_cmp_lt_f16 m0, x, 65520.0
    }
}

fn main() {}
