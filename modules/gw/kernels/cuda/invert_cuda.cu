// eps^-1 on the device: cuSOLVER LU (zgetrf) of eps, then zgetrs against the identity.
#include <cusolverDn.h>

#include "../invert.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

__global__ void identity_kernel(cplx* __restrict__ m, int n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  if (i < nn) m[i] = (i % (n + 1) == 0) ? cplx(1.0) : cplx();
}

struct Solver {
  cusolverDnHandle_t h = nullptr;
  Solver() { QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreate(&h)); }
  ~Solver() { cusolverDnDestroy(h); }
};

}  // namespace

std::vector<cplx> invert_cuda(const std::vector<cplx>& a, int n, const std::string& what) {
  Solver s;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  DeviceBuffer<cplx> lu(std::span<const cplx>(a.data(), nn), "eps (LU)");
  DeviceBuffer<cplx> inv(nn, "eps^-1");
  DeviceBuffer<int> piv(static_cast<std::size_t>(n), "LU pivots");
  DeviceBuffer<int> info(1, "cuSOLVER info");
  auto* m = reinterpret_cast<cuDoubleComplex*>(lu.data());
  int lwork = 0;
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZgetrf_bufferSize(s.h, n, n, m, n, &lwork));
  DeviceBuffer<cplx> work(static_cast<std::size_t>(lwork), "cuSOLVER work area");
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZgetrf(s.h, n, n, m, n, reinterpret_cast<cuDoubleComplex*>(work.data()), piv.data(), info.data()));
  int h_info = 0;
  QUANTA_CUDA_CHECK(cudaMemcpy(&h_info, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
  if (h_info != 0) throw Error(what + ": the dielectric matrix is singular (cuSOLVER getrf info " + std::to_string(h_info) + ")");
  identity_kernel<<<static_cast<unsigned>((nn + 255) / 256), 256>>>(inv.data(), n);
  QUANTA_CUDA_LAUNCH_CHECK("invert identity_kernel");
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZgetrs(s.h, CUBLAS_OP_N, n, n, m, n, piv.data(), reinterpret_cast<cuDoubleComplex*>(inv.data()),
                                                       n, info.data()));
  std::vector<cplx> out(nn);
  QUANTA_CUDA_CHECK(cudaMemcpy(out.data(), inv.data(), nn * sizeof(cplx), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace quanta::gw::kernels
