#pragma once
// The generalized plasmon-pole modes of one q-point of the full grid (Hybertsen-Louie, as BerkeleyGW's Sigma
// computes them), from the eps^-1 of the irreducible q it is an image of. For screened G, G' at q (G = a, G' = b):
//   e = eps^-1_irr(G_a, G_b) with the wings fixed (row G = 0 scaled by wing_row, column G' = 0 by wing_col, not
//       their crossing), times phase(a) conj(phase(b)) of the operation, conjugated for a time-reversed image;
//   I = delta_ab - e;
//   Omega^2 = wp^2 rho(G - G') / rho(0) (q+G).(q+G') vbar(q+G) / (8 pi), and at q = 0 for G = 0: wp^2 on the head,
//             0 on the rest of the row;
//   real flavour wt^2 = Re(Omega^2 / I); complex flavour wt^2 = |Omega^2 / I| / cos(arg(Omega^2 / I));
//   wt = sqrt(wt^2), or 1e12 (a static mode, BerkeleyGW's default) when wt^2 < 0.
// An entry with |I|, |Omega^2|, |wt^2| (or, complex, |Omega^2 / I| or |cos|) under 1e-6 is skipped: I = 0, wt = 0.
// This process's columns b = col_lo .. col_lo + ncol - 1 only.
// Units: wp2 in eV^2 (so wt comes out in eV), vbar in Ry bohr^... as Sigma's bare sphere gives it, metric in
// bohr^-2 (q+G as crystal coordinates, dotted through the reciprocal metric).
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"
#include "quanta/core/units.hpp"

namespace quanta::gw::kernels {

struct GppModesJob {
  int ng_irr = 0;                  // G-vectors of the irreducible q's eps^-1
  const cplx* epsinv = nullptr;    // [ng_irr][ng_irr] eps^-1(G_i, G_j) at i + ng_irr j, the irreducible q's order
  int ng = 0;                      // screened G-vectors at q (rows)
  int col_lo = 0, ncol = 0;        // this process's columns
  const int* keep = nullptr;       // [ng] index in the irreducible list of each screened G at q
  const cplx* phase = nullptr;     // [ng] the operation's phase of each
  const int* g = nullptr;          // [ng][3] the screened G-vectors at q, crystal (Miller) indices
  const double* vbar = nullptr;    // [ng] v(q+G) without the zone weight
  int i0 = -1;                     // irreducible index of G = 0 (-1: none)
  double wing_row = 1, wing_col = 1;
  bool time_reversed = false;
  bool q_zero = false;
  double q[3] = {0, 0, 0};         // crystal coordinates
  double metric[9] = {};           // reciprocal metric b_i . b_j, bohr^-2
  int rho_gmax = 0;                // rho_cube holds rho(G) for |G_i| <= rho_gmax, zero elsewhere
  const cplx* rho_cube = nullptr;  // [(2 gmax + 1)^3] at ((G0 + gmax) side + G1 + gmax) side + G2 + gmax
  double nel = 1;                  // rho(G = 0): electrons per cell
  double wp2 = 0;                  // plasma frequency squared, eV^2
  bool complex_flavour = false;
  cplx* i_eps = nullptr;           // [ncol][ng] I, written
  double* wt = nullptr;            // [ncol][ng] mode frequencies, eV, written

