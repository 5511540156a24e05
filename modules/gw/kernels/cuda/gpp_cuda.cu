// The GPP sum on the device. A block takes one band n and a tile of kTile columns G'; its threads stride
// over the rows G, hold I(G, G') and wt(G, G') of their tile in registers, and for every band m and
// evaluation energy add Re[M_nm(G) term(G, G') conj(M_nm(G')) v(G')] to per-thread sums; one block
// reduction and one atomic add per (n, energy) at the end. Each (G, G') entry is read once per n, each
// M_nm(G) once per tile, and M_nm(G') is the same address for the whole block (a broadcast).
// The matrix elements go up in chunks of bands m that fit the budget; I, wt and v once per call.
#include <algorithm>
#include <string>

#include "../gpp.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 128;
constexpr int kTile = 8;   // G' columns per block
constexpr int kMaxE = 4;   // evaluation energies per launch

__global__ void gpp_kernel(int ng, const cplx* __restrict__ i_eps, const double* __restrict__ wt, const double* __restrict__ v,
                           int nm_chunk, int m0, int nocc, const cplx* __restrict__ m,  // [nn][nm_chunk][ng]
                           const double* __restrict__ e_m,                              // [nm_chunk]
                           const double* __restrict__ e_eval, int ne_stride, int e0, int ne,
                           double* __restrict__ sx, double* __restrict__ ch) {          // [nn][ne_stride]
  const int n = blockIdx.y;
  const int gp0 = blockIdx.x * kTile;
  const int tile = min(kTile, ng - gp0);
  double energy[kMaxE];
  for (int e = 0; e < ne; ++e) energy[e] = e_eval[n * ne_stride + e0 + e];
  double asx[kMaxE] = {0, 0, 0, 0}, ach[kMaxE] = {0, 0, 0, 0};
  const cplx* mn = m + static_cast<std::size_t>(n) * nm_chunk * ng;

  for (int g = threadIdx.x; g < ng; g += blockDim.x) {
    cplx I[kTile];
    double W[kTile];
    for (int t = 0; t < kTile; ++t) {
      const std::size_t gg = g + static_cast<std::size_t>(ng) * (gp0 + t);
      I[t] = t < tile ? i_eps[gg] : cplx();
      W[t] = t < tile ? wt[gg] : 0.0;
    }
    for (int im = 0; im < nm_chunk; ++im) {
      const cplx* row = mn + static_cast<std::size_t>(im) * ng;
      const cplx mg = row[g];
      const bool occ = m0 + im < nocc;
      for (int t = 0; t < tile; ++t) {
        if (W[t] == 0.0) continue;
        const cplx f = mg * conj(row[gp0 + t]) * v[gp0 + t];
        for (int e = 0; e < ne; ++e) {
          cplx ssx, sch;
          gpp_term(I[t], W[t], energy[e] - e_m[im], occ, ssx, sch);
          asx[e] += (f * ssx).re;
          ach[e] += (f * sch).re;
        }
      }
    }
  }

  // Block reduction: warp shuffles, then one value per warp through shared memory.
  __shared__ double part[2 * kMaxE][kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int e = 0; e < ne; ++e) {
    for (int off = 16; off > 0; off /= 2) {
      asx[e] += __shfl_down_sync(0xffffffffu, asx[e], off);
      ach[e] += __shfl_down_sync(0xffffffffu, ach[e], off);
    }
    if (lane == 0) {
      part[2 * e][warp] = asx[e];
      part[2 * e + 1][warp] = ach[e];
    }
  }
  __syncthreads();
  if (threadIdx.x < 2 * ne) {
    double s = 0;
    for (int w = 0; w < kThreads / 32; ++w) s += part[threadIdx.x][w];
    const int e = threadIdx.x / 2;
    atomicAdd((threadIdx.x % 2 == 0 ? sx : ch) + n * ne_stride + e0 + e, s);
  }
}

}  // namespace

