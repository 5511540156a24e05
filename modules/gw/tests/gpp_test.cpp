// The GPP kernel on the problem of BerkeleyGW's GPP mini-app, whose sums have a closed form
// (bench/gpp_miniapp.hpp): CH and SX-X of both backends against it, and the real-mode path against the
// complex one with zero imaginary parts. Bound 1e-12 relative: the sums are of 10^7 - 10^11 equal terms
// split into row sums of ncouls terms (CPU) or per-thread sums of a few thousand (device), so their
// rounding stays near 1e-13; a wrong factor, sign, branch or index shows at order 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "../bench/gpp_miniapp.hpp"
#include "../kernels/gpp_matrix.hpp"
#include "../kernels/gpp_modes.hpp"
#include "quanta/core/buffer.hpp"

using namespace quanta;
using namespace quanta::gw;

namespace {

double rel(cplx a, cplx b) { return abs(a - b) / abs(b); }

void expect_closed_form(Backend backend, int bands, int valence, int couls, int nodes, bool real_modes = false) {
  GppMiniApp app(bands, valence, couls, nodes, real_modes);
  kernels::gpp(backend, app.job());
  for (int e = 0; e < GppMiniApp::kEnergies; ++e) {
    const cplx ach = app.ch[e], asx = -1.0 * app.sx[e];
    std::printf("%s %d %d %d %d%s, w = %g: achtemp (%.6f, %.6f) relative error %.2e; asxtemp (%.6f, %.6f) relative error %.2e\n",
                to_string(backend).c_str(), bands, valence, couls, nodes, real_modes ? " real modes" : "", app.e_eval[e] - app.e_m[0], ach.re, ach.im, rel(ach, app.ch_exact(e)),
                asx.re, asx.im, rel(asx, app.asx_exact(e)));
    EXPECT_LT(rel(ach, app.ch_exact(e)), 1e-12) << "achtemp, energy " << e;
    EXPECT_LT(rel(asx, app.asx_exact(e)), 1e-12) << "asxtemp, energy " << e;
  }
}

}  // namespace

TEST(GwGpp, MiniAppClosedFormCpu) {
  expect_closed_form(Backend::Cpu, 64, 2, 1024, 8);
  expect_closed_form(Backend::Cpu, 64, 2, 1024, 8, true);
}

TEST(GwGpp, MiniAppClosedFormCuda) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  expect_closed_form(Backend::Cuda, 64, 2, 1024, 8);
  expect_closed_form(Backend::Cuda, 64, 2, 1024, 8, true);
  expect_closed_form(Backend::Cuda, 512, 2, 32768, 20);  // the mini-app's own benchmark problem
}

// A complex mode frequency with zero imaginary part is the real one: both paths, random inputs over every branch.
TEST(GwGpp, ComplexModesWithZeroImaginaryPartAreTheRealOnes) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  const int ng = 57, nn = 2, nm = 23, nocc = 9, ne = 3;
  std::vector<cplx> i_eps(ng * ng), m(nn * nm * ng), wtc(ng * ng);
  std::vector<double> wt(ng * ng), v(ng), e_m(nm), e_eval(nn * ne);
  for (auto& x : i_eps) x = cplx(u(rng) - 0.5, u(rng) - 0.5);
  for (auto& x : m) x = cplx(u(rng) - 0.5, u(rng) - 0.5);
  for (std::size_t i = 0; i < wt.size(); ++i) wtc[i] = wt[i] = u(rng) < 0.1 ? 0.0 : 2.0 + 30.0 * u(rng);
  for (double& x : v) x = 0.1 + u(rng);
  for (int b = 0; b < nm; ++b) e_m[b] = -12.0 + 40.0 * b / nm;
  for (double& x : e_eval) x = -10.0 + 25.0 * u(rng);
  std::vector<Backend> backends = {Backend::Cpu};
  if (cuda_device_count() > 0) backends.push_back(Backend::Cuda);
  for (Backend b : backends) {
    std::vector<cplx> out[2][2];
    for (int complex_modes = 0; complex_modes < 2; ++complex_modes) {
      out[complex_modes][0].assign(nn * ne, cplx());
      out[complex_modes][1].assign(nn * ne, cplx());
      kernels::GppJob j;
      j.ng = ng, j.i_eps = i_eps.data(), j.v = v.data();
      if (complex_modes) j.wt_complex = wtc.data();
      else j.wt = wt.data();
      j.nn = nn, j.nm = nm, j.ne = ne, j.nocc = nocc, j.m = m.data(), j.e_m = e_m.data(), j.e_eval = e_eval.data();
      j.sx = out[complex_modes][0].data(), j.ch = out[complex_modes][1].data();
      kernels::gpp(b, j);
    }
    for (int k = 0; k < 2; ++k)
      for (int i = 0; i < nn * ne; ++i) EXPECT_LT(rel(out[1][k][i], out[0][k][i]), 1e-12) << to_string(b) << (k ? " CH " : " SX-X ") << i;
  }
}

