// Wide accesses need a 4-byte aligned address; a constant byte offset that is
// not is refused before it can fault.
use simt::simt_kernel;

simt_kernel! {
    kernel k(src: &[u32], out: &mut [u32]) {
        vreg a, b;
        global_load_x2 [a, b], src.bytes[6]
        global_store_x2 out.bytes[4], [a, b]
    }
}

fn main() {}
