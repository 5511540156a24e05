#pragma once
// Surface-roughness scattering (docs/mosfet-surface-roughness.md; docs/mosfet-transport-model.md, section 3.8),
// one function per step, shared by the CPU and CUDA backends.
//
// 1. The form factors, from the Schroedinger-Poisson state (the block's engine):
//    n_ext(i, J)   = the device density read at sigma(Z_J) (linear in z), sigma the stretch map of the extended
//                    grid onto the device;
//    V_ext         = the solution of the Poisson problem of the stretched device with that density (a fixed
//                    matrix, factored once);
//    dV_up(i, j)   = V(i, j) - V_ext(i, z_j),  dV_low(i, j) = V(i, j) - V_ext(i, z_j + Delta_SR), V the device's
//                    potential (the seed's code) or the undisplaced film's on the extended spacing;
//    I(v, p, i)    = (dz sum_j psi^2 dV_up / (k_B T / q))^2 + (dz sum_j psi^2 dV_low / (k_B T / q))^2,
//                    in (k_B T)^2, the two interfaces uncorrelated.
// 2. The scattering term, elastic, intravalley and intrasubband, the only anisotropic mechanism:
//    S(v, p, i, l, m) = C I(v, p, i) s_v(w_l) dphi sum_m' D_v(w_l; m, m') [Phi(.., l, m') - Phi(.., l, m)],
//    D_v(w; m, m') = [1 + 4 k*^2 L^2 w (1 + alpha w) sin^2((phi - phi') / 2) (m_x sin^2((phi + phi') / 2)
//                    + m_y cos^2((phi + phi') / 2))]^(-3/2)   (1 + q^2 L^2 / 2)^(-3/2) at |k| = |k'|,
//    tabulated [3][nw][nphi][nphi]. D is symmetric, so sum_m S = 0 (particles and energy kept to round-off),
//    and any angle-independent Phi (every Maxwellian) is a zero of S.
#include <cmath>
#include <cstddef>

#include "phonon_scattering.hpp"
#include "quanta/core/hd.hpp"
#include "transport_terms.hpp"

