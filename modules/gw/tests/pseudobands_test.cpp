// Stochastic pseudobands (quanta gw-pseudobands) on a silicon mean field with 138 bands (tests/data/si-spb: 4x4x4
// k-grid, 4 valence and 134 conduction bands, Real flavour, Quantum ESPRESSO 6.7).
//
// What is checked, and why the tolerances are what they are:
// - the construction: slices partition the unprotected bands with geometric edges; protected bands are copied
//   bit for bit; a pseudoband sits at its slice's mean energy; <xi|xi> = |S| / N_xi and the slice's resolution of
//   the identity is exact on its diagonal for every draw (|alpha| = 1 / sqrt(N_xi)), to the states'
//   orthonormality (QE's ~1e-8, measured per slice); its off-diagonal part averages out as 1 / sqrt(draws N_xi) (a statistical bound);
// - the files: wfn.h5 written and read back bit for bit with its /pseudobands group; the norm check refuses
//   pseudobands unless dont_check_norms; options that do not fit the files are refused by name;
// - the physics: Epsilon's chi0 and Sigma's Coulomb-hole sum are linear in each slice's projector at fixed
//   energies, so over independent draws their mean must equal the deterministic sum with every band of a slice
//   moved to the slice's mean energy (the method's only systematic approximation): Student t statistics over
//   every element; and the quasiparticle energies of whole runs (Epsilon and Sigma both from pseudobands) must
//   agree with the deterministic 138-band run within their stochastic error plus the slice-energy bias, both
//   measured here and printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/pseudobands.hpp"
#include "quanta/gw/sigma.hpp"
#include "quanta/test/data.hpp"
#include "../../../core/tests/test_support.hpp"

using namespace quanta::gw;
using quanta::cplx;

namespace {

const std::string kSpb = quanta::test::data_path("gw/si-spb").string() + "/";

const Wavefunctions& si_wfn() {
  static const Wavefunctions w = read_wfn(kSpb + "mean-field/WFN");
  return w;
}
const Wavefunctions& si_wfnq() {
  static const Wavefunctions w = read_wfn(kSpb + "mean-field/WFNq");
  return w;
}

PseudobandsParams params(int nprot, int nslice, int nxi, std::uint64_t seed = 1) {
  PseudobandsParams p;
  p.protected_cond = nprot;
  p.slices_cond = nslice;
  p.per_slice_cond = nxi;
  p.seed = seed;
  return p;
}

cplx dot(const cplx* a, const cplx* b, int n) {
  cplx s;
  for (int i = 0; i < n; ++i) s += conj(a[i]) * b[i];
  return s;
}

// max |<psi_i|psi_j> - delta_ij| over bands first .. first + n - 1 at k: how orthonormal the input is (QE's states to
// ~1e-8), which bounds what the pseudobands' overlaps can reproduce (a slice of n bands sums n such errors).
double orthonormality_error(const Wavefunctions& w, int k, int first, int n) {
  const int ng = static_cast<int>(w.gvec[k].size());
  double e = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) e = std::max(e, quanta::abs(dot(w.band(k, first + i), w.band(k, first + j), ng) - cplx(i == j ? 1.0 : 0.0)));
  return e;
}

// The deterministic counterpart of a plan: every band of a slice at the slice's mean energy at each k-point.
Wavefunctions slice_averaged(const Wavefunctions& in, const PseudobandsPlan& plan) {
  Wavefunctions w = in;
  for (int k = 0; k < w.nk(); ++k)
    for (const auto& [first, n] : slice_bands(in, plan, false, k)) {
      double e = 0;
      for (int i = first; i < first + n; ++i) e += in.energy(k, i);
      for (int i = first; i < first + n; ++i) w.energies[static_cast<std::size_t>(k) * w.nbands + i] = e / n;
    }
  return w;
}

// Student t statistics of the means of `draws` against `ref`, element by element: the fraction beyond 4 and the
// root mean square over elements with a spread; elements without one (deterministic) must equal ref to `exact`.
struct TStats {
  double beyond4 = 0, rms = 0;
  int n = 0;
};
TStats t_stats(const std::vector<std::vector<double>>& draws, const std::vector<double>& ref, double exact) {
  TStats t;
  const std::size_t m = draws.size();
  int beyond = 0;
  double sum2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    double mean = 0, var = 0;
    for (const auto& d : draws) mean += d[i];
    mean /= m;
    for (const auto& d : draws) var += (d[i] - mean) * (d[i] - mean);
    const double se = std::sqrt(var / (m - 1) / m);
    if (se <= exact) {
      EXPECT_NEAR(mean, ref[i], exact) << "element " << i << " has no spread over the draws";
      continue;
    }
    const double z = (mean - ref[i]) / se;
    beyond += std::abs(z) > 4;
    sum2 += z * z;
    ++t.n;
  }
  t.beyond4 = t.n ? static_cast<double>(beyond) / t.n : 0;
  t.rms = t.n ? std::sqrt(sum2 / t.n) : 0;
  return t;
}

}  // namespace

