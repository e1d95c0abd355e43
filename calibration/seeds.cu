// Times CUDA versions of simt's studies and of a few reference kernels on
// the GPU it runs on, and prints one CSV row per launch shape plus the seeds'
// relations computed from them. Each time is the median of `reps` launches
// timed with CUDA events after `warm` untimed ones.
//
//   seeds [--once]      --once: one launch per shape, no warm-up (for ncu)
//
// Built by calibration/run.sh; compiles as host C++ against
// calibration/shim.h for a syntax check where no CUDA compiler is installed.
#ifdef SIMT_SHIM
#include "shim.h"
#define LAUNCH(k, g, b, s, ...) ((void)(g), (void)(b), (void)(s), k(__VA_ARGS__))
#else
#include <cuda_runtime.h>
#define LAUNCH(k, g, b, s, ...) k<<<(g), (b), (s)>>>(__VA_ARGS__)
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e_ = (x);                                                     \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                   cudaGetErrorString(e_));                                   \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

static int g_reps = 15;
static int g_warm = 3;

// Median time in microseconds of `launch`, which enqueues one launch.
static double time_us(const std::function<void()>& launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < g_warm; ++i) launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int i = 0; i < g_reps; ++i) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    t.push_back(ms * 1000.0);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void row(const char* study, const char* kernel, const std::string& param,
                double us, double bytes, double extra) {
  std::printf("%s,%s,%s,%.2f,%.0f,%.4g\n", study, kernel, param.c_str(), us,
              bytes, extra);
  std::fflush(stdout);
}

// ---------------------------------------------------------------- divergence
// Each lane takes path lane % k; every path is a loop of dependent FMAs whose
// constant depends on the path, so no two paths can be merged, and each
// path's region ends at a __syncwarp so the warp reconverges per path.
__global__ void diverge(int k, int iters, float* out) {
  int lane = threadIdx.x & 31;
  int path = lane % k;
  float x = lane * 1e-3f, y = 1.0f;
  for (int p = 0; p < k; ++p) {
    if (path == p) {
      float c = 1.0f + p * 1e-4f;
      for (int i = 0; i < iters; ++i) {
        x = fmaf(x, c, y);
        y = fmaf(y, c, -x);
      }
    }
    __syncwarp();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

// The two-way split without a branch: each lane selects its constant and
// runs the loop once.
__global__ void predicated(int iters, float* out) {
  int lane = threadIdx.x & 31;
  float c = (lane & 1) ? 1.0001f : 1.0f;
  float x = lane * 1e-3f, y = 1.0f;
  for (int i = 0; i < iters; ++i) {
    x = fmaf(x, c, y);
    y = fmaf(y, c, -x);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

// The same per-thread work split by warps (by_warp = 1) or inside warps.
__global__ void split(int by_warp, int iters, float* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int path = by_warp ? (tid >> 5) & 1 : tid & 1;
  float x = tid * 1e-6f, y = 1.0f;
  if (path) {
    for (int i = 0; i < iters; ++i) {
      x = fmaf(x, 1.0001f, y);
      y = fmaf(y, 0.9999f, -x);
    }
  } else {
    for (int i = 0; i < iters; ++i) {
      x = fmaf(y, 0.9998f, x);
      y = fmaf(x, 1.0002f, -y);
    }
  }
  out[tid] = x + y;
}

// ------------------------------------------------------------ L1 and sectors
#define WARP 32
#define PER_THREAD 8

__global__ void warp_strided(int threads, const float* in, float* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= threads) return;
  size_t base = (size_t)(tid / WARP) * WARP * PER_THREAD;
  int lane = tid % WARP;
  float sum = 0.f;
  for (int k = 0; k < PER_THREAD; ++k) sum += in[base + (size_t)k * WARP + lane];
  out[tid] = sum;
}

__global__ void thread_contiguous(int threads, const float* in, float* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= threads) return;
  size_t base = (size_t)tid * PER_THREAD;
  float sum = 0.f;
  for (int k = 0; k < PER_THREAD; ++k) sum += in[base + k];
  out[tid] = sum;
}

__global__ void strided(int threads, const float* in, float* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= threads) return;
  float sum = 0.f;
  for (int k = 0; k < PER_THREAD; ++k)
    sum += in[((size_t)k * threads + tid) * PER_THREAD];
  out[tid] = sum;
}

__global__ void saxpy(int n, float alpha, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

// ------------------------------------------------------------- occupancy
// A grid-stride copy, one load in flight per thread: its speed depends on
// how many warps are resident to hide DRAM latency. Occupancy is limited by
// the dynamic shared memory each block asks for.
__global__ void copy_stride(size_t n, const float* in, float* out) {
  extern __shared__ float pad[];
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[i];
  if (n == 0) pad[threadIdx.x] = 0;  // keeps the allocation
}

// Eight independent FMA chains per thread: enough instruction-level
// parallelism to keep the pipes busy at low occupancy.
__global__ void ilp_fma(int iters, float* out) {
  extern __shared__ float pad[];
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float a[8];
  for (int j = 0; j < 8; ++j) a[j] = tid * 1e-6f + j;
  for (int i = 0; i < iters; ++i)
    for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 0.9999f, 1e-4f);
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  out[tid] = s;
  if (iters < 0) pad[threadIdx.x] = s;
}

// ------------------------------------------------------------- transpose
// 32x32 tiles through shared memory; PAD = 1 removes the 32-way conflict of
// reading a column. REP > 1 re-reads the column to make the kernel
// shared-memory bound.
template <int PAD, int REP>
__device__ void transpose_tile(int n, const float* in, float* out) {
  __shared__ float tile[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    float v = 0;
    for (int r = 0; r < REP; ++r) v += tile[threadIdx.x][(threadIdx.y + j + r) & 31];
    out[(size_t)(y + j) * n + x] = v;
  }
}

__global__ void transpose_conflicted(int n, const float* in, float* out) { transpose_tile<0, 1>(n, in, out); }
__global__ void transpose_padded(int n, const float* in, float* out) { transpose_tile<1, 1>(n, in, out); }
__global__ void transpose_conflicted_lds(int n, const float* in, float* out) { transpose_tile<0, 16>(n, in, out); }
__global__ void transpose_padded_lds(int n, const float* in, float* out) { transpose_tile<1, 16>(n, in, out); }

// ------------------------------------------------------------- atomics
__global__ void atomic_one_counter(int n, const float* in, float* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, in[i]);
}

