// 64-bit values take pairs of consecutive registers: a single register, a
// list of three and a list out of order are errors, each at its operand.
use simt::simt_kernel;

simt_kernel! {
    kernel k(x: &mut [u32]) {
        vreg a0, a1, b0, b1;
        vreg t;
        v_add_f64 a0, [a0, a1], [b0, b1]
        v_mul_u64 [a0, a1], [a0, a1, b0], [b0, b1]
        v_cmp_lt_i64 m0, [b1, b0], [a0, a1]
        v_cvt_f64_f32 [a0, a1], t
        v_cvt_f32_f64 t, [a0, a1]
        global_store x[lane_id], t
    }
}

fn main() {}
