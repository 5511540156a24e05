// The plasmon-pole modes on the device: one thread per (G, G') entry, rows G fastest (coalesced writes; the
// reads of eps^-1 follow the rows of the irreducible order, which a rotation permutes).
#include "../gpp_modes.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::gw::kernels {
namespace {

__global__ void gpp_modes_kernel(GppModesJob j) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= j.entries()) return;
  const int a = static_cast<int>(i % j.ng), c = static_cast<int>(i / j.ng);
  cplx I;
  double wt;
  gpp_mode(j, a, j.col_lo + c, I, wt);
  j.i_eps[i] = I;
  j.wt[i] = wt;
}

}  // namespace

void gpp_modes_cuda(const GppModesJob& j) {
  const std::size_t n = j.entries();
  if (n == 0) return;
  constexpr int kThreads = 256;
  gpp_modes_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads>>>(j);
  QUANTA_CUDA_LAUNCH_CHECK("gpp_modes_kernel");
  QUANTA_CUDA_CHECK(cudaDeviceSynchronize());  // its faults and its time here, not in the next stage
}

}  // namespace quanta::gw::kernels