TEST(GwPseudobands, SlicesPartitionTheConductionBandsGeometrically) {
  const auto& w = si_wfn();
  const auto plan = plan_pseudobands(w, si_wfnq(), params(4, 10, 2));
  std::printf("%s", describe(plan, params(4, 10, 2)).c_str());
  ASSERT_EQ(plan.ifmax, 4);
  EXPECT_TRUE(plan.val.empty());
  ASSERT_FALSE(plan.cond.empty());
  // Edges E0 (Emax/E0)^(m/N_S): each slice starts on the ladder (slices without bands dropped).
  const double e0 = plan.cond.front().lower, emax = plan.cond.back().upper;
  for (std::size_t j = 0; j < plan.cond.size(); ++j) {
    const double steps = std::log(plan.cond[j].lower / e0) / std::log(emax / e0) * 10;
    EXPECT_NEAR(steps, std::round(steps), 1e-9) << "slice " << j;
    EXPECT_GE(plan.cond[j].bands_max, 1);
  }
  // At each k-point the slices take bands 9.. (0-based 8..) in order, all of them, each band in the slice its energy
  // falls in (a band degenerate with the one below it, in that one's).
  for (int k = 0; k < w.nk(); ++k) {
    int next = 8;
    const auto bands = slice_bands(w, plan, false, k);
    for (std::size_t j = 0; j < bands.size(); ++j) {
      const auto [first, n] = bands[j];
      if (n == 0) continue;
      EXPECT_EQ(first, next) << "k " << k << " slice " << j;
      for (int i = first; i < first + n; ++i) {
        const double x = w.energy(k, i) - plan.fermi;
        const bool with_below = std::abs(w.energy(k, i) - w.energy(k, i - 1)) < 1e-6;
        if (!with_below) EXPECT_GE(x, plan.cond[j].lower - 1e-12) << "k " << k << " band " << i;
        if (j + 1 < bands.size()) EXPECT_LT(x, plan.cond[j + 1].lower) << "k " << k << " band " << i;
      }
      next = first + n;
    }
    EXPECT_EQ(next, w.nbands_file);
  }
  EXPECT_EQ(plan.bands_out_cond, 4 + 2 * static_cast<int>(plan.cond.size()));
  EXPECT_EQ(plan.bands_out_val, 4);
}

TEST(GwPseudobands, ProtectedBandsAreCopiedAndEachSliceResolvesItsIdentity) {
  const auto& w = si_wfn();
  const auto p = params(4, 10, 3);
  const auto plan = plan_pseudobands(w, si_wfnq(), p);
  const auto s = make_pseudobands(w, plan, p, true, 0);
  ASSERT_EQ(s.nbands, 4 + plan.bands_out_cond);
  EXPECT_TRUE(s.pseudobands.present);
  EXPECT_EQ(s.pseudobands.nprot_cond, 4);
  EXPECT_EQ(s.pseudobands.nprot_val, -1);
  EXPECT_EQ(s.pseudobands.nslice_cond, static_cast<int>(plan.cond.size()));
  for (int k = 0; k < w.nk(); ++k) {
    const int ng = static_cast<int>(w.gvec[k].size());
    EXPECT_EQ(s.ifmax[k], 4);
    for (int n = 0; n < 8; ++n) {
      EXPECT_EQ(s.energy(k, n), w.energy(k, n));
      EXPECT_TRUE(std::equal(w.band(k, n), w.band(k, n) + ng, s.band(k, n), [](cplx a, cplx b) { return a.re == b.re && a.im == b.im; }));
    }
    int b = 8;
    for (const auto& [first, n_s] : slice_bands(w, plan, false, k)) {
      if (n_s == 0) {  // zero states where the slice holds no band at this k-point
        for (int x = 0; x < p.per_slice_cond; ++x, ++b) EXPECT_EQ(quanta::abs(dot(s.band(k, b), s.band(k, b), ng)), 0.0);
        continue;
      }
      double e = 0;
      for (int i = 0; i < n_s; ++i) e += w.energy(k, first + i);
      // gram[i][j] = sum over the slice's pseudobands of <psi_i|xi><xi|psi_j>
      std::vector<cplx> gram(static_cast<std::size_t>(n_s) * n_s);
      const double tol = 1e-12 + 2 * n_s * orthonormality_error(w, k, 0, first + n_s);
      for (int x = 0; x < p.per_slice_cond; ++x, ++b) {
        EXPECT_NEAR(s.energy(k, b), e / n_s, 1e-14 * std::abs(e));
        EXPECT_NEAR(quanta::abs(dot(s.band(k, b), s.band(k, b), ng)), static_cast<double>(n_s) / p.per_slice_cond, tol);
        std::vector<cplx> o(n_s);
        for (int i = 0; i < n_s; ++i) {
          o[i] = dot(w.band(k, first + i), s.band(k, b), ng);
          EXPECT_NEAR(quanta::abs(o[i]), 1 / std::sqrt(3.0), tol);  // |alpha| = 1 / sqrt(N_xi)
          for (int n = 0; n < 4 && x == 0; ++n) EXPECT_LT(quanta::abs(dot(w.band(k, n), s.band(k, b), ng)), tol);  // no valence component
        }
        for (int i = 0; i < n_s; ++i)
          for (int j = 0; j < n_s; ++j) gram[i + static_cast<std::size_t>(n_s) * j] += o[i] * conj(o[j]);
        for (std::size_t g = 0; g < static_cast<std::size_t>(ng); ++g) EXPECT_EQ(s.band(k, b)[g].im, 0.0);  // Real flavour: signs
      }
      for (int i = 0; i < n_s; ++i) EXPECT_NEAR(gram[i + static_cast<std::size_t>(n_s) * i].re, 1.0, 2 * tol);
    }
  }
  // The same seed gives the same file; another seed another draw.
  const auto again = make_pseudobands(w, plan, p, true, 0);
  EXPECT_EQ(again.coeffs[3][20 * w.gvec[3].size() + 5].re, s.coeffs[3][20 * w.gvec[3].size() + 5].re);
  auto p2 = p;
  p2.seed = 2;
  const auto other = make_pseudobands(w, plan, p2, true, 0);
  double diff = 0;
  for (std::size_t i = 0; i < s.coeffs[3].size(); ++i) diff = std::max(diff, quanta::abs(other.coeffs[3][i] - s.coeffs[3][i]));
  EXPECT_GT(diff, 1e-3);
}

