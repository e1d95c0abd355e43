use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        V_MOV x, 1
        Global_Store out[lane_id], x
    }
}

fn main() {}
