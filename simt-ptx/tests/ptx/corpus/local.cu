// Per-thread arrays the compiler keeps in local memory: indexed by data,
// so no register can hold them.

// Each thread counts its four values into eight bins of its own.
__global__ void local_hist(const unsigned int* in, unsigned int* out) {
  unsigned int bins[8];
  for (int i = 0; i < 8; ++i) bins[i] = 0;
  unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned int k = 0; k < 4; ++k) bins[in[t * 4 + k] & 7] += 1;
  for (int i = 0; i < 8; ++i) out[t * 8 + i] = bins[i];
}

// A 2-D block: each thread keeps 16 floats, then reads them in an order
// its data chooses.
__global__ void local_permute(const float* in, const unsigned int* order, float* out, unsigned int width) {
  float v[16];
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned int t = y * width + x;
  for (int i = 0; i < 16; ++i) v[i] = in[t * 16 + i];
  unsigned int o = order[t];
  float acc = 0.0f;
  for (int i = 0; i < 16; ++i) acc = acc * 0.5f + v[(o + i * 7) & 15];
  out[t] = acc;
}

// Doubles in local memory: 64-bit accesses, one word at a time.
__global__ void local_f64(const double* in, const unsigned int* pick, double* out) {
  double v[4];
  unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 4; ++i) v[i] = in[t * 4 + i];
  unsigned int j = pick[t] & 3;
  v[j] += 1.0;
  out[t] = v[(j + 1) & 3] - v[j];
}

// Bytes in local memory: a per-thread string reversed at a data-chosen
// length.
__global__ void local_bytes(const unsigned char* in, const unsigned int* len, unsigned char* out) {
  unsigned char s[12];
  unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 12; ++i) s[i] = in[t * 12 + i];
  unsigned int n = len[t] % 13;
  for (unsigned int i = 0; i < n / 2; ++i) {
    unsigned char c = s[i];
    s[i] = s[n - 1 - i];
    s[n - 1 - i] = c;
  }
  for (int i = 0; i < 12; ++i) out[t * 12 + i] = s[i];
}
