// Double precision and 64-bit integers: the buffers hold f64, i64 and u64
// elements, moved whole by 64-bit loads and stores.

// y = a x + y, in double precision.
__global__ void daxpy(int n, double a, const double* x, double* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Each block's partial dot product, reduced in shared memory of doubles.
__global__ void dot_f64(const double* x, const double* y, double* partial, int n) {
  __shared__ double s[256];
  int t = threadIdx.x;
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    acc += x[i] * y[i];
  s[t] = acc;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step >>= 1) {
    if (t < step) s[t] += s[t + step];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// A 64-bit hash of each element and its index, mixed as SplitMix64 mixes.
__global__ void mix_u64(const unsigned long long* x, unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long z = x[i] + 0x9e3779b97f4a7c15ull * (unsigned long long)(i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  out[i] = z ^ (z >> 31);
}

// Signed 64-bit arithmetic: the running difference of neighbours, halved
// toward zero, and the f64 it converts to.
__global__ void diff_i64(const long long* x, long long* d, double* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long prev = i > 0 ? x[i - 1] : 0;
  long long v = (x[i] - prev) / 2;
  d[i] = v;
  f[i] = (double)v * 0.5;
}
