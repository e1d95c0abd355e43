// A mnemonic never starts an operand, so the `if` missing its mask does not
// swallow the next instruction.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        if
            global_store out[lane_id], 1
        endif
    }
}

fn main() {}
