// Full frequency (contour deformation) against closed forms:
// - the imaginary-axis quadratures integrate what they assume exactly (a constant for method 0 over its intervals,
//   an even quadratic for method 2);
// - the full-frequency CHI_SUM at z = 0 is the static CHI_SUM (same weights, -4 / (N_k Omega D));
// - Sigma_c by contour deformation of a plasmon-pole screened interaction, eps^-1(z) - 1 = -I wt^2 / (wt^2 - z^2) per
//   element, equals the GPP kernel's closed-form sums for the same I and wt. This fixes every sign and factor of the
//   residues, the integral and the contraction; the bound (2e-5 of the largest sum) is the quadrature's: real-axis
//   step 0.01 eV with linear interpolation and broadening 1e-4 eV, 400 imaginary points with the piecewise quadratic.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../kernels/cd.hpp"
#include "../kernels/chi_freq.hpp"
#include "../kernels/chi_sum.hpp"
#include "../kernels/gpp.hpp"
#include "../src/contour.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/error.hpp"

using namespace quanta;
using namespace quanta::gw;

namespace {

std::vector<double> bgw_imaginary_grid(int n, double plasma) {
  std::vector<double> w;
  for (int j = 0; j < n; ++j) w.push_back(plasma * (static_cast<double>(j) / n) / (1 - static_cast<double>(j) / n));
  return w;
}

cplx inverse(cplx z) { return conj(z) / norm2(z); }

}  // namespace

TEST(GwContour, QuadraturesExactForWhatTheyAssume) {
  const auto w = bgw_imaginary_grid(15, 27.2);
  for (const double x : {-3.0, -0.2, 0.05, 1.0, 7.5}) {
    // Method 2, y = a + b w^2: exact on [0, w_last].
    const cplx a(0.7, -0.2), b(-0.003, 0.001);
    std::vector<cplx> y;
    for (const double wj : w) y.push_back(a + b * (wj * wj));
    const double last = w.back();
    const cplx exact = b * (x * last) + (a - b * (x * x)) * std::atan(last / x);
    EXPECT_LT(abs(cd_imaginary_integral(2, w.data(), y.data(), static_cast<int>(w.size()), x) - exact), 1e-11 * abs(exact)) << "x " << x;
    // Method 0, a constant: its intervals run from 0 to half a step past the last point.
    std::vector<cplx> c(w.size(), a);
    const double end = 0.5 * (3 * w.back() - w[w.size() - 2]);
    EXPECT_LT(abs(cd_imaginary_integral(0, w.data(), c.data(), static_cast<int>(w.size()), x) - a * std::atan(end / x)), 1e-12) << "x " << x;
  }
  // x = 0: the half delta at w = 0, its limit x -> 0+ (pi/2) y(0), whatever the method.
  const std::vector<cplx> ones(15, cplx(2.0));
  for (const int method : {0, 2}) {
    EXPECT_NEAR(cd_imaginary_integral(method, w.data(), ones.data(), 15, 0.0).re, M_PI, 1e-15);
    EXPECT_NEAR(cd_imaginary_integral(method, w.data(), ones.data(), 15, 1e-7).re, M_PI, 2e-6);
  }
  EXPECT_EQ(cd_residue_factor(true, -1.0), -1.0);
  EXPECT_EQ(cd_residue_factor(true, 1.0), 0.0);
  EXPECT_EQ(cd_residue_factor(false, 1.0), 1.0);
  EXPECT_EQ(cd_residue_factor(false, -1.0), 0.0);
  EXPECT_EQ(cd_residue_factor(true, 0.0), 0.0);
  EXPECT_EQ(cd_residue_factor(false, 0.0), 1.0);
  const cplx y[3] = {1, 2, 4};
  EXPECT_NEAR(cd_real_axis_value(y, 3, 0, 0.5, 0.75, "t").re, 3.0, 1e-14);
  EXPECT_THROW(cd_real_axis_value(y, 3, 0, 0.5, 1.2, "t"), Error);
}

