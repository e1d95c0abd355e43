// `include` is for files of kernels read as text; the macro says so.
use simt::simt_kernel;

simt_kernel! {
    include "common.simt";

    kernel k(out: &mut [u32]) {
        global_store out[global_id.x], local_id.x
    }
}

fn main() {}
