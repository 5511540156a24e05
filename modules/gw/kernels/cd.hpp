#pragma once
// The contraction at the heart of full-frequency Sigma (contour deformation): for rows r = (n, m) of matrix elements
// M_r(G) and matrices I_j(G, G') (eps^-1 - delta at frequency j, columns G' held by this process),
//   s(r, j) = sum_{G'} conj(M_r(G')) v(q+G') sum_G M_r(G) I_j(G, G'),
// the band-pair value of the screened interaction W_c = I v at frequency j. As the seed's ZGEMMs: with the matrices
// side by side (ng x (nmat ngp), column-major), Y = M^T [I_1 ... I_nmat] ((rows) x (nmat ngp)), then each row of Y
// is dotted with conj(M_r(G')) v(G') per matrix. Rows and matrices go through in chunks that fit the budget.
#include <cstddef>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"

namespace quanta::gw::kernels {

struct CdContractJob {
  int ng = 0;                   // rows G of the matrices: the screened sphere
  int ngp = 0;                  // columns G' held
  const int* gp_index = nullptr;  // [ngp] the G' (0 .. ng-1) of each column (nullptr: column c is G' = c)
  int nmat = 0;
  const cplx* mats = nullptr;   // [nmat][ngp][ng]: I_j(G, column c) at G + ng c + ng ngp j
  const double* v = nullptr;    // [ng] v(q+G') with the zone weight, indexed by G'
  int nrows = 0;
  const cplx* m = nullptr;      // [nrows][ng] M_r(G)
  cplx* s = nullptr;            // [nrows][nmat], written
  double* kernel_seconds = nullptr;  // when given, the CUDA backend adds its device time (events)
  bool mats_on_device = false;  // CUDA backend: mats is a device pointer (cd_rotate_cuda's), all nmat at once

  double flops() const { return 8.0 * nrows * static_cast<double>(ng) * ngp * nmat; }
};

// The static subspace's band-pair values (do_sigma_subspace). On q's screened sphere eps^-1(z_j) - 1 is the rotated
// static part (contracted by cd_contract, not here) plus L D'_j R^H with D'_j = D_j or its transpose, so
//   s(r, j) = sum_{a, b} alpha(r, a) D'_j(a, b) conj(beta(r, b)) + head_j |M_r(G_g0)|^2,
//   alpha = M^T L,  beta = M^T Rv,  Rv(G, b) = v(q+G) R(G, b) on this process's columns G' and 0 elsewhere,
// head_j being the caller's correction of the (G = 0, G' = 0) element. Two ZGEMMs per row chunk, one per frequency
// (strided batch on the device) and a row dot.
struct CdSubspaceJob {
  int ng = 0;                   // the screened sphere at q
  int nb = 0;                   // the subspace basis
  const cplx* L = nullptr;      // [nb][ng]
  const cplx* Rv = nullptr;     // [nb][ng]
  int nmat = 0;
  const cplx* d = nullptr;      // [nmat][nb][nb] D_j, column-major
  bool transposed = false;      // D'_j = D_j^T (a time-reversed image)
  const cplx* head = nullptr;   // [nmat] head_j (nullptr: none)
  int g0 = -1;                  // the row G = 0 of M the head correction multiplies
  int nrows = 0;
  const cplx* m = nullptr;      // [nrows][ng] M_r(G)
  cplx* s = nullptr;            // [nrows][nmat], written
  double* kernel_seconds = nullptr;  // when given, the CUDA backend adds its device time (events)

  double flops() const { return 8.0 * nrows * nb * (2.0 * ng + static_cast<double>(nb) * nmat); }
};

// eps^-1 of the irreducible q (one frequency, ld x ld column-major in its G order) rotated to q on the screened sphere,
// minus the identity, on this process's columns b = col_lo .. col_lo + ncol - 1 (Sigma's I_j of the contraction above):
//   out(a, b - col_lo) = e(a, b) wing(a, b) - delta_ab,  e = raw(keep[a], keep[b]) phase[a] conj(phase[b]), or for a
//   time-reversed image raw(keep[b], keep[a]) conj(phase[a]) phase[b] (reciprocity: the transpose); the row G = 0 (not
//   the head) scaled by wing_row, the column by wing_col (BerkeleyGW's wings).
struct CdRotateJob {
  int ld = 0;                   // the irreducible q's G count
  const int* keep = nullptr;    // [ngs] irreducible index of each screened G at q
  const cplx* phase = nullptr;  // [ngs]
  int ngs = 0, col_lo = 0, ncol = 0;
  int i0 = -1;                  // irreducible index of G = 0 (-1: none)
  double wing_row = 1, wing_col = 1;
  bool time_reversed = false;
};

QUANTA_HD cplx cd_rotated(const CdRotateJob& j, const cplx* raw, int a, int b) {
  const int ka = j.keep[a], kb = j.keep[b];
  const std::size_t ld = j.ld;
  const cplx e = j.time_reversed ? raw[kb + ld * ka] * conj(j.phase[a]) * j.phase[b] : raw[ka + ld * kb] * j.phase[a] * conj(j.phase[b]);
  const double wing = ka == j.i0 && kb != j.i0 ? j.wing_row : kb == j.i0 && ka != j.i0 ? j.wing_col : 1.0;
  return e * wing - (a == b ? cplx(1.0) : cplx());
}

void cd_rotate_cpu(const CdRotateJob& job, const cplx* raw, cplx* out);  // out [ncol][ngs]
#if QUANTA_GW_CUDA
void cd_rotate_cuda(const CdRotateJob& job, const cplx* raw, cplx* out);  // keep, phase, raw and out on the device
#endif

void cd_contract_cpu(const CdContractJob& job);
#if QUANTA_GW_CUDA
void cd_contract_cuda(const CdContractJob& job, std::size_t device_budget);
#endif
void cd_contract(Backend backend, const CdContractJob& job, std::size_t device_budget);

void cd_subspace_cpu(const CdSubspaceJob& job);
#if QUANTA_GW_CUDA
void cd_subspace_cuda(const CdSubspaceJob& job, std::size_t device_budget);
#endif
void cd_subspace(Backend backend, const CdSubspaceJob& job, std::size_t device_budget);

}  // namespace quanta::gw::kernels
