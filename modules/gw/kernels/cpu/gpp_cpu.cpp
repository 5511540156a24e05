#include <omp.h>

#include <vector>

#include "../../src/region_failure.hpp"
#include "../gpp.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {

// Threads over (n, G') pairs, as the device's blocks; each thread sums Re[M(G) term conj(M(G')) v(G')]
// over m and G into its own [nn][ne] arrays, added together at the end.
void gpp_cpu(const GppJob& j) {
  const std::size_t ng = j.ng;
  const std::size_t nne = static_cast<std::size_t>(j.nn) * j.ne;
  const long items = static_cast<long>(j.nn) * j.ng;
  std::vector<double> sx(nne, 0.0), ch(nne, 0.0);
  // Per-thread sums, allocated before the region (an allocation inside it could throw).
  const int threads = omp_get_max_threads();
  std::vector<std::vector<double>> thread_sx(threads, std::vector<double>(nne, 0.0)), thread_ch(thread_sx);
#pragma omp parallel num_threads(threads)
  {
    std::vector<double>& tsx = thread_sx[omp_get_thread_num()];
    std::vector<double>& tch = thread_ch[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 4)
    for (long item = 0; item < items; ++item) {
      const int n = static_cast<int>(item / j.ng);
      const std::size_t gp = static_cast<std::size_t>(item % j.ng);
      const cplx* I = j.i_eps + ng * gp;
      const double* wt = j.wt + ng * gp;
      for (int m = 0; m < j.nm; ++m) {
        const bool occ = m < j.nocc;
        const cplx* mg = j.m + (static_cast<std::size_t>(n) * j.nm + m) * ng;
        const cplx right = conj(mg[gp]) * j.v[gp];
        for (int e = 0; e < j.ne; ++e) {
          const double w = j.e_eval[n * j.ne + e] - j.e_m[m];
          cplx sx_col, ch_col;
          for (std::size_t g = 0; g < ng; ++g) {
            if (wt[g] == 0.0) continue;
            cplx ssx, sch;
            gpp_term(I[g], wt[g], w, occ, ssx, sch);
            sx_col += mg[g] * ssx;
            ch_col += mg[g] * sch;
          }
          tsx[n * j.ne + e] += (sx_col * right).re;
          tch[n * j.ne + e] += (ch_col * right).re;
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
