// What a CUDA programmer writes first: each is named with its equivalent here.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], n: u32) {
        vreg i, x;
        mreg m;
        __shared__ float tile[256];
        int j;
        __syncthreads();
        __syncthreads
        __syncwarp();
        atomicAdd(&out[0], 1);
        __shfl_xor_sync(0xffffffff, x, 16);
        __ballot_sync(0xffffffff, m);
        lds_store tile[i], x
        global_store out[i], x
        global_store missing[i], x
    }
}

simt_kernel! {
    kernel indices(out: &mut [u32]) {
        vreg i, x;
        v_mov i, blockDim.x
        v_mov x, gridDim.y
        global_store out[i], x
    }
}

simt_kernel! {
    __global__ void cuda(float* out) {
    }
}

fn main() {}
