// Under a declared shape, an LDS index the facts know exactly is checked
// against its array at every work-item: a stencil tile without its halo
// reads past its end, a shifted index before its start. An index that stays
// inside (the tile with its halo) compiles.
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(64)]
    kernel stencil_without_halo(x: &[f32], out: &mut [f32]) {
        lds tile: [f32; 64];
        vreg v, left, right, j;
        global_load v, x[global_id.x]
        lds_store tile[local_id.x], v
        barrier
        v_add_u32 j, local_id.x, 1
        lds_load right, tile[j]
        lds_load left, tile[local_id.x - 1]
        v_add_f32 v, left, right
        global_store out[global_id.x], v
    }

    #[workgroup_size(64)]
    kernel stencil_with_halo(x: &[f32], out: &mut [f32]) {
        lds tile: [f32; 66];
        vreg v, left, right, j;
        global_load v, x[global_id.x]
        v_add_u32 j, local_id.x, 1
        lds_store tile[j], v
        barrier
        lds_load left, tile[local_id.x]
        lds_load right, tile[local_id.x + 2]
        v_add_f32 v, left, right
        global_store out[global_id.x], v
    }
}

fn main() {}
