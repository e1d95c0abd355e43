// Control-flow words and declaration keywords always start a statement, so
// they cannot name a register or a parameter.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], barrier: u32) {
        vreg loop;
        mreg if;
        sreg lds;
        global_store out[lane_id], 1
    }
}

fn main() {}