__global__ void atomic_per_block(int n, const float* in, float* sum) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, part[0]);
}

// ------------------------------------------------------------- reference
__global__ void vecadd(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void matmul_naive(int n, const float* a, const float* b, float* c) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row_ = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0;
  for (int k = 0; k < n; ++k) s += a[row_ * n + k] * b[k * n + col];
  c[row_ * n + col] = s;
}

__global__ void matmul_tiled(int n, const float* a, const float* b, float* c) {
  __shared__ float ta[16][16], tb[16][16];
  int col = blockIdx.x * 16 + threadIdx.x;
  int row_ = blockIdx.y * 16 + threadIdx.y;
  float s = 0;
  for (int t = 0; t < n; t += 16) {
    ta[threadIdx.y][threadIdx.x] = a[row_ * n + t + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) s += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row_ * n + col] = s;
}

static float* device_floats(size_t n, float value) {
  float* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  std::vector<float> h(std::min<size_t>(n, 1 << 20), value);
  for (size_t off = 0; off < n; off += h.size()) {
    size_t len = std::min(h.size(), n - off);
    CHECK(cudaMemcpy(p + off, h.data(), len * sizeof(float), cudaMemcpyHostToDevice));
  }
  return p;
}

static std::string fmt(const char* f, double a) {
  char b[64];
  std::snprintf(b, sizeof b, f, a);
  return b;
}

