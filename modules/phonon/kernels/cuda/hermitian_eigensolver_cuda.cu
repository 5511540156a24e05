#include <cusolverDn.h>

#include <string>
#include <vector>

#include "../hermitian_eigensolver.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::phonon::kernels {
namespace {

// cuSOLVER handle and params for one call; created per call because a call diagonalizes a whole batch
// (thousands of matrices) and the creation cost is negligible against it.
struct Solver {
  cusolverDnHandle_t handle{};
  cusolverDnParams_t params{};
  Solver() {
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreate(&handle));
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreateParams(&params));
  }
  ~Solver() {
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(handle);
  }
};

}  // namespace

void hermitian_eigensolver_cuda(int n, int batch, cplx* a_dev, double* w_dev) {
  Solver s;
  std::size_t dev_bytes = 0, host_bytes = 0;
  QUANTA_CUDA_LIB_CHECK("cuSOLVER",
                        cusolverDnXsyevBatched_bufferSize(s.handle, s.params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n,
                                                          CUDA_C_64F, a_dev, n, CUDA_R_64F, w_dev, CUDA_C_64F, &dev_bytes,
                                                          &host_bytes, batch));
  DeviceBuffer<char> work(dev_bytes, "cuSOLVER syevBatched workspace");
  DeviceBuffer<int> info(batch, "cuSOLVER info");
  std::vector<char> host_work(host_bytes);
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnXsyevBatched(s.handle, s.params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n,
                                                           CUDA_C_64F, a_dev, n, CUDA_R_64F, w_dev, CUDA_C_64F, work.data(),
                                                           dev_bytes, host_work.data(), host_bytes, info.data(), batch));
  const std::vector<int> h = info.to_host();  // synchronizes
  for (int b = 0; b < batch; ++b)
    if (h[b] != 0) throw Error("cuSOLVER syevBatched failed on matrix " + std::to_string(b) + " (info = " + std::to_string(h[b]) + ")");
}

}  // namespace quanta::phonon::kernels
