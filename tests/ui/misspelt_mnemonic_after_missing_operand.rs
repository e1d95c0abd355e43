// A word close to a mnemonic after an instruction short of operands is a
// misspelt next instruction, not a missing comma.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg i;
        v_add_u32 i, global_id
        v_ad_u32 i, i, 1
        global_store out[i], i
    }
}

fn main() {}