// The off-diagonal part of a slice's resolution of the identity averages out: over D draws of N_xi random-sign
// combinations, each <psi_i|(sum_xi |xi><xi|)|psi_j> (i != j) has mean 0 and variance 1 / N_xi, so the draws' mean has
// root mean square 1 / sqrt(D N_xi) over the pairs (within 20% for the 40 x 39 pairs of the widest slice).
// Complex flavour: the same with random phases, |alpha| = 1 / sqrt(N_xi) exactly.
TEST(GwPseudobands, OffDiagonalPartAveragesOut) {
  for (const bool complex_flavour : {false, true}) {
    Wavefunctions w = si_wfn();
    if (complex_flavour) {
      // A gauge change (a phase per band) of the same states, held as complex-flavour states.
      w.complex_flavour = true;
      for (int k = 0; k < w.nk(); ++k)
        for (int n = 0; n < w.nbands; ++n) {
          const double phi = 0.37 * n + 1.3 * k;
          cplx* c = w.coeffs[k].data() + static_cast<std::size_t>(n) * w.gvec[k].size();
          for (std::size_t g = 0; g < w.gvec[k].size(); ++g) c[g] = c[g] * cplx(std::cos(phi), std::sin(phi));
        }
    }
    const int nxi = 2, draws = 32, k = 5;
    const auto plan = plan_pseudobands(w, si_wfnq(), params(4, 10, nxi));
    const auto bands = slice_bands(w, plan, false, k);
    const auto widest = std::max_element(bands.begin(), bands.end(), [](auto& a, auto& b) { return a.second < b.second; });
    const auto [first, n_s] = *widest;
    const int b0 = 8 + nxi * static_cast<int>(widest - bands.begin());
    const int ng = static_cast<int>(w.gvec[k].size());
    const double tol = 1e-12 + 4 * n_s * orthonormality_error(w, k, first, n_s);
    std::vector<cplx> mean(static_cast<std::size_t>(n_s) * n_s);
    for (int d = 0; d < draws; ++d) {
      const auto s = make_pseudobands(w, plan, params(4, 10, nxi, 100 + d), true, 0);
      for (int x = 0; x < nxi; ++x) {
        std::vector<cplx> o(n_s);
        for (int i = 0; i < n_s; ++i) o[i] = dot(w.band(k, first + i), s.band(k, b0 + x), ng);
        if (complex_flavour && d == 0) EXPECT_GT(std::abs(o[1].im), 1e-3);
        for (int i = 0; i < n_s; ++i)
          for (int j = 0; j < n_s; ++j) mean[i + static_cast<std::size_t>(n_s) * j] += o[i] * conj(o[j]) * cplx(1.0 / draws);
      }
    }
    double off2 = 0;
    for (int i = 0; i < n_s; ++i)
      for (int j = 0; j < n_s; ++j) {
        if (i == j) {
          EXPECT_NEAR(mean[i + static_cast<std::size_t>(n_s) * j].re, 1.0, tol);
          continue;
        }
        off2 += std::pow(quanta::abs(mean[i + static_cast<std::size_t>(n_s) * j]), 2);
      }
    const double rms = std::sqrt(off2 / (n_s * (n_s - 1.0)));
    std::printf("  %s flavour, slice of %d bands, %d draws of %d: rms off-diagonal %.4f, expected %.4f\n", complex_flavour ? "complex" : "Real", n_s,
                draws, nxi, rms, 1 / std::sqrt(1.0 * draws * nxi));
    EXPECT_NEAR(rms * std::sqrt(1.0 * draws * nxi), 1.0, 0.2);
  }
}

