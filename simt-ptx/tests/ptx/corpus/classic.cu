// The other kernels CUDA courses start with: element-wise arithmetic,
// histograms, scans, stencils, a softmax, a matrix-vector product, and the
// warp-level bit tricks (ballots, population counts, bit reversal).

// vectorAdd from the CUDA samples.
__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}

// SAXPY, "An Easy Introduction to CUDA C and C++".
__global__ void saxpy(int n, float a, float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// SAXPY over a grid-stride loop ("CUDA Pro Tip: Write Flexible Kernels with
// Grid-Stride Loops").
__global__ void saxpy_grid_stride(int n, float a, float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// A histogram of bytes straight into global counters ("CUDA by Example").
__global__ void histo_global(const unsigned char* buffer, long size, unsigned int* histo) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int stride = blockDim.x * gridDim.x;
  while (i < size) {
    atomicAdd(&(histo[buffer[i]]), 1);
    i += stride;
  }
}

// The same histogram privatised per block in shared memory, merged into the
// global one at the end. Blocks of 256 threads, one bin each.
__global__ void histo_shared(const unsigned char* buffer, long size, unsigned int* histo) {
  __shared__ unsigned int temp[256];
  temp[threadIdx.x] = 0;
  __syncthreads();
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int offset = blockDim.x * gridDim.x;
  while (i < size) {
    atomicAdd(&temp[buffer[i]], 1);
    i += offset;
  }
  __syncthreads();
  atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
}

// Hillis-Steele inclusive scan of one block ("GPU Gems 3", chapter 39, the
// naive scan): log2(n) steps over a double buffer in shared memory.
__global__ void scan_hillis_steele(float* g_odata, const float* g_idata, int n) {
  extern __shared__ float temp[];  // 2 * n floats
  int thid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * n + thid] = g_idata[thid];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (thid >= offset)
      temp[pout * n + thid] = temp[pin * n + thid] + temp[pin * n + thid - offset];
    else
      temp[pout * n + thid] = temp[pin * n + thid];
    __syncthreads();
  }
  g_odata[thid] = temp[pout * n + thid];
}

// Blelloch's work-efficient exclusive scan of one block ("GPU Gems 3",
// prescan): an up-sweep building sums in place, then a down-sweep. Each
// thread handles two elements; n is a power of two.
__global__ void scan_blelloch(float* g_odata, const float* g_idata, int n) {
  extern __shared__ float temp[];  // n floats
  int thid = threadIdx.x;
  int offset = 1;
  temp[2 * thid] = g_idata[2 * thid];
  temp[2 * thid + 1] = g_idata[2 * thid + 1];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  g_odata[2 * thid] = temp[2 * thid];
  g_odata[2 * thid + 1] = temp[2 * thid + 1];
}

// A warp's inclusive scan with __shfl_up_sync, then the warps' totals
// scanned by the first warp: a block-wide inclusive scan of ints. Assumes
// 32-lane warps.
__global__ void scan_warp_shfl(const int* in, int* out, int n) {
  __shared__ int warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  int x = i < n ? in[i] : 0;
  for (int offset = 1; offset < 32; offset *= 2) {
    int y = __shfl_up_sync(0xffffffff, x, offset);
    if (lane >= offset) x += y;
  }
  if (lane == 31) warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int s = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
    for (int offset = 1; offset < 32; offset *= 2) {
      int y = __shfl_up_sync(0xffffffff, s, offset);
      if (lane >= offset) s += y;
    }
    warp_sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) x += warp_sums[warp - 1];
  if (i < n) out[i] = x;
}

// The 1-D stencil of NVIDIA's CUDA training: a block's elements and a halo
// of RADIUS on each side in shared memory, each output the sum of 2 RADIUS + 1
// inputs. `in` has RADIUS elements of padding before and after the n.
#define RADIUS 3
#define STENCIL_BLOCK 64
__global__ void stencil_1d(const int* in, int* out) {
  __shared__ int temp[STENCIL_BLOCK + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex + RADIUS];
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = in[gindex];
    temp[lindex + STENCIL_BLOCK] = in[gindex + STENCIL_BLOCK + RADIUS];
  }
  __syncthreads();
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
  out[gindex] = result;
}

// One Jacobi step of the 2-D Laplace equation: each interior point becomes
// the mean of its four neighbours; the boundary is copied.
__global__ void jacobi_2d(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
  } else {
    out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
  }
}

// Row-wise softmax, one block per row: the row's maximum and the sum of
// expf(x - max) each reduced through shared memory, then every element
// scaled. Blocks of a power-of-two size, at most 256.
__global__ void softmax_rows(const float* in, float* out, int cols) {
  __shared__ float red[256];
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(x[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  sum = red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / sum;
}

// Matrix-vector product y = A x, one thread per row.
__global__ void matvec(const float* A, const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += A[r * cols + c] * x[c];
    y[r] = sum;
  }
}

// Stream compaction of one warp at a time: the lanes holding a positive
// value vote, each counts the voters below it, and the warp's survivors are
// written contiguously after an atomically reserved slot. Assumes 32-lane
// warps.
__global__ void compact_ballot(const int* in, int* out, unsigned int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  bool keep = v > 0;
  unsigned int ballot = __ballot_sync(0xffffffff, keep);
  unsigned int below = __popc(ballot & ((1u << lane) - 1));
  unsigned int base = 0;
  if (lane == 0) base = atomicAdd(count, __popc(ballot));
  base = __shfl_sync(0xffffffff, base, 0);
  if (keep) out[base + below] = v;
}

// The bit-reversal permutation that starts an iterative radix-2 FFT:
// element i moves to the index whose log2n low bits are i's reversed.
__global__ void bit_reverse(const float2* in, float2* out, int log2n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (1u << log2n)) out[__brev(i) >> (32 - log2n)] = in[i];
}

