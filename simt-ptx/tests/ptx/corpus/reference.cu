// The eleven reference kernels of simt-kernels (simt-kernels/src/kernels/),
// written in CUDA as their simt versions compute: the same arguments in the
// same order, the same memory accesses, the same arithmetic. Each runs at
// the registry's launch: 16 blocks of 256 threads, 1-D.

__global__ void vecadd_i32(const int* a, const int* b, int* c, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void vecadd_f32(const float* a, const float* b, float* c, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy_f32(const float* x, float* y, float a, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(a, x[i], y[i]);
}

__global__ void divergent_collatz_i32(const int* values, int* out, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = values[i];
    if (x & 1)
      x = x * 3 + 1;
    else
      x = x >> 1;
    out[i] = x;
  }
}

// The sequential tree: each thread's element (0 past n) in shared memory,
// then for stride = blockDim.x / 2 down to 1 the threads below the stride add
// the word stride above their own; thread 0 stores the block's sum.
template <typename T>
__device__ void reduce_block(const T* input, T* partial, unsigned int n) {
  __shared__ T sums[256];
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  T x = 0;
  if (i < n) x = input[i];
  sums[threadIdx.x] = x;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride != 0; stride >>= 1) {
    if (threadIdx.x < stride) sums[threadIdx.x] = sums[threadIdx.x] + sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

__global__ void reduce_i32(const int* input, int* partial, unsigned int n) {
  reduce_block(input, partial, n);
}

__global__ void reduce_f32(const float* input, float* partial, unsigned int n) {
  reduce_block(input, partial, n);
}

// One thread per element of c, fused multiply-adds in ascending k.
__global__ void matmul_naive_f32(const float* a, const float* b, float* c, unsigned int n) {
  unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n * n) {
    unsigned int row = g / n, col = g % n;
    float acc = 0.0f;
    for (unsigned int k = 0; k < n; ++k) acc = fmaf(a[row * n + k], b[k * n + col], acc);
    c[g] = acc;
  }
}

// 16x16 tiles of c, one block of 256 threads each (1-D): thread t owns row
// t / 16 and column t % 16 of its tile.
__global__ void matmul_tiled_f32(const float* a, const float* b, float* c, unsigned int n) {
  __shared__ float a_tile[256];
  __shared__ float b_tile[256];
  unsigned int tr = threadIdx.x >> 4, tc = threadIdx.x & 15;
  unsigned int tiles = n >> 4;
  unsigned int row = (blockIdx.x / tiles) * 16 + tr;
  unsigned int col = (blockIdx.x % tiles) * 16 + tc;
  float acc = 0.0f;
  for (unsigned int kt = 0; kt < n; kt += 16) {
    a_tile[threadIdx.x] = a[row * n + kt + tc];
    b_tile[threadIdx.x] = b[(kt + tr) * n + col];
    __syncthreads();
    for (unsigned int kk = 0; kk < 16; ++kk)
      acc = fmaf(a_tile[tr * 16 + kk], b_tile[kk * 16 + tc], acc);
    __syncthreads();
  }
  c[row * n + col] = acc;
}

__global__ void copy_coalesced_f32(const float* src, float* dst, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

__global__ void copy_strided_f32(const float* src, float* dst, unsigned int n, unsigned int stride) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i * stride];
}

// Every lane of a warp stores to and loads from word lane * 32 of its warp's
// region: all in bank 0. Through a volatile pointer, or the compiler would
// forward the stored value and drop both accesses.
__global__ void lds_conflict_heavy_i32(int* out, int scale, int offset) {
  __shared__ int scratch[8192];
  volatile int* s = scratch;
  unsigned int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  unsigned int word = lane * 32 + warp * warpSize * 32;
  unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
  s[word] = (int)g * scale + offset;
  out[g] = s[word];
}
