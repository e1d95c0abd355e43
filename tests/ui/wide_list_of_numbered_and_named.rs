// A list mixing a numbered register and a named one: the message names each
// as written, with the register a named one was given (`v0` is the kernel's
// own, so `a0` and `a1` are v1 and v2).
use simt::simt_kernel;

simt_kernel! {
    kernel k(src: &[u32], out: &mut [u32]) {
        vreg a0, a1;
        global_load_x2 [v0, a1], src[0]
        global_store out[0], a0
    }
}

fn main() {}