// The matrix path (gpp_matrix, the off-diagonal kernel) on random inputs over every branch: its diagonal at
// w = E_n is the diagonal kernel's sum, and each element <n|.|n'> is the direct sum over m, G, G' of
// M_nm(G) W_m(G, G') conj(M_n'm(G')) (checking which band goes with G and which with G'). Columns held
// in two halves add up to all of them. Bounds 1e-12 relative: sums of a few 10^5 terms of order 1.
namespace {

struct MatrixCase {
  int ng = 37, nn = 4, nm = 19, nocc = 7;
  std::vector<cplx> i_eps, m;
  std::vector<double> wt, v, e_m;
  explicit MatrixCase(unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    i_eps.resize(ng * ng);
    m.resize(nn * nm * ng);
    wt.resize(ng * ng);
    v.resize(ng);
    e_m.resize(nm);
    for (auto& x : i_eps) x = cplx(u(rng) - 0.5, u(rng) - 0.5);
    for (auto& x : m) x = cplx(u(rng) - 0.5, u(rng) - 0.5);
    for (double& x : wt) x = u(rng) < 0.1 ? 0.0 : u(rng) < 0.05 ? 1e12 : 2.0 + 30.0 * u(rng);
    for (double& x : v) x = 0.1 + u(rng);
    for (int b = 0; b < nm; ++b) e_m[b] = -12.0 + 40.0 * b / nm;
  }
  kernels::GppMatrixJob job(const std::vector<double>& omega, std::vector<cplx>& sx, std::vector<cplx>& ch) const {
    kernels::GppMatrixJob j;
    j.ng = ng, j.i_eps = i_eps.data(), j.wt = wt.data(), j.v = v.data();
    j.nn = nn, j.nm = nm, j.nocc = nocc, j.m = m.data(), j.e_m = e_m.data();
    j.nw = static_cast<int>(omega.size()), j.omega = omega.data(), j.weight = 2.0;
    sx.assign(omega.size() * nn * nn, cplx());
    ch.assign(sx.size(), cplx());
    j.sx = sx.data(), j.ch = ch.data();
    return j;
  }
};

}  // namespace

TEST(GwGppMatrix, DiagonalIsTheDiagonalKernelsSum) {
  const MatrixCase c(11);
  const int ne = 2;
  std::vector<double> e_eval(c.nn * ne);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (double& x : e_eval) x = -10.0 + 25.0 * u(rng);
  e_eval[0] = c.e_m[2];  // w = 0 exactly: the clamp
  std::vector<cplx> sx(c.nn * ne), ch(c.nn * ne);
  kernels::GppJob d;
  d.ng = c.ng, d.i_eps = c.i_eps.data(), d.wt = c.wt.data(), d.v = c.v.data();
  d.nn = c.nn, d.nm = c.nm, d.ne = ne, d.nocc = c.nocc, d.m = c.m.data(), d.e_m = c.e_m.data(), d.e_eval = e_eval.data();
  d.weight = 2.0, d.sx = sx.data(), d.ch = ch.data();
  kernels::gpp(Backend::Cpu, d);
  std::vector<Backend> backends = {Backend::Cpu};
  if (cuda_device_count() > 0) backends.push_back(Backend::Cuda);
  for (Backend b : backends) {
    std::vector<cplx> msx, mch;
    kernels::gpp_matrix(b, c.job(e_eval, msx, mch));  // frequency j = n ne + e
    double worst = 0;
    for (int n = 0; n < c.nn; ++n)
      for (int e = 0; e < ne; ++e) {
        const std::size_t at = (static_cast<std::size_t>(n * ne + e) * c.nn + n) * c.nn + n;
        worst = std::max({worst, rel(msx[at], sx[n * ne + e]), rel(mch[at], ch[n * ne + e])});
      }
    std::printf("%s: diagonal of the matrix path vs the diagonal kernel, largest relative difference %.1e\n", to_string(b).c_str(), worst);
    EXPECT_LT(worst, 1e-12);
  }
}

