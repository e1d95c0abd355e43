// A word after a finished operand of an instruction still short of operands is
// read as the next operand, and the missing comma is reported between the two.
use simt::simt_kernel;

simt_kernel! {
    kernel k(x: &[u32], out: &mut [u32]) {
        vreg v, i;
        v_mov i, global_id
        v_add_u32 v i, 1
        global_load v x[i]
        v_add_u32 v, v 2
        v_add_u32 v, v global_id
        v_add_u32 v j, 1
        global_store out[i], v
    }
}

fn main() {}
