// Every error of every kernel is reported at once, and the kernels' modules
// still exist, so calling them adds no errors of its own.
use simt::simt_kernel;

simt_kernel! {
    kernel first(out: &mut [u32]) {
        vreg x;
        v_mov x, lane_idd
        v_sub_u23 x, x, 1
        global_store out[lane_id], x
        endif
    }

    kernel second(out: &mut [u32], n: u32) {
        s_mov n, 1
        global_store out[lane_id], 1.5
    }
}

fn main() {
    let mut out = vec![0u32; 32];
    let config = simt::__private::LaunchConfig::new(1, 32);
    let _ = first::launch(&config, &mut out);
    let _ = second::launch(&config, &mut out, 3);
}