TEST(GwPseudobands, WfnH5RoundTripAndTheNormCheck) {
  quanta::test::TempDir dir;
  const auto& w = si_wfn();
  const auto p = params(4, 10, 2);
  const auto plan = plan_pseudobands(w, si_wfnq(), p);
  const auto s = make_pseudobands(w, plan, p, true, 0);
  const auto file = dir.path() / "WFN_SPB.h5";
  write_wfn_h5(s, file);
  // Without dont_check_norms the pseudobands are refused by the orthonormality check, naming the keyword.
  quanta::test::expect_error<quanta::InputError>([&] { read_wfn(file); }, {"WFN_SPB.h5", "dont_check_norms"});
  const auto r = read_wfn(file, 0, false);
  ASSERT_EQ(r.nbands, s.nbands);
  EXPECT_FALSE(r.complex_flavour);
  EXPECT_EQ(r.ifmax, s.ifmax);
  EXPECT_EQ(r.energies, s.energies);
  EXPECT_EQ(r.occupations, s.occupations);
  for (int k = 0; k < w.nk(); ++k) {
    ASSERT_EQ(r.coeffs[k].size(), s.coeffs[k].size());
    for (std::size_t i = 0; i < r.coeffs[k].size(); ++i) ASSERT_EQ(r.coeffs[k][i].re, s.coeffs[k][i].re);
  }
  EXPECT_TRUE(r.pseudobands.present);
  EXPECT_EQ(r.pseudobands.nprot_cond, 4);
  EXPECT_EQ(r.pseudobands.nslice_cond, static_cast<int>(plan.cond.size()));
  EXPECT_EQ(r.pseudobands.per_slice_cond, 2);
  EXPECT_EQ(r.pseudobands.nprot_val, -1);
  // WFNq: valence copied (no valence pseudobands), so it reads back as the input and passes the check.
  const auto q = make_pseudobands(si_wfnq(), plan, p, false, 1);
  write_wfn_h5(q, dir.path() / "WFNq_SPB.h5");
  const auto rq = read_wfn(dir.path() / "WFNq_SPB.h5");
  EXPECT_EQ(rq.nbands, si_wfnq().nbands);
  EXPECT_EQ(rq.energies, si_wfnq().energies);
}

TEST(GwPseudobands, OptionsThatDoNotFitAreRefusedByName) {
  const auto& w = si_wfn();
  const auto& q = si_wfnq();
  using quanta::InputError;
  using quanta::test::expect_error;
  expect_error<InputError>([&] { plan_pseudobands(w, q, params(6, 10, 2)); }, {"--N_P_cond", "degenerate", "bands 10 and 11", "the nearest: 4 or 10"});
  expect_error<InputError>([&] { plan_pseudobands(w, q, params(200, 10, 2)); }, {"--N_P_cond", "200", "134"});
  expect_error<InputError>([&] { plan_pseudobands(w, q, params(-1, 10, 2)); }, {"nothing to compress"});
  expect_error<InputError>([&] { plan_pseudobands(w, q, params(4, 10, 1)); }, {"--N_xi_cond", "at least 2"});
  expect_error<InputError>([&] { plan_pseudobands(w, q, params(4, 0, 2)); }, {"--N_S_cond"});
  auto p = params(4, 10, 2);
  p.max_freq = 2.0;
  expect_error<InputError>([&] { plan_pseudobands(w, q, p); }, {"--max_freq", "--uniform_width"});
  p = params(4, 10, 2);
  p.uniform_width = 0.01;
  expect_error<InputError>([&] { plan_pseudobands(w, q, p); }, {"--uniform_width", "without --max_freq"});
  p.max_freq = 0.015;
  expect_error<InputError>([&] { plan_pseudobands(w, q, p); }, {"--max_freq", "no constant slice"});
  p.max_freq = 1.0;
  p.uniform_width = 1e-9;
  expect_error<InputError>([&] { plan_pseudobands(w, q, p); }, {"--uniform_width", "at most 1e6"});
  p = params(4, 10, 2);
  p.protected_val = 1;  // the VBM is triply degenerate at Gamma
  expect_error<InputError>([&] { plan_pseudobands(w, q, p); }, {"--N_P_val", "degenerate", "the nearest: 0 or 4"});
  Wavefunctions bad = q;
  for (auto& x : bad.ifmax) x = 3;
  expect_error<InputError>([&] { plan_pseudobands(w, bad, params(4, 10, 2)); }, {"ifmax 3", "expected 4"});
}

