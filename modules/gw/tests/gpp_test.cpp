// The GPP kernel on the problem of BerkeleyGW's GPP mini-app, whose sums have a closed form
// (bench/gpp_miniapp.hpp): CH and SX-X of both backends against it, and the real-mode path against the
// complex one with zero imaginary parts. Bound 1e-12 relative: the sums are of 10^7 - 10^11 equal terms
// split into row sums of ncouls terms (CPU) or per-thread sums of a few thousand (device), so their
// rounding stays near 1e-13; a wrong factor, sign, branch or index shows at order 1.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "../bench/gpp_miniapp.hpp"
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