  QUANTA_HD std::size_t entries() const { return static_cast<std::size_t>(ng) * ncol; }
};

// The (a, b) entry; b is a screened column index (col_lo <= b < col_lo + ncol).
QUANTA_HD void gpp_mode(const GppModesJob& j, int a, int b, cplx& i_out, double& wt_out) {
  constexpr double kSmall = 1e-6;
  i_out = cplx();
  wt_out = 0;
  const int ka = j.keep[a], kb = j.keep[b];
  cplx e = j.epsinv[ka + static_cast<std::size_t>(j.ng_irr) * kb];
  if (ka == j.i0 && kb != j.i0) e = e * j.wing_row;
  else if (kb == j.i0 && ka != j.i0) e = e * j.wing_col;
  e = e * j.phase[a] * conj(j.phase[b]);
  if (j.time_reversed) e = conj(e);
  const cplx I = (a == b ? cplx(1.0) : cplx()) - e;
  if (abs(I) < kSmall) return;
  const int* ga = j.g + 3 * a;
  const int* gb = j.g + 3 * b;
  const bool ga_zero = ga[0] == 0 && ga[1] == 0 && ga[2] == 0;
  cplx omega2;
  if (j.q_zero && ga_zero) {
    omega2 = gb[0] == 0 && gb[1] == 0 && gb[2] == 0 ? cplx(j.wp2) : cplx();
  } else {
    cplx rg;
    const int d[3] = {ga[0] - gb[0], ga[1] - gb[1], ga[2] - gb[2]};
    const int m = j.rho_gmax, side = 2 * m + 1;
    if (d[0] >= -m && d[0] <= m && d[1] >= -m && d[1] <= m && d[2] >= -m && d[2] <= m)
      rg = j.rho_cube[(static_cast<std::size_t>(d[0] + m) * side + (d[1] + m)) * side + (d[2] + m)];
    double qa[3], qb[3];
    for (int i = 0; i < 3; ++i) {
      qa[i] = j.q[i] + ga[i];
      qb[i] = j.q[i] + gb[i];
    }
    double dot = 0;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) dot += qa[i] * j.metric[3 * i + k] * qb[k];
    omega2 = j.wp2 * (rg / j.nel) * (dot * j.vbar[a] / (8.0 * units::pi));
  }
  if (abs(omega2) < kSmall) return;
  const cplx ratio = omega2 * conj(I) / norm2(I);
  double wt2;
  if (j.complex_flavour) {
    const double lambda = abs(ratio), phi = atan2(ratio.im, ratio.re);
    if (lambda < kSmall || fabs(cos(phi)) < kSmall) return;
    wt2 = lambda / cos(phi);
  } else {
    wt2 = ratio.re;
  }
  if (fabs(wt2) < kSmall) return;
  wt_out = wt2 < 0 ? 1e12 : sqrt(wt2);
  i_out = I;
}

void gpp_modes_cpu(const GppModesJob& job);
#if QUANTA_GW_CUDA
// Every pointer of the job a device pointer; the kernel runs on the default stream.
void gpp_modes_cuda(const GppModesJob& job);
#endif

// Sigma's modes, one q-point after another. The CPU backend fills host arrays. The CUDA backend keeps rho(G) and
// the eps^-1 of the last irreducible q on the device (uploaded again only when another matrix is given), uploads
// the short per-q lists (keep, phase, G, vbar) and leaves I and wt on the device for the GPP kernels
// (GppJob::modes_on_device): the ng x ng arrays never cross the link.
class GppModes {
 public:
  GppModes(Backend backend, const std::vector<cplx>& rho_cube, int rho_gmax);
  ~GppModes();
  GppModes(const GppModes&) = delete;
  GppModes& operator=(const GppModes&) = delete;
  // The job's inputs are host pointers and its outputs are ignored (the engine's arrays take them). epsinv_id names
  // the matrix job.epsinv points to: a matrix with the id of the last run is not uploaded again.
  void run(GppModesJob job, int epsinv_id);
  bool on_device() const { return backend_ == Backend::Cuda; }
  const cplx* i_eps() const;  // [ncol][ng] of the last run, on the host or (CUDA) the device
  const double* wt() const;
  // Device bytes the CUDA engine takes at most for these sizes.
  static std::size_t device_bytes(std::size_t ng_irr, std::size_t ng, std::size_t ncol, std::size_t rho_cube);

  struct Device;

 private:
  Backend backend_;
  std::vector<cplx> rho_host_;
  int rho_gmax_ = 0;
  std::vector<cplx> i_eps_host_;
  std::vector<double> wt_host_;
  std::unique_ptr<Device> device_;
};

}  // namespace quanta::gw::kernels
