#include <strings.h>

#include "quanta/core/cuda/check.cuh"

namespace quanta::cuda {

namespace {

std::string where(const char* call, const char* file, int line) {
  return std::string(call) + " at " + file + ":" + std::to_string(line);
}

// The status each library returns when it cannot get device memory; reported as OutOfDeviceMemory so
// that callers with a batched fallback catch it like a failed cudaMalloc.
bool is_alloc_failure(const char* library, int status) {
  if (strcasecmp(library, "cuBLAS") == 0) return status == 3;    // CUBLAS_STATUS_ALLOC_FAILED
  if (strcasecmp(library, "cuSOLVER") == 0) return status == 2;  // CUSOLVER_STATUS_ALLOC_FAILED
  if (strcasecmp(library, "cuFFT") == 0) return status == 2;     // CUFFT_ALLOC_FAILED
  return false;
}

}  // namespace

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  const std::string msg = "CUDA error in " + where(call, file, line) + ": " + cudaGetErrorName(err) + " (" +
                          cudaGetErrorString(err) + ")";
  if (err == cudaErrorMemoryAllocation) throw OutOfDeviceMemory(msg);
  throw Error(msg);
}

void throw_library_error(const char* library, int status, const char* call, const char* file, int line) {
  const std::string msg = std::string(library) + " error in " + where(call, file, line) + ": status " +
                          std::to_string(status) +
                          (is_alloc_failure(library, status) ? " (allocation failed)" : "");
  if (is_alloc_failure(library, status)) throw OutOfDeviceMemory(msg);
  throw Error(msg);
}

}  // namespace quanta::cuda
