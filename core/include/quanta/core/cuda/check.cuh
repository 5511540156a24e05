#pragma once
// Checked CUDA calls for .cu files: every runtime call and every launch is checked, and the error names
// the call (or kernel), the file and the line.
#include <cuda_runtime.h>

#include <string>

#include "quanta/core/error.hpp"

namespace quanta::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_library_error(const char* library, int status, const char* call, const char* file, int line);

}  // namespace quanta::cuda

#define QUANTA_CUDA_CHECK(call)                                                              \
  do {                                                                                       \
    cudaError_t quanta_err_ = (call);                                                        \
    if (quanta_err_ != cudaSuccess) ::quanta::cuda::throw_cuda_error(quanta_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a <<<...>>> launch: catches bad launch configurations immediately; execution errors surface at
// the next checked synchronizing call, which names itself.
#define QUANTA_CUDA_LAUNCH_CHECK(kernel_name)                                                \
  do {                                                                                       \
    cudaError_t quanta_err_ = cudaGetLastError();                                            \
    if (quanta_err_ != cudaSuccess) ::quanta::cuda::throw_cuda_error(quanta_err_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)

// cuBLAS / cuSOLVER / cuFFT status codes: 0 is success in all three.
#define QUANTA_CUDA_LIB_CHECK(library, call)                                                 \
  do {                                                                                       \
    int quanta_st_ = static_cast<int>(call);                                                 \
    if (quanta_st_ != 0) ::quanta::cuda::throw_library_error(library, quanta_st_, #call, __FILE__, __LINE__); \
  } while (0)
