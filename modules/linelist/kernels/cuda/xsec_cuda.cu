// Cross sections on the device (kernels/xsec.hpp): one warp per line, its lanes over the grid points the line
// reaches, each adding S f(nu_i - nu_0) into the device grid with a double-precision atomic. The profile is the
// same QUANTA_HD function the CPU twin calls.
#include <algorithm>

#include "../xsec.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::linelist::kernels {

namespace {

__global__ void xsec_kernel(XsecGrid g, XsecParams p, std::size_t count, const double* __restrict__ nu, const double* __restrict__ s,
                            const double* __restrict__ alpha, const double* __restrict__ gamma, double* __restrict__ sigma) {
  const int lane = threadIdx.x & 31;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x >> 5);
  for (std::size_t j = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; j < count; j += warps) {
    long long first, last;
    const double nu0 = nu[j];
    line_reach(g, p.cutoff, nu0, first, last);
    const double a = alpha ? alpha[j] : 0, gm = gamma ? gamma[j] : 0;
    const double f = line_factor(g, p, nu0, s[j], gm, first, last);
    if (f == 0) continue;
    for (long long i = first + lane; i <= last; i += 32) atomicAdd(sigma + i, f * line_contribution(p, g.start + i * g.step - nu0, g.step, a, gm));
  }
}

}  // namespace

struct XsecEngine::Cuda {
  XsecGrid grid;
  XsecParams params;
  DeviceBuffer<double> sigma, nu, s, alpha, gamma;
  std::size_t capacity = 0;
};

void XsecEngine::CudaDeleter::operator()(Cuda* p) const { delete p; }

XsecEngine::Cuda* make_xsec_cuda(const XsecGrid& grid, const XsecParams& params) {
  auto ws = std::make_unique<XsecEngine::Cuda>();
  ws->grid = grid;
  ws->params = params;
  ws->sigma = DeviceBuffer<double>(static_cast<std::size_t>(grid.points), "cross-section grid");
  QUANTA_CUDA_CHECK(cudaMemset(ws->sigma.data(), 0, ws->sigma.bytes()));
  return ws.release();
}

void xsec_cuda_add(XsecEngine::Cuda& ws, const XsecLines& l) {
  if (l.count > ws.capacity) {
    ws.capacity = std::max(l.count, ws.capacity * 2);
    ws.nu = DeviceBuffer<double>(ws.capacity, "line centres");
    ws.s = DeviceBuffer<double>(ws.capacity, "line strengths");
    ws.alpha = DeviceBuffer<double>(ws.capacity, "Gaussian half widths");
    ws.gamma = DeviceBuffer<double>(ws.capacity, "Lorentzian half widths");
  }
  const std::size_t bytes = l.count * sizeof(double);
  QUANTA_CUDA_CHECK(cudaMemcpy(ws.nu.data(), l.nu, bytes, cudaMemcpyHostToDevice));
  QUANTA_CUDA_CHECK(cudaMemcpy(ws.s.data(), l.strength, bytes, cudaMemcpyHostToDevice));
  if (l.alpha) QUANTA_CUDA_CHECK(cudaMemcpy(ws.alpha.data(), l.alpha, bytes, cudaMemcpyHostToDevice));
  if (l.gamma) QUANTA_CUDA_CHECK(cudaMemcpy(ws.gamma.data(), l.gamma, bytes, cudaMemcpyHostToDevice));
  const int threads = 256;
  const std::size_t blocks = std::min<std::size_t>((l.count * 32 + threads - 1) / threads, 65535 * 16);
  xsec_kernel<<<static_cast<unsigned>(blocks), threads>>>(ws.grid, ws.params, l.count, ws.nu.data(), ws.s.data(), l.alpha ? ws.alpha.data() : nullptr,
                                                          l.gamma ? ws.gamma.data() : nullptr, ws.sigma.data());
  QUANTA_CUDA_LAUNCH_CHECK("xsec_kernel");
  QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<double> xsec_cuda_result(const XsecEngine::Cuda& ws) {
  std::vector<double> out(ws.sigma.size());
  QUANTA_CUDA_CHECK(cudaMemcpy(out.data(), ws.sigma.data(), ws.sigma.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace quanta::linelist::kernels
