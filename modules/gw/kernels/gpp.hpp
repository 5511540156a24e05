#pragma once
// The generalized plasmon-pole sum of the correlation self-energy (Hybertsen-Louie, as in BerkeleyGW),
// one q-point per call, for bands n at k and all bands m at k-q:
//   SX-X_n(E) -= sum_{m occ} sum_{G,G'} M_nm(G) conj(M_nm(G')) ssx(G,G'; E - E_m) v(q+G'),
//   CH_n(E)   += 1/2 sum_{m}  sum_{G,G'} M_nm(G) conj(M_nm(G')) sch(G,G'; E - E_m) v(q+G'),
// with I = delta - eps^-1, wt = the mode frequency (wt^2 = Omega^2 / I), Omega^2 = wt^2 I and, for
// w = E - E_m, d = wt / (w - wt):
//   |w - wt|^2 > 0.25 eV^2 and |d|^2 < 2.5e5:  sch = d I, ssx = Omega^2 / (w^2 - wt^2);
//   otherwise (occupied m only), |d|^2 > 1e-12: sch = 0, ssx = -Omega^2 d / (4 wt^2 (d + 1/2));
//   occupied m, |ssx| > 4 |I| and w < 0: ssx = 0.
// Entries with wt = 0 (the mode was skipped) contribute nothing.
// Preconditions: energies in eV, v in Ry (so SX-X and CH come out in Ry); M on the screened sphere.
#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"

namespace quanta::gw::kernels {

struct GppJob {
  int ng = 0;                  // screened G-vectors
  const cplx* i_eps = nullptr; // [ng][ng] I(G, G') at G + ng G'
  const double* wt = nullptr;  // [ng][ng] mode frequencies, eV (0: skipped)
  const double* v = nullptr;   // [ng] v(q+G'), Ry, with the zone weights
  int nn = 0, nm = 0, ne = 0;
  int nocc = 0;                // bands m < nocc are occupied
  const cplx* m = nullptr;     // [nn][nm][ng]
  const double* e_m = nullptr; // [nm] eV
  const double* e_eval = nullptr;  // [nn][ne] eV
  double weight = 1.0;         // the q-point's multiplicity
  double* sx = nullptr;        // [nn][ne] SX-X, accumulated
  double* ch = nullptr;        // [nn][ne] CH, accumulated
};

// One (G, G') term for w = E - E_m; writes ssx and sch.
QUANTA_HD void gpp_term(cplx I, double wt, double w, bool occupied, cplx& ssx, cplx& sch) {
  ssx = cplx();
  sch = cplx();
  if (wt == 0.0) return;
  if (w > -1e-12 && w < 1e-12) w = 1e-12;
  const double wt2 = wt * wt;
  const cplx omega2 = wt2 * I;
  const double wdiff = w - wt;
  const double d = wt / wdiff;
  if (wdiff * wdiff > 0.25 && d * d < 2.5e5) {
    sch = d * I;
    if (occupied) ssx = omega2 / (w * w - wt2);
  } else if (occupied && d * d > 1e-12) {
    ssx = -1.0 * omega2 * (d / (4.0 * wt2 * (d + 0.5)));
  }
  if (occupied && w < 0 && norm2(ssx) > 16.0 * norm2(I)) ssx = cplx();  // |ssx| > 4 |I|
}

void gpp_cpu(const GppJob& job);
#if QUANTA_GW_CUDA
// device_budget: bytes it may take on the device (0: the free memory less a margin); the matrix elements
// go up in chunks of bands m when they do not fit at once.
void gpp_cuda(const GppJob& job, std::size_t device_budget);
#endif
void gpp(Backend backend, const GppJob& job, std::size_t device_budget = 0);

}  // namespace quanta::gw::kernels
