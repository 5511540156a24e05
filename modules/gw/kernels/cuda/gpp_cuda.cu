// The GPP sum on the device, in the decomposition of BerkeleyGW's GPU kernel: bands n and the columns G' over
// blocks, the rows G within them. A block takes one band n, a tile of TILE columns and kThreads rows; each
// thread keeps its row's TILE entries (I, wt and the branch limit) in registers and, for every band m and
// evaluation energy, adds M_nm(G) term(G, G') conj(M_nm(G')) v(G') to sums in registers. The column factors
// conj(M_nm(G')) v(G') and the frequencies w = E - E_m of a chunk of bands go through shared memory; each
// M_nm(G) is one coalesced load per band. Reciprocals instead of divisions (gpp_rcp); the occupied bands,
// the only ones with SX-X, take their own loop. Each block writes its sums to its own slot of a partial
// array (no atomics), and a second kernel adds the slots in a fixed order: the result does not depend on
// the order in which blocks run.
// The matrix elements go up in chunks of bands m that fit the budget; I, wt and v once per call (I and wt not at
// all when they are already on the device).
#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "../gpp.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/cuda/event_timer.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 128;  // rows G per block
constexpr int kBandChunk = 32; // bands m whose column factors are staged at once
constexpr int kMaxE = 4;       // evaluation energies per launch

// Columns per block (registers per thread: 8 per real-mode entry, 10 per complex one).
template <class W>
constexpr int tile_of() { return std::is_same_v<W, double> ? 8 : 4; }

// Bands b_lo .. b_hi-1 of the chunk in m, all occupied (OCC) or all empty.
template <class W, int NE, bool OCC>
__global__ void __launch_bounds__(kThreads) gpp_kernel(int ng, int ncol, const int* __restrict__ gp_index,
                                                       const cplx* __restrict__ i_eps, const W* __restrict__ wt,
                                                       const double* __restrict__ v, int nmc, int b_lo, int b_hi,
                                                       const cplx* __restrict__ m,        // [nn][nmc][ng]
                                                       const double* __restrict__ e_m,    // [nmc]
                                                       const double* __restrict__ e_eval, int ne_all, int e0,
                                                       double* __restrict__ partial) {    // [nn][ne_all][2][2][blocks]
  constexpr int TILE = tile_of<W>();
  __shared__ cplx factor[kBandChunk][TILE];
  __shared__ double freq[kBandChunk][NE];
  const int n = blockIdx.z;
  const int c0 = blockIdx.x * TILE;
  const int g = blockIdx.y * kThreads + threadIdx.x;
  const bool row = g < ng;

  GppMode<W> q[TILE];
#pragma unroll
  for (int t = 0; t < TILE; ++t) {
    const std::size_t at = static_cast<std::size_t>(c0 + t) * ng + g;
    if (row && c0 + t < ncol) q[t] = GppMode<W>(i_eps[at], wt[at]);
  }
  cplx asx[NE], ach[NE];

  const cplx* mn = m + static_cast<std::size_t>(n) * nmc * ng;
  for (int b0 = b_lo; b0 < b_hi; b0 += kBandChunk) {
    const int nb = min(kBandChunk, b_hi - b0);
    __syncthreads();
    for (int i = threadIdx.x; i < kBandChunk * TILE; i += kThreads) {
      const int ib = i / TILE, c = c0 + i % TILE;
      cplx f;
      if (ib < nb && c < ncol) {
        const int gp = gp_index[c];
        f = conj(mn[static_cast<std::size_t>(b0 + ib) * ng + gp]) * v[gp];
      }
      factor[ib][i % TILE] = f;
    }
    for (int i = threadIdx.x; i < kBandChunk * NE; i += kThreads) {
      const int ib = i / NE, e = i % NE;
      freq[ib][e] = ib < nb ? gpp_frequency(e_eval[n * ne_all + e0 + e], e_m[b0 + ib]) : 0.0;
    }
    __syncthreads();
    const cplx* mg_at = mn + static_cast<std::size_t>(b0) * ng + g;
    for (int ib = 0; ib < nb; ++ib) {
      const cplx mg = row ? mg_at[static_cast<std::size_t>(ib) * ng] : cplx();
      double w[NE];
#pragma unroll
      for (int e = 0; e < NE; ++e) w[e] = freq[ib][e];
#pragma unroll
      for (int t = 0; t < TILE; ++t) {
        const GppFactor p(mg * factor[ib][t], q[t]);
#pragma unroll
        for (int e = 0; e < NE; ++e) {
          if constexpr (OCC) gpp_add_occupied(q[t], p, w[e], asx[e], ach[e]);
          else gpp_add_ch(q[t], p, w[e], ach[e]);
        }
      }
    }
  }

  // Block sums: warp shuffles, one value per warp through shared memory, then this block's slots.
  __shared__ double part[4 * NE][kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int e = 0; e < NE; ++e) {
    double s[4] = {asx[e].re, asx[e].im, ach[e].re, ach[e].im};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      for (int off = 16; off > 0; off /= 2) s[k] += __shfl_down_sync(0xffffffffu, s[k], off);
      if (lane == 0) part[4 * e + k][warp] = s[k];
    }
  }
  __syncthreads();
  if (threadIdx.x < 4 * NE) {
    double s = 0;
    for (int wp = 0; wp < kThreads / 32; ++wp) s += part[threadIdx.x][wp];
    const int e = threadIdx.x / 4, k = threadIdx.x % 4;  // k: sx re, sx im, ch re, ch im
    const std::size_t blocks = static_cast<std::size_t>(gridDim.x) * gridDim.y;
    const std::size_t slot = ((static_cast<std::size_t>(n) * ne_all + e0 + e) * 4 + k) * blocks + blockIdx.y * gridDim.x + blockIdx.x;
    partial[slot] += s;
  }
}