namespace quanta::mosfet::kernels {

// An extended problem: a Poisson problem on its own z grid (n nodes) with the device's density read into it, and
// where the device's nodes lie on that grid. A value at a point is read by linear interpolation from cell c (nodes
// c, c + 1) at fraction f.
struct ExtendedMaps {
  int nx = 0, nz = 0, n = 0;               // n = 0: no such problem
  const int* density_cell = nullptr;       // [n] the device cell holding the point the density is read at
  const double* density_frac = nullptr;    // [n]
  const int* sample_cell = nullptr;        // [sides][nz] the extended cell holding device node j (and j + shift)
  const double* sample_frac = nullptr;     // [sides][nz]
};

// The extended problem's right-hand side at node (i, J), its rows preconditioned as the factored system's
// (kernels::system_row with the density read in): value at a Dirichlet node, C (N_D - n) / diag elsewhere.
struct ExtendedRhs {
  ExtendedMaps maps;
  const double* density = nullptr;           // [nx][nz] the device's electron density, nm^-3
  const double* doping = nullptr;            // [nx][n] of the extended problem's device, nm^-3
  const unsigned char* dirichlet = nullptr;  // [nx][n]
  const double* boundary_value = nullptr;    // [nx][n]
  const double* diag = nullptr;              // [nx][n] the factored rows' diagonals
  double source_scale = 0;                   // q / eps0, V nm
  double* rhs = nullptr;                     // [nx][n]
};
QUANTA_HD void extended_rhs_entry(const ExtendedRhs& b, int i, int J) {
  const std::size_t r = static_cast<std::size_t>(i) * b.maps.n + J;
  if (b.dirichlet[r]) {
    b.rhs[r] = b.boundary_value[r];
    return;
  }
  const double* n = b.density + static_cast<std::size_t>(i) * b.maps.nz;
  const int K = b.maps.density_cell[J];
  const double f = b.maps.density_frac[J], n_ext = n[K] + (n[K + 1] - n[K]) * f;
  b.rhs[r] = b.source_scale * (b.doping[r] - n_ext) / b.diag[r];
}

// dV = V - V_ext read by linear interpolation in extended cell c at fraction f.
QUANTA_HD double potential_shift(double V, const double* E, int c, double f) { return V - (E[c] + (E[c + 1] - E[c]) * f); }

// The form factor of subband (v, p) at x node i (the first `subbands` of each valley's ns eigenvectors).
// The unperturbed potential is the device's V (the seed's code), or, when the undisplaced problem is given, that
// problem's solution on the extended spacing (the same discretisation as the displaced one, so that only the
// displacement separates them).
struct FormFactors {
  ExtendedMaps displaced;                   // sample maps [2][nz]: z_j (up) and z_j + Delta_SR (low)
  ExtendedMaps undisplaced;                 // n = 0: the device's V; else sample maps [1][nz]
  int ns = 0, subbands = 0;
  double dz = 0;                            // nm
  double inv_kT = 0;                        // q / k_B T, 1/V
  const double* eigenvectors = nullptr;     // [nx][3][ns][nz], nm^-1/2
  const double* potential = nullptr;        // [nx][nz] V
  const double* stretched = nullptr;        // [nx][n displaced] V_ext
  const double* reference = nullptr;        // [nx][n undisplaced] V_ref, when undisplaced.n > 0
  double* out = nullptr;                    // [nx][3 subbands]
};
// The unperturbed potential at device node (i, j).
QUANTA_HD double unperturbed_potential(const FormFactors& f, int i, int j) {
  const ExtendedMaps& u = f.undisplaced;
  if (u.n == 0) return f.potential[static_cast<std::size_t>(i) * f.displaced.nz + j];
  const double* R = f.reference + static_cast<std::size_t>(i) * u.n;
  const int c = u.sample_cell[j];
  return R[c] + (R[c + 1] - R[c]) * u.sample_frac[j];
}
// dV_up (side 0) or dV_low (side 1) at device node (i, j), V.
QUANTA_HD double interface_shift(const FormFactors& f, int side, int i, int j) {
  const ExtendedMaps& m = f.displaced;
  const std::size_t k = static_cast<std::size_t>(side) * m.nz + j;
  return potential_shift(unperturbed_potential(f, i, j), f.stretched + static_cast<std::size_t>(i) * m.n, m.sample_cell[k], m.sample_frac[k]);
}
QUANTA_HD void form_factor_entry(const FormFactors& f, int i, int vp) {
  const int nz = f.displaced.nz, v = vp / f.subbands, p = vp % f.subbands;
  const double* psi = f.eigenvectors + ((static_cast<std::size_t>(i) * 3 + v) * f.ns + p) * nz;
  double up = 0, low = 0;
  for (int j = 1; j < nz - 1; ++j) {
    const double w = psi[j] * psi[j];
    up += w * interface_shift(f, 0, i, j);
    low += w * interface_shift(f, 1, i, j);
  }
  up *= f.dz * f.inv_kT;
  low *= f.dz * f.inv_kT;
  f.out[static_cast<std::size_t>(i) * 3 * f.subbands + vp] = up * up + low * low;
}

// The angular kernel D_v(w_l; m, m') of one valley at one energy, for the table [3][nw][nphi][nphi].
// kL2 = k*^2 L_SR^2.
QUANTA_HD double roughness_kernel(const KaneValley& val, double kL2, double w, double phi, double phi2) {
  const double sd = sin(0.5 * (phi - phi2)), ss = sin(0.5 * (phi + phi2)), cs = cos(0.5 * (phi + phi2));
  const double x = 1 + 4 * kL2 * w * (1 + val.alpha * w) * sd * sd * (val.mx * ss * ss + val.my * cs * cs);
  return 1 / (x * sqrt(x));
}

// The roughness term of cell (v, p, i, l, m), added to rhs. kernel: [3][nw][nphi][nphi]; form: [nx][3 nsbn].
struct RoughnessInputs {
  double C = 0;                   // the rate constant, 1/t* per (k_B T)^2
  const double* kernel = nullptr;
  const double* form = nullptr;
};
QUANTA_HD double roughness_term(const PhaseGrid& g, const KaneValley& val, const RoughnessInputs& in, const double* phi, int v, int p, int i,
                                int l, int m) {
  const double* line = phi + phase_index(g, v, p, i, l, 0);
  const double* D = in.kernel + (static_cast<long>(v) * g.nw + l) * g.nphi * g.nphi + static_cast<long>(m) * g.nphi;
  const double self = line[m];
  double sum = 0;
  for (int m2 = 0; m2 < g.nphi; ++m2) sum += D[m2] * (line[m2] - self);
  const double form = in.form[static_cast<std::size_t>(i) * kValleys * g.nsbn + v * g.nsbn + p];
  return in.C * form * kane_jacobian(val, (l + 0.5) * g.dw) * g.dphi * sum;
}

}  // namespace quanta::mosfet::kernels
