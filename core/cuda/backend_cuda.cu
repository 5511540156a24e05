#include "current_device.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta {

int cuda_device_count() {
  int n = 0;
  // No driver, an old driver or no GPU all mean "no device" here: the caller falls back to the CPU.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

int select_device(int local_rank) {
  const int n = cuda_device_count();
  if (n == 0) return -1;
  const int d = local_rank % n;
  QUANTA_CUDA_CHECK(cudaSetDevice(d));
  return d;
}

std::optional<DeviceInfo> device_info(int device) {
  if (device < 0 || device >= cuda_device_count()) return std::nullopt;
  cudaDeviceProp prop{};
  QUANTA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.name = prop.name;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  QUANTA_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  QUANTA_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  // cudaMemGetInfo reports on the current device; switch only when asked about another one, since
  // touching a device creates a context (and takes memory) on it.
  const int previous = detail::current_device();
  if (device != previous) QUANTA_CUDA_CHECK(cudaSetDevice(device));
  const cudaError_t err = cudaMemGetInfo(&info.free_bytes, &info.total_bytes);
  if (device != previous) cudaSetDevice(previous);
  if (err != cudaSuccess) cuda::throw_cuda_error(err, "cudaMemGetInfo", __FILE__, __LINE__);
  return info;
}

namespace detail {
int current_device() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return d;
}
}  // namespace detail

}  // namespace quanta
