// The kernel's module is named after it: a module `simt` would make every
// `simt::...` path of the crate ambiguous.
use simt::simt_kernel;

simt_kernel! {
    kernel simt(out: &mut [u32]) {
        global_store out[0], 1
    }
}

fn main() {}
