// 64-bit atomics as CUDA code uses them: doubles summed in shared and global
// memory, 64-bit counters, maxima, minima, bit unions and exchanges, and the
// compare-and-swap loop that added doubles before GPUs could.

// Each block sums into a shared double, then one thread adds the block's sum
// to the total.
__global__ void sum_f64(const double* x, double* total, int n) {
  __shared__ double block_sum;
  if (threadIdx.x == 0) block_sum = 0.0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&block_sum, x[i]);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(total, block_sum);
}

// Sixteen 64-bit counters (each count adds 2^33 + 1, carrying into the high
// word), the largest key and the union of every key's bits.
__global__ void key_stats(const unsigned long long* keys, unsigned long long* counts,
                          unsigned long long* largest, unsigned long long* bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned long long k = keys[i];
    atomicAdd(&counts[k & 15], (1ull << 33) | 1ull);
    atomicMax(largest, k);
    atomicOr(bits, k);
  }
}

// The smallest signed value, and the last one written by an exchange.
__global__ void lowest_and_last(const long long* v, long long* lowest,
                                unsigned long long* last, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMin(lowest, v[i]);
    atomicExch(last, (unsigned long long)v[i]);
  }
}

__device__ double add_by_cas(double* address, double v) {
  unsigned long long* a = (unsigned long long*)address;
  unsigned long long old = *a, assumed;
  do {
    assumed = old;
    old = atomicCAS(a, assumed, __double_as_longlong(v + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

// A double sum through a compare-and-swap loop.
__global__ void sum_by_cas(const double* x, double* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) add_by_cas(total, x[i]);
}