// With --max_freq and --uniform_width, floor(max_freq / width) - 1 slices of constant width come first from E0 (as
// BerkeleyGW's script counts them), then the geometric ones to Emax.
TEST(GwPseudobands, UniformSlicesFromTheWindow) {
  auto p = params(4, 6, 2);
  p.max_freq = 1.0;
  p.uniform_width = 0.2;  // 4 constant slices: E0 .. E0 + 0.8 Ry
  const auto plan = plan_pseudobands(si_wfn(), si_wfnq(), p);
  std::printf("%s", describe(plan, p).c_str());
  const double e0 = plan.cond.front().lower;
  int uniform = 0;
  for (const auto& s : plan.cond) {
    const double i = (s.lower - e0) / 0.2;
    if (s.lower < e0 + 0.8 - 1e-12) {
      EXPECT_NEAR(i, std::round(i), 1e-9);  // starts on a constant-width edge
      ++uniform;
    }
  }
  EXPECT_GE(uniform, 2);
  // the geometric slices start where the constant ones end
  const auto after = std::find_if(plan.cond.begin(), plan.cond.end(), [&](const auto& s) { return s.lower >= e0 + 0.8 - 1e-12; });
  ASSERT_NE(after, plan.cond.end());
  EXPECT_NEAR(std::log(after->lower / (e0 + 0.8)) / std::log(plan.cond.back().upper / (e0 + 0.8)) * 6,
              std::round(std::log(after->lower / (e0 + 0.8)) / std::log(plan.cond.back().upper / (e0 + 0.8)) * 6), 1e-9);
}

// Valence pseudobands (for Epsilon): the deepest slices first, each at its mean energy, occupied, made of the slice's
// valence bands only; WFNq's valence bands compressed with the same slices, its conduction bands copied.
TEST(GwPseudobands, ValenceSlicesForEpsilon) {
  const auto& w = si_wfn();
  auto p = params(4, 10, 2);
  p.protected_val = 0;
  p.slices_val = 2;
  const auto plan = plan_pseudobands(w, si_wfnq(), p);
  std::printf("%s", describe(plan, p).c_str());
  ASSERT_FALSE(plan.val.empty());
  for (const bool q : {false, true}) {
    const Wavefunctions& in = q ? si_wfnq() : w;
    const auto s = make_pseudobands(in, plan, p, !q, q ? 1 : 0);
    ASSERT_EQ(s.nbands, plan.bands_out_val + (q ? in.nbands - 4 : plan.bands_out_cond));
    EXPECT_EQ(s.pseudobands.nprot_val, 0);
    for (int k = 0; k < in.nk(); ++k) {
      const int ng = static_cast<int>(in.gvec[k].size());
      EXPECT_EQ(s.ifmax[k], plan.bands_out_val);
      const double tol = 1e-12 + 4 * 4 * orthonormality_error(in, k, 0, 5);
      int b = 0, covered = 0;
      const auto bands = slice_bands(in, plan, true, k);
      for (auto sl = bands.rbegin(); sl != bands.rend(); ++sl) {  // deepest slice first
        const auto [first, n_s] = *sl;  // input bands first .. first + n_s - 1
        covered += n_s;
        if (n_s == 0) {
          b += 2;
          continue;
        }
        double e = 0;
        for (int i = 0; i < n_s; ++i) e += in.energy(k, first + i);
        for (int x = 0; x < 2; ++x, ++b) {
          EXPECT_NEAR(s.energy(k, b), e / n_s, 1e-14 * std::abs(e) + 1e-15);
          EXPECT_EQ(s.occupations[static_cast<std::size_t>(k) * s.nbands + b], in.occupations[static_cast<std::size_t>(k) * in.nbands + first]);
          for (int n = 0; n < 5; ++n) {  // the slice's bands at 1/sqrt(2), the other valence bands and the CBM at 0
            const double o = quanta::abs(dot(in.band(k, n), s.band(k, b), ng));
            EXPECT_NEAR(o, n >= first && n < first + n_s ? 1 / std::sqrt(2.0) : 0.0, tol) << "k " << k << " band " << n << " pseudoband " << b;
          }
        }
      }
      EXPECT_EQ(covered, 4);  // every valence band in one slice
      for (int b2 = 1; b2 < s.nbands; ++b2) EXPECT_LE(s.energy(k, b2 - 1), s.energy(k, b2) + 1e-12);  // ascending
      // the conduction bands follow the valence pseudobands (WFNq: all of its conduction bands, copied)
      EXPECT_EQ(s.energy(k, plan.bands_out_val), in.energy(k, 4));
    }
  }
}

