// Sigma's screened rows of M and its bare exchange on the device (twins in cpu/sigma_rows_cpu.cpp).
#include <algorithm>
#include <span>

#include "../sigma_rows.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void screened_rows_kernel(const cplx* __restrict__ m, int ngb, const int* __restrict__ where, int ngs, cplx* __restrict__ out) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  const std::size_t r = blockIdx.y + static_cast<std::size_t>(gridDim.y) * blockIdx.z;
  if (a < ngs) out[r * ngs + a] = m[r * ngb + where[a]];
}

// One block per (n, b): s = sum_g |M|^2 v, reduced in a fixed order (per-thread strided sums, then a tree).
__global__ void bare_exchange_kernel(const cplx* __restrict__ m, int nb, int nocc, int ngb, const double* __restrict__ v, double* __restrict__ s) {
  __shared__ double part[kThreads];
  const int n = blockIdx.y, b = blockIdx.x;
  const cplx* mg = m + (static_cast<std::size_t>(n) * nb + b) * ngb;
  double t = 0;
  for (int g = threadIdx.x; g < ngb; g += kThreads) t += norm2(mg[g]) * v[g];
  part[threadIdx.x] = t;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) s[static_cast<std::size_t>(n) * nocc + b] = part[0];
}

}  // namespace

void screened_rows_cuda(const cplx* m, std::size_t rows, int ngb, const int* where, int ngs, cplx* out) {
  if (rows == 0 || ngs == 0) return;
  // Rows over the grid's (y, z): y up to 65535, z whole multiples of it; the remainder in a second launch.
  const unsigned y = static_cast<unsigned>(std::min<std::size_t>(rows, 65535));
  const std::size_t full = static_cast<std::size_t>(y) * (rows / y);
  const unsigned gx = static_cast<unsigned>((ngs + kThreads - 1) / kThreads);
  screened_rows_kernel<<<dim3(gx, y, static_cast<unsigned>(rows / y)), kThreads>>>(m, ngb, where, ngs, out);
  QUANTA_CUDA_LAUNCH_CHECK("screened_rows_kernel");
  if (full < rows) {
    screened_rows_kernel<<<dim3(gx, static_cast<unsigned>(rows - full), 1), kThreads>>>(m + full * ngb, ngb, where, ngs, out + full * ngs);
    QUANTA_CUDA_LAUNCH_CHECK("screened_rows_kernel (rest)");
  }
}

void bare_exchange_cuda(const cplx* m, int nn, int nb, int nocc, int ngb, const double* v, double* s_host) {
  if (nn == 0 || nocc == 0) return;
  DeviceBuffer<double> s(static_cast<std::size_t>(nn) * nocc, "bare exchange sums");
  bare_exchange_kernel<<<dim3(nocc, nn), kThreads>>>(m, nb, nocc, ngb, v, s.data());
  QUANTA_CUDA_LAUNCH_CHECK("bare_exchange_kernel");
  s.download(std::span<double>(s_host, s.size()));
}

}  // namespace quanta::gw::kernels
