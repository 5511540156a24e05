#include <cusolverDn.h>

#include <string>
#include <vector>

#include "../hermitian_eigensolver.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::phonon::kernels {
namespace {

struct Handle {
  cusolverDnHandle_t h{};
  Handle() { QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreate(&h)); }
  ~Handle() { cusolverDnDestroy(h); }
};

struct JacobiParams {
  syevjInfo_t p{};
  JacobiParams() {
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreateSyevjInfo(&p));
    // Tolerance 0: converge to machine precision, so the GPU eigenpairs match LAPACK's to rounding.
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnXsyevjSetTolerance(p, 0.0));
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnXsyevjSetMaxSweeps(p, 100));
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnXsyevjSetSortEig(p, 1));
  }
  ~JacobiParams() { cusolverDnDestroySyevjInfo(p); }
};

void check_info(const DeviceBuffer<int>& info, const char* solver) {
  const std::vector<int> h = info.to_host();  // synchronizes
  for (std::size_t b = 0; b < h.size(); ++b)
    if (h[b] != 0)
      throw Error(std::string(solver) + " failed on dynamical matrix " + std::to_string(b) + " of the batch (info = " + std::to_string(h[b]) + ")");
}

}  // namespace

// Matrices up to 32 x 32 (10 atoms) go through the batched Jacobi solver in one call; larger ones, whose
// diagonalization is heavy enough to fill the GPU one at a time, through the divide-and-conquer zheevd.
void hermitian_eigensolver_cuda(int n, int batch, cplx* a_dev, double* w_dev) {
  Handle s;
  auto* a = reinterpret_cast<cuDoubleComplex*>(a_dev);
  int lwork = 0;
  if (n <= 32) {
    JacobiParams params;
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevjBatched_bufferSize(s.h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, a, n,
                                                                         w_dev, &lwork, params.p, batch));
    DeviceBuffer<cuDoubleComplex> work(lwork, "cuSOLVER heevjBatched workspace");
    DeviceBuffer<int> info(batch, "cuSOLVER info");
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevjBatched(s.h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, a, n, w_dev,
                                                              work.data(), lwork, info.data(), params.p, batch));
    check_info(info, "cuSOLVER heevjBatched");
    return;
  }
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevd_bufferSize(s.h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, a, n, w_dev, &lwork));
  DeviceBuffer<cuDoubleComplex> work(lwork, "cuSOLVER heevd workspace");
  DeviceBuffer<int> info(batch, "cuSOLVER info");
  for (int b = 0; b < batch; ++b)
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevd(s.h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n,
                                                       a + static_cast<std::size_t>(b) * n * n, n, w_dev + static_cast<std::size_t>(b) * n,
                                                       work.data(), lwork, info.data() + b));
  check_info(info, "cuSOLVER heevd");
}

}  // namespace quanta::phonon::kernels