// The complex flavour through wfn.h5 (the flavour BerkeleyGW's script makes): written and read back bit for bit.
TEST(GwPseudobands, ComplexFlavourWfnH5RoundTrip) {
  quanta::test::TempDir dir;
  Wavefunctions w = si_wfn();
  w.complex_flavour = true;
  for (int k = 0; k < w.nk(); ++k)
    for (int n = 0; n < w.nbands; ++n) {
      cplx* c = w.coeffs[k].data() + static_cast<std::size_t>(n) * w.gvec[k].size();
      for (std::size_t g = 0; g < w.gvec[k].size(); ++g) c[g] = c[g] * cplx(std::cos(0.3 * n), std::sin(0.3 * n));
    }
  const auto p = params(4, 10, 2);
  const auto s = make_pseudobands(w, plan_pseudobands(w, si_wfnq(), p), p, true, 0);
  write_wfn_h5(s, dir.path() / "c.h5");
  const auto r = read_wfn(dir.path() / "c.h5", 0, false);
  EXPECT_TRUE(r.complex_flavour);
  for (int k = 0; k < w.nk(); ++k)
    for (std::size_t i = 0; i < r.coeffs[k].size(); ++i) {
      ASSERT_EQ(r.coeffs[k][i].re, s.coeffs[k][i].re);
      ASSERT_EQ(r.coeffs[k][i].im, s.coeffs[k][i].im);
    }
  // A file of pseudobands is not compressed again.
  quanta::test::expect_error<quanta::InputError>([&] { plan_pseudobands(r, si_wfnq(), p); }, {"c.h5", "already stochastic pseudobands"});
}

// Sigma's band window must be protected, and WFN_inner's valence bands all copied.
TEST(GwPseudobands, SigmaRefusesPseudobandsInItsWindowAndValencePseudobands) {
  const auto& w = si_wfn();
  SigmaParams sp = read_sigma_inp(kSpb + "sigma.inp");
  EpsilonParams ep = read_epsilon_inp(kSpb + "epsilon.inp");
  auto p = params(4, 10, 2);
  const auto s = make_pseudobands(w, plan_pseudobands(w, si_wfnq(), p), p, true, 0);
  sp.nbands = s.nbands;
  // Without dont_check_norms the file is refused before Epsilon, from its header.
  quanta::test::expect_error<quanta::InputError>([&] { check_sigma_inputs(kSpb + "sigma.inp", sp, ep, s); }, {"sigma.inp", "dont_check_norms"});
  sp.check_norms = false;
  sp.band_max = 9;
  quanta::test::expect_error<quanta::InputError>([&] { check_sigma_inputs(kSpb + "sigma.inp", sp, ep, s); },
                                                 {"band_index_max 9", "pseudoband", "at most 8"});
  sp.band_max = 8;
  check_sigma_inputs(kSpb + "sigma.inp", sp, ep, s);
  p.protected_val = 0;
  p.slices_val = 1;
  const auto v = make_pseudobands(w, plan_pseudobands(w, si_wfnq(), p), p, true, 0);
  sp.nbands = v.nbands;
  quanta::test::expect_error<quanta::InputError>([&] { check_sigma_inputs(kSpb + "sigma.inp", sp, ep, v); }, {"valence pseudobands", "N_P_val -1"});
}

namespace {

struct SpbRun {
  EpsilonParams ep;
  SigmaParams sp;
  Density rho;
  VxcTable vxc;
  SpbRun() : ep(read_epsilon_inp(kSpb + "epsilon.inp")), sp(read_sigma_inp(kSpb + "sigma.inp")), rho(read_rho(kSpb + "mean-field/RHO")), vxc(read_vxc_dat(kSpb + "mean-field/vxc.dat")) {
    ep.quiet = sp.quiet = true;
    ep.backend = sp.backend = quanta::Backend::Auto;
  }
  std::vector<DielectricMatrix> epsilon(const Wavefunctions& w, const Wavefunctions& wq) {
    ep.nbands = w.nbands;
    return compute_epsilon(w, &wq, ep);
  }
  std::vector<SigmaK> sigma(const Wavefunctions& w, const std::vector<DielectricMatrix>& eps) {
    sp.nbands = w.nbands;
    return compute_sigma(w, rho, vxc, eps, sp);
  }
};

std::vector<double> flatten(const std::vector<SigmaK>& s, double SigmaBand::*field) {
  std::vector<double> v;
  for (const auto& k : s)
    for (const auto& b : k.bands) v.push_back(b.*field);
  return v;
}

double ch0(const SigmaBand& b) { return b.ch[0]; }

}  // namespace

