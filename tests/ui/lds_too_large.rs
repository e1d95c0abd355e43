use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds a: [f32; 29056];
        lds b: [u32; 29057];
        global_store out[lane_id], 1
    }
}

fn main() {}
