use simt::simt_kernel;

simt_kernel! {
    kernel k(raw: &mut [u8]) {
        vreg x;
        global_load_u16 x, raw.byte[0]
        global_store_u16 raw.bytes[2], x
    }
}

fn main() {}
