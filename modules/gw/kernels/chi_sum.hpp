#pragma once
// CHI_SUM: the static RPA polarizability as a matrix product over valence-conduction pairs,
//   chi0(q; G, G') += -(4 / (N_k Omega)) sum_{v,c} M_vc(G) conj(M_vc(G')) / (E_c(k) - E_v(k+q)),
// (2 for spin, 2 for the resonant and antiresonant terms at omega = 0), one k-point and one block of valence bands per call (the seed's NV-block): with
// X[(v,c)][G] = M_vc(G) sqrt(w_vc), w_vc = (4 / (N_k Omega)) / (E_c - E_v) > 0, it is chi0 -= X^T conj(X),
// a ZGEMM of shape (ng x nvc) (nvc x ng).
// Preconditions: E_c > E_v for every pair (an insulator); chi is Hermitian, [ng][ng] with chi(G, G') at
// G + ng G' (column-major).
#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"

namespace quanta::gw::kernels {

struct ChiSumJob {
  int npairs = 0, ng = 0;
  const cplx* m = nullptr;       // [npairs][ng] M_vc(G), pairs (v, c) in any order
  const double* w = nullptr;     // [npairs] w_vc > 0
  cplx* chi = nullptr;           // [ng][ng] accumulated
};

void chi_sum_cpu(const ChiSumJob& job);
#if QUANTA_GW_CUDA
void chi_sum_cuda(const ChiSumJob& job);
#endif
void chi_sum(Backend backend, const ChiSumJob& job);

}  // namespace quanta::gw::kernels