TEST(GwGppMatrix, ElementsAreTheDirectSumAndColumnsAddUp) {
  const MatrixCase c(17);
  const std::vector<double> omega = {-8.5, 0.3, 6.0};
  std::vector<cplx> sx, ch;
  kernels::gpp_matrix(Backend::Cpu, c.job(omega, sx, ch));
  double worst = 0;
  for (std::size_t j = 0; j < omega.size(); ++j)
    for (int n = 0; n < c.nn; ++n)
      for (int n2 = 0; n2 < c.nn; ++n2) {
        cplx s_sx, s_ch;
        for (int mb = 0; mb < c.nm; ++mb) {
          const double w = kernels::gpp_frequency(omega[j], c.e_m[mb]);
          for (int gp = 0; gp < c.ng; ++gp)
            for (int g = 0; g < c.ng; ++g) {
              const std::size_t at = static_cast<std::size_t>(gp) * c.ng + g;
              double cf, sf;
              kernels::gpp_entry_factors(kernels::GppMode<double>(c.i_eps[at], c.wt[at]), w, mb < c.nocc, cf, sf);
              const cplx f = c.m[(n * c.nm + mb) * c.ng + g] * conj(c.m[(n2 * c.nm + mb) * c.ng + gp]) * c.v[gp] * c.i_eps[at];
              s_ch += f * cf;
              s_sx += f * sf;
            }
        }
        const std::size_t at = (j * c.nn + n) * c.nn + n2;
        worst = std::max({worst, rel(ch[at], 0.5 * 2.0 * s_ch), rel(sx[at], -2.0 * s_sx)});
      }
  std::printf("matrix path vs the direct sum: largest relative difference %.1e\n", worst);
  EXPECT_LT(worst, 1e-12);
  // The columns G' in two halves (as two processes hold them), added: the whole.
  std::vector<int> lo, hi;
  for (int g = 0; g < c.ng; ++g) (g < c.ng / 2 ? lo : hi).push_back(g);
  std::vector<cplx> sx2(sx.size()), ch2(sx.size());
  for (const auto* half : {&lo, &hi}) {
    std::vector<cplx> i_half, hsx, hch;
    std::vector<double> wt_half;
    for (int g : *half) {
      i_half.insert(i_half.end(), c.i_eps.begin() + g * c.ng, c.i_eps.begin() + (g + 1) * c.ng);
      wt_half.insert(wt_half.end(), c.wt.begin() + g * c.ng, c.wt.begin() + (g + 1) * c.ng);
    }
    auto j = c.job(omega, hsx, hch);
    j.ngp = static_cast<int>(half->size()), j.gp_index = half->data(), j.i_eps = i_half.data(), j.wt = wt_half.data();
    kernels::gpp_matrix(Backend::Cpu, j);
    for (std::size_t i = 0; i < sx.size(); ++i) sx2[i] += hsx[i], ch2[i] += hch[i];
  }
  for (std::size_t i = 0; i < sx.size(); ++i) {
    EXPECT_LT(rel(sx2[i], sx[i]), 1e-12) << i;
    EXPECT_LT(rel(ch2[i], ch[i]), 1e-12) << i;
  }
}