TEST(GwContour, FullFrequencyChiAtZeroIsTheStaticChi) {
  const int ng = 7, np = 12;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cplx> m(static_cast<std::size_t>(ng) * np);
  for (auto& x : m) x = {u(rng), u(rng)};
  std::vector<double> de(np), w(np);
  const double pref = 0.37;  // 4 / (N_k Omega)
  for (int p = 0; p < np; ++p) de[p] = 0.2 + 0.1 * p, w[p] = pref / de[p];
  kernels::ChiSumEngine stat(Backend::Cpu, ng);
  kernels::ChiSumJob sj;
  sj.npairs = np, sj.ng = ng, sj.m = m.data(), sj.w = w.data();
  stat.add(sj);
  kernels::ChiFreqEngine ff(Backend::Cpu, ng, {cplx(0, 0), cplx(0, 0.3)}, pref / 2);
  kernels::ChiFreqJob fj;
  fj.npairs = np, fj.ng = ng, fj.m = m.data(), fj.de = de.data();
  ff.add(fj);
  const auto a = stat.result(), b = ff.result();
  ASSERT_EQ(b.size(), 2 * a.size());
  double big = 0, diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) big = std::max(big, abs(a[i])), diff = std::max(diff, abs(a[i] - b[i]));
  EXPECT_LT(diff, 1e-13 * big);
  // On the imaginary axis the matrix is Hermitian and each pair enters with -2 s D / (D^2 + w^2).
  for (int i = 0; i < ng; ++i)
    for (int j = 0; j < ng; ++j) {
      cplx want;
      for (int p = 0; p < np; ++p) want += (-pref * de[p] / (de[p] * de[p] + 0.09)) * (m[p * ng + i] * conj(m[p * ng + j]));
      EXPECT_LT(abs(b[a.size() + i + ng * j] - want), 1e-13 * big);
    }
}

TEST(GwContour, PlasmonPoleScreeningGivesTheGppSums) {
  const int ng = 6, nn = 2, nm = 7, nocc = 3, ne = 5;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1), wdist(8, 15);
  std::vector<cplx> I(ng * ng), m(static_cast<std::size_t>(nn) * nm * ng);
  std::vector<double> wt(ng * ng), v(ng);
  for (auto& x : I) x = {0.3 * u(rng), 0.1 * u(rng)};
  for (auto& x : wt) x = wdist(rng);
  for (auto& x : v) x = 0.5 + 0.5 * u(rng);
  for (auto& x : m) x = {u(rng), u(rng)};
  // Bands m on both sides of the evaluation energies, which stay within 4 eV of every E_m (the GPP kernel's main
  // branch for every term: |w - wt| > 4 eV).
  const std::vector<double> e_m = {-2.0, -1.3, -0.4, 0.9, 1.5, 2.2, 1.1};
  std::vector<double> e_eval(nn * ne);
  for (int n = 0; n < nn; ++n)
    for (int e = 0; e < ne; ++e) e_eval[n * ne + e] = (n == 0 ? -0.4 : 0.9) + 0.2 * (e - ne / 2);
  // GPP.
  std::vector<cplx> sx(nn * ne), ch(nn * ne);
  kernels::GppJob g;
  g.ng = ng, g.i_eps = I.data(), g.wt = wt.data(), g.v = v.data(), g.nn = nn, g.nm = nm, g.ne = ne, g.nocc = nocc, g.m = m.data(),
  g.e_m = e_m.data(), g.e_eval = e_eval.data(), g.sx = sx.data(), g.ch = ch.data();
  kernels::gpp_cpu(g);
  // Contour deformation of the same model.
  const double dw = 0.01, eta = 1e-4;
  const int nr = 501;  // 0 .. 5 eV
  const auto wi = bgw_imaginary_grid(400, 27.2);
  const int nfi = static_cast<int>(wi.size());
  auto model = [&](cplx z, std::vector<cplx>& out) {
    for (int i = 0; i < ng * ng; ++i) out.push_back(-1.0 * I[i] * (wt[i] * wt[i]) * inverse(cplx(wt[i] * wt[i]) - z * z));
  };
  std::vector<cplx> mats_i, mats_r;
  for (const double w : wi) model({0, w}, mats_i);
  for (int f = 0; f < nr; ++f) model({f * dw, eta}, mats_r);
  std::vector<cplx> s_imag(nn * nm * nfi), s_real(nn * nm * nr);
  for (auto [mats, nmat, s] : {std::tuple{&mats_i, nfi, &s_imag}, std::tuple{&mats_r, nr, &s_real}}) {
    kernels::CdContractJob cj;
    cj.ng = ng, cj.ngp = ng, cj.nmat = nmat, cj.mats = mats->data(), cj.v = v.data(), cj.nrows = nn * nm, cj.m = m.data(), cj.s = s->data();
    kernels::cd_contract(Backend::Cpu, cj, 0);
  }
  double big = 0;
  for (int i = 0; i < nn * ne; ++i) big = std::max(big, abs(sx[i] + ch[i]));
  std::vector<int> rows(nm);
  for (int n = 0; n < nn; ++n) {
    for (int r = 0; r < nm; ++r) rows[r] = r;
    CdBand b;
    b.nm = nm, b.nocc = nocc, b.e_m = e_m.data(), b.ne = ne, b.e_eval = e_eval.data() + n * ne, b.method = 2, b.nfi = nfi, b.w_imag = wi.data(),
    b.s_imag = s_imag.data() + n * nm * nfi, b.nr = nr, b.w0 = 0, b.dw = dw, b.s_real = s_real.data() + n * nm * nr, b.real_row = rows.data();
    std::vector<cplx> res(ne), in(ne);
    cd_band_sums(b, res.data(), in.data(), "test");
    for (int e = 0; e < ne; ++e) {
      const cplx gpp = sx[n * ne + e] + ch[n * ne + e], cd = res[e] + in[e];
      std::printf("n %d E %+.2f: GPP (%.8f, %.8f) contour deformation (%.8f, %.8f) difference %.2e\n", n, e_eval[n * ne + e], gpp.re, gpp.im, cd.re, cd.im,
                  abs(gpp - cd));
      EXPECT_LT(abs(gpp - cd), 2e-5 * big) << "n " << n << " e " << e;
    }
  }
}