// Epsilon: chi0 is linear in each slice's projector at the slice's energy, so the mean of chi0 over independent
// draws of pseudobands must equal chi0 of the deterministic run with every band of a slice at the slice's mean
// energy. Every element of chi0 (q0 and one other q-point, real and imaginary parts) is tested by its Student t
// over 16 draws: fewer than 2% beyond 4 (t with 15 degrees of freedom: 0.1% expected) and a root mean square
// within 0.6 .. 1.6 (1.07 expected).
TEST(GwPseudobandsPhysics, EpsilonsChi0IsUnbiased) {
  SpbRun run;
  run.ep.qpoints.resize(2);
  run.ep.keep_matrices = true;
  const auto p = params(4, 10, 2);
  const auto plan = plan_pseudobands(si_wfn(), si_wfnq(), p);
  const auto ref_eps = run.epsilon(slice_averaged(si_wfn(), plan), si_wfnq());
  std::vector<double> ref;
  double scale = 0;
  for (const auto& e : ref_eps)
    for (const cplx& x : e.chi0) {
      ref.push_back(x.re), ref.push_back(x.im);
      scale = std::max(scale, quanta::abs(x));
    }
  std::vector<std::vector<double>> draws;
  double head = 0;
  for (int d = 0; d < 16; ++d) {
    auto pd = p;
    pd.seed = 1000 + d;
    const auto eps = run.epsilon(make_pseudobands(si_wfn(), plan, pd, true, 0), make_pseudobands(si_wfnq(), plan, pd, false, 1));
    std::vector<double> v;
    for (const auto& e : eps)
      for (const cplx& x : e.chi0) v.push_back(x.re), v.push_back(x.im);
    ASSERT_EQ(v.size(), ref.size());
    draws.push_back(v);
    head += eps[1].at(eps[1].epsinv, 0, 0).re / 16;
  }
  const auto t = t_stats(draws, ref, 1e-12 * scale);
  std::printf("  chi0: %d elements with a spread, |t| > 4: %.2f%%, rms t %.3f; eps^-1 head at q-point 2: slice-averaged %.6f, mean of draws %.6f\n",
              t.n, 100 * t.beyond4, t.rms, ref_eps[1].at(ref_eps[1].epsinv, 0, 0).re, head);
  EXPECT_GT(t.n, 1000);
  EXPECT_LT(t.beyond4, 0.02);
  EXPECT_GT(t.rms, 0.6);
  EXPECT_LT(t.rms, 1.6);
}

// Sigma with a fixed W: the Coulomb-hole sum runs over every band and is linear in each slice's projector, the
// exchange and screened-exchange sums run over the (copied) occupied bands. Over 16 draws of WFN_inner: CH's mean
// within its Student t bound of the slice-averaged run (|t| < 4.5 for each of the 16 band values: 15 degrees of
// freedom, 0.06% per value), X and SX-X equal to the last digits (1e-9 eV: the same sums, the same order).
TEST(GwPseudobandsPhysics, SigmasCoulombHoleIsUnbiased) {
  SpbRun run;
  const auto eps = run.epsilon(si_wfn(), si_wfnq());  // 138 bands, deterministic
  const auto p = params(4, 10, 2);
  const auto plan = plan_pseudobands(si_wfn(), si_wfnq(), p);
  const auto ref = run.sigma(slice_averaged(si_wfn(), plan), eps);
  std::vector<double> ref_ch;
  for (const auto& k : ref)
    for (const auto& b : k.bands) ref_ch.push_back(ch0(b));
  std::vector<std::vector<double>> draws;
  for (int d = 0; d < 16; ++d) {
    auto pd = p;
    pd.seed = 2000 + d;
    const auto s = run.sigma(make_pseudobands(si_wfn(), plan, pd, true, 0), eps);
    std::vector<double> v;
    for (std::size_t ik = 0; ik < s.size(); ++ik)
      for (std::size_t i = 0; i < s[ik].bands.size(); ++i) {
        const auto& b = s[ik].bands[i];
        const auto& r = ref[ik].bands[i];
        EXPECT_NEAR(b.x, r.x, 1e-9);
        EXPECT_NEAR(b.sx_x[0], r.sx_x[0], 1e-9);
        v.push_back(ch0(b));
      }
    draws.push_back(v);
  }
  const std::size_t m = draws.size();
  for (std::size_t i = 0; i < ref_ch.size(); ++i) {
    double mean = 0, var = 0;
    for (const auto& d : draws) mean += d[i] / m;
    for (const auto& d : draws) var += (d[i] - mean) * (d[i] - mean) / (m - 1);
    const double se = std::sqrt(var / m);
    std::printf("  CH value %2zu: slice-averaged %9.5f eV, draws %9.5f +- %.5f (sd of one draw %.4f)\n", i, ref_ch[i], mean, se, std::sqrt(var));
    EXPECT_LT(std::abs(mean - ref_ch[i]), 4.5 * se + 1e-9) << "value " << i;
  }
}