// The plasmon-pole modes' closed forms on a three-vector sphere: at q = 0 the head's mode is sqrt(wp^2 / I) (real
// flavour) and the rest of the G = 0 row has no mode; at q != 0 a row-wing entry is eps^-1 scaled by wing_row,
// rotated by the phases and conjugated for a time-reversed image, with Omega^2 = wp^2 (rho(G - G') / rho(0))
// (q+G).(q+G') vbar / 8 pi; an entry whose wt^2 is negative becomes static (1e12 eV); |I| under 1e-6 is skipped.
TEST(GwGppModes, EntriesFollowTheClosedForms) {
  const int ng = 3, gmax = 2, side = 2 * gmax + 1;
  std::vector<cplx> eps = {cplx(0.1, 0.0), cplx(0.02, 0.01), cplx(0.0, 0.0),  // column 0
                           cplx(0.03, -0.02), cplx(0.5, 0.0), cplx(0.0, 0.0),  // column 1
                           cplx(0.0, 0.0), cplx(0.0, 0.0), cplx(1.0, 0.0)};   // column 2: I = 0 on its diagonal
  std::vector<cplx> rho(std::size_t(side) * side * side);
  auto at = [&](int a, int b, int c) -> cplx& { return rho[(std::size_t(a + gmax) * side + b + gmax) * side + c + gmax]; };
  at(0, 0, 0) = cplx(8.0);
  at(-1, 0, 0) = cplx(0.4, 0.1);   // G_0 - G_1
  at(1, 0, 0) = cplx(-0.4, 0.1);   // G_1 - G_0
  at(1, -1, 0) = cplx(2.0, 0.0);   // G_1 - G_2
  const std::vector<int> keep = {0, 1, 2}, g = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const std::vector<cplx> phase = {cplx(1.0), expi(0.3), expi(-1.1)};
  const std::vector<double> vbar = {5.0, 2.0, 3.0};
  kernels::GppModesJob j;
  j.ng_irr = ng, j.epsinv = eps.data(), j.ng = ng, j.ncol = ng, j.keep = keep.data(), j.phase = phase.data(), j.g = g.data(),
  j.vbar = vbar.data(), j.i0 = 0, j.rho_gmax = gmax, j.rho_cube = rho.data(), j.nel = 8.0, j.wp2 = 250.0;
  const double metric[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5};
  std::copy(metric, metric + 9, j.metric);
  cplx I;
  double wt;
  // q = 0, wings zero: the head.
  j.q_zero = true, j.wing_row = j.wing_col = 0;
  kernels::gpp_mode(j, 0, 0, I, wt);
  EXPECT_NEAR(I.re, 0.9, 1e-15);
  EXPECT_NEAR(wt, std::sqrt(250.0 / 0.9), 1e-12);
  kernels::gpp_mode(j, 0, 1, I, wt);  // the rest of the row: e = 0, I = 0
  EXPECT_EQ(wt, 0.0);
  kernels::gpp_mode(j, 2, 2, I, wt);  // |I| = 0
  EXPECT_EQ(wt, 0.0);
  // q != 0, time-reversed image: the row wing (G = 0, G' = G_1).
  j.q_zero = false, j.q[0] = 0.25, j.wing_row = 0.7, j.wing_col = 1.3, j.time_reversed = true;
  kernels::gpp_mode(j, 0, 1, I, wt);
  const cplx e = conj(eps[0 + 3 * 1] * 0.7 * phase[0] * conj(phase[1]));
  EXPECT_NEAR(abs(I + e), 0.0, 1e-15);
  const double dot = 0.25 * 0.5 * 1.25;  // (q+G_0).(q+G_1), q = (0.25, 0, 0)
  const cplx omega2 = 250.0 * (at(-1, 0, 0) / 8.0) * (dot * vbar[0] / (8.0 * 3.14159265358979323846));
  const double wt2 = (omega2 * conj(I) / norm2(I)).re;
  EXPECT_NEAR(wt, wt2 < 0 ? 1e12 : std::sqrt(wt2), 1e-12 * std::max(1.0, std::sqrt(std::abs(wt2))));
  // A negative wt^2 gives the static mode: (G_1, G_2) with e = 0.2, so I = -0.2, while rho(G_1 - G_2) = 2 and
  // (q+G_1).(q+G_2) > 0 make Omega^2 positive.
  std::vector<cplx> eps2 = eps;
  eps2[1 + 3 * 2] = cplx(0.2, 0.0);
  j.epsinv = eps2.data(), j.time_reversed = false;
  const std::vector<cplx> ph2 = {cplx(1.0), cplx(1.0), cplx(1.0)};
  j.phase = ph2.data();
  kernels::gpp_mode(j, 1, 2, I, wt);  // I = -0.2, Omega^2 = 250 * 0.25 * (1.25 * 0.25 * 0.5) * 2 / 8 pi > 0: wt^2 < 0
  EXPECT_NEAR(I.re, -0.2, 1e-15);
  EXPECT_EQ(wt, 1e12);
  // The engine on the host fills [ncol][ng] from column col_lo, as gpp_mode gives each entry.
  kernels::GppModes engine(Backend::Cpu, rho, gmax);
  j.col_lo = 1, j.ncol = 2;
  engine.run(j, 0);
  for (int c = 0; c < 2; ++c)
    for (int a = 0; a < ng; ++a) {
      kernels::gpp_mode(j, a, 1 + c, I, wt);
      EXPECT_EQ(engine.wt()[a + ng * c], wt);
      EXPECT_EQ(engine.i_eps()[a + ng * c].re, I.re);
      EXPECT_EQ(engine.i_eps()[a + ng * c].im, I.im);
    }
}