void gpp_cuda(const GppJob& j, std::size_t device_budget) {
  if (j.nn == 0 || j.nm == 0 || j.ng == 0 || j.ne == 0) return;
  const std::size_t ng = j.ng;
  const std::size_t budget = device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes();
  // Resident: I, wt, v, the energies and the sums; the rest takes chunks of bands m for all n.
  const std::size_t fixed = ng * ng * (sizeof(cplx) + sizeof(double)) + ng * sizeof(double) +
                            (static_cast<std::size_t>(j.nn) * j.ne * 3) * sizeof(double);
  const std::size_t per_m = static_cast<std::size_t>(j.nn) * ng * sizeof(cplx) + sizeof(double);
  const std::size_t rest = budget > fixed ? budget - fixed : 0;
  const int chunk = static_cast<int>(std::min<std::size_t>(rest / per_m, j.nm));
  if (chunk < 1)
    throw OutOfDeviceMemory("gpp: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold the screened interaction of " +
                            std::to_string(ng) + " G-vectors and one band's matrix elements");

  DeviceBuffer<cplx> i_eps(std::span<const cplx>(j.i_eps, ng * ng), "gpp I");
  DeviceBuffer<double> wt(std::span<const double>(j.wt, ng * ng), "gpp mode frequencies");
  DeviceBuffer<double> v(std::span<const double>(j.v, ng), "gpp Coulomb");
  DeviceBuffer<double> e_eval(std::span<const double>(j.e_eval, static_cast<std::size_t>(j.nn) * j.ne), "gpp energies");
  DeviceBuffer<double> sums(2 * static_cast<std::size_t>(j.nn) * j.ne, "gpp sums");
  QUANTA_CUDA_CHECK(cudaMemset(sums.data(), 0, sums.bytes()));
  double* sx = sums.data();
  double* ch = sums.data() + static_cast<std::size_t>(j.nn) * j.ne;
  DeviceBuffer<cplx> m(static_cast<std::size_t>(j.nn) * chunk * ng, "gpp matrix elements");
  DeviceBuffer<double> e_m(static_cast<std::size_t>(chunk), "gpp band energies");

  const dim3 grid(static_cast<unsigned>((ng + kTile - 1) / kTile), static_cast<unsigned>(j.nn));
  for (int m0 = 0; m0 < j.nm; m0 += chunk) {
    const int nmc = std::min(chunk, j.nm - m0);
    // Rows n of the host's [nn][nm][ng], columns m0 .. m0+nmc-1, into [nn][nmc][ng].
    QUANTA_CUDA_CHECK(cudaMemcpy2D(m.data(), nmc * ng * sizeof(cplx), j.m + static_cast<std::size_t>(m0) * ng, j.nm * ng * sizeof(cplx),
                                   nmc * ng * sizeof(cplx), j.nn, cudaMemcpyHostToDevice));
    QUANTA_CUDA_CHECK(cudaMemcpy(e_m.data(), j.e_m + m0, nmc * sizeof(double), cudaMemcpyHostToDevice));
    for (int e0 = 0; e0 < j.ne; e0 += kMaxE) {
      gpp_kernel<<<grid, kThreads>>>(j.ng, i_eps.data(), wt.data(), v.data(), nmc, m0, j.nocc, m.data(), e_m.data(), e_eval.data(), j.ne, e0,
                                     std::min(kMaxE, j.ne - e0), sx, ch);
      QUANTA_CUDA_LAUNCH_CHECK("gpp_kernel");
    }
  }
  std::vector<double> host(sums.size());
  QUANTA_CUDA_CHECK(cudaMemcpy(host.data(), sums.data(), sums.bytes(), cudaMemcpyDeviceToHost));
  const std::size_t nne = static_cast<std::size_t>(j.nn) * j.ne;
  for (std::size_t i = 0; i < nne; ++i) {
    j.sx[i] -= j.weight * host[i];
    j.ch[i] += 0.5 * j.weight * host[nne + i];
  }
}

}  // namespace quanta::gw::kernels
