use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], n: u32) {
        vreg i;
        let i = 0;
        while i < n {
            global_store out[i], i
        }
        for j in 0..n {
            global_store out[j], j
        }
    }
}

fn main() {}
