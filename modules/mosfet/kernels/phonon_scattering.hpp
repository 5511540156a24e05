#pragma once
// The electron-phonon scattering operator of the transport phase (docs/mosfet-transport-model.md, section 3),
// one function per step, shared by the CPU and CUDA backends. Dimensionless variables: energies in k_B T,
// time in t* = L_x sqrt(m_e / k_B T), so the rate constants C_k are in 1/t*.
//
// For the state (valley v, subband p, energy cell l) at one x node the right-hand side of the Boltzmann
// equation gains S = s_v(w_l) G - Lambda(w_l) Phi(w_l, phi): G the gain from the angle-integrated
// distributions Pi_{v',p'}(w) = int Phi dphi of every partner state, Lambda the loss rate. Seven mechanisms:
//   k = 0     acoustic phonons, elastic, intravalley (equipartition folded into C_0);
//   k = 1..3  g-type intervalley phonons, within the valley pair (one final valley);
//   k = 4..6  f-type intervalley phonons, to the two other valley pairs (two final valleys in each).
// A partner of kinetic energy Gamma = w + eps_{v,p} - eps_{v',p'} +- x_k (x_k = hbar omega_k / k_B T) enters
// the gain by emission (+, factor n + 1) or absorption (-, factor n), read from Pi by linear interpolation
// between cell centres; the loss takes the final states' density of states s_{v'}(Gamma) in closed form.
#include <cmath>

#include "quanta/core/hd.hpp"

namespace quanta::mosfet::kernels {

constexpr int kMechanisms = 7;
constexpr int kValleys = 3;

// A valley pair in the energy-angle variables: k_x = k* sqrt(m_x) R(w) cos phi, k_y = k* sqrt(m_y) R(w) sin phi,
// R(w) = sqrt(2 w (1 + alpha w)) (Kane's non-parabolic dispersion; alpha in 1 / k_B T).
struct KaneValley {
  double mx, my, alpha;
};

// The Jacobian of the change of variables, d^2k = k*^2 s(w) dw dphi.
QUANTA_HD double kane_jacobian(const KaneValley& v, double w) { return sqrt(v.mx * v.my) * (1 + 2 * v.alpha * w); }

// The mechanisms: rate constants C_k (1/t*), phonon energies x_k (k_B T), and the occupation factor of each
// transition from valley v to valley v' (occupation[v][v'][k]).
struct PhononScattering {
  double C[kMechanisms];
  double x[kMechanisms];
  double occupation[kValleys][kValleys][kMechanisms];
};

// The energy grid: cell centres w_l = (l + 1/2) dw, l = 0..nw-1 (inv_dw = 1 / dw: the interpolations multiply).
struct EnergyGrid {
  int nw = 0;
  double dw = 0, inv_dw = 0;
  EnergyGrid() = default;
  QUANTA_HD EnergyGrid(int cells, double spacing) : nw(cells), dw(spacing), inv_dw(1 / spacing) {}
};

// Pi at energy gamma by linear interpolation between the cell centres that bracket it (extrapolation from
// cells 0 and 1 below the first centre); zero below 0 and above the last centre.
QUANTA_HD double interpolate_w(const double* pi, const EnergyGrid& g, double gamma) {
  if (gamma < 0) return 0;
  const double cells = gamma * g.inv_dw;  // no division: the scattering kernel does some hundred of these per energy cell
  const int l = static_cast<int>(cells - 0.5);  // truncation toward zero
  if (l > g.nw - 2) return 0;
  return pi[l] + (pi[l + 1] - pi[l]) * (cells - (l + 0.5));
}

// Gain s_v(w_l) G and loss rate Lambda of state (v, p, l). eps [3][nsbn]: subband energies; W
// [3][nsbn][3][nsbn]: overlaps int chi^2 chi'^2 dz; pi [3][nsbn][nw]: angle-integrated distributions.
QUANTA_HD void gain_loss(const PhononScattering& s, const KaneValley* valleys, const EnergyGrid& g, int nsbn, int v, int p, int l,
                         const double* eps, const double* W, const double* pi, double& gain, double& loss) {
  const double twopi = 6.283185307179586476925;
  const double w = (l + 0.5) * g.dw;
  double G = 0, L = 0;
  for (int v2 = 0; v2 < kValleys; ++v2) {
    const bool same = v2 == v;
    for (int p2 = 0; p2 < nsbn; ++p2) {
      const double overlap = W[((v * nsbn + p) * kValleys + v2) * nsbn + p2];
      const double* pi2 = pi + (v2 * nsbn + p2) * static_cast<long>(g.nw);
      const double shift = w + eps[v * nsbn + p] - eps[v2 * nsbn + p2];
      const int k0 = same ? 0 : 4, k1 = same ? 4 : kMechanisms;
      const double final_valleys = same ? 1 : 2;
      for (int k = k0; k < k1; ++k) {
        const double c = final_valleys * s.C[k] * overlap;
        if (k == 0) {  // elastic
          G += c * interpolate_w(pi2, g, shift);
          if (shift >= 0) L += twopi * c * kane_jacobian(valleys[v2], shift);
          continue;
        }
        const double up = shift + s.x[k], down = shift - s.x[k];
        const double n_in = s.occupation[v2][v][k], n_out = s.occupation[v][v2][k];
        G += c * ((n_in + 1) * interpolate_w(pi2, g, up) + n_in * interpolate_w(pi2, g, down));
        if (up >= 0) L += twopi * c * n_out * kane_jacobian(valleys[v2], up);
        if (down >= 0) L += twopi * c * (n_out + 1) * kane_jacobian(valleys[v2], down);
      }
    }
  }
  gain = kane_jacobian(valleys[v], w) * G;
  loss = L;
}

}  // namespace quanta::mosfet::kernels