// The static subspace's values (cd_subspace, do_sigma_subspace) are the G-basis contraction of the matrices they stand
// for, I_j(G, G'_c) = sum_{a,b} L(G, a) D'_j(a, b) conj(R(G'_c, b)) plus head_j / v(G_0) at (G_0, G_0): random L, R, D,
// a subset of columns, D' = D and D^T. The same sums in another order: 1e-12 of the largest value.
TEST(GwContour, SubspaceValuesAreTheContractionOfTheMatricesTheyStandFor) {
  const int ng = 29, nb = 7, nmat = 4, nrows = 13, g0 = 5;
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(-1, 1);
  auto random = [&](std::size_t n) {
    std::vector<cplx> x(n);
    for (auto& e : x) e = {u(rng), u(rng)};
    return x;
  };
  const auto L = random(ng * nb), R = random(ng * nb), d = random(nmat * nb * nb), m = random(nrows * ng), head = random(nmat);
  std::vector<double> v(ng);
  for (auto& x : v) x = 0.5 + 0.5 * u(rng);
  std::vector<int> cols;
  for (int c = 3; c < 20; ++c) cols.push_back(c);  // holds G_0 = 5
  const int ncol = static_cast<int>(cols.size());
  std::vector<cplx> rv(ng * nb);
  for (int b = 0; b < nb; ++b)
    for (int c : cols) rv[c + ng * b] = R[c + ng * b] * v[c];
  for (const bool transposed : {false, true}) {
    std::vector<cplx> mats(static_cast<std::size_t>(nmat) * ncol * ng);
    for (int j = 0; j < nmat; ++j)
      for (int c = 0; c < ncol; ++c)
        for (int g = 0; g < ng; ++g) {
          cplx e;
          for (int a = 0; a < nb; ++a)
            for (int b = 0; b < nb; ++b) {
              const cplx dab = transposed ? d[j * nb * nb + b + nb * a] : d[j * nb * nb + a + nb * b];
              e += L[g + ng * a] * dab * conj(R[cols[c] + ng * b]);
            }
          if (g == g0 && cols[c] == g0) e += head[j] / v[g0];
          mats[(static_cast<std::size_t>(j) * ncol + c) * ng + g] = e;
        }
    std::vector<cplx> want(nrows * nmat), got(nrows * nmat);
    kernels::CdContractJob cj;
    cj.ng = ng, cj.ngp = ncol, cj.gp_index = cols.data(), cj.nmat = nmat, cj.mats = mats.data(), cj.v = v.data(), cj.nrows = nrows, cj.m = m.data(),
    cj.s = want.data();
    kernels::cd_contract(Backend::Cpu, cj, 0);
    kernels::CdSubspaceJob sj;
    sj.ng = ng, sj.nb = nb, sj.L = L.data(), sj.Rv = rv.data(), sj.nmat = nmat, sj.d = d.data(), sj.transposed = transposed, sj.head = head.data(),
    sj.g0 = g0, sj.nrows = nrows, sj.m = m.data(), sj.s = got.data();
    kernels::cd_subspace(Backend::Cpu, sj, 0);
    double big = 0, diff = 0;
    for (int i = 0; i < nrows * nmat; ++i) big = std::max(big, abs(want[i])), diff = std::max(diff, abs(want[i] - got[i]));
    std::printf("  subspace values against the expanded contraction (transposed %d): %.2e of %.3g\n", transposed, diff, big);
    EXPECT_LT(diff, 1e-12 * big) << "transposed " << transposed;
  }
}

