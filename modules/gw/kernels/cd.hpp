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

  double flops() const { return 8.0 * nrows * static_cast<double>(ng) * ngp * nmat; }
};

void cd_contract_cpu(const CdContractJob& job);
#if QUANTA_GW_CUDA
void cd_contract_cuda(const CdContractJob& job, std::size_t device_budget);
#endif
void cd_contract(Backend backend, const CdContractJob& job, std::size_t device_budget);

}  // namespace quanta::gw::kernels