// Whole runs, Epsilon and Sigma both from pseudobands (16 protected conduction bands, 10 slices, 2 per slice: 40
// bands for 138), against the deterministic 138-band run. Each quasiparticle energy's mean over 8 draws must lie
// within 4 standard errors of the deterministic value plus the slice-energy bias measured by the slice-averaged
// deterministic run (the method's systematic part), plus 5 meV for the bias that eps^-1's nonlinearity in chi0
// adds to a mean of draws (second order in the draws' spread; 1-3 meV here). Printed: every value, its spread.
TEST(GwPseudobandsPhysics, QuasiparticleEnergiesWithinTheStochasticError) {
  SpbRun run;
  const auto det = flatten(run.sigma(si_wfn(), run.epsilon(si_wfn(), si_wfnq())), &SigmaBand::eqp1);
  const auto p = params(16, 10, 2);
  const auto plan = plan_pseudobands(si_wfn(), si_wfnq(), p);
  const auto avg_w = slice_averaged(si_wfn(), plan);
  const auto avg = flatten(run.sigma(avg_w, run.epsilon(avg_w, si_wfnq())), &SigmaBand::eqp1);
  std::vector<std::vector<double>> draws;
  for (int d = 0; d < 8; ++d) {
    auto pd = p;
    pd.seed = 3000 + d;
    const auto w = make_pseudobands(si_wfn(), plan, pd, true, 0);
    ASSERT_EQ(w.nbands, 4 + 16 + 2 * static_cast<int>(plan.cond.size()));
    draws.push_back(flatten(run.sigma(w, run.epsilon(w, make_pseudobands(si_wfnq(), plan, pd, false, 1))), &SigmaBand::eqp1));
  }
  const std::size_t m = draws.size();
  double worst_sd = 0;
  for (std::size_t i = 0; i < det.size(); ++i) {
    double mean = 0, var = 0;
    for (const auto& d : draws) mean += d[i] / m;
    for (const auto& d : draws) var += (d[i] - mean) * (d[i] - mean) / (m - 1);
    const double se = std::sqrt(var / m), bias = std::abs(avg[i] - det[i]);
    worst_sd = std::max(worst_sd, std::sqrt(var));
    std::printf("  Eqp1 %2zu: deterministic %9.5f eV, slice-averaged %+.5f, draws %+.5f +- %.5f (sd of one draw %.4f)\n", i, det[i], avg[i] - det[i],
                mean - det[i], se, std::sqrt(var));
    EXPECT_LT(std::abs(mean - det[i]), 4 * se + bias + 0.005) << "value " << i;
  }
  std::printf("  largest spread of one draw: %.4f eV\n", worst_sd);
}

// Epsilon at q0 takes the valence states at k + q0 from WFNq through WFNq's own symmetry operations. This WFNq was
// made without symmetry (one operation, every k-point of the grid listed) while WFN carries 48: the little group of
// q0 must be taken from WFNq's list (taken from WFN's, its indices ran past WFNq's one operation, and chi0(q0) depended
// on whatever memory lay there: its head read -5.39e-4 or -3.20e-4 in two call sequences of one process). With all
// k-points listed, WFNq with WFN's 48 operations gives the same chi0(q0) up to the states' convergence: some k + q0
// are then reached by rotating another point's states, which QE converged to ~1e-5 in the coefficients (its
// eigenvectors at conv 1e-10 Ry), so chi0 agrees to ~1e-7 relative (2e-7 measured; bound 1e-6). With the indices of
// WFN's list the one-operation file gave 0.5% and history-dependent values.
TEST(GwPseudobandsPhysics, EpsilonAtQ0UsesWfnqsOwnOperations) {
  SpbRun run;
  run.ep.qpoints.resize(1);
  run.ep.keep_matrices = true;
  ASSERT_EQ(si_wfnq().crystal.rotation.size(), 1u);
  ASSERT_EQ(si_wfn().crystal.rotation.size(), 48u);
  Wavefunctions q48 = si_wfnq();
  q48.crystal = si_wfn().crystal;
  const auto a = run.epsilon(si_wfn(), si_wfnq());
  const auto b = run.epsilon(si_wfn(), q48);
  double d = 0, big = 0;
  for (std::size_t i = 0; i < a[0].chi0.size(); ++i) {
    d = std::max(d, quanta::abs(a[0].chi0[i] - b[0].chi0[i]));
    big = std::max(big, quanta::abs(a[0].chi0[i]));
  }
  EXPECT_LT(d, 1e-6 * big);
}