int main(int argc, char** argv) {
  bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
  if (once) {
    g_reps = 1;
    g_warm = 0;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  std::printf("# device,%s,sms=%d,l2_bytes=%d,smem_per_sm=%zu\n", prop.name, sms,
              prop.l2CacheSize, (size_t)prop.sharedMemPerMultiprocessor);
  std::printf("study,kernel,param,median_us,bytes,extra\n");

  // Divergence: T(k), predication, and the 32-way penalty against occupancy.
  const int iters = 16384;
  float* dout = device_floats((size_t)sms * 32 * 128, 0);
  double t1 = 0;
  std::vector<double> tk;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    double t = time_us([&] { LAUNCH(diverge, sms * 4, 128, 0, k, iters, dout); });
    if (k == 1) t1 = t;
    tk.push_back(t);
    row("divergence", "diverge", fmt("k=%g", k), t, 0, t / t1);
  }
  double tp = time_us([&] { LAUNCH(predicated, sms * 4, 128, 0, iters, dout); });
  row("divergence", "predicated", "k=2", tp, 0, tp / t1);
  for (int n : {1, 2, 4, 8, 16, 32}) {
    double a = time_us([&] { LAUNCH(diverge, sms * n, 128, 0, 1, iters / 4, dout); });
    double b = time_us([&] { LAUNCH(diverge, sms * n, 128, 0, 32, iters / 4, dout); });
    row("divergence_occupancy", "diverge", fmt("warps_per_sm=%g", 4.0 * n), b, 0, b / a);
  }
  double split_in = time_us([&] { LAUNCH(split, sms * 16, 128, 0, 0, iters, dout); });
  double split_warp = time_us([&] { LAUNCH(split, sms * 16, 128, 0, 1, iters, dout); });
  row("branch_split", "split", "inside_warps", split_in, 0, 1.0);
  row("branch_split", "split", "by_warps", split_warp, 0, split_warp / split_in);
  CHECK(cudaFree(dout));

  // The L1 trio: 256 MiB of useful data each.
  {
    int threads = (256 << 20) / 4 / PER_THREAD;
    float* in = device_floats((size_t)threads * PER_THREAD * PER_THREAD, 1.0f);
    float* out = device_floats(threads, 0);
    int blocks = (threads + 255) / 256;
    double useful = 256.0 * (1 << 20);
    double a = time_us([&] { LAUNCH(warp_strided, blocks, 256, 0, threads, in, out); });
    double b = time_us([&] { LAUNCH(thread_contiguous, blocks, 256, 0, threads, in, out); });
    double c = time_us([&] { LAUNCH(strided, blocks, 256, 0, threads, in, out); });
    row("l1_trio", "warp_strided", "a", a, useful, 1.0);
    row("l1_trio", "thread_contiguous", "b", b, useful, b / a);
    row("l1_trio", "strided", "c", c, useful * 8, c / a);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }

  // SAXPY, large: 2^28 elements, 3 GiB moved.
  {
    int n = 1 << 28;
    float* x = device_floats(n, 1.0f);
    float* y = device_floats(n, 2.0f);
    double t = time_us([&] { LAUNCH(saxpy, (n + 255) / 256, 256, 0, n, 2.0f, x, y); });
    double bytes = 12.0 * n;
    row("saxpy", "saxpy", "n=2^28", t, bytes, bytes / (t * 1e-6) / 1e12);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }

  // Occupancy: a memory-bound copy and a compute-bound ILP kernel, with
  // resident blocks per SM limited by dynamic shared memory.
  {
    int optin = (int)prop.sharedMemPerBlockOptin;
    CHECK(cudaFuncSetAttribute(copy_stride, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    CHECK(cudaFuncSetAttribute(ilp_fma, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    size_t n = (size_t)1 << 28;
    float* in = device_floats(n, 1.0f);
    float* out = device_floats(n, 0);
    float* fout = device_floats((size_t)sms * 8 * 4 * 256, 0);
    size_t smem_sm = prop.sharedMemPerMultiprocessor;
    for (int want : {1, 2, 3, 4, 5, 6, 8}) {
      size_t smem = want == 8 ? 0 : std::min<size_t>(optin, smem_sm / want - 2048);
      int got = 0;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, copy_stride, 256, smem));
      double occ = got * 256.0 / prop.maxThreadsPerMultiProcessor;
      if (got == 0) continue;
      double t = time_us([&] { LAUNCH(copy_stride, sms * got, 256, smem, n, in, out); });
      row("occupancy_memory", "copy_stride", fmt("occupancy=%.3f", occ), t, 8.0 * n,
          8.0 * n / (t * 1e-6) / 1e12);
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, ilp_fma, 256, smem));
      occ = got * 256.0 / prop.maxThreadsPerMultiProcessor;
      double tc = time_us([&] { LAUNCH(ilp_fma, sms * 8 * 4, 256, smem, 2048, fout); });
      row("occupancy_compute", "ilp_fma", fmt("occupancy=%.3f", occ), tc, 0,
          (double)sms * 8 * 4 * 256 * 2048 * 8 * 2 / (tc * 1e-6) / 1e12);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(fout));
  }

  // Transpose, 8192 x 8192, conflicted and padded; REP = 16 makes it
  // shared-memory bound.
  {
    int n = 8192;
    float* in = device_floats((size_t)n * n, 1.0f);
    float* out = device_floats((size_t)n * n, 0);
    dim3 grid(n / 32, n / 32), block(32, 8);
    double bytes = 8.0 * n * n;
    double c1 = time_us([&] { LAUNCH(transpose_conflicted, grid, block, 0, n, in, out); });
    double p1 = time_us([&] { LAUNCH(transpose_padded, grid, block, 0, n, in, out); });
    double c16 = time_us([&] { LAUNCH(transpose_conflicted_lds, grid, block, 0, n, in, out); });
    double p16 = time_us([&] { LAUNCH(transpose_padded_lds, grid, block, 0, n, in, out); });
    row("transpose", "conflicted", "rep=1", c1, bytes, c1 / p1);
    row("transpose", "padded", "rep=1", p1, bytes, 1.0);
    row("transpose", "conflicted", "rep=16", c16, bytes, c16 / p16);
    row("transpose", "padded", "rep=16", p16, bytes, 1.0);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }

  // Atomics: one global counter against per-block partial sums.
  {
    int big = 1 << 24;
    float* in = device_floats(big, 1.0f);
    float* sum = device_floats(1, 0);
    for (int n : {4096, 1 << 20, 1 << 24}) {
      int blocks = (n + 255) / 256;
      double one = time_us([&] { LAUNCH(atomic_one_counter, blocks, 256, 0, n, in, sum); });
      double per = time_us([&] { LAUNCH(atomic_per_block, blocks, 256, 0, n, in, sum); });
      row("atomics", "one_counter", fmt("n=%g", n), one, 4.0 * n, one / per);
      row("atomics", "per_block", fmt("n=%g", n), per, 4.0 * n, 1.0);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(sum));
  }

  // Reference kernels at GPU-sized problems.
  {
    int n = 1 << 26;
    float* a = device_floats(n, 1.0f);
    float* b = device_floats(n, 2.0f);
    float* c = device_floats(n, 0);
    double t = time_us([&] { LAUNCH(vecadd, (n + 255) / 256, 256, 0, n, a, b, c); });
    row("reference", "vecadd", "n=2^26", t, 12.0 * n, 12.0 * n / (t * 1e-6) / 1e12);
    int m = 2048;
    dim3 grid(m / 16, m / 16), block(16, 16);
    double tn = time_us([&] { LAUNCH(matmul_naive, grid, block, 0, m, a, b, c); });
    double tt = time_us([&] { LAUNCH(matmul_tiled, grid, block, 0, m, a, b, c); });
    double flop = 2.0 * m * m * m;
    row("reference", "matmul_naive", "n=2048", tn, 0, flop / (tn * 1e-6) / 1e12);
    row("reference", "matmul_tiled", "n=2048", tt, 0, flop / (tt * 1e-6) / 1e12);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
  }

  // The seeds' relations, from the rows above.
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  int ks[] = {1, 2, 4, 8, 16, 32};
  for (int i = 0; i < 6; ++i) {
    sx += ks[i]; sy += tk[i]; sxx += ks[i] * ks[i]; sxy += ks[i] * tk[i]; syy += tk[i] * tk[i];
  }
  double slope = (6 * sxy - sx * sy) / (6 * sxx - sx * sx);
  double icpt = (sy - slope * sx) / 6;
  double r = (6 * sxy - sx * sy) / std::sqrt((6 * sxx - sx * sx) * (6 * syy - sy * sy));
  std::printf("# relation,divergence_fit,slope_us=%.2f,intercept_us=%.2f,r2=%.5f,T32/T1=%.2f\n",
              slope, icpt, r * r, tk[5] / tk[0]);
  std::printf("# relation,predicated/one_path=%.3f,branchy2/one_path=%.3f\n", tp / t1, tk[1] / t1);
  std::printf("# relation,split_by_warps/inside_warps=%.3f\n", split_warp / split_in);
  return 0;
}