// out[o] = the sum of partial[o][0 .. blocks), by one block per o in a fixed order.
__global__ void sum_slots(const double* __restrict__ partial, std::size_t blocks, double* __restrict__ out) {
  __shared__ double part[256 / 32];
  const double* p = partial + blockIdx.x * blocks;
  double s = 0;
  for (std::size_t i = threadIdx.x; i < blocks; i += blockDim.x) s += p[i];
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < 256 / 32; ++w) t += part[w];
    out[blockIdx.x] = t;
  }
}

// The chunk's occupied bands (m0 .. nocc-1) and its empty ones, each by its own kernel.
template <class W, int NE>
void launch(dim3 grid, int ng, int ncol, const int* gp, const cplx* i_eps, const W* wt, const double* v, int nmc, int m0, int nocc,
            const cplx* m, const double* e_m, const double* e_eval, int ne_all, int e0, double* partial) {
  const int split = std::clamp(nocc - m0, 0, nmc);
  if (split > 0) {
    gpp_kernel<W, NE, true><<<grid, kThreads>>>(ng, ncol, gp, i_eps, wt, v, nmc, 0, split, m, e_m, e_eval, ne_all, e0, partial);
    QUANTA_CUDA_LAUNCH_CHECK("gpp_kernel (occupied bands)");
  }
  if (split < nmc) {
    gpp_kernel<W, NE, false><<<grid, kThreads>>>(ng, ncol, gp, i_eps, wt, v, nmc, split, nmc, m, e_m, e_eval, ne_all, e0, partial);
    QUANTA_CUDA_LAUNCH_CHECK("gpp_kernel (empty bands)");
  }
}

