#include "../gpp.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {

void gpp_cpu(const GppJob& j) {
  const std::size_t ng = j.ng;
  const long pairs = static_cast<long>(j.nn) * j.ne;
#pragma omp parallel for schedule(dynamic)
  for (long p = 0; p < pairs; ++p) {
    const int n = static_cast<int>(p / j.ne), e = static_cast<int>(p % j.ne);
    const double energy = j.e_eval[n * j.ne + e];
    double sx = 0, ch = 0;
    for (int m = 0; m < j.nm; ++m) {
      const bool occ = m < j.nocc;
      const double w = energy - j.e_m[m];
      const cplx* mg = j.m + (static_cast<std::size_t>(n) * j.nm + m) * ng;
      cplx sx_nm, ch_nm;
      for (std::size_t gp = 0; gp < ng; ++gp) {
        cplx sx_col, ch_col;
        for (std::size_t g = 0; g < ng; ++g) {
          cplx ssx, sch;
          gpp_term(j.i_eps[g + ng * gp], j.wt[g + ng * gp], w, occ, ssx, sch);
          sx_col += mg[g] * ssx;
          ch_col += mg[g] * sch;
        }
        const cplx right = conj(mg[gp]) * j.v[gp];
        sx_nm += sx_col * right;
        ch_nm += ch_col * right;
      }
      sx -= sx_nm.re;
      ch += 0.5 * ch_nm.re;
    }
    j.sx[n * j.ne + e] += j.weight * sx;
    j.ch[n * j.ne + e] += j.weight * ch;
  }
}

void gpp(Backend backend, const GppJob& job) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return gpp_cuda(job);
#endif
  if (backend == Backend::Cuda) throw Error("gpp: the CUDA kernels of the gw module are not implemented yet");
  gpp_cpu(job);
}

}  // namespace quanta::gw::kernels
