#include <omp.h>

#include <vector>

#include "../../src/region_failure.hpp"
#include "../gpp.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

// Threads over (n, column G') pairs; each thread sums M(G) term conj(M(G')) v(G') over G for each m, adds
// those row sums into its own [nn][ne] arrays, and the threads' arrays are added at the end (sums of ng, then
// of nm and of the items, not one running sum of all the terms). The same per-term functions as the device's
// kernel.
template <class W>
void gpp_cpu_modes(const GppJob& j, const W* wt) {
  const std::size_t ng = j.ng;
  const int ncol = j.columns();
  const std::size_t nne = static_cast<std::size_t>(j.nn) * j.ne;
  const long items = static_cast<long>(j.nn) * ncol;
  std::vector<cplx> sx(nne), ch(nne);
  // Per-thread sums and modes, allocated before the region (an allocation inside it could throw).
  const int threads = omp_get_max_threads();
  std::vector<std::vector<cplx>> thread_sx(threads, std::vector<cplx>(nne)), thread_ch(thread_sx);
  std::vector<std::vector<GppMode<W>>> thread_modes(threads, std::vector<GppMode<W>>(ng));
  std::vector<std::vector<double>> thread_w(threads, std::vector<double>(j.ne));
  std::vector<std::vector<cplx>> thread_row(threads, std::vector<cplx>(2 * j.ne));
#pragma omp parallel num_threads(threads)
  {
    const int tid = omp_get_thread_num();
    std::vector<cplx>& tsx = thread_sx[tid];
    std::vector<cplx>& tch = thread_ch[tid];
    std::vector<GppMode<W>>& modes = thread_modes[tid];
    std::vector<double>& w = thread_w[tid];
    cplx* rsx = thread_row[tid].data();
    cplx* rch = rsx + j.ne;
#pragma omp for schedule(dynamic, 4)
    for (long item = 0; item < items; ++item) {
      const int n = static_cast<int>(item / ncol);
      const int c = static_cast<int>(item % ncol);
      const std::size_t gp = j.column_g(c);
      for (std::size_t g = 0; g < ng; ++g) modes[g] = GppMode<W>(j.i_eps[ng * c + g], wt[ng * c + g]);
      for (int m = 0; m < j.nm; ++m) {
        const cplx* mg = j.m + (static_cast<std::size_t>(n) * j.nm + m) * ng;
        const cplx right = conj(mg[gp]) * j.v[gp];
        for (int e = 0; e < j.ne; ++e) w[e] = gpp_frequency(j.e_eval[n * j.ne + e], j.e_m[m]);
        for (int e = 0; e < 2 * j.ne; ++e) rsx[e] = cplx();
        if (m < j.nocc) {
          for (std::size_t g = 0; g < ng; ++g) {
            const GppFactor p(mg[g] * right, modes[g]);
            for (int e = 0; e < j.ne; ++e) gpp_add_occupied(modes[g], p, w[e], rsx[e], rch[e]);
          }
        } else {
          for (std::size_t g = 0; g < ng; ++g) {
            const GppFactor p(mg[g] * right, modes[g]);
            for (int e = 0; e < j.ne; ++e) gpp_add_ch(modes[g], p, w[e], rch[e]);
          }
        }
        for (int e = 0; e < j.ne; ++e) {
          tsx[static_cast<std::size_t>(n) * j.ne + e] += rsx[e];
          tch[static_cast<std::size_t>(n) * j.ne + e] += rch[e];
        }
      }
    }
#pragma omp critical(gw_gpp_sum)
    for (std::size_t i = 0; i < nne; ++i) {
      sx[i] += tsx[i];
      ch[i] += tch[i];
    }
  }
  for (std::size_t i = 0; i < nne; ++i) {
    j.sx[i] -= j.weight * sx[i];
    j.ch[i] += 0.5 * j.weight * ch[i];
  }
}

}  // namespace

void gpp_cpu(const GppJob& j) {
  if ((j.wt == nullptr) == (j.wt_complex == nullptr)) throw Error("gpp: give the mode frequencies as real or as complex values, not both or neither");
  if (j.modes_on_device || j.m_on_device) throw Error("gpp: the CPU backend needs the modes and the matrix elements on the host, not on the device");
  if (j.wt) gpp_cpu_modes(j, j.wt);
  else gpp_cpu_modes(j, j.wt_complex);
}

#if !QUANTA_GW_CUDA
void gpp_rcp_cuda(const double*, double*, std::size_t) { throw Error("gpp: this build has no CUDA backend"); }
#endif

void gpp(Backend backend, const GppJob& job, std::size_t device_budget) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return gpp_cuda(job, device_budget);
#else
  (void)device_budget;
#endif
  if (backend == Backend::Cuda) throw Error("gpp: this build has no CUDA backend");
  gpp_cpu(job);
}

}  // namespace quanta::gw::kernels
