#pragma once
// The electron density and its Frechet derivative with respect to the potential (seed eq. 10).
//
// N_{i,j} = g sum_{v,p} rho_{v,p,i} psi_{v,p,i,j}^2 (g = 2, the valley pairs; rho per valley, both spins).
// A change dV of the potential changes the electron's energy by -dV, so first-order perturbation theory
// (with the subband populations held) gives dN_{i,j} = sum_j' A_{i,j,j'} dV_{i,j'} dz_j' with
//   A_{i,j,j'} = g sum_v [ sum_{p != p'} c_{pp'} psi_p(j) psi_p'(j) psi_p(j') psi_p'(j')
//                         + sum_p w_p psi_p(j)^2 psi_p(j')^2 ],
//   c_{pp'} = (rho_p - rho_p') / (eps_p' - eps_p)   (the seed's eq. 10),
//   w_p = -d rho_p / d eps_p                         (0 for given populations; the Fermi-Dirac
//                                                     populations of the equilibrium problem change with
//                                                     their level, which is this diagonal term).
// Preconditions: eigenvalues of one (i, v) distinct (true for 1-D bound states).
#include <cmath>
#include <cstddef>

#include "quanta/core/hd.hpp"

namespace quanta::mosfet::kernels {

struct DensityInput {
  int nx = 0, nz = 0, ns = 0;
  double degeneracy = 2.0;
  const double* eigenvalues = nullptr;   // [nx][3][ns] eV
  const double* eigenvectors = nullptr;  // [nx][3][ns][nz] nm^-1/2
  const double* rho = nullptr;           // [nx][3][ns] surface densities per valley, nm^-2
  const double* drho = nullptr;          // [nx][3][ns] -d rho / d eps, eV^-1 nm^-2; null: populations held
  double* density = nullptr;             // [nx][nz] N, nm^-3
  double* frechet = nullptr;             // [nx][nz][nz] A, nm^-4 V^-1
};

// c_{pp'}: populations over the level spacing; a spacing below 1e-12 eV (never met by bound states of
// one valley) contributes nothing rather than dividing by zero.
QUANTA_HD double pair_coefficient(double rho_p, double rho_q, double eps_p, double eps_q) {
  const double gap = eps_q - eps_p;
  return std::fabs(gap) < 1e-12 ? 0.0 : (rho_p - rho_q) / gap;
}

// Row (i, j) of A, valley by valley: the weights b_pq of the pairs p <= q,
//   b_pp = w_p psi_p(j)^2,   b_pq = 2 c_pq psi_p(j) psi_q(j)  (q > p; both orders of the pair: c is symmetric),
// computed once per row, then A_{i,j,j'} = g sum_v sum_{p<=q} b_pq psi_p(j') psi_q(j') for every j'.
QUANTA_HD double frechet_weight(const DensityInput& in, int i, int j, int v, int p, int q) {
  const std::size_t base = (static_cast<std::size_t>(i) * 3 + v) * in.ns;
  const double* psi = in.eigenvectors + base * in.nz;
  const double pj = psi[p * in.nz + j];
  if (p == q) return in.drho ? in.drho[base + p] * pj * pj : 0.0;
  return 2.0 * pair_coefficient(in.rho[base + p], in.rho[base + q], in.eigenvalues[base + p], in.eigenvalues[base + q]) * pj * psi[q * in.nz + j];
}
// sum_{p<=q} b_pq psi_p(j') psi_q(j') of valley v, with b [ns][ns] (upper triangle read).
QUANTA_HD double frechet_row_sum(const DensityInput& in, int i, int v, int jp, const double* b) {
  const double* psi = in.eigenvectors + (static_cast<std::size_t>(i) * 3 + v) * in.ns * in.nz;
  double sum = 0.0;
  for (int p = 0; p < in.ns; ++p) {
    const double pp = psi[p * in.nz + jp];
    double inner = 0.0;
    for (int q = p; q < in.ns; ++q) inner += b[p * in.ns + q] * psi[q * in.nz + jp];
    sum += pp * inner;
  }
  return sum;
}

QUANTA_HD double density_entry(const DensityInput& in, int i, int j) {
  double sum = 0.0;
  const std::size_t base = static_cast<std::size_t>(i) * 3 * in.ns;
  for (int vp = 0; vp < 3 * in.ns; ++vp) {
    const double psi = in.eigenvectors[(base + vp) * in.nz + j];
    sum += in.rho[base + vp] * psi * psi;
  }
  return in.degeneracy * sum;
}

void electron_density_cpu(const DensityInput& in);
void frechet_derivative_cpu(const DensityInput& in);

}  // namespace quanta::mosfet::kernels
