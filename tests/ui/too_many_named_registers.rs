use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15;
        mreg b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15;
        mreg one_too_many;
        global_store out[lane_id], 1
    }
}

fn main() {}
