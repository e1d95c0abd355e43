// CUDA's, OpenCL's and other common names for the special values suggest the
// names they have here.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg i, j;
        sreg t;
        v_mov i, threadIdx.x
        v_mov j, blockIdx.y
        v_mov i, thread_id
        v_mov i, tid
        s_mov t, warpSize
        global_store out[i], j
    }

    kernel call(out: &mut [u32]) {
        vreg i;
        v_mov i, get_global_id(0)
        global_store out[i], i
    }
}

fn main() {}
