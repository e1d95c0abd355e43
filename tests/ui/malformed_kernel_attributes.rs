//! Each kernel's attribute is wrong in another way.
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(0)]
    kernel zero(out: &mut [u32]) {
        global_store out[global_id.x], 0
    }

    #[workgroup_size(64, 32)]
    kernel too_many_items(out: &mut [u32]) {
        global_store out[global_id.x], 0
    }

    #[workgroup_size(4, 4, 4, 4)]
    kernel four_dimensions(out: &mut [u32]) {
        global_store out[global_id.x], 0
    }

    #[workgroup_size]
    kernel no_shape(out: &mut [u32]) {
        global_store out[global_id.x], 0
    }

    #[race_free(always)]
    kernel race_free_with_arguments(out: &mut [u32]) {
        global_store out[global_id.x], 0
    }

    #[conflict_free]
    kernel contract_on_the_kernel(out: &mut [u32]) {
        global_store out[global_id.x], 0
    }
}

fn main() {}
