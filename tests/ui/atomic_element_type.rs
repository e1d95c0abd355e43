use simt::simt_kernel;

simt_kernel! {
    pub kernel atomics(sums: &mut [f32], bytes: &mut [u8]) {
        global_atomic_add_u32 sums[0], 1
        global_atomic_add_f32 bytes[0], 1.0
        global_atomic_xchg bytes.bytes[0], 1
    }
}

fn main() {}
