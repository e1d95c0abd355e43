// Just enough of CUDA's declarations for a host compiler to check the syntax
// of seeds.cu where no CUDA compiler is installed (calibration/run.sh --check).
#pragma once
#include <cmath>
#include <cstddef>
#define __global__
#define __device__
#define __shared__
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
static dim3 threadIdx, blockIdx, blockDim, gridDim;
typedef int cudaError_t;
typedef void* cudaEvent_t;
const int cudaSuccess = 0;
enum { cudaMemcpyHostToDevice, cudaFuncAttributeMaxDynamicSharedMemorySize };
struct cudaDeviceProp {
  char name[256];
  int multiProcessorCount, l2CacheSize, maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
};
inline const char* cudaGetErrorString(cudaError_t) { return ""; }
inline cudaError_t cudaEventCreate(cudaEvent_t*) { return 0; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t) { return 0; }
inline cudaError_t cudaGetLastError() { return 0; }
inline cudaError_t cudaDeviceSynchronize() { return 0; }
inline cudaError_t cudaMalloc(float**, size_t) { return 0; }
inline cudaError_t cudaFree(void*) { return 0; }
inline cudaError_t cudaMemcpy(void*, const void*, size_t, int) { return 0; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp*, int) { return 0; }
template <class F> cudaError_t cudaFuncSetAttribute(F, int, int) { return 0; }
template <class F> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, F, int, size_t) { return 0; }
inline void __syncwarp() {}
inline void __syncthreads() {}
inline float atomicAdd(float* p, float v) { float o = *p; *p += v; return o; }
