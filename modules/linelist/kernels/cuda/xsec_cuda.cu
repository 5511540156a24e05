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

// One line's points over the lanes of a warp.
__device__ void spread(const XsecGrid& g, const XsecParams& p, int lane, double nu0, double s, double a, double gm, double* sigma) {
  long long first, last;
  line_reach(g, p.cutoff, nu0, first, last);
  const double f = line_factor(g, p, nu0, s, gm, first, last);
  if (f == 0) return;
  for (long long i = first + lane; i <= last; i += 32) atomicAdd(sigma + i, f * line_contribution(p, g.start + i * g.step - nu0, g.step, a, gm));
}

__global__ void xsec_kernel(XsecGrid g, XsecParams p, std::size_t count, const double* __restrict__ nu, const double* __restrict__ s,
                            const double* __restrict__ alpha, const double* __restrict__ gamma, double* __restrict__ sigma) {
  const int lane = threadIdx.x & 31;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x >> 5);
  for (std::size_t j = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; j < count; j += warps)
    spread(g, p, lane, nu[j], s[j], alpha ? alpha[j] : 0, gamma ? gamma[j] : 0, sigma);
}

// Raw lines: every lane of the warp computes the line's parameters (the same QUANTA_HD function as the CPU twin), the
// first counts it.
__global__ void xsec_raw_kernel(XsecGrid g, XsecParams p, XsecPhysics ph, XsecRawLines l, double* __restrict__ sigma,
                                unsigned long long* __restrict__ used) {
  const int lane = threadIdx.x & 31;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x >> 5);
  for (std::size_t j = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; j < l.count; j += warps) {
    double nu, s, a, gm;
    if (!line_parameters(ph, l, j, nu, s, a, gm)) continue;
    if (lane == 0) atomicAdd(used, 1ULL);
    spread(g, p, lane, nu, s, a, gm, sigma);
  }
}

}  // namespace

struct XsecEngine::Cuda {
  XsecGrid grid;
  XsecParams params;
  DeviceBuffer<double> sigma, nu, s, alpha, gamma;
  std::size_t capacity = 0;
  DeviceBuffer<double> raw[5];  // nu, A, g', E'', J''
  std::size_t raw_capacity = 0;
  DeviceBuffer<double> tables;  // the broadeners' gamma and n by J
  DeviceBuffer<XsecBroadener> broadeners;
  DeviceBuffer<unsigned long long> used;
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

std::size_t xsec_cuda_add_raw(XsecEngine::Cuda& ws, const XsecRawLines& l, const XsecPhysics& physics) {
  if (l.count > ws.raw_capacity) {
    ws.raw_capacity = std::max(l.count, ws.raw_capacity * 2);
    for (auto& b : ws.raw) b = DeviceBuffer<double>(ws.raw_capacity, "raw lines");
  }
  const std::size_t bytes = l.count * sizeof(double);
  const double* host[5] = {l.nu, l.a, l.g_upper, l.e_lower, l.j_lower};
  for (int k = 0; k < 5; ++k) QUANTA_CUDA_CHECK(cudaMemcpy(ws.raw[k].data(), host[k], bytes, cudaMemcpyHostToDevice));
  XsecRawLines d{l.count, ws.raw[0].data(), ws.raw[1].data(), ws.raw[2].data(), ws.raw[3].data(), ws.raw[4].data()};
  // The broadeners' tables, one array on the device, their pointers rewritten into it.
  XsecPhysics ph = physics;
  std::vector<double> flat;
  std::vector<XsecBroadener> br(physics.broadeners, physics.broadeners + physics.nbroadeners);
  for (const auto& b : br) {
    flat.insert(flat.end(), b.gamma_by_j, b.gamma_by_j + b.jcount);
    flat.insert(flat.end(), b.n_by_j, b.n_by_j + b.jcount);
  }
  if (!flat.empty()) ws.tables = DeviceBuffer<double>(std::span<const double>(flat), "broadening tables");
  std::size_t at = 0;
  for (auto& b : br) {
    b.gamma_by_j = ws.tables.data() + at;
    b.n_by_j = ws.tables.data() + at + b.jcount;
    at += 2 * static_cast<std::size_t>(b.jcount);
  }
  if (!br.empty()) ws.broadeners = DeviceBuffer<XsecBroadener>(std::span<const XsecBroadener>(br), "broadeners");
  ph.broadeners = br.empty() ? nullptr : ws.broadeners.data();
  if (ws.used.size() == 0) ws.used = DeviceBuffer<unsigned long long>(1, "line count");
  QUANTA_CUDA_CHECK(cudaMemset(ws.used.data(), 0, sizeof(unsigned long long)));
  const int threads = 256;
  const std::size_t blocks = std::min<std::size_t>((l.count * 32 + threads - 1) / threads, 65535 * 16);
  xsec_raw_kernel<<<static_cast<unsigned>(blocks), threads>>>(ws.grid, ws.params, ph, d, ws.sigma.data(), ws.used.data());
  QUANTA_CUDA_LAUNCH_CHECK("xsec_raw_kernel");
  unsigned long long used = 0;
  QUANTA_CUDA_CHECK(cudaMemcpy(&used, ws.used.data(), sizeof used, cudaMemcpyDeviceToHost));
  return static_cast<std::size_t>(used);
}

std::vector<double> xsec_cuda_result(const XsecEngine::Cuda& ws) {
  std::vector<double> out(ws.sigma.size());
  QUANTA_CUDA_CHECK(cudaMemcpy(out.data(), ws.sigma.data(), ws.sigma.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace quanta::linelist::kernels
