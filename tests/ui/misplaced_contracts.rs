//! Contracts on instructions they say nothing about, inside the body where
//! only kernel attributes go, or with nothing after them.
use simt::simt_kernel;

simt_kernel! {
    kernel wrong_instruction(x: &[u32], out: &mut [u32]) {
        vreg v;
        #[conflict_free]
        global_load v, x[global_id.x]
        #[uniform]
        global_store out[global_id.x], v
    }

    kernel kernel_attribute_inside(out: &mut [u32]) {
        #[workgroup_size(64)]
        global_store out[global_id.x], 0
    }

    kernel before_a_declaration(out: &mut [u32]) {
        #[coalesced]
        vreg v;
        v_mov v, 0
        global_store out[global_id.x], v
    }

    kernel nothing_after(out: &mut [u32]) {
        global_store out[global_id.x], 0
        #[coalesced]
    }

    kernel unknown_attribute(out: &mut [u32]) {
        #[inline]
        global_store out[global_id.x], 0
    }
}

fn main() {}
