//! A template is compiled only through instances named beside it, each binding
//! every const parameter once.
use simt::simt_kernel;

simt_kernel! {
    kernel scaled<const F: u32, const G: u32>(out: &mut [u32]) {
        vreg v;
        v_mul_u32 v, global_id.x, F
        v_add_u32 v, v, G
        global_store out[global_id.x], v
    }

    kernel never_used<const N: u32>(out: &mut [u32]) {
        global_store out[global_id.x], N
    }

    kernel a = scaled<F = 1>;
    kernel b = scaled<F = 1, G = 2, H = 3>;
    kernel c = scaled<F = 1, F = 2, G = 3>;
    kernel d = missing<F = 1>;
}

fn main() {}
