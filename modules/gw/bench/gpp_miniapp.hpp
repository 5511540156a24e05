#pragma once
// The problem of BerkeleyGW's public GPP mini-app (gppKernel: number_bands nvband ncouls nodes_per_group) as a
// GppJob: one band n; number_bands bands m of which the first nvband are occupied; ncouls G-vectors; the
// ngpown = ncouls / nodes_per_group columns G' of one process of the group, column c being G' =
// min((c + 1) ncouls / ngpown, ncouls - 1); every matrix element, I and (complex) mode frequency 0.5 + 0.5i,
// v = 1; three energies with w = E - E_m = 3, 4, 5 eV (E_m = 6, E = 9, 10, 11). The mini-app's achtemp is CH
// and its asxtemp is -SX-X (BerkeleyGW's ssx for the occupied bands). With real_modes the mode frequencies
// are the real 0.5 instead: the same problem on the kernel's real-mode path, the one Sigma runs.
//
// With every input the same, each term is the same and the sums have a closed form: every (w - wt) is
// 2.5 - 0.5i or further from 0, so every term takes the first branch and
//   CH(w)    = 1/2 number_bands ngpown ncouls f I wt / (w - wt),
//   -SX-X(w) = nvband ngpown ncouls f I wt^2 / (w^2 - wt^2),  f = M conj(M) v = 1/2.
// For 512 2 32768 20, CH(3 eV) = -264241152 + 1321205760i.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "../kernels/gpp.hpp"

namespace quanta::gw {

struct GppMiniApp {
  int number_bands = 0, nvband = 0, ncouls = 0, nodes_per_group = 0, ngpown = 0;
  bool real_modes = false;
  std::vector<cplx> m, i_eps, wt;
  std::vector<double> wt_real;
  std::vector<double> v, e_m, e_eval;
  std::vector<int> columns;
  std::vector<cplx> sx, ch;

  static constexpr int kEnergies = 3;
  static cplx value() { return {0.5, 0.5}; }
  cplx mode() const { return real_modes ? cplx(0.5) : value(); }

  GppMiniApp(int bands, int valence, int couls, int nodes, bool real = false)
      : number_bands(bands), nvband(valence), ncouls(couls), nodes_per_group(nodes), real_modes(real) {
    if (bands < 1 || valence < 0 || valence > bands || couls < 1 || nodes < 1 || couls / nodes < 1)
      throw std::invalid_argument("GPP mini-app: expected number_bands >= 1, 0 <= nvband <= number_bands, ncouls >= nodes_per_group >= 1; got " +
                                  std::to_string(bands) + " " + std::to_string(valence) + " " + std::to_string(couls) + " " + std::to_string(nodes));
    ngpown = ncouls / nodes_per_group;
    const std::size_t ng = ncouls;
    m.assign(static_cast<std::size_t>(number_bands) * ng, value());
    i_eps.assign(static_cast<std::size_t>(ngpown) * ng, value());
    if (real_modes) wt_real.assign(i_eps.size(), 0.5);
    else wt.assign(i_eps.size(), value());
    v.assign(ng, 1.0);
    e_m.assign(number_bands, 6.0);
    e_eval = {9.0, 10.0, 11.0};
    columns.resize(ngpown);
    for (int c = 0; c < ngpown; ++c) columns[c] = std::min(static_cast<int>(static_cast<long>(c + 1) * ncouls / ngpown), ncouls - 1);
    sx.assign(kEnergies, cplx());
    ch.assign(kEnergies, cplx());
  }

  kernels::GppJob job() {
    kernels::GppJob j;
    j.ng = ncouls;
    j.ngp = ngpown;
    j.gp_index = columns.data();
    j.i_eps = i_eps.data();
    if (real_modes) j.wt = wt_real.data();
    else j.wt_complex = wt.data();
    j.v = v.data();
    j.nn = 1, j.nm = number_bands, j.ne = kEnergies, j.nocc = nvband;
    j.m = m.data(), j.e_m = e_m.data(), j.e_eval = e_eval.data();
    j.sx = sx.data(), j.ch = ch.data();
    return j;
  }

  // The (G, G', m, E) terms: what the kernel evaluates.
  double terms() const { return static_cast<double>(number_bands) * ngpown * ncouls * kEnergies; }

  // The closed forms of the header, energy e = 0, 1, 2.
  cplx ch_exact(int e) const {
    const double w = e_eval[e] - e_m[0];
    const cplx wd = cplx(w) - mode();
    const cplx delw = mode() * conj(wd) / norm2(wd);
    return 0.25 * static_cast<double>(number_bands) * ngpown * ncouls * (value() * delw);
  }
  cplx asx_exact(int e) const {
    const double w = e_eval[e] - e_m[0];
    const cplx wt2 = mode() * mode();
    const cplx c = cplx(w * w) - wt2;
    return 0.5 * static_cast<double>(nvband) * ngpown * ncouls * (value() * wt2 * conj(c) / norm2(c));
  }
};

}  // namespace quanta::gw
