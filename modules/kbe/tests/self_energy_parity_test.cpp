// The two self-energy implementations against each other (random Green's functions, and a whole
// propagation), and the direct one against the seed's eq. (7) summed literally over (q, k').
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "../kernels/self_energy.hpp"
#include "test_support.hpp"

namespace {

using namespace quanta::kbe::kernels;
using quanta::cplx;
using quanta::kbe::SelfEnergyMethod;

struct Slice {
  int nk, count;
  std::vector<cplx> gl, gg, sl, sg;
  std::vector<double> u;
  Slice(int nk_, int count_, unsigned seed) : nk(nk_), count(count_) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> d(-1, 1);
    const std::size_t n = block_size(nk) * count;
    for (std::size_t i = 0; i < n; ++i) gl.emplace_back(d(rng), d(rng));
    for (std::size_t i = 0; i < n; ++i) gg.emplace_back(d(rng), d(rng));
    for (int l = 0; l < count; ++l) u.push_back(0.5 + 0.25 * d(rng));
    sl.resize(n);
    sg.resize(n);
  }
  void compute(SelfEnergyMethod m) {
    SelfEnergyWorkspace ws(m, nk, 2);
    SelfEnergySlice s{nk, count, gl.data(), gg.data(), 0.7, u.data(), sl.data(), sg.data()};
    self_energy_slice_cpu(s, ws);
  }
};

double rel_diff(const std::vector<cplx>& a, const std::vector<cplx>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, quanta::abs(a[i] - b[i]));
    den = std::max(den, quanta::abs(a[i]));
  }
  return num / den;
}

TEST(KbeSelfEnergy, DirectAndFftAgreeOnRandomGreenFunctions) {
  for (int nk : {1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32}) {
    Slice d(nk, 5, 1000 + nk), f(nk, 5, 1000 + nk);
    d.compute(SelfEnergyMethod::Direct);
    f.compute(SelfEnergyMethod::Fft);
    const double el = rel_diff(d.sl, f.sl), eg = rel_diff(d.sg, f.sg);
    std::printf("nk = %2d: max |direct - fft| / max |direct|: Sigma< %.2e, Sigma> %.2e\n", nk, el, eg);
    // Both are sums of O(nk^2) products of O(1) numbers in double precision; 1e-12 leaves a margin of
    // about 100 over the rounding seen up to nk = 32.
    EXPECT_LT(el, 1e-12);
    EXPECT_LT(eg, 1e-12);
  }
}

// Seed eq. (7) as printed (with G(t',t) from the adjoint relation), four nested loops, no factorization.
TEST(KbeSelfEnergy, DirectMatchesLiteralSecondBornSum) {
  const int nk = 5;
  Slice s(nk, 2, 7);
  s.compute(SelfEnergyMethod::Direct);
  auto idx = [nk](int i) { return ((i % nk) + nk) % nk; };  // momentum index of k_i on the grid (sums wrap)
  for (int l = 0; l < s.count; ++l) {
    const cplx* x = s.gl.data() + l * block_size(nk);
    const cplx* yb = s.gg.data() + l * block_size(nk);
    auto X = [&](int a, int b, int k) { return x[(2 * a + b) * nk + idx(k)]; };
    auto Y = [&](int a, int b, int k) { return -conj(yb[(2 * b + a) * nk + idx(k)]); };  // G>(k; t', t)
    const double pref = 0.7 * s.u[l] / (nk * nk);
    double worst = 0;
    for (int j = 0; j < 2; ++j)
      for (int m = 0; m < 2; ++m)
        for (int k = 0; k < nk; ++k) {
          cplx sum;
          for (int q = 0; q < nk; ++q)
            for (int kp = 0; kp < nk; ++kp)
              sum += X(1 - j, 1 - m, kp + q) * Y(1 - m, 1 - j, kp) * X(j, m, k - q) -
                     X(j, 1 - m, kp) * Y(1 - m, 1 - j, kp + q - k) * X(1 - j, m, q);
          // With indices relative to the grid's centre, k_a + k_b - k_c has index a + b - c (mod nk).
          const cplx ref = pref * sum;
          const cplx got = s.sl[l * block_size(nk) + (2 * j + m) * nk + k];
          worst = std::max(worst, quanta::abs(ref - got));
        }
    EXPECT_LT(worst, 1e-13);  // the same sum in another order: rounding only
  }
}

TEST(KbeSelfEnergy, DirectAndFftAgreeInAPropagation) {
  // Strong coupling and excited carriers (n_c up to 0.45 near k = 0), so the collision integrals are large.
  auto c = kbe_test::small_config(8, 1.0, 0.05, 40);
  for (int i = 0; i < 8; ++i) {
    const double k = 2 * M_PI * (i - 4) / 8, x = 0.45 * std::exp(-k * k);
    c.model.n_valence[i] = 1.0 - x;
    c.model.n_conduction[i] = x;
  }
  c.solver.self_energy = SelfEnergyMethod::Direct;
  const auto rd = kbe_test::propagate_to_end(c);
  c.solver.self_energy = SelfEnergyMethod::Fft;
  const auto rf = kbe_test::propagate_to_end(c);
  double scale = 0;
  for (const auto& z : rd) scale = std::max(scale, std::abs(z));
  const double rel = kbe_test::max_abs_diff(rd, rf) / scale;
  // The comparison must involve the self-energy: without it (Hartree-Fock only) rho differs by far more.
  c.solver.second_born = false;
  const double effect = kbe_test::max_abs_diff(rf, kbe_test::propagate_to_end(c)) / scale;
  std::printf("40 steps, nk = 8, U = 1: max |rho_direct - rho_fft| / max |rho| = %.2e; second-Born effect %.2e\n", rel, effect);
  EXPECT_LT(rel, 1e-12);  // rounding differences of the two self-energies carried through 40 steps
  EXPECT_GT(effect, 1e-2);
}

}  // namespace
