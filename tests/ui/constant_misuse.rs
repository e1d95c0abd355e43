//! A constant's value is checked where it is defined; a value the use cannot
//! take is an error at the use, and an instance's errors say which instance.
use simt::simt_kernel;

simt_kernel! {
    const BIG: u64 = 1;
    const NEG: u32 = -1;
    const LATER = UNDEFINED + 1;
    const HALF = 0.5;

    kernel k(out: &mut [u32]) {
        vreg v;
        v_add_u32 v, global_id.x, HALF
        global_store out[global_id.x], v
    }

    kernel wide<const S: u32>(out: &mut [u32]) {
        lds t: [u32; S];
        lds_store t[local_id.x], 1
        global_store out[global_id.x], 1
    }

    kernel too_big = wide<S = 100000>;
}

fn main() {}