// The real-axis method's sums (ra_band_sums) against closed forms, with the spectral weight S = Im P linear between the
// grid points (0 .. 10 eV, uneven steps) and energies outside the grid's principal-value range:
// - an occupied band at x >= 0: Cor4 = (1/pi) int S(w) / (x + w) dw exactly (no delta term, no pole);
// - an empty band at x < 0: Cor4 = (1/pi) int S(w) / (x - w) dw + (2/pi) (S_N - S_1), BerkeleyGW 3.0's +(S_j - S_{j-1}) per
//   interval where the exact principal value has -(S_j - S_{j-1});
// - SX-X of an occupied band: P interpolated at |x|, conjugated for x < 0; CH the forward-difference sum.
// The integrals by Simpson's rule on 2e5 panels per interval (1e-12 relative).
TEST(GwContour, RealAxisSumsFollowTheirClosedForms) {
  const std::vector<double> w = {0, 0.5, 1.2, 2.0, 3.5, 5.0, 7.5, 10.0};
  const int nw = static_cast<int>(w.size());
  std::vector<double> eta(nw, 0.1);
  std::vector<cplx> p(2 * nw);  // band 0 occupied, band 1 empty
  for (int m = 0; m < 2; ++m)
    for (int j = 0; j < nw; ++j) p[m * nw + j] = cplx(0.3 * std::cos(j + m), 0.2 + 0.1 * std::sin(1.7 * j) + 0.05 * m);
  const double e_m[2] = {-1.0, 2.0};
  const double e_eval[2] = {3.0, -2.5};  // x = E + 1e-6 - E_m: band 0 at 4 and -1.5, band 1 at 1 and -4.5
  auto linear_s = [&](int m, double x) {
    int a = 0;
    while (a + 2 < nw && x >= w[a + 1]) ++a;
    return p[m * nw + a].im + (p[m * nw + a + 1].im - p[m * nw + a].im) * (x - w[a]) / (w[a + 1] - w[a]);
  };
  auto integral = [&](int m, auto kernel) {  // int_0^10 S(w) kernel(w) dw
    double sum = 0;
    for (int j = 0; j + 1 < nw; ++j) {
      const int n = 200000;
      const double h = (w[j + 1] - w[j]) / n;
      for (int i = 0; i <= n; ++i) {
        const double x = w[j] + i * h, c = i == 0 || i == n ? 1 : i % 2 ? 4 : 2;
        sum += c * h / 3 * linear_s(m, x) * kernel(x);
      }
    }
    return sum;
  };
  constexpr double pi = 3.141592653589793;
  for (int m = 0; m < 2; ++m) {
    RaBand b;
    b.nm = 1, b.nocc = m == 0 ? 1 : 0, b.e_m = &e_m[m], b.ne = 2, b.e_eval = e_eval, b.nw = nw, b.w = w.data(), b.eta = eta.data(), b.p = p.data() + m * nw;
    cplx sx[2], ch[2], cor[2], cor4[2];
    const bool beyond = ra_band_sums(b, sx, ch, cor, cor4);
    EXPECT_FALSE(beyond);
    for (int e = 0; e < 2; ++e) {
      const double x = e_eval[e] + kRealAxisShift - e_m[m];
      cplx want_ch;
      for (int j = 0; j + 1 < nw; ++j)
        want_ch += ((w[j + 1] - w[j]) / pi * (j == 0 ? 0.5 : 1.0) * p[m * nw + j].im) * (cplx(x - w[j], -eta[j]) / ((x - w[j]) * (x - w[j]) + eta[j] * eta[j]));
      EXPECT_NEAR(abs(ch[e] - want_ch), 0, 1e-13) << "band " << m << " x " << x;
      if (m == 0) {  // occupied
        int a = 0;
        const double y = std::abs(x);
        while (a + 2 < nw && y >= w[a + 1]) ++a;
        const cplx v = p[a] + (p[a + 1] - p[a]) * ((y - w[a]) / (w[a + 1] - w[a]));
        const cplx want_sx = x >= 0 ? v : conj(v);
        EXPECT_NEAR(abs(sx[e] - want_sx), 0, 1e-13) << "x " << x;
        if (x >= 0) {
          const double exact = integral(0, [&](double t) { return 1 / (x + t); }) / pi;
          EXPECT_NEAR(cor4[e].re, exact, 1e-10 * std::abs(exact)) << "x " << x;
          std::printf("  occupied band, x = %+.6f: Cor4 %.12f, (1/pi) int S / (x + w) %.12f\n", x, cor4[e].re, exact);
          EXPECT_EQ(cor4[e].im, 0.0);
        }
      } else {  // empty
        EXPECT_EQ(abs(sx[e]), 0.0);
        if (x < 0) {
          const double exact = integral(1, [&](double t) { return 1 / (x - t); }) / pi;
          const double quirk = 2 / pi * (p[nw + nw - 1].im - p[nw].im);
          EXPECT_NEAR(cor4[e].re, exact + quirk, 1e-10 * std::abs(exact + quirk)) << "x " << x;
          std::printf("  empty band, x = %+.6f: Cor4 %.12f, principal value %.12f + (2/pi)(S_N - S_1) %.12f\n", x, cor4[e].re, exact, quirk);
          EXPECT_EQ(cor4[e].im, 0.0);
        }
      }
    }
  }
}
