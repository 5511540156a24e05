#pragma once
// The GPP self-energy as matrices <n|Sigma(w_j)|n'> over a set of bands n, n' and frequencies w_j, one
// q-point per call, as the seed's off-diagonal kernel does it: for each band m of the sum and each w_j the
// screened interaction is formed as a matrix (the "prep" step), and its contraction with the matrix elements
// is two ZGEMMs:
//   W_m(G, G'; w) = [sch or ssx](G, G'; w - E_m) v(q+G'),      B = W_m conj(M_m)^T,      S += M_m B,
//   SX-X_nn'(w) -= sum_{m occ} sum_{G,G'} M_nm(G) W^ssx_m(G, G'; w) conj(M_n'm(G')),
//   CH_nn'(w)   += 1/2 sum_{m}  sum_{G,G'} M_nm(G) W^sch_m(G, G'; w) conj(M_n'm(G')),
// with sch and ssx the branches of the diagonal kernel (gpp.hpp) for real mode frequencies, the only ones
// Sigma computes. The diagonal n = n' at w = E_n is the diagonal kernel's sum.
// FLOPs of the two products per (m, w): 8 ng ncol nn + 8 nn^2 ng (the seed's eq. 8), ncol the columns G' held.
#include <cstddef>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "gpp.hpp"

namespace quanta::gw::kernels {

struct GppMatrixJob {
  int ng = 0;                  // rows G: the screened G-vectors
  int ngp = 0;                 // columns G' held (0: all ng)
  const int* gp_index = nullptr;  // [ngp] the G' of each column (nullptr: column c is G' = c)
  const cplx* i_eps = nullptr; // [ngp][ng] I(G, G')
  const double* wt = nullptr;  // [ngp][ng] real mode frequencies, eV
  const double* v = nullptr;   // [ng] v(q+G'), Ry, with the zone weights, indexed by G'
  int nn = 0;                  // bands n (rows and columns of the result)
  int nm = 0, nocc = 0;        // bands m of the sum; m < nocc are occupied
  const cplx* m = nullptr;     // [nn][nm][ng] M_nm(G)
  const double* e_m = nullptr; // [nm] eV
  int nw = 0;
  const double* omega = nullptr;  // [nw] frequencies, eV
  double weight = 1.0;         // the q-point's multiplicity
  cplx* sx = nullptr;          // [nw][nn][nn] SX-X, accumulated: sx[(j nn + n) nn + n']
  cplx* ch = nullptr;          // [nw][nn][nn] CH, accumulated
  double* kernel_seconds = nullptr;  // when given, the CUDA backend adds its device time (events), uploads excluded
  bool modes_on_device = false;  // CUDA backend: i_eps and wt are device pointers (gpp_modes_cuda's)

  int columns() const { return ngp > 0 ? ngp : ng; }
  int column_g(int c) const { return gp_index ? gp_index[c] : c; }
  double flops() const {  // of the ZGEMMs, as the seed's eq. 8 counts them (the SX-X products of occupied m included)
    const double pairs = static_cast<double>(nw) * (nm + nocc);
    return pairs * 8.0 * (static_cast<double>(ng) * columns() * nn + static_cast<double>(nn) * nn * ng);
  }
};

// The factors of one entry (G, G') at w = E - E_m for real modes: sch = I c and, for an occupied m, ssx = I s,
// the same branches as gpp_add_ch and gpp_add_occupied.
QUANTA_HD void gpp_entry_factors(const GppMode<double>& q, double w, bool occupied, double& c, double& s) {
  const double x = w - q.wt, x2 = x * x, wt2 = q.wt * q.wt;
  c = 0.0;
  s = 0.0;
  if (x2 > q.lim) {
    c = q.wt * gpp_rcp(x);
    if (occupied) s = wt2 * gpp_rcp(w * w - wt2);
  } else if (occupied && wt2 > 1e-12 * x2) {
    s = -q.wt * gpp_rcp(2.0 * (w + q.wt));
  }
  if (w < 0 && s * s > 16.0) s = 0.0;  // |ssx| > 4 |I|
}

void gpp_matrix_cpu(const GppMatrixJob& job);
#if QUANTA_GW_CUDA
// device_budget: bytes it may take on the device (0: the free memory less a margin); the W matrices of a
// band m go in chunks of frequencies that fit.
void gpp_matrix_cuda(const GppMatrixJob& job, std::size_t device_budget);
#endif
void gpp_matrix(Backend backend, const GppMatrixJob& job, std::size_t device_budget = 0);

}  // namespace quanta::gw::kernels