// RGBA pixels to 8-bit luminance, the first kernel of many image courses.
__global__ void rgba_to_grey(const uchar4* rgba, unsigned char* grey, int numPixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < numPixels) {
    uchar4 p = rgba[i];
    float l = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    grey[i] = (unsigned char)__float2int_rn(l);
  }
}

// Per-element integer log2 and the count of set bits: __clz and __popc.
__global__ void bit_stats(const unsigned int* in, int* log2_out, int* popc_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int v = in[i];
    log2_out[i] = 31 - __clz(v);
    popc_out[i] = __popc(v);
  }
}

// Quantisation to signed bytes: scale, round to nearest even, clamp, pack
// four per word.
__global__ void quantize_int8(const float* in, char4* out, float inv_scale, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = reinterpret_cast<const float4*>(in)[i];
    int a = max(-128, min(127, __float2int_rn(v.x * inv_scale)));
    int b = max(-128, min(127, __float2int_rn(v.y * inv_scale)));
    int c = max(-128, min(127, __float2int_rn(v.z * inv_scale)));
    int d = max(-128, min(127, __float2int_rn(v.w * inv_scale)));
    out[i] = make_char4(a, b, c, d);
  }
}

// Nearest-neighbour and floor/ceil sampling: each output reads the input
// at floor and ceil of a scaled coordinate and averages them.
__global__ void resample_linear(const float* in, float* out, int n_in, int n_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_out) {
    float pos = i * (float)(n_in - 1) / (float)(n_out - 1);
    int lo = (int)floorf(pos);
    int hi = (int)ceilf(pos);
    float t = pos - floorf(pos);
    out[i] = in[lo] + t * (in[hi] - in[lo]);
  }
}

// The digit histogram of a radix sort's pass, extracting each key's digit
// with PTX's bit-field extract as CUB does (its BFE, inline PTX): bits
// [bit, bit + RADIX_BITS) of every key, counted per block in shared memory.
#define RADIX_BITS 4
__device__ __forceinline__ unsigned int bfe(unsigned int source, unsigned int bit_start,
                                            unsigned int num_bits) {
  unsigned int bits;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(bits) : "r"(source), "r"(bit_start), "r"(num_bits));
  return bits;
}

__global__ void radix_digit_histogram(const unsigned int* keys, unsigned int* counts, int n,
                                      unsigned int bit) {
  __shared__ unsigned int bins[1 << RADIX_BITS];
  if (threadIdx.x < (1 << RADIX_BITS)) bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[bfe(keys[i], bit, RADIX_BITS)], 1);
  __syncthreads();
  if (threadIdx.x < (1 << RADIX_BITS)) atomicAdd(&counts[threadIdx.x], bins[threadIdx.x]);
}

// Records packed in bit-fields, unpacked into arrays and packed back:
// nvcc extracts and inserts the fields with byte permutes and bit-field
// inserts.
struct Packed {
  unsigned int kind : 4;
  int delta : 12;
  unsigned int value : 16;
};

__global__ void unpack_fields(const Packed* in, unsigned int* kind, int* delta,
                              unsigned int* value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Packed p = in[i];
    kind[i] = p.kind;
    delta[i] = p.delta;
    value[i] = p.value;
  }
}

__global__ void repack_fields(const unsigned int* kind, const int* delta, Packed* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Packed p = out[i];
    p.kind = kind[i];
    p.delta = delta[i];
    out[i] = p;
  }
}

// Each word's bytes reversed (a big-endian file read on a little-endian
// GPU) with __byte_perm.
__global__ void swap_bytes(const unsigned int* in, unsigned int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __byte_perm(in[i], 0, 0x0123);
}

// Text processing: the occurrences of one character, and of 16-bit samples
// below a threshold, each counted by atomics.
__global__ void count_char(const char* text, int n, char c, unsigned int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && text[i] == c) atomicAdd(count, 1);
}

__global__ void count_below(const short* samples, int n, short threshold, unsigned int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && samples[i] < threshold) atomicAdd(count, 1);
}

// The CUDA samples' threadFenceReduction: every block leaves its sum in
// partial[], and the last block to finish, told by atomicInc on a counter
// (which wraps back to 0 for the next launch), adds the partial sums.
__global__ void reduce_last_block(const float* in, volatile float* partial, float* total,
                                  unsigned int* retired, unsigned int n) {
  __shared__ float sdata[256];
  __shared__ bool amLast;
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) {
    partial[blockIdx.x] = sdata[0];
    __threadfence();
    unsigned int ticket = atomicInc(retired, gridDim.x - 1);
    amLast = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (amLast && tid == 0) {
    float sum = 0.0f;
    for (unsigned int b = 0; b < gridDim.x; ++b) sum += partial[b];
    *total = sum;
  }
}
