#include <cstdio>
#include <string>

#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::device {

namespace {
std::string bytes_text(std::size_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu bytes (%.2f GiB)", b, static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}
}  // namespace

void* allocate(std::size_t bytes, const char* what) {
  if (bytes == 0) return nullptr;
  void* ptr = nullptr;
  const cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // a failed cudaMalloc leaves its error as the "last error"; later launch checks must not see it
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfDeviceMemory("out of device memory for " + std::string(what) + ": asked for " + bytes_text(bytes) +
                            ", " + bytes_text(free_b) + " free of " + bytes_text(total_b));
  }
  if (err != cudaSuccess) {
    const std::string call = "cudaMalloc(" + std::string(what) + ", " + bytes_text(bytes) + ")";
    cuda::throw_cuda_error(err, call.c_str(), __FILE__, __LINE__);
  }
  return ptr;
}

void release(void* ptr) noexcept {
  // Errors here come from an earlier failed kernel and were already reported by a checked call.
  if (ptr) cudaFree(ptr);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) QUANTA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes) QUANTA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

void fill_zero(void* dst, std::size_t bytes) {
  if (bytes) QUANTA_CUDA_CHECK(cudaMemset(dst, 0, bytes));
}

bool pin_host(void* ptr, std::size_t bytes) noexcept {
  if (!ptr || bytes == 0) return false;
  if (cudaHostRegister(ptr, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

void unpin_host(void* ptr) noexcept {
  if (cudaHostUnregister(ptr) != cudaSuccess) cudaGetLastError();
}

}  // namespace quanta::device
