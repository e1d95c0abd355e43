use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg index;
        v_mov index, global_id
        global_store out[indx], 1
    }
}

fn main() {}
