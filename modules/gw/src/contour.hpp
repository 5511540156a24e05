#pragma once
// The pieces of the contour-deformation self-energy (BerkeleyGW's frequency_dependence 2, method 2) that act on one
// band pair (n, m) with x = E - E_m (eV):
//   Sigma_c(E) = sum_m [ residue_m(E) - (1/pi) int_0^inf W_nm(i w) x / (x^2 + w^2) dw ],
//   residue_m(E) = +W^r_nm(|x|) for an empty m below E, -W^r_nm(|x|) for an occupied m above E,
// W_nm(z) = sum_{G,G'} M(G) conj(M(G')) (eps^-1(z) - 1)(G, G') v(q+G') (kernels/cd.hpp's s). At x = 0 (E = E_m, within
// kSameEnergy) E is taken just above E_m, as BerkeleyGW's Sigma takes it: the integral's limit -W(i0)/2 (the imaginary
// axis's first point) for every band, and an empty band's residue W^r(0); Sigma is -W/2 (occupied) or +W/2 (empty)
// there, to the broadening's O(eta^2) difference between W^r(0 + i eta) and W(i0).
#include <string>

#include "quanta/core/complex.hpp"

namespace quanta::gw {

// int_0^inf y(w) x / (x^2 + w^2) dw for y given at the imaginary-axis points w[0] = 0 < w[1] < ... < w[n-1]:
// method 0, y piecewise constant on intervals around each point (the first from w[0], the last ending half an
// interval past w[n-1]); method 2, y piecewise quadratic (the first segment y0 + c2 w^2, each later one through its
// two ends and the point before). Each piece is integrated exactly (arctan and log terms). At |x| < kSameEnergy the
// limit x -> 0+, (pi/2) y[0] (w[0] must be 0).
inline constexpr double kSameEnergy = 1e-9;  // eV
cplx cd_imaginary_integral(int method, const double* w, const cplx* y, int n, double x);

// The factor of W^r(|x|) in the residue term: +1 (empty m, x >= 0), -1 (occupied m, x < 0), else 0.
double cd_residue_factor(bool occupied, double x);

// y on the uniform real-axis grid w_i = w0 + i dw (i = 0..n-1), linearly interpolated at w; throws Error with
// `what` when w lies outside the grid.
cplx cd_real_axis_value(const cplx* y, int n, double w0, double dw, double w, const std::string& what);

// One band n: at each of its ne evaluation energies E, the residues sum_m factor W^r_nm(|E - E_m|) and the integral
// -(1/pi) sum_m int_0^inf W_nm(i w) x / (x^2 + w^2) dw, from the band-pair values W_nm at the imaginary frequencies
// (s_imag, [nm][nfi]) and at the first nr real ones (s_real, [row][nr]; real_row[m] its row, -1 for a band m without
// residues). Complex, in the units of s. `what` names the place for errors.
struct CdBand {
  int nm = 0, nocc = 0;
  const double* e_m = nullptr;     // [nm] eV
  int ne = 0;
  const double* e_eval = nullptr;  // [ne] eV
  int method = 0, nfi = 0;
  const double* w_imag = nullptr;  // [nfi] eV
  const cplx* s_imag = nullptr;
  int nr = 0;
  double w0 = 0, dw = 1;           // the real-axis grid, eV
  const cplx* s_real = nullptr;
  const int* real_row = nullptr;
};
void cd_band_sums(const CdBand& b, cplx* residue, cplx* integral, const std::string& what);

// The real-axis method (BerkeleyGW's frequency_dependence_method 0, its sigma_ra) for one band n, from the band-pair
// values P_nm(w_j) = sum_{G,G'} M(G) (1 - eps^-1(w_j + i eta_j))(G, G') v(G') conj(M(G')) at every real frequency of
// Epsilon's grid (p, [nm][nw]; -s of kernels/cd.hpp) and their spectral weight S = Im P. At each evaluation energy E
// (taken 1e-6 eV above e_eval, as BerkeleyGW does), with x = E - E_m, y~ linear interpolation between grid points (and
// extrapolation from the last interval past the grid's end):
//   sx_x = sum_{m occupied} [P~(x) if x >= 0, else conj P~(-x)],
//   ch   = sum_m sum_{j < nw-1} w_j S_j / (x - w_j + i eta_j),   w_j = (w_{j+1} - w_j) / pi (the first halved),
//   cor  = ch's sum with x + w_j for the occupied m (the retarded correlation; BerkeleyGW's "Cor" column),
//   cor4 = the eta -> 0 form with S linear on each interval: closed-form principal-value logarithms (their ratios
//          clamped to [1e-4, 1e4]) plus -i S~(|x|) for an empty m above E or an occupied m below it; for the empty m
//          each interval adds +(S_j - S_{j-1}) / pi as BerkeleyGW 3.0 codes it (docs/gw.md). Eqp1 solves with X + cor4.
// In the units of p. Returns whether some |x| lay past the grid's last frequency (the extrapolated interval).
inline constexpr double kRealAxisShift = 1e-6;  // eV, BerkeleyGW's TOL_SMALL on the evaluation energies
struct RaBand {
  int nm = 0, nocc = 0;
  const double* e_m = nullptr;     // [nm] eV
  int ne = 0;
  const double* e_eval = nullptr;  // [ne] eV
  int nw = 0;
  const double* w = nullptr;       // [nw] eV, increasing
  const double* eta = nullptr;     // [nw] eV
  const cplx* p = nullptr;         // [nm][nw]
};
bool ra_band_sums(const RaBand& b, cplx* sx_x, cplx* ch, cplx* cor, cplx* cor4);

}  // namespace quanta::gw