template <class W>
void gpp_cuda_modes(const GppJob& j, const W* wt_host, std::size_t device_budget) {
  const std::size_t ng = j.ng;
  const int ncol = j.columns();
  constexpr int TILE = tile_of<W>();
  const dim3 grid(static_cast<unsigned>((ncol + TILE - 1) / TILE), static_cast<unsigned>((ng + kThreads - 1) / kThreads),
                  static_cast<unsigned>(j.nn));
  const std::size_t blocks = static_cast<std::size_t>(grid.x) * grid.y;
  const std::size_t outputs = static_cast<std::size_t>(j.nn) * j.ne * 4;
  const std::size_t budget = device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes();
  // Resident: I, wt (unless already on the device), v, the column indexes, the energies and the block sums; the rest
  // takes chunks of bands m for all n.
  const std::size_t fixed = (j.modes_on_device ? 0 : ncol * ng * (sizeof(cplx) + sizeof(W))) + ng * sizeof(double) + ncol * sizeof(int) +
                            static_cast<std::size_t>(j.nn) * j.ne * sizeof(double) + outputs * (blocks + 1) * sizeof(double);
  const std::size_t per_m = static_cast<std::size_t>(j.nn) * ng * sizeof(cplx) + sizeof(double);
  const std::size_t rest = budget > fixed ? budget - fixed : 0;
  const int chunk = j.m_on_device ? j.nm : static_cast<int>(std::min<std::size_t>(rest / per_m, j.nm));
  if (chunk < 1)
    throw OutOfDeviceMemory("gpp: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold the screened interaction of " +
                            std::to_string(ng) + " x " + std::to_string(ncol) + " G-vectors and one band's matrix elements");

  std::vector<int> columns(ncol);
  for (int c = 0; c < ncol; ++c) columns[c] = j.column_g(c);
  DeviceBuffer<int> gp(std::span<const int>(columns), "gpp columns");
  DeviceBuffer<cplx> i_eps_up;
  DeviceBuffer<W> wt_up;
  if (!j.modes_on_device) {
    i_eps_up = DeviceBuffer<cplx>(std::span<const cplx>(j.i_eps, ncol * ng), "gpp I");
    wt_up = DeviceBuffer<W>(std::span<const W>(wt_host, ncol * ng), "gpp mode frequencies");
  }
  const cplx* i_eps = j.modes_on_device ? j.i_eps : i_eps_up.data();
  const W* wt = j.modes_on_device ? wt_host : wt_up.data();
  DeviceBuffer<double> v(std::span<const double>(j.v, ng), "gpp Coulomb");
  DeviceBuffer<double> e_eval(std::span<const double>(j.e_eval, static_cast<std::size_t>(j.nn) * j.ne), "gpp energies");
  DeviceBuffer<double> partial(outputs * blocks, "gpp block sums");
  DeviceBuffer<double> sums(outputs, "gpp sums");
  QUANTA_CUDA_CHECK(cudaMemset(partial.data(), 0, partial.bytes()));
  DeviceBuffer<cplx> m_up(j.m_on_device ? 0 : static_cast<std::size_t>(j.nn) * chunk * ng, "gpp matrix elements");
  DeviceBuffer<double> e_m(static_cast<std::size_t>(chunk), "gpp band energies");

  cuda::EventTimer timer;
  float kernel_ms = 0;
  for (int m0 = 0; m0 < j.nm; m0 += chunk) {
    const int nmc = std::min(chunk, j.nm - m0);
    // Rows n of the host's [nn][nm][ng], columns m0 .. m0+nmc-1, into [nn][nmc][ng] (on the device already: all m at once).
    if (!j.m_on_device)
      QUANTA_CUDA_CHECK(cudaMemcpy2D(m_up.data(), nmc * ng * sizeof(cplx), j.m + static_cast<std::size_t>(m0) * ng, j.nm * ng * sizeof(cplx),
                                     nmc * ng * sizeof(cplx), j.nn, cudaMemcpyHostToDevice));
    const cplx* m = j.m_on_device ? j.m : m_up.data();
    QUANTA_CUDA_CHECK(cudaMemcpy(e_m.data(), j.e_m + m0, nmc * sizeof(double), cudaMemcpyHostToDevice));
    timer.start();
    for (int e0 = 0; e0 < j.ne; e0 += kMaxE) {
      const int ne = std::min(kMaxE, j.ne - e0);
      auto go = [&](auto tag) {
        launch<W, decltype(tag)::value>(grid, j.ng, ncol, gp.data(), i_eps, wt, v.data(), nmc, m0, j.nocc, m, e_m.data(),
                                        e_eval.data(), j.ne, e0, partial.data());
      };
      if (ne == 1) go(std::integral_constant<int, 1>{});
      else if (ne == 2) go(std::integral_constant<int, 2>{});
      else if (ne == 3) go(std::integral_constant<int, 3>{});
      else go(std::integral_constant<int, 4>{});
    }
    kernel_ms += timer.stop_ms();
  }
  timer.start();
  sum_slots<<<static_cast<unsigned>(outputs), 256>>>(partial.data(), blocks, sums.data());
  QUANTA_CUDA_LAUNCH_CHECK("sum_slots");
  kernel_ms += timer.stop_ms();
  if (j.kernel_seconds) *j.kernel_seconds += 1e-3 * kernel_ms;
  std::vector<double> host(outputs);
  QUANTA_CUDA_CHECK(cudaMemcpy(host.data(), sums.data(), sums.bytes(), cudaMemcpyDeviceToHost));
  const std::size_t nne = static_cast<std::size_t>(j.nn) * j.ne;
  for (std::size_t i = 0; i < nne; ++i) {
    j.sx[i] -= j.weight * cplx(host[4 * i], host[4 * i + 1]);
    j.ch[i] += 0.5 * j.weight * cplx(host[4 * i + 2], host[4 * i + 3]);
  }
}

__global__ void rcp_kernel(const double* x, double* r, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) r[i] = gpp_rcp(x[i]);
}

}  // namespace

void gpp_cuda(const GppJob& j, std::size_t device_budget) {
  if (j.nn == 0 || j.nm == 0 || j.ng == 0 || j.ne == 0 || j.columns() == 0) return;
  if ((j.wt == nullptr) == (j.wt_complex == nullptr)) throw Error("gpp: give the mode frequencies as real or as complex values, not both or neither");
  if (j.wt) gpp_cuda_modes(j, j.wt, device_budget);
  else gpp_cuda_modes(j, j.wt_complex, device_budget);
}

void gpp_rcp_cuda(const double* x, double* r, std::size_t n) {
  if (n == 0) return;
  DeviceBuffer<double> dx(std::span<const double>(x, n), "rcp x"), dr(n, "rcp r");
  rcp_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(dx.data(), dr.data(), n);
  QUANTA_CUDA_LAUNCH_CHECK("rcp_kernel");
  QUANTA_CUDA_CHECK(cudaMemcpy(r, dr.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
}

}  // namespace quanta::gw::kernels
